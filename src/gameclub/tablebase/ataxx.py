"""Ataxx tables: the layers, the per-layer index and the move kernels of small boards.

A position is seen from the side to move (``us``, ``them``); the rules the tables
support are colour-blind (ties are draws), so one table serves both colours. The
board is numbered compactly here, square ``k = rank * width + file`` (not the
stride-8 layout of :mod:`gameclub.ataxx.squares`), so that a position is an
``n``-bit mask per side with ``n = width * height``.

Layers are the number of empty squares ``e``: a clone fills one (it leaves the
layer, to ``e - 1``), a jump and a pass keep it. The index inside layer ``e`` folds
the board's symmetries (8 on a square board, 4 on the others: the two mirrors and
the half turn), which the rules do not see. The set of empty squares is taken to
its *class*: the least mask among its images, and the class number is that mask's
place among the classes of the layer in increasing order. The position's index
is the class number times ``2 ** (n - e)``, plus the colours of the occupied
squares in square order (bit ``j`` set: the ``j``-th occupied square is ours) of
the image that takes the empty squares to the class's mask; where several do (an
empty set that is its own image), the least colours. So each orbit of positions
has one canonical member, and :func:`encode` gives the same index to all of them.
A layer holds ``classes(e) * 2 ** (n - e)`` slots; the slots of an empty set that
is its own image whose colours are not the least of their orbit are reached by no
position ("twins"): the solvers leave them out and they get their canonical
member's value and distance afterwards, so that every slot of the files is the
value of the board it decodes to. 4x5 holds 884,489,069 slots for 3,486,784,401
boards (a factor 3.94), 4x4 5,864,611 for 43,046,721 (7.34).

Folding changes how the in-layer moves are counted (see :func:`layer_exits`):
a position's counter is the number of entries the parents' enumeration files under
it, not its number of moves.

The rules: the ``ataxx`` preset without its fifty-move limit (a game that never
ends is a draw), and the same with the ``site-2005`` stuck rule (a side with no
move loses at once; its margin is the piece count at that moment). Blocks are
not supported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from gameclub.ataxx import bitboard
from gameclub.ataxx.bitboard import popcount
from gameclub.ataxx.board import Board
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import ATAXX, RuleSet, StuckPolicy, TiePolicy
from gameclub.tablebase import retro
from gameclub.tablebase.storage import MANIFEST, TableDir, TableError
from gameclub.tablebase.values import NO_EXIT, RESULT_STEP, wdl_codes

#: the rule variants with a table, by the name the command line uses.
STUCK_RULES = {"ataxx": 0, "site-2005": 1}
#: the index the tables are built with (the manifest keeps it; another one is refused).
INDEX = "empty-squares class under the board's symmetries, then least colours/2"
MAX_SQUARES = 25
#: the longest distance the distance byte holds (a longer one stops the build).
MAX_DISTANCE = 255
_MAX_MOVES = 1024
_CHUNK_BITS = 7
_CHUNKS = 4


@dataclass(frozen=True)
class Geometry:
    """A ``width`` x ``height`` board without blocks and its numba tables."""

    width: int
    height: int

    @property
    def squares(self) -> int:
        return self.width * self.height

    def layer_size(self, empties: int) -> int:
        """Slots of layer ``empties``: its classes of empty sets times the colourings."""
        offsets = self.fold()[2]
        return int(offsets[empties + 1] - offsets[empties]) << (self.squares - empties)

    def boards(self, empties: int) -> int:
        """Boards of layer ``empties`` before folding: ``C(n, e) * 2 ** (n - e)``."""
        n = self.squares
        return comb(n, empties) << (n - empties)

    def symmetries(self) -> list[list[int]]:
        """The board's symmetries as square permutations (``image[k]``), the identity
        first: the mirrors and the half turn, and on a square board the four more that
        exchange files and ranks."""
        w, h = self.width, self.height
        maps = [lambda f, r: (f, r), lambda f, r: (w - 1 - f, r),
                lambda f, r: (f, h - 1 - r), lambda f, r: (w - 1 - f, h - 1 - r)]
        if w == h:
            maps += [lambda f, r: (r, f), lambda f, r: (h - 1 - r, f),
                     lambda f, r: (r, w - 1 - f), lambda f, r: (h - 1 - r, w - 1 - f)]
        images = []
        for turn in maps:
            image = []
            for k in range(self.squares):
                g, s = turn(k % w, k // w)
                image.append(s * w + g)
            images.append(image)
        return images

    def fold(self) -> tuple[np.ndarray, ...]:
        """The index's tables (see :func:`fold_tables`), made once per board size."""
        return _fold_of(self.width, self.height)

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours at distance 1 and at distance 2 (compact masks)."""
        w, h, n = self.width, self.height, self.squares
        singles = np.zeros(n, dtype=np.uint64)
        doubles = np.zeros(n, dtype=np.uint64)
        for k in range(n):
            f, r = k % w, k // w
            for df in range(-2, 3):
                for dr in range(-2, 3):
                    g, s = f + df, r + dr
                    if (df, dr) == (0, 0) or not (0 <= g < w and 0 <= s < h):
                        continue
                    bit = np.uint64(1 << (s * w + g))
                    if max(abs(df), abs(dr)) == 1:
                        singles[k] |= bit
                    else:
                        doubles[k] |= bit
        return singles, doubles

    def most_parents(self) -> int:
        """A bound on the in-layer parents of one position (:func:`parents`): for each
        landing square, a source two away times each subset of the pieces around it
        that the jump may have taken; and an un-pass."""
        singles, doubles = self.tables()
        return 1 + sum(bin(int(doubles[k])).count("1") << bin(int(singles[k])).count("1")
                       for k in range(self.squares))


@lru_cache(maxsize=8)
def _fold_of(width: int, height: int) -> tuple[np.ndarray, ...]:
    images = Geometry(width, height).symmetries()
    n = width * height
    # Each symmetry turns a mask 7 bits at a time: 4 lookups cover 25 squares.
    perms = np.zeros((len(images), _CHUNKS, 1 << _CHUNK_BITS), dtype=np.uint64)
    for g, image in enumerate(images):
        for c in range(_CHUNKS):
            for v in range(1 << _CHUNK_BITS):
                mask = 0
                for b in range(_CHUNK_BITS):
                    k = c * _CHUNK_BITS + b
                    if v >> b & 1 and k < n:
                        mask |= 1 << image[k]
                perms[g, c, v] = mask
    return fold_tables(np.int64(n), np.int64(len(images)), perms)


# -- the index ---------------------------------------------------------------------


@njit(inline="always", cache=True)
def _lowest(bb):
    """Index of the lowest set bit of a non-zero mask."""
    return np.int64(popcount((bb & (np.uint64(0) - bb)) - np.uint64(1)))


@njit(inline="always", cache=True)
def _turned(mask, g, perms):
    """``mask`` under symmetry ``g``."""
    m = np.int64(mask)
    return (perms[g, 0, m & 127] | perms[g, 1, (m >> 7) & 127]
            | perms[g, 2, (m >> 14) & 127] | perms[g, 3, (m >> 21) & 127])


@njit(inline="always", cache=True)
def _colours(mine, occupied):
    """Bit ``j`` set: the ``j``-th square of ``occupied`` is in ``mine``."""
    colours = np.int64(0)
    bit = 0
    bb = occupied
    while bb:
        k = _lowest(bb)
        bb &= bb - np.uint64(1)
        if (mine >> np.uint64(k)) & np.uint64(1):
            colours |= np.int64(1) << bit
        bit += 1
    return colours


@njit(inline="always", cache=True)
def _least_image(mask, count, perms):
    least = mask
    for g in range(count):
        t = _turned(mask, g, perms)
        if t < least:
            least = t
    return least


@njit(cache=True)
def fold_tables(n, count, perms):
    """The index's tables of an ``n``-square board with ``count`` symmetries (``perms``
    turns a mask, 7 bits a lookup): ``(class_of, classes, offsets, perms)``.

    ``class_of[E]``, for every mask ``E`` of empty squares, is the number of its class
    in its layer times 256, plus a bit ``g`` for each symmetry ``g`` that takes ``E``
    to its class's mask (the least of its images): one lookup, one memory access,
    gives both (the table has ``2^n`` entries, 4 MB on 4x5, more than the caches
    nearest the core hold). ``classes[offsets[e] + c]`` is the mask of class ``c`` of
    layer ``e``. Classes are numbered in increasing order of their mask, so that a
    class's mask, the least of its images, is met before the other members.
    """
    size = np.int64(1) << n
    class_of = np.empty(size, dtype=np.uint32)
    counts = np.zeros(n + 2, dtype=np.int64)
    for m in range(size):
        if _least_image(np.uint64(m), count, perms) == np.uint64(m):
            counts[popcount(np.uint64(m)) + 1] += 1
    offsets = np.zeros(n + 2, dtype=np.int64)
    for e in range(1, n + 2):
        offsets[e] = offsets[e - 1] + counts[e]
    classes = np.empty(offsets[n + 1], dtype=np.uint64)
    filled = offsets.copy()
    for m in range(size):
        least = _least_image(np.uint64(m), count, perms)
        e = popcount(np.uint64(m))
        if least == np.uint64(m):
            number = filled[e] - offsets[e]
            classes[filled[e]] = np.uint64(m)
            filled[e] += 1
        else:
            number = np.int64(class_of[np.int64(least)] >> 8)
        turns = 0
        for g in range(count):
            if _turned(np.uint64(m), g, perms) == least:
                turns |= 1 << g
        class_of[m] = np.uint32((number << 8) | turns)
    return class_of, classes, offsets, perms


@njit(cache=True)
def encode(us, them, n, fold):
    """``(layer, index)`` of the position ``(us, them)`` (compact masks): the index of its
    canonical member, the same for every image of it under the board's symmetries."""
    class_of, perms = fold[0], fold[3]
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    empty = full & ~(us | them)
    e = np.int64(popcount(empty))
    entry = np.int64(class_of[np.int64(empty)])
    which = entry & 255
    first = _lowest(np.uint64(which))
    # the class's mask is the image of ``empty`` by any of the symmetries listed
    occupied = full & ~_turned(empty, first, perms)
    colours = _colours(_turned(us, first, perms), occupied)
    which &= which - 1
    while which:
        g = _lowest(np.uint64(which))
        which &= which - 1
        c = _colours(_turned(us, g, perms), occupied)
        if c < colours:
            colours = c
    return e, ((entry >> 8) << (n - e)) | colours


@njit(cache=True)
def decode(e, index, n, fold):
    """``(us, them)`` of slot ``index`` in layer ``e`` (a twin decodes to its own board)."""
    classes, offsets = fold[1], fold[2]
    occupied_count = n - e
    cls = index >> occupied_count
    colours = index & ((np.int64(1) << occupied_count) - 1)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    occupied = full & ~classes[offsets[e] + cls]
    us = np.uint64(0)
    bit = 0
    bb = occupied
    while bb:
        k2 = _lowest(bb)
        bb &= bb - np.uint64(1)
        if (colours >> bit) & 1:
            us |= np.uint64(1) << np.uint64(k2)
        bit += 1
    return us, occupied & ~us


@njit(inline="always", cache=True)
def _symmetric_class(e, c, fold):
    """Whether class ``c`` of layer ``e`` has a mask that is its own image under a
    symmetry other than the identity: only its colourings can be twins."""
    class_of, classes, offsets = fold[0], fold[1], fold[2]
    # For a class's own mask, the symmetries that take it there are those keeping it.
    return (class_of[np.int64(classes[offsets[e] + c])] & 255) != 1


@njit(inline="always", cache=True)
def _stabiliser(us, empty, fold):
    """How many of the board's symmetries leave the position as it is (its empty
    squares ``empty``, ours ``us``): those that keep ``empty`` and ``us``."""
    class_of, perms = fold[0], fold[3]
    which = np.int64(class_of[np.int64(empty)]) & 255
    # The symmetries taking ``empty`` to its class's mask are as many as those keeping
    # it: one is the usual case, settled by the lookup the index needs anyway.
    if which & (which - 1) == 0:
        return 1
    count = 0
    for g in range(perms.shape[0]):
        if _turned(empty, g, perms) == empty and _turned(us, g, perms) == us:
            count += 1
    return count


# -- the rules on compact masks ----------------------------------------------------


@njit(inline="always", cache=True)
def _reach(side, singles, doubles):
    """Every square ``side`` could move to if it were empty."""
    reach = np.uint64(0)
    bb = side
    while bb:
        k = _lowest(bb)
        bb &= bb - np.uint64(1)
        reach |= singles[k] | doubles[k]
    return reach


@njit(inline="always", cache=True)
def _by_count(us, them):
    margin = np.int64(popcount(us)) - np.int64(popcount(them))
    if margin > 0:
        return RESULT_STEP + margin
    if margin < 0:
        return -RESULT_STEP + margin
    return 0


@njit(cache=True)
def status(us, them, n, singles, doubles, stuck_lose):
    """The value of a finished game, or ``NO_EXIT`` with ``1`` (must pass) / ``0`` (moves).

    Mirrors :meth:`gameclub.ataxx.board.Board.outcome` for the supported rules:
    no pieces, full board, nobody can move: pieces decide; stuck: pass or lose.
    """
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    empty = full & ~(us | them)
    if us == 0 or them == 0 or empty == 0:
        return _by_count(us, them), 0
    if _reach(us, singles, doubles) & empty:
        return NO_EXIT, 0
    if (_reach(them, singles, doubles) & empty) == 0:
        return _by_count(us, them), 0
    if stuck_lose:
        return -RESULT_STEP + np.int64(popcount(us)) - np.int64(popcount(them)), 0
    return NO_EXIT, 1


@njit(inline="always", cache=True)
def _jumped(us, them, frm, to, singles):
    """``(us, them)`` after ``us`` jumps ``frm`` -> ``to`` (or clones when ``frm`` < 0)."""
    flips = singles[to] & them
    mover = us | flips | (np.uint64(1) << np.uint64(to))
    if frm >= 0:
        mover ^= np.uint64(1) << np.uint64(frm)
    return mover, them ^ flips


@njit(cache=True)
def layer_exits(e, n, singles, doubles, fold, stuck_lose, lower):
    """``exits``, ``moves`` and ``over`` of layer ``e`` (see :mod:`gameclub.tablebase.retro`).

    ``lower`` holds the values of layer ``e - 1``, where every clone lands. A twin (a
    slot no position reaches, see the module docstring) gets no exit and no move:
    nothing settles it, and :func:`fill_twins` gives it its value afterwards.

    ``moves[i]`` is what the propagation counts down: one for each entry that
    :func:`parents` lists for ``i``, over all the layer's positions (the tests count
    them so, one entry at a time). Every entry is a board ``q``
    with a move to a stored position, filed under ``q``'s canonical index; the
    entries filed under ``p`` are the pairs (``q`` an image of ``p``, a move of ``q``
    whose child is canonical). Summed over the symmetries ``g``, the moves of
    ``g(p)`` are the images of ``p``'s: for a move of ``p`` to ``c``, ``g(c)`` is
    canonical for ``|Stab(c)|`` of the ``g``, and each image of ``p`` is ``g(p)`` for
    ``|Stab(p)|`` of them. So ``moves[i] = sum over p's moves of |Stab(c)| / |Stab(p)|``,
    counted here with a table lookup a move instead of a parents enumeration.

    Why a counter then reaches 0 exactly when every move of ``p`` is answered: each
    child ``c`` of ``p``, ``g(c)`` canonical, puts at least the entry ``g(p)`` on
    ``p``; each entry on ``p`` from a stored ``i`` is a move of ``p`` to an image of
    ``i``; and all the entries of one ``i`` are taken off together, when ``i``
    settles. Wins, losses, margins and distances are those of the unfolded table.
    The entries of one position are moves of its at most 8 images, at most 255
    jumps each: the counters are ``uint16``.
    """
    offsets = fold[2]
    size = (offsets[e + 1] - offsets[e]) << (n - e)
    exits = np.empty(size, dtype=np.int8)
    moves = np.zeros(size, dtype=np.uint16)
    over_at = np.zeros(size, dtype=np.bool_)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    for i in range(size):
        us, them = decode(e, np.int64(i), n, fold)
        over, passes = status(us, them, n, singles, doubles, stuck_lose)
        over_at[i] = over != NO_EXIT
        # Only the colourings of a class whose mask is its own image can be twins.
        if _symmetric_class(e, i >> (n - e), fold) and encode(us, them, n, fold)[1] != i:
            exits[i] = NO_EXIT
            continue
        if over != NO_EXIT or passes:
            # A pass's child, the colours swapped, has the stabiliser of its parent.
            exits[i] = over
            moves[i] = passes
            continue
        empty = full & ~(us | them)
        best = np.int64(NO_EXIT)
        # Clones: one child per empty square next to one of ours.
        bb = empty & _reach_singles(us, singles)
        while bb:
            to = _lowest(bb)
            bb &= bb - np.uint64(1)
            mover, other = _jumped(us, them, -1, to, singles)
            _, child = encode(other, mover, n, fold)
            v = -np.int64(lower[child])
            if v > best:
                best = v
        exits[i] = best
        entries = 0
        bb = us
        while bb:
            frm = _lowest(bb)
            bb &= bb - np.uint64(1)
            targets = doubles[frm] & empty
            while targets:
                to = _lowest(targets)
                targets &= targets - np.uint64(1)
                mover, other = _jumped(us, them, frm, to, singles)
                entries += _stabiliser(other, full & ~(mover | other), fold)
        moves[i] = entries // _stabiliser(us, empty, fold)
    return exits, moves, over_at


@njit(inline="always", cache=True)
def _reach_singles(side, singles):
    reach = np.uint64(0)
    bb = side
    while bb:
        k = _lowest(bb)
        bb &= bb - np.uint64(1)
        reach |= singles[k]
    return reach


@njit(cache=True)
def children(ctx, i, out):
    """The in-layer children of position ``i``: its jumps, or its pass."""
    e, n, singles, doubles, fold, stuck_lose = ctx
    us, them = decode(e, i, n, fold)
    over, passes = status(us, them, n, singles, doubles, stuck_lose)
    if over != NO_EXIT:
        return 0
    if passes:
        _, out[0] = encode(them, us, n, fold)
        return 1
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    empty = full & ~(us | them)
    count = 0
    bb = us
    while bb:
        frm = _lowest(bb)
        bb &= bb - np.uint64(1)
        targets = doubles[frm] & empty
        while targets:
            to = _lowest(targets)
            targets &= targets - np.uint64(1)
            mover, other = _jumped(us, them, frm, to, singles)
            _, out[count] = encode(other, mover, n, fold)
            count += 1
    return count


@njit(cache=True)
def parents(ctx, i, out):
    """The in-layer parents of position ``i``, one per move: un-jumps and an un-pass.

    The side that just moved is ``them``. It jumped ``frm`` -> ``to`` and took every
    piece of ours next to ``to``, so ``to`` has none of ours around it now, and any
    subset of its pieces around ``to`` may have been ours before.
    """
    e, n, singles, doubles, fold, stuck_lose = ctx
    us, them = decode(e, i, n, fold)
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    empty = full & ~(us | them)
    count = 0
    bb = them
    while bb:
        to = _lowest(bb)
        bb &= bb - np.uint64(1)
        if singles[to] & us:
            continue
        to_bit = np.uint64(1) << np.uint64(to)
        taken = singles[to] & them
        sources = doubles[to] & empty
        while sources:
            frm = _lowest(sources)
            sources &= sources - np.uint64(1)
            frm_bit = np.uint64(1) << np.uint64(frm)
            # every subset of ``taken``, the empty one included
            sub = np.uint64(0)
            while True:
                ours_before = us | sub
                if ours_before != 0:
                    theirs_before = (them & ~to_bit & ~sub) | frm_bit
                    _, out[count] = encode(theirs_before, ours_before, n, fold)
                    count += 1
                if sub == taken:
                    break
                sub = (sub - taken) & taken
    # A pass by ``them``: it could not move, we can.
    if (not stuck_lose and us != 0 and them != 0 and empty != 0
            and (_reach(them, singles, doubles) & empty) == 0
            and _reach(us, singles, doubles) & empty):
        _, out[count] = encode(them, us, n, fold)
        count += 1
    return count


@njit(cache=True)
def fill_twins(values, distance, ctx):
    """Give each twin (a slot no position reaches) its canonical member's value and
    distance (``distance`` may be empty), so that every slot holds the value of the
    board it decodes to."""
    e, n, fold = ctx[0], ctx[1], ctx[4]
    offsets = fold[2]
    colourings = np.int64(1) << (n - e)
    for c in range(offsets[e + 1] - offsets[e]):
        if not _symmetric_class(e, c, fold):
            continue
        for i in range(c * colourings, (c + 1) * colourings):
            us, them = decode(e, np.int64(i), n, fold)
            _, j = encode(us, them, n, fold)
            if j != i:
                values[i] = values[j]
                if distance.size:
                    distance[i] = distance[j]


# -- runs under a move limit -------------------------------------------------------


@njit(cache=True)
def layer_runs(values, distance, over, ctx):
    """The longest run of non-clone plies from each position of a layer while the
    side that wins it plays the table perfectly and the other anything: ``(runs,
    longest)``, ``runs`` an ``int32`` per position (0 for draws and finished games).

    A winner at distance 1 clones or ends the game: 1. A winner at distance ``d``
    plays a move to a loser at ``d - 1`` of the same value (any of them, so the
    largest run among them counts): 1 more than that loser's run. A loser may play
    anything: 1 more than its longest child's run (a clone counts 1). Positions are
    visited by value from the largest magnitude down, then by distance, so every
    child's run is known first: a winner's children of its move are at ``d - 1``, a
    loser's children are winners of at least its magnitude, at most its distance
    less one when of the same one. Under a move limit a table win or loss is then
    the game's value when the halfmove clock plus the run fits (and every later
    run, which starts from a clock of 0, fits as well).
    """
    n = values.size
    buckets = 128 * 256
    counts = np.zeros(buckets + 1, dtype=np.int64)
    for i in range(n):
        v = np.int64(values[i])
        if v != 0 and not over[i]:
            counts[(127 - abs(v)) * 256 + np.int64(distance[i]) + 1] += 1
    for k in range(1, buckets + 1):
        counts[k] += counts[k - 1]
    order = np.empty(counts[buckets], dtype=np.int32)
    for i in range(n):
        v = np.int64(values[i])
        if v != 0 and not over[i]:
            key = (127 - abs(v)) * 256 + np.int64(distance[i])
            order[counts[key]] = i
            counts[key] += 1
    runs = np.zeros(n, dtype=np.int32)
    out = np.empty(retro.MAX_EDGES, dtype=np.int64)
    longest = 0
    for k in range(order.size):
        i = np.int64(order[k])
        v = np.int64(values[i])
        d = np.int64(distance[i])
        run = 1
        if v > 0:
            if d > 1:
                count = children(ctx, i, out)
                for j in range(count):
                    c = out[j]
                    if np.int64(values[c]) == -v and np.int64(distance[c]) == d - 1:
                        run = max(run, 1 + runs[c])
        else:
            count = children(ctx, i, out)
            for j in range(count):
                run = max(run, 1 + runs[out[j]])
        runs[i] = run
        longest = max(longest, run)
    return runs, longest


# -- the table of one board ---------------------------------------------------------


class AtaxxTables:
    """The layered game of Ataxx on an empty ``width`` x ``height`` board (a
    :class:`gameclub.tablebase.build.LayeredGame`)."""

    game = "ataxx"

    def __init__(self, width: int, height: int, rules: str = "ataxx") -> None:
        if rules not in STUCK_RULES:
            raise ValueError(f"no Ataxx tables for rules {rules!r}; "
                             f"choose one of {', '.join(STUCK_RULES)}")
        if not (2 <= width <= 8 and 2 <= height <= 8) or width * height > MAX_SQUARES:
            raise ValueError(f"no Ataxx tables for a {width}x{height} board: sides of 2 to 8 "
                             f"squares and at most {MAX_SQUARES} squares")
        self.geometry = Geometry(width, height)
        if self.geometry.most_parents() > retro.MAX_EDGES:
            raise ValueError(f"a {width}x{height} board has positions with more parents "
                             f"than the solver's {retro.MAX_EDGES} places")
        self.rules = rules
        self.stuck_lose = STUCK_RULES[rules]
        self.name = table_name(width, height, rules)
        self._tables = self.geometry.tables()

    @property
    def params(self) -> dict[str, object]:
        return {
            "game": "ataxx",
            "width": self.geometry.width,
            "height": self.geometry.height,
            "rules": self.rules,
            "stuck": "lose" if self.stuck_lose else "pass",
            "fifty_move_limit": None,
            "tie": "draw",
            "index": INDEX,
        }

    def layers(self) -> range:
        return range(self.geometry.squares + 1)

    def wdl_codes(self, values: np.ndarray) -> np.ndarray:
        return wdl_codes(values)

    def layer_size(self, layer: int) -> int:
        return self.geometry.layer_size(layer)

    def context(self, layer: int) -> tuple:
        singles, doubles = self._tables
        return (np.int64(layer), np.int64(self.geometry.squares), singles, doubles,
                self.geometry.fold(), np.int64(self.stuck_lose))

    def solve_layer(self, layer: int, lower: Callable[[int], np.ndarray], method: str
                    ) -> np.ndarray | tuple[np.ndarray, np.ndarray, dict[str, int]]:
        """The values of ``layer`` and, by ``propagate``, its distances too, with the
        layer's longest distance and longest run (:func:`layer_runs`)."""
        singles, doubles = self._tables
        ctx = self.context(layer)
        below = lower(layer - 1) if layer > 0 else np.zeros(0, dtype=np.int8)
        exits, moves, over = layer_exits(np.int64(layer), np.int64(self.geometry.squares),
                                         singles, doubles, self.geometry.fold(),
                                         np.int64(self.stuck_lose), below)
        if method == "iterate":
            values, _ = iterate_layer(exits, moves, ctx)
            fill_twins(values, np.zeros(0, dtype=np.uint8), ctx)
            return values
        # ``moves`` is counted down in place by the propagation: not used after it.
        values, distance, longest = propagate_levels_layer(exits, moves, over, ctx)
        if longest > MAX_DISTANCE:
            raise RuntimeError(f"layer {layer}: a distance of {longest} plies does not fit "
                               "the distance byte")
        del exits, moves
        fill_twins(values, distance, ctx)
        _, run = layer_runs(values, distance, over, ctx)
        # The manifest keeps the layer's longest run: what a move limit must leave room for.
        return values, distance, {"longest_distance": int(longest), "longest_run": int(run)}


def table_ruleset(width: int, height: int, rules: str = "ataxx") -> RuleSet:
    """The rule set a table stands for: ``ataxx`` without the move limit, and with the
    ``site-2005`` stuck rule when ``rules`` says so (ties stay draws)."""
    if rules not in STUCK_RULES:
        raise ValueError(f"no Ataxx tables for rules {rules!r}; "
                         f"choose one of {', '.join(STUCK_RULES)}")
    stuck = StuckPolicy.LOSE if STUCK_RULES[rules] else StuckPolicy.PASS
    return ATAXX.replace(width=width, height=height, fifty_move_limit=None, stuck=stuck)


def table_name(width: int, height: int, rules: str) -> str:
    return f"ataxx-{width}x{height}-{rules}"


def parse_size(text: str) -> tuple[int, int]:
    """``"4x5"`` -> ``(4, 5)`` (width x height)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"invalid board size {text!r}: expected WIDTHxHEIGHT, e.g. 4x4")
    return int(parts[0]), int(parts[1])


# -- probing -------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveValue:
    move: Move
    #: the stored value for the side that plays the move (see gameclub.tablebase.values).
    value: int
    #: plies from the move to the next clone or the end with best play, the move
    #: included (1 for a clone or a move that ends the game); ``None`` when the table
    #: keeps no distances.
    distance: int | None = None


@dataclass(frozen=True)
class Probe:
    """A position's value for the side to move, and the value of each of its moves."""

    value: int
    moves: list[MoveValue]
    #: plies to the next clone or the end with best play (0: over, or a draw).
    distance: int | None = None

    @property
    def best(self) -> Move | None:
        """The perfect move: the highest value, then, when it is a win, the shortest
        distance, when a loss the longest (the first in the board's order among equals).

        From a won position this realises at least the stored value whatever the
        opponent does: each of its moves keeps the value, and inside a layer, while
        the opponent keeps it too, the distance falls by one a ply, so a clone or the
        end comes; an opponent's mistake only raises the value.
        """
        if not self.moves:
            return None
        top = max(m.value for m in self.moves)
        keep = [m for m in self.moves if m.value == top]
        if top != 0 and all(m.distance is not None for m in keep):
            pick = min if top > 0 else max
            return pick(keep, key=lambda m: m.distance or 0).move
        return keep[0].move


def _compact(bitboard: int, width: int, height: int) -> int:
    mask = 0
    for rank in range(height):
        for file in range(width):
            if bitboard >> (rank * 8 + file) & 1:
                mask |= 1 << (rank * width + file)
    return mask


def table_rules_of(rules: RuleSet) -> tuple[str, int | None] | None:
    """Which table serves a game under ``rules``: ``(table rules, move limit)``, or ``None``.

    A table serves a rule set whose ends are the table's, apart from a move limit:
    no blocks, no repetition rule, ties drawn, and a side with no move passes
    (``ataxx`` tables) or loses (``site-2005`` tables). The limit is returned apart:
    under it a table value is the game's only where the clock leaves room (see
    :meth:`AtaxxProbe.exact_under`).
    """
    if rules.blocks or rules.repetition or rules.tie is not TiePolicy.DRAW:
        return None
    if rules.stuck is StuckPolicy.PASS:
        return "ataxx", rules.fifty_move_limit
    if rules.stuck is StuckPolicy.LOSE:
        return "site-2005", rules.fifty_move_limit
    return None


class AtaxxProbe:
    """Probing one Ataxx table: the values of positions given as boards."""

    def __init__(self, table: TableDir) -> None:
        params = table.manifest["params"]
        self.table = table
        self.width, self.height = int(params["width"]), int(params["height"])
        self.rules = str(params["rules"])
        self.geometry = Geometry(self.width, self.height)
        self.n = self.geometry.squares
        self.fold = self.geometry.fold()
        self.ruleset = table_ruleset(self.width, self.height, self.rules)
        self.has_distances = bool(table.layers) and all(
            table.has_distance(layer) for layer in table.layers)
        runs = [entry.get("longest_run") for entry in table.layers.values()]
        #: the longest run of non-clone plies of the table (None: not recorded).
        self.longest_run: int | None = (max(int(r) for r in runs if r is not None)
                                        if runs and None not in runs else None)

    @classmethod
    def open(cls, root: Path, width: int, height: int, rules: str = "ataxx") -> AtaxxProbe:
        """The table of this board and rules: ``root`` is the table's directory or holds it."""
        game = AtaxxTables(width, height, rules)
        path = root if (root / MANIFEST).exists() else root / game.name
        table = TableDir.open(path, game.params)
        if not table.complete:
            raise TableError(f"{path} holds an unfinished build; finish it with --resume")
        return cls(table)

    def _check(self, board: Board) -> None:
        if (board.width, board.height) != (self.width, self.height):
            raise ValueError(f"the position is on a {board.width}x{board.height} board; "
                             f"the table is for {self.width}x{self.height}")
        if board.blocks:
            raise ValueError("the tables hold boards without blocks; the position has blocks")

    def index(self, us: int, them: int) -> tuple[int, int]:
        """``(layer, index)`` of compact masks ``us`` and ``them``."""
        e, i = encode(np.uint64(us), np.uint64(them), np.int64(self.n), self.fold)
        return int(e), int(i)

    def value_of(self, us: int, them: int) -> int:
        e, i = self.index(us, them)
        return int(self.table.values(e)[i])

    def distance_of(self, us: int, them: int) -> int:
        """Plies to the next clone or the end with best play (0: over, or a draw);
        ``TableError`` when the table keeps no distances."""
        e, i = self.index(us, them)
        return int(self.table.distance(e)[i])

    def wdl_of(self, us: int, them: int) -> int:
        """The 2-bit code (gameclub.tablebase.values.WDL_*) from the compressed table."""
        e, i = self.index(us, them)
        return self.table.wdl(e).code(i)

    def _masks(self, board: Board) -> tuple[int, int]:
        self._check(board)
        us = _compact(board.pieces(board.turn), self.width, self.height)
        them = _compact(board.pieces(board.turn.other), self.width, self.height)
        return us, them

    def board_value(self, board: Board) -> int:
        return self.value_of(*self._masks(board))

    def board_distance(self, board: Board) -> int:
        return self.distance_of(*self._masks(board))

    def _own_rules(self, board: Board) -> Board:
        """``board`` under the table's rules (the same pieces, side and clock)."""
        if board.rules == self.ruleset:
            return board
        return Board(board.fen(), self.ruleset)

    def probe(self, board: Board) -> Probe:
        """The value of ``board`` and of each of its legal moves (none when it is over),
        all under the table's rules, with distances when the table keeps them."""
        board = self._own_rules(board)
        value = self.board_value(board)
        distance = self.board_distance(board) if self.has_distances else None
        moves = []
        if board.outcome() is None:
            for move in board.legal_moves:
                board.push(move)
                child = -self.board_value(board)
                further: int | None = None
                if self.has_distances:
                    # A clone leaves the layer and an end stops the count: one ply.
                    leaves = move.to_square is not None and move.from_square is None
                    further = 1 if leaves or board.outcome() is not None \
                        else 1 + self.board_distance(board)
                board.pop()
                moves.append(MoveValue(move, child, further))
        return Probe(value, moves, distance)

    def perfect_move(self, board: Board) -> Move | None:
        """The move that plays the table perfectly (see :attr:`Probe.best`)."""
        return self.probe(board).best

    def exact_under(self, board: Board, limit: int | None) -> bool:
        """Whether the table's value of ``board`` is the game's value under a move
        ``limit`` (``None``: no limit, the table's own rules) as well.

        A table draw always is: each side keeps at least 0 by the table's moves, and
        the limit's end is a draw too. A win or loss is when the halfmove clock plus
        the longest run of the position's layer (:func:`layer_runs`) fits the limit,
        and so does the longest run of the whole table (every later run starts from
        a clock of 0): the winner's perfect play then reaches each clone, and the
        end, before the limit. Tables built without runs answer no.
        """
        if limit is None:
            return True
        if self.board_value(board) == 0:
            return True
        if self.longest_run is None:
            return False
        us, them = self._masks(board)
        layer, _ = self.index(us, them)
        run = int(self.table.layers[layer]["longest_run"])
        return self.longest_run <= limit and board.halfmove_clock + run <= limit


#: the in-layer solvers of :mod:`gameclub.tablebase.retro` compiled with these kernels.
propagate_layer = retro.specialise(retro.propagate, "ataxx", (bitboard,), parents=parents)
iterate_layer = retro.specialise(retro.iterate, "ataxx", (bitboard,), children=children)
propagate_levels_layer = retro.specialise(retro.propagate_levels, "ataxx", (bitboard,),
                                          parents=parents)
