"""The exact endgame solver: the value of a position under its rule set, with best play.

The value is lexicographic: first win / draw / loss, then the final piece margin
(ours minus theirs, empty squares credited to the filler under an early fill).
Encoded for the kernel as ``result * WIN + margin`` with ``WIN`` larger than any
margin, so one integer alpha-beta search finds both. A fifty-move draw keeps the
piece margin at the moment of the draw as its tie-breaker.

Every game end mirrors ``Board.outcome()``: no pieces, full board, neither side
can move, the stuck policy (pass, lose at once, early fill), the tie policy and
the fifty-move limit (decisive ends first). The halfmove clock is part of the
transposition key whenever the rule set has a fifty-move limit, so values are
exact.

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
from collections.abc import Callable
from dataclasses import dataclass, field

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
from gameclub.ataxx.board import Board
from gameclub.ataxx.engine.terminal import (
    NO_MOVE,
    NOT_OVER,
    KernelPosition,
    by_count,
    decisive_end,
    from_kernel_move,
    position_hash,
)
from gameclub.ataxx.engine.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_NONE,
    BOUND_UPPER,
    TranspositionTable,
)
from gameclub.ataxx.move import Move

WIN = 1000
INF = 10 * WIN
#: deepest line the solver follows; a longer one (endless jumping under a rule set
#: without a move limit) is scored as a draw by count and the result marked inexact.
MAX_PLY = 200

STAT_NODES = 0
STAT_ABORTED = 1
STAT_CAPPED = 2
STAT_PV_LEN = 3
N_STATS = 4

_ENTER = 0
_NEXT = 1
_RETURN = 2

# Solver TT entry (one uint64 next to the key): score 16 bits (offset), move 16,
# run 8, clock 8, bound 2, clock-bound flag 1, generation 6.
_SCORE_OFFSET = 1 << 15
_M16 = np.uint64(0xFFFF)
_M8 = np.uint64(0xFF)
#: move-ordering keys: clones before jumps, each by the pieces they take.
_TT_KEY = np.int64(1) << 40
#: values at or beyond +-WIN/2 are wins or losses, whatever the margin of a draw.
_HALF = WIN // 2
_JUMP_KEY = np.int64(1) << 20


@njit(inline="always", cache=True)
def _probe(keys, data, h):
    """``(bound, move, score, run, clock, pinned)`` of ``h``; bound BOUND_NONE on a miss."""
    slot = h & np.uint64(keys.size - 1)
    if keys[slot] != h:
        return BOUND_NONE, NO_MOVE, 0, 0, 0, False
    e = data[slot]
    score = np.int64(e & _M16) - _SCORE_OFFSET
    move = np.int64((e >> np.uint64(16)) & _M16)
    run = np.int64((e >> np.uint64(32)) & _M8)
    clock = np.int64((e >> np.uint64(40)) & _M8)
    bound = np.int64((e >> np.uint64(48)) & np.uint64(3))
    pinned = ((e >> np.uint64(50)) & np.uint64(1)) != np.uint64(0)
    return bound, move, score, run, clock, pinned


@njit(inline="always", cache=True)
def _store(keys, data, h, bound, move, score, run, clock, pinned, generation):
    slot = h & np.uint64(keys.size - 1)
    if move == NO_MOVE and keys[slot] == h:
        move = np.int64((data[slot] >> np.uint64(16)) & _M16)
    keys[slot] = h
    data[slot] = (
        np.uint64(score + _SCORE_OFFSET)
        | (np.uint64(move & 0xFFFF) << np.uint64(16))
        | (np.uint64(min(run, 255)) << np.uint64(32))
        | (np.uint64(min(clock, 255)) << np.uint64(40))
        | (np.uint64(bound) << np.uint64(48))
        | (np.uint64(1 if pinned else 0) << np.uint64(50))
        | (np.uint64(generation) << np.uint64(58))
    )


@njit(cache=True, nogil=True)
def solve_kernel(us0, them0, playable, color0, clock0, stuck, tie_second, fifty, repetition,
                 prior, alpha0, beta0, tt_keys, tt_data, generation, control, max_nodes,
                 pv_out, stats):
    """Exact value of the root within ``(alpha0, beta0)`` (fail-soft).

    Every node also returns what its value assumed about the clock (fifty-move
    rule): ``run``, the longest run of non-clone plies the search walked below it,
    and ``pinned``, whether a line reached the move limit (then the value holds
    for this clock only). The table keys positions without the clock and an
    entry serves a node whose clock is ``c`` when ``c + run < fifty`` (or, if
    pinned, when ``c`` is the clock it was stored with).
    """
    n = MAX_PLY + 2
    s_us = np.empty(n, dtype=np.uint64)
    s_them = np.empty(n, dtype=np.uint64)
    s_hash = np.empty(n, dtype=np.uint64)
    s_color = np.empty(n, dtype=np.int64)
    s_clock = np.empty(n, dtype=np.int64)
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
    s_dep = np.empty(n, dtype=np.int64)
    moves = np.empty((n, MAX_MOVES), dtype=np.int64)
    keys = np.empty((n, MAX_MOVES), dtype=np.int64)
    pv = np.empty((n, n), dtype=np.int64)
    pv_len = np.zeros(n, dtype=np.int64)

    s_us[0] = us0
    s_them[0] = them0
    s_color[0] = color0
    s_clock[0] = clock0
    s_alpha[0] = alpha0
    s_beta[0] = beta0
    stats[STAT_ABORTED] = 0
    stats[STAT_CAPPED] = 0
    nodes = 0
    ply = 0
    mode = _ENTER
    ret = 0
    ret_run = 0
    ret_pin = 0
    ret_dep = n
    # Under a move limit without a repetition rule, a win (or loss) proof never
    # needs to come back to a position of its own line (see _revisit_cut).
    cut_revisits = fifty > 0 and not repetition
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
            ret_dep = n
            result, margin = decisive_end(us, them, playable, color, stuck, tie_second)
            if result != NOT_OVER:
                ret = result * WIN + margin
                mode = _RETURN
                continue
            h = position_hash(us, them, color)
            s_hash[ply] = h
            margin = np.int64(popcount(us)) - np.int64(popcount(them))
            if repetition and clock >= 4:
                seen = False
                back = 2
                while back <= clock and not seen:
                    k = ply - back
                    if k >= 0:
                        seen = s_hash[k] == h
                    elif prior.size + k >= 0:
                        seen = prior[prior.size + k] == h
                    back += 2
                if seen:
                    ret = by_count(popcount(us), popcount(them), color, tie_second) * WIN + margin
                    mode = _RETURN
                    continue
            if cut_revisits and clock >= 2:
                alpha = s_alpha[ply]
                beta = s_beta[ply]
                if alpha >= _HALF - 1 or beta <= 1 - _HALF:
                    back = 2
                    while back <= clock and back <= ply:
                        if s_hash[ply - back] == h:
                            ret_dep = ply - back
                            break
                        back += 2
                    if ret_dep < n:
                        ret = alpha if alpha >= _HALF - 1 else beta
                        mode = _RETURN
                        continue
            if fifty > 0 and clock >= fifty:
                ret = margin
                ret_pin = 1
                mode = _RETURN
                continue
            if ply >= MAX_PLY:
                stats[STAT_CAPPED] += 1
                ret = margin
                ret_pin = 1
                mode = _RETURN
                continue
            # Under repetition rules only a node right after a clone has a value that
            # does not depend on the line that reached it.
            cacheable = (not repetition) or clock == 0
            s_cache[ply] = cacheable
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            bound, tt_move, tt_score, e_run, e_clock, e_pin = _probe(tt_keys, tt_data, h)
            if cacheable and ply > 0 and bound != BOUND_NONE:
                lower = bound != BOUND_UPPER
                upper = bound != BOUND_LOWER
                valid = fifty == 0 or (e_clock == clock if e_pin else clock + e_run < fifty)
                if not valid:
                    # A win or loss bound does not rest on fifty-move draws: it holds
                    # with more clock left (a proof of >= WIN/2 or <= -WIN/2) or with
                    # less (a proof that the mover cannot win, or cannot lose).
                    monotone = not repetition and fifty < 256
                    win = tt_score >= _HALF
                    loss = tt_score <= -_HALF
                    more = clock <= e_clock
                    less = clock >= e_clock
                    lower = lower and monotone and ((win and more) or (loss and less))
                    upper = upper and monotone and ((loss and more) or (win and less))
                if (lower and upper) or (lower and tt_score >= beta) or (
                    upper and tt_score <= alpha
                ):
                    ret = tt_score
                    ret_run = e_run
                    ret_pin = 1 if (e_pin or not valid) else 0
                    mode = _RETURN
                    continue
            s_orig_alpha[ply] = alpha
            s_best[ply] = -INF
            s_best_move[ply] = NO_MOVE
            s_run[ply] = 0
            s_pin[ply] = 0
            s_dep[ply] = n
            empty = playable & ~(us | them)
            count = generate_moves(us, empty, moves[ply])
            if count == 0:
                moves[ply, 0] = PASS_MOVE
                keys[ply, 0] = 0
                count = 1
            else:
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
                ret_dep = s_dep[ply]
                if s_cache[ply]:
                    bound = BOUND_UPPER if best <= s_orig_alpha[ply] else BOUND_EXACT
                    stored = best
                    if ret_pin and bound == BOUND_UPPER and best < _HALF <= s_orig_alpha[ply]:
                        # "No win this big" from lines ending in fifty-move draws: kept as
                        # "no value above WIN/2", which holds for every later clock.
                        stored = _HALF
                    if ret_dep < ply:
                        bound = BOUND_NONE
                    _store(tt_keys, tt_data, s_hash[ply], bound, s_best_move[ply], stored,
                           ret_run, s_clock[ply], ret_pin, generation)
                ret = best
                mode = _RETURN
                continue
            m = pick_next(moves, keys, ply, i, count)
            s_i[ply] = i + 1
            s_cur[ply] = m
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            if i == 0 or beta - alpha == 1:
                s_null[ply] = 0
                ca, cb = -beta, -alpha
            else:
                s_null[ply] = 1
                ca, cb = -alpha - 1, -alpha
            _push(ply, m, ca, cb, s_us, s_them, s_color, s_clock, s_alpha, s_beta)
            ply += 1
            mode = _ENTER
            continue

        # mode == _RETURN
        if ply == 0:
            break
        ply -= 1
        v = -ret
        m = s_cur[ply]
        # What the value assumed about the clock passes up through non-clone moves.
        if m == PASS_MOVE or (m >> 8) != CLONE_FROM:
            if ret_run + 1 > s_run[ply]:
                s_run[ply] = ret_run + 1
            if ret_pin:
                s_pin[ply] = 1
        if ret_dep < s_dep[ply]:
            s_dep[ply] = ret_dep
        alpha = s_alpha[ply]
        beta = s_beta[ply]
        if s_null[ply] and alpha < v < beta:
            s_null[ply] = 0
            _push(ply, m, -beta, -alpha, s_us, s_them, s_color, s_clock, s_alpha, s_beta)
            ply += 1
            mode = _ENTER
            continue
        mode = _NEXT
        if v > s_best[ply]:
            s_best[ply] = v
            s_best_move[ply] = m
            if v > alpha:
                s_alpha[ply] = v
                pv[ply, ply] = m
                child_len = pv_len[ply + 1]
                for k in range(ply + 1, child_len):
                    pv[ply, k] = pv[ply + 1, k]
                pv_len[ply] = max(child_len, ply + 1)
                if v >= beta:
                    ret_run = s_run[ply]
                    ret_pin = s_pin[ply]
                    ret_dep = s_dep[ply]
                    if s_cache[ply]:
                        stored = v
                        bound = BOUND_LOWER
                        if ret_pin and v > -_HALF >= beta:
                            stored = -_HALF
                        if ret_dep < ply:
                            bound = BOUND_NONE
                        _store(tt_keys, tt_data, s_hash[ply], bound, m, stored, ret_run,
                               s_clock[ply], ret_pin, generation)
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
def _push(ply, move, alpha, beta, s_us, s_them, s_color, s_clock, s_alpha,
          s_beta):
    us = s_us[ply]
    them = s_them[ply]
    clock = s_clock[ply] + 1
    if move != PASS_MOVE:
        if move >> 8 == CLONE_FROM:
            clock = 0
        us, them = make_move(us, them, move)
    s_us[ply + 1] = them
    s_them[ply + 1] = us
    s_color[ply + 1] = 1 - s_color[ply]
    s_clock[ply + 1] = clock
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


def solve(
    board: Board,
    *,
    max_nodes: int | None = None,
    stop: threading.Event | None = None,
    tt: TranspositionTable | None = None,
    control: np.ndarray | None = None,
    margin: bool = True,
) -> EndgameResult | None:
    """Solve ``board`` exactly; ``None`` if ``max_nodes``, ``stop`` or ``control`` cut it short.

    With ``margin=False`` only win / draw / loss is proven (much cheaper: the margin
    search walks the long jump dances), and ``move`` wins or draws; a lost position
    comes back with ``move`` None.

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
    generation = tt.new_search()
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

    def probe(alpha: int, beta: int) -> int | None:
        nonlocal nodes, capped
        value = int(
            solve_kernel(
                np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable), pos.color,
                pos.clock, pos.stuck, pos.tie_second, pos.fifty, pos.repetition, pos.prior,
                alpha, beta, tt.keys, tt.data, generation, control, budget - nodes,
                pv_out, stats,
            )
        )
        nodes += int(stats[STAT_NODES])
        capped = capped or bool(stats[STAT_CAPPED])
        return None if stats[STAT_ABORTED] else value

    try:
        value = _mtd(probe) if margin else _wld(probe)
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    if value is None:
        return None
    pv = [from_kernel_move(m) for m in pv_out[: stats[STAT_PV_LEN]]]
    result, diff = _decode(value)
    if not margin and result < 0:
        pv = []
    return EndgameResult(result, diff, pv[0] if pv else None, pv, nodes, exact=not capped,
                         margin_exact=margin)


def _wld(probe: Callable[[int, int], int | None]) -> int | None:
    """Win / draw / loss only: the fail-soft value of the deciding probe (a bound)."""
    g = probe(WIN // 2 - 1, WIN // 2)
    if g is None or g >= WIN // 2:
        return g
    return probe(-WIN // 2, -WIN // 2 + 1)


def _mtd(probe: Callable[[int, int], int | None]) -> int | None:
    """The root value from null-window probes: win? loss? then the margin (MTD(f)).

    Deciding win / draw / loss first needs only the cheap proofs; the margin is
    then narrowed inside the known class, and a last probe on ``(v - 1, v + 1)``
    leaves a best move and the principal variation for that exact value.
    """
    lo, hi = -INF, INF
    g = probe(WIN // 2 - 1, WIN // 2)
    if g is None:
        return None
    if g >= WIN // 2:
        lo = g
    else:
        hi = g
        g = probe(-WIN // 2, -WIN // 2 + 1)
        if g is None:
            return None
        if g <= -WIN // 2:
            hi = g
        else:
            lo = g
    while lo < hi:
        b = g + 1 if g == lo else g
        g = probe(b - 1, b)
        if g is None:
            return None
        if g < b:
            hi = g
        else:
            lo = g
    return probe(lo - 1, lo + 1)
