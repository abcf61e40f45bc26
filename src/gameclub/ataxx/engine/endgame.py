"""The exact endgame solver: the value of a position under its rule set, with best play.

The value is lexicographic: first win / draw / loss, then the final piece margin
(ours minus theirs, empty squares credited to the filler under an early fill).
Encoded for the kernel as ``result * WIN + margin`` with ``WIN`` larger than any
margin, so one integer alpha-beta search finds both. A fifty-move draw keeps the
piece margin at the moment of the draw as its tie-breaker.

Every game end mirrors ``Board.outcome()``: no pieces, full board, neither side
can move, the stuck policy (pass, lose at once, early fill), the tie policy and
the fifty-move limit (decisive ends first).

Horizons. A game is a chain of *segments*: runs of non-clone plies (jumps and
passes), each closed by a clone, which resets the halfmove clock. The kernel takes
an artificial ``horizon``: a segment that reaches ``horizon`` non-clone plies (the
root's segment counted from the root) ends there, in a *cut*. A pass of the kernel
scores every cut as ``-CUT`` for the root's side (pessimistic) or as ``+CUT``
(optimistic), beyond every real value. Replacing the real game below a cut by a
value no better (no worse) for the root's side can only lower (raise) the root's
value, so a pessimistic pass proves "value >= b" whenever it finds it, and an
optimistic pass proves "value < b" whenever it finds that. Both hold for every
kind of question: a win, a draw, a margin. The driver asks its questions under
horizons 2, 4, 8, ... and the real rules, with node budgets that double from
round to round (``_schedule``), and stops as soon as a question is settled, so
the answer is always the exact one. Real endgames are mostly decided by the side
that keeps cloning and are proven at a horizon of 2, 4 or 8 plies, long before the
100-ply jump dances of the real limit come into play: the side a cut penalises has
to close each run of jumps with a clone before the horizon, and the other side
gets no profit from a run either, as the cut is what it would reach anyway.

Transposition entries record what their value assumed about the clock (see
``_valid``): with no cut below in its segment, ``run``, the longest run of non-clone
plies walked (the value holds for every budget above it); with a cut, the budget
it was computed with (``pinned``); a value that rests on an artificial cut anywhere
below (``fake``) is used only inside the pass that made it (a per-pass ``stamp``),
and within it also at other budgets where the cut makes the value monotone. Keys
carry a salt of the rule set and the blocks, so one table can serve several rule
sets.

Speed-ups, none of which changes a value: a move that ends the game, a child that
is cut at once and a child that can fill the last empty square to refute the
move are scored without entering a node; a side that a cut favours and that can
jump into it takes it at once; the side that a cut penalises (under the real
rules: the side that must prove a win) orders its moves by the number of replies
they leave (fastest first) and tries first a move whose reply the table already
shows lost (enhanced transposition cut-off).

Repetition rules (pressibus, site-2005): the solver scores the first return to a
position on the line (counting the game's history since the last clone) as the
end of the game by the repetition rule, by count. The rules need a third
occurrence, but a player who could steer back into a position once can do it
again, so the solver's value is that of "repetitions end the game as soon as one
is possible". Values that can depend on the line are never cached: only nodes
reached right after a clone (halfmove clock 0, so no earlier position can recur
in their subtree) use the transposition table for scores; the others use it for
move ordering only. Tests check this against a plain minimax with the same model.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import (
    CLONE_FROM,
    DOUBLES,
    MAX_MOVES,
    PASS_MOVE,
    SINGLES,
    count_moves,
    expand,
    generate_moves,
    has_moves,
    lowest_square,
    make_move,
    pick_next,
    popcount,
)
from gameclub.ataxx.board import Board
from gameclub.ataxx.engine.terminal import (
    NOT_OVER,
    STUCK_PASS,
    KernelPosition,
    by_count,
    decisive_end,
    extend_pv,
    from_kernel_move,
    position_hash,
    returns_to_earlier,
)
from gameclub.ataxx.move import Move
from gameclub.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_NONE,
    BOUND_UPPER,
    NO_MOVE,
    TranspositionTable,
)

WIN = 1000
INF = 10 * WIN
#: deepest line the solver follows; a longer one (endless jumping under a rule set
#: without a move limit) is scored as a draw by count and the result marked inexact.
MAX_PLY = 200
#: no margin exceeds the 64 squares of an 8x8 board: draws lie in [-64, 64].
_MARGIN_MAX = 64

STAT_NODES = 0
STAT_ABORTED = 1
STAT_CAPPED = 2
STAT_PV_LEN = 3
#: the root value rests on an artificial horizon cut.
STAT_FAKE = 4
STAT_CUTS = 5
N_STATS = 6

_ENTER = 0
_NEXT = 1
_RETURN = 2

#: a budget larger than any move limit: "no cut".
_NO_LIMIT = 1 << 20

# Solver TT entry (one uint64 next to the key): score 12 bits (offset), move 16,
# bound 2, pinned 1, fake 1, budget 8 (run or budget), stamp 10, empty squares 6, real end 1.
_SCORE_OFFSET = 1 << 11
_M16 = np.uint64(0xFFFF)
_M12 = np.uint64(0xFFF)
_M10 = np.uint64(0x3FF)
_M8 = np.uint64(0xFF)
#: move-ordering keys: the table move first.
_TT_KEY = np.int64(1) << 40
#: values at or beyond +-WIN/2 are wins or losses, whatever the margin of a draw.
_HALF = WIN // 2
_STAMP_MASK = 0x3FF

#: fastest-first ordering (see solve_kernel) from this many empty squares up.
FF_EMPTIES = 2

#: the value of an artificial horizon cut, beyond every real value: ``-CUT`` for
#: the side it penalises (see the module notes on passes).
CUT = 2 * WIN
#: pass modes: the real rules, cuts against the root's side, cuts for it.
REAL = 0
PESSIMISTIC = -1
OPTIMISTIC = 1


@njit(inline="always", cache=True)
def _probe(keys, data, h):
    """``(bound, move, score, budget, pinned, fake, stamp, real_end)`` of ``h``; BOUND_NONE
    on a miss.

    A key lives in one of two slots: the first keeps the entry with more empty
    squares (the larger subtree), the second the most recent one.
    """
    slot = h & np.uint64(keys.size - 2)
    if keys[slot] != h:
        slot += np.uint64(1)
        if keys[slot] != h:
            return BOUND_NONE, NO_MOVE, 0, 0, False, False, 0, False
    e = data[slot]
    score = np.int64(e & _M12) - _SCORE_OFFSET
    move = np.int64((e >> np.uint64(12)) & _M16)
    bound = np.int64((e >> np.uint64(28)) & np.uint64(3))
    pinned = ((e >> np.uint64(30)) & np.uint64(1)) != np.uint64(0)
    fake = ((e >> np.uint64(31)) & np.uint64(1)) != np.uint64(0)
    budget = np.int64((e >> np.uint64(32)) & _M8)
    stamp = np.int64((e >> np.uint64(40)) & _M10)
    real_end = ((e >> np.uint64(56)) & np.uint64(1)) != np.uint64(0)
    return bound, move, score, budget, pinned, fake, stamp, real_end


@njit(inline="always", cache=True)
def _store(keys, data, h, bound, move, score, budget, pinned, fake, stamp, empties, real_end):
    first = h & np.uint64(keys.size - 2)
    slot = first
    if keys[first] != h:
        second = first + np.uint64(1)
        if keys[second] == h:
            slot = second
        else:
            old = data[first]
            old_empties = np.int64((old >> np.uint64(50)) & np.uint64(63))
            old_stamp = np.int64((old >> np.uint64(40)) & _M10)
            stale = ((old >> np.uint64(31)) & np.uint64(1)) != np.uint64(0) and old_stamp != stamp
            if not (stale or empties >= old_empties or keys[first] == np.uint64(0)):
                slot = second
    if move == NO_MOVE and keys[slot] == h:
        move = np.int64((data[slot] >> np.uint64(12)) & _M16)
    keys[slot] = h
    data[slot] = (
        np.uint64(score + _SCORE_OFFSET)
        | (np.uint64(move & 0xFFFF) << np.uint64(12))
        | (np.uint64(bound) << np.uint64(28))
        | (np.uint64(1 if pinned else 0) << np.uint64(30))
        | (np.uint64(1 if fake else 0) << np.uint64(31))
        | (np.uint64(min(max(budget, 0), 255)) << np.uint64(32))
        | (np.uint64(stamp) << np.uint64(40))
        | (np.uint64(min(empties, 63)) << np.uint64(50))
        | (np.uint64(1 if real_end else 0) << np.uint64(56))
    )


@njit(inline="always", cache=True)
def favoured_at(color, color0, cut_sign):
    """Whether an artificial cut favours the side to move (``color``) in a pass."""
    return (color == color0) == (cut_sign > 0)


@njit(inline="always", cache=True)
def _valid(lower, budget, pinned, fake, real_end, same, b, r, node_real_end, favoured):
    """Whether one bound of an entry holds at a node with budgets ``b`` and ``r``.

    ``b`` counts the non-clone plies left before this pass's horizon cut, ``r``
    before the real move limit (``b <= r``). Not pinned: no line below reached a
    cut in this segment and the longest ran ``budget`` plies, so any budget above
    that gives the same tree; a value resting on cuts in later segments (``fake``)
    holds in its own pass only. Pinned by the real limit only: at that same real
    budget, with no artificial cut before it. Pinned by an artificial cut: in its
    own pass, at its own budget, and beyond it in the direction the cut makes
    monotone: a cut that favours the side to move (``favoured``) is worth less to
    it the later it comes, so its lower bounds hold at smaller budgets and its
    upper bounds at larger ones; the other way round for a cut against it. Where a
    segment ends at the real limit (``real_end``: a draw there, not a cut) a pinned
    value holds only in a segment that ends the same way, at the same budget.
    """
    if not pinned:
        return b > budget and (same or not fake)
    if not fake:
        return b == r and r == budget
    if not same or real_end != node_real_end:
        return False
    if b == budget:
        return True
    if real_end:
        return False
    if lower == favoured:
        return b < budget
    return b > budget


@njit(cache=True, nogil=True)
def solve_kernel(us0, them0, playable, color0, clock0, stuck, tie_second, fifty, repetition,
                 prior, horizon, cut_sign, alpha0, beta0, tt_keys, tt_data, stamp, salt,
                 control, max_nodes, pv_out, stats):
    """The value of the root within ``(alpha0, beta0)`` (fail-soft) under ``horizon``.

    ``horizon`` is the artificial segment length (see the module notes); 0 or a
    value at or above ``fifty`` means the real rules. ``cut_sign`` says whom a
    cut favours: ``OPTIMISTIC`` the root's side, ``PESSIMISTIC`` the other.
    Every node also returns what
    its value assumed about the clock: ``run`` (longest run of non-clone plies
    below it), ``pinned`` (a line reached a cut: the value holds for this budget),
    ``fake`` (a line reached an artificial cut).
    """
    n = MAX_PLY + 2
    s_us = np.empty(n, dtype=np.uint64)
    s_them = np.empty(n, dtype=np.uint64)
    s_hash = np.empty(n, dtype=np.uint64)
    s_color = np.empty(n, dtype=np.int64)
    s_clock = np.empty(n, dtype=np.int64)
    s_lim = np.empty(n, dtype=np.int64)
    s_alpha = np.empty(n, dtype=np.int64)
    s_beta = np.empty(n, dtype=np.int64)
    s_orig_alpha = np.empty(n, dtype=np.int64)
    s_best = np.empty(n, dtype=np.int64)
    s_best_move = np.empty(n, dtype=np.int64)
    s_null = np.empty(n, dtype=np.int64)
    s_cur = np.empty(n, dtype=np.int64)
    s_n = np.empty(n, dtype=np.int64)
    s_i = np.empty(n, dtype=np.int64)
    s_cache = np.empty(n, dtype=np.int64)
    s_run = np.empty(n, dtype=np.int64)
    s_pin = np.empty(n, dtype=np.int64)
    s_fake = np.empty(n, dtype=np.int64)
    s_dep = np.empty(n, dtype=np.int64)
    moves = np.empty((n, MAX_MOVES), dtype=np.int64)
    keys = np.empty((n, MAX_MOVES), dtype=np.int64)
    pv = np.empty((n, n), dtype=np.int64)
    pv_len = np.zeros(n, dtype=np.int64)

    # Segment limits on the clock: the real one, and this pass's (from the root for
    # the root's segment, from the clone for the others).
    if fifty > 0:
        real_lim = fifty
        if horizon > 0:
            seg_lim = min(horizon, fifty)
            root_lim = min(clock0 + horizon, fifty)
        else:
            seg_lim = fifty
            root_lim = fifty
    else:
        real_lim = _NO_LIMIT
        if horizon > 0:
            seg_lim = horizon
            root_lim = clock0 + horizon
        else:
            seg_lim = _NO_LIMIT
            root_lim = _NO_LIMIT

    s_us[0] = us0
    s_them[0] = them0
    s_color[0] = color0
    s_clock[0] = clock0
    s_lim[0] = root_lim
    s_alpha[0] = alpha0
    s_beta[0] = beta0
    stats[STAT_ABORTED] = 0
    stats[STAT_CAPPED] = 0
    stats[STAT_FAKE] = 0
    stats[STAT_CUTS] = 0
    nodes = 0
    ply = 0
    mode = _ENTER
    ret = 0
    ret_run = 0
    ret_pin = 0
    ret_fake = 0
    ret_dep = n
    # Under a move limit without a repetition rule, a win (or loss) proof never
    # needs to come back to a position of its own line (see the revisit cut).
    cut_revisits = fifty > 0 and not repetition
    artificial = cut_sign != 0
    while True:
        if mode == _ENTER:
            nodes += 1
            if nodes > max_nodes or ((nodes & 1023) == 0 and control[0] != 0):
                stats[STAT_ABORTED] = 1
                nodes -= 1
                break
            pv_len[ply] = ply
            us = s_us[ply]
            them = s_them[ply]
            color = s_color[ply]
            clock = s_clock[ply]
            ret_run = 0
            ret_pin = 0
            ret_fake = 0
            ret_dep = n
            result, margin = decisive_end(us, them, playable, color, stuck, tie_second)
            if result != NOT_OVER:
                ret = result * WIN + margin
                mode = _RETURN
                continue
            h = position_hash(us, them, color) ^ salt
            s_hash[ply] = h
            margin = np.int64(popcount(us)) - np.int64(popcount(them))
            # ``prior`` is salted like the line's own hashes (see ``solve``). The root
            # itself is never scored as a return: it is the position to play.
            if repetition and clock >= 4 and ply > 0 and returns_to_earlier(
                    s_hash, prior, ply, clock, h):
                ret = by_count(popcount(us), popcount(them), color, tie_second) * WIN + margin
                mode = _RETURN
                continue
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            # Whether a cut favours the side to move (artificial passes only).
            favoured = favoured_at(color, color0, cut_sign)
            if cut_revisits and clock >= 2 and (artificial or alpha >= _HALF - 1
                                                or beta <= 1 - _HALF):
                # A return to a position of the line since the last clone. Under the
                # real rules: a shortest win never comes back (it could have played
                # on from the first visit with more clock left), so a return is a
                # failure for the side trying to win. In an artificial pass it is
                # scored as a cut: whoever the cut favours could repeat the cycle up
                # to the cut, and more clock never helps the other side. Values that
                # used this cut of an ancestor are not stored.
                back = 2
                while back <= clock and back <= ply:
                    if s_hash[ply - back] == h:
                        ret_dep = ply - back
                        break
                    back += 2
                if ret_dep < n:
                    if artificial:
                        ret = CUT if favoured else -CUT
                        ret_pin = 1
                        ret_fake = 1
                    else:
                        ret = alpha if alpha >= _HALF - 1 else beta
                    mode = _RETURN
                    continue
            lim = s_lim[ply]
            if clock >= real_lim:
                ret = margin
                ret_pin = 1
                mode = _RETURN
                continue
            if clock >= lim:
                # This pass's horizon: the best or the worst value there is, as the
                # pass says; the value is marked as resting on it.
                stats[STAT_CUTS] += 1
                ret = CUT if favoured else -CUT
                ret_pin = 1
                ret_fake = 1
                mode = _RETURN
                continue
            if ply >= MAX_PLY:
                stats[STAT_CAPPED] += 1
                ret = margin
                ret_pin = 1
                mode = _RETURN
                continue
            empty = playable & ~(us | them)
            if ply > 0 and (empty & (empty - np.uint64(1))) == 0 and (expand(us) & empty) != 0:
                # One empty square left: the clone that fills it ends the game. When
                # that is already enough, no move needs generating.
                flips = np.int64(popcount(them & SINGLES[lowest_square(empty)]))
                n_us = np.int64(popcount(us)) + 1 + flips
                n_them = np.int64(popcount(them)) - flips
                v = by_count(n_us, n_them, color, tie_second) * WIN + n_us - n_them
                if v >= beta:
                    nodes += 1
                    ret = v
                    mode = _RETURN
                    continue
            if ply > 0 and not repetition and lim - clock == 1 and (
                    (lim < real_lim and favoured) or (lim == real_lim and beta <= 1 - _HALF)):
                # Any jump reaches the limit: a cut that favours the side to move (the
                # best value there is), or the real limit when the side to move only
                # has to avoid a loss (a draw at the jump's margin, a fail-high). A
                # jump can neither leave both sides without a move (the jumper can
                # jump back) nor fill the board; one that takes every enemy piece
                # ends the game, so it is not the one taken here.
                bb = empty
                while bb:
                    t = lowest_square(bb)
                    bb &= bb - np.uint64(1)
                    src = DOUBLES[t] & us
                    if src:
                        us2, them2 = make_move(us, them, np.int64(t) | (
                            np.int64(lowest_square(src)) << 8))
                        if them2 == 0 or not (stuck == STUCK_PASS or has_moves(
                                them2, playable & ~(us2 | them2))):
                            continue
                        if lim < real_lim:
                            ret = CUT
                            ret_fake = 1
                        else:
                            ret = np.int64(popcount(us2)) - np.int64(popcount(them2))
                        ret_pin = 1
                        ret_run = 1
                        stats[STAT_CUTS] += 1
                        break
                if ret_pin:
                    mode = _RETURN
                    continue
            # Under repetition rules only a node right after a clone has a value that
            # does not depend on the line that reached it.
            cacheable = (not repetition) or clock == 0
            s_cache[ply] = cacheable
            b = min(lim - clock, 255)
            r = min(real_lim - clock, 255)
            bound, tt_move, tt_score, e_budget, e_pin, e_fake, e_stamp, e_real = _probe(
                tt_keys, tt_data, h)
            if cacheable and ply > 0 and bound != BOUND_NONE:
                same = e_stamp == stamp
                real_end = lim == real_lim
                lower = bound != BOUND_UPPER and _valid(
                    True, e_budget, e_pin, e_fake, e_real, same, b, r, real_end, favoured)
                upper = bound != BOUND_LOWER and _valid(
                    False, e_budget, e_pin, e_fake, e_real, same, b, r, real_end, favoured)
                cut = (lower and upper) or (lower and tt_score >= beta) or (
                    upper and tt_score <= alpha)
                if cut:
                    ret_fake = 1 if e_fake else 0
                    ret = tt_score
                    if e_pin:
                        ret_pin = 1
                    else:
                        ret_run = e_budget
                    mode = _RETURN
                    continue
            s_orig_alpha[ply] = alpha
            s_best[ply] = -INF
            s_best_move[ply] = NO_MOVE
            s_run[ply] = 0
            s_pin[ply] = 0
            s_fake[ply] = 0
            s_dep[ply] = n
            count = generate_moves(us, empty, moves[ply])
            if count == 0:
                moves[ply, 0] = PASS_MOVE
                keys[ply, 0] = 0
                count = 1
            else:
                # The side that must prove its bound prefers the moves that leave the other
                # side few replies, as every reply has to be answered (fastest first),
                # and first of all a move whose reply is already known to lose
                # (enhanced transposition cut-off).
                fastest = popcount(empty) >= FF_EMPTIES and (
                    (artificial and not favoured) or (not artificial and alpha >= _HALF - 1))
                for j in range(count):
                    m = moves[ply, j]
                    to = m & 0xFF
                    frm = m >> 8
                    gain = 4 * np.int64(popcount(SINGLES[to] & them))
                    if frm == CLONE_FROM:
                        gain += 4
                    else:
                        # A jump leaves a hole: friendly pieces around it can be retaken.
                        gain -= 2 + np.int64(popcount(SINGLES[frm] & us & ~SINGLES[to]))
                    if fastest:
                        us2, them2 = make_move(us, them, m)
                        gain -= np.int64(count_moves(them2, playable & ~(us2 | them2)))
                        h2 = position_hash(them2, us2, 1 - color) ^ salt
                        bound2, _m2, score2, budget2, pin2, fake2, stamp2, real2 = _probe(
                            tt_keys, tt_data, h2)
                        if bound2 in (BOUND_UPPER, BOUND_EXACT) and score2 <= -beta:
                            if frm == CLONE_FROM:
                                b2 = min(seg_lim, 255)
                                r2 = min(real_lim, 255)
                                end2 = seg_lim == real_lim
                            else:
                                b2 = b - 1
                                r2 = r - 1
                                end2 = lim == real_lim
                            if _valid(False, budget2, pin2, fake2, real2, stamp2 == stamp,
                                      b2, r2, end2, not favoured):
                                gain += _TT_KEY * 2
                    if (them & ~SINGLES[to]) == 0 or (frm == CLONE_FROM and empty == (
                            np.uint64(1) << np.uint64(to))):
                        # Ends the game (scored without a node): first.
                        keys[ply, j] = _TT_KEY + 1 + gain
                    else:
                        keys[ply, j] = _TT_KEY if m == tt_move else gain
            s_n[ply] = count
            s_i[ply] = 0
            mode = _NEXT
            continue

        if mode == _NEXT:
            i = s_i[ply]
            count = s_n[ply]
            if i >= count:
                best = s_best[ply]
                ret_run = s_run[ply]
                ret_pin = s_pin[ply]
                ret_fake = s_fake[ply]
                ret_dep = s_dep[ply]
                if s_cache[ply] and ret_dep >= ply:
                    orig = s_orig_alpha[ply]
                    bound = BOUND_UPPER if best <= orig else BOUND_EXACT
                    _store_node(tt_keys, tt_data, s_hash[ply], bound, s_best_move[ply],
                                best, ret_run, ret_pin, ret_fake, stamp, s_lim[ply],
                                s_clock[ply], real_lim,
                                playable & ~(s_us[ply] | s_them[ply]))
                ret = best
                mode = _RETURN
                continue
            m = pick_next(moves, keys, ply, i, count)
            s_i[ply] = i + 1
            s_cur[ply] = m
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            us2 = s_us[ply]
            them2 = s_them[ply]
            if m != PASS_MOVE:
                us2, them2 = make_move(us2, them2, m)
            empty2 = playable & ~(us2 | them2)
            inline = False
            if them2 == 0 or empty2 == 0:
                # The game ends with this move (no pieces left, or a full board):
                # scored here, as decisive_end would, without entering a node.
                n_a = np.int64(popcount(us2))
                n_b = np.int64(popcount(them2))
                ret = by_count(n_b, n_a, 1 - s_color[ply], tie_second) * WIN + n_b - n_a
                ret_pin = 0
                ret_fake = 0
                inline = True
            elif (not repetition and (m == PASS_MOVE or (m >> 8) != CLONE_FROM)
                  and s_clock[ply] + 1 >= s_lim[ply]
                  and (stuck == STUCK_PASS or has_moves(them2, empty2))):
                # The child is cut at once (real limit or horizon): the game cannot end
                # there first (after a jump or a pass someone can move, and the child
                # can move or passes), so its value is the draw's margin or the cut's.
                if s_clock[ply] + 1 >= real_lim:
                    ret = np.int64(popcount(them2)) - np.int64(popcount(us2))
                    ret_fake = 0
                else:
                    ret = -CUT if favoured_at(s_color[ply], color0, cut_sign) else CUT
                    ret_fake = 1
                ret_pin = 1
                stats[STAT_CUTS] += 1
                inline = True
            if i == 0 or beta - alpha == 1:
                s_null[ply] = 0
                ca, cb = -beta, -alpha
            else:
                s_null[ply] = 1
                ca, cb = -alpha - 1, -alpha
            if (not inline and (empty2 & (empty2 - np.uint64(1))) == 0
                    and (expand(them2) & empty2) != 0 and ply + 1 < MAX_PLY
                    and (not repetition or (m != PASS_MOVE and (m >> 8) == CLONE_FROM)
                         or s_clock[ply] + 1 < 4)):
                # The child has one empty square and can fill it: when that already
                # refutes this move (the child's own first test, see _ENTER), score it
                # here. The child is not cut, not over and no repetition.
                flips = np.int64(popcount(us2 & SINGLES[lowest_square(empty2)]))
                n_a = np.int64(popcount(them2)) + 1 + flips
                n_b = np.int64(popcount(us2)) - flips
                fill = by_count(n_a, n_b, 1 - s_color[ply], tie_second) * WIN + n_a - n_b
                if fill >= cb:
                    ret = fill
                    ret_pin = 0
                    ret_fake = 0
                    inline = True
            if inline:
                nodes += 1
                ret_run = 0
                ret_dep = n
                s_null[ply] = 0
                pv_len[ply + 1] = ply + 1
                ply += 1
                mode = _RETURN
                continue
            _push(ply, m, ca, cb, s_us, s_them, s_color, s_clock, s_lim, s_alpha, s_beta,
                  seg_lim)
            ply += 1
            mode = _ENTER
            continue

        # mode == _RETURN
        if ply == 0:
            stats[STAT_FAKE] = ret_fake
            break
        ply -= 1
        v = -ret
        m = s_cur[ply]
        # What the value assumed about the clock passes up through non-clone moves;
        # an artificial cut anywhere below taints the value.
        if m == PASS_MOVE or (m >> 8) != CLONE_FROM:
            if ret_run + 1 > s_run[ply]:
                s_run[ply] = ret_run + 1
            if ret_pin:
                s_pin[ply] = 1
        if ret_fake:
            s_fake[ply] = 1
        if ret_dep < s_dep[ply]:
            s_dep[ply] = ret_dep
        alpha = s_alpha[ply]
        beta = s_beta[ply]
        if s_null[ply] and alpha < v < beta:
            s_null[ply] = 0
            _push(ply, m, -beta, -alpha, s_us, s_them, s_color, s_clock, s_lim, s_alpha,
                  s_beta, seg_lim)
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
                if v >= beta:
                    ret_run = s_run[ply]
                    ret_pin = s_pin[ply]
                    ret_fake = s_fake[ply]
                    ret_dep = s_dep[ply]
                    if s_cache[ply] and ret_dep >= ply:
                        _store_node(tt_keys, tt_data, s_hash[ply], BOUND_LOWER, m, v,
                                    ret_run, ret_pin, ret_fake, stamp, s_lim[ply],
                                    s_clock[ply], real_lim,
                                playable & ~(s_us[ply] | s_them[ply]))
                    ret = v
                    mode = _RETURN
                    continue
    stats[STAT_NODES] = nodes
    length = pv_len[0]
    for k in range(length):
        pv_out[k] = pv[0, k]
    stats[STAT_PV_LEN] = length
    return ret


@njit(inline="always", cache=True)
def _store_node(tt_keys, tt_data, h, bound, move, score, run, pinned, fake, stamp, lim, clock,
                real_lim, empty):
    """Store a node's bound with the budget its validity is measured against (see ``_valid``)."""
    # Pinned by the real limit alone means the horizon and the real limit coincide
    # in this segment, so the budget is the same either way.
    budget = lim - clock if pinned else run
    _store(tt_keys, tt_data, h, bound, move, score, min(budget, 255), pinned, fake, stamp,
           np.int64(popcount(empty)), lim == real_lim)


@njit(inline="always", cache=True)
def _push(ply, move, alpha, beta, s_us, s_them, s_color, s_clock, s_lim, s_alpha,
          s_beta, seg_lim):
    us = s_us[ply]
    them = s_them[ply]
    clock = s_clock[ply] + 1
    lim = s_lim[ply]
    if move != PASS_MOVE:
        if move >> 8 == CLONE_FROM:
            clock = 0
            lim = seg_lim
        us, them = make_move(us, them, move)
    s_us[ply + 1] = them
    s_them[ply + 1] = us
    s_color[ply + 1] = 1 - s_color[ply]
    s_clock[ply + 1] = clock
    s_lim[ply + 1] = lim
    s_alpha[ply + 1] = alpha
    s_beta[ply + 1] = beta


@dataclass(frozen=True)
class EndgameResult:
    """The exact value for the side to move and a best move (``None`` if the game is over)."""

    #: +1 win, 0 draw, -1 loss for the side to move.
    result: int
    #: final pieces of the side to move minus the opponent's, with best play.
    margin: int
    move: Move | None
    pv: list[Move] = field(default_factory=list)
    nodes: int = 0
    #: False only if a line hit the solver's depth cap (see MAX_PLY).
    exact: bool = True
    #: False when solved with ``margin=False``: ``margin`` is then only a bound
    #: (at least it for a win or a draw, at most it for a loss).
    margin_exact: bool = True

    @property
    def value(self) -> int:
        return self.result * WIN + self.margin


def _decode(value: int) -> tuple[int, int]:
    result = (value + WIN // 2) // WIN
    return result, value - result * WIN


@dataclass(frozen=True)
class Bounds:
    """What a solve has proven so far: ``lower <= value <= upper`` (``EndgameResult.value``).

    ``-INF`` and ``INF`` stand for "nothing proven on that side". Every proven answer
    tightens one side; a finished exact solve ends with both equal to the value.
    """

    lower: int = -INF
    upper: int = INF
    nodes: int = 0

    def decoded(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        """``(lower, upper)`` as ``(result, margin)`` pairs (+1 win, 0 draw, -1 loss), None
        for a side with nothing proven."""
        return (_decode(self.lower) if self.lower > -INF else None,
                _decode(self.upper) if self.upper < INF else None)

    def describe(self) -> str:
        """The bounds in words: "a win, margin +3 to +9", "at least a draw", ..."""
        words = {1: "a win", 0: "a draw", -1: "a loss"}
        low, high = self.decoded()
        if low is not None and high is not None and low[0] == high[0]:
            span = f"{low[1]:+d}" if low == high else f"{low[1]:+d} to {high[1]:+d}"
            return f"{words[low[0]]}, margin {span}"
        parts = []
        if low is not None:
            result, m = low
            parts.append(f"a win, margin at least {m:+d}" if result > 0 else "at least a draw"
                         if result == 0 else f"at worst a loss, margin at least {m:+d}")
        if high is not None:
            result, m = high
            parts.append(f"a loss, margin at most {m:+d}" if result < 0 else "at most a draw"
                         if result == 0 else f"at best a win, margin at most {m:+d}")
        return "; ".join(parts) or "nothing proven yet"


#: a stamp per horizon pass and table: entries resting on artificial cuts are only
#: used in the pass that made them. A wrapped counter clears the table first.
_STAMPS: weakref.WeakKeyDictionary[TranspositionTable, int] = weakref.WeakKeyDictionary()


def _next_stamp(tt: TranspositionTable) -> int:
    stamp = (_STAMPS.get(tt, 0) + 1) & _STAMP_MASK
    if stamp == 0:
        tt.clear()
        stamp = 1
    _STAMPS[tt] = stamp
    return stamp


def _rules_salt(pos: KernelPosition) -> int:
    """A key salt for the rule set and the blocks: values differ between rule sets."""
    x = (pos.playable * 0x9E3779B97F4A7C15 + pos.fifty * 0xC2B2AE3D27D4EB4F
         + pos.stuck * 0x165667B19E3779F9 + int(pos.tie_second) * 0x27D4EB2F165667C5
         + int(pos.repetition) * 0x94D049BB133111EB) & ((1 << 64) - 1)
    x ^= x >> 31
    return (x * 0xBF58476D1CE4E5B9) & ((1 << 64) - 1)


#: the artificial horizons tried before the real rules, in non-clone plies per segment.
HORIZONS = (2, 4, 8, 16, 32, 64)
#: node budget of each probe in the first round of the scheduler; doubled every round.
FIRST_ROUND_NODES = 20_000


class _OutOfNodes(Exception):
    """The caller's node budget, ``stop`` or ``control`` ended the solve."""


def solve(
    board: Board,
    *,
    max_nodes: int | None = None,
    stop: threading.Event | None = None,
    tt: TranspositionTable | None = None,
    control: np.ndarray | None = None,
    margin: bool = True,
    progress: Callable[[Bounds], None] | None = None,
) -> EndgameResult | None:
    """Solve ``board`` exactly; ``None`` if ``max_nodes``, ``stop`` or ``control`` cut it short.

    ``progress`` is called with the proven ``Bounds`` each time a probe tightens
    them (from the solving thread), so a caller that gives up still knows, for
    example, that the position is at least a draw.

    With ``margin=False`` only win / draw / loss is proven (cheaper: one or two
    proofs, where the margin takes a series of probes, each proving a bound and
    its converse), and ``move`` wins or
    draws; a lost position comes back with ``move`` None. ``max_nodes`` counts the
    nodes of every probe, scored-in-place children included.

    >>> from gameclub.ataxx import Board
    >>> r = solve(Board("xxx/xxo/oo1 x 0 1"))
    >>> (r.result, r.margin, r.move.uci())
    (1, 7, 'c1')
    """
    outcome = board.outcome()
    if outcome is not None:
        x, o = outcome.score
        mover = int(board.turn)
        final = (o - x) if mover else (x - o)
        result = 0 if outcome.winner is None else (1 if int(outcome.winner) == mover else -1)
        return EndgameResult(result, final, None)
    pos = KernelPosition.from_board(board)
    if tt is None:
        tt = TranspositionTable(16)
    tt.new_search()  # the generation is unused here; kept for the table's other users
    salt = np.uint64(_rules_salt(pos))
    # The kernel salts every hash of the line with the rule set; the game's earlier
    # positions must be salted alike to be recognised when the line returns to one.
    prior = pos.prior ^ salt
    if control is None:
        control = np.zeros(1, dtype=np.int64)
    watcher = None
    done = threading.Event()
    if stop is not None:
        def watch() -> None:
            while not done.wait(0.005):
                if stop.is_set():
                    control[0] = 1
                    return
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
    pv_out = np.zeros(MAX_PLY + 2, dtype=np.int64)
    stats = np.zeros(N_STATS, dtype=np.int64)
    budget = max_nodes if max_nodes is not None else (1 << 62)
    nodes = 0
    capped = False
    # The horizons worth trying lie below the real limit; 0 stands for the real rules.
    real = pos.fifty if pos.fifty > 0 else 0
    levels = [h for h in HORIZONS if real == 0 or h < real] + [0]
    stamps: dict[tuple[int, int], int] = {}
    proven = Bounds()

    def probe(horizon: int, mode: int, alpha: int, beta: int, cap: int) -> Probed | None:
        """One null-window probe under ``horizon`` and pass ``mode`` with at most ``cap`` nodes.

        ``None`` when ``cap`` ran out; ``_OutOfNodes`` when the caller's budget or a
        stop request did.
        """
        nonlocal nodes, capped, proven
        if (horizon, mode) not in stamps:
            stamps[horizon, mode] = _next_stamp(tt)
        allowed = min(cap, budget - nodes)
        value = int(
            solve_kernel(
                np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable), pos.color,
                pos.clock, pos.stuck, pos.tie_second, pos.fifty, pos.repetition, prior,
                horizon, mode, alpha, beta, tt.keys, tt.data, stamps[horizon, mode], salt,
                control, allowed, pv_out, stats,
            )
        )
        nodes += int(stats[STAT_NODES])
        if stats[STAT_ABORTED]:
            if control[0] != 0 or nodes >= budget:
                raise _OutOfNodes
            return None
        if horizon == 0:
            capped = capped or bool(stats[STAT_CAPPED])
        pv = [int(m) for m in pv_out[: stats[STAT_PV_LEN]]]
        got = Probed(value, mode, horizon == 0 or not stats[STAT_FAKE], pv)
        if progress is not None and _settles(got, beta):
            # Fail-soft: a "yes" proves value >= got.value, a "no" value <= got.value.
            if value >= beta and value > proven.lower:
                proven = Bounds(value, proven.upper, nodes)
                progress(proven)
            elif value < beta and value < proven.upper:
                proven = Bounds(proven.lower, value, nodes)
                progress(proven)
        return got

    try:
        found = _exact(probe, levels) if margin else _wld(probe, levels)
    except _OutOfNodes:
        return None
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    value, codes = found
    pv = [from_kernel_move(m) for m in codes]
    result, diff = _decode(value)
    if not margin and result < 0:
        pv = []
    return EndgameResult(result, diff, pv[0] if pv else None, pv, nodes, exact=not capped,
                         margin_exact=margin)


@dataclass(frozen=True)
class Probed:
    """One null-window probe: fail-soft value, its pass, whether it is real, principal variation."""

    value: int
    mode: int
    real: bool
    pv: list[int]


Probe = Callable[[int, int, int, int, int], "Probed | None"]


def _settles(got: Probed, b: int) -> bool:
    """Whether the answer of a probe "value >= b" holds under the real rules.

    A pessimistic pass can only prove "yes" (its cuts are worth less than anything
    real to the root's side), an optimistic one only "no"; a value that rests on no
    cut is real either way.
    """
    g = got.value
    return got.real or (g >= b and got.mode == PESSIMISTIC) or (
        g < b and got.mode == OPTIMISTIC)


def _schedule(probe: Probe, levels: list[int], questions: list[int],
              answer: Callable[[int, Probed], bool]) -> None:
    """Ask "value >= b" for each ``b`` of ``questions``, in order, until ``answer`` says done.

    For one question the two passes take turns, each at the shortest horizon that
    could still settle it, with a node budget that doubles whenever a round ends
    with every probe out of budget (a retried probe finds its completed subtrees
    in the table). A probe that completes without settling the question shows that
    no shorter horizon can settle it in that pass either (a shorter horizon only
    adds cuts), so that pass moves on to the next horizon; both end at the real
    rules, which always settle. ``answer`` gets every settled answer and returns
    True when the questions are all answered (it may also close questions by
    removing them from ``questions``).
    """
    while questions:
        b = questions[0]
        frontier = {PESSIMISTIC: 0, OPTIMISTIC: 0}
        cap = FIRST_ROUND_NODES
        settled = False
        while not settled:
            completed = False
            for mode in (PESSIMISTIC, OPTIMISTIC):
                index = frontier[mode]
                horizon = levels[index]
                if horizon == 0 and mode == OPTIMISTIC and frontier[PESSIMISTIC] == index:
                    continue  # one pass of the real rules serves both
                got = probe(horizon, mode if horizon else REAL, b - 1, b, cap)
                if got is None:
                    continue
                completed = True
                if _settles(got, b):
                    settled = True
                    if answer(b, got):
                        return
                    break
                frontier[mode] = index + 1
            if not completed:
                cap *= 2
        if questions and questions[0] == b:
            questions.pop(0)


def _wld(probe: Probe, levels: list[int]) -> tuple[int, list[int]]:
    """Win / draw / loss only: the fail-soft value of the deciding probe (a bound) and its PV.

    Two questions, "is it a win?" (value >= WIN/2) and "is it a loss?" (value <
    -WIN/2 + 1), scheduled over the horizons (see ``_schedule``). A win or a loss
    ends it; "not a win" and "not a loss" together make a draw, whose move comes
    from the proof of "not a loss".
    """
    return _classify(probe, levels)[0]


def _classify(probe: Probe, levels: list[int]
              ) -> tuple[tuple[int, list[int]], int, int, Probed | None]:
    """``((value, pv), lo, hi, best)``: the deciding bound, the real bounds so far and the
    probe that proved ``lo`` (None if none did)."""
    questions = [_HALF, 1 - _HALF]
    state: dict[str, Probed] = {}

    def answer(b: int, got: Probed) -> bool:
        questions.remove(b)
        won = got.value >= b
        if b == _HALF:
            state["win" if won else "no_win"] = got
            return won or not questions
        state["no_loss" if won else "loss"] = got
        return not won or not questions

    _schedule(probe, levels, questions, answer)
    if "win" in state:
        got = state["win"]
        return (got.value, got.pv), got.value, INF, got
    if "loss" in state:
        got = state["loss"]
        return (got.value, got.pv), -INF, got.value, None
    no_loss = state["no_loss"]
    return (no_loss.value, no_loss.pv), no_loss.value, state["no_win"].value, no_loss


def _exact(probe: Probe, levels: list[int]) -> tuple[int, list[int]]:
    """The root value: win / draw / loss first, then the margin by null-window probes (MTD(f)).

    Each probe "value >= b" is scheduled over the horizons and passes like the
    first two questions. The probe that proved the final lower bound gives the
    move and the principal variation.
    """
    (g, _), lo, hi, best = _classify(probe, levels)
    answers: list[Probed] = []

    def take(_b: int, probed: Probed) -> bool:
        answers.append(probed)
        return True

    while lo < hi:
        b = g + 1 if g == lo else g
        answers.clear()
        _schedule(probe, levels, [b], take)
        g = answers[0].value
        if g < b:
            hi = g
        else:
            lo, best = g, answers[0]
    # ``lo`` starts below every value and only a probe that failed high raises it.
    assert best is not None
    return lo, best.pv
