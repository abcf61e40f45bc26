"""The Awele levels: legal moves under every rule set, a forced win found, time limits kept."""

from __future__ import annotations

import random
import time

import pytest

from gameclub.awele import RULESETS, Board, Side
from gameclub.awele.board import move_effect
from gameclub.awele.engine import LEVELS, Engine, SearchLimits
from gameclub.awele.engine.endgame import NoEndgameDatabase, probe_best_move
from gameclub.awele.engine.evaluate import SEED
from gameclub.awele.engine.search import KNOWN
from gameclub.awele.solver import solve


def random_positions(rules_name: str, count: int, seed: int) -> list[Board]:
    """Positions from seeded random games (with their move history), none finished."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = Board(rules=RULESETS[rules_name])
        for _ in range(rng.randrange(0, 80)):
            if board.is_game_over():
                break
            board.push(rng.choice(board.legal_moves))
        if not board.is_game_over():
            boards.append(board)
    return boards


@pytest.fixture(scope="module")
def master() -> Engine:
    # Exact margins up to 8 seeds: the table of each rule set builds in a blink.
    engine = Engine("master", hash_mb=8, exact_seeds=8)
    engine.new_game()
    return engine


@pytest.fixture(scope="module")
def searcher() -> Engine:
    """master with no exact endgame scores: what its search proves on its own."""
    engine = Engine("master", hash_mb=8, exact_seeds=-1)
    engine.new_game()
    return engine


@pytest.mark.parametrize("rules_name", list(RULESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_move(level: str, rules_name: str, master: Engine) -> None:
    engine = master if level == "master" else Engine(level, seed=3)
    for board in random_positions(rules_name, 12, seed=len(level) + len(rules_name)):
        before = board.position()
        result = engine.search(board, SearchLimits(depth=4))
        assert result.move in board.legal_moves, (board.position(), result.move)
        assert board.position() == before  # the board is left as it was


def test_greedy_takes_the_biggest_capture() -> None:
    # South's F (2 seeds) lands on b making 3 and a making 2: 5 seeds; E lands on a: 2.
    board = Board("0-0-0-0-1-2-1-2-4-4-4-4-10-14-S", RULESETS["awele"])
    gains = {m: move_effect(board.pits, m, board.rules).captured for m in board.legal_moves}
    best = max(gains.values())
    assert best > 0 and sorted(gains.values()).count(best) == 1
    for seed in range(5):
        move = Engine("greedy", seed=seed).search(board).move
        assert gains[move] == best


def wins_within(board: Board, plies: int, mover: Side) -> bool:
    """Whether ``mover`` forces a win within ``plies`` plies: plain minimax on the Board."""
    outcome = board.outcome()
    if outcome is not None:
        return outcome.winner is mover
    if plies == 0:
        return False
    ours = board.turn is mover
    for move in board.legal_moves:
        board.push(move)
        won = wins_within(board, plies - 1, mover)
        board.pop()
        if ours and won:
            return True
        if not ours and not won:
            return False
    return not ours


def test_master_finds_a_forced_win(searcher: Engine) -> None:
    # 7 seeds left, South 21 - North 18: South forces 25 in 5 plies, not sooner.
    board = Board("1-1-3-0-0-1-2-0-0-0-1-0-21-18-S", RULESETS["oware"])
    assert wins_within(board, 5, Side.SOUTH)
    assert not wins_within(board, 3, Side.SOUTH)
    good = []
    for move in board.legal_moves:
        board.push(move)
        if wins_within(board, 4, Side.SOUTH):
            good.append(move)
        board.pop()
    assert 0 < len(good) < len(board.legal_moves)  # a choice that matters
    searcher.new_game()
    result = searcher.search(board, SearchLimits(depth=9))
    assert result.move in good
    assert result.win_in is not None and 0 < result.win_in <= 5


@pytest.mark.parametrize("rules_name", ["awari", "awele"])
def test_master_scores_few_seeds_as_the_exact_solver(master: Engine, rules_name: str) -> None:
    # With 8 seeds or fewer every child of the root is looked up, so one ply gives
    # the exact end: the solver's value (a retrograde of the reachable positions
    # only) plus the stores, and a move worth it.
    rules = RULESETS[rules_name]
    rng = random.Random(7)
    checked = 0
    while checked < 40:
        seeds = rng.randint(2, 8)
        pits = [0] * 12
        for _ in range(seeds):
            pits[rng.randrange(12)] += 1
        south = rng.randint(20, 48 - seeds - 20)
        board = Board("-".join(map(str, pits)) + f"-{south}-{48 - seeds - south}-"
                      + rng.choice("SN"), rules)
        if board.is_game_over():
            continue
        solution = solve(board)
        master.new_game()
        result = master.search(board, SearchLimits(depth=1))
        mover = int(board.turn)
        final = board.stores[mover] - board.stores[1 - mover] + solution.value
        if result.win_in is not None:
            # A move that takes a store past 24 ends the game: a proven result
            # that must agree with the margin's sign.
            assert (result.win_in > 0) == (final > 0) and final != 0, board.position()
        else:
            known = KNOWN if final > 0 else -KNOWN if final < 0 else 0
            assert result.score == SEED * final + known, board.position()
        assert solution.moves[result.move] == solution.value, board.position()
        checked += 1


@pytest.mark.parametrize("movetime", [0.05, 0.3])
def test_master_keeps_its_move_time(master: Engine, movetime: float) -> None:
    board = Board(rules=RULESETS["oware"])
    started = time.perf_counter()
    result = master.search(board, SearchLimits(movetime=movetime))
    elapsed = time.perf_counter() - started
    assert result.move in board.legal_moves
    assert elapsed < movetime + 0.25, elapsed  # the watchdog stops the kernel in time


def test_master_keeps_to_its_clock(master: Engine) -> None:
    board = Board(rules=RULESETS["awele"])
    started = time.perf_counter()
    master.search(board, SearchLimits(time=2.0))
    # With 24 seeds' worth of game left, one move gets a small share of 2 s.
    assert time.perf_counter() - started < 1.0


def test_master_stops_when_asked(master: Engine) -> None:
    import threading

    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    started = time.perf_counter()
    result = master.search(Board(), SearchLimits(infinite=True), stop=stop)
    assert time.perf_counter() - started < 1.0
    assert result.move in Board().legal_moves


def test_a_node_limit_is_kept(master: Engine) -> None:
    result = master.search(Board(), SearchLimits(nodes=20_000))
    assert result.nodes <= 20_000 + 1024


def test_the_endgame_seam_knows_nothing_yet() -> None:
    board = Board("1-1-3-0-0-1-2-0-0-0-1-0-21-18-S", RULESETS["oware"])
    assert NoEndgameDatabase().probe(board) is None
    assert probe_best_move(NoEndgameDatabase(), board) is None


class _ExactProbe:
    """A 'database' that knows positions by brute force (small positions only)."""

    def probe(self, board: Board) -> int | None:
        return _value(board, 12)


def _value(board: Board, depth: int) -> int:
    """The mover's final margin over the seeds still to be won, by plain negamax."""
    outcome = board.outcome()
    mover = int(board.turn)
    if outcome is not None:
        return (outcome.score[mover] - board.stores[mover]) - (
            outcome.score[1 - mover] - board.stores[1 - mover])
    if depth == 0:
        return 0
    best = -99
    for move in board.legal_moves:
        before = board.stores[mover]
        board.push(move)
        gained = board.stores[mover] - before
        best = max(best, gained - _value(board, depth - 1))
        board.pop()
    return best


def test_master_plays_what_an_endgame_database_says() -> None:
    board = Board("0-0-1-0-0-1-1-0-0-0-0-0-22-23-S", RULESETS["oware"])
    engine = Engine("master", endgame=_ExactProbe())
    result = engine.search(board, SearchLimits(depth=1))
    best = _value(board, 13)
    board.push(result.move)
    mover = 0
    gained = board.stores[mover] - 22
    assert gained - _value(board, 12) == best
