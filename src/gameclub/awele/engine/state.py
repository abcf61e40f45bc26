"""The search's view of a game, over the rules library's numba kernel.

A position is the kernel's ``uint8`` state (:mod:`gameclub.awele.kernel`: pits
0-11, the stores, the side to move); moves are absolute pit numbers 0-11. This
module adds only what a search needs beside the rules: the rule set packed for
the kernels, move generation with each move's capture (for ordering), the final
margin of a finished game from the mover's view, and a hash that also covers
the stores (the kernel's key leaves them out: a game's repetition cannot cross a
capture, but a transposition table must tell 20-10 from 10-20).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gameclub.awele import kernel
from gameclub.awele.board import Board
from gameclub.awele.kernel import (
    END_REPETITION,
    NORTH_STORE,
    ONGOING,
    SIDE,
    SOUTH_STORE,
    STATE_SIZE,
    end_kind,
    final_stores,
    legal_mask,
    play,
    position_key,
)
from gameclub.awele.rules import RepetitionShare, RuleSet

__all__ = [
    "NORTH_STORE",
    "ONGOING",
    "SIDE",
    "SOUTH_STORE",
    "STATE_SIZE",
    "KernelGame",
    "end_margin",
    "generate",
    "play",
    "position_key",
    "rep_margin",
    "search_hash",
]

# The rule set as the search kernel reads it (an int64 array).
RP_FLAGS = 0  # RuleSet.kernel_flags()
RP_SHARE_EQUAL = 1  # 1 when a repetition shares the seeds left equally
RP_ODD_SEED = 2  # kernel.ODD_*
RP_REPETITION = 3  # 1 when a repetition ends the game at all
N_RULES = 4

_ODD = {"nobody": kernel.ODD_NOBODY, "to-move": kernel.ODD_TO_MOVE,
        "opponent": kernel.ODD_OPPONENT}


def rules_array(rules: RuleSet) -> np.ndarray:
    """The rule set packed for :func:`search_kernel`."""
    packed = np.zeros(N_RULES, dtype=np.int64)
    packed[RP_FLAGS] = rules.kernel_flags()
    packed[RP_SHARE_EQUAL] = 1 if rules.repetition_share is RepetitionShare.EQUAL else 0
    packed[RP_ODD_SEED] = _ODD[rules.odd_seed.value]
    packed[RP_REPETITION] = 1 if rules.repetition_count > 0 else 0
    return packed


def _store_keys() -> np.ndarray:
    # A fixed seed: the same keys in every process.
    rng = np.random.default_rng(0x5EED_A7E1E)
    return rng.integers(1, 2**63, size=(2, 49), dtype=np.int64).astype(np.uint64)


STORE_KEYS = _store_keys()


@njit(inline="always", cache=True)
def search_hash(state):
    """The kernel's position key with the stores mixed in (for the transposition table)."""
    return (position_key(state) ^ STORE_KEYS[0, state[SOUTH_STORE]]
            ^ STORE_KEYS[1, state[NORTH_STORE]])


@njit(cache=True, nogil=True)
def generate(state, rp, moves, caps, children):
    """The legal pits of ``state`` into ``moves``, their captures into ``caps`` and the
    positions after them into the rows of ``children``; return their number."""
    mask = legal_mask(state, rp[RP_FLAGS])
    base = 6 * np.int64(state[SIDE])
    n = 0
    for i in range(6):
        if mask >> i & 1:
            pit = base + i
            moves[n] = pit
            caps[n] = play(state, pit, children[n], rp[RP_FLAGS])
            n += 1
    return n


@njit(inline="always", cache=True)
def _mover_margin(state, south, north):
    return south - north if state[SIDE] == 0 else north - south


@njit(cache=True, nogil=True)
def end_margin(state, rp):
    """``(over, margin)``: whether the game is over here (repetition aside) and the
    final margin from the mover's view if so."""
    kind = end_kind(state, rp[RP_FLAGS])
    if kind == ONGOING:
        return False, 0
    south, north = final_stores(state, rp[RP_FLAGS], kind, rp[RP_SHARE_EQUAL] == 1,
                                rp[RP_ODD_SEED])
    return True, _mover_margin(state, south, north)


@njit(cache=True, nogil=True)
def rep_margin(state, rp):
    """The final margin from the mover's view when a repetition ends the game here."""
    south, north = final_stores(state, rp[RP_FLAGS], END_REPETITION, rp[RP_SHARE_EQUAL] == 1,
                                rp[RP_ODD_SEED])
    return _mover_margin(state, south, north)


@dataclass
class KernelGame:
    """A game as the search reads it: the root state, the rules, the earlier positions."""

    root: np.ndarray
    rules: np.ndarray
    #: kernel keys and seeds in play of the positions before the root, oldest first.
    keys: np.ndarray
    seeds: np.ndarray

    @classmethod
    def from_board(cls, board: Board) -> KernelGame:
        earlier = board.copy()
        states = []
        while earlier.move_stack:
            earlier.pop()
            states.append(np.asarray(earlier.kernel_state(), dtype=np.uint8))
        states.reverse()
        keys = np.array([position_key(s) for s in states], dtype=np.uint64)
        seeds = np.array([int(s[:12].sum()) for s in states], dtype=np.int64)
        root = np.asarray(board.kernel_state(), dtype=np.uint8)
        return cls(root, rules_array(board.rules), keys, seeds)

    @property
    def on_board(self) -> int:
        return int(self.root[:12].sum())

    def legal_pits(self) -> list[int]:
        moves = np.zeros(6, dtype=np.int64)
        caps = np.zeros(6, dtype=np.int64)
        children = np.zeros((6, STATE_SIZE), dtype=np.uint8)
        n = generate(self.root, self.rules, moves, caps, children)
        return [int(m) for m in moves[:n]]
