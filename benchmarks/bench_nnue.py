"""The network's costs: incremental update vs full recomputation, and master's nodes/s with it.

    .venv/bin/python benchmarks/bench_nnue.py [--net FILE | --hidden H [--tuples [--buckets B]]]
        [--positions 200] [--nodes 200000] [--searches 8] [--zataxx PATH]

Part 1 replays random games and times (in CPU time, so that a busy machine counts
less), inside one numba loop each, the incremental
update of every move (by the number of pieces it flips) against a full
recomputation of the same child positions, and the evaluation from accumulators;
for a tuple network, which has no accumulators to update, its evaluation of each
position from scratch.
Part 2 searches the same positions with master at a fixed node budget, with the
hand-written evaluation and with the network (each position with both in turn), and
prints the nodes per CPU second of each and their ratio. With ``--zataxx PATH`` (a
UAI engine, built elsewhere: see docs/nnue.md) the same positions go to it too, at
the same node budget (``go nodes``), and its nodes per CPU second (read from
``/proc``, Linux) are printed in the same table. Without ``--net`` the shipped
network is used (or, if there is none, a random one of 64 hidden units: the costs
do not depend on the values); ``--hidden H`` times a random network of ``H`` units
instead (``--tuples``: a tuple network; ``--buckets B``: with ``B`` output layers), to
price a larger layer before training one.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import time
from pathlib import Path

import numpy as np
from numba import njit

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.engine import Engine, SearchLimits
from gameclub.ataxx.engine.nnue import (
    MAX_BUCKETS,
    N_INPUTS,
    N_TUPLE_INPUTS,
    Network,
    NetworkFileError,
    evaluate,
    evaluate_tuples,
    load_network,
    refresh,
    update,
)
from gameclub.ataxx.engine.terminal import to_kernel_move


@njit(cache=True)
def _time_updates(parents, thems, colors, moves, rows, flip, repeat):
    child = np.empty_like(parents[0])
    check = 0
    for _ in range(repeat):
        for i in range(len(moves)):
            update(parents[i], child, thems[i], colors[i], moves[i], rows, flip)
            check += child[0, 0]
    return check


@njit(cache=True)
def _time_refresh(us, them, playable, colors, w1, b1, repeat):
    acc = np.empty((2, w1.shape[1]), dtype=np.int16)
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


@njit(cache=True)
def _time_tuples(us, them, rows, base, w2, b2, scale, repeat):
    acc = np.empty(len(base), dtype=np.int16)
    check = 0
    for _ in range(repeat):
        for i in range(len(us)):
            check += evaluate_tuples(us[i], them[i], rows, base, w2, b2, scale, acc)
    return check


def _random_network(hidden: int, tuples: bool = False, buckets: int = 1) -> Network:
    rng = np.random.default_rng(0)
    inputs, outputs = (N_TUPLE_INPUTS, hidden) if tuples else (N_INPUTS, 2 * hidden)
    return Network.from_arrays(rng.integers(-50, 50, (inputs, hidden)),
                               rng.integers(-50, 50, hidden),
                               rng.integers(-200, 200, (buckets, outputs)),
                               np.zeros(buckets, dtype=np.int64), 400)


def _network(path: str | None, hidden: int | None, tuples: bool, buckets: int) -> Network:
    if hidden is not None:
        kind = "tuple" if tuples else "piece-square"
        print(f"(timing a random {kind} network of {hidden} hidden units, "
              f"{buckets} output bucket{'s' if buckets > 1 else ''})")
        return _random_network(hidden, tuples, buckets)
    try:
        return load_network(path)
    except NetworkFileError as exc:
        if path is not None:
            raise
        print(f"({exc}: timing a random network)")
        return _random_network(64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", help="weights file (default: the shipped network)")
    parser.add_argument("--hidden", type=int,
                        help="time a random network of this many hidden units instead")
    parser.add_argument("--tuples", action="store_true",
                        help="with --hidden: a tuple network (else piece-square)")
    parser.add_argument("--buckets", type=int, default=1,
                        help="with --tuples: output layers chosen by the number of pieces")
    parser.add_argument("--positions", type=int, default=200, help="moves replayed / searched")
    parser.add_argument("--nodes", type=int, default=200_000, help="nodes a search")
    parser.add_argument("--searches", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--zataxx", type=Path,
                        help="a UAI engine (Zataxx) to search the same positions, for its nodes/s")
    args = parser.parse_args()
    if args.zataxx is not None and not os.access(args.zataxx, os.X_OK):
        parser.error(f"--zataxx {args.zataxx}: not an executable file")
    if args.hidden is not None and (args.net is not None or not 1 <= args.hidden <= 4096):
        parser.error("--hidden takes 1..4096 units, and not together with --net")
    if args.tuples and args.hidden is None:
        parser.error("--tuples goes with --hidden (a weights file says its own kind)")
    if (args.buckets != 1 and not args.tuples) or not 1 <= args.buckets <= MAX_BUCKETS:
        parser.error(f"--buckets takes 1..{MAX_BUCKETS}, and goes with --tuples")
    net = _network(args.net, args.hidden, args.tuples, args.buckets)
    rng = random.Random(args.seed)
    boards = (_time_tuple_evaluation if net.tuples else _time_updates_and_evaluation)(
        net, rng, args.positions)

    # Part 2: master's speed with either evaluation on the same positions, in turn.
    engine = Engine("master", seed=1, hash_mb=16)
    search = engine._master_search()
    picks = rng.sample([b for b in boards if b.empty.bit_count() > 12], args.searches)
    labels = ["hand-written", "network"]
    nodes = dict.fromkeys(labels, 0)
    seconds = dict.fromkeys(labels, 0.0)
    for b in picks:
        for label in labels:
            if label == "network":
                search.network = net
            else:
                search.use_network(False)
            engine.new_game()
            started = time.process_time()
            result = search.search(b, SearchLimits(nodes=args.nodes))
            seconds[label] += time.process_time() - started
            nodes[label] += result.nodes
    if args.zataxx is not None:
        nodes["Zataxx"], seconds["Zataxx"] = _zataxx(args.zataxx, picks, args.nodes)
    for label in nodes:
        print(f"{label:14s}: {nodes[label] / seconds[label]:10.0f} nodes per CPU second "
              f"({nodes[label]} nodes)")
    rate = {label: nodes[label] / seconds[label] for label in nodes}
    print(f"network / hand-written nodes/s: {rate['network'] / rate['hand-written']:.2f}")
    if "Zataxx" in rate:
        print(f"network / Zataxx nodes/s: {rate['network'] / rate['Zataxx']:.2f}")


def _time_tuple_evaluation(net: Network, rng: random.Random, positions: int) -> list[Board]:
    """Part 1 for a tuple network: its evaluation from scratch; returns the positions."""
    boards = []
    board = Board(rules=ATAXX)
    while len(boards) < positions:
        if board.outcome() is not None:
            board = Board(rules=ATAXX)
        boards.append(board.copy())
        board.push(rng.choice(board.legal_moves))
    us = np.array([b.pieces(b.turn) for b in boards], dtype=np.uint64)
    them = np.array([b.pieces(b.turn.other) for b in boards], dtype=np.uint64)
    args = (us, them, net.rows, net.base(boards[0].playable), net.w2, net.b2,
            np.int64(net.scale))
    _time_tuples(*args, 1)  # compile or load
    repeat = max(1, 2_000_000 // len(boards))
    started = time.process_time()
    _time_tuples(*args, repeat)
    seconds = time.process_time() - started
    print(f"tuple network, hidden {net.hidden}, {net.buckets} output bucket(s); "
          f"{len(boards)} positions of random games")
    print(f"  evaluation from scratch        {1e9 * seconds / (repeat * len(boards)):7.1f} ns")
    return boards


def _time_updates_and_evaluation(net: Network, rng: random.Random, positions: int
                                 ) -> list[Board]:
    """Part 1 for a piece-square network; returns the positions."""
    parents, thems, colors, moves, flips, boards = [], [], [], [], [], []
    board = Board(rules=ATAXX)
    while len(moves) < positions:
        if board.outcome() is not None:
            board = Board(rules=ATAXX)
        move = rng.choice(board.legal_moves)
        acc = np.empty((2, net.hidden), dtype=np.int16)
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
    for fn, fargs in ((_time_updates, (p, th, co, mv, net.rows, net.flip, 1)),
                      (_time_refresh, (us, th, playable, co, net.w1, net.b1, 1)),
                      (_time_evaluate, (p, co, net.w2, net.b2, np.int64(net.scale), 1))):
        fn(*fargs)  # compile or load
    timings = {}
    started = time.process_time()
    _time_updates(p, th, co, mv, net.rows, net.flip, repeat)
    timings["incremental update"] = time.process_time() - started
    started = time.process_time()
    _time_refresh(us, th, playable, co, net.w1, net.b1, repeat)
    timings["full recomputation"] = time.process_time() - started
    started = time.process_time()
    _time_evaluate(p, co, net.w2, net.b2, np.int64(net.scale), repeat)
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
        _time_updates(p[idx], th[idx], co[idx], mv[idx], net.rows, net.flip, r)
        by_flips[k] = 1e9 * (time.process_time() - started) / (r * len(idx))
    print("  update by flips: " + ", ".join(f"{k}: {v:.0f} ns" for k, v in by_flips.items()))

    return boards


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a running process (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _zataxx(path: Path, boards: list[Board], node_budget: int) -> tuple[int, float]:
    """Nodes and CPU seconds of a UAI engine searching each board to ``node_budget`` nodes."""
    proc = subprocess.Popen([str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + "\n")

    def until(prefix: str) -> list[str]:
        assert proc.stdout is not None
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{path} exited before answering {prefix!r}")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    depth_limit = 100
    try:
        send("uai")
        until("uaiok")
        total = 0
        seconds = 0.0
        for b in boards:
            send("uainewgame")
            send(f"position fen {b.fen()}")
            send("isready")
            until("readyok")
            started = _cpu_seconds(proc.pid)
            send(f"go depth {depth_limit} nodes {node_budget}")
            lines = until("bestmove")
            seconds += _cpu_seconds(proc.pid) - started
            last = [line.split() for line in lines if line.startswith("info depth")][-1]
            # Stopped by the node budget unless the depth limit was reached first; the
            # info lines only report completed iterations.
            done = int(last[last.index("depth") + 1]) >= depth_limit
            total += int(last[last.index("nodes") + 1]) if done else node_budget
        send("quit")
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    return total, seconds


if __name__ == "__main__":
    main()
