"""The static evaluation of ``master``: the store difference and the shape of each row.

Scores are in hundredths of a seed from the side to move's view. Beside the
seeds already captured, a row is judged pit by pit, with the weights of Aalina's
published evaluation scaled to our unit: a pit of more than 12 seeds (a *kroo*,
which laps the board and captures on the way back) is an asset; an empty pit or
a pit of 1-2 seeds is a liability, because the opponent's sowing turns it into
a capturable 2 or 3. The weight of a pit of 1-2 seeds is half the published one
(-72, not -144): 70% over 200 fixed-node games (docs/awele-engine.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gameclub.awele.kernel import NORTH_STORE, SIDE, SOUTH_STORE

SEED = 100
KROO = 112
EMPTY = -216
WEAK = -72


#: The weights as the search takes them (``weights`` below), in this order.
W_KROO = 0
W_EMPTY = 1
W_WEAK = 2
N_WEIGHTS = 3


def default_weights() -> np.ndarray:
    """:data:`KROO`, :data:`EMPTY`, :data:`WEAK` as the array :func:`evaluate` reads."""
    weights = np.zeros(N_WEIGHTS, dtype=np.int64)
    weights[W_KROO], weights[W_EMPTY], weights[W_WEAK] = KROO, EMPTY, WEAK
    return weights


@njit(inline="always", cache=True)
def _row_shape(row, lo, weights):
    score = 0
    for i in range(lo, lo + 6):
        seeds = np.int64(row[i])
        if seeds > 12:
            score += weights[W_KROO]
        elif seeds == 0:
            score += weights[W_EMPTY]
        elif seeds < 3:
            score += weights[W_WEAK]
    return score


@njit(inline="always", cache=True)
def evaluate(row, weights):
    """The position's score for the side to move (``weights``: :func:`default_weights`,
    an array so that a match can try others without recompiling)."""
    stores = np.int64(row[SOUTH_STORE]) - np.int64(row[NORTH_STORE])
    score = SEED * stores + _row_shape(row, 0, weights) - _row_shape(row, 6, weights)
    return score if row[SIDE] == 0 else -score
