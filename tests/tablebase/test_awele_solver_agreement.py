"""The Awele tables of 0 to 12 seeds against the exhaustive solver of ``gameclub awele
solve`` (:mod:`gameclub.awele.solver`), under both rule sets with tables.

The solver shares nothing with the builder but the rules library's move kernels: it
walks forward from a root to every reachable position, then grows each side's
attractor layer by layer, with no un-sowing, no distances and no threads. It has two
entry points, and both are checked here:

- ``margin_table(flags, 12)`` solves every position of up to 12 seeds in one call (the
  same layer solver that ``solve`` runs over the positions reachable from its root):
  compared with the tables on all 5.4 million (pits, side to move) positions, and on
  every move of 2 000 random positions of 0 to 12 seeds;
- ``solve(board)``, what ``gameclub awele solve`` prints, one position at a time from
  its own root: a few hundred random positions by default (a 12-seed position takes
  about 3 s), many more of 10 to 12 seeds in the ``slow`` test.

Then the 2-bit WIN/LOSS/DRAW files against the sign of the solver's margins, and the
perfect player from positions of 8 to 12 seeds against a random player and ``master``.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from math import comb

import numpy as np
import pytest

from gameclub.awele import Board, kernel
from gameclub.awele.engine import Engine, SearchLimits
from gameclub.awele.engine.endgame import NoEndgameDatabase
from gameclub.awele.move import Move, Side
from gameclub.awele.position import format_position
from gameclub.awele.rules import RULESETS
from gameclub.awele.solver import margin_table, solve, south_margin
from gameclub.tablebase.awele import AweleProbe

from .conftest import AWELE_SEEDS
from .test_awele_perfect import play_out

RULES = ("awari", "awele")

#: The work here is about a minute of CPU (builds included); the limit is for the
#: wall clock of a machine shared with other work, where a test gets a tenth of a core.
pytestmark = pytest.mark.timeout(1800)

#: C(a, b) for the bars' places of up to 12 seeds (a < 24, b < 12).
_C = np.array([[comb(a, b) for b in range(12)] for a in range(AWELE_SEEDS + 12)],
              dtype=np.int64)


def every_composition(seeds: int) -> np.ndarray:
    """Every way of putting ``seeds`` seeds in 12 pits, one row each (int64): the gaps
    between 11 bars among ``seeds + 11`` places, enumerated by itertools."""
    size = comb(seeds + 11, 11)
    bars = np.fromiter(itertools.chain.from_iterable(
        itertools.combinations(range(seeds + 11), 11)), dtype=np.int64, count=11 * size)
    edges = np.empty((size, 13), dtype=np.int64)
    edges[:, 0] = -1
    edges[:, 1:12] = bars.reshape(size, 11)
    edges[:, 12] = seeds + 11
    return np.diff(edges, axis=1) - 1


def ranks(pits: np.ndarray) -> np.ndarray:
    """The documented index of each row of 12 counts, written plainly in numpy: the
    places of the 11 bars, ranked by the combinatorial number system."""
    bars = np.cumsum(pits[:, :11] + 1, axis=1) - 1
    return _C[bars, np.arange(1, 12)].sum(axis=1)


def turned(pits: np.ndarray) -> np.ndarray:
    """The same boards seen from the other side: the two rows swapped."""
    return np.concatenate([pits[:, 6:], pits[:, :6]], axis=1)


@pytest.fixture(scope="module")
def layers() -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """For every layer of 0 to 12 seeds: each composition's rank, and the rank of the
    same pits with the rows swapped."""
    found = {}
    for seeds in range(AWELE_SEEDS + 1):
        pits = every_composition(seeds)
        rank = ranks(pits)
        # The plain rank is a perfect index: each position of the layer exactly once.
        assert np.array_equal(np.sort(rank), np.arange(comb(seeds + 11, 11)))
        found[seeds] = (rank, ranks(turned(pits)))
    return found


_solved: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def solver_table(rules: str) -> tuple[np.ndarray, np.ndarray]:
    """The solver's ``(offsets, values)`` of every position of up to 12 seeds."""
    if rules not in _solved:
        _solved[rules] = margin_table(RULESETS[rules].kernel_flags(), AWELE_SEEDS)
    return _solved[rules]


def random_pits(rng: random.Random, seeds: int) -> list[int]:
    pits = [0] * 12
    for _ in range(seeds):
        pits[rng.randrange(12)] += 1
    return pits


def board_of(pits: list[int], rules: str, side: Side) -> Board:
    """``pits`` as South's row then North's, ``side`` to move, empty stores."""
    return Board(format_position(pits, (0, 0), side), RULESETS[rules])


def solver_moves(board: Board, offsets: np.ndarray, values: np.ndarray
                 ) -> tuple[int, dict[Move, int]]:
    """The value of ``board`` for the side to move and each legal move's value, from
    the solver's table as :func:`gameclub.awele.solver.solve` computes them: the seeds
    a move captures plus the position after it, from the mover's side."""
    flags = board.rules.kernel_flags()
    state = np.asarray(board.kernel_state(), dtype=np.uint8)
    sign = 1 if board.turn is Side.SOUTH else -1
    moves: dict[Move, int] = {}
    if board.outcome() is None:
        after = np.empty_like(state)
        mask = kernel.legal_mask(state, flags)
        base = 6 * int(board.turn)
        for i in range(6):
            if mask >> i & 1:
                captured = kernel.play(state, base + i, after, flags)
                moves[Move(base + i)] = int(captured + sign * south_margin(after, offsets,
                                                                             values))
    return int(sign * south_margin(state, offsets, values)), moves


@pytest.mark.parametrize("rules", RULES)
def test_every_position_agrees_with_the_exhaustive_solver(rules, layers, awele_probe_12):
    """All 2 704 156 positions of 0 to 12 seeds, either side to move: the table's margin
    equals the solver's (South's margin in the solver, the mover's in the table)."""
    probe: AweleProbe = awele_probe_12(rules)
    offsets, values = solver_table(rules)
    checked = 0
    for seeds, (rank, rank_turned) in layers.items():
        stored = np.asarray(probe.table.values(seeds))
        start = 2 * offsets[seeds]
        south_to_move = values[start + 2 * rank]
        north_to_move = values[start + 2 * rank + 1]
        assert np.array_equal(stored[rank], south_to_move), seeds
        # North to move: its own row first is the turned board, and its margin is
        # the negation of South's.
        assert np.array_equal(stored[rank_turned], -north_to_move), seeds
        checked += 2 * rank.size
    assert checked == 2 * sum(comb(n + 11, 11) for n in range(AWELE_SEEDS + 1))
    # Not a table of zeros: both sides win seeds somewhere in every layer from 2 up.
    for seeds in range(2, AWELE_SEEDS + 1):
        layer = np.asarray(probe.table.values(seeds))
        assert layer.max() > 0 and layer.min() < 0, seeds


@pytest.mark.parametrize("rules", RULES)
def test_every_move_of_random_positions_agrees_with_the_exhaustive_solver(rules,
                                                                          awele_probe_12):
    """2 000 random positions of 0 to 12 seeds (about 150 a layer), a random side to
    move: the value and every legal move's value, moves from the Python Board on the
    table's side and from the kernels on the solver's."""
    probe: AweleProbe = awele_probe_12(rules)
    offsets, values = solver_table(rules)
    rng = random.Random(17)
    ongoing = 0
    for _ in range(2000):
        board = board_of(random_pits(rng, rng.randint(0, AWELE_SEEDS)), rules,
                         rng.choice((Side.SOUTH, Side.NORTH)))
        value, moves = probe.probe(board)
        assert (value, dict(moves)) == solver_moves(board, offsets, values), board.position()
        ongoing += bool(moves)
    assert ongoing > 1500


#: Positions per seed count that ``solve`` takes one at a time in the default suite
#: (about 10 ms a position at 6 seeds, 0.1 s at 8, 0.6 s at 10, 3 s at 12).
DEFAULT_SOLVES = {1: 20, 2: 20, 3: 20, 4: 20, 5: 20, 6: 20, 7: 15, 8: 12, 9: 6, 10: 3,
                  11: 1, 12: 1}
#: The ``slow`` test's positions, all of 10 to 12 seeds.
SLOW_SOLVES = {10: 60, 11: 30, 12: 30}


def check_solve(probe: AweleProbe, rules: str, counts: dict[int, int], seed: int
                ) -> dict[int, tuple[int, float]]:
    """``solve`` on ``counts[n]`` random ongoing positions of ``n`` seeds: its value and
    every move's value equal the table's. Returns, per seed count, the positions solved
    and the wall-clock and CPU seconds they took."""
    rng = random.Random(seed)
    timings = {}
    for seeds, count in counts.items():
        done = 0
        started, cpu = time.perf_counter(), time.process_time()
        while done < count:
            board = board_of(random_pits(rng, seeds), rules,
                             rng.choice((Side.SOUTH, Side.NORTH)))
            if board.outcome() is not None:
                continue
            solution = solve(board)
            value, moves = probe.probe(board)
            assert solution.value == value, board.position()
            assert solution.moves == dict(moves), board.position()
            done += 1
        timings[seeds] = (done, time.perf_counter() - started, time.process_time() - cpu)
    return timings


@pytest.mark.parametrize("rules", RULES)
def test_solve_agrees_with_the_tables_position_by_position(rules, awele_probe_12):
    """``solve`` from each position's own root (its forward walk included) on 158 random
    positions of 1 to 12 seeds."""
    probe: AweleProbe = awele_probe_12(rules)
    timings = check_solve(probe, rules, DEFAULT_SOLVES, seed=23)
    assert sum(done for done, _, _ in timings.values()) == sum(DEFAULT_SOLVES.values())


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("rules", RULES)
def test_solve_agrees_with_the_tables_on_many_10_to_12_seed_positions(rules, awele_probe_12,
                                                                     capsys):
    """120 positions of 10 to 12 seeds a rule set, each solved from its own root (about
    2 to 3 minutes a rule set on a free core)."""
    probe: AweleProbe = awele_probe_12(rules)
    timings = check_solve(probe, rules, SLOW_SOLVES, seed=29)
    with capsys.disabled():
        for seeds, (done, seconds, cpu) in timings.items():
            print(f"\n{rules}: solve on {done} positions of {seeds} seeds, "
                  f"{seconds / done:.2f} s each ({cpu / done:.2f} CPU s)", end="")


@pytest.mark.parametrize("rules", RULES)
def test_the_wdl_files_hold_the_sign_of_the_solvers_margin(rules, layers, awele_probe_12):
    """The derived 2-bit table (loss 0, draw 1, win 2), decompressed from its block RLE,
    on every position of 0 to 12 seeds."""
    probe: AweleProbe = awele_probe_12(rules)
    offsets, values = solver_table(rules)
    for seeds, (rank, _) in layers.items():
        codes = probe.table.wdl(seeds).codes()
        south = values[2 * offsets[seeds] + 2 * rank]
        assert np.array_equal(codes[rank], np.sign(south).astype(np.int64) + 1), seeds


def won_positions(probe: AweleProbe, count: int, low: int, seed: int
                  ) -> list[tuple[list[int], int]]:
    """``count`` random positions of ``low`` to 12 seeds won by the side to move."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        pits = random_pits(rng, rng.randint(low, AWELE_SEEDS))
        value = probe.value_of(pits)
        if value > 0:
            found.append((pits, value))
    return found


def own_board(pits: list[int], rules: str, side: Side) -> Board:
    """``pits`` seen by ``side`` (its row first), ``side`` to move."""
    board_pits = pits if side is Side.SOUTH else pits[6:] + pits[:6]
    return board_of(board_pits, rules, side)


def check_perfect_play(probe: AweleProbe, against_random: int, against_master: int,
                       seed: int) -> None:
    """The perfect player from random won positions of 8 to 12 seeds, a random side to
    move, against a random player and against ``master`` (depth 6, no tables): every
    perfect move keeps the value, and the game ends with at least the stored margin."""
    rules = probe.rules.name
    rng = random.Random(seed)
    for pits, value in won_positions(probe, against_random, 8, seed=seed + 1):
        board = own_board(pits, rules, rng.choice((Side.SOUTH, Side.NORTH)))
        assert play_out(board, probe, lambda b: rng.choice(b.legal_moves)) >= value, pits
    master = Engine("master", endgame=NoEndgameDatabase(), seed=seed)
    master.new_game()
    limits = SearchLimits(depth=6)
    opponent: Callable[[Board], Move] = lambda b: master.search(b, limits).move  # noqa: E731
    for pits, value in won_positions(probe, against_master, 8, seed=seed + 2):
        board = own_board(pits, rules, rng.choice((Side.SOUTH, Side.NORTH)))
        assert play_out(board, probe, opponent) >= value, pits


@pytest.mark.parametrize("rules", RULES)
def test_the_perfect_player_keeps_the_stored_margin_from_12_seed_tables(rules,
                                                                       awele_probe_12):
    """300 games against a random player and 20 against ``master`` (a few ms a game
    against the random player; against ``master`` its first search compiles for
    several seconds, then well under 0.1 CPU s a game)."""
    check_perfect_play(awele_probe_12(rules), 300, 20, seed=31)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("rules", RULES)
def test_the_perfect_player_keeps_the_stored_margin_against_master_often(rules,
                                                                        awele_probe_12):
    """200 more games against ``master`` a rule set (20 to 40 s)."""
    check_perfect_play(awele_probe_12(rules), 0, 200, seed=43)
