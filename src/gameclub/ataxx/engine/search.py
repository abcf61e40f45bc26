"""The ``master`` search: iterative deepening over a numba PVS kernel.

The kernel is one fixed-depth principal-variation search written as a loop over
explicit per-ply stacks (numba cannot reload a cached recursive function), so it
is compiled once to the on-disk cache and starts fast. Python drives iterative
deepening, aspiration windows, time management and the hand-over to the exact
endgame solver; the kernel reads a shared ``control`` array to stop at once.

Search features, each kept because it pays at equal time (see docs/engine.md):
transposition table; a cache of the network's scores; ordering by TT move, then
flips (clones before jumps, a jump that leaves friendly pieces exposed later),
killers and history; PVS null windows;
late-move reductions from a log-log table of depth and move number, less for moves
with a good (bounded) history; aspiration windows; a static cut-off (reverse
futility) up to depth 6 and, below the root, no jumps that take nothing after the
first two moves, and late futility (up to depth 6, once three moves are searched, no
more moves when the static score is far below alpha). Null-move pruning, futility
pruning by move, late move pruning, singular extensions with multi-cut, a static
score bounded by the table's and an "improving" static cut-off are written and
measured but off by default (``MasterSearch.options``): they did not pay.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import (
    CLONE_FROM,
    MAX_MOVES,
    PASS_MOVE,
    SINGLES,
    generate_moves,
    make_move,
    pick_next,
    popcount,
)
from gameclub.ataxx.engine import nnue
from gameclub.ataxx.engine.evaluate import evaluate
from gameclub.ataxx.engine.terminal import (
    NOT_OVER,
    by_count,
    decisive_end,
    extend_pv,
    position_hash,
    returns_to_earlier,
)
from gameclub.ataxx.engine.timeman import TimeRule
from gameclub.tt import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, NO_MOVE, tt_probe, tt_store

if TYPE_CHECKING:
    from gameclub.ataxx.board import Board
    from gameclub.ataxx.engine import InfoCallback, SearchLimits, SearchResult
    from gameclub.ataxx.engine.nnue import Network

MAX_PLY = 96
INF = 32000
#: a proven win ``n`` plies from the root scores ``MATE - n``.
MATE = 30000
MATE_BOUND = MATE - 1000

# The static evaluation a search kernel uses (its ``use_net``).
NET_NONE = 0
#: a piece-square network, its accumulators updated from ply to ply.
NET_PIECE_SQUARE = 1
#: a tuple network, summed afresh at each evaluation.
NET_TUPLES = 2

# options[] switches, so that each pruning can be measured on and off.
OPT_NULL_MOVE = 0
#: 0 off, 1 mild (one ply, two for late moves), 2 by move number (up to half the depth),
#: 3 from a table growing with log(depth) * log(move number) (``_LMR_TABLE``).
OPT_LMR = 1
#: futility margin in centipawns per ply of depth at frontier nodes (0 = off).
OPT_FUTILITY = 2
#: reverse-futility margin per ply: a quiet node whose static score beats beta by it returns.
OPT_STATIC_CUT = 3
#: N > 0: below the root, once N moves are searched, skip jumps that take nothing.
OPT_QUIET_JUMPS = 4
#: futility and the static cut-off apply at nodes with at most this depth left.
OPT_PRUNE_DEPTH = 5
#: N > 0: internal iterative reduction, one ply less at nodes of depth >= N below the
#: root that have no move from the transposition table.
OPT_IIR = 6
#: 1: late-move reductions one ply smaller at PV nodes.
OPT_LMR_PV = 7
#: 1: on a cut-off, the moves searched before the cutting one lose history.
OPT_HISTORY_MALUS = 8
#: N > 0: late move pruning: at null-window nodes of depth <= 3 below the root, once
#: N * depth moves are searched, skip moves that take nothing.
OPT_LMP = 9
#: late-move reductions start at this move index.
OPT_LMR_INDEX = 10
#: late futility, at nodes below the root of depth <= ``OPT_LATE_FUTILITY_DEPTH`` (0 =
#: off): once three moves are searched, stop when the static score plus
#: ``OPT_LATE_FUTILITY`` plus ``OPT_LATE_FUTILITY_SLOPE`` per ply of depth is below alpha.
OPT_LATE_FUTILITY = 11
OPT_LATE_FUTILITY_SLOPE = 12
OPT_LATE_FUTILITY_DEPTH = 13
#: 1: history moves towards a bound ("gravity"): a bonus (or malus) of
#: ``min(300 * depth, 1500)`` scaled by how far the entry is from ``_HISTORY_MAX``.
OPT_HISTORY_GRAVITY = 14
#: N > 0: late-move reductions one ply smaller (larger) per N of history above (below) zero.
OPT_LMR_HISTORY = 15
#: N > 0: singular extensions at null-window nodes of depth >= N below the root: the
#: move from the transposition table is searched a ply deeper when a shallower search
#: of the others, excluding it, fails low against its score less a margin; one ply less
#: when its score is at least beta anyway; and the node returns (multi-cut) when the
#: others beat the margin and it is at least beta.
OPT_SINGULAR = 16
#: 1: the static score that the pruning decisions read is bounded by the
#: transposition table's score where the entry's bound says it is the better guess
#: (a lower bound above the static score, an upper bound below it, an exact score).
OPT_TT_EVAL = 17
#: 1: the static score is taken at every node below the root, and where it is above
#: the score two plies up (the side to move is "improving") the static cut-off's
#: margin is one ply's smaller.
OPT_IMPROVING = 18
N_OPTIONS = 19
#: the switches by the names benchmarks/selfplay.py and the tests give them.
SWITCHES = {
    "nullmove": OPT_NULL_MOVE, "lmr": OPT_LMR, "futility": OPT_FUTILITY,
    "staticcut": OPT_STATIC_CUT, "quietjumps": OPT_QUIET_JUMPS,
    "prunedepth": OPT_PRUNE_DEPTH, "iir": OPT_IIR, "lmrpv": OPT_LMR_PV,
    "malus": OPT_HISTORY_MALUS, "lmp": OPT_LMP, "lmrindex": OPT_LMR_INDEX,
    "latefp": OPT_LATE_FUTILITY, "latefpslope": OPT_LATE_FUTILITY_SLOPE,
    "latefpdepth": OPT_LATE_FUTILITY_DEPTH, "gravity": OPT_HISTORY_GRAVITY,
    "lmrhistory": OPT_LMR_HISTORY, "singular": OPT_SINGULAR, "tteval": OPT_TT_EVAL,
    "improving": OPT_IMPROVING,
}
# stats[] outputs.
STAT_NODES = 0
STAT_SELDEPTH = 1
STAT_ABORTED = 2
STAT_ROOT_MOVE = 3
STAT_ROOT_SCORE = 4
STAT_PV_LEN = 5
#: the nodes searched under the root move that was best when the search ended.
STAT_BEST_NODES = 6
N_STATS = 7

# How a parent searched its current child, to decide on a re-search when it returns.
_FULL = 0
_NULL_WINDOW = 1
_REDUCED = 2
_NULL_MOVE = 3
#: the verification search of a singular extension: the same position, one move excluded.
_SINGULAR = 4

_ENTER = 0
_NEXT = 1
_RETURN = 2

# Null move needs enough empty squares: near the end, passing would often be best.
_NULL_MIN_EMPTY = 14
_LMR_MIN_DEPTH = 3
#: the default first reduced move (``OPT_LMR_INDEX``): the third.
_LMR_MIN_INDEX = 2
#: reductions of ``OPT_LMR`` 3 by [depth][move index]: ``round(0.8 + 0.4 ln(depth)
#: ln(index + 1))``, at most depth - 2 (a reduced search never drops to the leaves).
_LMR_TABLE = np.array(
    [[max(0, min(d - 2, round(0.8 + 0.4 * math.log(max(d, 1)) * math.log(i + 1))))
      for i in range(64)] for d in range(64)], dtype=np.int64)
#: the evaluation's scale: one average piece in the middle game.
_PIECE_CP = 100
#: entries of the network's evaluation cache (a power of two; 8 bytes each). A
#: network's score costs ~150 ns, and a search scores positions it scored before
#: (earlier iterations, transpositions): 23% of the evaluations of a 200,000-node
#: search hit, for 9% more nodes a second (4x the entries hit more, and cost more
#: in cache misses than they saved). An entry packs the position's hash (its top
#: 48 bits) with the score (16 bits).
EVAL_CACHE_ENTRIES = 1 << 16
_EVAL_SHIFT = np.uint64(16)
_EVAL_MASK = np.uint64(0xFFFF)
#: scores are stored offset to be positive (they lie within +-nnue.EVAL_LIMIT).
_EVAL_OFFSET = 1 << 15

#: the bound of history entries under ``OPT_HISTORY_GRAVITY``.
_HISTORY_MAX = 16384


@njit(inline="always", cache=True)
def _history_index(move):
    frm = move >> 8
    return (64 if frm == CLONE_FROM else frm), move & 0xFF


@njit(inline="always", cache=True)
def _history_moved(entry, delta, gravity):
    """A history entry after a bonus (``delta > 0``) or a malus: under ``gravity`` the
    change shrinks as the entry nears ``+-_HISTORY_MAX``; otherwise a malus stops at
    ``-(1 << 22)``."""
    if gravity:
        return entry + delta - abs(delta) * entry // _HISTORY_MAX
    return max(entry + delta, -(1 << 22))


@njit(inline="always", cache=True)
def _push(ply, move, depth, alpha, beta, s_us, s_them, s_color, s_clock, s_hash,
          s_depth, s_alpha, s_beta, s_move, s_ready):
    """Set up the child of ``ply`` reached by ``move``.

    With the network the child's accumulators are left to :func:`_net_ready`: a child
    cut by the table or ended by the rules never needs them.
    """
    us = s_us[ply]
    them = s_them[ply]
    clock = s_clock[ply] + 1
    if move != PASS_MOVE:
        if move >> 8 == CLONE_FROM:
            clock = 0
        us, them = make_move(us, them, move)
    c = ply + 1
    s_move[c] = move
    s_ready[c] = 0
    s_us[c] = them
    s_them[c] = us
    s_color[c] = 1 - s_color[ply]
    s_clock[c] = clock
    s_hash[c] = position_hash(them, us, 1 - s_color[ply])
    s_depth[c] = depth
    s_alpha[c] = alpha
    s_beta[c] = beta


@njit(inline="always", cache=True)
def _net_ready(ply, s_acc, s_ready, s_move, s_them, s_color, rows, flip):
    """Bring the accumulators of ``ply`` up to date from the nearest ready ancestor.

    The root's are always ready; every ply on the current path keeps its own until a
    new child replaces it, so the updates skipped at pruned children are never paid.
    """
    q = ply
    while not s_ready[q]:
        q -= 1
    while q < ply:
        nnue.update(s_acc[q], s_acc[q + 1], s_them[q], s_color[q], s_move[q + 1], rows, flip)
        q += 1
        s_ready[q] = 1


@njit(inline="always", cache=True)
def _static(us, them, playable, masks, w_open, w_end, use_net, s_acc, ply, color, w2, b2,
            net_scale, s_ready, s_move, s_them, s_color, rows, b1, flip, h, eval_cache):
    if use_net == NET_NONE:
        return evaluate(us, them, playable, masks, w_open, w_end)
    # A network's score is looked up first: the same leaves come back at each
    # iteration and by transposition (see EVAL_CACHE_ENTRIES).
    slot = h & np.uint64(len(eval_cache) - 1)
    entry = eval_cache[slot]
    if (entry ^ h) >> _EVAL_SHIFT == 0 and entry != 0:
        return np.int64(entry & _EVAL_MASK) - _EVAL_OFFSET
    if use_net == NET_PIECE_SQUARE:
        _net_ready(ply, s_acc, s_ready, s_move, s_them, s_color, rows, flip)
        score = nnue.evaluate(s_acc[ply], color, w2, b2, net_scale)
    else:
        # b1 is the board's starting vector (Network.base); s_acc[0, 0] is scratch.
        score = nnue.evaluate_tuples(us, them, rows, b1, w2, b2, net_scale, s_acc[0, 0])
    eval_cache[slot] = (h & ~_EVAL_MASK) | np.uint64(score + _EVAL_OFFSET)
    return score


@njit(inline="always", cache=True)
def _tt_bounded(static, bound, tt_score):
    """The static score, or the table's score where its bound makes that the better
    guess: a search proved the position worth at least (lower bound) or at most
    (upper bound) a score beyond the static one. Proven wins and losses are left out."""
    if bound == 0 or abs(tt_score) >= MATE_BOUND:
        return static
    if (bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_score > static)
            or (bound == BOUND_UPPER and tt_score < static)):
        return tt_score
    return static


@njit(cache=True, nogil=True)
def search_kernel(us0, them0, playable, color0, clock0, stuck, tie_second, fifty, repetition,
                  prior, depth0, alpha0, beta0, masks, w_open, w_end, tt_keys, tt_data,
                  generation, killers, history, control, max_nodes, options, pv_out,
                  stats, use_net, w1, b1, w2, b2, net_scale, flip, eval_cache):
    """Search the root to ``depth0`` in the window ``(alpha0, beta0)``; return its score.

    ``pv_out`` and ``stats`` receive the principal variation and the counters. When
    ``control[0]`` becomes non-zero or ``max_nodes`` is reached the search stops and
    sets ``stats[STAT_ABORTED]``; ``STAT_ROOT_MOVE`` then still holds the best root
    move proven so far in this iteration (or NO_MOVE). ``use_net`` chooses the static
    evaluation: ``NET_PIECE_SQUARE``, a piece-square network (``w1`` is
    ``Network.rows``; ``b1`` .. ``flip``, see :mod:`nnue`), its accumulators updated
    incrementally from ply to ply when a node needs them; ``NET_TUPLES``, a tuple
    network (``b1`` is ``Network.base`` of the board); ``NET_NONE``, the tapered
    linear evaluation. ``eval_cache`` keeps a network's scores by position hash
    (``EVAL_CACHE_ENTRIES``; its owner empties it for another network or board).
    """
    n = MAX_PLY + 2
    s_us = np.empty(n, dtype=np.uint64)
    s_them = np.empty(n, dtype=np.uint64)
    s_hash = np.empty(n, dtype=np.uint64)
    s_color = np.empty(n, dtype=np.int64)
    s_clock = np.empty(n, dtype=np.int64)
    s_depth = np.empty(n, dtype=np.int64)
    s_alpha = np.empty(n, dtype=np.int64)
    s_beta = np.empty(n, dtype=np.int64)
    s_orig_alpha = np.empty(n, dtype=np.int64)
    s_best = np.empty(n, dtype=np.int64)
    s_best_move = np.empty(n, dtype=np.int64)
    s_kind = np.empty(n, dtype=np.int64)
    s_cur = np.empty(n, dtype=np.int64)
    s_n = np.empty(n, dtype=np.int64)
    s_i = np.empty(n, dtype=np.int64)
    s_static = np.empty(n, dtype=np.int64)
    # Per ply: the move a singular verification search excludes (NO_MOVE: a normal node),
    # and what the transposition table held at the node.
    s_excluded = np.full(n, NO_MOVE, dtype=np.int64)
    s_tt_move = np.empty(n, dtype=np.int64)
    s_tt_bound = np.empty(n, dtype=np.int64)
    s_tt_score = np.empty(n, dtype=np.int64)
    s_tt_depth = np.empty(n, dtype=np.int64)
    moves = np.empty((n, MAX_MOVES), dtype=np.int64)
    keys = np.empty((n, MAX_MOVES), dtype=np.int64)
    pv = np.empty((n, n), dtype=np.int64)
    pv_len = np.zeros(n, dtype=np.int64)
    s_acc = np.empty((n if use_net == NET_PIECE_SQUARE else 1, 2, w1.shape[1]), dtype=np.int16)
    s_move = np.empty(n, dtype=np.int64)
    s_ready = np.zeros(n, dtype=np.int64)
    s_ready[0] = 1
    if use_net == NET_PIECE_SQUARE:
        nnue.refresh(us0, them0, playable, color0, w1, b1, s_acc[0])

    s_us[0] = us0
    s_them[0] = them0
    s_color[0] = color0
    s_clock[0] = clock0
    s_hash[0] = position_hash(us0, them0, color0)
    s_depth[0] = depth0
    s_alpha[0] = alpha0
    s_beta[0] = beta0
    stats[STAT_ABORTED] = 0
    stats[STAT_ROOT_MOVE] = NO_MOVE
    stats[STAT_ROOT_SCORE] = -INF
    stats[STAT_BEST_NODES] = 0
    nodes = 0
    root_start = 0
    seldepth = 0
    ply = 0
    mode = _ENTER
    ret = 0
    while True:
        if mode == _ENTER:
            nodes += 1
            if nodes > max_nodes or ((nodes & 1023) == 0 and control[0] != 0):
                stats[STAT_ABORTED] = 1
                nodes -= 1
                break
            pv_len[ply] = ply
            if ply > seldepth:
                seldepth = ply
            us = s_us[ply]
            them = s_them[ply]
            color = s_color[ply]
            result, _ = decisive_end(us, them, playable, color, stuck, tie_second)
            if result != NOT_OVER:
                ret = (MATE - ply) * result
                mode = _RETURN
                continue
            clock = s_clock[ply]
            if repetition and clock >= 4 and ply > 0 and returns_to_earlier(
                    s_hash, prior, ply, clock, s_hash[ply]):
                # Under the repetition rules a repeated position ends the game by count.
                r = by_count(popcount(us), popcount(them), color, tie_second)
                ret = (MATE - ply) * r
                mode = _RETURN
                continue
            if fifty > 0 and clock >= fifty:
                ret = 0
                mode = _RETURN
                continue
            depth = s_depth[ply]
            if depth <= 0 or ply >= MAX_PLY:
                ret = _static(us, them, playable, masks, w_open, w_end, use_net, s_acc, ply,
                              color, w2, b2, net_scale, s_ready, s_move, s_them, s_color, w1, b1,
                              flip, s_hash[ply], eval_cache)
                mode = _RETURN
                continue
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            bound, tt_move, tt_score, tt_depth = tt_probe(tt_keys, tt_data, s_hash[ply])
            if tt_score > MATE_BOUND:
                tt_score -= ply
            elif tt_score < -MATE_BOUND:
                tt_score += ply
            excluded = s_excluded[ply]
            s_tt_move[ply] = tt_move
            s_tt_bound[ply] = bound
            s_tt_score[ply] = tt_score
            s_tt_depth[ply] = tt_depth
            # A singular verification search shares its node's hash: the table's entry
            # is about all the moves, so it neither cuts the search nor is overwritten.
            if bound != 0 and ply > 0 and tt_depth >= depth and excluded == NO_MOVE and (
                bound == BOUND_EXACT
                or (bound == BOUND_LOWER and tt_score >= beta)
                or (bound == BOUND_UPPER and tt_score <= alpha)
            ):
                ret = tt_score
                mode = _RETURN
                continue
            if options[OPT_IIR] and ply > 0 and depth >= options[OPT_IIR] and tt_move == NO_MOVE:
                # Without a move from the table the ordering is a guess: a shallower
                # search costs less and leaves a move for the next iteration.
                depth -= 1
                s_depth[ply] = depth
            s_orig_alpha[ply] = alpha
            s_best[ply] = -INF
            s_best_move[ply] = NO_MOVE
            s_cur[ply] = tt_move
            empty = playable & ~(us | them)
            s_static[ply] = -INF
            prune = (
                depth <= options[OPT_PRUNE_DEPTH]
                and ply > 0
                and beta - alpha == 1
                and abs(alpha) < MATE_BOUND
                and excluded == NO_MOVE
                and (options[OPT_FUTILITY] or options[OPT_STATIC_CUT])
            )
            improving = 0
            if prune or (options[OPT_IMPROVING] and ply > 0 and excluded == NO_MOVE):
                static = _static(us, them, playable, masks, w_open, w_end, use_net, s_acc,
                                 ply, color, w2, b2, net_scale, s_ready, s_move, s_them,
                                 s_color, w1, b1, flip, s_hash[ply], eval_cache)
                if options[OPT_TT_EVAL]:
                    static = _tt_bounded(static, bound, tt_score)
                s_static[ply] = static
                # Two plies up is the same side to move, unless the parent is a
                # singular verification frame (the same position one ply up).
                if (options[OPT_IMPROVING] and ply >= 2 and s_excluded[ply - 1] == NO_MOVE
                        and s_static[ply - 2] > -INF and static > s_static[ply - 2]):
                    improving = 1
            if prune and options[OPT_STATIC_CUT]:
                margin = options[OPT_STATIC_CUT] * (depth - improving)
                if s_static[ply] - margin >= beta:
                    # So far ahead that one reply is unlikely to matter (fail-soft return).
                    ret = s_static[ply] - margin
                    mode = _RETURN
                    continue
            if (
                options[OPT_NULL_MOVE]
                and ply > 0
                and depth >= 3
                and beta - alpha == 1
                and abs(beta) < MATE_BOUND
                and popcount(empty) >= _NULL_MIN_EMPTY
                and s_kind[ply - 1] != _NULL_MOVE
                and excluded == NO_MOVE
                and _static(us, them, playable, masks, w_open, w_end, use_net, s_acc, ply,
                            color, w2, b2, net_scale, s_ready, s_move, s_them, s_color, w1, b1,
                            flip, s_hash[ply], eval_cache) >= beta
            ):
                s_kind[ply] = _NULL_MOVE
                _push(ply, PASS_MOVE, depth - 3 - depth // 6, -beta, -beta + 1, s_us, s_them,
                      s_color, s_clock, s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
                ply += 1
                continue
            mode = _NEXT
            s_n[ply] = -1
            continue

        if mode == _NEXT:
            if s_n[ply] < 0:
                # Generate and score the moves (after the null move, if any, failed).
                us = s_us[ply]
                them = s_them[ply]
                empty = playable & ~(us | them)
                count = generate_moves(us, empty, moves[ply])
                if count == 0:
                    moves[ply, 0] = PASS_MOVE
                    keys[ply, 0] = 0
                    count = 1
                else:
                    tt_move = s_cur[ply]
                    k0 = killers[ply, 0]
                    k1 = killers[ply, 1]
                    for j in range(count):
                        m = moves[ply, j]
                        to = m & 0xFF
                        frm = m >> 8
                        gain = 2 * np.int64(popcount(SINGLES[to] & them))
                        if frm == CLONE_FROM:
                            gain += 2
                        else:
                            # A jump empties its square: friendly pieces around it can be retaken.
                            gain -= 1 + np.int64(popcount(SINGLES[frm] & us & ~SINGLES[to])) // 2
                        hf, ht = _history_index(m)
                        key = (gain + 20) << 24
                        key += max(min(history[hf, ht], (1 << 22) - 1), -(1 << 22))
                        if m == tt_move:
                            key = np.int64(1) << 40
                        elif m in (k0, k1):
                            key += 1 << 23
                        keys[ply, j] = key
                s_n[ply] = count
                s_i[ply] = 0
            i = s_i[ply]
            count = s_n[ply]
            if i >= count:
                best = s_best[ply]
                bound = BOUND_UPPER if best <= s_orig_alpha[ply] else BOUND_EXACT
                stored = best
                if stored > MATE_BOUND:
                    stored += ply
                elif stored < -MATE_BOUND:
                    stored -= ply
                if s_excluded[ply] == NO_MOVE:
                    tt_store(tt_keys, tt_data, s_hash[ply], bound,
                             s_best_move[ply] if bound == BOUND_EXACT else NO_MOVE,
                             stored, s_depth[ply], generation)
                ret = best
                mode = _RETURN
                continue
            m = pick_next(moves, keys, ply, i, count)
            s_i[ply] = i + 1
            s_cur[ply] = m
            if ply == 0:
                root_start = nodes
            if m == s_excluded[ply]:
                continue
            depth = s_depth[ply]
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            if (options[OPT_SINGULAR] and ply > 0 and m == s_tt_move[ply] and m != PASS_MOVE
                    and s_excluded[ply] == NO_MOVE and beta - alpha == 1
                    and depth >= options[OPT_SINGULAR]
                    and abs(s_tt_score[ply]) < MATE_BOUND
                    and s_tt_depth[ply] >= depth - 3
                    and (s_tt_bound[ply] == BOUND_LOWER or s_tt_bound[ply] == BOUND_EXACT)):
                # Is the table's move singular? Search the same position without it, at
                # half the depth, against its score less a margin (the same position one
                # ply up the stack; on return, see _SINGULAR below).
                s_kind[ply] = _SINGULAR
                c = ply + 1
                s_move[c] = PASS_MOVE  # no change: the accumulators are copied
                s_ready[c] = 0
                s_us[c] = s_us[ply]
                s_them[c] = s_them[ply]
                s_color[c] = s_color[ply]
                s_clock[c] = s_clock[ply]
                s_hash[c] = s_hash[ply]
                s_depth[c] = (depth - 1) // 2
                s_alpha[c] = s_tt_score[ply] - depth - 1
                s_beta[c] = s_tt_score[ply] - depth
                s_excluded[c] = m
                ply = c
                mode = _ENTER
                continue
            child_depth = depth - 1
            if (options[OPT_LATE_FUTILITY_DEPTH] and ply > 0 and i >= 3
                    and depth <= options[OPT_LATE_FUTILITY_DEPTH]
                    and abs(alpha) < MATE_BOUND and s_best[ply] > -MATE_BOUND):
                if s_static[ply] == -INF:
                    s_static[ply] = _static(s_us[ply], s_them[ply], playable, masks, w_open,
                                            w_end, use_net, s_acc, ply, s_color[ply], w2, b2,
                                            net_scale, s_ready, s_move, s_them, s_color, w1,
                                            b1, flip, s_hash[ply], eval_cache)
                    if options[OPT_TT_EVAL]:
                        s_static[ply] = _tt_bounded(s_static[ply], s_tt_bound[ply],
                                                    s_tt_score[ply])
                if (s_static[ply] + options[OPT_LATE_FUTILITY]
                        + options[OPT_LATE_FUTILITY_SLOPE] * depth <= alpha):
                    # Three moves searched and the position is far below alpha: the
                    # later, worse-ordered moves will not lift it there.
                    s_i[ply] = count
                    continue
            if (options[OPT_QUIET_JUMPS] and ply > 0 and i >= options[OPT_QUIET_JUMPS]
                    and m >> 8 != CLONE_FROM
                    and m != PASS_MOVE and s_best[ply] > -MATE_BOUND
                    and SINGLES[m & 0xFF] & s_them[ply] == 0):
                # A jump that takes nothing gives up a square for nothing: once a few
                # moves are searched, it is almost never the best (Zataxx prunes it too).
                continue
            if (options[OPT_LMP] and ply > 0 and depth <= 3 and beta - alpha == 1
                    and i >= options[OPT_LMP] * depth and m != PASS_MOVE
                    and s_best[ply] > -MATE_BOUND and SINGLES[m & 0xFF] & s_them[ply] == 0):
                # Late move pruning: near the leaves, once the best-ordered moves are
                # searched, one that takes nothing is unlikely to raise alpha.
                continue
            if i > 0 and options[OPT_FUTILITY] and s_static[ply] > -INF and m != PASS_MOVE:
                # Futility: even the pieces this move wins plus a margin cannot lift the
                # static score to alpha, and too little depth is left to find more.
                to = m & 0xFF
                swing = 2 * np.int64(popcount(SINGLES[to] & s_them[ply]))
                if m >> 8 == CLONE_FROM:
                    swing += 1
                estimate = s_static[ply] + _PIECE_CP * swing + options[OPT_FUTILITY] * depth
                if estimate <= alpha:
                    if estimate > s_best[ply]:
                        s_best[ply] = estimate
                    continue
            if i == 0:
                s_kind[ply] = _FULL
                _push(ply, m, child_depth, -beta, -alpha, s_us, s_them, s_color, s_clock,
                      s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
            else:
                s_kind[ply] = _NULL_WINDOW
                if (
                    options[OPT_LMR]
                    and depth >= _LMR_MIN_DEPTH
                    and i >= options[OPT_LMR_INDEX]
                    and m != killers[ply, 0]
                    and m != killers[ply, 1]
                ):
                    if options[OPT_LMR] == 3:
                        reduction = _LMR_TABLE[min(depth, 63), min(i, 63)]
                    elif options[OPT_LMR] == 2:
                        reduction = 1 if i < 6 else (max(1, depth // 3) if i < 12 else depth // 2)
                    else:
                        reduction = 1
                        if i >= 10 and depth >= 5:
                            reduction = 2
                    if options[OPT_LMR_HISTORY]:
                        hf, ht = _history_index(m)
                        div = options[OPT_LMR_HISTORY]
                        reduction -= (2 * history[hf, ht] + div) // (2 * div)
                        reduction = max(0, min(reduction, depth - 2))
                    if options[OPT_LMR_PV] and beta - alpha > 1:
                        reduction -= 1
                    if reduction > 0:
                        child_depth -= reduction
                        s_kind[ply] = _REDUCED
                _push(ply, m, child_depth, -alpha - 1, -alpha, s_us, s_them, s_color, s_clock,
                      s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
            ply += 1
            mode = _ENTER
            continue

        # mode == _RETURN: the node at ``ply`` has the value ``ret``.
        if ply == 0:
            break
        s_excluded[ply] = NO_MOVE
        ply -= 1
        v = -ret
        kind = s_kind[ply]
        if kind == _SINGULAR:
            # ``ret`` is the best of the other moves, for the side to move here.
            m = s_cur[ply]
            depth = s_depth[ply]
            singular_beta = s_tt_score[ply] - depth
            extension = 0
            if ret < singular_beta:
                extension = 1
            elif singular_beta >= s_beta[ply]:
                # Multi-cut: another move beats beta as well.
                ret = singular_beta
                continue
            elif s_tt_score[ply] >= s_beta[ply]:
                extension = -1
            s_kind[ply] = _FULL
            _push(ply, m, depth - 1 + extension, -s_beta[ply], -s_alpha[ply], s_us, s_them,
                  s_color, s_clock, s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
            ply += 1
            mode = _ENTER
            continue
        if kind == _NULL_MOVE:
            if v >= s_beta[ply]:
                ret = v if v < MATE_BOUND else s_beta[ply]
                continue
            mode = _NEXT
            s_n[ply] = -1
            continue
        m = s_cur[ply]
        alpha = s_alpha[ply]
        beta = s_beta[ply]
        depth = s_depth[ply]
        if kind == _REDUCED and v > alpha:
            s_kind[ply] = _NULL_WINDOW
            _push(ply, m, depth - 1, -alpha - 1, -alpha, s_us, s_them, s_color, s_clock,
                  s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
            ply += 1
            mode = _ENTER
            continue
        if kind == _NULL_WINDOW and alpha < v < beta:
            s_kind[ply] = _FULL
            _push(ply, m, depth - 1, -beta, -alpha, s_us, s_them, s_color, s_clock,
                  s_hash, s_depth, s_alpha, s_beta, s_move, s_ready)
            ply += 1
            mode = _ENTER
            continue
        mode = _NEXT
        if v > s_best[ply]:
            s_best[ply] = v
            s_best_move[ply] = m
            if v > alpha:
                s_alpha[ply] = v
                extend_pv(pv, pv_len, ply, m)
                if ply == 0:
                    stats[STAT_ROOT_MOVE] = m
                    stats[STAT_ROOT_SCORE] = v
                    stats[STAT_BEST_NODES] = nodes - root_start
                if v >= beta:
                    if m != PASS_MOVE:
                        if killers[ply, 0] != m:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = m
                        hf, ht = _history_index(m)
                        gravity = options[OPT_HISTORY_GRAVITY]
                        bonus = min(300 * depth, 1500) if gravity else depth * depth
                        history[hf, ht] = _history_moved(history[hf, ht], bonus, gravity)
                        if options[OPT_HISTORY_MALUS]:
                            # The moves tried before this one (slots 0..i-1, in the
                            # order pick_next put them) did not cut: they lose as much.
                            for j in range(s_i[ply] - 1):
                                other = moves[ply, j]
                                if other != PASS_MOVE:
                                    of, ot = _history_index(other)
                                    history[of, ot] = _history_moved(history[of, ot], -bonus,
                                                                     gravity)
                        if history[hf, ht] > (1 << 22):
                            for a in range(history.shape[0]):
                                for b in range(history.shape[1]):
                                    history[a, b] //= 2
                    stored = v
                    if stored > MATE_BOUND:
                        stored += ply
                    elif stored < -MATE_BOUND:
                        stored -= ply
                    if s_excluded[ply] == NO_MOVE:
                        tt_store(tt_keys, tt_data, s_hash[ply], BOUND_LOWER, m, stored, depth,
                                 generation)
                    ret = v
                    mode = _RETURN
                    continue
    stats[STAT_NODES] = nodes
    stats[STAT_SELDEPTH] = seldepth
    length = pv_len[0]
    for k in range(length):
        pv_out[k] = pv[0, k]
    stats[STAT_PV_LEN] = length
    return ret


#: ``deepen_kernel``'s report (``deepened``), about the last iteration it finished:
#: its depth (0: none yet), score, selective depth, the nodes of its last search and
#: those under its best move, its principal variation's length (the moves are in
#: ``best_pv``); the nodes of every iteration so far (read and carried from call to
#: call); 1 when the search must end (an aborted iteration, a proven mate, the node
#: limit or ``control``).
DEEP_DEPTH = 0
DEEP_SCORE = 1
DEEP_SELDEPTH = 2
DEEP_ITERATION_NODES = 3
DEEP_BEST_NODES = 4
DEEP_PV_LEN = 5
DEEP_NODES = 6
DEEP_STOP = 7
N_DEEP = 8


@njit(cache=True, nogil=True)
def deepen_kernel(first, last, node_limit, aspiration, growth, iteration_scores, deepened,
                  best_pv, us0, them0, playable, color0, clock0, stuck, tie_second, fifty,
                  repetition, prior, masks, w_open, w_end, tt_keys, tt_data, generation,
                  killers, history, control, options, pv_out, stats, use_net, w1, b1, w2, b2,
                  net_scale, flip, eval_cache):
    """Iterative deepening: search the root to depths ``first`` .. ``last`` in turn.

    Each iteration from depth 4 searches a window of ``aspiration`` centipawns around
    the score of the iteration two before (``iteration_scores``, by depth: scores
    alternate with the parity of the depth, the side that moves last at the leaves
    gaining a tempo, often by more than the window; 11% fewer nodes to depth 8 over 12
    middle-game positions than centring on the last), widened by ``growth`` on the side
    that fails. ``deepened`` reports the last finished iteration (``DEEP_*``) and
    carries the node count. A caller with nothing to do between iterations makes one
    call for all of them: the dispatch of a kernel call costs some 6 microseconds, and
    a 1,000-node search is a few hundred.
    """
    nodes_used = deepened[DEEP_NODES]
    for depth in range(first, last + 1):
        delta = aspiration
        alpha = -INF
        beta = INF
        if depth >= 4:
            alpha = iteration_scores[depth - 2] - delta
            beta = iteration_scores[depth - 2] + delta
        while True:
            value = search_kernel(
                us0, them0, playable, color0, clock0, stuck, tie_second, fifty, repetition,
                prior, depth, alpha, beta, masks, w_open, w_end, tt_keys, tt_data, generation,
                killers, history, control, max(0, node_limit - nodes_used), options, pv_out,
                stats, use_net, w1, b1, w2, b2, net_scale, flip, eval_cache)
            nodes_used += stats[STAT_NODES]
            if stats[STAT_ABORTED]:
                break
            if value <= alpha:
                alpha = max(-INF, value - delta)
            elif value >= beta:
                beta = min(INF, value + delta)
            else:
                break
            delta = max(delta + 1, int(delta * growth))
        deepened[DEEP_NODES] = nodes_used
        if stats[STAT_ABORTED]:
            deepened[DEEP_STOP] = 1
            return
        iteration_scores[depth] = value
        deepened[DEEP_DEPTH] = depth
        deepened[DEEP_SCORE] = value
        deepened[DEEP_SELDEPTH] = stats[STAT_SELDEPTH]
        deepened[DEEP_ITERATION_NODES] = stats[STAT_NODES]
        deepened[DEEP_BEST_NODES] = stats[STAT_BEST_NODES]
        length = stats[STAT_PV_LEN]
        deepened[DEEP_PV_LEN] = length
        best_pv[:length] = pv_out[:length]
        proven = abs(value) >= MATE_BOUND and MATE - abs(value) <= depth
        if proven or nodes_used >= node_limit or control[0]:
            deepened[DEEP_STOP] = 1
            return


#: placeholders of the network's arrays when it is off (same types: one compiled kernel).
_NO_NETWORK = (np.zeros((1, 1), dtype=np.int16), np.zeros(1, dtype=np.int16),
               np.zeros((1, 2), dtype=np.int32), np.zeros(1, dtype=np.int64), np.int64(1),
               np.zeros((64, 1), dtype=np.int16))

#: the board size the network was trained on; other sizes keep the hand-written terms.
NETWORK_BOARD = (7, 7)
#: below this many empty squares the exact solver is tried first.
ENDGAME_EMPTIES = 8
#: the node-share time rule (``MasterSearch.node_time``): from this depth, around this.
_NODE_TIME_DEPTH = 7
_NODE_TIME_BASE = 1.55
#: the solver may use this share of the soft time (it is abandoned if it runs over).
_ENDGAME_TIME_SHARE = 0.15
#: aspiration half-window in centipawns, and the factor that widens it on each failure.
_ASPIRATION = 15
_ASPIRATION_GROWTH = 2.0


class MasterSearch:
    """The state ``master`` keeps between moves: hash tables, killers, history, weights."""

    def __init__(self, hash_mb: int = 32) -> None:
        from gameclub.ataxx.engine.evaluate import load_weights
        from gameclub.tt import TranspositionTable

        self.tt = TranspositionTable(hash_mb)
        self.endgame_tt = TranspositionTable(max(1, hash_mb // 2))
        self.w_open, self.w_end = load_weights()
        self.killers = np.zeros((MAX_PLY + 2, 2), dtype=np.int64)
        self.history = np.zeros((65, 64), dtype=np.int64)
        # Measured at 1 s + 10 ms with the network (docs/nnue.md, docs/engine.md): the
        # static cut-off, skipping quiet jumps, the internal iterative reduction from
        # depth 4 and late futility pay; so does, together, Zataxx's setting of the
        # rest (bounded history with a malus, reductions from a log-log table less the
        # history, from the third move; a static cut-off of 30 cp a ply up to depth 6;
        # a 15 cp aspiration window doubled on failure: +103 over 400 games). Null
        # move, futility by move, late move pruning and singular extensions did not,
        # and stay off.
        self.options = np.zeros(N_OPTIONS, dtype=np.int64)
        self.options[OPT_LMR] = 3
        self.options[OPT_STATIC_CUT] = 30
        self.options[OPT_PRUNE_DEPTH] = 6
        self.options[OPT_QUIET_JUMPS] = 2
        self.options[OPT_LMR_INDEX] = _LMR_MIN_INDEX
        self.options[OPT_IIR] = 4
        self.options[OPT_HISTORY_GRAVITY] = 1
        self.options[OPT_HISTORY_MALUS] = 1
        self.options[OPT_LMR_HISTORY] = 12288
        self.options[OPT_LATE_FUTILITY] = 10
        self.options[OPT_LATE_FUTILITY_SLOPE] = 20
        self.options[OPT_LATE_FUTILITY_DEPTH] = 6
        self.endgame_empties = ENDGAME_EMPTIES
        #: the aspiration window's first half-width (centipawns) and its widening factor.
        self.aspiration = _ASPIRATION
        self.aspiration_growth = _ASPIRATION_GROWTH
        #: N > 0: from depth ``_NODE_TIME_DEPTH`` on, the soft time limit is scaled by
        #: ``(1.55 - share) * N``, where ``share`` is the part of the last iteration's
        #: nodes spent under its best move: a move the search keeps coming back to ends
        #: the thinking sooner, a contested one later (Zataxx's rule). 0 = off.
        self.node_time = 0.0
        #: how the clock is shared among the moves (timeman.TimeRule).
        self.time_rule = TimeRule()
        #: the share of the last finished iteration's nodes spent under its best move.
        self.best_move_share: float | None = None
        self._masks: dict[tuple[int, int, int], np.ndarray] = {}
        #: the network that replaces the hand-written evaluation on 7x7 boards, the
        #: only size it was trained on (docs/nnue.md); None: the hand-written terms.
        self.network: Network | None = None
        #: the network's scores by position hash (see EVAL_CACHE_ENTRIES).
        self.eval_cache = np.zeros(EVAL_CACHE_ENTRIES, dtype=np.uint64)
        self._eval_cache_owner: tuple[Network | None, int] | None = None
        self.use_network()

    def use_network(self, enabled: bool = True, path: str | Path | None = None) -> bool:
        """Evaluate with a network (default: the shipped one) or, ``enabled=False``, without.

        A missing or unusable weights file is not fatal: a :class:`RuntimeWarning`
        names the problem and the hand-written evaluation stays. Returns whether the
        network is now in use.
        """
        from gameclub.ataxx.engine.nnue import NetworkFileError, load_network, shipped_network

        self.network = None
        if enabled:
            try:
                self.network = shipped_network() if path is None else load_network(path)
            except NetworkFileError as exc:
                warnings.warn(f"{exc}; master keeps its hand-written evaluation",
                              RuntimeWarning, stacklevel=2)
        return self.network is not None

    def _network_args(self, board: Board) -> tuple:
        net = self.network
        if net is None or (board.width, board.height) != NETWORK_BOARD:
            return (NET_NONE, *_NO_NETWORK)
        if net.tuples:
            return (NET_TUPLES, net.rows, net.base(board.playable), net.w2, net.b2,
                    np.int64(net.scale), net.flip)
        return (NET_PIECE_SQUARE, net.rows, net.b1, net.w2, net.b2,
                np.int64(net.scale), net.flip)

    def _eval_cache(self, board: Board) -> np.ndarray:
        """The evaluation cache, emptied when the network or the board's squares change
        (a cached score is only valid for the network and blocks it was computed with)."""
        # The network itself, not its id(): a new network may reuse a freed one's id.
        owner = self._eval_cache_owner
        if owner is None or owner[0] is not self.network or owner[1] != board.playable:
            self._eval_cache_owner = (self.network, board.playable)
            self.eval_cache[:] = 0
        return self.eval_cache

    def new_game(self) -> None:
        self.tt.clear()
        self.endgame_tt.clear()
        self.history[:] = 0
        self.killers[:] = NO_MOVE

    def warm_up(self) -> None:
        """Load (or compile) the kernels now rather than on the first timed move."""
        from gameclub.ataxx.board import Board
        from gameclub.ataxx.engine import SearchLimits
        from gameclub.ataxx.engine.endgame import solve

        self.search(Board(), SearchLimits(depth=2))
        self.search(Board("xxx/xxo/oo1 x 0 1"), SearchLimits(depth=2))
        # A depth limit skips the exact solver: load its kernel too, or the first
        # timed move with few empty squares would pay for it.
        solve(Board("xxx/xxo/oo1 x 0 1"), tt=self.endgame_tt)

    def _class_masks(self, board: Board) -> np.ndarray:
        from gameclub.ataxx.engine.evaluate import class_masks

        key = (board.width, board.height, board.playable)
        masks = self._masks.get(key)
        if masks is None:
            masks = self._masks[key] = class_masks(board.width, board.height, board.playable)
        return masks

    def search(
        self,
        board: Board,
        limits: SearchLimits,
        info: InfoCallback | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        from gameclub.ataxx.engine import SearchResult
        from gameclub.ataxx.engine.endgame import solve
        from gameclub.ataxx.engine.terminal import KernelPosition, from_kernel_move
        from gameclub.ataxx.engine.timeman import allocate

        started = time.perf_counter()
        self.best_move_share = None
        moves = board.legal_moves
        if not moves:
            raise ValueError(f"no move to search: the game is over in {board.fen()!r}")
        empty_squares = board.empty.bit_count()
        budget = allocate(limits, board.turn == 0, empty_squares, rule=self.time_rule)
        control = np.zeros(1, dtype=np.int64)
        # Only a clock or a stop event needs the watchdog: a search bounded by nodes or
        # depth alone is not watched.
        watched = budget.hard is not None or stop is not None
        if watched:
            watch = _WATCHDOG.arm(control, stop, started, budget.hard)
        try:
            if len(moves) == 1 and limits.depth is None and not limits.infinite:
                # Nothing to choose: answer at once and keep the clock.
                return SearchResult(move=moves[0], depth=0, nodes=0,
                                    time=time.perf_counter() - started, pv=[moves[0]])
            node_limit = limits.nodes if limits.nodes is not None else (1 << 62)
            nodes_used = 0
            if limits.depth is None and empty_squares <= self.endgame_empties:
                # The solver gets a share of the nodes or time; the search keeps the rest.
                solver_nodes = node_limit // 2
                if budget.soft is not None:
                    # At a few million nodes a second; the solver is cheap when it works,
                    # and a proof that does not come quickly does not come at all.
                    solver_nodes = min(node_limit, int(budget.soft * _ENDGAME_TIME_SHARE * 3e6))
                # Win / draw / loss is enough to choose a move and far cheaper than the
                # margin; a proven loss goes to the search, which may find a swindle.
                solved = solve(board, max_nodes=solver_nodes, tt=self.endgame_tt, control=control,
                               margin=False)
                if solved is not None and solved.move is not None:
                    # The margin is only a bound here; keep a win's score below MATE.
                    margin = max(0, min(9, solved.margin)) if solved.result > 0 else 0
                    score = 100 * margin + solved.result * (MATE_BOUND - 100)
                    mate = None if solved.result == 0 else solved.result * len(solved.pv)
                    result = SearchResult(
                        move=solved.move, score=score, mate=mate, depth=len(solved.pv),
                        seldepth=len(solved.pv), nodes=solved.nodes,
                        time=time.perf_counter() - started, pv=solved.pv,
                    )
                    if info is not None:
                        info(result)
                    return result
                control[0] = 0 if not _expired(stop, started, budget.hard) else 1
                nodes_used += min(solver_nodes, node_limit // 2) if solved is None else solved.nodes

            pos = KernelPosition.from_board(board)
            masks = self._class_masks(board)
            generation = self.tt.new_search()
            net_args = (*self._network_args(board), self._eval_cache(board))
            self.killers[:] = NO_MOVE
            max_depth = min(limits.depth or MAX_PLY - 1, MAX_PLY - 1)
            pv_out = np.zeros(MAX_PLY + 2, dtype=np.int64)
            best_pv = np.zeros(MAX_PLY + 2, dtype=np.int64)
            stats = np.zeros(N_STATS, dtype=np.int64)
            iteration_scores = np.zeros(MAX_PLY, dtype=np.int64)
            deepened = np.zeros(N_DEEP, dtype=np.int64)
            deepened[DEEP_NODES] = nodes_used
            best: SearchResult | None = None
            share = 0.0
            # Between iterations Python reports them and watches the soft time limit;
            # with neither to do, one kernel call runs them all.
            stepwise = info is not None or budget.soft is not None
            depth = 1
            while depth <= max_depth:
                deepen_kernel(
                    depth, depth if stepwise else max_depth, node_limit, self.aspiration,
                    float(self.aspiration_growth), iteration_scores, deepened, best_pv,
                    np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable),
                    pos.color, pos.clock, pos.stuck, pos.tie_second, pos.fifty,
                    pos.repetition, pos.prior, masks, self.w_open, self.w_end, self.tt.keys,
                    self.tt.data, generation, self.killers, self.history, control,
                    self.options, pv_out, stats, *net_args,
                )
                nodes_used = int(deepened[DEEP_NODES])
                elapsed = time.perf_counter() - started
                if deepened[DEEP_DEPTH] >= depth:
                    depth = int(deepened[DEEP_DEPTH])
                    score = int(deepened[DEEP_SCORE])
                    share = (int(deepened[DEEP_BEST_NODES])
                             / max(1, int(deepened[DEEP_ITERATION_NODES])))
                    self.best_move_share = share
                    pv = [from_kernel_move(m) for m in best_pv[: deepened[DEEP_PV_LEN]]]
                    mate = None
                    if abs(score) >= MATE_BOUND:
                        mate = (MATE - abs(score)) * (1 if score > 0 else -1)
                    best = SearchResult(
                        move=pv[0], score=score, mate=mate, depth=depth,
                        seldepth=int(deepened[DEEP_SELDEPTH]), nodes=nodes_used, time=elapsed,
                        pv=pv,
                    )
                    if info is not None:
                        info(best)
                if stats[STAT_ABORTED]:
                    # An unfinished iteration still proved its root move if it changed it.
                    partial = int(stats[STAT_ROOT_MOVE])
                    improved = best is not None and stats[STAT_ROOT_SCORE] > best.score
                    if partial != NO_MOVE and best is not None and improved:
                        move = from_kernel_move(partial)
                        if move != best.move:
                            best = SearchResult(move=move, score=int(stats[STAT_ROOT_SCORE]),
                                                depth=best.depth, seldepth=best.seldepth,
                                                nodes=nodes_used, time=elapsed, pv=[move])
                    break
                if deepened[DEEP_STOP]:
                    break
                soft = budget.soft
                if soft is not None and self.node_time and depth >= _NODE_TIME_DEPTH:
                    soft *= (_NODE_TIME_BASE - share) * self.node_time
                if soft is not None and elapsed >= soft:
                    break
                depth += 1
            if best is None:
                # Stopped before depth 1 finished: any legal move beats none.
                move = from_kernel_move(int(stats[STAT_ROOT_MOVE])) \
                    if stats[STAT_ROOT_MOVE] != NO_MOVE else moves[0]
                best = SearchResult(move=move, depth=0, nodes=nodes_used, pv=[move])
            best.nodes = nodes_used
            best.time = time.perf_counter() - started
            return best
        finally:
            if watched:
                _WATCHDOG.disarm(watch)


def _expired(stop: threading.Event | None, started: float, hard: float | None) -> bool:
    if stop is not None and stop.is_set():
        return True
    return hard is not None and time.perf_counter() - started >= hard


class _Watchdog:
    """Raises a search's ``control[0]`` when its hard limit passes or its stop event is
    set, for every search of the process: one thread, started with the first search
    that needs it, that sleeps while none does. (A thread a search cost about a
    millisecond a move on a busy machine, a tenth of a move at 1 s + 10 ms.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._searches: dict[int, tuple[np.ndarray, threading.Event | None, float,
                                        float | None]] = {}
        self._tokens = itertools.count()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def arm(self, control: np.ndarray, stop: threading.Event | None, started: float,
            hard: float | None) -> int:
        """Watch a search from now on; the token returned is for :meth:`disarm`."""
        with self._lock:
            token = next(self._tokens)
            self._searches[token] = (control, stop, started, hard)
            # Not alive after a fork: the child starts its own.
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="master-watchdog",
                                                daemon=True)
                self._thread.start()
            self._wake.set()
        return token

    def disarm(self, token: int) -> None:
        """Stop watching the search (a late write still goes to its own ``control``)."""
        with self._lock:
            self._searches.pop(token, None)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:
                searches = list(self._searches.items())
                if not searches:
                    self._wake.clear()
                    continue
            for token, (control, stop, started, hard) in searches:
                if _expired(stop, started, hard):
                    control[0] = 1
                    self.disarm(token)
            time.sleep(0.001)


_WATCHDOG = _Watchdog()
