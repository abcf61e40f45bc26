"""Ataxx tables: build speed by both in-layer methods, compression, probe speed.

    .venv/bin/python benchmarks/bench_tablebase.py --size 4x4
    .venv/bin/python benchmarks/bench_tablebase.py --size 3x4 --probes 2000   # quick
    .venv/bin/python benchmarks/bench_tablebase.py --game awele --seeds 18    # build only
    .venv/bin/python benchmarks/bench_tablebase.py --game awele --table DIR/awele-24-awari

Build: every layer is solved twice from the same lower layer, by predecessor/counter
propagation and by fixed-point iteration (with its number of sweeps); the time of
the moves that leave the layer (shared by both) is printed apart. The ratio is
iterate / propagate. The table is then written with ``gameclub tablebase build``'s
code into ``--dir`` (a temporary directory by default) and measured:

Compression: the 2-bit WIN/LOSS/DRAW codes, packed 4 to a byte, against the block
RLE files, xz (lzma) and zstd (when the ``zstandard`` package is installed) of the
same packed bytes, both whole (no random access) and cut into the same blocks as
the RLE (one block decompressed per probe). Ratios are packed size / compressed
size, as in the source's 18-52 for checkers.

Probe: median and 90th percentile of one probe of a random position, warm (after a
first probe of every layer), for the exact value (memory-mapped bytes) and for the
WDL code (one RLE block decoded); cold: the first probe of each layer in a freshly
opened table (it checks the layer's SHA-256 first). The peer is the engine's exact
solver on positions of the same board with at most ``--solver-empties`` empty
squares.
"""

from __future__ import annotations

import argparse
import lzma
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from gameclub.ataxx.engine.endgame import solve
from gameclub.tablebase.ataxx import (
    AtaxxProbe,
    AtaxxTables,
    decode,
    fill_twins,
    iterate_layer,
    layer_exits,
    parse_size,
    propagate_layer,
    propagate_levels_layer,
    table_ruleset,
)
from gameclub.tablebase.build import build
from gameclub.tablebase.rle import DEFAULT_BLOCK, compress
from gameclub.tablebase.values import wdl_codes

try:
    import zstandard
except ImportError:  # optional: `pip install zstandard` to compare with zstd
    zstandard = None


def packed(codes: np.ndarray) -> bytes:
    padded = np.zeros((codes.size + 3) // 4 * 4, dtype=np.uint8)
    padded[: codes.size] = codes
    quads = padded.reshape(-1, 4)
    return (quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6).tobytes()


def bench_build(game: AtaxxTables, iterate: bool = True) -> list[np.ndarray]:
    """Per layer: the exits, then the same layer by propagation, by propagation with
    distances (level by level, what the build runs) and by iteration (the peers)."""
    singles, doubles = game.geometry.tables()
    n = game.geometry.squares
    # compile (or load) every kernel on a small board first
    small = AtaxxTables(2, 3, game.rules)
    build_in_memory(small, "propagate")
    build_in_memory(small, "iterate")
    print(f"{'layer':>5} {'positions':>12} {'exits s':>8} {'propagate s':>12} "
          f"{'levels s':>9} {'iterate s':>10} {'sweeps':>7}")
    layers: list[np.ndarray] = []
    totals = [0.0, 0.0, 0.0, 0.0]
    for e in game.layers():
        below = layers[-1] if layers else np.zeros(0, dtype=np.int8)
        t0 = time.perf_counter()
        exits, moves, over = layer_exits(np.int64(e), np.int64(n), singles, doubles,
                                         game.geometry.fold(), np.int64(game.stuck_lose),
                                         below)
        counters = moves
        t1 = time.perf_counter()
        values = propagate_layer(exits, counters.copy(), game.context(e))
        t2 = time.perf_counter()
        # The level-by-level propagation counts the moves down in place: a copy.
        levelled, _, _ = propagate_levels_layer(exits, counters.copy(), over, game.context(e))
        t3 = time.perf_counter()
        sweeps = 0
        no_distances = np.zeros(0, dtype=np.uint8)
        fill_twins(values, no_distances, game.context(e))
        fill_twins(levelled, no_distances, game.context(e))
        if iterate:
            iterated, sweeps = iterate_layer(exits, moves, game.context(e))
            fill_twins(iterated, no_distances, game.context(e))
            if not np.array_equal(values, iterated):
                raise SystemExit(f"layer {e}: the two methods disagree")
        t4 = time.perf_counter()
        if not np.array_equal(values, levelled):
            raise SystemExit(f"layer {e}: propagation with levels disagrees")
        layers.append(values)
        for k, dt in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            totals[k] += dt
        print(f"{e:>5} {values.size:>12,} {t1 - t0:>8.2f} {t2 - t1:>12.2f} {t3 - t2:>9.2f} "
              f"{t4 - t3:>10.2f} {sweeps:>7}")
    print(f"{'all':>5} {sum(v.size for v in layers):>12,} {totals[0]:>8.2f} {totals[1]:>12.2f} "
          f"{totals[2]:>9.2f} {totals[3]:>10.2f}")
    print(f"build (exits + propagate): {totals[0] + totals[1]:.1f} s; "
          f"with distances (levels): {totals[0] + totals[2]:.1f} s; "
          f"levels / propagate: {totals[2] / totals[1]:.2f}")
    if iterate:
        print(f"with iterate: {totals[0] + totals[3]:.1f} s; "
              f"in-layer ratio iterate / propagate: {totals[3] / totals[1]:.2f}")
    return layers


def build_in_memory(game: AtaxxTables, method: str) -> None:
    lower: list[np.ndarray] = []
    for e in game.layers():
        solved = game.solve_layer(e, lambda k: lower[k], method)
        lower.append(solved[0] if isinstance(solved, tuple) else solved)


def bench_compression(layers: list[np.ndarray], table_path: Path) -> None:
    codes = np.concatenate([wdl_codes(v) for v in layers])
    raw = packed(codes)
    print(f"\nWDL codes: {codes.size:,} positions, {len(raw):,} bytes packed 2 bits each "
          f"(win {np.mean(codes == 2):.1%}, draw {np.mean(codes == 1):.1%}, "
          f"loss {np.mean(codes == 0):.1%})")
    rle_bytes = sum(p.stat().st_size for p in table_path.glob("*.wdl"))
    rows = [("block RLE, our files (index and headers included)", rle_bytes)]
    per_layer = [packed(wdl_codes(v)) for v in layers]
    # the same codes with the colours as the slow part of the index: another order
    swapped = 0
    for e, v in enumerate(layers):
        n = len(layers) - 1
        grid = wdl_codes(v).reshape(-1, 1 << (n - e)).T.ravel()
        index, data = compress(np.ascontiguousarray(grid), DEFAULT_BLOCK)
        swapped += index.nbytes + data.nbytes
    rows.append(("block RLE, colours-major order (not the files' order)", swapped))
    block_bytes = DEFAULT_BLOCK // 4

    def blocks(data: bytes) -> list[bytes]:
        return [data[k:k + block_bytes] for k in range(0, len(data), block_bytes)]

    rows.append(("xz (lzma preset 6), whole layers", sum(len(lzma.compress(d)) for d in
                                                         per_layer)))
    rows.append(("xz per block", sum(len(lzma.compress(b, format=lzma.FORMAT_RAW,
                                                       filters=[{"id": lzma.FILTER_LZMA2}]))
                                     for d in per_layer for b in blocks(d))))
    if zstandard is not None:
        z = zstandard.ZstdCompressor(level=19)
        rows.append(("zstd -19, whole layers", sum(len(z.compress(d)) for d in per_layer)))
        rows.append(("zstd -19 per block", sum(len(z.compress(b)) for d in per_layer
                                               for b in blocks(d))))
    else:
        print("(zstandard not installed: zstd left out)")
    print(f"{'format':<56} {'bytes':>12} {'ratio':>7}")
    for name, size in rows:
        print(f"{name:<56} {size:>12,} {len(raw) / size:>7.2f}")
    # What one probe would pay to decode its block in each per-block format.
    sample = [b for d in per_layer for b in blocks(d)]
    rng = random.Random(3)
    picks = [rng.choice(sample) for _ in range(300)]
    decoders = [("xz", [lzma.compress(b, format=lzma.FORMAT_RAW,
                                      filters=[{"id": lzma.FILTER_LZMA2}]) for b in picks],
                 lambda c: lzma.decompress(c, format=lzma.FORMAT_RAW,
                                           filters=[{"id": lzma.FILTER_LZMA2}]))]
    if zstandard is not None:
        z = zstandard.ZstdCompressor(level=19)
        d = zstandard.ZstdDecompressor()
        decoders.append(("zstd", [z.compress(b) for b in picks], d.decompress))
    for name, compressed, decoder in decoders:
        times = []
        for c in compressed:
            t0 = time.perf_counter_ns()
            decoder(c)
            times.append((time.perf_counter_ns() - t0) / 1e3)
        print(f"decoding one {name} block (the least a probe would pay): median "
              f"{statistics.median(times):.1f} us")
    print("source 001 (checkers, run-length encoding): ratios 18 to 52")


def bench_probe(root: Path, game: AtaxxTables, probes: int) -> None:
    width, height = game.geometry.width, game.geometry.height
    n = game.geometry.squares
    rng = random.Random(1)
    cold = []
    probe = AtaxxProbe.open(root, width, height, game.rules)
    for e in game.layers():
        us, them = decode(np.int64(e), np.int64(0), np.int64(n), game.geometry.fold())
        t0 = time.perf_counter_ns()
        probe.value_of(int(us), int(them))
        cold.append((time.perf_counter_ns() - t0) / 1e3)
    sample = []
    for _ in range(probes):
        us = rng.randrange(1 << n)
        sample.append((us, rng.randrange(1 << n) & ~us))
    for us, them in sample[:100]:
        probe.wdl_of(us, them)
    for name, fn in (("exact value (mmap)", probe.value_of), ("WDL (RLE block)", probe.wdl_of)):
        times = []
        for us, them in sample:
            t0 = time.perf_counter_ns()
            fn(us, them)
            times.append((time.perf_counter_ns() - t0) / 1e3)
        times.sort()
        print(f"probe {name:<20} warm: median {statistics.median(times):6.2f} us, "
              f"p90 {times[len(times) * 9 // 10]:6.2f} us")
    print(f"probe cold (first probe of a layer, SHA-256 included): median "
          f"{statistics.median(cold):,.0f} us, largest layer {max(cold):,.0f} us; "
          f"whole table {sum(cold) / 1e3:,.1f} ms")


def bench_solver_peer(root: Path, game: AtaxxTables, empties: int, count: int) -> None:
    from gameclub.ataxx import Board
    from gameclub.ataxx.fen import format_fen

    width, height = game.geometry.width, game.geometry.height
    ruleset = table_ruleset(width, height, game.rules)
    probe = AtaxxProbe.open(root, width, height, game.rules)
    rng = random.Random(2)
    squares = [r * 8 + f for r in range(height) for f in range(width)]
    solved, probed = [], []
    agree = 0
    while len(solved) < count:
        rng.shuffle(squares)
        filled = squares[: len(squares) - empties]
        x = sum(1 << s for s in filled if rng.random() < 0.5)
        o = sum(1 << s for s in filled) & ~x
        board = Board(format_fen(width, height, x, o, 0, 0, 0, 1), ruleset)
        if board.outcome() is not None or not x or not o:
            continue
        t0 = time.perf_counter()
        found = solve(board, max_nodes=2_000_000)
        t1 = time.perf_counter()
        value = probe.board_value(board)
        t2 = time.perf_counter()
        if found is None or not found.exact:
            continue
        solved.append(t1 - t0)
        probed.append(t2 - t1)
        agree += value == found.result * 64 + found.margin
    print(f"peer: exact solver on {count} positions with {empties} empty squares: median "
          f"{statistics.median(solved) * 1e3:.2f} ms; table probe (Board included) "
          f"{statistics.median(probed) * 1e6:.1f} us; ratio "
          f"{statistics.median(solved) / statistics.median(probed):,.0f}; agree {agree}/{count}")


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def bench_awele(seeds: int, rules: str, iterate_up_to: int, generic_up_to: int) -> None:
    """Awele layers by the layer solver (parallel exits, level-synchronous propagation),
    and as peers the generic propagation of :mod:`gameclub.tablebase.retro` (a serial
    queue and per-position counters, exits computed per position) and iteration."""
    import resource

    import numba

    from gameclub.tablebase.awele import AweleTables, exits_pass, propagate_pass
    from gameclub.tablebase.awele import iterate_layer as awele_iterate
    from gameclub.tablebase.awele import layer_exits as awele_exits
    from gameclub.tablebase.awele import propagate_layer as awele_propagate

    game = AweleTables(seeds, rules)
    for method in ("propagate", "iterate"):  # compile (or load) the kernels
        with tempfile.TemporaryDirectory() as tmp:
            build(AweleTables(3, rules), Path(tmp), method=method)
    print(f"awele {rules}, 0-{seeds} seeds; load average {os.getloadavg()[0]:.2f}; "
          f"{numba.get_num_threads()} numba threads on {os.cpu_count()} cores")
    print("seconds: wall / CPU (all threads); M/s: positions per CPU second of the layer")
    print(f"{'seeds':>5} {'positions':>13} {'exits':>13} {'propagate':>13} {'M/s':>6} "
          f"{'longest':>7} {'generic':>13} {'M/s':>6} {'iterate':>7} {'sweeps':>6}")
    lower: list[np.ndarray] = []
    totals = np.zeros(6)
    for n in game.layers():
        w0, c0 = _clock()
        cells = exits_pass(np.int64(n), game.binom, game.flags, game.odd_seed,
                           game.lower_list(n, lambda k: lower[k]))
        w1, c1 = _clock()
        values, _, longest = propagate_pass(np.int64(n), game.binom, game.flags, cells)
        values = values.copy()
        del cells
        w2, c2 = _clock()
        totals[:4] += (w1 - w0, c1 - c0, w2 - w1, c2 - c1)
        rate = values.size / max(1e-9, c2 - c0) / 1e6
        line = (f"{n:>5} {values.size:>13,} {w1 - w0:>6.2f}/{c1 - c0:<6.2f} "
                f"{w2 - w1:>6.2f}/{c2 - c1:<6.2f} {rate:>6.2f} {longest:>7}")
        if n <= generic_up_to:
            offsets = np.zeros(max(1, n), dtype=np.int64)
            for k in range(1, n):
                offsets[k] = offsets[k - 1] + lower[k - 1].size
            flat = np.concatenate(lower) if lower else np.zeros(0, dtype=np.int8)
            w3, c3 = _clock()
            exits, moves = awele_exits(np.int64(n), game.binom, game.flags, game.odd_seed,
                                       flat, offsets)
            generic = awele_propagate(exits, moves, game.context(n))
            w4, c4 = _clock()
            totals[4:] += (w4 - w3, c4 - c3)
            if not np.array_equal(values, generic):
                raise SystemExit(f"layer {n}: the generic propagation disagrees")
            line += (f" {w4 - w3:>6.2f}/{c4 - c3:<6.2f} "
                     f"{values.size / max(1e-9, c4 - c3) / 1e6:>6.2f}")
            if n <= iterate_up_to:
                w5, _ = _clock()
                other, sweeps = awele_iterate(exits, moves, game.context(n))
                if not np.array_equal(values, other):
                    raise SystemExit(f"layer {n}: iteration disagrees")
                line += f" {time.perf_counter() - w5:>7.2f} {sweeps:>6}"
        lower.append(values)
        print(line, flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{'all':>5} {sum(v.size for v in lower):>13,} {totals[0]:>6.2f}/{totals[1]:<6.2f} "
          f"{totals[2]:>6.2f}/{totals[3]:<6.2f}  generic (up to {generic_up_to} seeds) "
          f"{totals[4]:.2f}/{totals[5]:.2f}; peak RSS {peak} MB (the layers are kept in "
          f"memory here; the build maps them from its files); load average "
          f"{os.getloadavg()[0]:.2f}")


def bench_awele_table(path: Path, probes: int) -> None:
    """Compression of a built Awele table's WDL codes, and probe speed."""
    from gameclub.tablebase.awele import AweleProbe, encode
    from gameclub.tablebase.storage import TableDir

    table = TableDir.open(path)
    print(f"{path}: layers {min(table.layers)}-{max(table.layers)}; load average "
          f"{os.getloadavg()[0]:.2f}")
    packed_total = rle_total = xz_total = zstd_total = 0
    for layer in sorted(table.layers):
        codes = table.wdl(layer).codes()
        raw = packed(codes)
        packed_total += len(raw)
        rle_total += table.layers[layer]["wdl"]["bytes"]
        xz_total += len(lzma.compress(raw, preset=6))
        if zstandard is not None:
            zstd_total += len(zstandard.ZstdCompressor(level=19).compress(raw))
    print(f"WDL 2-bit packed {packed_total:,} B; block RLE files {rle_total:,} B "
          f"(ratio {packed_total / rle_total:.2f}); xz whole layers {xz_total:,} B "
          f"(ratio {packed_total / xz_total:.2f})" + (
              f"; zstd -19 whole layers {zstd_total:,} B (ratio "
              f"{packed_total / zstd_total:.2f})" if zstd_total else ""))
    rng = random.Random(7)
    cold = []
    for layer in sorted(table.layers):
        fresh = AweleProbe(TableDir.open(path))
        pits = [0] * 12
        for _ in range(layer):
            pits[rng.randrange(12)] += 1
        t0 = time.perf_counter()
        fresh.value_of(pits)
        cold.append(time.perf_counter() - t0)
    probe = AweleProbe(table)
    samples = []
    for _ in range(probes):
        pits = [0] * 12
        for _ in range(rng.randint(0, max(table.layers))):
            pits[rng.randrange(12)] += 1
        samples.append(pits)
    for pits in samples[:1000]:
        probe.value_of(pits)
    timed = []
    for pits in samples:
        t0 = time.perf_counter()
        probe.value_of(pits)
        timed.append(time.perf_counter() - t0)
    arrays = [np.array(p, dtype=np.int64) for p in samples]
    raw_timed = []
    for pits in arrays:
        t0 = time.perf_counter()
        values = table.values(int(pits.sum()))
        int(values[encode(pits, probe.binom)])
        raw_timed.append(time.perf_counter() - t0)
    print(f"probe, warm: AweleProbe.value_of median {statistics.median(timed) * 1e6:.2f} us, "
          f"90th percentile {sorted(timed)[len(timed) * 9 // 10] * 1e6:.2f} us; rank and "
          f"byte read alone {statistics.median(raw_timed) * 1e6:.2f} us")
    print(f"probe, cold (first probe of a layer: map and SHA-256): median "
          f"{statistics.median(cold) * 1e3:.1f} ms, largest layer {cold[-1] * 1e3:.0f} ms, "
          f"all layers {sum(cold):.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ataxx", choices=("ataxx", "awele"))
    parser.add_argument("--seeds", type=int, default=12, help="awele: layers 0 to SEEDS")
    parser.add_argument("--iterate-up-to", type=int, default=12,
                        help="awele: solve by iteration too up to this many seeds")
    parser.add_argument("--generic-up-to", type=int, default=16,
                        help="awele: solve by the generic propagation too up to this many")
    parser.add_argument("--table", type=Path,
                        help="awele: measure compression and probes of this built table")
    parser.add_argument("--size", default="4x4")
    parser.add_argument("--rules", help="ataxx or site-2005; awari or awele")
    parser.add_argument("--dir", type=Path, help="where to write the table (default: temporary)")
    parser.add_argument("--probes", type=int, default=20_000)
    parser.add_argument("--solver-empties", type=int, default=6)
    parser.add_argument("--solver-positions", type=int, default=20)
    parser.add_argument("--no-iterate", action="store_true",
                        help="ataxx: leave out the iteration (the slow peer)")
    parser.add_argument("--build-only", action="store_true",
                        help="ataxx: stop after the layer timings")
    args = parser.parse_args()
    if args.game == "awele":
        if args.table:
            bench_awele_table(args.table, args.probes)
        else:
            bench_awele(args.seeds, args.rules or "awari", args.iterate_up_to,
                        args.generic_up_to)
        return
    width, height = parse_size(args.size)
    game = AtaxxTables(width, height, args.rules or "ataxx")
    slots = sum(game.layer_size(e) for e in game.layers())
    print(f"{game.name}: {3 ** game.geometry.squares:,} boards in {slots:,} positions "
          f"(symmetries folded); load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    layers = bench_build(game, iterate=not args.no_iterate)
    if args.build_only:
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = args.dir or Path(tmp)
        t0 = time.perf_counter()
        table = build(game, root, resume=True)
        print(f"gameclub tablebase build (propagate, files written): "
              f"{time.perf_counter() - t0:.1f} s")
        bench_compression(layers, table.path)
        bench_probe(root, game, args.probes)
        bench_solver_peer(root, game, args.solver_empties, args.solver_positions)


if __name__ == "__main__":
    main()
