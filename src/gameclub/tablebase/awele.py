"""Awele tables: the layers, the per-layer index and the move kernels.

A position is the 12 pit counts seen from the side to move (its own row first,
``A``-``F``, then the opponent's ``a``-``f``); the stores do not matter to what is
still to be won. Its **value** is the capture margin over the seeds left: the
seeds the side to move will still take minus those the opponent will, with best
play, the seeds handed out at the end of the game included (the rule set says to
whom). A position whose play never ends shares the seeds left (both rule sets
with a table say so), a margin of 0, which is the retro solvers' draw. The
25-seed early end is left out: with the stores at 0 it never comes, and it does
not change who wins, only by how much (a game that goes on after a store reaches
25 can only add to the margin of the side that has it, and only the side with
more than half can reach it). The 2-bit code is the sign of the margin: who wins
the seeds left.

**Layers** are the seeds on the board: a capture removes some (its child lies in
a lower layer, any of them), a sowing without capture keeps them. The **index**
in layer ``n`` is the rank of the 12 counts among the ``C(n + 11, 11)`` ways of
putting ``n`` seeds in 12 pits: the counts are the gaps between 11 bars among
``n + 11`` places, and the bars' places are ranked by the combinatorial number
system, as the empty squares of :mod:`gameclub.tablebase.ataxx` are.

Moves come from :mod:`gameclub.awele.kernel` (the rules library's kernels), so
the tables follow the rule set's legality exactly (feeding, grand slam). A layer
is solved by :func:`exits_pass` and :func:`propagate_pass` (parallel, with the
**distance** of every position: plies to the capture or game end that realises
its value, which the perfect player of :class:`AweleProbe` follows); the generic
solvers of :mod:`gameclub.tablebase.retro` with :func:`parents` and
:func:`children` are kept as the independent reference and for ``--method
iterate``.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import njit, prange
from numba.typed import List

from gameclub.awele import kernel
from gameclub.awele.board import Board
from gameclub.awele.move import Move, Side
from gameclub.awele.rules import RULESETS, OddSeed, RepetitionShare, RuleSet
from gameclub.tablebase import retro
from gameclub.tablebase.atomic import compare_and_swap, fetch_add
from gameclub.tablebase.storage import MANIFEST, TableDir, TableError
from gameclub.tablebase.values import MAX_MARGIN, NO_EXIT

if TYPE_CHECKING:
    from gameclub.tablebase.distributed import DaskLayers

PITS = 12
#: the rule sets whose endless games share the seeds left, which the tables assume.
TABLE_RULES = ("awari", "awele")


def layer_size(seeds: int) -> int:
    return comb(seeds + PITS - 1, PITS - 1)


def _binomials(top: int) -> np.ndarray:
    binom = np.zeros((top + 2, PITS + 1), dtype=np.int64)
    for a in range(top + 2):
        for b in range(PITS + 1):
            binom[a, b] = comb(a, b)
    return binom


# -- the index ---------------------------------------------------------------------


@njit(cache=True)
def encode(pits, binom):
    """Index of the 12 counts ``pits`` in their layer (``sum(pits)`` seeds)."""
    rank = np.int64(0)
    total = np.int64(0)
    for j in range(PITS - 1):
        total += pits[j]
        rank += binom[total + j, j + 1]
    return rank


@njit(cache=True)
def decode(index, seeds, binom, out):
    """Write the 12 counts of ``index`` in layer ``seeds`` into ``out[:12]``."""
    rank = index
    place = seeds + PITS - 2
    bars = np.empty(PITS - 1, dtype=np.int64)
    for j in range(PITS - 1, 0, -1):
        while binom[place, j] > rank:
            place -= 1
        rank -= binom[place, j]
        bars[j - 1] = place
        place -= 1
    previous = np.int64(-1)
    for j in range(PITS - 1):
        out[j] = bars[j] - previous - 1
        previous = bars[j]
    out[PITS - 1] = seeds + PITS - 2 - previous


# -- moves ---------------------------------------------------------------------------


@njit(inline="always", cache=True)
def _turned(child, out):
    """``out`` = ``child`` (opponent to move) seen from the opponent: rows swapped."""
    for j in range(6):
        out[j] = child[6 + j]
        out[6 + j] = child[j]


@njit(cache=True)
def _state(index, seeds, binom, state):
    decode(index, seeds, binom, state)
    state[kernel.SOUTH_STORE] = 0
    state[kernel.NORTH_STORE] = 0
    state[kernel.SIDE] = 0


@njit(cache=True)
def _end_value(state, flags, odd_seed):
    """The margin of a finished game at ``state`` (South to move), or ``NO_EXIT``."""
    kind = kernel.end_kind(state, flags)
    if kind == kernel.ONGOING:
        return NO_EXIT
    south, north = kernel.final_stores(state, flags, kind, True, odd_seed)
    return south - north


@njit(cache=True)
def layer_exits(seeds, binom, flags, odd_seed, lower, offsets):
    """``exits`` (best capture, or the game's end) and in-layer ``moves`` of a layer.

    ``lower`` holds layers ``0 .. seeds - 1`` one after the other, layer ``k`` from
    ``offsets[k]``.
    """
    size = binom[seeds + PITS - 1, PITS - 1]
    exits = np.empty(size, dtype=np.int8)
    moves = np.zeros(size, dtype=np.uint16)
    state = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    child = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    turned = np.zeros(PITS, dtype=np.uint8)
    for i in range(size):
        _state(i, seeds, binom, state)
        over = _end_value(state, flags, odd_seed)
        if over != NO_EXIT:
            exits[i] = over
            continue
        mask = kernel.legal_mask(state, flags)
        best = np.int64(NO_EXIT)
        count = 0
        for pit in range(6):
            if not mask >> pit & 1:
                continue
            captured = kernel.play(state, pit, child, flags)
            if captured == 0:
                count += 1
                continue
            _turned(child, turned)
            value = captured - np.int64(lower[offsets[seeds - captured]
                                              + encode(turned, binom)])
            if value > best:
                best = value
        exits[i] = best
        moves[i] = count
    return exits, moves


@njit(cache=True)
def children(ctx, i, out):
    """The in-layer children of position ``i``: its sowings that capture nothing."""
    seeds, binom, flags, scratch = ctx
    # Scratch rows from the caller: an allocation per call would cost more than the sowing.
    state = scratch[0]
    child = scratch[1]
    turned = scratch[2]
    _state(i, seeds, binom, state)
    if kernel.end_kind(state, flags) != kernel.ONGOING:
        return 0
    mask = kernel.legal_mask(state, flags)
    count = 0
    for pit in range(6):
        if mask >> pit & 1 and kernel.play(state, pit, child, flags) == 0:
            _turned(child, turned)
            out[count] = encode(turned, binom)
            count += 1
    return count


@njit(cache=True)
def parents(ctx, i, out):
    """The in-layer parents of position ``i``: un-sowings by the side that just moved.

    That side's sowing emptied the pit it started from; for each of its empty pits
    and each number of seeds, take the sown seeds back (every pit must have them)
    and keep the parent if, played forward, the sowing is legal there and captures
    nothing. Each (parent, move) is found once: the pit and the count fix it.
    """
    seeds, binom, flags, scratch = ctx
    parent = scratch[0]
    child = scratch[1]
    turned = scratch[2]
    decode(i, seeds, binom, turned)
    # ``turned``: the position seen by the side that moved, its row first.
    for j in range(6):
        child[j] = turned[6 + j]
        child[6 + j] = turned[j]
    count = 0
    for pit in range(6):
        if child[pit] != 0:
            continue
        for sown in range(1, seeds + 1):
            laps, rest = divmod(sown, 11)
            ok = True
            for j in range(PITS):
                if j == pit:
                    continue
                back = laps + (1 if 1 <= (j - pit) % PITS <= rest else 0)
                if child[j] < back:
                    ok = False
                    break
                parent[j] = child[j] - back
            if not ok:
                continue
            parent[pit] = sown
            parent[kernel.SOUTH_STORE] = 0
            parent[kernel.NORTH_STORE] = 0
            parent[kernel.SIDE] = 0
            if kernel.end_kind(parent, flags) != kernel.ONGOING:
                continue
            if not kernel.legal_mask(parent, flags) >> pit & 1:
                continue
            if _captures(parent, pit, flags, scratch[3]):
                continue
            out[count] = encode(parent, binom)
            count += 1
    return count


@njit(inline="always", cache=True)
def _captures(state, pit, flags, out):
    return kernel.play(state, pit, out, flags) != 0


# -- the fast layer solver -------------------------------------------------------------
#
# One layer is solved in two passes over its positions:
#
# 1. exits, in parallel, walking the positions in index order (the next composition
#    is a few additions, not a decode): each position's best capture (the captured
#    seeds minus the lower layer's value of the child) or its end value, and how many
#    of its moves stay in the layer;
# 2. propagation, threshold by threshold from the highest margin down, breadth first
#    from the positions whose exit gives the threshold, one level at a time, each
#    level's positions shared among the threads: a position's level is its distance
#    in plies to the move that leaves the layer.
#
# A position's working state is one 16-bit cell, so that a thread updates it with
# one compare-and-swap: the low byte is the value (the exit until it is settled), the
# high byte its flags (settled, game over) and the count of its in-layer moves not
# yet known to lose. With the distance byte and a 4-byte queue entry, 7 bytes a
# position.

_COUNT = 0x3F00
_ONE_MOVE = 0x0100
_GAME_OVER = 0x4000
_SETTLED = 0x8000
#: the longest distance a byte holds: a longer one is refused (awari up to 24 seeds:
#: at most 130 plies, at 12 seeds).
MAX_DISTANCE = 255
_BLOCK = 1 << 14


@njit(cache=True, inline="always")
def _value_of(cell):
    """The signed value in a cell's low byte."""
    return np.int64((cell & 0xFF) ^ 0x80) - 0x80


@njit(cache=True)
def next_composition(pits):
    """``pits`` becomes the composition of the next index of its layer (in place)."""
    k = 1
    while pits[k] == 0:
        k += 1
    first = pits[0]
    pits[0] = 0
    pits[k - 1] = first + 1
    pits[k] -= 1


@njit(cache=True, inline="always")
def _exits_block(seeds, binom, flags, odd_seed, lower, start, stop, cells, at):
    """Write the cells of positions ``start .. stop - 1`` of layer ``seeds`` into
    ``cells[at:]``, walking them in index order."""
    state = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    child = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    turned = np.zeros(PITS, dtype=np.int64)
    pits = np.zeros(PITS, dtype=np.int64)
    decode(start, seeds, binom, pits)
    for i in range(start, stop):
        if i > start:
            next_composition(pits)
        for j in range(PITS):
            state[j] = pits[j]
        over = _end_value(state, flags, odd_seed)
        if over != NO_EXIT:
            cells[at + i - start] = _GAME_OVER | (over & 0xFF)
            continue
        mask = kernel.legal_mask(state, flags)
        best = np.int64(NO_EXIT)
        count = 0
        for pit in range(6):
            if not mask >> pit & 1:
                continue
            captured = kernel.play(state, pit, child, flags)
            if captured == 0:
                count += 1
                continue
            for j in range(6):
                turned[j] = child[6 + j]
                turned[6 + j] = child[j]
            value = captured - np.int64(lower[seeds - captured][encode(turned, binom)])
            if value > best:
                best = value
        cells[at + i - start] = count * _ONE_MOVE | (best & 0xFF)


@njit(cache=True, parallel=True)
def exits_pass(seeds, binom, flags, odd_seed, lower):
    """The cells of layer ``seeds``: best exit (``NO_EXIT`` if none), game over, in-layer
    moves; ``lower[k]`` is the finished layer ``k``."""
    size = binom[seeds + PITS - 1, PITS - 1]
    cells = np.empty(size, dtype=np.uint16)
    blocks = (size + _BLOCK - 1) // _BLOCK
    for b in prange(blocks):
        start = b * _BLOCK
        _exits_block(seeds, binom, flags, odd_seed, lower, start, min(size, start + _BLOCK),
                     cells, start)
    return cells


@njit(cache=True, nogil=True)
def exits_range(seeds, binom, flags, odd_seed, lower, start, stop):
    """The cells of positions ``start .. stop - 1`` of layer ``seeds``, as
    :func:`exits_pass` computes them, on the calling thread (without the GIL): one
    chunk of a layer, the task of a distributed build
    (:mod:`gameclub.tablebase.distributed`)."""
    cells = np.empty(stop - start, dtype=np.uint16)
    _exits_block(seeds, binom, flags, odd_seed, lower, start, stop, cells, 0)
    return cells


@njit(cache=True)
def _unsowings(pits, seeds, binom, flags, parent, scratch, out):
    """The in-layer parents of the position ``pits`` (side to move first), one per move.

    The side that just moved sowed from one of its pits, now empty, ``s`` seeds; taking
    them back one at a time from the last pit sown, the first pit that has none ends
    the pit's candidates (a longer sowing would need it too). A parent is kept if the
    sowing is legal there and captures nothing: the last seed lands on the mover's
    side, or makes other than 2 or 3, or the kernel's sowing says so.
    """
    count = 0
    opponent = 0
    for j in range(6):
        opponent += pits[j]
    for pit in range(6):
        # In the mover's view its row is 0-5: pit j of the mover is pits[6 + j].
        if pits[6 + pit] != 0:
            continue
        for j in range(6):
            parent[j] = pits[6 + j]
            parent[6 + j] = pits[j]
        parent[kernel.SOUTH_STORE] = 0
        parent[kernel.NORTH_STORE] = 0
        parent[kernel.SIDE] = 0
        # Seeds in the opponent's row of the parent.
        left = opponent
        for sown in range(1, seeds + 1):
            last = (pit + (sown - 1) % 11 + 1) % PITS
            if parent[last] == 0:
                break
            parent[last] -= 1
            parent[pit] = sown
            if last >= 6:
                left -= 1
                # The last pit's count after the sowing is the position's own count.
                if 2 <= pits[last - 6] <= 3 and kernel.play(parent, pit, scratch, flags) != 0:
                    continue
            # With seeds on both sides and empty stores the game goes on, and a sowing
            # that captures nothing is legal under every rule set (the rules restrict
            # only feeding an empty row and whole-row captures); else ask the kernel.
            if left == 0 and (kernel.end_kind(parent, flags) != kernel.ONGOING
                              or not kernel.legal_mask(parent, flags) >> pit & 1):
                continue
            out[count] = encode(parent, binom)
            count += 1
        parent[pit] = 0
    return count


@njit(cache=True, parallel=True)
def _seed_threshold(t, cells, distance, queue, counters):
    """Settle the positions whose exit or end gives ``t`` or ``-t``: game ends (level 0)
    from the queue's front (``counters[0]``), exits (level 1) from its back
    (``counters[1]``). They overflowed the queue if the two counts add up to more."""
    size = cells.size
    capacity = queue.size
    blocks = (size + _BLOCK - 1) // _BLOCK
    for b in prange(blocks):
        for i in range(b * _BLOCK, min(size, (b + 1) * _BLOCK)):
            cell = cells[i]
            if cell & _SETTLED:
                continue
            v = _value_of(cell)
            if v != t and not (v == -t and cell & _COUNT == 0):
                continue
            cells[i] = cell | _SETTLED
            if cell & _GAME_OVER:
                slot = fetch_add(counters, 0, 1)
                if slot < capacity:
                    queue[slot] = i
            else:
                slot = capacity - 1 - fetch_add(counters, 1, 1)
                if slot >= 0:
                    queue[slot] = i
                distance[i] = 1


@njit(cache=True)
def _collect(t, level, cells, distance, queue, at):
    """Write the positions of ``level`` at threshold ``t`` (settled, worth ``+-t``, at
    that distance) into ``queue`` from ``at``; the new end. Rebuilds a level that
    overflowed the queue."""
    for i in range(cells.size):
        cell = cells[i]
        if cell & _SETTLED and distance[i] == level and abs(_value_of(cell)) == t:
            queue[at] = i
            at += 1
    return at


@njit(cache=True)
def _expand(t, level, head, stop, seeds, binom, flags, cells, distance, queue, counters):
    """Settle the parents that the positions ``queue[head:stop]`` (level ``level``)
    decide, appending them to the queue at ``counters[0]``; safe to run on several
    threads at once on different parts of a level."""
    threshold = np.int64(t)
    pits = np.zeros(PITS, dtype=np.int64)
    parent = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    scratch = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    out = np.empty(6 * (seeds + 1), dtype=np.int64)
    for k in range(head, stop):
        i = np.int64(queue[k])
        lost = _value_of(cells[i]) < 0
        decode(i, seeds, binom, pits)
        count = _unsowings(pits, seeds, binom, flags, parent, scratch, out)
        for n in range(count):
            p = out[n]
            while True:
                old = cells[p]
                if old & _SETTLED:
                    break
                settles = True
                if lost:
                    new = (old & 0xFF00) | _SETTLED | (threshold & 0xFF)
                elif (old & _COUNT) != _ONE_MOVE or _value_of(old) > -threshold:
                    new = old - _ONE_MOVE
                    settles = False
                else:
                    new = ((old - _ONE_MOVE) & 0xFF00) | _SETTLED | (-threshold & 0xFF)
                if compare_and_swap(cells, p, old, new) == old:
                    if settles:
                        distance[p] = min(level + 1, MAX_DISTANCE)
                        slot = fetch_add(counters, 0, 1)
                        if slot < queue.size:
                            queue[slot] = p
                    break


#: levels smaller than this are expanded on one thread (starting threads costs more).
_PARALLEL_LEVEL = 1 << 13
_CHUNK = 1 << 10


@njit(cache=True, parallel=True)
def _expand_level(t, level, head, stop, seeds, binom, flags, cells, distance, queue,
                  counters):
    """:func:`_expand` with the level's positions shared among the threads."""
    chunks = (stop - head + _CHUNK - 1) // _CHUNK
    for c in prange(chunks):
        _expand(t, level, head + c * _CHUNK, min(stop, head + (c + 1) * _CHUNK), seeds,
                binom, flags, cells, distance, queue, counters)


@njit(cache=True)
def propagate_pass(seeds, binom, flags, cells, first_queue=-1):
    """Settle the layer from its exits (see above): ``(values, distances, longest)``; the
    positions never settled are worth 0 (endless play) at distance 0.

    The queue holds one level and the next (each level is moved to the front before
    it is expanded) and starts at an eighth of the layer; a level that overflows it
    is found again by a scan of the layer (settled, worth the threshold, at its
    distance) into a queue twice as large. ``first_queue`` sets the first size.
    """
    size = cells.size
    distance = np.zeros(size, dtype=np.uint8)
    queue = np.empty(size // 8 + 1024 if first_queue < 0 else first_queue, dtype=np.uint32)
    counters = np.zeros(2, dtype=np.int64)
    longest = 0
    for t in range(seeds, 0, -1):
        counters[0] = 0
        counters[1] = 0
        _seed_threshold(t, cells, distance, queue, counters)
        front = counters[0]
        level_one = counters[1]
        if front + level_one > queue.size:
            queue = np.empty(max(2 * queue.size, (front + level_one) * 5 // 4),
                             dtype=np.uint32)
            _collect(t, 0, cells, distance, queue, 0)
            _collect(t, 1, cells, distance, queue, front)
        else:
            # Level 1 goes right after level 0 (its order within the level is free).
            for k in range(level_one):
                queue[front + k] = queue[queue.size - level_one + k]
        head = 0
        stop = front
        level = 0
        counters[0] = front + level_one
        if front == 0:
            stop = counters[0]
            level = 1
        while head < stop:
            if level > longest:
                longest = level
            if stop - head < _PARALLEL_LEVEL:
                _expand(t, level, head, stop, seeds, binom, flags, cells, distance, queue,
                        counters)
            else:
                _expand_level(t, level, head, stop, seeds, binom, flags, cells, distance,
                              queue, counters)
            end = counters[0]
            if end > queue.size:
                queue = np.empty(max(2 * queue.size, (end - stop) * 5 // 4),
                                 dtype=np.uint32)
                end = _collect(t, level + 1, cells, distance, queue, 0)
            else:
                for k in range(end - stop):
                    queue[k] = queue[stop + k]
                end -= stop
            head = 0
            stop = end
            counters[0] = end
            level += 1
    queue = np.empty(0, dtype=np.uint32)
    # The values overwrite the cells' first half, in order: byte i is written after
    # cell i, which holds bytes 2i and 2i + 1, has been read.
    values = cells.view(np.int8)[:size]
    for i in range(size):
        cell = cells[i]
        values[i] = _value_of(cell) if cell & _SETTLED else 0
    return values, distance, longest


@njit(cache=True, parallel=True)
def sign_codes(values):
    """The 2-bit WDL code of each margin: 0 loss, 1 draw, 2 win."""
    codes = np.empty(values.size, dtype=np.uint8)
    for i in prange(values.size):
        v = values[i]
        codes[i] = 2 if v > 0 else (0 if v < 0 else 1)
    return codes


iterate_layer = retro.specialise(retro.iterate, "awele", (kernel,), children=children)
propagate_layer = retro.specialise(retro.propagate, "awele", (kernel,), parents=parents)


# -- the tables of one rule set ------------------------------------------------------


def _odd_seed_code(rules: RuleSet) -> int:
    return {OddSeed.NOBODY: kernel.ODD_NOBODY, OddSeed.TO_MOVE: kernel.ODD_TO_MOVE,
            OddSeed.OPPONENT: kernel.ODD_OPPONENT}[rules.odd_seed]


def table_rules(name: str) -> RuleSet:
    """The rule set ``name`` if it has tables; ``ValueError`` naming the choices if not."""
    if name not in TABLE_RULES:
        raise ValueError(f"no Awele tables for rules {name!r}; choose one of "
                         f"{', '.join(TABLE_RULES)} (their endless games share the seeds left)")
    rules = RULESETS[name]
    assert rules.repetition_share is RepetitionShare.EQUAL
    return rules


class AweleTables:
    """The layered game of Awele from 0 to ``seeds`` seeds on the board (a
    :class:`gameclub.tablebase.build.LayeredGame`)."""

    game = "awele"

    def __init__(self, seeds: int, rules: str = "awari") -> None:
        if not 0 <= seeds <= MAX_MARGIN:
            raise ValueError(f"no Awele tables up to {seeds} seeds: 0 to {MAX_MARGIN} "
                             "(the margin must fit the one-byte value)")
        self.rules = table_rules(rules)
        self.seeds = seeds
        self.name = table_name(seeds, rules)
        self.flags = np.int64(self.rules.kernel_flags())
        self.odd_seed = np.int64(_odd_seed_code(self.rules))
        self.binom = _binomials(seeds + PITS)

    @property
    def params(self) -> dict[str, object]:
        return {"game": "awele", "rules": self.rules.name, "seeds": self.seeds,
                "flags": int(self.flags), "odd_seed": int(self.odd_seed),
                "index": "pit counts by bars rank/1", "value": "capture margin of the seeds left"}

    def layers(self) -> range:
        return range(self.seeds + 1)

    def layer_size(self, layer: int) -> int:
        return layer_size(layer)

    def wdl_codes(self, values: np.ndarray) -> np.ndarray:
        return sign_codes(values)

    def solve_layer(self, layer: int, lower: Callable[[int], np.ndarray],
                    method: str) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """The values of ``layer`` and, by ``propagate``, the distances too."""
        if method == "iterate":
            below = [np.asarray(lower(k)) for k in range(layer)]
            offsets = np.zeros(max(1, layer), dtype=np.int64)
            for k in range(1, layer):
                offsets[k] = offsets[k - 1] + below[k - 1].size
            flat = np.concatenate(below) if below else np.zeros(0, dtype=np.int8)
            exits, moves = layer_exits(np.int64(layer), self.binom, self.flags,
                                       self.odd_seed, flat, offsets)
            values, _ = iterate_layer(exits, moves, self.context(layer))
            return values
        cells = exits_pass(np.int64(layer), self.binom, self.flags, self.odd_seed,
                           self.lower_list(layer, lower))
        return self.propagate(layer, cells)

    def solve_layer_on(self, cluster: DaskLayers, path: Path, layer: int,
                       lower: Callable[[int], np.ndarray],
                       method: str) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`solve_layer` with the exits computed by ``cluster``'s workers, one task
        per chunk of the layer, from the finished lower layers in ``path``; the
        propagation runs here (it needs no lower layer). The same values and
        distances."""
        if method != "propagate":
            raise ValueError("a distributed build resolves the layers by propagate")
        return self.propagate(layer, cluster.awele_cells(self, path, layer))

    def propagate(self, layer: int, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and distances of ``layer`` from its cells (:func:`exits_pass`); the
        cells are overwritten."""
        values, distance, longest = propagate_pass(np.int64(layer), self.binom, self.flags,
                                                   cells)
        if longest > MAX_DISTANCE:
            raise RuntimeError(f"layer {layer}: a distance of {longest} plies does not fit "
                               "the distance byte")
        return values, distance

    @staticmethod
    def lower_list(layer: int, lower: Callable[[int], np.ndarray]) -> List:
        """The finished layers below ``layer`` as numba's typed list (no copies)."""
        below = List()
        for k in range(layer):
            below.append(np.asarray(lower(k), dtype=np.int8))
        if not below:
            below.append(np.zeros(0, dtype=np.int8))
        return below

    def context(self, layer: int) -> tuple:
        scratch = np.zeros((4, kernel.STATE_SIZE), dtype=np.uint8)
        return (np.int64(layer), self.binom, self.flags, scratch)


def table_name(seeds: int, rules: str) -> str:
    return f"awele-{seeds}-{rules}"


def parse_seeds(text: str) -> int:
    """``"0-12"`` or ``"12"`` -> 12: the layers are always built from 0."""
    low, _, high = text.partition("-")
    if not high:
        low, high = "0", low
    if not (low.isdigit() and high.isdigit()) or int(low) != 0:
        raise ValueError(f"invalid seeds {text!r}: expected 0-N (layers are built from 0)")
    return int(high)


# -- probing -------------------------------------------------------------------------


def best_of(scored: list[tuple[Move, int, int]]) -> Move:
    """The perfect player's choice among ``(move, margin, distance)``: the best margin,
    then the shortest distance if it is positive, the longest if negative."""
    if not scored:
        raise ValueError("no legal move: the game is over")
    value = max(margin for _, margin, _ in scored)
    keep = [(move, distance) for move, margin, distance in scored if margin == value]
    if value > 0:
        return min(keep, key=lambda item: item[1])[0]
    if value < 0:
        return max(keep, key=lambda item: item[1])[0]
    return keep[0][0]


class AweleProbe:
    """Probing an Awele table: the margin over the seeds left of positions as boards."""

    def __init__(self, table: TableDir) -> None:
        params = table.manifest["params"]
        self.table = table
        self.seeds = int(params["seeds"])
        self.rules = table_rules(str(params["rules"]))
        self.binom = _binomials(self.seeds + PITS)
        # Every layer, of its size in closed form (the files' sizes are checked
        # against the manifest when mapped): a probe never reads past a layer.
        layers = table.layers
        for seeds in range(self.seeds + 1):
            entry = layers.get(seeds)
            if entry is None:
                raise TableError(f"{table.path} has no layer {seeds} (the manifest lists "
                                 f"layers {sorted(layers)})")
            files = [entry[kind]["bytes"] for kind in ("values", "distance") if kind in entry]
            if any(size != layer_size(seeds) for size in [entry["positions"], *files]):
                raise TableError(f"{table.path}: the manifest gives layer {seeds} "
                                 f"{entry['positions']} positions; an Awele layer of {seeds} "
                                 f"seeds has {layer_size(seeds)}")

    @classmethod
    def open(cls, root: Path, rules: str = "awari", seeds: int | None = None) -> AweleProbe:
        """The table of ``rules``: ``root`` is its directory or holds it (the one with
        the most seeds when ``seeds`` is not given)."""
        table_rules(rules)
        if (root / MANIFEST).exists():
            path = root
        elif any(root.glob("layer-*")):
            # A table's own directory that lost its manifest: say so, not "no table".
            raise TableError(f"no table in {root}: {MANIFEST} is missing")
        else:
            candidates = sorted((p for p in root.glob(f"awele-*-{rules}")
                                 if p.name.split("-")[1].isdigit()),
                                key=lambda p: int(p.name.split("-")[1]))
            if seeds is not None:
                candidates = [p for p in candidates if p.name == table_name(seeds, rules)]
            if not candidates:
                raise TableError(f"no Awele table for rules {rules} in {root}")
            path = candidates[-1]
        table = TableDir.open(path)
        params = table.manifest["params"]
        if params.get("game") != "awele" or params.get("rules") != rules:
            raise TableError(f"{path} holds a table for {params.get('game')} "
                             f"{params.get('rules')}, not for awele {rules}")
        if not table.complete:
            raise TableError(f"{path} holds an unfinished build; finish it with --resume")
        return cls(table)

    def _index(self, pits: tuple[int, ...] | list[int]) -> tuple[int, int]:
        """``(layer, index)`` of the 12 counts ``pits``; ``ValueError`` naming what is
        wrong when they are not 12 counts of 0 or more within the table's seeds."""
        counts = list(pits)
        if len(counts) != PITS:
            raise ValueError(f"an Awele position has {PITS} pit counts, not {len(counts)}")
        for j, n in enumerate(counts):
            if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
                raise ValueError(f"pit {j + 1} holds {n!r}: seed counts are integers of 0 "
                                 "or more")
        seeds = sum(counts)
        if seeds > self.seeds:
            raise ValueError(f"the position has {seeds} seeds on the board; the table "
                             f"holds up to {self.seeds}")
        return seeds, int(encode(np.array(counts, dtype=np.int64), self.binom))

    def value_of(self, pits: tuple[int, ...] | list[int]) -> int:
        """The margin for the side to move of the 12 counts ``pits`` (its row first)."""
        seeds, index = self._index(pits)
        return int(self.table.values(seeds)[index])

    def distance_of(self, pits: tuple[int, ...] | list[int]) -> int:
        """Plies from ``pits`` to the move that leaves its layer (a capture) or to the
        game's end, with best play: the winner hurries, the loser delays. 0 for a
        finished game and for a draw. ``TableError`` if the table keeps no distances."""
        seeds, index = self._index(pits)
        return int(self.table.distance(seeds)[index])

    @staticmethod
    def _own_view(board: Board) -> tuple[int, ...]:
        pits = board.pits
        return pits if board.turn is Side.SOUTH else pits[6:] + pits[:6]

    def board_distance(self, board: Board) -> int:
        if board.rules.name != self.rules.name:
            raise ValueError(f"the board plays {board.rules.name}; the table is for "
                             f"{self.rules.name}")
        return self.distance_of(self._own_view(board))

    def scored_moves(self, board: Board) -> list[tuple[Move, int, int]]:
        """Each legal move with the margin it keeps and its distance: 1 for a capture,
        else one more than the position after it."""
        scored = []
        for move in board.legal_moves:
            before = sum(board.stores)
            board.push(move)
            captured = sum(board.stores) - before
            value = captured - self.board_value(board)
            distance = 1 if captured else 1 + self.board_distance(board)
            board.pop()
            scored.append((move, value, distance))
        return scored

    def perfect_move(self, board: Board) -> Move:
        """The move of a perfect player: the best margin, then, when it wins, the
        shortest way to the next capture and, when it loses, the longest (a draw
        takes the first move that keeps it). Following it from a won position always
        ends the game with at least the stored margin: each capture lowers the
        layer and between captures the distance falls by one a move."""
        return best_of(self.scored_moves(board))

    def board_value(self, board: Board) -> int:
        if board.rules.name != self.rules.name:
            raise ValueError(f"the board plays {board.rules.name}; the table is for "
                             f"{self.rules.name}")
        pits = board.pits
        return self.value_of(pits if board.turn is Side.SOUTH else pits[6:] + pits[:6])

    def probe(self, board: Board) -> tuple[int, list[tuple[Move, int]]]:
        """The margin of ``board`` and, for each legal move, the margin it keeps (the
        seeds it captures plus the opponent's negated margin after it)."""
        value = self.board_value(board)
        moves = []
        if board.outcome() is None:
            for move in board.legal_moves:
                before = sum(board.stores)
                board.push(move)
                captured = sum(board.stores) - before
                moves.append((move, captured - self.board_value(board)))
                board.pop()
        return value, moves
