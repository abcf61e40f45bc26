"""Awele tables built on a local Dask cluster against the single-process build, and what
a layer's chunk tasks read: the figures behind the cluster plan in docs/tablebase.md.

    .venv/bin/python benchmarks/bench_tablebase_distributed.py --seeds 16 --workers 2

Both builds run in this process, one after the other, into ``--dir`` (a temporary
directory by default): first the single-process build, then the same layers through a
local cluster of ``--workers`` processes. Per layer: the single build's CPU seconds
(every thread); the cluster build's exits tasks (CPU seconds summed over the tasks,
positions a CPU second), the building process's CPU seconds for the rest (the
propagation, the WDL codes, checksums and files) and its positions a CPU second, the
bytes the tasks sent back, the building process's peak resident memory and the
largest resident memory of a worker process after a task (the pages of the lower
layers it touched included). Then
every file of both tables is compared by SHA-256.

Access (from ``--access-from`` seeds up): for each layer, the in-layer moves a
position has on average (the edges a distributed propagation would exchange), the
captures' lookups by the lower layer they land in, and for chunks of the size the
build used, the distinct 4 KiB pages of the lower layers one chunk touches, against
the bytes of those layers: what a worker must read to run one task; and for 64 small
chunks of 4 096 positions spread over the layer, their lookups and the distinct pages
a lookup costs (1.00: no two lookups of a chunk share a page).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit
from numba.typed import List

from gameclub.awele import kernel
from gameclub.tablebase.awele import (
    PITS,
    AweleTables,
    _end_value,
    decode,
    encode,
    exits_pass,
    next_composition,
)
from gameclub.tablebase.build import build
from gameclub.tablebase.distributed import DaskLayers
from gameclub.tablebase.storage import BUILD_LOG, TableDir
from gameclub.tablebase.values import NO_EXIT

PAGE_SHIFT = 12
#: the locality sample: chunks of this many positions, spread over the layer.
SMALL_CHUNK = 4096
SMALL_SAMPLES = 64


@njit(cache=True)
def _touch(seeds, binom, flags, odd_seed, start, stop, marks, lookups):
    """Mark the 4 KiB pages of the lower layers that the captures of positions
    ``start .. stop - 1`` read, and count the lookups by captured seeds."""
    state = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    child = np.zeros(kernel.STATE_SIZE, dtype=np.uint8)
    turned = np.zeros(PITS, dtype=np.int64)
    pits = np.zeros(PITS, dtype=np.int64)
    decode(start, seeds, binom, pits)
    for i in range(start, stop):
        if i > start:
            next_composition(pits)
        for j in range(PITS):
            state[j] = pits[j]
        if _end_value(state, flags, odd_seed) != NO_EXIT:
            continue
        mask = kernel.legal_mask(state, flags)
        for pit in range(6):
            if not mask >> pit & 1:
                continue
            captured = kernel.play(state, pit, child, flags)
            if captured == 0:
                continue
            for j in range(6):
                turned[j] = child[6 + j]
                turned[6 + j] = child[j]
            marks[seeds - captured][encode(turned, binom) >> PAGE_SHIFT] = 1
            lookups[captured] += 1


def access(game: AweleTables, table: TableDir, layer: int, chunks: int) -> dict[str, float]:
    size = game.layer_size(layer)
    cells = exits_pass(np.int64(layer), game.binom, game.flags, game.odd_seed,
                       game.lower_list(layer, lambda k: table.values(k)))
    moves = float(((cells & 0x3F00) >> 8).astype(np.int64).mean())
    chunk = -(-size // chunks)
    lookups = np.zeros(layer + 1, dtype=np.int64)
    pages = []
    for start in range(0, size, chunk):
        marks = List()
        for k in range(layer):
            marks.append(np.zeros((game.layer_size(k) >> PAGE_SHIFT) + 1, dtype=np.uint8))
        _touch(np.int64(layer), game.binom, game.flags, game.odd_seed, np.int64(start),
               np.int64(min(size, start + chunk)), marks, lookups)
        pages.append(sum(int(m.sum()) for m in marks))
    # Locality: a small chunk's distinct pages against its lookups (equal when every
    # lookup lands on a page of its own, as random lookups would).
    small_lookups = np.zeros(layer + 1, dtype=np.int64)
    small_pages = 0
    starts = np.linspace(0, max(0, size - SMALL_CHUNK), SMALL_SAMPLES).astype(np.int64)
    for start in starts:
        marks = List()
        for k in range(layer):
            marks.append(np.zeros((game.layer_size(k) >> PAGE_SHIFT) + 1, dtype=np.uint8))
        _touch(np.int64(layer), game.binom, game.flags, game.odd_seed, np.int64(start),
               np.int64(min(size, start + SMALL_CHUNK)), marks, small_lookups)
        small_pages += sum(int(m.sum()) for m in marks)
    lower_bytes = sum(game.layer_size(k) for k in range(layer))
    total = max(1, int(lookups.sum()))
    by_capture = {c: lookups[c] / total for c in range(2, layer + 1) if lookups[c]}
    return {"moves": moves, "lookups_per_position": total / size,
            "captures_2_3": by_capture.get(2, 0) + by_capture.get(3, 0),
            "pages_mb": float(np.mean(pages)) * 4096 / 1e6, "lower_mb": lower_bytes / 1e6,
            "chunk": chunk, "small_pages_per_lookup": small_pages / max(1, small_lookups.sum()),
            "small_lookups": small_lookups.sum() / len(starts)}


def digest(path: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())
            if p.name != BUILD_LOG}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--rules", default="awari")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=None)
    parser.add_argument("--access-from", type=int, default=12)
    parser.add_argument("--dir", default=None)
    args = parser.parse_args()
    root = Path(args.dir or tempfile.mkdtemp(prefix="tb-dist-"))
    game = AweleTables(args.seeds, args.rules)

    started, cpu = time.perf_counter(), time.process_time()
    single = build(game, root / "single")
    single_wall, single_cpu = time.perf_counter() - started, time.process_time() - cpu
    single_log = json.loads((single.path / BUILD_LOG).read_text())["layers"]
    peak_single = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024

    with DaskLayers.connect(workers=args.workers, chunk=args.chunk) as cluster:
        started, cpu = time.perf_counter(), time.process_time()
        spread = build(AweleTables(args.seeds, args.rules), root / "cluster", cluster=cluster)
        spread_wall, spread_cpu = time.perf_counter() - started, time.process_time() - cpu
    log = json.loads((spread.path / BUILD_LOG).read_text())["layers"]

    print(f"awele {args.rules} 0-{args.seeds}, {args.workers} workers; single build "
          f"{single_wall:.1f} s wall, {single_cpu:.1f} CPU s (peak {peak_single} MB); "
          f"cluster build {spread_wall:.1f} s wall, building process {spread_cpu:.1f} CPU s")
    print("| seeds | positions | single CPU s | tasks | exits CPU s | exits M/s | "
          "rest CPU s | rest M/s | received MB | peak MB | worker MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tasks_cpu = rest_cpu = 0.0
    for layer in range(args.seeds + 1):
        entry = log[str(layer)]
        n = entry["positions"]
        exits = entry["cluster"]["task_seconds"]
        rest = entry["cpu_seconds"]
        tasks_cpu += exits
        rest_cpu += rest
        if n < 100_000:
            continue
        print(f"| {layer} | {n:,} | {single_log[str(layer)]['cpu_seconds']:.2f} | "
              f"{entry['cluster']['chunks']} | {exits:.2f} | {n / exits / 1e6:.2f} | "
              f"{rest:.2f} | {n / rest / 1e6:.2f} | "
              f"{entry['cluster']['received_bytes'] / 1e6:.1f} | {entry['peak_rss_mb']} | "
              f"{entry['cluster'].get('worker_rss_mb', '')} |")
    single_layers = sum(v["cpu_seconds"] for v in single_log.values())
    print(f"| all | {sum(v['positions'] for v in log.values()):,} | {single_layers:.1f} | | "
          f"{tasks_cpu:.1f} | | {rest_cpu:.1f} | | | | |")

    a, b = digest(single.path), digest(spread.path)
    same = [name for name in a if b.get(name) == a[name]]
    print(f"files: {len(same)} of {len(a)} identical by SHA-256"
          f"{'' if len(same) == len(a) == len(b) else ' -- DIFFERENT: ' + str(set(a) ^ set(same))}")

    print("\n| seeds | in-layer moves a position | lookups a position | captures of 2-3 | "
          "chunk | lower pages a chunk MB | lower layers MB | lookups a 4096 chunk | "
          "pages a lookup |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for layer in range(args.access_from, args.seeds + 1):
        got = access(game, spread, layer, log[str(layer)]["cluster"]["chunks"])
        print(f"| {layer} | {got['moves']:.2f} | {got['lookups_per_position']:.2f} | "
              f"{got['captures_2_3']:.0%} | {got['chunk']:,} | {got['pages_mb']:.1f} | "
              f"{got['lower_mb']:.1f} | {got['small_lookups']:.0f} | "
              f"{got['small_pages_per_lookup']:.2f} |")


if __name__ == "__main__":
    main()
