"""The memory-lean level-by-level propagation against the arrays it replaced.

:func:`gameclub.tablebase.retro.propagate_levels` keeps no settled flag, no copy of
the move counters and no sorted order of the seeds, and counts in bytes, so that a
layer of 4x5 Ataxx fits in memory. The reference below is the earlier form, with
each of those arrays: both must give the same values and distances on every layer.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from gameclub.ataxx import bitboard
from gameclub.tablebase import retro
from gameclub.tablebase.ataxx import (
    MAX_SQUARES,
    AtaxxTables,
    Geometry,
    decode,
    encode,
    fill_twins,
    layer_exits,
    parents,
)
from gameclub.tablebase.values import NO_EXIT

_TOP = 127


@njit(cache=True)
def _order_by_magnitude(exits):
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


def reference_levels(exits, moves, over, ctx):
    """Levels with a settled flag, a copy of the counters and the seeds sorted."""
    n = exits.size
    values = np.zeros(n, dtype=np.int8)
    settled = np.zeros(n, dtype=np.bool_)
    distance = np.zeros(n, dtype=np.uint8)
    left = moves.astype(np.int32)
    order, starts = _order_by_magnitude(exits)
    queue = np.empty(n, dtype=np.int64)
    out = np.empty(4096, dtype=np.int64)
    longest = 0
    for t in range(_TOP, 0, -1):
        tail = 0
        for k in range(starts[t], starts[t + 1]):
            i = order[k]
            if over[i] and not settled[i]:
                values[i] = exits[i]
                settled[i] = True
                queue[tail] = i
                tail += 1
        level_zero = tail
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
            distance[i] = 1
            longest = max(longest, 1)
            queue[tail] = i
            tail += 1
        head = 0
        stop = level_zero
        level = 0
        while head < tail:
            if head == stop:
                stop = tail
                level += 1
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
                distance[p] = min(level + 1, 255)
                longest = max(longest, level + 1)
                queue[tail] = p
                tail += 1
    return values, distance, longest


reference_layer = retro.specialise(reference_levels, "ataxx_reference", (bitboard,),
                                   parents=parents)
lean_layer = retro.specialise(retro.propagate_levels, "ataxx_lean", (bitboard,),
                              parents=parents)


@pytest.mark.parametrize("size", [(3, 4), (2, 7)])
@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_the_lean_propagation_gives_the_reference_values_and_distances(size, rules):
    game = AtaxxTables(*size, rules)
    singles, doubles = game.geometry.tables()
    n = np.int64(game.geometry.squares)
    below = np.zeros(0, dtype=np.int8)
    for layer in game.layers():
        ctx = game.context(layer)
        exits, moves, over = layer_exits(np.int64(layer), n, singles, doubles,
                                         game.geometry.fold(), np.int64(game.stuck_lose),
                                         below)
        assert moves.dtype == np.uint16
        expected = reference_layer(exits, moves, over, ctx)
        counters = moves.copy()
        got = lean_layer(exits, counters, over, ctx)
        assert np.array_equal(got[0], expected[0]), layer
        assert np.array_equal(got[1], expected[1]), layer
        assert got[2] == expected[2]
        # the counters were counted down in place: the caller's copy is spent
        assert np.all(counters <= moves)
        values = got[0].copy()
        fill_twins(values, got[1].copy(), ctx)
        below = values


def test_the_counters_fit_their_types_on_every_board_the_tables_allow():
    """``layer_exits`` counts a position's jumps in a byte: no position has more
    in-layer moves than the board has (square, square two away) pairs, one pass
    aside. The propagation's counters (``layer_counters``) count each move of each of
    a position's at most 8 images at most once: 8 times that fits an ``uint16``."""
    for width in range(2, 9):
        for height in range(2, 9):
            if width * height > MAX_SQUARES:
                continue
            geometry = Geometry(width, height)
            _, doubles = geometry.tables()
            pairs = sum(bin(int(d)).count("1") for d in doubles)
            assert pairs <= 255, (width, height, pairs)
            assert len(geometry.symmetries()) * (pairs + 1) < 1 << 16


@njit(cache=True)
def _entries_of_parents(ctx, size):
    """The counters as the propagation takes them off: one for each entry of each
    stored position's parents (a twin, which no index reaches, has none)."""
    e, n, fold = ctx[0], ctx[1], ctx[4]
    counters = np.zeros(size, dtype=np.int64)
    out = np.empty(retro.MAX_EDGES, dtype=np.int64)
    for i in range(size):
        us, them = decode(e, np.int64(i), n, fold)
        if encode(us, them, n, fold)[1] != i:
            continue
        count = parents(ctx, np.int64(i), out)
        for k in range(count):
            counters[out[k]] += 1
    return counters


@pytest.mark.parametrize("size", [(3, 3), (2, 5), (3, 4)])
@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_the_counters_are_the_entries_the_parents_list(size, rules):
    """``layer_exits`` counts a position's entries from its own moves and the
    stabilisers of its children; the propagation takes off one per entry of the
    parents' lists: the two counts must be equal, and zero exactly for a position
    without moves inside the layer (jumps or a pass)."""
    game = AtaxxTables(*size, rules)
    singles, doubles = game.geometry.tables()
    n = np.int64(game.geometry.squares)
    below = np.zeros(game.geometry.layer_size(0), dtype=np.int8)
    for layer in range(1, game.geometry.squares + 1):
        exits, moves, _ = layer_exits(np.int64(layer), n, singles, doubles,
                                      game.geometry.fold(), np.int64(game.stuck_lose), below)
        entries = _entries_of_parents(game.context(layer), exits.size)
        assert np.array_equal(entries, moves.astype(np.int64)), layer
        below = np.zeros(exits.size, dtype=np.int8)


def test_every_board_the_tables_allow_has_its_parents_fit_the_solvers_buffer():
    for width in range(2, 9):
        for height in range(2, 9):
            if width * height <= MAX_SQUARES:
                assert Geometry(width, height).most_parents() <= retro.MAX_EDGES


def test_the_parents_bound_holds_and_4x5_needs_more_than_4096_places():
    """On 4x5 a finished position (13 pieces of the side that just moved, none of the
    other's) has more un-jumps than the 4,096 places the solvers had: the build wrote
    past them at layer 7. Counted here with room to spare, against the bound."""
    game = AtaxxTables(4, 5)
    bound = game.geometry.most_parents()
    out = np.empty(1 << 16, dtype=np.int64)
    ctx = game.context(7)
    occupied = game.geometry.squares - 7
    # colours 0 (every piece theirs) is the canonical colouring of each class
    counts = [parents(ctx, np.int64(cls << occupied), out)
              for cls in range(game.geometry.layer_size(7) >> occupied)]
    assert 4096 < max(counts) <= bound
    small = AtaxxTables(3, 4)
    for layer in small.layers():
        assert _most_parents(small.context(layer), small.layer_size(layer), out) \
            <= small.geometry.most_parents()


@njit(cache=True)
def _most_parents(ctx, size, out):
    most = 0
    for i in range(size):
        most = max(most, parents(ctx, np.int64(i), out))
    return most
