"""Strength of the Awele levels: the ladder, OpenSpiel's MCTS, and Aalina.

Every match is played by the match runner (``gameclub.match.run_awele_match``)
with our engine as a UCI-for-Oware process, over the 36 two-move openings
(shuffled with ``--seed``), each opening twice with colours swapped, under the
``oware`` rules (abapa: Aalina's and OpenSpiel's)::

    python benchmarks/awele_strength.py ladder --games 72
        random vs greedy and greedy vs master (0.1 s a move)
    python benchmarks/awele_strength.py mcts --games 200 [--nodes 300000]
        master (a node budget: the bot ignores time) vs OpenSpiel's MCTS, 10,000
        simulations a move (benchmarks/openspiel_mcts_uci.py)
    python benchmarks/awele_strength.py aalina --games 100 --movetime 1 \\
        --aalina "java -cp /tmp/aalina/build com.joansala.oware.OwareService"
        master vs Aalina at 1 s a move, its opening book off (docs/awele-engine.md
        says how to build it)

Each match prints its games as they end and a summary: W-L-D from the first
engine's side, its score, the Elo difference with a 95% interval, and the
likelihood of superiority.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from gameclub.awele.rules import RULESETS
from gameclub.match import (
    AweleMatchConfig,
    MatchResult,
    TimeControl,
    awele_openings,
    parse_awele_engine,
    run_awele_match,
)

HERE = Path(__file__).resolve().parent


def play(engine1: str, engine2: str, tc: TimeControl, games: int, seed: int, *,
         options2: tuple[str, ...] = (), name2: str | None = None, margin: float = 0.1,
         pgn: str | None = None, concurrency: int = 1) -> MatchResult:
    rules = RULESETS["oware"]
    openings = awele_openings(rules, 2)
    random.Random(seed).shuffle(openings)
    config = AweleMatchConfig(
        engine1=parse_awele_engine(engine1),
        engine2=parse_awele_engine(engine2, name=name2, options=options2),
        time_control=tc,
        openings=openings,
        games=games,
        concurrency=concurrency,
        awele_rules=rules,
        pgn_path=pgn,
        time_margin=margin,
        move_timeout=120.0,
        event="awele strength",
    )
    started = time.perf_counter()
    result = run_awele_match(config)
    print(f"{len(result.games)} games in {time.perf_counter() - started:.0f} s", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Awele strength matches")
    parser.add_argument("pair", choices=("ladder", "mcts", "aalina"))
    parser.add_argument("--games", type=int, default=72)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--movetime", type=float, default=1.0, help="seconds a move (aalina)")
    parser.add_argument("--nodes", type=int, default=300_000, help="master's nodes a move (mcts)")
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--aalina", help="the command that runs Aalina's UCI service")
    parser.add_argument("--margin", type=float, default=0.1,
                        help="seconds an engine may overrun its move time (default 0.1)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--pgn", help="append the games to this file")
    args = parser.parse_args(argv)

    if args.pair == "ladder":
        tc = TimeControl(movetime=0.1)
        play("builtin:greedy", "builtin:random", tc, args.games, args.seed, pgn=args.pgn,
             concurrency=args.concurrency)
        play("builtin:master", "builtin:greedy", tc, args.games, args.seed, pgn=args.pgn,
             concurrency=args.concurrency)
    elif args.pair == "mcts":
        command = (f"uci:{sys.executable} {HERE / 'openspiel_mcts_uci.py'} "
                   f"--simulations {args.simulations} --seed {args.seed}")
        play("builtin:master", command, TimeControl(nodes=args.nodes), args.games, args.seed,
             name2=f"mcts-{args.simulations}", pgn=args.pgn, concurrency=args.concurrency)
    else:
        if not args.aalina:
            parser.error("aalina needs --aalina COMMAND (see docs/awele-engine.md)")
        play("builtin:master", f"uci:{args.aalina}", TimeControl(movetime=args.movetime),
             args.games, args.seed, options2=("OwnBook=false",), name2="aalina",
             margin=args.margin, pgn=args.pgn, concurrency=args.concurrency)
    return 0


if __name__ == "__main__":
    sys.exit(main())
