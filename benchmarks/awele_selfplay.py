"""Fixed-node matches between two configurations of ``master``, in one process: a
fair measure of a change on a noisy machine (a node budget does not depend on load).

    python benchmarks/awele_selfplay.py --nodes 20000 --games 100 --a exact=12 --b exact=-1

A configuration is ``key=value,...`` with the keys ``exact`` (seeds at or below
which nodes are scored by the exact margins, -1: never), ``qsearch`` (plies of
captures beyond the horizon), ``lmr`` (first late move reduced, 0: off) and
``known`` (the bonus of an exactly known win over its margin, 0: none), and
the evaluation's weights ``kroo``, ``empty`` and ``weak`` (hundredths of a seed).
Games start from the series' three-move openings (those of
``awele_strength.py``), each twice with colours swapped, under the ``oware``
rules; the total of plies is capped by ``--max-plies`` (a game still going is
scored by its stores). Prints A's W-L-D, score and Elo with a 95% interval.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from gameclub.awele import OWARE, Board, Side
from gameclub.awele.engine import Engine, SearchLimits
from gameclub.awele.engine.evaluate import W_EMPTY, W_KROO, W_WEAK
from gameclub.awele.engine.search import OPT_KNOWN, OPT_LMR, OPT_QSEARCH
from gameclub.match import awele_openings, elo_estimate

KEYS = ("exact", "qsearch", "lmr", "known", "kroo", "empty", "weak")


def parse(text: str) -> dict[str, int]:
    config: dict[str, int] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in KEYS:
            raise SystemExit(f"configuration item {item!r}: expected one of {KEYS} as key=value")
        config[key] = int(value)
    return config


def make(config: dict[str, int]) -> Engine:
    engine = Engine("master", hash_mb=16, exact_seeds=config.get("exact"))
    engine.new_game()
    master = engine._master_search()
    if "qsearch" in config:
        master.options[OPT_QSEARCH] = config["qsearch"]
    for key, index in (("kroo", W_KROO), ("empty", W_EMPTY), ("weak", W_WEAK)):
        if key in config:
            master.weights[index] = config[key]
    if "known" in config:
        master.options[OPT_KNOWN] = config["known"]
    if "lmr" in config:
        master.options[OPT_LMR] = config["lmr"]
    return engine


def play(south: Engine, north: Engine, opening: str, nodes: int, max_plies: int) -> int:
    """South's result: 1 won, 0 drew, -1 lost."""
    board = Board(rules=OWARE)
    for letter in opening:
        board.push(letter)
    south.new_game()
    north.new_game()
    while board.outcome() is None and len(board.move_stack) < max_plies:
        engine = south if board.turn == Side.SOUTH else north
        board.push(engine.search(board, SearchLimits(nodes=nodes)).move)
    outcome = board.outcome()
    south_seeds, north_seeds = outcome.score if outcome is not None else board.stores
    return (south_seeds > north_seeds) - (south_seeds < north_seeds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="", help="configuration A (default: the defaults)")
    parser.add_argument("--b", default="", help="configuration B")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first-game", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=400)
    args = parser.parse_args()
    a, b = make(parse(args.a)), make(parse(args.b))
    openings = awele_openings(OWARE, 3)  # as awele_strength.py's series
    random.Random(args.seed).shuffle(openings)
    if args.first_game < 0 or args.first_game + args.games > 2 * len(openings):
        parser.error(f"the openings give {2 * len(openings)} games; "
                     f"{args.first_game}+{args.games} is past them")
    wins = losses = draws = 0
    started = time.perf_counter()
    for game in range(args.first_game, args.first_game + args.games):
        opening = openings[game // 2]
        a_south = game % 2 == 0
        result = play(a, b, opening, args.nodes, args.max_plies) if a_south else -play(
            b, a, opening, args.nodes, args.max_plies)
        wins += result > 0
        losses += result < 0
        draws += result == 0
        print(f"game {game} {opening} A {'south' if a_south else 'north'}: {result:+d}  "
              f"[{wins}-{losses}-{draws}]", flush=True)
    n = wins + losses + draws
    print(f"A ({args.a or 'defaults'}) vs B ({args.b or 'defaults'}), {args.nodes} nodes a move: "
          f"{wins} - {losses} - {draws} [{(wins + 0.5 * draws) / n:.3f}] {n} games in "
          f"{time.perf_counter() - started:.0f} s")
    print(elo_estimate(wins, losses, draws).describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
