"""The seam for an endgame database: ``master`` asks it before searching.

An :class:`EndgameProbe` answers, for a position, the exact final margin the
side to move gets with best play (its future captures minus the opponent's, as
Romein and Bal count it), or ``None`` when the position is not in the database.
A probe may also answer :meth:`TableProbe.distance`, the plies to the next
capture with best play, which a perfect player needs: in a won position several
moves keep the margin, and only those that bring the capture nearer make
progress (seeds can go round for ever).

``master`` probes every legal move's result at the root and, when all are known,
plays the best one at once (the best margin, then the shortest distance when
winning, the longest when losing): the database's positions are then played
perfectly. Without an explicit probe it uses the tables of
:mod:`gameclub.tablebase` found in the default table directory
(``$GAMECLUB_TABLEBASES``, else ``~/.local/share/gameclub/tablebases``), for the
rule sets that have tables (``awari``, ``awele``); with none there, nothing is
probed and nothing fails. A table whose file turns out missing, cut or corrupted
when first read (each layer's checksum is verified then) is never used: the probe
warns once (:class:`TableWarning`) and from then on knows no position, so
``master`` searches. :class:`NoEndgameDatabase` turns probing off.
"""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gameclub.awele.board import Board

if TYPE_CHECKING:
    from collections.abc import Callable

    from gameclub.awele.engine import SearchResult
    from gameclub.tablebase.awele import AweleProbe


class EndgameProbe(Protocol):
    def probe(self, board: Board) -> int | None:
        """The side to move's exact margin over the seeds left on the board, or ``None``."""


class NoEndgameDatabase:
    """A probe that knows no position: ``master`` searches every move."""

    def probe(self, board: Board) -> int | None:
        return None


class TableWarning(RuntimeWarning):
    """An endgame table found damaged while playing: the engine stops using it."""


class TableProbe:
    """An :class:`EndgameProbe` backed by the on-disk tables of one rule set."""

    def __init__(self, table: AweleProbe) -> None:
        self.table = table
        self.rules = table.rules.name
        self.seeds = table.seeds
        self.has_distances = all(table.table.has_distance(layer) for layer in table.table.layers)
        #: why the table is no longer used (a file failed its check), or ``None``.
        self.broken: str | None = None

    def _ask(self, lookup: Callable[[Board], int], board: Board) -> int | None:
        """``lookup(board)``, or ``None`` (with a warning, once) when the table turns
        out damaged: nothing it holds is used from then on."""
        from gameclub.tablebase.storage import TableError

        if self.broken is not None:
            return None
        try:
            return lookup(board)
        except TableError as exc:
            self.broken = str(exc)
            warnings.warn(f"the {self.rules} endgame table in {self.table.table.path} is "
                          f"not used: {exc}", TableWarning, stacklevel=2)
            return None

    @classmethod
    def open(cls, rules: str, root: Path | None = None) -> TableProbe | None:
        """The largest complete table of ``rules`` in ``root`` (default: the default
        table directory), or ``None`` when there is none or the rule set has none."""
        from gameclub.tablebase.awele import TABLE_RULES, AweleProbe
        from gameclub.tablebase.storage import TableError, default_root

        if rules not in TABLE_RULES:
            return None
        root = root if root is not None else default_root()
        if not root.is_dir():
            return None
        # The largest complete table: an unfinished or damaged one is passed over.
        sizes = sorted((int(p.name.split("-")[1]) for p in root.glob(f"awele-*-{rules}")
                        if p.name.split("-")[1].isdigit()), reverse=True)
        for seeds in sizes:
            try:
                return cls(AweleProbe.open(root, rules, seeds))
            except TableError:
                continue
        return None

    def knows(self, board: Board) -> bool:
        return (self.broken is None and board.rules.name == self.rules
                and board.seeds_on_board() <= self.seeds)

    def probe(self, board: Board) -> int | None:
        return self._ask(self.table.board_value, board) if self.knows(board) else None

    def distance(self, board: Board) -> int | None:
        """Plies to the next capture (or the end) with best play, or ``None``."""
        if not self.has_distances or not self.knows(board):
            return None
        return self._ask(self.table.board_distance, board)


@cache
def default_probe(rules: str) -> TableProbe | None:
    """The default directory's table for ``rules``, looked for once per process."""
    return TableProbe.open(rules)


def probe_best_move(probe: EndgameProbe | None, board: Board) -> SearchResult | None:
    """The best root move by the database when it knows every reply, else ``None``.

    ``probe`` ``None`` means the default tables of the board's rule set. A move's
    value is what it captures now minus the opponent's value after it; a move that
    ends the game is worth its final margin. Among the moves of the best value, the
    winner takes the one nearest to its next capture, the loser the farthest (when
    the probe knows distances): a capture is at distance 1, another move one more
    than the position after it.
    """
    from gameclub.awele.engine import SearchResult
    from gameclub.awele.engine.search import WIN

    if probe is None:
        probe = default_probe(board.rules.name)
        if probe is None:
            return None
    distance_of = getattr(probe, "distance", None)
    scored = []
    mover = int(board.turn)
    for move in board.legal_moves:
        before = board.stores
        child = board.copy()
        child.push(move)
        gained = child.stores[mover] - before[mover]
        outcome = child.outcome()
        distance: int | None = 1
        if outcome is not None:
            final = outcome.score
            value = (final[mover] - before[mover]) - (final[1 - mover] - before[1 - mover])
        else:
            reply = probe.probe(child)
            if reply is None:
                return None
            value = gained - reply
            if not sum(child.stores) - sum(before):
                further = distance_of(child) if distance_of is not None else None
                distance = None if further is None else 1 + further
        scored.append((move, value, distance))
    if not scored or getattr(probe, "broken", None) is not None:
        # A table found damaged half-way through: none of its answers is used.
        return None
    best_value = max(value for _, value, _ in scored)
    keep = [(move, distance) for move, value, distance in scored if value == best_value]
    best = keep[0][0]
    if best_value != 0 and all(distance is not None for _, distance in keep):
        pick = min if best_value > 0 else max
        best = pick(keep, key=lambda item: item[1] or 0)[0]
    margin = board.stores[mover] - board.stores[1 - mover] + best_value
    score = 0 if margin == 0 else (WIN - 1 if margin > 0 else -(WIN - 1))
    return SearchResult(move=best, score=score, depth=0, pv=[best])
