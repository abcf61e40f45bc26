"""Exact-solver speed: median seconds to solve positions with N empty squares.

    .venv/bin/python benchmarks/bench_endgame.py --empties 10 --positions 9
    .venv/bin/python benchmarks/bench_endgame.py --empties 14 --positions 5 --limit 60

``--wld`` proves win/draw/loss only (the mode ``master`` plays with). A position
not solved within ``--limit`` seconds counts as ``--limit`` in the median (which is
then a lower bound, marked ``>=``). Times depend on what else the machine runs: the
load average is printed with the figures, and so are the nodes (positions visited,
including the children scored in place), which do not.

Positions come from games of ``master`` (2000 nodes a move, some random moves)
from the 4-ply openings, stopped when ``--empties`` squares are left. Those games
change whenever the engine does (master itself calls this solver), so the ones
measured are kept in ``endgame_positions.txt`` (5, 8, 10, 12 and 14 empty squares,
ataxx rules, seed 1) and read from there; ``--generate`` plays new games instead.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from pathlib import Path

from gameclub.ataxx import ATAXX, SITE_2005, Board
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.endgame import solve
from gameclub.tt import TranspositionTable

OPENINGS = Path(__file__).resolve().parents[1] / "src/gameclub/data/ataxx-openings-4ply.txt"
STORED = Path(__file__).resolve().parent / "endgame_positions.txt"


def stored_positions(count: int, empties: int) -> list[Board] | None:
    """The kept positions with ``empties`` empty squares, if there are ``count`` of them."""
    found: list[Board] = []
    section = None
    for line in STORED.read_text().splitlines():
        if line.startswith("# empties "):
            section = int(line.split()[-1])
        elif line.strip() and not line.startswith("#") and section == empties:
            found.append(Board(line.strip(), rules=ATAXX))
    return found[:count] if len(found) >= count else None


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
    parser.add_argument("--generate", action="store_true",
                        help="play new games instead of reading endgame_positions.txt")
    args = parser.parse_args()
    solve(Board("xxx/xxo/oo1 x 0 1"))  # load the kernel outside the measurement
    times = []
    unsolved = 0
    solved_nodes = []
    load_start = os.getloadavg()[0]
    boards = None
    if not args.generate and args.rules == "ataxx" and args.seed == 1:
        boards = stored_positions(args.positions, args.empties)
    if boards is None:
        boards = positions(args.positions, args.empties, args.rules, args.seed)
    for board in boards:
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
        solved_nodes.append(result.nodes)
        print(f"{board.fen():40s} result {result.result:+d} margin {result.margin:+3d} "
              f"move {result.move.uci() if result.move else '-':5s} nodes {result.nodes:11d} "
              f"{elapsed:8.3f} s exact={result.exact}")
    median = statistics.median(times)
    bound = ">=" if unsolved * 2 >= len(times) else ""
    print(f"{args.empties} empties, {len(times)} positions, {unsolved} unsolved: "
          f"median {bound}{median:.3f} s, max {'>=' if unsolved else ''}{max(times):.3f} s")
    if solved_nodes:
        print(f"nodes of the solved: median {int(statistics.median(solved_nodes))}, "
              f"max {max(solved_nodes)}")
    print(f"load average (1 min) at start {load_start:.2f}, at end {os.getloadavg()[0]:.2f}")

if __name__ == "__main__":
    main()
