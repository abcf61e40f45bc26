"""Numba kernels for Awele: sowing, capture, legality, game ends, perft and random playouts.

These are the fast path behind :class:`gameclub.awele.board.Board` (whose plain
Python is the readable reference) for perft, playouts, solvers and engine
searches; an engine calls them from its own ``@njit`` code.

State layout
------------
A position is a ``numpy.uint8`` array of :data:`STATE_SIZE` (15) entries:

====== ===============================================================
index  content
====== ===============================================================
0-5    South's pits A-F (South's left to right, counter-clockwise)
6-11   North's pits a-f (North's left to right, continuing the round)
12     South's store (:data:`SOUTH_STORE`)
13     North's store (:data:`NORTH_STORE`)
14     side to move, 0 South, 1 North (:data:`SIDE`)
====== ===============================================================

This is Aalina's position text in the same order (``4-4-...-0-0-S``). A move
is an *absolute* pit index 0-11 (South's ``A`` is 0, North's ``a`` is 6); a
legal-move mask holds bit ``i`` for the mover's ``i``-th pit (its letter is
``"ABCDEF"[i]`` or ``"abcdef"[i]``), i.e. pit ``6 * side + i``.

Rule flags
----------
The options the kernels need are packed in one ``int64`` ``flags``
(:meth:`gameclub.awele.rules.RuleSet.kernel_flags`): the grand-slam policy
(:data:`GS_CAPTURE`, :data:`GS_NO_CAPTURE`, :data:`GS_FORBIDDEN`, mask
:data:`GS_MASK`), the feeding obligation (:data:`FEED_NONE`,
:data:`FEED_REQUIRED`, :data:`FEED_IF_POSSIBLE`, mask :data:`FEED_MASK`),
:data:`STUCK_EITHER` and :data:`COLLECT_AT_MAJORITY`. Repetition needs the game's
history, so it is not a flag: the kernels that walk a tree or a game take the
number of occurrences that end a game (``repetition_count``, 0 for none) and
keep :func:`position_key` values along the line.

Functions (all ``@njit``; ``state`` and ``out`` are uint8 arrays as above)
--------------------------------------------------------------------------
``play(state, pit, out, flags) -> int``
    Write into ``out`` the position after the side to move sows ``pit``
    (absolute, assumed legal) and captures; return the seeds captured.
    ``state`` is not changed; ``out`` may not be ``state``.
``legal_mask(state, flags) -> int``
    The mover's legal pits as a 6-bit mask; 0 when he has none (the game is
    over unless a store already ended it).
``end_kind(state, flags) -> int``
    :data:`ONGOING`, or why the game is over at this position, repetition
    aside: :data:`END_MAJORITY` (a store holds 25), :data:`END_DRAW` (24-24),
    :data:`END_STUCK` (the player to move has no seed; with ``STUCK_EITHER``
    also when the other row is empty), :data:`END_NO_FEED` (no move feeds an
    empty opponent under ``FEED_REQUIRED``).
``final_stores(state, flags, kind, repetition_share_equal, odd_seed) -> (int, int)``
    The final (South, North) score of a game that ended at ``state``.
``position_key(state) -> uint64``
    A Zobrist key of the 12 pits and the side to move (not the stores: a
    repetition is looked for only since the last capture).
``seeds_on_board(state) -> int``
    The seeds in the 12 pits (the layer of an endgame database).
``perft(state, depth, flags, repetition_count, history) -> int``
    Leaves ``depth`` plies below ``state``; ``history`` holds the keys of the
    game's positions since the last capture, ending with ``state``'s own.
``playouts(state, games, seed, flags, repetition_count, share_equal, max_plies)``
    Play ``games`` uniformly random games from ``state``; return
    ``(plies, south_wins, north_wins)``.
``random_game(state, seed, flags, repetition_count, max_plies, moves, states) -> (plies, kind)``
    Play one seeded random game, writing each move and each position after it.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from gameclub.awele.zobrist import ZOBRIST_PITS, ZOBRIST_SIDE

STATE_SIZE = 15
SOUTH_STORE = 12
NORTH_STORE = 13
SIDE = 14
PITS = 12
ROW = 6

GS_CAPTURE = 0
GS_NO_CAPTURE = 1
GS_FORBIDDEN = 2
GS_MASK = 3
FEED_NONE = 0
FEED_REQUIRED = 4
FEED_IF_POSSIBLE = 8
FEED_MASK = 12
STUCK_EITHER = 16
COLLECT_AT_MAJORITY = 32

ONGOING = 0
END_MAJORITY = 1
END_DRAW = 2
END_STUCK = 3
END_NO_FEED = 4
END_REPETITION = 5

ODD_NOBODY = 0
ODD_TO_MOVE = 1
ODD_OPPONENT = 2

WINNING_STORE = 25
DRAWN_STORE = 24



@nb.njit(cache=True, inline="always")
def _sown(state, pit, seeds, j):
    """Seeds in pit ``j`` after ``seeds`` are sown from ``pit`` (``j != pit``)."""
    laps, rest = divmod(seeds, 11)
    distance = (j - pit) % PITS
    return state[j] + laps + (1 if distance <= rest else 0)


@nb.njit(cache=True, inline="always")
def _last_pit(pit, seeds):
    # The pit it starts from is skipped, so a lap is 11 pits.
    return (pit + (seeds - 1) % 11 + 1) % PITS


@nb.njit(cache=True)
def _captures_whole_row(state, pit):
    """Whether sowing ``pit`` would capture every seed left in the opponent's row."""
    seeds = state[pit]
    side = state[SIDE]
    low = ROW - ROW * side
    last = _last_pit(pit, seeds)
    if not low <= last < low + ROW:
        return False
    for j in range(last + 1, low + ROW):
        if _sown(state, pit, seeds, j) != 0:
            return False
    for j in range(last, low - 1, -1):
        count = _sown(state, pit, seeds, j)
        if count < 2 or count > 3:
            return False
    return True


@nb.njit(cache=True)
def row_seeds(state, side):
    """Seeds in ``side``'s row."""
    total = 0
    for j in range(ROW * side, ROW * side + ROW):
        total += state[j]
    return total


@nb.njit(cache=True)
def seeds_on_board(state):
    total = 0
    for j in range(PITS):
        total += state[j]
    return total


@nb.njit(cache=True)
def play(state, pit, out, flags):
    for j in range(STATE_SIZE):
        out[j] = state[j]
    seeds = np.int64(state[pit])
    side = np.int64(state[SIDE])
    out[pit] = 0
    laps, rest = divmod(seeds, 11)
    if laps:
        for j in range(PITS):
            if j != pit:
                out[j] += laps
    for d in range(1, rest + 1):
        out[(pit + d) % PITS] += 1
    last = _last_pit(pit, seeds)
    low = ROW - ROW * side
    captured = 0
    if low <= last < low + ROW:
        k = last
        while k >= low and 2 <= out[k] <= 3:
            captured += out[k]
            k -= 1
        if captured and (flags & GS_MASK) == GS_NO_CAPTURE and k < low:
            rest_of_row = 0
            for j in range(last + 1, low + ROW):
                rest_of_row += out[j]
            if rest_of_row == 0:
                captured = 0  # a grand slam: played, nothing taken
        if captured:
            for j in range(k + 1, last + 1):
                out[j] = 0
            out[SOUTH_STORE + side] += captured
    out[SIDE] = 1 - side
    return captured


@nb.njit(cache=True)
def legal_mask(state, flags):
    side = np.int64(state[SIDE])
    base = ROW * side
    mask = 0
    for i in range(ROW):
        if state[base + i]:
            mask |= 1 << i
    if mask == 0:
        return 0
    grand_slam = flags & GS_MASK
    feeding = flags & FEED_MASK
    if grand_slam != GS_FORBIDDEN and feeding == FEED_NONE:
        return mask
    opponent = row_seeds(state, 1 - side)
    if opponent and grand_slam != GS_FORBIDDEN:
        return mask
    allowed = 0
    for i in range(ROW):
        if not mask >> i & 1:
            continue
        if opponent == 0 and feeding != FEED_NONE and state[base + i] <= ROW - 1 - i:
            continue  # does not reach the opponent's row
        if grand_slam == GS_FORBIDDEN and _captures_whole_row(state, base + i):
            continue
        allowed |= 1 << i
    if allowed:
        return allowed
    if feeding == FEED_REQUIRED and opponent == 0:
        return 0
    # Every move leaves the opponent without seeds: then any move is allowed.
    return mask


@nb.njit(cache=True)
def end_kind(state, flags):
    south = state[SOUTH_STORE]
    north = state[NORTH_STORE]
    if south >= WINNING_STORE or north >= WINNING_STORE:
        return END_MAJORITY
    if south == DRAWN_STORE and north == DRAWN_STORE:
        return END_DRAW
    side = np.int64(state[SIDE])
    if row_seeds(state, side) == 0:
        return END_STUCK
    if flags & STUCK_EITHER and row_seeds(state, 1 - side) == 0:
        return END_STUCK
    if legal_mask(state, flags) == 0:
        return END_NO_FEED
    return ONGOING


@nb.njit(cache=True)
def final_stores(state, flags, kind, repetition_share_equal, odd_seed):
    south = np.int64(state[SOUTH_STORE])
    north = np.int64(state[NORTH_STORE])
    south_row = row_seeds(state, 0)
    north_row = row_seeds(state, 1)
    if kind == END_REPETITION and repetition_share_equal:
        left = south_row + north_row
        half = left // 2
        south += half
        north += half
        if left % 2 and odd_seed != ODD_NOBODY:
            to_south = (state[SIDE] == 0) == (odd_seed == ODD_TO_MOVE)
            if to_south:
                south += 1
            else:
                north += 1
        return south, north
    if kind in (END_MAJORITY, END_DRAW) and not flags & COLLECT_AT_MAJORITY:
        return south, north
    # A stuck player's row is empty, so each taking his own row gives the seeds
    # left to the opponent; under FEED_REQUIRED the mover keeps his own row.
    return south + south_row, north + north_row


@nb.njit(cache=True)
def position_key(state):
    key = ZOBRIST_SIDE if state[SIDE] else np.uint64(0)
    for j in range(PITS):
        key ^= ZOBRIST_PITS[j, state[j]]
    return key


@nb.njit(cache=True)
def _repeats(keys, window, top, key, repetition_count):
    """Whether ``key``, about to be pushed at ``top + 1``, makes ``repetition_count``."""
    if repetition_count == 0:
        return False
    seen = 1
    # The side to move is in the key, so same-side positions are every other one.
    for k in range(top - 1, window - 1, -2):
        if keys[k] == key:
            seen += 1
            if seen >= repetition_count:
                return True
    return False


@nb.njit(cache=True)
def _bit_count(mask):
    count = 0
    while mask:
        count += mask & 1
        mask >>= 1
    return count


@nb.njit(cache=True)
def _perft(states, keys, ply, top, window, depth, flags, repetition_count):
    state = states[ply]
    if end_kind(state, flags) != ONGOING:
        return np.int64(0)
    mask = legal_mask(state, flags)
    if depth == 1:
        # Every child is a leaf, whatever ends the game there.
        return np.int64(_bit_count(mask))
    total = np.int64(0)
    base = ROW * np.int64(state[SIDE])
    child = states[ply + 1]
    for i in range(ROW):
        if not mask >> i & 1:
            continue
        captured = play(state, base + i, child, flags)
        key = position_key(child)
        child_window = top + 1 if captured else window
        if not captured and _repeats(keys, window, top, key, repetition_count):
            continue  # the game ends here, above the counted depth
        keys[top + 1] = key
        total += _perft(states, keys, ply + 1, top + 1, child_window, depth - 1, flags,
                        repetition_count)
    return total


@nb.njit(cache=True)
def perft(state, depth, flags, repetition_count, history):
    if depth == 0:
        return np.int64(1)
    states = np.empty((depth + 1, STATE_SIZE), dtype=np.uint8)
    states[0] = state
    n = len(history)
    keys = np.empty(n + depth + 1, dtype=np.uint64)
    keys[:n] = history
    return _perft(states, keys, 0, n - 1, 0, depth, flags, repetition_count)


@nb.njit(cache=True)
def _nth_bit(mask, n):
    for i in range(ROW):
        if mask >> i & 1:
            if n == 0:
                return i
            n -= 1
    return -1


@nb.njit(cache=True)
def random_game(state, seed, flags, repetition_count, max_plies, moves, states):
    np.random.seed(seed)
    keys = np.empty(max_plies + 1, dtype=np.uint64)
    current = state.copy()
    keys[0] = position_key(current)
    window = 0
    for ply in range(max_plies):
        kind = end_kind(current, flags)
        if kind != ONGOING:
            return ply, kind
        mask = legal_mask(current, flags)
        i = _nth_bit(mask, np.random.randint(0, _bit_count(mask)))
        pit = ROW * np.int64(current[SIDE]) + i
        child = states[ply]
        captured = play(current, pit, child, flags)
        moves[ply] = pit
        key = position_key(child)
        repeated = not captured and _repeats(keys, window, ply, key, repetition_count)
        keys[ply + 1] = key
        if captured:
            window = ply + 1
        current[:] = child
        if repeated:
            return ply + 1, END_REPETITION
    return max_plies, ONGOING


@nb.njit(cache=True)
def playouts(state, games, seed, flags, repetition_count, share_equal, max_plies):
    moves = np.empty(max_plies, dtype=np.int64)
    states = np.empty((max_plies, STATE_SIZE), dtype=np.uint8)
    plies = 0
    south_wins = 0
    north_wins = 0
    for game in range(games):
        n, kind = random_game(state, seed + game, flags, repetition_count, max_plies,
                              moves, states)
        plies += n
        last = states[n - 1] if n else state
        south, north = final_stores(last, flags, kind, share_equal, ODD_NOBODY)
        if south > north:
            south_wins += 1
        elif north > south:
            north_wins += 1
    return plies, south_wins, north_wins
