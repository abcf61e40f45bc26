"""Move generation against the libataxx perft suite, through the kernel and through Board."""

from __future__ import annotations

from pathlib import Path

import pytest

from gameclub.ataxx import Board
from gameclub.ataxx.perft import _perft_python, perft

DATA = Path(__file__).parent.parent / "data" / "ataxx-perft.txt"


def perft_cases() -> list[tuple[str, int, int]]:
    """(FEN, depth, nodes) lines of the libataxx perft suite."""
    cases = []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fen, depth, nodes = (part.strip() for part in line.split(";"))
        cases.append((fen, int(depth), int(nodes)))
    return cases


CASES = perft_cases()
CHEAP = [case for case in CASES if case[2] <= 2_500_000]


def test_suite_is_complete() -> None:
    assert len(CASES) > 100
    assert len({fen for fen, _, _ in CASES}) >= 20


@pytest.mark.parametrize(("fen", "depth", "nodes"), CHEAP)
def test_kernel_perft(fen: str, depth: int, nodes: int) -> None:
    assert perft(Board(fen), depth) == nodes


@pytest.mark.parametrize(("fen", "depth", "nodes"), [c for c in CASES if c[2] <= 160_000])
def test_board_perft(fen: str, depth: int, nodes: int) -> None:
    """The pure-Python Board agrees too (legal_moves, push, pop, outcome)."""
    board = Board(fen)
    assert _perft_python(board.copy(), depth) == nodes
    assert board.fen() == Board(fen).fen()


def test_perft_rejects_negative_depth() -> None:
    with pytest.raises(ValueError, match="depth"):
        perft(Board(), -1)
