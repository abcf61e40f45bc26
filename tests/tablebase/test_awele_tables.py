"""The Awele tables against the rules library's Python board and a plain minimax."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from gameclub.awele import Board
from gameclub.awele.move import Side
from gameclub.awele.position import format_position
from gameclub.awele.rules import RULESETS
from gameclub.cli import main
from gameclub.tablebase.awele import AweleProbe, AweleTables, encode
from gameclub.tablebase.build import build

SEEDS = 6


def compositions(seeds: int):
    """Every way of putting ``seeds`` seeds in 12 pits."""
    for bars in itertools.combinations(range(seeds + 11), 11):
        edges = (-1, *bars, seeds + 11)
        yield tuple(edges[j + 1] - edges[j] - 1 for j in range(12))


def board_of(pits, rules: str) -> Board:
    """South to move with ``pits`` (its row first), empty stores."""
    return Board(format_position(list(pits), (0, 0), Side.SOUTH), RULESETS[rules])


def end_margin(board: Board) -> int:
    outcome = board.outcome()
    assert outcome is not None
    south, north = outcome.score
    return south - north if board.turn is Side.SOUTH else north - south


def minimax(board: Board, path: set[str] | None = None) -> int:
    """Plain negamax over every line; a return to a position of the line shares the seeds
    left (margin 0); a capture's seeds count for the side that takes them."""
    if board.outcome() is not None:
        return end_margin(board) - (board.stores[0] - board.stores[1]) * (
            1 if board.turn is Side.SOUTH else -1)
    path = path or set()
    key = "-".join(map(str, board.pits)) + board.turn.char
    if key in path:
        return 0
    path.add(key)
    best = -1000
    for move in board.legal_moves:
        before = sum(board.stores)
        board.push(move)
        captured = sum(board.stores) - before
        best = max(best, captured - minimax(board, path))
        board.pop()
    path.discard(key)
    return best


@pytest.fixture(scope="module", params=["awari", "awele"])
def awele_probe(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("awele")
    build(AweleTables(SEEDS, request.param), root)
    return AweleProbe.open(root, request.param)


def test_the_index_is_perfect_and_counts_every_layer(awele_probe):
    binom = awele_probe.binom
    for seeds in range(6):
        ranks = sorted(int(encode(np.array(p, dtype=np.int64), binom))
                       for p in compositions(seeds))
        assert ranks == list(range(comb(seeds + 11, 11)))
    for layer, entry in awele_probe.table.layers.items():
        assert entry["positions"] == sum(1 for _ in compositions(layer))


def test_every_value_is_the_best_over_its_moves(awele_probe):
    """The checker pass, through the rules library's Python Board."""
    rules = awele_probe.rules.name
    for seeds in range(SEEDS + 1):
        for pits in compositions(seeds):
            board = board_of(pits, rules)
            stored = awele_probe.value_of(pits)
            if board.outcome() is not None:
                assert stored == end_margin(board), board.position()
                continue
            _, moves = awele_probe.probe(board)
            assert stored == max(value for _, value in moves), board.position()


def test_values_agree_with_plain_minimax(awele_probe):
    """Every position of up to 2 seeds: a plain search of every line explodes at 3, where
    the seeds can go round for many moves before a line repeats."""
    rules = awele_probe.rules.name
    for pits in (p for seeds in range(3) for p in compositions(seeds)):
        board = board_of(pits, rules)
        assert awele_probe.value_of(pits) == minimax(board), board.position()


def test_the_command_line_builds_and_probes(tmp_path, capsys):
    import json

    assert main(["tablebase", "build", "awele", "--rules", "awari", "--seeds", "0-6",
                 "--dir", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    position = "2-1-1-0-0-0-0-0-0-0-1-1-0-0-S"
    assert main(["tablebase", "probe", "awele", position, "--rules", "awari", "--dir",
                 str(tmp_path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    probe = AweleProbe.open(tmp_path, "awari")
    board = Board(position, RULESETS["awari"])
    value, moves = probe.probe(board)
    assert found["value"] == {"margin": value}
    assert found["distance"] == probe.board_distance(board)
    assert found["moves"] == [{"move": m.text, "value": {"margin": v}, "distance": d}
                              for m, v, d in probe.scored_moves(board)]
    assert [v for _, v in moves] == [x["value"]["margin"] for x in found["moves"]]
    assert found["best"] == probe.perfect_move(board).text
    assert main(["tablebase", "probe", "awele", "1-2-3-4-5-6-0-0-0-0-0-0-0-0-S", "--rules",
                 "awari", "--dir", str(tmp_path)]) == 2
    assert "21 seeds" in capsys.readouterr().err
    assert main(["tablebase", "build", "awele", "--rules", "oware", "--seeds", "0-4",
                 "--dir", str(tmp_path)]) == 2
    assert "no Awele tables for rules 'oware'" in capsys.readouterr().err


def test_both_ways_of_solving_a_layer_give_the_same_tables(tmp_path):
    propagated = build(AweleTables(6, "awari"), tmp_path / "p", method="propagate")
    iterated = build(AweleTables(6, "awari"), tmp_path / "i", method="iterate")
    for layer in propagated.layers:
        assert np.array_equal(propagated.values(layer), iterated.values(layer))


def test_values_agree_with_the_exact_solver(awele_probe):
    """`gameclub awele solve` (forward enumeration of every reachable position) and the
    tables (retrograde layers) are built independently: they agree on the value and
    on every move's value, for either side to move."""
    import random

    from gameclub.awele.solver import solve

    rules = awele_probe.rules.name
    rng = random.Random(13)
    for _ in range(300):
        pits = [0] * 12
        for _ in range(rng.randint(1, SEEDS)):
            pits[rng.randrange(12)] += 1
        side = rng.choice((Side.SOUTH, Side.NORTH))
        board = Board(format_position(pits, (0, 0), side), RULESETS[rules])
        if board.outcome() is not None:
            continue
        solution = solve(board)
        value, moves = awele_probe.probe(board)
        assert solution.value == value, board.position()
        assert solution.moves == dict(moves), board.position()
