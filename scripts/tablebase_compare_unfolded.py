"""Compare Ataxx tables of the earlier unfolded index with folded ones, board by board.

    .venv/bin/python scripts/tablebase_compare_unfolded.py OLD_DIR NEW_DIR

OLD_DIR holds tables built before the index folded the board's symmetries (index
``empty-squares rank, then colours/1``: the rank of the empty set among the
``C(n, e)`` sets, then the colours), NEW_DIR the same tables built now. Every
board of each old table is decoded by the old index and looked up in the new one
through its canonical index: values and distances must be equal, and so must each
layer's longest distance and longest run.
"""

from __future__ import annotations

import sys
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

from gameclub.tablebase.ataxx import AtaxxTables, encode
from gameclub.tablebase.storage import TableDir


@njit(cache=True)
def old_decode(e, index, n, binom):
    occupied_count = n - e
    rank = index >> occupied_count
    colours = index & ((np.int64(1) << occupied_count) - 1)
    empty = np.uint64(0)
    k = n - 1
    for j in range(e, 0, -1):
        while binom[k, j] > rank:
            k -= 1
        rank -= binom[k, j]
        empty |= np.uint64(1) << np.uint64(k)
        k -= 1
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    occupied = full & ~empty
    us = np.uint64(0)
    bit = 0
    for k2 in range(n):
        if (occupied >> np.uint64(k2)) & np.uint64(1):
            if (colours >> bit) & 1:
                us |= np.uint64(1) << np.uint64(k2)
            bit += 1
    return us, occupied & ~us


@njit(cache=True)
def compare_layer(e, n, binom, fold, old_v, old_d, new_v, new_d):
    bad = 0
    for j in range(old_v.size):
        us, them = old_decode(e, np.int64(j), n, binom)
        e2, i = encode(us, them, n, fold)
        if e2 != e or new_v[i] != old_v[j] or new_d[i] != old_d[j]:
            bad += 1
    return bad


def main() -> int:
    old_root, new_root = Path(sys.argv[1]), Path(sys.argv[2])
    total_bad = 0
    for old_dir in sorted(p for p in old_root.iterdir() if (p / "manifest.json").exists()):
        old = TableDir.open(old_dir)
        params = old.manifest["params"]
        game = AtaxxTables(params["width"], params["height"], params["rules"])
        new = TableDir.open(new_root / old_dir.name, game.params)
        n = game.geometry.squares
        binom = np.array([[comb(a, b) for b in range(n + 2)] for a in range(n + 2)],
                         dtype=np.int64)
        bad = boards = slots = 0
        for e in old.layers:
            bad += compare_layer(np.int64(e), np.int64(n), binom, game.geometry.fold(),
                                 old.values(e), old.distance(e), new.values(e), new.distance(e))
            boards += old.values(e).size
            slots += new.values(e).size
        runs_same = all(old.layers[e].get(key) == new.layers[e].get(key)
                        for e in old.layers for key in ("longest_run", "longest_distance"))
        print(f"{old_dir.name}: {boards:,} boards, {slots:,} slots ({boards / slots:.2f}x), "
              f"{bad} differ in value or distance, longest runs/distances same: {runs_same}")
        total_bad += bad + (not runs_same)
    print("all the same" if total_bad == 0 else f"{total_bad} differences")
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
