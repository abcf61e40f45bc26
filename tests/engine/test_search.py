"""The ``master`` search: legal answers, limits, stopping, forced wins, determinism."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from gameclub.ataxx import ATAXX, PRESSIBUS, SITE_2005, Board, RuleSet
from gameclub.ataxx.engine import Engine, SearchLimits, SearchResult, choose_move
from gameclub.ataxx.engine.search import MasterSearch
from gameclub.ataxx.engine.timeman import allocate

from .conftest import random_board


@pytest.fixture(scope="module")
def master() -> Engine:
    engine = Engine("master", seed=1, hash_mb=4)
    engine.new_game()
    return engine


def assert_pv_legal(board: Board, result: SearchResult) -> None:
    assert result.pv and result.pv[0] == result.move
    replay = board.copy()
    for move in result.pv:
        assert replay.is_legal(move), (board.fen(), [m.uci() for m in result.pv])
        replay.push(move)


@pytest.mark.parametrize("rules", [ATAXX, SITE_2005, PRESSIBUS], ids=lambda r: r.name)
def test_never_an_illegal_move_and_the_pv_is_legal(master: Engine, rules: RuleSet,
                                                   rng: random.Random) -> None:
    for _ in range(12):
        size = rng.choice((4, 5, 6, 7))
        board = random_board(rng, size, size, rng.randrange(1, size * size - 2), rules)
        result = master.search(board, SearchLimits(depth=rng.randrange(1, 5)))
        assert board.is_legal(result.move)
        assert_pv_legal(board, result)


def test_a_game_of_legal_moves_to_the_end(master: Engine) -> None:
    board = Board()
    while board.outcome() is None:
        result = master.search(board, SearchLimits(nodes=3000))
        assert board.is_legal(result.move)
        board.push(result.move)
    assert board.outcome() is not None


def test_depth_limit_is_respected(master: Engine) -> None:
    depths: list[int] = []
    result = master.search(Board(), SearchLimits(depth=4), info=lambda r: depths.append(r.depth))
    assert result.depth == 4
    assert depths == [1, 2, 3, 4]


@pytest.mark.parametrize("nodes", [1, 50, 5000, 40000])
def test_node_limit_is_respected(master: Engine, nodes: int) -> None:
    master.new_game()
    result = master.search(Board(), SearchLimits(nodes=nodes))
    assert result.nodes <= nodes
    assert Board().is_legal(result.move)


def test_stop_event_ends_an_infinite_search(master: Engine) -> None:
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    result = master.search(Board(), SearchLimits(infinite=True), stop=stop)
    timer.join()
    assert stop.is_set() and Board().is_legal(result.move) and result.depth >= 1


def test_concurrent_searches_each_keep_their_own_limits() -> None:
    # One watchdog thread serves every search of the process: a search that runs out
    # of time must stop alone, and an infinite one only at its own stop event.
    stop = threading.Event()
    results: dict[str, SearchResult] = {}
    ended: dict[str, float] = {}
    started = time.perf_counter()

    def run(name: str, limits: SearchLimits, event: threading.Event | None) -> None:
        results[name] = Engine("master", seed=1, hash_mb=4).search(Board(), limits, stop=event)
        ended[name] = time.perf_counter() - started

    threads = [
        threading.Thread(target=run, args=("timed", SearchLimits(movetime=0.2), None)),
        threading.Thread(target=run, args=("infinite", SearchLimits(infinite=True), stop)),
    ]
    for thread in threads:
        thread.start()
    threads[0].join()
    assert ended["timed"] < 1.5 and "infinite" not in ended
    stop.set()
    threads[1].join()
    assert ended["infinite"] >= ended["timed"]
    assert all(Board().is_legal(result.move) for result in results.values())
    watchdogs = [t for t in threading.enumerate() if t.name == "master-watchdog"]
    assert len(watchdogs) == 1


def test_finds_a_capture_of_every_piece(master: Engine) -> None:
    # o's two pieces both touch b2: the clone there wins at once.
    board = Board("7/7/7/7/7/o1x4/1o2x2 x 0 1")
    result = master.search(board, SearchLimits(depth=3))
    assert result.mate == 1 and result.score > 0
    board.push(result.move)
    assert board.outcome() is not None and board.outcome().winner == 0  # type: ignore[union-attr]


@pytest.mark.parametrize("rules", [ATAXX, SITE_2005], ids=lambda r: r.name)
def test_finds_forced_wins_on_small_boards(master: Engine, rules: RuleSet,
                                           rng: random.Random) -> None:
    from gameclub.ataxx.engine.endgame import solve

    found = 0
    for _ in range(40):
        board = random_board(rng, 4, 4, 4, rules)
        solved = solve(board)
        assert solved is not None
        if solved.result != 1:
            continue
        found += 1
        result = master.search(board, SearchLimits(movetime=0.5))
        board.push(result.move)
        after = solve(board)
        assert after is not None and after.result == -1
    assert found >= 3


def test_search_by_depth_finds_a_forced_win(master: Engine) -> None:
    # x wins with the clone b4 (capturing both o pieces), not by any slower line.
    board = Board("1o3/2o2/x4/5/4x x 0 1")
    result = master.search(board, SearchLimits(depth=5))
    assert result.move.uci() == "b4" and result.mate == 1


def test_master_is_deterministic_at_fixed_depth() -> None:
    def line() -> list[str]:
        engine = Engine("master", seed=3, hash_mb=4)
        engine.new_game()
        board = Board()
        for _ in range(6):
            board.push(engine.search(board, SearchLimits(depth=4)).move)
        return [m.uci() for m in board.move_stack]

    assert line() == line()


def test_choose_move_with_movetime() -> None:
    move = choose_move(Board(), "master", seed=1, movetime=0.1)
    assert Board().is_legal(move)


def test_time_budget_never_exceeds_the_clock() -> None:
    for remaining in (0.005, 0.05, 0.5, 1.0, 60.0):
        for empties in (1, 20, 45):
            budget = allocate(SearchLimits(wtime=remaining, btime=remaining, winc=0.01,
                                           binc=0.01), True, empties)
            assert budget.hard is not None and budget.soft is not None
            assert budget.soft <= budget.hard
            assert budget.hard <= max(0.001, remaining - 0.02)
    assert allocate(SearchLimits(movetime=0.5), False, 10).hard == pytest.approx(0.48)
    assert allocate(SearchLimits(infinite=True), False, 10).hard is None


@pytest.mark.parametrize(
    "switches",
    [{"lmr": 0}, {"lmr": 1}, {"lmr": 2}, {"nullmove": 1}, {"futility": 150, "staticcut": 150},
     {"quietjumps": 1}, {"quietjumps": 0}, {"futility": 80, "staticcut": 50, "prunedepth": 6},
     {"iir": 0}, {"iir": 3}, {"malus": 0}, {"lmrpv": 1}, {"lmp": 2}, {"lmrindex": 1},
     {"iir": 4, "malus": 1, "lmp": 3, "lmrindex": 2}, {"latefpdepth": 0},
     {"latefp": -40, "latefpslope": 10, "latefpdepth": 8},
     {"gravity": 0, "malus": 0, "lmrhistory": 0}, {"lmrhistory": 4096}, {"singular": 4},
     {"singular": 3, "latefpdepth": 0, "staticcut": 0}, {"tteval": 1}, {"improving": 1},
     {"tteval": 1, "improving": 1, "singular": 4, "staticcut": 20}],
    ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()),
)
def test_every_pruning_switch_keeps_forced_wins_and_legal_pvs(switches: dict[str, int],
                                                              rng: random.Random) -> None:
    from gameclub.ataxx.engine import search

    engine = Engine("master", seed=2, hash_mb=4)
    options = engine._master_search().options
    for name, value in switches.items():
        options[search.SWITCHES[name]] = value
    result = engine.search(Board("1o3/2o2/x4/5/4x x 0 1"), SearchLimits(depth=5))
    assert result.move.uci() == "b4" and result.mate == 1
    for _ in range(6):
        board = random_board(rng, 7, 7, rng.randrange(8, 40), ATAXX)
        result = engine.search(board, SearchLimits(depth=6))
        assert_pv_legal(board, result)


def test_the_table_bounds_the_static_score_only_where_its_bound_says_so() -> None:
    from gameclub.ataxx.engine.search import MATE, _tt_bounded
    from gameclub.tt import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER

    assert _tt_bounded(50, 0, 300) == 50  # no entry
    assert _tt_bounded(50, BOUND_LOWER, 80) == 80  # at least 80: above the static 50
    assert _tt_bounded(50, BOUND_LOWER, 20) == 50  # at least 20 says nothing new
    assert _tt_bounded(50, BOUND_UPPER, 20) == 20
    assert _tt_bounded(50, BOUND_UPPER, 80) == 50
    assert _tt_bounded(50, BOUND_EXACT, -10) == -10
    assert _tt_bounded(50, BOUND_EXACT, MATE - 3) == 50  # proven results stay out
    assert _tt_bounded(50, BOUND_UPPER, 3 - MATE) == 50


def test_a_one_centipawn_aspiration_window_still_settles(rng: random.Random) -> None:
    # A 1 cp window with a factor of 1 fails on almost every iteration: each failure
    # moves it to the fail-soft bound and widens it by a centipawn, and the search
    # must still end each iteration with forced wins and legal principal variations.
    engine = Engine("master", seed=2, hash_mb=4)
    master = engine._master_search()
    master.aspiration, master.aspiration_growth = 1, 1.0
    result = engine.search(Board("1o3/2o2/x4/5/4x x 0 1"), SearchLimits(depth=5))
    assert result.move.uci() == "b4" and result.mate == 1
    for _ in range(4):
        board = random_board(rng, 7, 7, rng.randrange(8, 40), ATAXX)
        result = engine.search(board, SearchLimits(depth=6))
        assert result.depth == 6 or result.mate is not None
        assert_pv_legal(board, result)


def test_time_budget_keeps_time_for_the_endgame() -> None:
    # A 1 s + 10 ms game from the 4-ply openings: about 55 own moves while the empty
    # squares go from 45 to 0 (jumps fill nothing). A move costs up to twice its soft
    # limit (an iteration started just before it costs about as much as all before).
    # Games are decided in the endgame: a move there must get at least half the time
    # of an opening move, and the clock must never come near zero.
    clock, inc = 1.0, 0.01
    moves = 55
    spent: dict[int, float] = {}
    for k in range(moves):
        empties = 45 - (45 * k) // moves
        budget = allocate(SearchLimits(wtime=clock, btime=clock, winc=inc, binc=inc), True,
                          empties)
        assert budget.soft is not None and budget.hard is not None
        used = min(budget.hard, 2 * budget.soft)
        spent.setdefault(empties, used)
        clock += inc - used
        assert clock > 0.025, (k, empties, clock)
    assert spent[10] >= 0.5 * spent[45], spent


def test_best_move_share_counts_the_nodes_under_the_best_root_move() -> None:
    # At depth 1 every root move is one leaf, and a move that is not searched first
    # and beats the best so far is a leaf twice (null window, then full). Searched
    # again, the best move comes first from the table: one node of the root and its
    # children, and nothing is searched twice.
    engine = Engine("master", seed=2, hash_mb=4)
    master = engine._master_search()
    board = Board(rules=ATAXX)
    n = len(board.legal_moves)
    master.search(board, SearchLimits(depth=1))
    assert master.best_move_share is not None and 0 < master.best_move_share <= 2 / (2 + n)
    master.search(board, SearchLimits(depth=1))
    assert master.best_move_share == pytest.approx(1 / (1 + n))
    for text in ("g2", "g7e5", "f2"):
        board.push_uci(text)
    master.search(board, SearchLimits(depth=6))
    assert master.best_move_share is not None and 0 < master.best_move_share < 1


def _searches(master: MasterSearch, boards: list[Board]) -> list[tuple]:
    results = []
    for board in boards:
        result = master.search(board, SearchLimits(nodes=20_000))
        results.append((result.move, result.score, result.depth, result.nodes, result.pv))
    return results


def test_the_evaluation_cache_changes_no_search() -> None:
    # The same game searched with the cache and with one of a single entry (every
    # score computed afresh): the same moves, scores, depths and variations.
    rng = random.Random(5)
    board = Board(rules=ATAXX)
    boards = []
    for _ in range(6):
        for _ in range(rng.randrange(3, 8)):
            board.push(rng.choice(board.legal_moves))
        boards.append(board.copy())
    cached = Engine("master", seed=1, hash_mb=4)._master_search()
    plain = Engine("master", seed=1, hash_mb=4)._master_search()
    assert cached.network is not None
    plain.eval_cache = np.zeros(1, dtype=np.uint64)
    assert _searches(cached, boards) == _searches(plain, boards)
    assert np.count_nonzero(cached.eval_cache) > 1000


def test_one_kernel_call_for_all_iterations_searches_as_one_call_each() -> None:
    # Without an info callback or a clock the iterations run in one kernel call; with
    # a callback, in one call each. Both must find the same moves, scores, depths,
    # node counts and variations, with node limits that end the search inside an
    # iteration (its partial result) and depth limits that do not.
    rng = random.Random(11)
    boards = [random_board(rng, 7, 7, empties) for empties in (30, 24, 18, 12, 10)]
    board = Board(rules=ATAXX)
    for _ in range(4):
        for _ in range(rng.randrange(3, 8)):
            board.push(rng.choice(board.legal_moves))
        boards.append(board.copy())
    limits = [SearchLimits(nodes=n) for n in (300, 4_000, 25_000)] + [SearchLimits(depth=5)]

    def searches(stepwise: bool) -> list[tuple]:
        master = Engine("master", seed=1, hash_mb=4)._master_search()
        reports: list[SearchResult] = []
        results = []
        for board in boards:
            for limit in limits:
                result = master.search(board, limit,
                                       info=reports.append if stepwise else None)
                results.append((result.move, result.score, result.mate, result.depth,
                                result.seldepth, result.nodes, result.pv))
        if stepwise:
            assert reports and all(r.pv and r.pv[0] == r.move for r in reports)
        return results

    assert searches(stepwise=True) == searches(stepwise=False)


def test_the_evaluation_cache_is_emptied_for_another_network_or_board() -> None:
    # Scores cached with the shipped network must not answer for another network, nor
    # a board's for a board with other blocks (a search on a fresh cache is the check).
    from gameclub.ataxx.engine.nnue import Network

    rng = np.random.default_rng(3)
    other = Network.from_arrays(rng.integers(-60, 60, (2980, 16)), rng.integers(-60, 60, 16),
                                rng.integers(-300, 300, 16), 0, 400)
    blocked = Board("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1")
    board = Board(rules=ATAXX)
    reused = Engine("master", seed=1, hash_mb=4)._master_search()
    _searches(reused, [board, blocked])
    reused.network = other
    reused.new_game()
    fresh = Engine("master", seed=1, hash_mb=4)._master_search()
    fresh.network = other
    assert _searches(reused, [board, blocked]) == _searches(fresh, [board, blocked])
