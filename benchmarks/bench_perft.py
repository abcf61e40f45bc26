"""Perft speed of the numba kernel from the start position, depths 6 and 7.

Prints leaves per second (the last ply counted in bulk, as libataxx does), the
median of several runs, and a ratio against a peer measured in the same run:
python-ataxx's perft at depth 4 by default, or any perft command given with
``--peer`` (for example a libataxx build: ``--peer "/tmp/libataxx/build/examples/perft {depth}"``).
The peer's output must contain ``nodes N`` for the depth; when it also reports
``time T ms`` on that line, that time is used, else the wall time of the command.

    python benchmarks/bench_perft.py [--runs 5] [--peer CMD]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import time
from collections.abc import Callable

from gameclub.ataxx import Board
from gameclub.ataxx.perft import perft

EXPECTED = {4: 155_888, 5: 4_752_668, 6: 141_865_520, 7: 5_023_479_496}


def measure(fn: Callable[[], int], runs: int) -> tuple[float, int]:
    times, nodes = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        nodes = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--peer", help="a perft command; {depth} is replaced by the depth")
    args = parser.parse_args()

    board = Board()
    perft(board, 2)  # load the compiled kernel
    ours: dict[int, float] = {}
    for depth in (6, 7):
        runs = args.runs if depth == 6 else max(1, args.runs // 2)
        seconds, nodes = measure(lambda d=depth: perft(board, d), runs)
        assert nodes == EXPECTED[depth], (depth, nodes)
        ours[depth] = nodes / seconds
        print(f"gameclub  depth {depth}  nodes {nodes:>13,}  median {seconds:8.3f} s  "
              f"{nodes / seconds / 1e9:6.3f} G nodes/s")

    if args.peer:
        for depth in (6, 7):
            samples = []
            for _ in range(max(1, args.runs if depth == 6 else args.runs // 2)):
                started = time.perf_counter()
                out = subprocess.run(args.peer.format(depth=depth), shell=True, check=True,
                                     capture_output=True, text=True).stdout
                wall = time.perf_counter() - started
                found = re.findall(
                    rf"(?i)depth:? {depth}\b.*?nodes:? (\d+)(?:.*?time:? (\d+) ?ms)?", out
                )
                if not found:
                    raise SystemExit(f"no node count for depth {depth} in the peer's output")
                nodes_text, ms = found[-1]
                samples.append((float(ms) / 1000 if ms else wall, int(nodes_text)))
            seconds = statistics.median(s for s, _ in samples)
            nodes = samples[0][1]
            assert nodes == EXPECTED[depth], (depth, nodes)
            peer_nps = nodes / seconds
            print(f"peer      depth {depth}  nodes {nodes:>13,}  median {seconds:8.3f} s  "
                  f"{peer_nps / 1e9:6.3f} G nodes/s")
            print(f"ratio gameclub / peer at depth {depth}: {ours[depth] / peer_nps:.2f}")
    else:
        import ataxx

        theirs = ataxx.Board()
        seconds, nodes = measure(lambda: theirs.perft(4), 1)
        assert nodes == EXPECTED[4]
        ours4, _ = measure(lambda: perft(board, 4), args.runs)
        print(f"python-ataxx depth 4  nodes {nodes:,}  {seconds:.3f} s  "
              f"{nodes / seconds / 1e6:.3f} M nodes/s")
        print(f"ratio gameclub / python-ataxx at depth 4: {seconds / ours4:,.0f}x")


if __name__ == "__main__":
    main()
