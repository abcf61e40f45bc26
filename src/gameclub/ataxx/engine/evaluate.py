"""Static evaluation for ``master``: a tapered linear model whose weights are tuned on self-play.

The features, all "ours minus theirs" from the side to move:

- ``sq0`` .. ``sq9``: pieces on each symmetry class of square. A class is the pair
  of distances to the nearest vertical and horizontal edge, ``(a, b)`` with
  ``a <= b <= 3``; on 7x7 that is the usual 10-entry triangle (corner = class 0).
  Material is their sum, so there is no separate material term.
- ``exposed``: pieces next to an empty square (they can still be flipped).
- ``reach``: empty squares next to our pieces (where we can clone).
- ``capture``: the most pieces the side to move flips with one clone now, and
  ``threat``: the same for the opponent (it moves second, so it counts less).
- ``tempo``: 1 (the side to move).

Every feature has an opening and an endgame weight; the score blends them by the
share of empty squares. The weights in :mod:`gameclub.ataxx.engine.weights` come
from ``scripts/tune_eval.py`` (logistic regression on self-play positions,
labelled by the final result; see docs/engine.md) and are in centipawns.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import SINGLES, expand, lowest_square, popcount

N_CLASSES = 10
FEATURES: tuple[str, ...] = (
    *(f"sq{c}" for c in range(N_CLASSES)),
    "exposed",
    "reach",
    "capture",
    "threat",
    "tempo",
)
N_FEATURES = len(FEATURES)


def square_classes(width: int, height: int) -> list[int]:
    """Class of each of the 64 squares (-1 off the board)."""
    classes = [-1] * 64
    for rank in range(height):
        for file in range(width):
            a = min(file, width - 1 - file, 3)
            b = min(rank, height - 1 - rank, 3)
            a, b = min(a, b), max(a, b)
            # Index of (a, b) in the triangle a <= b: (0,0)=0, (0,1)=1, .., (1,1)=4, ..
            classes[rank * 8 + file] = a * 4 - a * (a - 1) // 2 + (b - a)
    return classes


def class_masks(width: int, height: int, playable: int) -> np.ndarray:
    masks = [0] * N_CLASSES
    for sq, c in enumerate(square_classes(width, height)):
        if c >= 0 and playable >> sq & 1:
            masks[c] |= 1 << sq
    return np.array(masks, dtype=np.uint64)


@njit(inline="always", cache=True)
def _best_capture(us, them, empty):
    best = np.int64(0)
    targets = expand(us) & empty & expand(them)
    while targets:
        sq = lowest_square(targets)
        targets &= targets - np.uint64(1)
        n = np.int64(popcount(SINGLES[sq] & them))
        if n > best:
            best = n
    return best


@njit(cache=True)
def features(us, them, playable, masks, out):
    """Write the raw feature values into ``out``; return the share of empty squares."""
    empty = playable & ~(us | them)
    for c in range(N_CLASSES):
        out[c] = np.int64(popcount(us & masks[c])) - np.int64(popcount(them & masks[c]))
    near_empty = expand(empty)
    out[N_CLASSES] = np.int64(popcount(us & near_empty)) - np.int64(popcount(them & near_empty))
    out[N_CLASSES + 1] = np.int64(popcount(expand(us) & empty)) - np.int64(
        popcount(expand(them) & empty)
    )
    out[N_CLASSES + 2] = _best_capture(us, them, empty)
    out[N_CLASSES + 3] = _best_capture(them, us, empty)
    out[N_CLASSES + 4] = 1
    return popcount(empty) / popcount(playable)


@njit(inline="always", cache=True)
def evaluate(us, them, playable, masks, w_open, w_end):
    """Centipawn score for the side to move (the same sum as ``features`` . weights)."""
    empty = playable & ~(us | them)
    so = np.int64(0)
    se = np.int64(0)
    for c in range(N_CLASSES):
        d = np.int64(popcount(us & masks[c])) - np.int64(popcount(them & masks[c]))
        so += w_open[c] * d
        se += w_end[c] * d
    near_empty = expand(empty)
    d = np.int64(popcount(us & near_empty)) - np.int64(popcount(them & near_empty))
    so += w_open[N_CLASSES] * d
    se += w_end[N_CLASSES] * d
    d = np.int64(popcount(expand(us) & empty)) - np.int64(popcount(expand(them) & empty))
    so += w_open[N_CLASSES + 1] * d
    se += w_end[N_CLASSES + 1] * d
    d = _best_capture(us, them, empty)
    so += w_open[N_CLASSES + 2] * d
    se += w_end[N_CLASSES + 2] * d
    d = _best_capture(them, us, empty)
    so += w_open[N_CLASSES + 3] * d
    se += w_end[N_CLASSES + 3] * d
    so += w_open[N_CLASSES + 4]
    se += w_end[N_CLASSES + 4]
    n_empty = np.int64(popcount(empty))
    n_all = np.int64(popcount(playable))
    return (so * n_empty + se * (n_all - n_empty)) // n_all


def load_weights() -> tuple[np.ndarray, np.ndarray]:
    """The shipped ``(opening, endgame)`` weights as int64 arrays."""
    from gameclub.ataxx.engine.weights import ENDGAME, OPENING

    return np.array(OPENING, dtype=np.int64), np.array(ENDGAME, dtype=np.int64)
