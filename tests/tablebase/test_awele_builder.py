"""The Awele layer solver against the generic retrograde code, layer sizes in closed form,
the checker pass on larger layers, and resuming. (The exhaustive solver against tables of
up to 12 seeds: test_awele_solver_agreement.)"""

from __future__ import annotations

import random
from math import comb

import numpy as np
import pytest

from gameclub.awele import Board
from gameclub.awele.move import Side
from gameclub.awele.position import format_position
from gameclub.awele.rules import RULESETS
from gameclub.tablebase.awele import (
    AweleProbe,
    AweleTables,
    exits_pass,
    layer_exits,
    propagate_layer,
    propagate_pass,
)
from gameclub.tablebase.build import build


@pytest.fixture(scope="module", params=["awari", "awele"])
def table_8(request, tmp_path_factory) -> AweleProbe:
    root = tmp_path_factory.mktemp("awele-8")
    build(AweleTables(8, request.param), root)
    return AweleProbe.open(root, request.param)


def test_every_layer_has_its_closed_form_size(table_8):
    for layer, entry in table_8.table.layers.items():
        assert entry["positions"] == comb(layer + 11, 11)
        assert entry["values"]["bytes"] == comb(layer + 11, 11)
        assert entry["distance"]["bytes"] == comb(layer + 11, 11)


def test_the_parallel_solver_agrees_with_the_generic_propagation(table_8):
    """The layer solver (parallel exits, level-synchronous propagation, atomic cells)
    against :func:`gameclub.tablebase.retro.propagate` with the game's un-sowing as
    first written (a queue, per-position counters, no early end of an un-sowing):
    the same values on every layer; and a queue that starts at one entry (every level
    overflows it and is found again by a scan) changes neither values nor distances."""
    game = AweleTables(8, table_8.rules.name)
    lower = game.lower_list(8, lambda k: np.asarray(table_8.table.values(k)))
    for layer in range(9):
        flat = np.concatenate([lower[k] for k in range(layer)]) if layer else np.zeros(
            0, np.int8)
        offsets = np.zeros(max(1, layer), dtype=np.int64)
        for k in range(1, layer):
            offsets[k] = offsets[k - 1] + lower[k - 1].size
        exits, moves = layer_exits(np.int64(layer), game.binom, game.flags, game.odd_seed,
                                   flat, offsets)
        generic = propagate_layer(exits, moves, game.context(layer))
        stored = np.asarray(table_8.table.values(layer))
        assert np.array_equal(generic, stored), layer
        cells = exits_pass(np.int64(layer), game.binom, game.flags, game.odd_seed, lower)
        values, distance, _ = propagate_pass(np.int64(layer), game.binom, game.flags,
                                             cells, 1)
        assert np.array_equal(values, stored), layer
        assert np.array_equal(distance, np.asarray(table_8.table.distance(layer))), layer


def board_of(pits, rules: str, side: Side = Side.SOUTH) -> Board:
    own = list(pits) if side is Side.SOUTH else list(pits[6:]) + list(pits[:6])
    return Board(format_position(own, (0, 0), side), RULESETS[rules])


def random_pits(rng: random.Random, seeds: int) -> list[int]:
    pits = [0] * 12
    for _ in range(seeds):
        pits[rng.randrange(12)] += 1
    return pits


def test_the_checker_pass_on_random_positions_of_7_and_8_seeds(table_8):
    """Every value is the best over its moves, moves and captures from the Python Board
    (3 000 random positions of the two largest layers; all of up to 6 seeds are checked
    in test_awele_tables)."""
    rng = random.Random(21)
    rules = table_8.rules.name
    for _ in range(3000):
        pits = random_pits(rng, rng.choice((7, 8)))
        board = board_of(pits, rules)
        stored = table_8.value_of(pits)
        if board.outcome() is not None:
            south, north = board.outcome().score
            assert stored == south - north, board.position()
            continue
        _, moves = table_8.probe(board)
        assert stored == max(value for _, value in moves), board.position()


def test_a_resumed_awele_build_is_byte_for_byte_an_uninterrupted_one(tmp_path):
    """Values, WDL and distance files, with the layers solved on two threads."""
    from gameclub.tablebase.build import Progress
    from gameclub.tablebase.storage import BUILD_LOG

    class Killed(Exception):
        pass

    def kill_after_six_layers(progress: Progress) -> None:
        if progress.done_layers == 6:
            raise Killed

    whole = build(AweleTables(9, "awari"), tmp_path / "whole")
    with pytest.raises(Killed):
        build(AweleTables(9, "awari"), tmp_path / "resumed", progress=kill_after_six_layers)
    resumed = build(AweleTables(9, "awari"), tmp_path / "resumed", resume=True)

    def files(path):
        return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.name != BUILD_LOG}

    assert resumed.complete
    assert any(name.endswith(".distance") for name in files(whole.path))
    assert files(resumed.path) == files(whole.path)
