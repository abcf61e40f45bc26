"""The transposition table of the games' searches (Ataxx's and Awele's ``master``, the
Ataxx endgame solver): one ``uint64`` key and one packed ``uint64`` entry per slot.

An entry packs the score (32 bits, signed), the best move (16 bits), the draft
(8 bits), the bound (2 bits) and a 6-bit generation, so that a probe touches two
words. Replacement keeps the deeper entry of the current search and always
overwrites entries left by earlier searches (older generation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: A move code that no move has, also the field of an entry without a best move: an
#: Ataxx kernel move with ``to`` = 0xFE is off every board; Awele's moves are 0-11.
NO_MOVE = 0xFFFE

BOUND_NONE = 0
BOUND_UPPER = 1
BOUND_LOWER = 2
BOUND_EXACT = 3

_M32 = np.uint64(0xFFFFFFFF)
_M16 = np.uint64(0xFFFF)
_M8 = np.uint64(0xFF)


class TranspositionTable:
    """Numpy arrays that the kernels read and write in place; ``size_mb`` rounds down to 2^k."""

    def __init__(self, size_mb: int = 16) -> None:
        slots = max(1 << 10, (size_mb << 20) // 16)
        self.size = 1 << (slots.bit_length() - 1)
        # A slot's key and entry side by side, so that a probe reads one cache line,
        # not two (no measurable change here, where the L3 cache is large; it is the
        # layout that costs least where tables outgrow it).
        self.slots = np.zeros((self.size, 2), dtype=np.uint64)
        self.keys = self.slots[:, 0]
        self.data = self.slots[:, 1]
        self.generation = 0

    def clear(self) -> None:
        self.slots[:] = 0
        self.generation = 0

    def new_search(self) -> int:
        """Start a new generation (entries of older ones become replaceable first)."""
        self.generation = (self.generation + 1) & 63
        return self.generation


@njit(inline="always", cache=True)
def tt_probe(keys, data, h):
    """``(bound, move, score, depth)``; bound BOUND_NONE on a miss."""
    slot = h & np.uint64(keys.size - 1)
    if keys[slot] != h:
        return BOUND_NONE, NO_MOVE, 0, 0
    e = data[slot]
    raw = np.int64(e & _M32)
    score = raw - np.int64(1 << 32) if raw >= np.int64(1 << 31) else raw
    move = np.int64((e >> np.uint64(32)) & _M16)
    depth = np.int64((e >> np.uint64(48)) & _M8)
    bound = np.int64((e >> np.uint64(56)) & np.uint64(3))
    return bound, move, score, depth


@njit(inline="always", cache=True)
def tt_store(keys, data, h, bound, move, score, depth, generation):
    slot = h & np.uint64(keys.size - 1)
    old = data[slot]
    if keys[slot] != h and keys[slot] != np.uint64(0):
        old_gen = np.int64(old >> np.uint64(58))
        old_depth = np.int64((old >> np.uint64(48)) & _M8)
        # A deeper entry of this same search is worth more than a shallow new one.
        if old_gen == generation and old_depth > depth + 2:
            return
    if move == NO_MOVE and keys[slot] == h:
        move = np.int64((old >> np.uint64(32)) & _M16)
    depth = min(max(depth, 0), 255)
    keys[slot] = h
    data[slot] = (
        (np.uint64(score) & _M32)
        | (np.uint64(move & 0xFFFF) << np.uint64(32))
        | (np.uint64(depth) << np.uint64(48))
        | (np.uint64(bound) << np.uint64(56))
        | (np.uint64(generation) << np.uint64(58))
    )
