"""Print the docs' tables of small Ataxx boards: the start position's value and each first
move's, then the distances (plies to the next clone with best play).

    .venv/bin/python scripts/tablebase_start_values.py --dir DIR

Reads the tables built under DIR by ``gameclub tablebase build ataxx --size WxH
--rules R --dir DIR``; a board without its table is left out. The start position
is each rule set's own: four corners under ``ataxx``, two opposite corners under
``site-2005``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from gameclub.ataxx import Board
from gameclub.ataxx.rules import StartLayout
from gameclub.tablebase.ataxx import AtaxxProbe, decode, table_ruleset
from gameclub.tablebase.storage import TableError
from gameclub.tablebase.values import decode as decode_value

BOARDS = [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (3, 3), (3, 4), (4, 4), (4, 5)]
LAYOUT = {"ataxx": StartLayout.FOUR_CORNERS, "site-2005": StartLayout.TWO_CORNERS}
WORDS = {1: "win", 0: "draw", -1: "loss"}


def words(value: int) -> str:
    result, margin = decode_value(value)
    return "draw" if result == 0 and margin == 0 else f"{WORDS[result]} {margin:+d}"


def start_positions(root: Path) -> Iterator[tuple[int, int, str, AtaxxProbe, Board]]:
    """Each board and rule set with a table in ``root``: its probe and start position."""
    for rules in ("ataxx", "site-2005"):
        for width, height in BOARDS:
            try:
                probe = AtaxxProbe.open(root, width, height, rules)
            except TableError:
                continue
            ruleset = table_ruleset(width, height, rules).replace(start=LAYOUT[rules])
            yield width, height, rules, probe, Board(ruleset.start_fen(), ruleset)


def boards_at(probe: AtaxxProbe, distance: int) -> set[tuple[int, int]]:
    """The boards ``(us, them)`` whose distance is ``distance``: every image of each
    slot at it (the index stores one position of each set of symmetric boards)."""
    images = probe.geometry.symmetries()
    found = set()
    for layer in probe.table.layers:
        for index in np.flatnonzero(np.asarray(probe.table.distance(layer)) == distance):
            us, them = decode(np.int64(layer), np.int64(index), np.int64(probe.n), probe.fold)
            for image in images:
                found.add(tuple(sum(1 << image[k] for k in range(probe.n) if int(mask) >> k & 1)
                                for mask in (us, them)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True, type=Path)
    args = parser.parse_args()
    print("| board | rules | start | value for x | first moves (x's value after each) |")
    print("|---|---|---|---|---|")
    for width, height, rules, probe, board in start_positions(args.dir):
        found = probe.probe(board)
        groups: dict[int, list[str]] = {}
        for m in found.moves:
            groups.setdefault(m.value, []).append(m.move.uci())
        moves = "; ".join(f"{' '.join(ms)}: {words(v)}"
                          for v, ms in sorted(groups.items(), reverse=True)) or "(over)"
        print(f"| {width}x{height} | {rules} | `{board.fen()}` | **{words(found.value)}** "
              f"| {moves} |")
    print()
    print("| board | rules | start: plies to the first clone | perfect first move "
          "| longest distance in the table | positions at it |")
    print("|---|---|---:|---|---:|---:|")
    for width, height, rules, probe, board in start_positions(args.dir):
        if not probe.has_distances:
            continue
        found = probe.probe(board)
        longest = max(int(np.asarray(probe.table.distance(layer)).max())
                      for layer in probe.table.layers)
        at = len(boards_at(probe, longest))
        best = found.best.uci() if found.best else "-"
        print(f"| {width}x{height} | {rules} | {found.distance} | {best} | {longest} "
              f"| {at:,} |")


if __name__ == "__main__":
    main()
