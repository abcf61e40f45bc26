"""Positions per second of the network's self-play generator, and what its search driver saves.

    .venv/bin/python benchmarks/bench_selfplay_data.py [--games 40] [--runs 3] [--nodes 1000]

Plays the games ``scripts/nnue_selfplay.py`` plays (its openings, ``--nnue 1``,
balanced openings, adjudicated ends) on one core, two ways in turn on the same games:
as the generator does, master's iterations all in one kernel call (a search bounded by
nodes alone), and with an info callback, one kernel call an iteration (as a search
that reports each iteration, UAI's, does). The two make the same moves (the test
suite holds them to it), so the difference is the cost of the calls. Prints positions
a second for each run, the medians and their ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import nnue_selfplay

from gameclub.ataxx.engine import Engine, SearchResult


class _Reporting(Engine):
    """master with an info callback on every search: one kernel call an iteration."""

    def search(self, board, limits=None, info=None, stop=None):  # type: ignore[no-untyped-def]
        def ignore(result: SearchResult) -> None:
            pass

        return super().search(board, limits, info=ignore, stop=stop)


def _play(engine: Engine, args: argparse.Namespace, seed: int) -> float:
    positions = 0
    started = time.perf_counter()
    for game in range(args.games):
        rng = random.Random(seed * 1_000_003 + game)
        board = nnue_selfplay.balanced_opening(rng, engine, args)
        positions += len(nnue_selfplay.play_game(engine, board, args.nodes, adjudicate=True))
    return positions / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games a run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=1000)
    options = parser.parse_args()
    # The generator's settings of this round (docs/nnue.md).
    args = argparse.Namespace(nodes=options.nodes, games=options.games, random_plies=(10, 16),
                              max_opening_score=150, blocks_share=0.25, max_blocks=8)
    one_call = nnue_selfplay._engine("1", 4)
    per_iteration = _Reporting("master", seed=0, hash_mb=4, tables=one_call.tables)
    # A game each, untimed: the first one loads every kernel the games use.
    for engine in (one_call, per_iteration):
        _play(engine, argparse.Namespace(**{**vars(args), "games": 1}), seed=0)
    rates: dict[str, list[float]] = {"one call": [], "a call an iteration": []}
    for run in range(options.runs):
        for name, engine in (("one call", one_call), ("a call an iteration", per_iteration)):
            rate = _play(engine, args, seed=run + 1)
            rates[name].append(rate)
            print(f"run {run + 1}  {name:20s} {rate:8.0f} positions/s", flush=True)
    first, second = (statistics.median(r) for r in rates.values())
    print(f"median: one call {first:.0f}, a call an iteration {second:.0f} positions/s; "
          f"ratio {first / second:.2f}")


if __name__ == "__main__":
    main()
