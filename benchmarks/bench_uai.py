"""What a move costs the engine outside its search, over UAI, beside another engine.

    .venv/bin/python benchmarks/bench_uai.py [--peer COMMAND] [--rounds 5] [--goes 40]

Each engine (ours, ``python -m gameclub.uai``, and with ``--peer`` any other UAI
engine, e.g. Zataxx built under /tmp: docs/nnue.md) gets the same positions of a
few random games and is timed from ``go`` to ``bestmove`` as a match runner sees it:

* ``go depth 1``: the shallowest search, so almost all of it is the protocol, the
  thread hand-offs and the setting up of a search;
* ``go movetime 50``: how much of a 50 ms move the engine gives back (its
  ``MoveOverhead`` and its own margin).

The engines take turns, ``--rounds`` times, and the median of each round's median is
printed, with ours / the peer's, so that a busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import time

from gameclub.ataxx import Board
from gameclub.uai import UaiEngineProcess

OURS = f"{sys.executable} -m gameclub.uai"
PROBES = {"go depth 1": {"depth": 1}, "go movetime 50": {"movetime": 0.05}}


def positions(count: int, seed: int = 1) -> list[list[str]]:
    """The move lists of ``count`` positions of random games (a new game when one ends)."""
    rng = random.Random(seed)
    lines: list[list[str]] = []
    board = Board()
    while len(lines) < count:
        if board.outcome() is not None:
            board = Board()
        lines.append([m.uci() for m in board.move_stack])
        board.push(rng.choice(board.legal_moves))
    return lines


def time_goes(engine: UaiEngineProcess, lines: list[list[str]], go: dict[str, float]) -> float:
    """Median seconds from ``go`` to ``bestmove`` over the positions."""
    seconds = []
    for moves in lines:
        engine.position("startpos", moves)
        started = time.perf_counter()
        engine.go(timeout=30, **go)  # type: ignore[arg-type]
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", help="command line of another UAI engine")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--goes", type=int, default=40, help="positions a round")
    args = parser.parse_args()
    lines = positions(args.goes)
    commands = {"gameclub": OURS} | ({"peer": args.peer} if args.peer else {})
    engines = {name: UaiEngineProcess(shlex.split(cmd), name=name)
               for name, cmd in commands.items()}
    medians: dict[tuple[str, str], list[float]] = {}
    try:
        for engine in engines.values():
            engine.uai()
            engine.isready(timeout=120)  # ours compiles or loads its kernels here
            time_goes(engine, lines[:5], PROBES["go depth 1"])  # warm up
        for _ in range(args.rounds):
            for probe, go in PROBES.items():
                for name, engine in engines.items():
                    medians.setdefault((probe, name), []).append(time_goes(engine, lines, go))
    finally:
        for engine in engines.values():
            engine.quit()
    print(f"{len(lines)} positions, {args.rounds} rounds; go -> bestmove, median of medians (ms)")
    for probe in PROBES:
        row = {name: statistics.median(medians[probe, name]) * 1000 for name in engines}
        text = "  ".join(f"{name} {ms:7.2f}" for name, ms in row.items())
        ratio = f"  ours / peer {row['gameclub'] / row['peer']:.2f}" if "peer" in row else ""
        print(f"{probe:16} {text}{ratio}")


if __name__ == "__main__":
    main()
