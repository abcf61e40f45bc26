"""Exact values of small Awele positions: the capture margin, by retrograde analysis.

The value of a position is Romein and Bal's: the side to move's best margin
over the seeds left on the board, his future captures minus his opponent's,
with both sides playing to the end. Stores play no part, so the 25-seed end is
not applied: once a store holds 25 the winner is settled, and playing on can
change the margin but never the winner (a player with 25 of 48 seeds keeps
more than half). A game's final margin under best play is therefore
``store difference + value`` when nobody has 25 yet.

The game ends as the rule set says: a player to move with an empty row gives
the seeds left to his opponent (with ``stuck_check=either``, also an empty row
on the other side), and a repetition shares the seeds left equally, which is
worth 0 to both. As in Romein and Bal's databases, a line that never leaves a
cycle of positions is such a repetition, whichever occurrence ends the game:
captures, the only way to gain, cannot occur inside a cycle, so a side that can
hold a cycle can hold it to the third occurrence. Positions are therefore
valued without their history, and the value is exact for it.

How: every position reachable from the root is marked in a byte map over
the dense index of all positions with at most as many seeds (a position's
place is its layer's offset plus its pits' rank, the endgame databases' index
of :mod:`gameclub.awele.layers`). Layers (seeds on the board; a capture moves
to a lower layer) are solved from the lowest up over their marked positions:
South's attractor is grown from the highest margin down to 1 (a position
enters at the highest ``t`` South can force by leaving the layer at ``t`` or
more, with move counters for North), then North's from the lowest up to -1;
what neither can force is worth 0, the value of play that stays in the layer
for ever. Each attractor only grows as its threshold moves on, so every move
is looked at once per layer. Rule sets
whose repetition end is not an equal share (abapa's "each takes his own
row") or hands the odd seed to one side make a value depend on which
position repeats; :func:`solve` refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from gameclub.awele import kernel
from gameclub.awele.board import Board
from gameclub.awele.errors import InvalidRulesError
from gameclub.awele.move import Move
from gameclub.awele.rules import OddSeed, RepetitionShare

_ONGOING = 127


@nb.njit(cache=True)
def _end_value(state, flags):
    """South's margin over the seeds left where the game ends at ``state`` (stores
    aside), or ``_ONGOING``."""
    side = np.int64(state[kernel.SIDE])
    mine = kernel.row_seeds(state, side)
    theirs = kernel.row_seeds(state, 1 - side)
    sign = 1 if side == 0 else -1
    if mine == 0:
        return -sign * theirs
    if flags & kernel.STUCK_EITHER and theirs == 0:
        return sign * mine
    if kernel.legal_mask(state, flags) == 0:
        return sign * (mine - theirs)
    return _ONGOING


def _binomials(size: int) -> np.ndarray:
    table = np.zeros((size, 12), dtype=np.int64)
    for n in range(size):
        table[n, 0] = 1
        for k in range(1, min(n, 11) + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


#: C(n, k) for n < 60, k < 12: the ranks of twelve pit counts (see .layers).
_BINOMIALS = _binomials(60)


@nb.njit(cache=True)
def _slot(state, offsets):
    """A position's place in the dense index: its layer's offset, the rank of its
    pits within the layer (as :func:`gameclub.awele.layers.rank_pits`), its side."""
    rank = np.int64(0)
    bar = np.int64(-1)
    seeds = np.int64(0)
    for k in range(kernel.PITS - 1):
        bar += np.int64(state[k]) + 1
        seeds += state[k]
        rank += _BINOMIALS[bar, k + 1]
    seeds += state[kernel.PITS - 1]
    return 2 * (offsets[seeds] + rank) + np.int64(state[kernel.SIDE])


@nb.njit(cache=True)
def _unslot(slot, seeds, offsets, state):
    """Write into ``state`` the position at ``slot`` of the layer of ``seeds`` seeds
    (as :func:`gameclub.awele.layers.unrank_pits`), stores empty."""
    rank = slot // 2 - offsets[seeds]
    place = seeds + kernel.PITS - 2
    # The bars from the last down, each the highest place whose binomial fits;
    # a pit holds as many seeds as there are places between its two bars.
    upper = seeds + kernel.PITS - 1
    for k in range(kernel.PITS - 1, 0, -1):
        while _BINOMIALS[place, k] > rank:
            place -= 1
        rank -= _BINOMIALS[place, k]
        state[k] = upper - place - 1
        upper = place
        place -= 1
    state[0] = upper
    state[kernel.SOUTH_STORE] = 0
    state[kernel.NORTH_STORE] = 0
    state[kernel.SIDE] = slot & 1


@nb.njit(cache=True)
def _offsets(most):
    """Where each layer of at most ``most`` seeds starts in the dense index (in pit
    counts: a slot is twice that, plus the side to move)."""
    offsets = np.zeros(most + 2, dtype=np.int64)
    for seeds in range(most + 1):
        offsets[seeds + 1] = offsets[seeds] + _BINOMIALS[seeds + 11, 11]
    return offsets


@nb.njit(cache=True)
def _reach(root, flags, offsets):
    """Mark every position reachable from ``root`` in a byte map of the dense index
    of every position with as many seeds as the root or fewer; return it and how
    many are marked. A breadth-first walk that keeps only slots."""
    most = kernel.seeds_on_board(root)
    found = np.zeros(2 * offsets[most + 1], dtype=np.uint8)
    queue = np.empty(1 << 16, dtype=np.int64)
    queue[0] = _slot(root, offsets)
    found[queue[0]] = 1
    count = 1
    head = 0
    current = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    child = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    while head < count:
        slot = queue[head]
        head += 1
        layer = 0
        while offsets[layer + 1] <= slot // 2:
            layer += 1
        _unslot(slot, layer, offsets, current)
        if _end_value(current, flags) != _ONGOING:
            continue
        mask = kernel.legal_mask(current, flags)
        base = kernel.ROW * np.int64(current[kernel.SIDE])
        for i in range(6):
            if not mask >> i & 1:
                continue
            kernel.play(current, base + i, child, flags)
            c = _slot(child, offsets)
            if found[c]:
                continue
            found[c] = 1
            if count == len(queue):
                grown = np.empty(2 * len(queue), dtype=np.int64)
                grown[:count] = queue[:count]
                queue = grown
            queue[count] = c
            count += 1
    return found, count


@nb.njit(cache=True)
def _solve_layer(seeds, found, values, offsets, flags):
    """South's margin of every marked position of one layer, from the lower layers'
    ``values`` (see the module docstring), written into ``values``."""
    first_slot = 2 * offsets[seeds]
    last_slot = 2 * offsets[seeds + 1]
    size = 0
    for slot in range(first_slot, last_slot):
        size += found[slot]
    if size == 0:
        return
    slots = np.empty(size, dtype=np.int64)
    compact = np.full(last_slot - first_slot, -1, dtype=np.int32)
    k = 0
    for slot in range(first_slot, last_slot):
        if found[slot]:
            slots[k] = slot
            compact[slot - first_slot] = k
            k += 1
    # Each position's moves: a move that stays in the layer (no capture) is an
    # edge to a sibling; a capture leaves it with a value known from below, an
    # event at that value; an ended game is an event at its value.
    child = np.full((size, 6), -1, dtype=np.int32)
    exit_margin = np.zeros((size, 6), dtype=np.int8)
    exits = np.zeros(size, dtype=np.int8)
    moves = np.zeros(size, dtype=np.int8)
    end = np.empty(size, dtype=np.int8)
    side = np.empty(size, dtype=np.int8)
    degree = np.zeros(size + 1, dtype=np.int64)
    span = 2 * seeds + 1
    event_count = np.zeros(span + 1, dtype=np.int64)
    state = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    after = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    for p in range(size):
        _unslot(slots[p], seeds, offsets, state)
        side[p] = state[kernel.SIDE]
        e = _end_value(state, flags)
        if e != _ONGOING:
            end[p] = e
            event_count[e + seeds] += 1
            continue
        end[p] = _ONGOING
        sign = 1 if side[p] == 0 else -1
        mask = kernel.legal_mask(state, flags)
        base = kernel.ROW * np.int64(side[p])
        for i in range(6):
            if not mask >> i & 1:
                continue
            moves[p] += 1
            captured = kernel.play(state, base + i, after, flags)
            c = _slot(after, offsets)
            if captured:
                m = sign * captured + values[c]
                exit_margin[p, exits[p]] = m
                exits[p] += 1
                event_count[m + seeds] += 1
            else:
                sibling = compact[c - first_slot]
                child[p, i] = sibling
                degree[sibling] += 1
    # Predecessors inside the layer, as compressed rows; events by value.
    first = np.zeros(size + 1, dtype=np.int64)
    for q in range(size):
        first[q + 1] = first[q] + degree[q]
    fill = first[:size].copy()
    predecessors = np.empty(first[size], dtype=np.int32)
    for p in range(size):
        for i in range(6):
            q = child[p, i]
            if q >= 0:
                predecessors[fill[q]] = p
                fill[q] += 1
    event_first = np.zeros(span + 1, dtype=np.int64)
    for v in range(span):
        event_first[v + 1] = event_first[v] + event_count[v]
    event_fill = event_first[:span].copy()
    events = np.empty(event_first[span], dtype=np.int32)
    for p in range(size):
        if end[p] != _ONGOING:
            events[event_fill[end[p] + seeds]] = p
            event_fill[end[p] + seeds] += 1
        for x in range(exits[p]):
            v = exit_margin[p, x] + seeds
            events[event_fill[v]] = p
            event_fill[v] += 1
    # South's attractor, grown from the highest value down to 1: a position
    # enters at the highest t South can force by leaving the layer at t or more
    # (play that stays in the layer for ever is worth 0, not a gain). It only
    # grows as t falls, so each move is looked at once. Then North's attractor,
    # from the lowest value up to -1, the same way. What neither side can force
    # is worth 0.
    value = np.zeros(size, dtype=np.int8)
    entered = np.zeros(size, dtype=np.bool_)
    counters = np.empty(size, dtype=np.int8)
    queue = np.empty(size, dtype=np.int32)
    for attacker in range(2):
        counters[:] = moves
        tail = 0
        head = 0
        for step in range(seeds):
            t = seeds - step if attacker == 0 else step - seeds
            for k in range(event_first[t + seeds], event_first[t + seeds + 1]):
                p = events[k]
                if entered[p]:
                    continue
                if end[p] == _ONGOING and side[p] != attacker:
                    counters[p] -= 1
                    if counters[p]:
                        continue
                entered[p] = True
                value[p] = t
                queue[tail] = p
                tail += 1
            while head < tail:
                q = queue[head]
                head += 1
                for k in range(first[q], first[q + 1]):
                    p = predecessors[k]
                    if entered[p]:
                        continue
                    if side[p] != attacker:
                        counters[p] -= 1
                        if counters[p]:
                            continue
                    entered[p] = True
                    value[p] = t
                    queue[tail] = p
                    tail += 1
    for p in range(size):
        values[slots[p]] = value[p]


@nb.njit(cache=True)
def _solve_all(root, flags):
    """The byte map of reachable positions, their number, and South's margin of each."""
    most = kernel.seeds_on_board(root)
    offsets = _offsets(most)
    found, count = _reach(root, flags, offsets)
    values = np.zeros(len(found), dtype=np.int8)
    for seeds in range(most + 1):
        _solve_layer(seeds, found, values, offsets, flags)
    return offsets, values, count


@dataclass(frozen=True)
class Solution:
    """A solved position: its value, a best move and every legal move's value."""

    #: the side to move's best margin over the seeds on the board.
    value: int
    #: a move reaching that value (``None`` when the game is over).
    best: Move | None
    #: each legal move's value, from the same side's view.
    moves: dict[Move, int]
    #: positions enumerated and solved.
    positions: int

    def as_json(self) -> dict[str, object]:
        """The ``--json`` object of ``gameclub awele solve``."""
        return {
            "value": self.value,
            "best": self.best.text if self.best is not None else None,
            "moves": {move.text: value for move, value in self.moves.items()},
        }


#: Seeds on the board above which :func:`solve` refuses by default: the positions
#: reachable from 12 seeds are about 3.8 million (about 400 MB with the byte map
#: and the largest layer's graph); each more seed multiplies them by about 2.
MAX_SEEDS = 12


def solve(board: Board, max_seeds: int = MAX_SEEDS) -> Solution:
    """Solve ``board``'s position exactly under its rule set (see the module docstring).

    Refuses (``ValueError``) a position with more than ``max_seeds`` seeds on the
    board: every position reachable from it is held in memory."""
    if board.seeds_on_board() > max_seeds:
        raise ValueError(
            f"{board.seeds_on_board()} seeds on the board is more than {max_seeds}: solve holds "
            "a byte for every position with as many seeds or fewer and the largest layer's "
            "moves in memory (about 400 MB at 12 seeds, doubling with each seed); raise the "
            "limit to try anyway"
        )
    rules = board.rules
    if rules.repetition_share is not RepetitionShare.EQUAL or rules.odd_seed is not OddSeed.NOBODY:
        raise InvalidRulesError(
            f"rule set {rules.name!r}: its repetition end does not share the seeds left "
            "equally, so a position's value depends on the game's history; solve needs "
            "an equal share with no odd seed (awele, awari)"
        )
    flags = rules.kernel_flags()
    state = np.asarray(board.kernel_state(), dtype=np.uint8)
    offsets, values, count = _solve_all(state, flags)
    sign = 1 if board.turn == 0 else -1
    moves: dict[Move, int] = {}
    if _end_value(state, flags) == _ONGOING:
        mask = kernel.legal_mask(state, flags)
        after = np.empty_like(state)
        base = 6 * board.turn
        for i in range(6):
            if mask >> i & 1:
                captured = kernel.play(state, base + i, after, flags)
                moves[Move(base + i)] = int(captured + sign * values[_slot(after, offsets)])
    best = max(moves, key=lambda move: (moves[move], -move)) if moves else None
    return Solution(int(sign * values[_slot(state, offsets)]), best, moves, int(count))


@nb.njit(cache=True)
def _solve_every(most, flags):
    """South's margin of every position with at most ``most`` seeds, by slot."""
    offsets = _offsets(most)
    every = np.ones(2 * offsets[most + 1], dtype=np.uint8)
    values = np.zeros(len(every), dtype=np.int8)
    for seeds in range(most + 1):
        _solve_layer(seeds, every, values, offsets, flags)
    return offsets, values


@nb.njit(cache=True)
def south_margin(state, offsets, values):
    """South's margin at ``state`` from a :func:`margin_table` (its seeds within the table)."""
    return np.int64(values[_slot(state, offsets)])


def margin_table(flags: int, max_seeds: int) -> tuple[np.ndarray, np.ndarray]:
    """South's margin (as :func:`solve`'s value, from South's view) of every position
    with at most ``max_seeds`` seeds on the board under the moves and ends of the
    rule set whose :meth:`~gameclub.awele.rules.RuleSet.kernel_flags` are ``flags``,
    as ``(offsets, values)`` for :func:`south_margin`: a byte a position.

    A repetition, and play that stays in a cycle, is worth 0 here whatever the
    rule set's repetition end: exact for ``awele`` and ``awari``, and under a rule
    set whose repetition end depends on the position (``oware``: each takes his
    own row) an approximation that an engine may still use to judge endgames."""
    if not 0 <= max_seeds <= 48:
        raise ValueError(f"a margin table holds 0 to 48 seeds, not {max_seeds}")
    offsets, values = _solve_every(max_seeds, flags)
    return offsets, values
