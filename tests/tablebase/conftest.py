"""Shared helpers for the table tests: small tables built once, and references written
apart from the builder (Python move generation through :class:`Board`, a Python index,
a plain minimax)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from math import comb
from pathlib import Path

import pytest

from gameclub.ataxx import ATAXX, Board, RuleSet
from gameclub.ataxx.fen import format_fen
from gameclub.ataxx.rules import StuckPolicy
from gameclub.tablebase.ataxx import AtaxxProbe, AtaxxTables
from gameclub.tablebase.awele import AweleProbe, AweleTables
from gameclub.tablebase.build import build
from gameclub.tablebase.values import encode


def ataxx_rules(width: int, height: int, rules: str) -> RuleSet:
    """The rule set a table stands for: no move limit, and the stuck rule of ``rules``."""
    stuck = StuckPolicy.LOSE if rules == "site-2005" else StuckPolicy.PASS
    return ATAXX.replace(width=width, height=height, fifty_move_limit=None, stuck=stuck)


def board_of(us: int, them: int, width: int, height: int, rules: RuleSet) -> Board:
    """The board with compact masks ``us`` (x, to move) and ``them`` (o)."""
    x = o = 0
    for k in range(width * height):
        sq = (k // width) * 8 + k % width
        if us >> k & 1:
            x |= 1 << sq
        elif them >> k & 1:
            o |= 1 << sq
    return Board(format_fen(width, height, x, o, 0, 0, 0, 1), rules)


def positions(n: int) -> Iterator[tuple[int, int]]:
    """Every ``(us, them)`` of an ``n``-square board, by counting in base 3."""
    for code in range(3**n):
        us = them = 0
        for k in range(n):
            code, digit = divmod(code, 3)
            if digit == 1:
                us |= 1 << k
            elif digit == 2:
                them |= 1 << k
        yield us, them


def python_index(us: int, them: int, n: int) -> tuple[int, int]:
    """``(layer, index)`` as the manifest's index describes it, written plainly."""
    empties = [k for k in range(n) if not (us | them) >> k & 1]
    rank = sum(comb(k, j + 1) for j, k in enumerate(empties))
    occupied = [k for k in range(n) if (us | them) >> k & 1]
    colours = sum(1 << j for j, k in enumerate(occupied) if us >> k & 1)
    return len(empties), (rank << len(occupied)) | colours


def outcome_value(board: Board) -> int:
    """The stored value of a finished game, from :meth:`Board.outcome`."""
    outcome = board.outcome()
    assert outcome is not None
    x, o = outcome.score
    margin = x - o if board.turn == 0 else o - x
    if outcome.winner is None:
        return encode(0, margin)
    return encode(1 if outcome.winner == board.turn else -1, margin)


def minimax(board: Board, path: set[str] | None = None) -> int:
    """Plain negamax over every line; a return to a position of the line is a draw."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome_value(board)
    path = path or set()
    key = board.fen().rsplit(" ", 2)[0]
    if key in path:
        return 0
    path.add(key)
    best = -1000
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -minimax(board, path))
        board.pop()
    path.discard(key)
    return best


@pytest.fixture(scope="session")
def table_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="session")
def ataxx_probe(table_root: Path) -> Callable[[int, int, str], AtaxxProbe]:
    """``ataxx_probe(width, height, rules)``: that table, built once per test session."""
    built: dict[tuple[int, int, str], AtaxxProbe] = {}

    def get(width: int, height: int, rules: str = "ataxx") -> AtaxxProbe:
        key = (width, height, rules)
        if key not in built:
            build(AtaxxTables(width, height, rules), table_root)
            built[key] = AtaxxProbe.open(table_root, width, height, rules)
        return built[key]

    return get


#: The Awele tables every session builds once per rule set, and checks against the
#: exhaustive solver (0 to 12 seeds: 2.7 million positions, a few seconds each).
AWELE_SEEDS = 12


@pytest.fixture(scope="session")
def awele_probe_12(table_root: Path) -> Callable[[str], AweleProbe]:
    """``awele_probe_12(rules)``: the Awele table of 0 to 12 seeds for ``rules``, built
    once per test session."""
    built: dict[str, AweleProbe] = {}

    def get(rules: str) -> AweleProbe:
        if rules not in built:
            build(AweleTables(AWELE_SEEDS, rules), table_root)
            built[rules] = AweleProbe.open(table_root, rules, AWELE_SEEDS)
        return built[rules]

    return get
