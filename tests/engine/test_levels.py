"""The 2005 levels do exactly what source 004 says, checked against plain Python minimax."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gameclub.ataxx import ATAXX, SITE_2005, Board, RuleSet
from gameclub.ataxx.bitboard import MAX_MOVES
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.levels import LEVEL_WIN, root_values, square_weights
from gameclub.ataxx.engine.terminal import KernelPosition, from_kernel_move
from gameclub.ataxx.squares import SINGLES

from .conftest import outcome_value, random_board


def reference(board: Board, depth: int, weights: np.ndarray) -> int:
    """Full-width minimax without pruning, on Board itself."""
    end = outcome_value(board, LEVEL_WIN)
    if end is not None:
        return end
    if depth == 0:
        us, them = board.pieces(board.turn), board.pieces(board.turn.other)
        return sum(int(weights[sq]) for sq in range(64) if us >> sq & 1) - sum(
            int(weights[sq]) for sq in range(64) if them >> sq & 1
        )
    best = -(1 << 40)
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -reference(board, depth - 1, weights))
        board.pop()
    return best


def reference_best(board: Board, depth: int, weights: np.ndarray) -> tuple[int, set[str]]:
    values = {}
    for move in board.legal_moves:
        board.push(move)
        values[move.uci()] = -reference(board, depth - 1, weights)
        board.pop()
    best = max(values.values())
    return best, {m for m, v in values.items() if v == best}


def kernel_best(board: Board, depth: int, weights: np.ndarray) -> tuple[int, set[str]]:
    pos = KernelPosition.from_board(board)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    values = np.empty(MAX_MOVES, dtype=np.int64)
    count, _ = root_values(np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable),
                           pos.color, pos.clock, pos.stuck, pos.tie_second, pos.fifty, depth,
                           weights, moves, values)
    best = int(values[:count].max())
    return best, {from_kernel_move(m).uci() for m, v in zip(moves[:count], values[:count],
                                                            strict=True) if v == best}


def test_simple_takes_a_move_of_maximal_gain(rng: random.Random) -> None:
    for _ in range(30):
        board = random_board(rng, 7, 7, rng.randrange(5, 30))
        move = Engine("simple", seed=rng.randrange(1000)).search(board).move
        them = board.pieces(board.turn.other)
        moves = board.legal_moves
        if moves == [move] and move.is_pass:
            continue
        gains = {m.uci(): (SINGLES[m.to_square or 0] & them).bit_count() + m.is_clone
                 for m in moves}
        assert gains[move.uci()] == max(gains.values())


@pytest.mark.parametrize("rules", [ATAXX, SITE_2005], ids=lambda r: r.name)
def test_hard_is_three_ply_minimax_on_pieces(rng: random.Random, rules: RuleSet) -> None:
    for size, empties in ((5, 6), (5, 9), (4, 7), (6, 5)):
        board = random_board(rng, size, size, empties, rules)
        weights = square_weights(board, "hard")
        assert set(weights[weights != 0]) == {1}
        assert kernel_best(board, 3, weights) == reference_best(board, 3, weights)


@pytest.mark.parametrize("rules", [ATAXX, SITE_2005], ids=lambda r: r.name)
def test_expert_is_five_ply_minimax_on_the_square_table(rng: random.Random,
                                                         rules: RuleSet) -> None:
    for size, empties in ((4, 3), (3, 4), (3, 3), (5, 3)):
        board = random_board(rng, size, size, empties, rules)
        weights = square_weights(board, "expert")
        assert kernel_best(board, 5, weights) == reference_best(board, 5, weights)
    # Bigger boards at lower cost: the same kernel at three plies on 7x7.
    board = random_board(rng, 7, 7, 4, rules)
    weights = square_weights(board, "expert")
    assert kernel_best(board, 3, weights) == reference_best(board, 3, weights)


def test_expert_square_table_orders_corners_edges_centre() -> None:
    w = square_weights(Board(), "expert").reshape(8, 8)
    corner, edge, centre = w[0, 0], w[0, 3], w[3, 3]
    assert corner > edge > centre > 0
    assert w[6, 6] == corner and w[7, 7] == 0


@pytest.mark.parametrize("level", ["random", "simple", "hard", "expert"])
def test_levels_are_deterministic_for_a_seed(level: str) -> None:
    def game(seed: int) -> list[str]:
        engines = [Engine(level, seed=seed), Engine(level, seed=seed + 1)]
        board = Board()
        for _ in range(12):
            move = engines[board.turn].search(board).move
            board.push(move)
        return [m.uci() for m in board.move_stack]

    assert game(7) == game(7)
    assert len({tuple(game(s)) for s in range(4)}) > 1 or level in ("hard", "expert")


def test_level_depths_are_reported() -> None:
    for level, depth in (("simple", 1), ("hard", 3), ("expert", 5)):
        assert Engine(level, seed=1).search(Board(), SearchLimits(depth=9)).depth == depth
