"""The exact solver against an independent reference, and ``gameclub awele solve``.

The reference is a plain minimax over the Python :class:`Board` with no table:
a line that returns to a position already on it ends there with the seeds left
shared (worth 0), the solver's rule for play that stays in a cycle. Without a
table nothing depends on the order of the search, so for the tiny positions
where it finishes it is exact, and it shares no code with the solver's
retrograde layers.
"""

from __future__ import annotations

import json
import random

import pytest

from gameclub.awele import AWARI, AWELE, Board
from gameclub.awele.board import move_effect
from gameclub.awele.solver import margin_table, solve, south_margin
from gameclub.cli import main


def _reference(board: Board, line: list[tuple[tuple[int, ...], int]]) -> int:
    pits, side = board.pits, int(board.turn)
    mine, theirs = sum(board.row(board.turn)), sum(board.row(board.turn.other))
    if mine == 0:
        return -theirs
    moves = board._legal_and_refused()[0]
    best = -100
    for move in moves:
        effect = move_effect(pits, move, board.rules)
        child = (effect.pits, 1 - side)
        if effect.captured == 0 and child in line:
            value = 0
        else:
            board._push_unchecked(move)
            value = effect.captured - _reference(board, [*line, child] if not effect.captured
                                                  else [child])
            board.pop()
        best = max(best, value)
    return best


# Two seeds: the plain minimax's tree grows too fast beyond that.
TINY = [
    "1-0-0-0-0-0-0-0-0-0-0-1-0-0-S",
    "0-0-0-0-0-2-0-0-0-0-0-0-0-0-S",
    "0-0-0-0-0-1-1-0-0-0-0-0-0-0-S",
    "0-0-0-0-1-0-0-0-0-0-1-0-0-0-N",
    "0-1-0-0-0-0-0-0-1-0-0-0-0-0-S",
    "0-0-0-0-0-0-0-0-0-0-0-2-0-0-N",
]


@pytest.mark.parametrize("rules", [AWELE, AWARI], ids=lambda r: r.name)
@pytest.mark.parametrize("position", TINY)
def test_solver_matches_a_plain_minimax(position, rules):
    board = Board(position, rules)
    solution = solve(board)
    reference = _reference(board.copy(), [(board.pits, int(board.turn))])
    assert solution.value == reference
    for move, value in solution.moves.items():
        child = board.copy()
        effect = move_effect(board.pits, move, rules)
        child._push_unchecked(move)
        line = [(board.pits, int(board.turn))] if not effect.captured else []
        assert value == effect.captured - _reference(child, [*line, (child.pits, int(child.turn))])
    assert solution.value == max(solution.moves.values(), default=solution.value)


def test_every_seed_goes_to_the_side_that_can_move():
    # North to move with no seeds: South takes the three left.
    assert solve(Board("1-2-0-0-0-0-0-0-0-0-0-0-20-25-N")).value == -3


def test_cli_solve_json(capsys):
    assert main(["awele", "solve", "0-0-0-0-2-1-0-0-0-0-1-0-0-0-S", "--rules", "awari",
                 "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert set(found) == {"value", "best", "moves"}
    assert found["moves"][found["best"]] == found["value"] == max(found["moves"].values())
    assert set(found["moves"]) <= set("ABCDEF")


def test_cli_solve_text_and_errors(capsys):
    assert main(["awele", "solve", "1-0-0-0-0-0-0-0-0-0-0-1-0-0-S"]) == 0
    assert capsys.readouterr().out.startswith("value +2 best A moves A:+2 ")
    assert main(["awele", "solve", "1-0-0-0-0-0-0-0-0-0-0-1-0-0-S", "--rules", "oware"]) == 2
    assert "depends on the game's history" in capsys.readouterr().err
    assert main(["awele", "solve", "startpos"]) == 2
    assert "48 seeds on the board is more than 12" in capsys.readouterr().err


@pytest.mark.parametrize("rules", [AWELE, AWARI], ids=lambda r: r.name)
def test_margin_table_agrees_with_solve(rules):
    # The table solves every position of each layer, solve only those reachable
    # from its root: the values of the positions both hold must agree.
    offsets, values = margin_table(rules.kernel_flags(), 7)
    rng = random.Random(3)
    for _ in range(60):
        pits = [0] * 12
        for _ in range(rng.randint(1, 7)):
            pits[rng.randrange(12)] += 1
        board = Board("-".join(map(str, pits)) + "-0-0-" + rng.choice("SN"), rules)
        south = south_margin(board.kernel_state(), offsets, values)
        assert solve(board).value == (south if board.turn == 0 else -south), board.position()


def test_margin_table_refuses_a_seed_count_out_of_range():
    with pytest.raises(ValueError, match="0 to 48 seeds, not 49"):
        margin_table(AWARI.kernel_flags(), 49)
