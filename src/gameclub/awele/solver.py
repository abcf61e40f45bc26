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

How: every position reachable from the root is enumerated (found by its
rank among all positions with at most as many seeds: the endgame databases'
index of :mod:`gameclub.awele.layers`), grouped into layers by seeds on the
board (a capture moves to a lower layer), and each layer is solved from the
lowest up. Within a layer, for each threshold ``t`` the positions where
South can force a margin of at least ``t`` are found as an attractor (a
retrograde sweep with move counters), where a move out of the layer has a
known value and play that stays in the layer for ever is worth 0. Rule sets
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
def _enumerate(root, flags):
    """Every position reachable from ``root``: states, children, captures, end values."""
    # Positions are found by their rank in a dense index of every position with
    # as many seeds as the root or fewer: exact, and one memory access each.
    most = kernel.seeds_on_board(root)
    offsets = np.zeros(most + 2, dtype=np.int64)
    for seeds in range(most + 1):
        offsets[seeds + 1] = offsets[seeds] + _BINOMIALS[seeds + 11, 11]
    found_at = np.full(2 * offsets[most + 1], -1, dtype=np.int32)
    capacity = 1 << 15
    states = np.empty((capacity, kernel.STATE_SIZE), dtype=np.uint8)
    children = np.full((capacity, 6), -1, dtype=np.int64)
    captures = np.zeros((capacity, 6), dtype=np.int64)
    ends = np.empty(capacity, dtype=np.int64)
    states[0] = root
    states[0, kernel.SOUTH_STORE] = 0
    states[0, kernel.NORTH_STORE] = 0
    found_at[_slot(states[0], offsets)] = 0
    count = 1
    head = 0
    current = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    child = np.empty(kernel.STATE_SIZE, dtype=np.uint8)
    while head < count:
        current[:] = states[head]
        end = _end_value(current, flags)
        ends[head] = end
        if end == _ONGOING:
            mask = kernel.legal_mask(current, flags)
            base = kernel.ROW * np.int64(current[kernel.SIDE])
            for i in range(6):
                if not mask >> i & 1:
                    continue
                captures[head, i] = kernel.play(current, base + i, child, flags)
                slot = _slot(child, offsets)
                found = np.int64(found_at[slot])
                if found < 0:
                    if count == capacity:
                        capacity *= 2
                        grown = np.empty((capacity, kernel.STATE_SIZE), dtype=np.uint8)
                        grown[:count] = states[:count]
                        states = grown
                        grown_children = np.full((capacity, 6), -1, dtype=np.int64)
                        grown_children[:count] = children[:count]
                        children = grown_children
                        grown_captures = np.zeros((capacity, 6), dtype=np.int64)
                        grown_captures[:count] = captures[:count]
                        captures = grown_captures
                        grown_ends = np.empty(capacity, dtype=np.int64)
                        grown_ends[:count] = ends[:count]
                        ends = grown_ends
                    states[count] = child
                    found_at[slot] = count
                    found = count
                    count += 1
                children[head, i] = found
        head += 1
    return states[:count], children[:count], captures[:count], ends[:count]


@nb.njit(cache=True)
def _solve_layers(states, children, captures, ends):
    """South's margin of every enumerated position (see the module docstring)."""
    n = len(states)
    seeds = np.empty(n, dtype=np.int64)
    for p in range(n):
        seeds[p] = kernel.seeds_on_board(states[p])
    # Renumber the positions layer by layer, so that each layer is one run of
    # the arrays and the sweeps below read memory in order.
    order = np.argsort(seeds, kind="mergesort")
    renumbered = np.empty(n, dtype=np.int64)
    for k in range(n):
        renumbered[order[k]] = k
    side = np.empty(n, dtype=np.int64)
    child = np.full((n, 6), -1, dtype=np.int64)
    capture = np.zeros((n, 6), dtype=np.int64)
    end = np.empty(n, dtype=np.int64)
    layer_of = np.empty(n, dtype=np.int64)
    for k in range(n):
        old = order[k]
        side[k] = states[old, kernel.SIDE]
        end[k] = ends[old]
        layer_of[k] = seeds[old]
        for i in range(6):
            if children[old, i] >= 0:
                child[k, i] = renumbered[children[old, i]]
                capture[k, i] = captures[old, i]
    values = np.zeros(n, dtype=np.int64)
    exit_margin = np.zeros((n, 6), dtype=np.int64)
    in_attractor = np.zeros(n, dtype=np.bool_)
    counters = np.zeros(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    start = 0
    while start < n:
        layer_seeds = layer_of[start]
        stop = start
        while stop < n and layer_of[stop] == layer_seeds:
            stop += 1
        size = stop - start
        # Moves out of the layer (captures) have known values; predecessors
        # inside the layer, as compressed rows.
        degree = np.zeros(size + 1, dtype=np.int64)
        for p in range(start, stop):
            sign = 1 if side[p] == 0 else -1
            for i in range(6):
                c = child[p, i]
                if c < 0:
                    continue
                if capture[p, i]:
                    exit_margin[p, i] = sign * capture[p, i] + values[c]
                else:
                    degree[c - start] += 1
        first = np.zeros(size + 1, dtype=np.int64)
        for k in range(size):
            first[k + 1] = first[k] + degree[k]
        fill = first.copy()
        predecessors = np.empty(first[size], dtype=np.int64)
        for p in range(start, stop):
            for i in range(6):
                c = child[p, i]
                if c >= 0 and capture[p, i] == 0:
                    predecessors[fill[c - start]] = p
                    fill[c - start] += 1
        for p in range(start, stop):
            values[p] = end[p] if end[p] != _ONGOING else -layer_seeds
        # Thresholds from 1 up while South still reaches one, then from 0 down
        # while North can still push some position below it: only the range
        # the layer's values span is swept.
        stopped_up = False
        for step in range(2 * layer_seeds):
            t = 1 + step if step < layer_seeds else layer_seeds - step
            if t > 0 and stopped_up:
                continue
            # South wins at threshold t if the margin reaches t. For t <= 0 play
            # that stays in the layer wins for South, so North must force a way
            # out below t: find North's attractor. For t > 0 South must force a
            # way out at t or more: find South's attractor.
            attacker = 1 if t <= 0 else 0
            tail = 0
            for p in range(start, stop):
                in_attractor[p] = False
                if end[p] != _ONGOING:
                    if (end[p] >= t) == (attacker == 0):
                        in_attractor[p] = True
                        queue[tail] = p
                        tail += 1
                    continue
                reached = 0
                moves = 0
                for i in range(6):
                    if child[p, i] < 0:
                        continue
                    moves += 1
                    if capture[p, i] and (exit_margin[p, i] >= t) == (attacker == 0):
                        reached += 1
                if side[p] == attacker:
                    if reached:
                        in_attractor[p] = True
                        queue[tail] = p
                        tail += 1
                else:
                    # The defender escapes by any move that does not hand the
                    # attacker his goal; inside the layer he must avoid the attractor.
                    counters[p] = moves - reached
                    if counters[p] == 0:
                        in_attractor[p] = True
                        queue[tail] = p
                        tail += 1
            head = 0
            while head < tail:
                c = queue[head]
                head += 1
                for k in range(first[c - start], first[c - start + 1]):
                    p = predecessors[k]
                    if in_attractor[p]:
                        continue
                    if side[p] == attacker:
                        in_attractor[p] = True
                        queue[tail] = p
                        tail += 1
                    else:
                        counters[p] -= 1
                        if counters[p] == 0:
                            in_attractor[p] = True
                            queue[tail] = p
                            tail += 1
            members = 0
            for p in range(start, stop):
                if end[p] != _ONGOING:
                    continue
                if attacker == 0:
                    if in_attractor[p]:
                        values[p] = t  # South reaches t; higher t come later
                        members += 1
                else:
                    if in_attractor[p]:
                        members += 1  # North holds it below t
                    elif values[p] < t:
                        values[p] = t
            if members == 0:
                if t > 0:
                    stopped_up = True
                else:
                    break  # nothing lies below t, so nothing below any lower t
        start = stop
    result = np.empty(n, dtype=np.int64)
    for k in range(n):
        result[order[k]] = values[k]
    return result


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
#: reachable from 12 seeds are about 3.8 million (1.5 GB); each more seed
#: multiplies them by about 2.
MAX_SEEDS = 12


def solve(board: Board, max_seeds: int = MAX_SEEDS) -> Solution:
    """Solve ``board``'s position exactly under its rule set (see the module docstring).

    Refuses (``ValueError``) a position with more than ``max_seeds`` seeds on the
    board: every position reachable from it is held in memory."""
    if board.seeds_on_board() > max_seeds:
        raise ValueError(
            f"{board.seeds_on_board()} seeds on the board is more than {max_seeds}: solve holds "
            "every reachable position in memory (about 3.8 million, 1.5 GB, at 12 seeds, "
            "doubling with each seed); raise the limit to try anyway"
        )
    rules = board.rules
    if rules.repetition_share is not RepetitionShare.EQUAL or rules.odd_seed is not OddSeed.NOBODY:
        raise InvalidRulesError(
            f"rule set {rules.name!r}: its repetition end does not share the seeds left "
            "equally, so a position's value depends on the game's history; solve needs "
            "an equal share with no odd seed (awele, awari)"
        )
    flags = rules.kernel_flags()
    states, children, captures, ends = _enumerate(board.kernel_state(), flags)
    values = _solve_layers(states, children, captures, ends)
    sign = 1 if board.turn == 0 else -1
    moves: dict[Move, int] = {}
    if ends[0] == _ONGOING:
        base = 6 * board.turn
        for i in range(6):
            c = children[0, i]
            if c >= 0:
                moves[Move(base + i)] = int(captures[0, i] + sign * values[c])
    best = max(moves, key=lambda move: (moves[move], -move)) if moves else None
    return Solution(int(sign * values[0]), best, moves, len(states))
