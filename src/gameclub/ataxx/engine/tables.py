"""Endgame tables for ``master``: on a small board that has a table, play it perfectly.

:mod:`gameclub.tablebase.ataxx` solves small boards without blocks completely. A
table serves a game whose rules end it as the table's do
(:func:`gameclub.tablebase.ataxx.table_rules_of`): no repetition rule, ties drawn,
a side with no move passing (``ataxx`` tables) or losing (``site-2005`` tables).
Without a move limit the table is the game itself, and ``master`` plays the
perfect move (:attr:`gameclub.tablebase.ataxx.Probe.best`) without searching.
Under a move limit (the ``ataxx`` preset's 100 halfmoves) the table's value is the
game's for a draw, and for a win or loss when the halfmove clock leaves room for
the longest run of non-clone plies the table's perfect play may take
(:meth:`AtaxxProbe.exact_under`); elsewhere ``master`` searches as before.

:class:`TableProbe` finds the tables in the default table directory
(``$GAMECLUB_TABLEBASES``, else ``~/.local/share/gameclub/tablebases``) once per
board size and rule set; with none there, nothing is probed and nothing fails.
:class:`NoTables` turns probing off.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from gameclub.ataxx.board import Board
from gameclub.ataxx.move import Move

if TYPE_CHECKING:
    from gameclub.ataxx.engine import SearchResult
    from gameclub.tablebase.ataxx import AtaxxProbe, Probe


class TableProbe:
    """The tables under one directory, each opened on first use (or found missing once)."""

    def __init__(self, root: Path | None = None) -> None:
        self._root = root
        self._open: dict[tuple[str, int, int, str], AtaxxProbe | None] = {}
        self._lock = threading.Lock()

    @property
    def root(self) -> Path:
        from gameclub.tablebase.storage import default_root

        return self._root if self._root is not None else default_root()

    def table(self, width: int, height: int, rules: str) -> AtaxxProbe | None:
        """The complete table of this board and rules, or ``None`` (missing, unfinished,
        damaged: a damaged table is never probed)."""
        from gameclub.tablebase.ataxx import AtaxxProbe
        from gameclub.tablebase.storage import TableError

        root = self.root
        key = (str(root), width, height, rules)
        with self._lock:
            if key not in self._open:
                try:
                    self._open[key] = AtaxxProbe.open(root, width, height, rules)
                except (TableError, ValueError, OSError):
                    self._open[key] = None
            return self._open[key]

    def lookup(self, board: Board) -> tuple[Probe, bool] | None:
        """``(probe, exact)`` of ``board``: the table's value and every move's, and whether
        the value is the game's under ``board``'s rules; ``None`` with no table."""
        from gameclub.tablebase.ataxx import TableError, table_rules_of

        found = table_rules_of(board.rules)
        if found is None or board.blocks:
            return None
        rules, limit = found
        table = self.table(board.width, board.height, rules)
        if table is None:
            return None
        try:
            return table.probe(board), table.exact_under(board, limit)
        except (TableError, ValueError):
            return None

    def perfect_move(self, board: Board) -> tuple[Move, int] | None:
        """``(move, value)``: the table's perfect move when its value is the game's."""
        looked = self.lookup(board)
        if looked is None:
            return None
        probe, exact = looked
        best = probe.best
        if not exact or best is None:
            return None
        return best, probe.value


class NoTables(TableProbe):
    """No tables: ``master`` searches every position."""

    def table(self, width: int, height: int, rules: str) -> AtaxxProbe | None:
        return None


_default: TableProbe | None = None
_default_lock = threading.Lock()


def default_tables() -> TableProbe:
    """The default directory's tables, shared by the process's engines."""
    global _default
    with _default_lock:
        if _default is None:
            _default = TableProbe()
        return _default


def table_result(tables: TableProbe | None, board: Board) -> SearchResult | None:
    """``master``'s answer from the tables, or ``None`` to search (``tables`` ``None``:
    the default directory's)."""
    from gameclub.ataxx.engine import SearchResult
    from gameclub.ataxx.engine.search import MATE_BOUND
    from gameclub.tablebase.values import decode

    found = (tables if tables is not None else default_tables()).perfect_move(board)
    if found is None:
        return None
    move, value = found
    result, margin = decode(value)
    # The engine's scale: a proven win or loss beyond any evaluation, the margin inside.
    score = result * (MATE_BOUND - 100) + 100 * max(-9, min(9, margin)) if result else 0
    return SearchResult(move=move, score=score, depth=0, seldepth=0, nodes=0, pv=[move])
