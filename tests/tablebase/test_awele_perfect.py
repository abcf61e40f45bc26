"""Distances to the next capture, the perfect player that follows them, and the tables
inside ``master``: against the rules library's Python board, a random player and
``master`` searching on its own."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gameclub.awele import Board
from gameclub.awele.engine import Engine, SearchLimits
from gameclub.awele.engine.endgame import (
    NoEndgameDatabase,
    TableProbe,
    default_probe,
    probe_best_move,
)
from gameclub.awele.move import Side
from gameclub.awele.position import format_position
from gameclub.awele.rules import RULESETS
from gameclub.tablebase.awele import AweleProbe, AweleTables
from gameclub.tablebase.build import build

from .test_awele_tables import compositions

SEEDS = 8


@pytest.fixture(scope="module", params=["awari", "awele"])
def tables(request, tmp_path_factory) -> tuple[Path, AweleProbe]:
    root = tmp_path_factory.mktemp("awele-perfect")
    build(AweleTables(SEEDS, request.param), root)
    return root, AweleProbe.open(root, request.param)


def board_of(pits, rules: str, side: Side = Side.SOUTH) -> Board:
    own = list(pits) if side is Side.SOUTH else list(pits[6:]) + list(pits[:6])
    return Board(format_position(own, (0, 0), side), RULESETS[rules])


def random_pits(rng: random.Random, seeds: int) -> list[int]:
    pits = [0] * 12
    for _ in range(seeds):
        pits[rng.randrange(12)] += 1
    return pits


def won_positions(probe: AweleProbe, count: int, seed: int) -> list[tuple[list[int], int]]:
    """``count`` random positions of 3 to ``SEEDS`` seeds won by the side to move."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        pits = random_pits(rng, rng.randint(3, SEEDS))
        value = probe.value_of(pits)
        if value > 0:
            found.append((pits, value))
    return found


def test_every_distance_is_the_best_over_its_moves(tables):
    """The checker pass for distances, over every position of up to 6 seeds, with moves
    and captures from the Python Board: 0 for a finished game or a draw; else the
    winner's shortest and the loser's longest among the moves keeping the value."""
    _, probe = tables
    rules = probe.rules.name
    longest = 0
    for seeds in range(7):
        for pits in compositions(seeds):
            board = board_of(pits, rules)
            stored = probe.distance_of(pits)
            value = probe.value_of(pits)
            if board.outcome() is not None or value == 0:
                assert stored == 0, board.position()
                continue
            keeping = [d for _, v, d in probe.scored_moves(board) if v == value]
            assert stored == (min(keeping) if value > 0 else max(keeping)), board.position()
            longest = max(longest, stored)
    assert longest > 10  # seeds go round: distances are not all one capture away


def play_out(board: Board, probe: AweleProbe, opponent, limit: int = 2000) -> int:
    """Play the perfect player (the side to move now) against ``opponent`` to the end;
    the perfect player's captures minus the opponent's. Every perfect move keeps the
    position's value."""
    me = board.turn
    for _ in range(limit):
        if board.outcome() is not None:
            south, north = board.outcome().score
            return south - north if me is Side.SOUTH else north - south
        if board.turn is me:
            scored = probe.scored_moves(board)
            move = probe.perfect_move(board)
            value = probe.board_value(board)
            assert dict((m, v) for m, v, _ in scored)[move] == value, board.position()
        else:
            move = opponent(board)
        board.push(move)
    raise AssertionError(f"no end after {limit} plies from {board.position()}")


def test_the_perfect_player_gets_the_stored_margin_against_a_random_player(tables):
    _, probe = tables
    rng = random.Random(5)
    for pits, value in won_positions(probe, 300, seed=1):
        board = board_of(pits, probe.rules.name, rng.choice((Side.SOUTH, Side.NORTH)))
        assert play_out(board, probe, lambda b: rng.choice(b.legal_moves)) >= value


def test_the_perfect_player_gets_the_stored_margin_against_master(tables):
    _, probe = tables
    master = Engine("master", endgame=NoEndgameDatabase(), seed=3)
    master.new_game()
    limits = SearchLimits(depth=6)
    for pits, value in won_positions(probe, 200, seed=2):
        board = board_of(pits, probe.rules.name)
        assert play_out(board, probe, lambda b: master.search(b, limits).move) >= value


def test_master_plays_perfectly_from_the_tables(tables):
    """``master`` with the table probe: the best margin at once, and from a won position
    a whole game against a random player reaches the stored margin."""
    root, probe = tables
    endgame = TableProbe.open(probe.rules.name, root)
    assert endgame is not None and endgame.has_distances
    engine = Engine("master", endgame=endgame)
    rng = random.Random(9)
    for pits, value in won_positions(probe, 40, seed=3):
        board = board_of(pits, probe.rules.name)
        first = engine.search(board, SearchLimits(depth=1)).move
        assert first == probe.perfect_move(board)
        margin = play_out(board, probe, lambda b: rng.choice(b.legal_moves))
        assert margin >= value


def test_the_default_directory_is_used_and_missing_tables_are_no_error(tables, monkeypatch,
                                                                      tmp_path):
    root, probe = tables
    rules = probe.rules.name
    board = board_of([1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 2, 0], rules)
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(tmp_path / "nothing-here"))
    default_probe.cache_clear()
    assert probe_best_move(None, board) is None
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(root))
    default_probe.cache_clear()
    known = probe_best_move(None, board)
    assert known is not None and known.move == probe.perfect_move(board)
    # An unfinished larger table is passed over for the complete one.
    (root / f"awele-20-{rules}").mkdir()
    default_probe.cache_clear()
    assert default_probe(rules) is not None and default_probe(rules).seeds == SEEDS
    # More seeds than the table holds, and a rule set without tables: not known.
    assert probe_best_move(None, Board(rules=RULESETS[rules])) is None
    oware = Board("1-0-2-0-0-0-0-1-0-0-2-0-0-0-S", RULESETS["oware"])
    assert probe_best_move(None, oware) is None
    default_probe.cache_clear()
