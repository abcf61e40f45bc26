"""Ataxx distances to the next clone, the perfect player that follows them, and the
tables inside ``master``: against the rules library's Python board, a random player
and ``master`` searching on its own."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.tables import NoTables, TableProbe, default_tables, table_result
from gameclub.ataxx.move import Move
from gameclub.tablebase.ataxx import AtaxxProbe
from gameclub.tablebase.values import encode

from .conftest import ataxx_rules, board_of, outcome_value, positions


def move_distance(probe: AtaxxProbe, board: Board, move: Move) -> int:
    """Plies to the next clone or end through ``move``, from Board's own rules."""
    board.push(move)
    try:
        if (move.to_square is not None and move.from_square is None) \
                or board.outcome() is not None:
            return 1
        return 1 + probe.board_distance(board)
    finally:
        board.pop()


@pytest.mark.parametrize("size", [(2, 4), (3, 3)])
@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_every_distance_is_the_best_over_its_moves(ataxx_probe, size, rules):
    """The checker pass for distances over every position: 0 for a finished game or a
    draw; else the winner's shortest and the loser's longest among the moves that keep
    the value, with moves and ends from the Python Board."""
    width, height = size
    probe = ataxx_probe(width, height, rules)
    assert probe.has_distances
    ruleset = ataxx_rules(width, height, rules)
    longest = 0
    for us, them in positions(width * height):
        board = board_of(us, them, width, height, ruleset)
        stored = probe.distance_of(us, them)
        value = probe.value_of(us, them)
        if board.outcome() is not None or value == 0:
            assert stored == 0, board.fen()
            continue
        keeping = []
        for move in board.legal_moves:
            board.push(move)
            child = -probe.board_value(board)
            board.pop()
            if child == value:
                keeping.append(move_distance(probe, board, move))
        assert stored == (min(keeping) if value > 0 else max(keeping)), board.fen()
        longest = max(longest, stored)
    assert longest > 2  # jumps inside a layer: not every win is one clone away


def won_positions(probe: AtaxxProbe, count: int, seed: int) -> list[tuple[int, int, int]]:
    """``count`` random positions ``(us, them, value)`` won by the side to move."""
    rng = random.Random(seed)
    n = probe.n
    found = []
    while len(found) < count:
        us = them = 0
        for k in range(n):
            digit = rng.randrange(3)
            if digit == 1:
                us |= 1 << k
            elif digit == 2:
                them |= 1 << k
        board = board_of(us, them, probe.width, probe.height, probe.ruleset)
        value = probe.value_of(us, them)
        if value > 0 and board.outcome() is None:
            found.append((us, them, value))
    return found


def play_out(board: Board, probe: AtaxxProbe, opponent, limit: int = 2000) -> int:
    """The perfect player (the side to move now) against ``opponent`` to the end: the
    perfect player's final value. Every perfect move keeps the position's value."""
    me = board.turn
    for _ in range(limit):
        if board.outcome() is not None:
            final = outcome_value(board)
            return final if board.turn == me else -final
        if board.turn == me:
            found = probe.probe(board)
            move = found.best
            assert move is not None
            assert {m.move: m.value for m in found.moves}[move] == found.value, board.fen()
        else:
            move = opponent(board)
        board.push(move)
    raise AssertionError(f"no end after {limit} plies from {board.fen()}")


@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_the_perfect_player_gets_the_stored_value_against_a_random_player(ataxx_probe, rules):
    probe = ataxx_probe(3, 4, rules)
    rng = random.Random(5)
    for us, them, value in won_positions(probe, 300, seed=1):
        board = board_of(us, them, 3, 4, probe.ruleset)
        assert play_out(board, probe, lambda b: rng.choice(b.legal_moves)) >= value


@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_the_perfect_player_gets_the_stored_value_against_master(ataxx_probe, rules):
    probe = ataxx_probe(3, 4, rules)
    master = Engine("master", seed=3, tables=NoTables())
    master.new_game()
    limits = SearchLimits(depth=4)
    for us, them, value in won_positions(probe, 100, seed=2):
        board = board_of(us, them, 3, 4, probe.ruleset)
        assert play_out(board, probe, lambda b: master.search(b, limits).move) >= value


@pytest.fixture(scope="module")
def root_3x4(ataxx_probe) -> Path:
    return ataxx_probe(3, 4).table.path.parent


def test_master_plays_perfectly_from_the_tables(ataxx_probe, root_3x4):
    """Under the table's rules (no move limit) ``master`` plays the perfect move at once,
    and from a won position a whole game against a random player reaches the value."""
    probe = ataxx_probe(3, 4)
    engine = Engine("master", tables=TableProbe(root_3x4))
    rng = random.Random(9)
    for us, them, value in won_positions(probe, 40, seed=3):
        board = board_of(us, them, 3, 4, probe.ruleset)
        result = engine.search(board, SearchLimits(depth=6))
        assert result.move == probe.perfect_move(board)
        assert result.nodes == 0 and result.score > 0
        mine = board.turn
        final = None
        for _ in range(2000):
            if board.outcome() is not None:
                final = outcome_value(board) * (1 if board.turn == mine else -1)
                break
            mover = board.turn == mine
            board.push(engine.search(board).move if mover else rng.choice(board.legal_moves))
        assert final is not None and final >= value


@pytest.mark.parametrize("size", [(2, 4), (3, 3)])
def test_every_layers_longest_run_is_the_longest_line_of_perfect_play(ataxx_probe, size):
    """The manifest's longest run of each layer, against a plain recursion over Board:
    a winner at distance 1 clones or ends (1), further it plays any move that keeps
    the value at the next distance; a loser plays anything."""
    width, height = size
    probe = ataxx_probe(width, height)
    ruleset = ataxx_rules(width, height, "ataxx")
    runs: dict[tuple[int, int], int] = {}

    def run(board: Board) -> int:
        us, them = probe._masks(board)
        if (us, them) in runs:
            return runs[(us, them)]
        value, distance = probe.value_of(us, them), probe.distance_of(us, them)
        longest = 0
        if board.outcome() is None and value != 0:
            longest = 1
            for move in board.legal_moves:
                plies = move_distance(probe, board, move)
                board.push(move)
                keeps = -probe.board_value(board) == value and plies == distance
                if plies > 1 and (value < 0 or keeps):
                    longest = max(longest, 1 + run(board))
                board.pop()
        runs[(us, them)] = longest
        return longest

    per_layer: dict[int, int] = {}
    for us, them in positions(width * height):
        layer, _ = probe.index(us, them)
        length = run(board_of(us, them, width, height, ruleset))
        per_layer[layer] = max(per_layer.get(layer, 0), length)
    for layer, entry in probe.table.layers.items():
        assert entry["longest_run"] == per_layer[layer], layer
    assert probe.longest_run == max(per_layer.values()) > 1


def test_under_the_move_limit_the_tables_serve_where_the_clock_leaves_room(ataxx_probe,
                                                                         root_3x4):
    """The ``ataxx`` preset has the 100-halfmove limit. Where ``master`` takes the table's
    move, the exact solver under that limit (not the tables) gives the position the
    table's value and the move keeps it; draws always come from the table, wins and
    losses early in a run of jumps, not when the clock is about to run out."""
    from gameclub.ataxx.engine.endgame import solve

    probe = ataxx_probe(3, 4)
    limited = ATAXX.replace(width=3, height=4)
    tables = TableProbe(root_3x4)
    rng = random.Random(4)
    served = {"draw": 0, "decided": 0, "late": 0}
    solved = 0
    for us, them in rng.sample(list(positions(12)), 4000):
        clock = rng.choice((0, 40, 90, 99))
        board = board_of(us, them, 3, 4, limited)
        board.halfmove_clock = clock
        if board.outcome() is not None or board.legal_moves == [Move.PASS] \
                or board.empty.bit_count() > 6:
            continue
        value = probe.value_of(us, them)
        known = table_result(tables, board)
        if known is None:
            assert value != 0, board.fen()
            served["late"] += clock >= 90
            continue
        served["draw" if value == 0 else "decided"] += 1
        if solved >= 40:
            continue
        found = solve(board, max_nodes=20_000)
        if found is None or not found.exact:
            continue
        solved += 1
        assert encode(found.result, found.margin if found.result else 0) == value, board.fen()
        board.push(known.move)
        after = solve(board, max_nodes=20_000)
        if after is not None and after.exact:
            assert encode(-after.result, -after.margin if after.result else 0) == value
    assert served["draw"] > 10 and served["decided"] > 10 and served["late"] > 10
    assert solved >= 20


def test_the_default_directory_is_used_and_missing_tables_are_no_error(
        ataxx_probe, root_3x4, monkeypatch, tmp_path):
    probe = ataxx_probe(3, 4)
    us, them, _ = won_positions(probe, 1, seed=8)[0]
    board = board_of(us, them, 3, 4, probe.ruleset)
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(tmp_path / "nothing-here"))
    assert table_result(None, board) is None
    assert Engine("master").search(board, SearchLimits(depth=2)).nodes > 0
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(root_3x4))
    known = table_result(None, board)
    assert known is not None and known.move == probe.perfect_move(board)
    assert default_tables().table(3, 4, "ataxx") is not None
    # No table for this size, blocks or a repetition rule: not known, no error.
    assert table_result(None, Board()) is None
    assert table_result(None, board_of(us, them, 3, 4, ATAXX.replace(
        width=3, height=4, fifty_move_limit=None, repetition=True))) is None
