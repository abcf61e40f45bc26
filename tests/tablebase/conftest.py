"""Shared helpers for the table tests: small tables built once, and references written
apart from the builder (Python move generation through :class:`Board`, a Python index,
a plain minimax)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
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


@cache
def python_symmetries(width: int, height: int) -> list[Callable[[int], int]]:
    """The board's symmetries on compact masks, written plainly: every way of mirroring
    the files, mirroring the ranks and, on a square board, exchanging files and ranks."""
    n = width * height
    swaps = (False, True) if width == height else (False,)
    turns = []
    for swap in swaps:
        for flip_file in (False, True):
            for flip_rank in (False, True):
                image = []
                for k in range(n):
                    f, r = k % width, k // width
                    f = width - 1 - f if flip_file else f
                    r = height - 1 - r if flip_rank else r
                    f, r = (r, f) if swap else (f, r)
                    image.append(r * width + f)
                turns.append(lambda mask, image=image: sum(
                    1 << image[k] for k in range(n) if mask >> k & 1))
    return turns


_CLASSES: dict[tuple[int, int], dict[int, list[int]]] = {}


def python_classes(width: int, height: int) -> dict[int, list[int]]:
    """Per number of empty squares, the classes of empty sets as the manifest's index
    describes them: the least mask of each set's images, in increasing order."""
    if (width, height) not in _CLASSES:
        turns = python_symmetries(width, height)
        n = width * height
        least = {min(turn(m) for turn in turns) for m in range(1 << n)}
        classes: dict[int, list[int]] = {e: [] for e in range(n + 1)}
        for m in sorted(least):
            classes[m.bit_count()].append(m)
        _CLASSES[(width, height)] = classes
    return _CLASSES[(width, height)]


def python_colours(us: int, occupied: int, n: int) -> int:
    squares = [k for k in range(n) if occupied >> k & 1]
    return sum(1 << j for j, k in enumerate(squares) if us >> k & 1)


def python_index(us: int, them: int, width: int, height: int) -> tuple[int, int]:
    """``(layer, index)`` as the manifest's index describes it, written plainly: the
    empty squares taken to their least image, its class's number, then the least
    colours among the images that take the empty squares there."""
    n = width * height
    full = (1 << n) - 1
    images = [(turn(us), turn(them)) for turn in python_symmetries(width, height)]
    least = min(full & ~(u | t) for u, t in images)
    colours = min(python_colours(u, full & ~least, n) for u, t in images
                  if full & ~(u | t) == least)
    e = least.bit_count()
    return e, (_class_numbers(width, height)[least] << (n - e)) | colours


@cache
def _class_numbers(width: int, height: int) -> dict[int, int]:
    return {mask: number for masks in python_classes(width, height).values()
            for number, mask in enumerate(masks)}


def python_decode(layer: int, index: int, width: int, height: int) -> tuple[int, int]:
    """``(us, them)`` of a slot, by the documented index."""
    n = width * height
    full = (1 << n) - 1
    occupied_count = n - layer
    occupied = full & ~python_classes(width, height)[layer][index >> occupied_count]
    squares = [k for k in range(n) if occupied >> k & 1]
    us = sum(1 << k for j, k in enumerate(squares) if index >> j & 1)
    return us, occupied & ~us


def orbit_count(width: int, height: int) -> int:
    """Positions up to the board's symmetries, by Burnside's count: the average over the
    symmetries of 3 to the number of square cycles each makes."""
    n = width * height
    total = 0
    for turn in python_symmetries(width, height):
        seen, cycles = 0, 0
        for k in range(n):
            if seen >> k & 1:
                continue
            cycles += 1
            j = k
            while not seen >> j & 1:
                seen |= 1 << j
                j = turn(1 << j).bit_length() - 1
        total += 3**cycles
    return total // len(python_symmetries(width, height))


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
