"""Perft: count the leaf positions of the move tree, to check move generation and speed.

Rule sets with the ``pass`` stuck policy and no repetition rule use the numba
kernel; the others walk the tree with :class:`~gameclub.ataxx.board.Board`
(slow, but exact for every rule set).
"""

from __future__ import annotations

import numpy as np

from gameclub.ataxx.board import Board, Color
from gameclub.ataxx.rules import StuckPolicy


def perft(board: Board, depth: int) -> int:
    """Number of leaves ``depth`` plies below ``board`` (a game-over node has none)."""
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, not {depth}")
    rules = board.rules
    if rules.stuck is StuckPolicy.PASS and not rules.repetition:
        from gameclub.ataxx.bitboard import perft_kernel

        us, them = board.pieces(board.turn), board.pieces(Color(1 - board.turn))
        return int(
            perft_kernel(
                np.uint64(us),
                np.uint64(them),
                np.uint64(board.playable),
                board.halfmove_clock,
                depth,
                rules.fifty_move_limit or 0,
            )
        )
    return _perft_python(board.copy(), depth)


def _perft_python(board: Board, depth: int) -> int:
    if depth == 0:
        return 1
    moves = board.legal_moves
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board._push_unchecked(move)
        total += _perft_python(board, depth - 1)
        board.pop()
    return total
