"""The exact solver against plain minimax on small boards, for every rule set."""

from __future__ import annotations

import random
from functools import cache

import pytest

from gameclub.ataxx import ATAXX, PRESSIBUS, SITE_2005, Board, RuleSet
from gameclub.ataxx.engine import endgame
from gameclub.ataxx.engine.endgame import INF, WIN, Bounds, solve
from gameclub.tt import TranspositionTable

from .conftest import outcome_value, random_board

# Short move limits keep the plain minimax small while exercising the rule: with the
# real limit of 100, a clone resets the clock and a tiny board allows 100-ply jump
# dances that plain minimax cannot walk in a test (the solver's code path is the same).
SHORT_FIFTY = ATAXX.replace(name="ataxx-fifty6", fifty_move_limit=6)
FIFTY_12 = ATAXX.replace(name="ataxx-fifty12", fifty_move_limit=12)
# Above the solver's first horizons (2, 4, 8, 16): proofs under each of them are used.
FIFTY_20 = ATAXX.replace(name="ataxx-fifty20", fifty_move_limit=20)


def reference(board: Board) -> int:
    """Plain minimax to the end of the game, scored ``result * WIN + margin``.

    Without a repetition rule a position's value depends on the clock but not on
    the line, so it is memoised on (x, o, turn, clock). With one, a position that
    recurs since the last clone ends the game by count (the solver's model), so
    the line is carried along and nothing is memoised.
    """
    if board.rules.repetition:
        return _reference_line(board, [])

    b = board.copy()
    color = type(board.turn)

    @cache
    def value(x: int, o: int, turn: int, clock: int) -> int:
        b._x, b._o, b.turn, b.halfmove_clock = x, o, color(turn), clock
        end = outcome_value(b, WIN)
        if end is not None:
            return end
        best = -10 * WIN
        for move in b.legal_moves:
            b.push(move)
            child = (b._x, b._o, int(b.turn), b.halfmove_clock)
            b.pop()
            best = max(best, -value(*child))
            b._x, b._o, b.turn, b.halfmove_clock = x, o, color(turn), clock
        return best

    return value(board._x, board._o, int(board.turn), board.halfmove_clock)


def _reference_line(board: Board, line: list[tuple[int, int, int]]) -> int:
    end = outcome_value(board, WIN)
    if end is not None:
        return end
    key = (board._x, board._o, int(board.turn))
    if board.halfmove_clock >= 4 and key in line[len(line) - board.halfmove_clock:]:
        us, them = board.count(board.turn), board.count(board.turn.other)
        tie_win = board.rules.tie.value == "second-player"
        if us != them:
            result = 1 if us > them else -1
        else:
            result = (1 if int(board.turn) == 1 else -1) if tie_win else 0
        return result * WIN + us - them
    line.append(key)
    best = -10 * WIN
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -_reference_line(board, line))
        board.pop()
    line.pop()
    return best


CASES = [
    (FIFTY_12, 3, 3, 4, 6),
    (FIFTY_20, 3, 3, 4, 3),
    (FIFTY_20, 2, 4, 4, 0),
    (FIFTY_12, 2, 4, 4, 0),
    (SHORT_FIFTY, 3, 3, 5, 0),
    (SHORT_FIFTY, 4, 4, 3, 2),
    (SHORT_FIFTY, 2, 5, 5, 0),
    # Under a repetition rule the plain minimax carries the line and memoises nothing,
    # so only boards this small stay affordable (3x3 already takes minutes).
    (SITE_2005, 2, 3, 2, 0),
    (SITE_2005, 2, 4, 2, 0),
    (SITE_2005, 2, 4, 3, 0),
    (PRESSIBUS, 2, 3, 2, 0),
    (PRESSIBUS, 2, 4, 2, 0),
    (PRESSIBUS, 2, 4, 3, 0),
]


@pytest.mark.parametrize(("rules", "width", "height", "empties", "clock"), CASES,
                         ids=[f"{c[0].name}-{c[1]}x{c[2]}-{c[3]}" for c in CASES])
def test_solver_equals_plain_minimax(rng: random.Random, rules: RuleSet, width: int,
                                     height: int, empties: int, clock: int) -> None:
    for _ in range(4):
        board = random_board(rng, width, height, empties, rules, clock=clock)
        solved = solve(board)
        assert solved is not None and solved.exact
        assert solved.value == reference(board), board.fen()
        # The best move keeps the value: the child is worth minus the root.
        assert solved.move is not None and board.is_legal(solved.move)
        board.push(solved.move)
        child = solve(board)
        assert child is not None and -child.value == solved.value


def test_pv_is_legal_and_ends_with_the_value(rng: random.Random) -> None:
    for rules in (FIFTY_12, SITE_2005, PRESSIBUS):
        board = random_board(rng, 2, 4, 3, rules)
        solved = solve(board)
        assert solved is not None
        replay = board.copy()
        for move in solved.pv:
            replay.push(move)
        assert solved.pv


def test_game_over_position_reports_its_outcome() -> None:
    board = Board("xxx/xxx/xxo o 0 1")
    solved = solve(board)
    assert solved is not None
    assert (solved.result, solved.margin, solved.move) == (-1, -7, None)


def test_stuck_policies_differ() -> None:
    # o to move has no move: it passes under ataxx, loses at once on the 2005 site.
    fen = "xxx1/xxxx/xxxx/ooxx o 0 1"
    ataxx = solve(Board(fen, rules=ATAXX))
    site = solve(Board(fen, rules=SITE_2005))
    assert ataxx is not None and site is not None
    assert site.result == -1 and site.move is None
    assert ataxx.move is not None and ataxx.move.is_pass


def test_repetition_model_on_a_cycle() -> None:
    # Each side only has jumps that can go back and forth; the first repeat ends it.
    board = Board("x1o/o1x x 0 1", rules=SITE_2005)
    solved = solve(board)
    assert solved is not None
    assert solved.value == reference(board)


@pytest.mark.parametrize("rules", [SITE_2005, PRESSIBUS], ids=lambda r: r.name)
def test_repetition_counts_the_games_earlier_positions(rng: random.Random,
                                                      rules: RuleSet) -> None:
    # After a few jumps the game's earlier positions (since the last clone) count as
    # returns too: the solver's value is the plain minimax's over the same history.
    # The root itself is the position to play, never scored as a return.
    checked = 0
    while checked < 30:
        board = random_board(rng, 2, 4, 2, rules)
        line = []
        for _ in range(rng.randrange(1, 6)):
            jumps = [m for m in board.legal_moves if not m.is_pass and not m.is_clone]
            if not jumps or board.outcome() is not None:
                break
            line.append((board._x, board._o, int(board.turn)))
            board.push(rng.choice(jumps))
        if not line or board.outcome() is not None or (
                board._x, board._o, int(board.turn)) in line:
            continue
        solved = solve(board)
        assert solved is not None
        assert solved.value == _reference_line(board, line), board.fen()
        checked += 1


@pytest.mark.slow
def test_solver_agrees_on_late_positions_of_real_games() -> None:
    # Late positions of real 7x7 games, under the real rules (no plain minimax can
    # check them): win / draw / loss must agree with the children's. Exact margins
    # are left to the small boards: on these, a margin needs the proof that no better
    # one exists through every jump dance (or every repetition), which neither this
    # solver nor the previous one finishes.
    from gameclub.ataxx.engine import Engine

    rng = random.Random(5)
    engines = [Engine("hard", seed=1), Engine("simple", seed=2)]
    checked = 0
    for rules in (ATAXX, SITE_2005):
        board = Board(rules=rules)
        while board.outcome() is None and board.empty.bit_count() > 7:
            board.push(engines[board.turn].search(board).move if rng.random() < 0.9
                       else rng.choice(board.legal_moves))
        if board.outcome() is not None:
            continue
        solved = solve(board, margin=False)
        assert solved is not None and solved.exact
        if solved.result < 0:
            # Lost: every move leaves the opponent a win.
            assert solved.move is None
            for move in board.legal_moves:
                board.push(move)
                child = solve(board, margin=False)
                board.pop()
                assert child is not None and child.result == 1, (board.fen(), move.uci())
        else:
            # Won or drawn: the move keeps it.
            assert solved.move is not None
            board.push(solved.move)
            child = solve(board, margin=False)
            assert child is not None and child.result == -solved.result, board.fen()
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize("rules", [FIFTY_12, SHORT_FIFTY, SITE_2005], ids=lambda r: r.name)
def test_win_draw_loss_mode_matches_the_full_value(rng: random.Random, rules: RuleSet) -> None:
    width, height, empties = (2, 4, 3) if rules.repetition else (3, 3, 4)
    for _ in range(6):
        board = random_board(rng, width, height, empties, rules, clock=rng.randrange(4))
        full = solve(board)
        wld = solve(board, margin=False)
        assert full is not None and wld is not None and not wld.margin_exact
        assert wld.result == full.result, board.fen()
        if wld.result < 0:
            assert wld.move is None
            continue
        # The move keeps the result: the child is lost (or drawn) for the opponent.
        assert wld.move is not None
        board.push(wld.move)
        child = solve(board)
        assert child is not None and child.result == -wld.result, board.fen()


@pytest.mark.parametrize("rules", [FIFTY_20, SITE_2005], ids=lambda r: r.name)
def test_progress_bounds_close_in_on_the_reference_value(rng: random.Random,
                                                        rules: RuleSet) -> None:
    # Every bound reported along the way holds for the minimax value, each one is
    # tighter than the last, and an exact solve ends with both bounds on the value.
    width, height, empties = (2, 4, 3) if rules.repetition else (3, 3, 4)
    for _ in range(6):
        board = random_board(rng, width, height, empties, rules, clock=rng.randrange(4))
        value = reference(board)
        for margin in (True, False):
            seen: list[Bounds] = []
            solved = solve(board, margin=margin, progress=seen.append)
            assert solved is not None and seen, board.fen()
            for before, after in zip([Bounds(), *seen], seen, strict=False):
                assert after.lower >= before.lower and after.upper <= before.upper
                assert (after.lower, after.upper) != (before.lower, before.upper)
                assert after.nodes >= before.nodes
            for bounds in seen:
                assert bounds.lower <= value <= bounds.upper, board.fen()
            final = seen[-1]
            if margin:
                assert final.lower == final.upper == value == solved.value, board.fen()
            else:
                low, high = final.decoded()
                ends = [end[0] for end in (low, high) if end is not None]
                assert solved.result in ends, board.fen()


def test_bounds_in_words() -> None:
    def words(lower: int, upper: int) -> str:
        return Bounds(lower, upper).describe()

    assert words(-INF, INF) == "nothing proven yet"
    assert words(WIN + 3, INF) == "a win, margin at least +3"
    assert words(WIN + 3, WIN + 9) == "a win, margin +3 to +9"
    assert words(-WIN - 5, -WIN - 5) == "a loss, margin -5"
    assert words(-INF, -WIN - 5) == "a loss, margin at most -5"
    assert words(-2, INF) == "at least a draw"
    assert words(-INF, 1) == "at most a draw"
    assert words(-2, 4) == "a draw, margin -2 to +4"
    assert words(-WIN - 5, WIN + 7) == (
        "at worst a loss, margin at least -5; at best a win, margin at most +7")
    assert Bounds(WIN + 3, INF).decoded() == ((1, 3), None)


def _real_rules_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``solve`` skip the artificial horizons: one search under the real rules."""
    monkeypatch.setattr(endgame, "HORIZONS", ())


@pytest.mark.parametrize("rules", [SHORT_FIFTY, FIFTY_12, FIFTY_20, ATAXX, SITE_2005, PRESSIBUS],
                         ids=lambda r: r.name)
def test_horizon_proofs_agree_with_the_real_rules_alone(rng: random.Random, rules: RuleSet,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The horizons only prove wins and losses early (and exactly): the values, margins
    # included, are those of a search under the real rules alone.
    width, height, empties = (2, 4, 3) if rules.repetition else (3, 3, 4)
    boards = []
    for _ in range(8):
        limit = rules.fifty_move_limit
        clock = rng.randrange(min(limit, 10)) if limit else 0
        boards.append(random_board(rng, width, height, empties, rules, clock=clock))
    with_horizons = [(solve(b), solve(b, margin=False)) for b in boards]
    _real_rules_only(monkeypatch)
    for board, (full, wld) in zip(boards, with_horizons, strict=True):
        alone = solve(board)
        assert full is not None and wld is not None and alone is not None
        assert full.value == alone.value, board.fen()
        assert wld.result == alone.result, board.fen()


def test_one_table_serves_many_positions_and_rule_sets(rng: random.Random) -> None:
    # Entries carry their rule set (a key salt), the clock budget they hold for and,
    # when they rest on an artificial horizon, the pass that made them: a small shared
    # table (many collisions and replacements) gives the values of fresh tables.
    shared = TranspositionTable(1)
    for _ in range(3):
        for rules in (SHORT_FIFTY, FIFTY_12, FIFTY_20, SITE_2005):
            width, height, empties = (2, 4, 3) if rules.repetition else (3, 3, 4)
            board = random_board(rng, width, height, empties, rules)
            fresh = solve(board)
            again = solve(board, tt=shared)
            wld = solve(board, tt=shared, margin=False)
            assert fresh is not None and again is not None and wld is not None
            assert again.value == fresh.value, (rules.name, board.fen())
            assert wld.result == fresh.result, (rules.name, board.fen())


# Positions from the end of master's games under the ataxx rules (100-halfmove limit),
# the first ones of benchmarks/bench_endgame.py at 5 empty squares.
REAL_GAME_ENDS = [
    "2xxoxx/1xxxxox/xxxxxxx/xxxxxoo/xxxxxoo/oxooooo/oxooo2 o 0 37",
    "xxooxx1/xxxxxxx/xxxxxxx/ooxxxoo/ooooooo/ooooooo/2oo2o o 0 36",
    "xxoxoo1/xxoxoo1/oooxxxo/xooxxxx/xxoxxxx/xxoooxx/3ooxx o 0 43",
    "xxxxoo1/xxxoooo/ooxoooo/ooxxx2/xxxxxx1/xxxxooo/oxx1ooo o 0 39",
    "1ooxo2/oooxoo1/oooxooo/ooooxxx/oooxoxx/xoxooxx/xoxoo1x x 0 42",
]


@pytest.mark.parametrize("fen", REAL_GAME_ENDS)
def test_real_game_ends_are_consistent(fen: str) -> None:
    # Under the real 100-halfmove limit no plain minimax can check these; the results
    # must at least agree with themselves: a win is kept by its move (the opponent is
    # then lost), and a loss holds against every move (the opponent then wins).
    board = Board(fen)
    solved = solve(board, margin=False, max_nodes=20_000_000)
    assert solved is not None
    if solved.result > 0:
        assert solved.move is not None
        board.push(solved.move)
        child = solve(board, margin=False, max_nodes=20_000_000)
        assert child is not None and child.result == -1, fen
        return
    assert solved.result < 0 and solved.move is None
    for move in board.legal_moves:
        board.push(move)
        child = solve(board, margin=False, max_nodes=20_000_000)
        board.pop()
        assert child is not None and child.result == 1, (fen, move.uci())
