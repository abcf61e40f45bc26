"""Retrograde analysis inside one layer, for any game: the two ways of resolving its cycles.

A game module describes a layer by two arrays and two numba functions, and gets
its solvers compiled with its functions by :func:`specialise`:

``exits[i]``
    the best value (:mod:`gameclub.tablebase.values`) the side to move at position
    ``i`` gets from the moves that leave the layer, whose values are already known
    (lower layers) or from the game's end when ``i`` is over; ``NO_EXIT`` if none.
``moves[i]``
    how many entries ``parents`` lists for position ``i`` over all the layer's
    positions: the number of its moves that stay inside the layer when the index
    folds nothing. An index that folds symmetries must count exactly what its
    ``parents`` files under ``i`` (see :func:`gameclub.tablebase.ataxx.layer_exits`),
    as each entry is taken off once.
``children(ctx, i, out) -> k``
    writes the layer indices of those ``k`` in-layer children into ``out``.
``parents(ctx, i, out) -> k``
    writes the in-layer positions that have a move to ``i``, one entry per such
    move (a parent with two moves to ``i`` appears twice), so that counting parents
    and counting children agree.

``ctx`` is whatever tuple the game's functions need (tables, the layer number).
The solvers below are plain Python until :func:`specialise` compiles a copy of one
in which ``children`` or ``parents`` are the game's: numba inlines the game's
kernels and can cache the result on disk, which it cannot do when a kernel is
passed as an argument (that is recompiled in every process, 10 s and more).
Both solvers return the same values (tests check it); the value of a position
whose play can go on for ever is a draw, 0.

:func:`propagate` is retrograde analysis proper: thresholds from the highest value
down; at threshold ``t`` a position is worth ``t`` once one of its moves leads to a
position worth ``-t`` (or an exit gives ``t``), and ``-t`` once every in-layer
child is worth at least ``t`` (a counter per position, lowered by each child that
gets there) and its exits give no more than ``-t``. Each position is settled once
and lists its parents once, so the work is one pass over the layer's edges.

:func:`iterate` is the fixed-point alternative: two bounds per position, ``low``
(what the side to move gets if endless play counted as its loss) and ``high`` (as
its win), swept over the whole layer until nothing changes; the value is the
median of ``low``, 0 and ``high``. Every sweep walks every edge again, and the
number of sweeps is the length of the longest forced line inside the layer.

:func:`propagate_levels` is :func:`propagate` settling each threshold breadth first,
level by level, so that it also gives every position its distance: the plies to the
move that leaves the layer (or to the game's end) with best play, the winner
hurrying and the loser delaying. A player that keeps the value and, when winning,
takes the shortest distance (the longest when losing) plays the table perfectly: a
won position's value is realised however the opponent plays. It needs ``over[i]``,
whether position ``i`` is a finished game (distance 0).
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit

from gameclub.tablebase.values import NO_EXIT

#: room for one position's in-layer children or parents (a game checks that its
#: positions fit: nothing checks it inside the compiled loops). Ataxx's largest
#: boards need most: a finished 4x5 position, 13 pieces of the side that just moved
#: and none of the other's, has more than 4,096 un-jumps (one per subset of the
#: pieces taken), and the bound of :meth:`gameclub.tablebase.ataxx.Geometry.most_parents`
#: is 25,377 on 5x5.
MAX_EDGES = 1 << 15
_TOP = 127


@njit(cache=True)
def _order_by_magnitude(exits):
    """Positions with a non-zero exit value, grouped by |exit| (a counting sort)."""
    counts = np.zeros(_TOP + 2, dtype=np.int64)
    for i in range(exits.size):
        v = np.int64(exits[i])
        if v != NO_EXIT and v != 0:
            counts[abs(v)] += 1
    starts = np.zeros(_TOP + 2, dtype=np.int64)
    for t in range(1, _TOP + 2):
        starts[t] = starts[t - 1] + counts[t - 1]
    order = np.empty(starts[_TOP + 1], dtype=np.int64)
    fill = starts.copy()
    for i in range(exits.size):
        v = np.int64(exits[i])
        if v != NO_EXIT and v != 0:
            order[fill[abs(v)]] = i
            fill[abs(v)] += 1
    return order, starts


def specialise(algorithm: Callable[..., Any], game: str, depends: Sequence[ModuleType] = (),
               **kernels: Any) -> Any:
    """``algorithm`` compiled with the game's ``kernels`` in place of its global names.

    The copy is named ``<algorithm>_<game>_<digest>``, the digest covering the source
    of the kernels' modules and of ``depends`` (the modules those kernels call into):
    numba checks only this file before reusing its on-disk cache, so without the
    digest a changed game kernel would go on running its old compiled code.
    """
    digest = hashlib.sha256()
    modules = {sys.modules[k.py_func.__module__] for k in kernels.values()} | set(depends)
    for module in sorted(modules, key=lambda m: m.__name__):
        digest.update(Path(inspect.getsourcefile(module) or module.__name__).read_bytes())
    scope = dict(algorithm.__globals__)
    scope.update(kernels)
    name = f"{algorithm.__name__}_{game}_{digest.hexdigest()[:12]}"
    copy = types.FunctionType(algorithm.__code__, scope, name, algorithm.__defaults__,
                              algorithm.__closure__)
    copy.__qualname__ = copy.__name__
    copy.__module__ = algorithm.__module__
    copy.__doc__ = algorithm.__doc__
    return njit(cache=True)(copy)


def parents(ctx, i, out):
    """The game's parent enumeration; :func:`specialise` puts the game's in its place."""
    raise NotImplementedError


def children(ctx, i, out):
    """The game's child enumeration; :func:`specialise` puts the game's in its place."""
    raise NotImplementedError


def propagate(exits, moves, ctx):
    """Values of a layer by predecessor/counter propagation (see the module docstring)."""
    n = exits.size
    values = np.zeros(n, dtype=np.int8)
    settled = np.zeros(n, dtype=np.bool_)
    left = moves.astype(np.int32)
    order, starts = _order_by_magnitude(exits)
    queue = np.empty(n, dtype=np.int64)
    out = np.empty(MAX_EDGES, dtype=np.int64)
    for t in range(_TOP, 0, -1):
        head = 0
        tail = 0
        for k in range(starts[t], starts[t + 1]):
            i = order[k]
            if settled[i]:
                continue
            if exits[i] == t:
                values[i] = t
            elif left[i] == 0:
                values[i] = -t
            else:
                continue
            settled[i] = True
            queue[tail] = i
            tail += 1
        while head < tail:
            i = queue[head]
            head += 1
            won_by_parent = values[i] < 0
            count = parents(ctx, i, out)
            for k in range(count):
                p = out[k]
                if settled[p]:
                    continue
                if won_by_parent:
                    values[p] = t
                else:
                    left[p] -= 1
                    if left[p] != 0 or exits[p] > -t:
                        continue
                    values[p] = -t
                settled[p] = True
                queue[tail] = p
                tail += 1
    return values


def propagate_levels(exits, left, over, ctx):
    """:func:`propagate` that also measures distances: ``(values, distances, longest)``.

    Inside a threshold, positions are settled breadth first, one level at a time: a
    finished game (``over[i]``) is at level 0, a position whose exit decides it at
    level 1, and a position settled by a child at level ``L`` at level ``L + 1``. So
    a winner's distance is the shortest way to the move that leaves the layer (or
    the end) keeping its value, and a loser's the longest: its last child to reach
    the threshold is the farthest. Draws and finished games are at distance 0.
    Distances above 255 are stored as 255 (``longest`` says whether that happened).
    Neither is changed by the order of the positions inside a level: a winner is
    settled by the first child of the lowest level, a loser by its last child.

    Memory is what makes the largest boards fit (a layer of 4x5 Ataxx holds 635
    million positions), so the working arrays are few and narrow: ``left`` is the
    caller's move counters (any integer type, ``uint16`` for Ataxx), counted down
    in place, so the caller must not use them afterwards; a position is unsettled
    while its value is ``NO_EXIT``, which no value is, instead of a flag apart; the
    queue holds ``int32`` entries (layers of up to 2^31 positions), one level after
    the other, so no level is stored per entry; and each threshold finds its seeds
    in one scan of the exits instead of a sorted copy of them (only the magnitudes
    some exit has are scanned). That is 4 bytes a position besides the exits, the
    counters, ``over``, the values and the distances.
    """
    n = exits.size
    values = np.full(n, NO_EXIT, dtype=np.int8)
    distance = np.zeros(n, dtype=np.uint8)
    present = np.zeros(_TOP + 2, dtype=np.bool_)
    for i in range(n):
        v = np.int64(exits[i])
        if v != NO_EXIT and v != 0:
            present[abs(v)] = True
    queue = np.empty(n, dtype=np.int32)
    out = np.empty(MAX_EDGES, dtype=np.int64)
    longest = 0
    for t in range(_TOP, 0, -1):
        if not present[t]:
            continue
        # One scan: level 0 (finished games) from the front of the queue, level 1
        # (decided by an exit, or by having no move left) from the back; the back
        # is then turned round behind the front, so the queue is in level order.
        # Both are unsettled positions, distinct, so together they fit.
        front = 0
        back = n
        for i in range(n):
            v = np.int64(exits[i])
            if (v != t and v != -t) or values[i] != NO_EXIT:
                continue
            if over[i]:
                values[i] = v
                queue[front] = i
                front += 1
            elif v == t or left[i] == 0:
                values[i] = v
                distance[i] = 1
                back -= 1
                queue[back] = i
        level_zero = front
        lo = back
        hi = n - 1
        while lo < hi:
            queue[lo], queue[hi] = queue[hi], queue[lo]
            lo += 1
            hi -= 1
        # Moved down to follow level 0: the target is below the source, so a forward
        # copy reads each entry before it is overwritten.
        tail = front
        for k in range(back, n):
            queue[tail] = queue[k]
            tail += 1
        if tail > level_zero:
            longest = max(longest, 1)
        head = 0
        stop = level_zero
        level = 0
        while head < tail:
            if head == stop:
                stop = tail
                level += 1
            i = np.int64(queue[head])
            head += 1
            won_by_parent = values[i] < 0
            count = parents(ctx, i, out)
            for k in range(count):
                p = out[k]
                if values[p] != NO_EXIT:
                    continue
                if won_by_parent:
                    values[p] = t
                else:
                    left[p] -= 1
                    if left[p] != 0 or exits[p] > -t:
                        continue
                    values[p] = -t
                distance[p] = min(level + 1, 255)
                longest = max(longest, level + 1)
                queue[tail] = p
                tail += 1
    # What no threshold settled can go on for ever: a draw.
    for i in range(n):
        if values[i] == NO_EXIT:
            values[i] = 0
    return values, distance, longest


def iterate(exits, moves, ctx):
    """Values of a layer by sweeping two bounds to their fixed point; also the sweep count."""
    n = exits.size
    low = np.empty(n, dtype=np.int16)
    high = np.empty(n, dtype=np.int16)
    for i in range(n):
        if moves[i] == 0:
            low[i] = exits[i]
            high[i] = exits[i]
        else:
            low[i] = -_TOP - 1
            high[i] = _TOP + 1
    out = np.empty(MAX_EDGES, dtype=np.int64)
    sweeps = 0
    changed = True
    while changed:
        changed = False
        sweeps += 1
        for i in range(n):
            if low[i] == high[i]:
                continue
            best_low = np.int16(exits[i])
            best_high = np.int16(exits[i])
            count = children(ctx, i, out)
            for k in range(count):
                c = out[k]
                if -high[c] > best_low:
                    best_low = -high[c]
                if -low[c] > best_high:
                    best_high = -low[c]
            if best_low != low[i] or best_high != high[i]:
                low[i] = best_low
                high[i] = best_high
                changed = True
    values = np.empty(n, dtype=np.int8)
    for i in range(n):
        if low[i] > 0:
            values[i] = low[i]
        elif high[i] < 0:
            values[i] = high[i]
        else:
            values[i] = 0
    return values, sweeps
