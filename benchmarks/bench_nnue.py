"""The network's costs: incremental update vs full recomputation, and master's nodes/s with it.

    .venv/bin/python benchmarks/bench_nnue.py [--net FILE] [--positions 200] [--nodes 200000]

Part 1 replays random games and times (in CPU time, so that a busy machine counts
less), inside one numba loop each, the incremental
update of every move (by the number of pieces it flips) against a full
recomputation of the same child positions, and the evaluation from accumulators.
Part 2 searches the same positions with master at a fixed node budget, with the
hand-written evaluation and with the network, and prints both nodes per second and
their ratio. Without ``--net`` the shipped network is used (or, if there is none,
a random one of 64 hidden units: the costs do not depend on the values).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from numba import njit

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.nnue import (
    N_INPUTS,
    Network,
    NetworkFileError,
    evaluate,
    load_network,
    refresh,
    update,
)
from gameclub.ataxx.engine.terminal import to_kernel_move


@njit(cache=True)
def _time_updates(parents, thems, colors, moves, w1, flip, repeat):
    child = np.empty_like(parents[0])
    check = 0
    for _ in range(repeat):
        for i in range(len(moves)):
            update(parents[i], child, thems[i], colors[i], moves[i], w1, flip)
            check += child[0, 0]
    return check


@njit(cache=True)
def _time_refresh(us, them, playable, colors, w1, b1, repeat):
    acc = np.empty((2, w1.shape[1]), dtype=np.int32)
    check = 0
    for _ in range(repeat):
        for i in range(len(us)):
            refresh(us[i], them[i], playable, colors[i], w1, b1, acc)
            check += acc[0, 0]
    return check


@njit(cache=True)
def _time_evaluate(accs, colors, w2, b2, scale, repeat):
    check = 0
    for _ in range(repeat):
        for i in range(len(colors)):
            check += evaluate(accs[i], colors[i], w2, b2, scale)
    return check


def _network(path: str | None) -> Network:
    try:
        return load_network(path)
    except NetworkFileError as exc:
        if path is not None:
            raise
        print(f"({exc}: timing a random network)")
        rng = np.random.default_rng(0)
        return Network.from_arrays(rng.integers(-50, 50, (N_INPUTS, 64)),
                                   rng.integers(-50, 50, 64), rng.integers(-200, 200, 128), 0, 400)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", help="weights file (default: the shipped network)")
    parser.add_argument("--positions", type=int, default=200, help="moves replayed / searched")
    parser.add_argument("--nodes", type=int, default=200_000, help="nodes a search")
    parser.add_argument("--searches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    net = _network(args.net)
    rng = random.Random(args.seed)
    parents, thems, colors, moves, flips, boards = [], [], [], [], [], []
    board = Board(rules=ATAXX)
    while len(moves) < args.positions:
        if board.outcome() is not None:
            board = Board(rules=ATAXX)
        move = rng.choice(board.legal_moves)
        acc = np.empty((2, net.hidden), dtype=np.int32)
        refresh(np.uint64(board.pieces(board.turn)), np.uint64(board.pieces(board.turn.other)),
                np.uint64(board.playable), int(board.turn), net.w1, net.b1, acc)
        parents.append(acc)
        thems.append(board.pieces(board.turn.other))
        colors.append(int(board.turn))
        moves.append(to_kernel_move(move))
        before = board.count(board.turn.other)
        boards.append(board.copy())
        board.push(move)
        flips.append(before - board.count(board.turn))
    p = np.array(parents)
    th = np.array(thems, dtype=np.uint64)
    co = np.array(colors, dtype=np.int64)
    mv = np.array(moves, dtype=np.int64)
    us = np.array([b.pieces(b.turn) for b in boards], dtype=np.uint64)
    playable = np.uint64(boards[0].playable)
    repeat = max(1, 2_000_000 // len(mv))
    for fn, fargs in ((_time_updates, (p, th, co, mv, net.w1, net.flip, 1)),
                      (_time_refresh, (us, th, playable, co, net.w1, net.b1, 1)),
                      (_time_evaluate, (p, co, net.w2, np.int64(net.b2), np.int64(net.scale), 1))):
        fn(*fargs)  # compile or load
    timings = {}
    started = time.process_time()
    _time_updates(p, th, co, mv, net.w1, net.flip, repeat)
    timings["incremental update"] = time.process_time() - started
    started = time.process_time()
    _time_refresh(us, th, playable, co, net.w1, net.b1, repeat)
    timings["full recomputation"] = time.process_time() - started
    started = time.process_time()
    _time_evaluate(p, co, net.w2, np.int64(net.b2), np.int64(net.scale), repeat)
    timings["evaluation from accumulators"] = time.process_time() - started
    n = repeat * len(mv)
    print(f"hidden {net.hidden}; {len(mv)} moves of random games, flips per move: mean "
          f"{np.mean(flips):.2f}, max {max(flips)}")
    for name, seconds in timings.items():
        print(f"  {name:30s} {1e9 * seconds / n:7.1f} ns")
    ratio = timings["full recomputation"] / timings["incremental update"]
    print(f"  full / incremental: {ratio:.1f}x")
    by_flips = {}
    for k in sorted(set(flips)):
        idx = np.array([i for i, f in enumerate(flips) if f == k])
        r = max(1, 500_000 // len(idx))
        started = time.process_time()
        _time_updates(p[idx], th[idx], co[idx], mv[idx], net.w1, net.flip, r)
        by_flips[k] = 1e9 * (time.process_time() - started) / (r * len(idx))
    print("  update by flips: " + ", ".join(f"{k}: {v:.0f} ns" for k, v in by_flips.items()))

    # Part 2: master's speed with either evaluation on the same positions.
    engine = Engine("master", seed=1, hash_mb=16)
    search = engine._master_search()
    picks = rng.sample([b for b in boards if b.empty.bit_count() > 12], args.searches)
    rates = {}
    for label, on in (("hand-written", False), ("network", True)):
        if on:
            search.network = net
        else:
            search.use_network(False)
        nodes = 0
        seconds = 0.0
        for b in picks:
            engine.new_game()
            result = search.search(b, SearchLimits(nodes=args.nodes))
            nodes += result.nodes
            seconds += result.time
        rates[label] = nodes / seconds
        print(f"master, {label:12s}: {nodes / seconds:10.0f} nodes/s ({nodes} nodes)")
    print(f"network / hand-written nodes/s: {rates['network'] / rates['hand-written']:.2f}")


if __name__ == "__main__":
    main()
