"""Perft: count the leaf positions of the Awele move tree, to check move generation and speed.

The count follows the rule set in full, repetitions included (a line that
repeats a position, this board's earlier positions included, ends there), and
runs in the numba kernel (:func:`gameclub.awele.kernel.perft`).
"""

from __future__ import annotations

import numpy as np

from gameclub.awele import kernel
from gameclub.awele.board import Board


def perft(board: Board, depth: int) -> int:
    """Number of leaves ``depth`` plies below ``board`` (a game-over node has none)."""
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, not {depth}")
    if board.is_game_over():
        return 1 if depth == 0 else 0
    rules = board.rules
    history = np.array(board.history_keys(), dtype=np.uint64)
    return int(kernel.perft(board.kernel_state(), depth, rules.kernel_flags(),
                            rules.repetition_count, history))
