"""The ``master`` search: iterative deepening over a numba principal-variation search.

The kernel is one fixed-depth PVS written as a loop over explicit per-ply stacks
of the rules kernel's compact states (12 pits, 2 stores, the side to move),
compiled once to numba's on-disk cache. Python drives iterative deepening, time
management and the endgame probe; the kernel reads a shared ``control`` array to
stop at once.

What the kernel does (docs/awele-engine.md gives the figures): transposition
table with the best move first; captures ordered by their size, then killers
and history; PVS null windows; quiescence on captures; late-move reductions
(``options``); exact scores of the positions with few seeds. A return to an
earlier position of the game or of the line is scored as the rule set's
repetition end on its first return (the rules end the game on the second or
third: a line that can repeat once can repeat again, as chess engines assume)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from gameclub.awele.engine.evaluate import SEED, default_weights, evaluate
from gameclub.awele.engine.state import (
    RP_FLAGS,
    RP_REPETITION,
    SIDE,
    STATE_SIZE,
    end_margin,
    generate,
    position_key,
    rep_margin,
    search_hash,
)
from gameclub.awele.kernel import NORTH_STORE, SOUTH_STORE
from gameclub.awele.move import Move
from gameclub.awele.solver import south_margin
from gameclub.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    NO_MOVE,
    tt_probe,
    tt_store,
)

if TYPE_CHECKING:
    from gameclub.awele.engine import InfoCallback, SearchLimits, SearchResult
    from gameclub.awele.engine.state import KernelGame

MAX_PLY = 128
INF = 32000
#: a proven win ``n`` plies from the root scores ``WIN - n``.
WIN = 30000
WIN_BOUND = WIN - 1000
#: the bonus of an exactly known win (below WIN_BOUND even with 48 seeds of margin).
KNOWN = 20000
#: room for the game's earlier positions in the history array.
MAX_HISTORY = 2048

STAT_NODES = 0
STAT_SELDEPTH = 1
STAT_ABORTED = 2
STAT_ROOT_MOVE = 3
STAT_ROOT_SCORE = 4
N_STATS = 5

#: options[] switches, so that each search feature can be measured on and off.
#: plies of captures searched beyond the horizon (0: none).
OPT_QSEARCH = 0
#: the first move number (0-based) searched a ply less when it captures nothing (0: off).
OPT_LMR = 1
#: added to the magnitude of an exactly known won or lost end (0: scored by its
#: margin alone), so that a known win outranks any evaluated position.
OPT_KNOWN = 2
N_OPTIONS = 3

#: control[0] non-zero stops the search; control[1] is the node limit.
CONTROL_STOP = 0
CONTROL_MAX_NODES = 1


@njit(inline="always", cache=True)
def _outcome_score(margin, ply):
    """A finished game, from the mover's view: win / loss by distance, draw 0."""
    if margin > 0:
        return WIN - ply
    if margin < 0:
        return -(WIN - ply)
    return 0


@njit(cache=True, nogil=True)
def search_kernel(root, rp, history_hashes, history_seeds, n_history, depth, alpha, beta,
                  keys, data, gen, killers, history, control, stats, pv_out, options,
                  exact_offsets, exact_values, exact_seeds, weights):
    """One fixed-depth PVS of ``root``; returns ``(score, pv length)``, fills ``pv_out``/``stats``.

    ``history_hashes``/``history_seeds`` hold the game's earlier positions (the
    ``n_history`` before the root), so that a return to one of them is seen. A
    node below the root with at most ``exact_seeds`` seeds on the board is scored
    from the exact margins ``exact_offsets``/``exact_values``
    (:mod:`gameclub.awele.engine.exact`; ``exact_seeds`` -1: none); ``weights``
    are the evaluation's (:func:`~gameclub.awele.engine.evaluate.default_weights`). The search is
    a loop over explicit per-ply stacks rather than a recursive function: numba
    cannot reload a cached recursive function.
    """
    size = MAX_PLY + 2
    states = np.zeros((size, STATE_SIZE), dtype=np.uint8)
    states[0, :] = root
    hashes = np.zeros(MAX_HISTORY + size, dtype=np.uint64)
    seeds = np.full(MAX_HISTORY + size, -1, dtype=np.int64)
    start = max(0, n_history - MAX_HISTORY)
    base = n_history - start
    for i in range(base):
        hashes[i] = history_hashes[start + i]
        seeds[i] = history_seeds[start + i]
    pv = np.zeros((size, size), dtype=np.int64)
    pv_len = np.zeros(size, dtype=np.int64)
    moves = np.zeros((size, 6), dtype=np.int64)
    caps = np.zeros((size, 6), dtype=np.int64)
    kids = np.zeros((size, 6, STATE_SIZE), dtype=np.uint8)
    order = np.zeros(6, dtype=np.int64)
    s_alpha = np.zeros(size, dtype=np.int64)
    s_alpha0 = np.zeros(size, dtype=np.int64)
    s_beta = np.zeros(size, dtype=np.int64)
    s_depth = np.zeros(size, dtype=np.int64)
    s_best = np.zeros(size, dtype=np.int64)
    s_best_move = np.zeros(size, dtype=np.int64)
    s_n = np.zeros(size, dtype=np.int64)
    s_k = np.zeros(size, dtype=np.int64)
    s_null = np.zeros(size, dtype=np.int64)
    s_reduced = np.zeros(size, dtype=np.int64)
    s_hash = np.zeros(size, dtype=np.uint64)
    for i in range(N_STATS):
        stats[i] = 0
    stats[STAT_ROOT_MOVE] = -1

    ply = 0
    s_alpha[0] = alpha
    s_beta[0] = beta
    s_depth[0] = depth
    descending = True
    value = 0
    while True:
        if descending:
            # -- entering the node at ``ply``: settle it at once, or start its first child.
            stats[STAT_NODES] += 1
            if (stats[STAT_NODES] & 1023) == 0 and stats[STAT_NODES] >= control[CONTROL_MAX_NODES]:
                control[CONTROL_STOP] = 1
            if control[CONTROL_STOP] != 0:
                stats[STAT_ABORTED] = 1
                return 0, 0
            if ply > stats[STAT_SELDEPTH]:
                stats[STAT_SELDEPTH] = ply
            pv_len[ply] = ply
            row = states[ply]
            side = np.int64(row[SIDE])
            h = search_hash(row)
            s_hash[ply] = h
            index = base + ply
            key = position_key(row)
            hashes[index] = key
            on_board = np.int64(0)
            for i in range(12):
                on_board += np.int64(row[i])
            seeds[index] = on_board
            settled = False
            n = 0
            if ply > 0:
                over, margin = end_margin(row, rp)
                if over:
                    value = _outcome_score(margin, ply)
                    settled = True
                elif rp[RP_REPETITION] != 0:
                    # A return to an earlier position (same side to move): only positions
                    # since the last capture can be equal, with as many seeds in play.
                    back = index - 2
                    while back >= 0 and seeds[back] == on_board:
                        if hashes[back] == key:
                            value = _outcome_score(rep_margin(row, rp), ply)
                            settled = True
                            break
                        back -= 2
                if not settled and on_board <= exact_seeds:
                    # Few seeds left: the exact end, store difference plus the margin.
                    final = (np.int64(row[SOUTH_STORE]) - np.int64(row[NORTH_STORE])
                             + south_margin(row, exact_offsets, exact_values))
                    if side != 0:
                        final = -final
                    value = SEED * final
                    if final > 0:
                        value += options[OPT_KNOWN]
                    elif final < 0:
                        value -= options[OPT_KNOWN]
                    settled = True
            quiet_best = -INF
            if not settled:
                n = generate(row, rp, moves[ply], caps[ply], kids[ply])
                # (n == 0 only at a root where the game is over: nothing to search)
                if n == 0 or ply >= MAX_PLY - 2:
                    value = evaluate(row, weights)
                    settled = True
                elif s_depth[ply] <= 0:
                    # Quiescence: the side to move may stand pat or go on capturing, so
                    # that no leaf is scored in the middle of an exchange.
                    stand = evaluate(row, weights)
                    kept = 0
                    if stand < s_beta[ply] and -s_depth[ply] < options[OPT_QSEARCH]:
                        for i in range(n):
                            if caps[ply, i] > 0:
                                moves[ply, kept] = moves[ply, i]
                                caps[ply, kept] = caps[ply, i]
                                kids[ply, kept, :] = kids[ply, i]
                                kept += 1
                    if kept == 0:
                        value = stand
                        settled = True
                    else:
                        n = kept
                        quiet_best = stand
                        if stand > s_alpha[ply]:
                            s_alpha[ply] = stand
            tt_move = NO_MOVE
            if not settled and s_depth[ply] > 0:
                tt_bound, tt_move, tt_score, tt_depth = tt_probe(keys, data, h)
                if tt_bound != 0 and ply > 0 and tt_depth >= s_depth[ply]:
                    score = tt_score
                    if score > WIN_BOUND:
                        score -= ply
                    elif score < -WIN_BOUND:
                        score += ply
                    if (tt_bound == BOUND_EXACT
                            or (tt_bound == BOUND_LOWER and score >= s_beta[ply])
                            or (tt_bound == BOUND_UPPER and score <= s_alpha[ply])):
                        value = score
                        settled = True
            if not settled:
                # Order: the table's move, captures by size, the two killers, then history.
                for i in range(n):
                    m = moves[ply, i]
                    key = history[side, m]
                    if m == tt_move:
                        key += 1 << 40
                    elif caps[ply, i] > 0:
                        key += (1 << 32) + caps[ply, i] * (1 << 20)
                    elif m == killers[ply, 0]:
                        key += 1 << 30
                    elif m == killers[ply, 1]:
                        key += 1 << 29
                    order[i] = key
                for i in range(1, n):
                    j = i
                    while j > 0 and order[j] > order[j - 1]:
                        tmp = order[j]
                        order[j] = order[j - 1]
                        order[j - 1] = tmp
                        tmp = moves[ply, j]
                        moves[ply, j] = moves[ply, j - 1]
                        moves[ply, j - 1] = tmp
                        tmp = caps[ply, j]
                        caps[ply, j] = caps[ply, j - 1]
                        caps[ply, j - 1] = tmp
                        for c in range(STATE_SIZE):
                            byte = kids[ply, j, c]
                            kids[ply, j, c] = kids[ply, j - 1, c]
                            kids[ply, j - 1, c] = byte
                        j -= 1
                s_n[ply] = n
                s_k[ply] = 0
                s_best[ply] = quiet_best
                s_best_move[ply] = NO_MOVE
                s_alpha0[ply] = s_alpha[ply] if s_depth[ply] > 0 else -INF
                s_null[ply] = 0
                s_reduced[ply] = 0
                states[ply + 1, :] = kids[ply, 0]
                s_alpha[ply + 1] = -s_beta[ply]
                s_beta[ply + 1] = -s_alpha[ply]
                s_depth[ply + 1] = s_depth[ply] - 1
                ply += 1
                continue
            descending = False

        # -- ``value`` is the settled score of the node at ``ply``: hand it to its parent.
        if ply == 0:
            break
        ply -= 1
        score = -value
        k = s_k[ply]
        if s_reduced[ply] == 1 and score > s_alpha[ply]:
            # A reduced late move beat alpha: search it again at full depth.
            s_reduced[ply] = 0
            s_alpha[ply + 1] = -s_alpha[ply] - 1
            s_beta[ply + 1] = -s_alpha[ply]
            s_depth[ply + 1] = s_depth[ply] - 1
            ply += 1
            descending = True
            continue
        if s_null[ply] == 1 and s_alpha[ply] < score < s_beta[ply]:
            # The null window failed high: search the same child again with the full one.
            s_null[ply] = 0
            s_alpha[ply + 1] = -s_beta[ply]
            s_beta[ply + 1] = -s_alpha[ply]
            s_depth[ply + 1] = s_depth[ply] - 1
            ply += 1
            descending = True
            continue
        m = moves[ply, k]
        cut = False
        if score > s_best[ply]:
            s_best[ply] = score
            s_best_move[ply] = m
            if score > s_alpha[ply]:
                s_alpha[ply] = score
                pv[ply, ply] = m
                for j in range(ply + 1, pv_len[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pv_len[ply] = max(pv_len[ply + 1], ply + 1)
                if ply == 0:
                    stats[STAT_ROOT_MOVE] = m
                    stats[STAT_ROOT_SCORE] = score
                if score >= s_beta[ply]:
                    cut = True
                    if caps[ply, k] == 0 and s_depth[ply] > 0:
                        side = np.int64(states[ply, SIDE])
                        if killers[ply, 0] != m:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = m
                        history[side, m] += s_depth[ply] * s_depth[ply]
        if not cut and k + 1 < s_n[ply]:
            k += 1
            s_k[ply] = k
            s_null[ply] = 1
            states[ply + 1, :] = kids[ply, k]
            s_alpha[ply + 1] = -s_alpha[ply] - 1
            s_beta[ply + 1] = -s_alpha[ply]
            s_depth[ply + 1] = s_depth[ply] - 1
            s_reduced[ply] = 0
            # Late moves that capture nothing are searched a ply less first.
            if (options[OPT_LMR] != 0 and k >= options[OPT_LMR] and s_depth[ply] >= 3
                    and caps[ply, k] == 0):
                s_depth[ply + 1] -= 1
                s_reduced[ply] = 1
            ply += 1
            descending = True
            continue
        # Every child searched (or a cut-off): store and settle this node.
        best = s_best[ply]
        if best >= s_beta[ply]:
            bound = BOUND_LOWER
        elif best > s_alpha0[ply]:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        if s_depth[ply] > 0:
            tt_store(keys, data, s_hash[ply], bound, s_best_move[ply], stored, s_depth[ply],
                     gen)
        value = best
        descending = False

    for i in range(pv_len[0]):
        pv_out[i] = pv[0, i]
    return value, pv_len[0]


class MasterSearch:
    """The state ``master`` keeps between moves: hash table, killers, history."""

    def __init__(self, hash_mb: int = 32, exact_seeds: int | None = None) -> None:
        from gameclub.awele.engine.exact import EXACT_SEEDS
        from gameclub.tt import TranspositionTable

        self.tt = TranspositionTable(hash_mb)
        #: seeds on the board at or below which nodes are scored exactly (-1: never).
        self.exact_seeds = EXACT_SEEDS if exact_seeds is None else exact_seeds
        self._exact: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.killers = np.full((MAX_PLY + 2, 2), -1, dtype=np.int64)
        self.history = np.zeros((2, 12), dtype=np.int64)
        self.options = np.zeros(N_OPTIONS, dtype=np.int64)
        self.options[OPT_QSEARCH] = 8
        # Late-move reductions from the third move on (docs/awele-engine.md: from
        # the fourth against none, then from the third against the fourth, 56%
        # each over 200 fixed-node games).
        self.options[OPT_LMR] = 2
        self.options[OPT_KNOWN] = KNOWN
        self.weights = default_weights()

    def exact_table(self, flags: int) -> tuple[np.ndarray, np.ndarray]:
        """The exact margins for the rule set of kernel ``flags`` (built or read once)."""
        key = (flags, self.exact_seeds)
        if key not in self._exact:
            if self.exact_seeds < 0:
                self._exact[key] = (np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int8))
            else:
                from gameclub.awele.engine.exact import exact_table

                self._exact[key] = exact_table(flags, self.exact_seeds)
        return self._exact[key]

    def new_game(self) -> None:
        self.tt.clear()
        self.history[:] = 0
        self.killers[:] = -1

    def warm_up(self) -> None:
        """Load (or compile) the kernel now rather than on the first timed move."""
        from gameclub.awele.board import Board
        from gameclub.awele.engine import SearchLimits
        from gameclub.awele.engine.state import KernelGame

        # Without the exact table: the game's rules may not be the default board's,
        # and its table is built (or read) by the first search under them.
        seeds, self.exact_seeds = self.exact_seeds, -1
        try:
            self.search_game(KernelGame.from_board(Board()), SearchLimits(depth=2))
        finally:
            self.exact_seeds = seeds
        self.new_game()

    def search_game(
        self,
        game: KernelGame,
        limits: SearchLimits,
        info: InfoCallback | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Search ``game``'s position within ``limits``; ``info`` hears each finished depth."""
        from gameclub.awele.engine import SearchResult
        from gameclub.awele.engine.timeman import allocate

        started = time.perf_counter()
        budget = allocate(limits, game.on_board)
        control = np.zeros(2, dtype=np.int64)
        control[CONTROL_MAX_NODES] = limits.nodes if limits.nodes is not None else (1 << 62)
        done = threading.Event()
        watchdog = threading.Thread(
            target=_watch, args=(control, done, stop, started, budget.hard), daemon=True
        )
        watchdog.start()
        try:
            legal = game.legal_pits()
            if len(legal) == 1 and limits.depth is None and not limits.infinite:
                only = Move(legal[0])
                return SearchResult(move=only, depth=0, pv=[only],
                                    time=time.perf_counter() - started)
            exact_offsets, exact_values = self.exact_table(int(game.rules[RP_FLAGS]))
            generation = self.tt.new_search()
            self.killers[:] = -1
            self.history //= 8
            max_depth = min(limits.depth or MAX_PLY - 4, MAX_PLY - 4)
            pv_out = np.zeros(MAX_PLY + 2, dtype=np.int64)
            stats = np.zeros(N_STATS, dtype=np.int64)
            best: SearchResult | None = None
            nodes = 0
            for depth in range(1, max_depth + 1):
                control[CONTROL_MAX_NODES] = (
                    limits.nodes - nodes if limits.nodes is not None else (1 << 62)
                )
                value, length = search_kernel(
                    game.root, game.rules, game.keys, game.seeds, len(game.keys), depth,
                    -INF, INF, self.tt.keys, self.tt.data, generation, self.killers,
                    self.history, control, stats, pv_out, self.options,
                    exact_offsets, exact_values, self.exact_seeds, self.weights,
                )
                nodes += int(stats[STAT_NODES])
                elapsed = time.perf_counter() - started
                if stats[STAT_ABORTED]:
                    # An unfinished iteration whose first root move was searched to the
                    # end still proved that move at least as good as the last answer.
                    partial = int(stats[STAT_ROOT_MOVE])
                    if best is not None and partial >= 0 and partial != best.move and (
                        int(stats[STAT_ROOT_SCORE]) > best.score
                    ):
                        best = SearchResult(
                            move=Move(partial), score=int(stats[STAT_ROOT_SCORE]),
                            depth=best.depth, seldepth=best.seldepth, nodes=nodes, time=elapsed,
                            pv=[Move(partial)],
                        )
                    break
                score = int(value)
                pv = [Move(int(m)) for m in pv_out[: int(length)]]
                win = None
                if abs(score) >= WIN_BOUND:
                    win = (WIN - abs(score)) * (1 if score > 0 else -1)
                result = SearchResult(
                    move=pv[0], score=score, win_in=win, depth=depth,
                    seldepth=int(stats[STAT_SELDEPTH]), nodes=nodes, time=elapsed, pv=pv,
                )
                best = result
                if info is not None:
                    info(result)
                if win is not None and abs(win) <= depth:
                    break  # proven within the horizon: deeper cannot change it
                if limits.nodes is not None and nodes >= limits.nodes:
                    break
                if budget.soft is not None and elapsed >= budget.soft:
                    break
                if control[CONTROL_STOP]:
                    break
            if best is None:
                # Stopped before depth 1 finished: any legal move beats none.
                pit = int(stats[STAT_ROOT_MOVE]) if stats[STAT_ROOT_MOVE] >= 0 else legal[0]
                best = SearchResult(move=Move(pit), depth=0, nodes=nodes, pv=[Move(pit)])
            best.nodes = nodes
            best.time = time.perf_counter() - started
            return best
        finally:
            done.set()
            watchdog.join()


def _expired(stop: threading.Event | None, started: float, hard: float | None) -> bool:
    if stop is not None and stop.is_set():
        return True
    return hard is not None and time.perf_counter() - started >= hard


def _watch(control: np.ndarray, done: threading.Event, stop: threading.Event | None,
           started: float, hard: float | None) -> None:
    """Raise ``control[0]`` when the hard limit passes or ``stop`` is set."""
    while not done.wait(0.002):
        if _expired(stop, started, hard):
            control[CONTROL_STOP] = 1
            return
