"""Exact-solver speed: median seconds to solve positions with N empty squares.

    .venv/bin/python benchmarks/bench_endgame.py --empties 10 --positions 9
    .venv/bin/python benchmarks/bench_endgame.py --empties 14 --positions 5 --limit 60

``--wld`` proves win/draw/loss only (the mode ``master`` plays with). A position
not solved within ``--limit`` seconds counts as ``--limit`` in the median (which is
then a lower bound, marked ``>=``).

Positions come from games of ``master`` (2000 nodes a move, some random moves)
from the 4-ply openings, stopped when ``--empties`` squares are left.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from pathlib import Path

from gameclub.ataxx import ATAXX, SITE_2005, Board
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.endgame import solve
from gameclub.ataxx.engine.tt import TranspositionTable

OPENINGS = Path(__file__).resolve().parents[1] / "src/gameclub/data/ataxx-openings-4ply.txt"


def positions(count: int, empties: int, rules_name: str, seed: int) -> list[Board]:
    rules = SITE_2005 if rules_name == "site-2005" else ATAXX
    openings = [line.strip() for line in OPENINGS.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    rng = random.Random(seed)
    engine = Engine("master", seed=seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board(rng.choice(openings), rules=rules) if rules is ATAXX else Board(rules=rules)
        while board.outcome() is None and board.empty.bit_count() > empties:
            if rng.random() < 0.1:
                board.push(rng.choice(board.legal_moves))
            else:
                board.push(engine.search(board, SearchLimits(nodes=2000)).move)
        if board.outcome() is None and board.empty.bit_count() == empties:
            found.append(Board(board.fen(), rules=rules))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--empties", type=int, default=10)
    parser.add_argument("--positions", type=int, default=9)
    parser.add_argument("--rules", default="ataxx", choices=("ataxx", "site-2005"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=30.0, help="seconds per position")
    parser.add_argument("--hash", type=int, default=64, help="table size in MB")
    parser.add_argument("--wld", action="store_true",
                        help="win/draw/loss only (what master uses), not the margin")
    args = parser.parse_args()
    solve(Board("xxx/xxo/oo1 x 0 1"))  # load the kernel outside the measurement
    times = []
    unsolved = 0
    for board in positions(args.positions, args.empties, args.rules, args.seed):
        stop = threading.Event()
        timer = threading.Timer(args.limit, stop.set)
        timer.start()
        started = time.perf_counter()
        result = solve(board, stop=stop, tt=TranspositionTable(args.hash), margin=not args.wld)
        elapsed = time.perf_counter() - started
        timer.cancel()
        if result is None:
            unsolved += 1
            times.append(args.limit)
            print(f"{board.fen():40s} not solved in {args.limit:.0f} s")
            continue
        times.append(elapsed)
        print(f"{board.fen():40s} result {result.result:+d} margin {result.margin:+3d} "
              f"move {result.move.uci() if result.move else '-':5s} nodes {result.nodes:11d} "
              f"{elapsed:8.3f} s exact={result.exact}")
    median = statistics.median(times)
    bound = ">=" if unsolved * 2 >= len(times) else ""
    print(f"{args.empties} empties, {len(times)} positions, {unsolved} unsolved: "
          f"median {bound}{median:.3f} s, max {'>=' if unsolved else ''}{max(times):.3f} s")

if __name__ == "__main__":
    main()
