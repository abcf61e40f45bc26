"""Every line of the libataxx perft suite (tests/data/ataxx-perft.txt), with timings.

    python benchmarks/perft_suite.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gameclub.ataxx import Board
from gameclub.ataxx.perft import perft

SUITE = Path(__file__).resolve().parent.parent / "tests" / "data" / "ataxx-perft.txt"


def main() -> int:
    failures = total_nodes = 0
    started = time.perf_counter()
    for line in SUITE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fen, depth, expected = (part.strip() for part in line.split(";"))
        t0 = time.perf_counter()
        nodes = perft(Board(fen), int(depth))
        ok = nodes == int(expected)
        failures += not ok
        total_nodes += nodes
        print(f"{'ok ' if ok else 'BAD'} {fen:45s} depth {depth} nodes {nodes:>13,} "
              f"{time.perf_counter() - t0:7.3f} s")
    elapsed = time.perf_counter() - started
    print(f"{failures} failures; {total_nodes:,} nodes in {elapsed:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
