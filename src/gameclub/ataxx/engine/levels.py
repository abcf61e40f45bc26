"""The three levels of the 2005 site, kept as the source describes them (source 004).

``simple``
    One move ahead: the move that gives the most own pieces right now (flips plus
    one for a clone), ties at random.
``hard``
    Three plies of full-width minimax (alpha-beta, which returns the same value)
    on the piece difference only.
``expert``
    Five plies on a square table: a corner is worth more than an edge, an edge
    more than the centre (:data:`EXPERT_CORNER` > :data:`EXPERT_EDGE` > 1).

All three know when the game is over: an ended game is worth ``LEVEL_WIN`` for a
win (minus for a loss, 0 for a draw) plus the final piece margin, scored as
``Board.outcome()`` does, except that repetitions are ignored as on the 2005 site.
Ties between equally good root moves are broken by the engine's seeded
generator, over the tied moves in a fixed order, so a seed replays a game.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import (
    CLONE_FROM,
    MAX_MOVES,
    PASS_MOVE,
    SINGLES,
    generate_moves,
    lowest_square,
    make_move,
    pick_next,
    popcount,
)
from gameclub.ataxx.board import Board
from gameclub.ataxx.engine.terminal import NOT_OVER, KernelPosition, decisive_end, from_kernel_move
from gameclub.ataxx.move import Move
from gameclub.ataxx.squares import SINGLES as SINGLES_PY

LEVEL_WIN = 10000
EXPERT_CORNER = 4
EXPERT_EDGE = 2
#: plies searched by each level.
LEVEL_DEPTH = {"hard": 3, "expert": 5}
_INF = 1 << 30


def simple_move(board: Board, moves: list[Move], rng: random.Random) -> Move:
    """The 2005 site's level: the move that gives the most own pieces now, ties at random."""
    them = board.pieces(board.turn.other)
    best: list[Move] = []
    best_gain = -1
    for move in moves:
        if move.to_square is None:
            return move
        gain = (SINGLES_PY[move.to_square] & them).bit_count() + (1 if move.is_clone else 0)
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain:
            best.append(move)
    return rng.choice(best)


def square_weights(board: Board, level: str) -> np.ndarray:
    """Leaf weight of each square: 1 for ``hard``; corners > edges > centre for ``expert``."""
    weights = np.zeros(64, dtype=np.int64)
    right, top = board.width - 1, board.height - 1
    for rank in range(board.height):
        for file in range(board.width):
            w = 1
            if level == "expert":
                edges = (file in (0, right)) + (rank in (0, top))
                w = EXPERT_CORNER if edges == 2 else EXPERT_EDGE if edges == 1 else 1
            weights[rank * 8 + file] = w
    return weights


@njit(inline="always", cache=True)
def _leaf(us, them, weights):
    score = np.int64(0)
    bb = us
    while bb:
        score += weights[lowest_square(bb)]
        bb &= bb - np.uint64(1)
    bb = them
    while bb:
        score -= weights[lowest_square(bb)]
        bb &= bb - np.uint64(1)
    return score


@njit(cache=True)
def root_values(us0, them0, playable, color0, clock0, stuck, tie_second, fifty, depth,
                weights, out_moves, out_values):
    """Minimax value of every root move to ``depth`` plies; return the number of moves.

    A move's value is exact when it reaches the best so far, else an upper bound
    below it (each move is searched with alpha = best - 1), which is all that
    choosing among the best moves needs. Returns the number of nodes as well.
    """
    n = depth + 1
    s_us = np.empty(n, dtype=np.uint64)
    s_them = np.empty(n, dtype=np.uint64)
    s_color = np.empty(n, dtype=np.int64)
    s_clock = np.empty(n, dtype=np.int64)
    s_alpha = np.empty(n, dtype=np.int64)
    s_beta = np.empty(n, dtype=np.int64)
    s_best = np.empty(n, dtype=np.int64)
    s_n = np.empty(n, dtype=np.int64)
    s_i = np.empty(n, dtype=np.int64)
    moves = np.empty((n, MAX_MOVES), dtype=np.int64)
    keys = np.empty((n, MAX_MOVES), dtype=np.int64)
    nodes = 0
    empty0 = playable & ~(us0 | them0)
    count0 = generate_moves(us0, empty0, out_moves)
    if count0 == 0:
        out_moves[0] = PASS_MOVE
        count0 = 1
    best_root = -_INF
    for r in range(count0):
        m = out_moves[r]
        us = us0
        them = them0
        clock = clock0 + 1
        if m != PASS_MOVE:
            if m >> 8 == CLONE_FROM:
                clock = 0
            us, them = make_move(us, them, m)
        # The child, from the opponent's side, searched in the window (-inf, -(best - 1)).
        s_us[1] = them
        s_them[1] = us
        s_color[1] = 1 - color0
        s_clock[1] = clock
        s_alpha[1] = -_INF
        s_beta[1] = -(best_root - 1) if best_root > -_INF else _INF
        ply = 1
        mode = 0  # 0: enter a node, 1: try its next move, 2: return ``ret`` to the parent
        ret = np.int64(0)
        while True:
            if mode == 0:
                nodes += 1
                us = s_us[ply]
                them = s_them[ply]
                result, margin = decisive_end(us, them, playable, s_color[ply], stuck, tie_second)
                if result != NOT_OVER:
                    ret = result * LEVEL_WIN + margin
                    mode = 2
                    continue
                if fifty > 0 and s_clock[ply] >= fifty:
                    ret = np.int64(popcount(us)) - np.int64(popcount(them))
                    mode = 2
                    continue
                if ply == depth:
                    ret = _leaf(us, them, weights)
                    mode = 2
                    continue
                empty = playable & ~(us | them)
                count = generate_moves(us, empty, moves[ply])
                if count == 0:
                    moves[ply, 0] = PASS_MOVE
                    keys[ply, 0] = 0
                    count = 1
                else:
                    # Greedy order (most pieces gained first) only speeds up the cut-offs.
                    for j in range(count):
                        mv = moves[ply, j]
                        k = 2 * np.int64(popcount(SINGLES[mv & 0xFF] & them))
                        keys[ply, j] = k + (1 if mv >> 8 == CLONE_FROM else 0)
                s_n[ply] = count
                s_i[ply] = 0
                s_best[ply] = -_INF
                mode = 1
                continue
            if mode == 1:
                i = s_i[ply]
                count = s_n[ply]
                if i >= count:
                    ret = s_best[ply]
                    mode = 2
                    continue
                mv = pick_next(moves, keys, ply, i, count)
                s_i[ply] = i + 1
                us = s_us[ply]
                them = s_them[ply]
                clock = s_clock[ply] + 1
                if mv != PASS_MOVE:
                    if mv >> 8 == CLONE_FROM:
                        clock = 0
                    us, them = make_move(us, them, mv)
                s_us[ply + 1] = them
                s_them[ply + 1] = us
                s_color[ply + 1] = 1 - s_color[ply]
                s_clock[ply + 1] = clock
                s_alpha[ply + 1] = -s_beta[ply]
                s_beta[ply + 1] = -s_alpha[ply]
                ply += 1
                mode = 0
                continue
            if ply == 1:
                break
            ply -= 1
            v = -ret
            mode = 1
            if v > s_best[ply]:
                s_best[ply] = v
                if v > s_alpha[ply]:
                    s_alpha[ply] = v
                    if v >= s_beta[ply]:
                        ret = v
                        mode = 2
        value = -ret
        out_values[r] = value
        if value > best_root:
            best_root = value
    return count0, nodes


def level_move(board: Board, level: str, rng: random.Random) -> tuple[Move, int, int]:
    """``(move, value, nodes)`` for ``hard`` or ``expert``; ties broken by ``rng``."""
    pos = KernelPosition.from_board(board)
    out_moves = np.empty(MAX_MOVES, dtype=np.int64)
    out_values = np.empty(MAX_MOVES, dtype=np.int64)
    count, nodes = root_values(
        np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable), pos.color, pos.clock,
        pos.stuck, pos.tie_second, pos.fifty, LEVEL_DEPTH[level], square_weights(board, level),
        out_moves, out_values,
    )
    best = int(out_values[:count].max())
    tied = sorted(int(m) for m, v in zip(out_moves[:count], out_values[:count], strict=True)
                  if v == best)
    return from_kernel_move(rng.choice(tied)), best, int(nodes)
