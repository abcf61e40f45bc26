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
    tt_probe,
    tt_store,
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
_CLOCK_KEY = np.uint64(0xD6E8FEB86659FD93)


@njit(cache=True, nogil=True)
def solve_kernel(us0, them0, playable, color0, clock0, stuck, tie_second, fifty, repetition,
                 prior, alpha0, beta0, tt_keys, tt_data, generation, control, max_nodes,
                 pv_out, stats):
    """Exact value of the root within ``(alpha0, beta0)`` (fail-soft)."""
    n = MAX_PLY + 2
    s_us = np.empty(n, dtype=np.uint64)
    s_them = np.empty(n, dtype=np.uint64)
    s_hash = np.empty(n, dtype=np.uint64)
    s_key = np.empty(n, dtype=np.uint64)
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
            if fifty > 0 and clock >= fifty:
                ret = margin
                mode = _RETURN
                continue
            if ply >= MAX_PLY:
                stats[STAT_CAPPED] += 1
                ret = margin
                mode = _RETURN
                continue
            key = h
            if fifty > 0:
                key = position_hash(h, np.uint64(clock) * _CLOCK_KEY, 0)
            s_key[ply] = key
            # Under repetition rules only a node right after a clone has a value that
            # does not depend on the line that reached it.
            cacheable = (not repetition) or clock == 0
            s_cache[ply] = cacheable
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            bound, tt_move, tt_score, _ = tt_probe(tt_keys, tt_data, key)
            if cacheable and ply > 0 and bound != BOUND_NONE:
                if (
                    bound == BOUND_EXACT
                    or (bound == BOUND_LOWER and tt_score >= beta)
                    or (bound == BOUND_UPPER and tt_score <= alpha)
                ):
                    ret = tt_score
                    mode = _RETURN
                    continue
                if bound == BOUND_LOWER and tt_score > alpha:
                    alpha = tt_score
                    s_alpha[ply] = alpha
                elif bound == BOUND_UPPER and tt_score < beta:
                    beta = tt_score
                    s_beta[ply] = beta
            s_orig_alpha[ply] = alpha
            s_best[ply] = -INF
            s_best_move[ply] = NO_MOVE
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
                        gain -= 2 + np.int64(popcount(SINGLES[frm] & us & ~SINGLES[to]))
                    keys[ply, j] = (np.int64(1) << 40) if m == tt_move else gain
            s_n[ply] = count
            s_i[ply] = 0
            mode = _NEXT
            continue

        if mode == _NEXT:
            i = s_i[ply]
            count = s_n[ply]
            if i >= count:
                best = s_best[ply]
                bound = BOUND_UPPER if best <= s_orig_alpha[ply] else BOUND_EXACT
                if not s_cache[ply]:
                    bound = BOUND_NONE
                tt_store(tt_keys, tt_data, s_key[ply], bound, s_best_move[ply], best,
                         np.int64(popcount(playable & ~(s_us[ply] | s_them[ply]))), generation)
                ret = best
                mode = _RETURN
                continue
            top = i
            for j in range(i + 1, count):
                if keys[ply, j] > keys[ply, top]:
                    top = j
            m = moves[ply, top]
            moves[ply, top] = moves[ply, i]
            keys[ply, top] = keys[ply, i]
            moves[ply, i] = m
            s_i[ply] = i + 1
            s_cur[ply] = m
            alpha = s_alpha[ply]
            beta = s_beta[ply]
            if i == 0:
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
                    bound = BOUND_LOWER if s_cache[ply] else BOUND_NONE
                    tt_store(tt_keys, tt_data, s_key[ply], bound, m, v,
                             np.int64(popcount(playable & ~(s_us[ply] | s_them[ply]))),
                             generation)
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
) -> EndgameResult | None:
    """Solve ``board`` exactly; ``None`` if ``max_nodes``, ``stop`` or ``control`` cut it short.

    >>> from gameclub.ataxx import Board
    >>> r = solve(Board("xxx/xxo/oo1 x 0 1"))
    >>> (r.result, r.margin, r.move.uci())
    (1, 7, 'c1')
    """
    outcome = board.outcome()
    if outcome is not None:
        x, o = outcome.score
        mover = int(board.turn)
        margin = (o - x) if mover else (x - o)
        result = 0 if outcome.winner is None else (1 if int(outcome.winner) == mover else -1)
        return EndgameResult(result, margin, None)
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
    try:
        value = int(
            solve_kernel(
                np.uint64(pos.us), np.uint64(pos.them), np.uint64(pos.playable), pos.color,
                pos.clock, pos.stuck, pos.tie_second, pos.fifty, pos.repetition, pos.prior,
                -INF, INF, tt.keys, tt.data, generation, control,
                max_nodes if max_nodes is not None else (1 << 62), pv_out, stats,
            )
        )
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    if stats[STAT_ABORTED]:
        return None
    pv = [from_kernel_move(m) for m in pv_out[: stats[STAT_PV_LEN]]]
    result, margin = _decode(value)
    return EndgameResult(result, margin, pv[0] if pv else None, pv, int(stats[STAT_NODES]),
                         exact=bool(stats[STAT_CAPPED] == 0))
