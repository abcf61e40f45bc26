"""Search speed of ``master``: nodes per second from the start position (and a few others).

    .venv/bin/python benchmarks/bench_search.py [--depth 9]

Each position is searched from a fresh engine to a fixed depth, single-threaded;
the line per position and the total give nodes, seconds and nodes/s.
"""

from __future__ import annotations

import argparse
import time

from gameclub.ataxx import Board
from gameclub.ataxx.engine import Engine, SearchLimits

POSITIONS = (
    "x5o/7/7/7/7/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
    "x1o1x1o/7/ooxxoox/7/xxooxxo/7/o1x1o1x x 0 1",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9)
    args = parser.parse_args()
    engine = Engine("master")
    engine.new_game()  # loads the kernels outside the measurement
    total_nodes = 0
    total_time = 0.0
    for fen in POSITIONS:
        engine.new_game()
        started = time.perf_counter()
        result = engine.search(Board(fen), SearchLimits(depth=args.depth))
        elapsed = time.perf_counter() - started
        total_nodes += result.nodes
        total_time += elapsed
        print(f"{fen:45s} depth {result.depth:2d} move {result.move.uci():5s} "
              f"score {result.score:6d} nodes {result.nodes:10d} {elapsed:7.3f} s "
              f"{result.nodes / elapsed / 1e6:6.2f} M nodes/s")
    print(f"total: {total_nodes} nodes in {total_time:.3f} s = "
          f"{total_nodes / total_time / 1e6:.2f} M nodes/s")


if __name__ == "__main__":
    main()
