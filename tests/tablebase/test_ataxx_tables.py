"""The Ataxx tables against references written apart from the builder."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gameclub.ataxx import Board
from gameclub.ataxx.engine.endgame import solve
from gameclub.tablebase.ataxx import AtaxxProbe, AtaxxTables
from gameclub.tablebase.build import build
from gameclub.tablebase.values import decode, encode, wdl_codes

from .conftest import (
    ataxx_rules,
    board_of,
    minimax,
    orbit_count,
    outcome_value,
    positions,
    python_classes,
    python_decode,
    python_index,
    python_symmetries,
)


def checked_value(probe: AtaxxProbe, board: Board) -> int:
    """What the checker pass says a board is worth: its end as ``Board.outcome()``
    scores it, or the best over Board's moves of the negated stored child values."""
    if board.outcome() is not None:
        return outcome_value(board)
    best = -1000
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -probe.board_value(board))
        board.pop()
    return best


@pytest.mark.parametrize("size", [(2, 3), (3, 3), (2, 4)])
def test_index_is_the_documented_one(ataxx_probe, size):
    """Every board gets the index of the plain re-implementation, all the images of a
    board one index, and the positions up to symmetry (Burnside's count) one each."""
    width, height = size
    probe = ataxx_probe(width, height)
    n = width * height
    turns = python_symmetries(width, height)
    seen = set()
    for us, them in positions(n):
        found = probe.index(us, them)
        assert found == python_index(us, them, width, height)
        assert all(probe.index(turn(us), turn(them)) == found for turn in turns)
        seen.add(found)
    assert len(seen) == orbit_count(width, height) < 3**n
    classes = python_classes(width, height)
    for layer, entry in probe.table.layers.items():
        assert entry["positions"] == len(classes[layer]) << (n - layer)
        assert all(0 <= i < entry["positions"] for e, i in seen if e == layer)
    # the slots no board reaches: colourings of self-symmetric empty sets
    assert sum(e["positions"] for e in probe.table.layers.values()) > len(seen)


@pytest.mark.parametrize("size", [(2, 4), (3, 3)])
@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_every_slot_holds_the_value_of_the_board_it_decodes_to(ataxx_probe, size, rules):
    """Every slot of the files, those no board's index reaches included, decoded by the
    documented index: its value and distance are those the board gets through its
    own index, which is the best over the board's moves (Board's rules)."""
    width, height = size
    probe = ataxx_probe(width, height, rules)
    ruleset = ataxx_rules(width, height, rules)
    twins = 0
    for layer in probe.table.layers:
        values = probe.table.values(layer)
        distances = probe.table.distance(layer)
        for j in range(values.size):
            us, them = python_decode(layer, j, width, height)
            twins += probe.index(us, them) != (layer, j)
            assert values[j] == probe.value_of(us, them)
            assert distances[j] == probe.distance_of(us, them)
            board = board_of(us, them, width, height, ruleset)
            assert values[j] == checked_value(probe, board), board.fen()
    assert twins > 0


@pytest.mark.parametrize("size", [(2, 4), (3, 3)])
@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_every_value_is_the_best_over_its_moves(ataxx_probe, size, rules):
    """The checker pass: Board's own moves and ends, the stored values, nothing else."""
    width, height = size
    probe = ataxx_probe(width, height, rules)
    ruleset = ataxx_rules(width, height, rules)
    for us, them in positions(width * height):
        board = board_of(us, them, width, height, ruleset)
        assert probe.value_of(us, them) == checked_value(probe, board), board.fen()


@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_values_agree_with_plain_minimax(ataxx_probe, rules):
    probe = ataxx_probe(2, 3, rules)
    ruleset = ataxx_rules(2, 3, rules)
    for us, them in positions(6):
        board = board_of(us, them, 2, 3, ruleset)
        assert probe.value_of(us, them) == minimax(board), board.fen()


def test_values_agree_with_plain_minimax_on_random_2x4_positions(ataxx_probe):
    probe = ataxx_probe(2, 4)
    ruleset = ataxx_rules(2, 4, "ataxx")
    rng = random.Random(13)
    every = list(positions(8))
    for us, them in rng.sample(every, 300):
        board = board_of(us, them, 2, 4, ruleset)
        assert probe.value_of(us, them) == minimax(board), board.fen()


@pytest.mark.parametrize("rules", ["ataxx", "site-2005"])
def test_values_agree_with_the_exact_solver(ataxx_probe, rules):
    """Every random 3x4 position that the engine's solver settles within its budget."""
    probe = ataxx_probe(3, 4, rules)
    ruleset = ataxx_rules(3, 4, rules)
    rng = random.Random(7)
    tried = 0
    settled = 0
    while tried < 120:
        us, them = rng.randrange(1 << 12), rng.randrange(1 << 12)
        them &= ~us
        board = board_of(us, them, 3, 4, ruleset)
        tried += 1
        found = solve(board, max_nodes=20_000)
        if found is None or not found.exact:
            continue
        settled += 1
        assert probe.value_of(us, them) == encode(found.result, found.margin), board.fen()
    assert settled >= 60


def test_both_ways_of_solving_a_layer_give_the_same_tables(tmp_path):
    propagated = build(AtaxxTables(3, 3), tmp_path / "p", method="propagate")
    iterated = build(AtaxxTables(3, 3), tmp_path / "i", method="iterate")
    for layer in propagated.layers:
        assert np.array_equal(propagated.values(layer), iterated.values(layer))


def test_the_compressed_wdl_table_holds_the_sign_of_every_value(ataxx_probe):
    probe = ataxx_probe(3, 4)
    for layer in probe.table.layers:
        values = np.asarray(probe.table.values(layer))
        assert np.array_equal(probe.table.wdl(layer).codes(), wdl_codes(values))


def test_the_3x3_start_position(ataxx_probe):
    probe = ataxx_probe(3, 3)
    board = Board(ataxx_rules(3, 3, "ataxx").start_fen(), ataxx_rules(3, 3, "ataxx"))
    found = probe.probe(board)
    assert decode(found.value) == max(decode(m.value) for m in found.moves)
    assert found.best is not None
    board.push(found.best)
    assert -probe.board_value(board) == found.value


@pytest.mark.slow
def test_the_4x4_table_passes_the_checker_on_random_positions(ataxx_probe):
    """The 4x4 build (about a minute) and 3000 of its positions checked through Board."""
    probe = ataxx_probe(4, 4)
    ruleset = ataxx_rules(4, 4, "ataxx")
    rng = random.Random(44)
    for _ in range(3000):
        us = rng.randrange(1 << 16)
        them = rng.randrange(1 << 16) & ~us
        board = board_of(us, them, 4, 4, ruleset)
        assert probe.value_of(us, them) == checked_value(probe, board), board.fen()
