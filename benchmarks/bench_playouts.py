"""Random playouts through the Python-level API: gameclub.ataxx.Board vs python-ataxx.

Each side plays the same number of seeded random games from the start position
(generate the legal moves, pick one, push it, until the game ends). Runs
alternate between the two libraries; the figures are medians over the runs.

    python benchmarks/bench_playouts.py [--games 20] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import ataxx

from gameclub.ataxx import Board


def ours(games: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        board = Board()
        while True:
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
            plies += 1
    return plies


def theirs(games: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        board = ataxx.Board()
        while True:
            moves = board.legal_moves()
            if not moves:
                break
            board.makemove(rng.choice(moves))
            plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rates: dict[str, list[float]] = {"gameclub": [], "python-ataxx": []}
    plies: dict[str, list[int]] = {"gameclub": [], "python-ataxx": []}
    for run in range(args.runs):
        for name, fn in (("gameclub", ours), ("python-ataxx", theirs)):
            started = time.perf_counter()
            n = fn(args.games, run)
            elapsed = time.perf_counter() - started
            rates[name].append(args.games / elapsed)
            plies[name].append(n)
    for name in rates:
        print(f"{name:13s} {statistics.median(rates[name]):8.1f} playouts/s "
              f"({statistics.median(plies[name]) / args.games:.0f} plies per game)")
    ratio = statistics.median(rates["gameclub"]) / statistics.median(rates["python-ataxx"])
    print(f"ratio gameclub / python-ataxx: {ratio:.1f}x  (target: at least 10x)")


if __name__ == "__main__":
    main()
