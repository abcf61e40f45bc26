"""Game ends, hashing and move conversion shared by the engine's numba kernels.

The kernels see a position as ``(us, them)`` bitboards from the side to move plus
``color`` (0 = x, 1 = o), because the 2005 tie rule favours one colour. The
functions here mirror :meth:`gameclub.ataxx.board.Board.outcome` exactly, in the
same order, so that search, levels and the endgame solver agree with the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import CLONE_FROM, PASS_MOVE, expand, popcount
from gameclub.ataxx.board import Board, Color
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import StuckPolicy, TiePolicy

STUCK_PASS = 0
STUCK_LOSE = 1
STUCK_EARLY_FILL = 2
#: result code of :func:`decisive_end` while the game goes on.
NOT_OVER = 2

_STUCK_CODES = {StuckPolicy.PASS: STUCK_PASS, StuckPolicy.LOSE: STUCK_LOSE,
                StuckPolicy.EARLY_FILL: STUCK_EARLY_FILL}


@dataclass(frozen=True)
class KernelPosition:
    """A board flattened into the scalars the kernels take."""

    us: int
    them: int
    playable: int
    color: int
    clock: int
    stuck: int
    tie_second: bool
    #: halfmoves without a clone that draw; 0 when the rule set has no such rule.
    fifty: int
    repetition: bool
    #: hashes of the earlier positions since the last clone, oldest first (repetition rules).
    prior: np.ndarray

    @classmethod
    def from_board(cls, board: Board) -> KernelPosition:
        rules = board.rules
        color = int(board.turn)
        prior = np.zeros(0, dtype=np.uint64)
        if rules.repetition:
            # Board keeps (x, o) of every earlier position; only those since the last
            # clone can repeat, and the clock says how many that is.
            hashes = []
            history = board._undo[len(board._undo) - min(board.halfmove_clock, len(board._undo)):]
            turn = color ^ (len(history) & 1)
            for undo in history:
                # An undo record holds (move, x, o, ...) of the position before a move.
                x, o = undo[1], undo[2]
                us, them = (o, x) if turn else (x, o)
                hashes.append(int(position_hash(np.uint64(us), np.uint64(them), turn)))
                turn ^= 1
            prior = np.array(hashes, dtype=np.uint64)
        return cls(
            us=board.pieces(board.turn),
            them=board.pieces(Color(1 - color)),
            playable=board.playable,
            color=color,
            clock=board.halfmove_clock,
            stuck=_STUCK_CODES[rules.stuck],
            tie_second=rules.tie is TiePolicy.SECOND_PLAYER,
            fifty=rules.fifty_move_limit or 0,
            repetition=rules.repetition,
            prior=prior,
        )


def to_kernel_move(move: Move) -> int:
    if move.to_square is None:
        return PASS_MOVE
    if move.from_square is None:
        return move.to_square | (CLONE_FROM << 8)
    return move.to_square | (move.from_square << 8)


def from_kernel_move(code: int) -> Move:
    code = int(code)
    if code == PASS_MOVE:
        return Move.PASS
    to, frm = code & 0xFF, code >> 8
    return Move.clone(to) if frm == CLONE_FROM else Move.jump(frm, to)


@njit(inline="always", cache=True)
def by_count(n_us, n_them, color, tie_second):
    """+1 / 0 / -1 for the side to move when the pieces decide (the tie policy applies)."""
    if n_us > n_them:
        return 1
    if n_us < n_them:
        return -1
    if tie_second:
        return 1 if color == 1 else -1
    return 0


@njit(cache=True)
def flood_fill(them, empty):
    """The empty squares ``them`` can reach by clones alone (the early-fill test)."""
    reach = them
    while True:
        grown = reach | (expand(reach) & empty)
        if grown == reach:
            return reach & empty
        reach = grown


@njit(cache=True)
def decisive_end(us, them, playable, color, stuck, tie_second):
    """``(result, margin)`` for the side to move: result +1/0/-1, or NOT_OVER.

    ``margin`` is the final piece difference (empty squares credited to the filler
    under an early fill). Repetition and the fifty-move rule are left to the caller,
    which checks them afterwards in this order, as ``Board.outcome()`` does.
    """
    n_us = np.int64(popcount(us))
    n_them = np.int64(popcount(them))
    if us == 0 or them == 0:
        return by_count(n_us, n_them, color, tie_second), n_us - n_them
    empty = playable & ~(us | them)
    if empty == 0:
        return by_count(n_us, n_them, color, tie_second), n_us - n_them
    if (expand(expand(us)) & empty) == 0:
        if (expand(expand(them)) & empty) == 0:
            return by_count(n_us, n_them, color, tie_second), n_us - n_them
        if stuck == STUCK_LOSE:
            return -1, n_us - n_them
        if stuck == STUCK_EARLY_FILL:
            reach = flood_fill(them, empty)
            if reach == empty:
                theirs = n_them + np.int64(popcount(empty))
                if 2 * theirs > np.int64(popcount(playable)):
                    return -1, n_us - theirs
    return NOT_OVER, 0


_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_K3 = np.uint64(0xBF58476D1CE4E5B9)
_K4 = np.uint64(0x94D049BB133111EB)
_TURN = np.uint64(0x5851F42D4C957F2D)


@njit(inline="always", cache=True)
def position_hash(us, them, color):
    """A 64-bit hash of ``(us, them, color)``: cheaper than Zobrist after a many-piece flip."""
    h = (us * _K1) ^ (((them * _K2) << np.uint64(31)) | ((them * _K2) >> np.uint64(33)))
    if color:
        h ^= _TURN
    h ^= h >> np.uint64(30)
    h *= _K3
    h ^= h >> np.uint64(27)
    h *= _K4
    h ^= h >> np.uint64(31)
    return h


@njit(inline="always", cache=True)
def extend_pv(pv: np.ndarray, pv_len: np.ndarray, ply: int, move: int) -> None:
    """Make ``move`` followed by the child's line the principal variation at ``ply``.

    ``pv[p, p:pv_len[p]]`` is the line found at ply ``p`` (a triangular table).
    """
    pv[ply, ply] = move
    child_len = pv_len[ply + 1]
    for k in range(ply + 1, child_len):
        pv[ply, k] = pv[ply + 1, k]
    pv_len[ply] = max(child_len, ply + 1)


@njit(inline="always", cache=True)
def returns_to_earlier(s_hash, prior, ply, clock, h):
    """Whether the position hashed ``h`` at ``ply`` occurred earlier since the last clone.

    Same side to move, so every second ply back, ``clock`` plies at most: first on
    the search line (``s_hash``), then in the game before the search (``prior``,
    oldest first, hashed like the line).
    """
    back = 2
    while back <= clock:
        k = ply - back
        seen = s_hash[k] == h if k >= 0 else prior.size + k >= 0 and prior[prior.size + k] == h
        if seen:
            return True
        back += 2
    return False
