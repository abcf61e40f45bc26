"""The fast writers of what the server sends for every move agree with a plain walk.

``Board.fen()`` (rows from a cache), ``cells_of`` and ``dests_of`` take shortcuts
(row caches, shared entries); here they are checked against the squares read one
at a time and ``Board.destinations()`` on many positions of random games, with and
without blocks, on every board size.
"""

from __future__ import annotations

import random

import pytest

from gameclub.ataxx import Board, RuleSet
from gameclub.ataxx.squares import iter_squares, square_name
from gameclub.games import cells_of, dests_of


def random_positions(board: Board, rng: random.Random, plies: int) -> list[Board]:
    positions = [board.copy()]
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
        positions.append(board.copy())
    return positions


def boards(seed: int) -> list[Board]:
    rng = random.Random(seed)
    found = []
    for size in range(2, 9):
        for _ in range(4):
            found += random_positions(Board(rules=RuleSet(width=size, height=size)), rng, 60)
    for blocks in ("3ghx", "acdefg", "14cfgx"):
        found += random_positions(
            Board(rules=RuleSet.from_name("pressibus").with_blocks(blocks)), rng, 80
        )
    found += random_positions(Board("7/7/7/7/xxx4/xxx4/oxx4 x 0 1"), rng, 30)
    return found


def plain_placement(cells: list[str]) -> str:
    """The FEN board field of rows of ``x``/``o``/``.``/``#``, a square at a time."""
    rows = []
    for cells_row in cells:
        text, run = "", 0
        for cell in cells_row:
            if cell == ".":
                run += 1
                continue
            text += (str(run) if run else "") + ("-" if cell == "#" else cell)
            run = 0
        rows.append(text + (str(run) if run else ""))
    return "/".join(rows)


@pytest.mark.parametrize("seed", [1, 2])
def test_fen_and_cells_are_the_squares(seed):
    for board in boards(seed):
        expected = []
        for rank in range(board.height - 1, -1, -1):
            row = ""
            for file in range(board.width):
                sq = rank * 8 + file
                piece = board.piece_at(sq)
                row += "#" if board.is_block(sq) else piece.char if piece is not None else "."
            expected.append(row)
        assert cells_of(board) == expected
        assert board.fen().split(" ")[0] == plain_placement(expected)


@pytest.mark.parametrize("seed", [3, 4])
def test_destinations_are_the_rules_librarys(seed):
    for board in boards(seed):
        expected = {}
        for sq in iter_squares(board.pieces(board.turn)):
            clones, jumps = board.destinations(sq)
            if clones or jumps:
                expected[square_name(sq)] = {
                    "clone": [square_name(s) for s in iter_squares(clones)],
                    "jump": [square_name(s) for s in iter_squares(jumps)],
                }
        got = {
            src: {"clone": list(d["clone"]), "jump": list(d["jump"])}
            for src, d in dests_of(board).items()
        }
        assert got == expected
