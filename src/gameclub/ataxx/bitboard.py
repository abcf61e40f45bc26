"""Numba kernels on bitboards: neighbour masks, move generation, make-move and perft.

These are the fast twins of :mod:`gameclub.ataxx.board` and are what the engine's
search is built on. A position is ``(us, them, empty)`` as ``uint64`` in the
stride-8 layout of :mod:`gameclub.ataxx.squares`; ``empty`` already excludes
blocks and squares off the board, so one set of tables serves every board size.

Importing this module compiles nothing: kernels compile on first call and are
cached on disk (``cache=True``). Import it lazily from Python-level code.

Moves are packed in an ``int64``: ``to | from << 8`` with ``from = 0xFF`` for a
clone (``CLONE_FROM``), and ``PASS_MOVE`` for a pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from gameclub.ataxx.squares import DOUBLES as _DOUBLES_PY
from gameclub.ataxx.squares import SINGLES as _SINGLES_PY

SINGLES = np.array(_SINGLES_PY, dtype=np.uint64)
DOUBLES = np.array(_DOUBLES_PY, dtype=np.uint64)
CLONE_FROM = 0xFF
PASS_MOVE = 0xFFFF
# An upper bound on the moves of one position: at most 16 jumps per piece and
# per empty square, so 16 * 32 jumps on an 8x8 board, plus 32 clones.
MAX_MOVES = 576

_NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)


@intrinsic
def popcount(typingctx, x):
    """Number of set bits (LLVM ``ctpop``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_square(typingctx, x):
    """Index of the lowest set bit (LLVM ``cttz``); undefined for 0."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


@njit(inline="always", cache=True)
def expand(bb):
    """``bb`` with every neighbour square (clipped to the 8x8 grid)."""
    row = bb | ((bb << np.uint64(1)) & _NOT_FILE_A) | ((bb >> np.uint64(1)) & _NOT_FILE_H)
    return row | (row << np.uint64(8)) | (row >> np.uint64(8))


@njit(inline="always", cache=True)
def has_moves(us, empty):
    return (expand(expand(us)) & empty) != np.uint64(0)


@njit(cache=True)
def count_moves(us, empty):
    """Number of non-pass moves, without generating them."""
    n = popcount(expand(us) & empty)
    targets = expand(expand(us)) & empty
    # Count jumps from whichever side is smaller: the pieces, or the squares they reach.
    if popcount(us) <= popcount(targets):
        bb = us
        while bb:
            sq = lowest_square(bb)
            bb &= bb - np.uint64(1)
            n += popcount(DOUBLES[sq] & empty)
    else:
        bb = targets
        while bb:
            sq = lowest_square(bb)
            bb &= bb - np.uint64(1)
            n += popcount(DOUBLES[sq] & us)
    return n


@njit(cache=True)
def generate_moves(us, empty, out):
    """Write the non-pass moves into ``out`` (int64 array of MAX_MOVES); return their number."""
    n = 0
    clones = expand(us) & empty
    while clones:
        to = lowest_square(clones)
        clones &= clones - np.uint64(1)
        out[n] = np.int64(to) | (CLONE_FROM << 8)
        n += 1
    bb = us
    while bb:
        frm = lowest_square(bb)
        bb &= bb - np.uint64(1)
        jumps = DOUBLES[frm] & empty
        while jumps:
            to = lowest_square(jumps)
            jumps &= jumps - np.uint64(1)
            out[n] = np.int64(to) | (np.int64(frm) << 8)
            n += 1
    return n


@njit(cache=True)
def move_codes(us, empty):
    """The packed non-pass moves of ``us`` (Python-level entry point for Board).

    Takes int64 or uint64 bitboards: the cast keeps the bit pattern.
    """
    out = np.empty(MAX_MOVES, dtype=np.int64)
    n = generate_moves(np.uint64(us), np.uint64(empty), out)
    return out[:n]


#: the slots :func:`pick_next` can tell apart (the low 10 bits of its packed keys).
_PICK_SLOTS = 1024
assert MAX_MOVES <= _PICK_SLOTS


@njit(inline="always", cache=True)
def pick_next(moves, keys, ply, i, count):
    """Swap the best-keyed of ``moves[ply, i:count]`` into slot ``i`` and return it.

    A selection sort, one step at a time: cut-offs usually come early, so a
    full sort of the move list would be wasted work.
    """
    # One max-reduction over key * 1024 + (1023 - slot), which LLVM vectorises: the
    # largest key, and among equal keys the first slot, as a compare-and-branch scan
    # would pick, at a third of its cost over the ~50 moves of a middle game. Keys
    # must lie within +-2**52 (the searches' reach 2**42) and count <= 1024.
    best = np.int64(-1) << 62
    rank = np.int64(_PICK_SLOTS - 1 - i)
    for key in keys[ply, i:count]:
        best = max(best, (key << 10) | rank)
        rank -= 1
    top = _PICK_SLOTS - 1 - (best & (_PICK_SLOTS - 1))
    move = moves[ply, top]
    moves[ply, top] = moves[ply, i]
    keys[ply, top] = keys[ply, i]
    moves[ply, i] = move
    return move


@njit(inline="always", cache=True)
def make_move(us, them, move):
    """Return ``(us, them)`` after ``move`` (not a pass) by the side ``us``."""
    to = move & 0xFF
    frm = move >> 8
    to_bit = np.uint64(1) << np.uint64(to)
    flips = SINGLES[to] & them
    us = us | to_bit | flips
    if frm != CLONE_FROM:
        us ^= np.uint64(1) << np.uint64(frm)
    return us, them ^ flips


@njit(cache=True)
def perft_kernel(us, them, playable, halfmove, depth, fifty_limit):
    """Leaf count at ``depth`` under the libataxx conventions (see ataxx-perft.txt).

    ``fifty_limit`` <= 0 switches the fifty-move rule off. The last ply is counted
    in bulk, as libataxx does. The walk is iterative with explicit per-ply stacks:
    numba cannot reload a cached recursive function.
    """
    if depth <= 0:
        return np.uint64(1)
    stack_us = np.empty(depth + 1, dtype=np.uint64)
    stack_them = np.empty(depth + 1, dtype=np.uint64)
    stack_clock = np.empty(depth + 1, dtype=np.int64)
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int64)
    n_moves = np.zeros(depth + 1, dtype=np.int64)
    next_move = np.zeros(depth + 1, dtype=np.int64)
    stack_us[0] = us
    stack_them[0] = them
    stack_clock[0] = halfmove
    total = np.uint64(0)
    ply = 0
    entering = True
    while ply >= 0:
        if entering:
            entering = False
            us = stack_us[ply]
            them = stack_them[ply]
            empty = playable & ~(us | them)
            over = (
                us == 0
                or them == 0
                or (fifty_limit > 0 and stack_clock[ply] >= fifty_limit)
                or (expand(expand(us | them)) & empty) == 0
            )
            if over:
                ply -= 1
                continue
            if ply == depth - 1:
                n = count_moves(us, empty)
                total += np.uint64(n) if n > 0 else np.uint64(1)
                ply -= 1
                continue
            n = generate_moves(us, empty, moves[ply])
            if n == 0:
                moves[ply, 0] = PASS_MOVE
                n = 1
            n_moves[ply] = n
            next_move[ply] = 0
        if next_move[ply] == n_moves[ply]:
            ply -= 1
            continue
        move = moves[ply, next_move[ply]]
        next_move[ply] += 1
        us = stack_us[ply]
        them = stack_them[ply]
        clock = stack_clock[ply]
        if move == PASS_MOVE:
            clock += 1
        else:
            if move >> 8 == CLONE_FROM:
                clock = 0
            else:
                clock += 1
            us, them = make_move(us, them, move)
        stack_us[ply + 1] = them
        stack_them[ply + 1] = us
        stack_clock[ply + 1] = clock
        ply += 1
        entering = True
    return total
