"""Awele perft and random playouts: our numba kernel against OpenSpiel's oware, same run.

Perft counts the leaves of the move tree from the start under the oware rules
(the last ply in bulk); OpenSpiel's is its C++ game driven through its Python
bindings (``state.child``, ``legal_actions``), so the ratio measures what a
Python user of each gets. Playouts are whole uniformly random games: ours in
one kernel call, OpenSpiel's stepped from Python. Prints the median of several
runs and the ratio (ours / OpenSpiel's) for each.

    python benchmarks/bench_awele_perft.py [--runs 3] [--depth 9] [--peer-depth 6] [--games 2000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import pyspiel

from gameclub.awele import OWARE, Board
from gameclub.awele import kernel as K
from gameclub.awele.perft import perft


def measure(fn: Callable[[], int], runs: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        count = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), count


def openspiel_perft(state, depth: int) -> int:  # type: ignore[no-untyped-def]
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    if depth == 1:
        return len(state.legal_actions())
    return sum(openspiel_perft(state.child(a), depth - 1) for a in state.legal_actions())


def openspiel_playouts(game, games: int) -> int:  # type: ignore[no-untyped-def]
    plies = 0
    rng = random.Random(0)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--depth", type=int, default=9, help="our perft depth (default 9)")
    parser.add_argument("--peer-depth", type=int, default=6,
                        help="OpenSpiel's perft depth (default 6: it is far slower)")
    parser.add_argument("--games", type=int, default=2000, help="random games for each side")
    args = parser.parse_args()

    game = pyspiel.load_game("oware")
    board = Board(rules=OWARE)
    perft(board, 2)  # compile before timing
    ours_time, ours_nodes = measure(lambda: perft(board, args.depth), args.runs)
    peer_time, peer_nodes = measure(
        lambda: openspiel_perft(game.new_initial_state(), args.peer_depth), args.runs)
    ours_nps, peer_nps = ours_nodes / ours_time, peer_nodes / peer_time
    print(f"perft    ours      depth {args.depth} nodes {ours_nodes} time {ours_time:.3f} "
          f"nps {ours_nps:,.0f}")
    print(f"perft    openspiel depth {args.peer_depth} nodes {peer_nodes} time {peer_time:.3f} "
          f"nps {peer_nps:,.0f}")
    print(f"perft    ratio {ours_nps / peer_nps:.1f}x")

    start = board.kernel_state()
    flags = OWARE.kernel_flags()
    K.playouts(start, 2, 0, flags, OWARE.repetition_count, False, 1000)  # compile

    def ours_games() -> int:
        plies, _, _ = K.playouts(start, args.games, 0, flags, OWARE.repetition_count, False, 1000)
        return int(plies)

    ours_time, ours_plies = measure(ours_games, args.runs)
    peer_time, peer_plies = measure(lambda: openspiel_playouts(game, args.games), args.runs)
    print(f"playouts ours      games {args.games} plies {ours_plies} time {ours_time:.3f} "
          f"games/s {args.games / ours_time:,.0f} plies/s {ours_plies / ours_time:,.0f}")
    print(f"playouts openspiel games {args.games} plies {peer_plies} time {peer_time:.3f} "
          f"games/s {args.games / peer_time:,.0f} plies/s {peer_plies / peer_time:,.0f}")
    print(f"playouts ratio {peer_time / ours_time:.1f}x (games per second)")


if __name__ == "__main__":
    main()
