"""The Ataxx engine: named levels from beginner to master, behind one interface.

>>> from gameclub.ataxx import Board
>>> engine = Engine("simple", seed=1)
>>> result = engine.search(Board(), SearchLimits(depth=1))
>>> result.move.uci() in {m.uci() for m in Board().legal_moves}
True

Levels: ``random`` (a uniformly random legal move), ``simple``, ``hard`` and
``expert`` (the three levels of the 2005 site, deliberately beatable), and
``master`` (the strongest search). On a small board that has an endgame table
(:mod:`gameclub.ataxx.engine.tables`) ``master`` plays the table's perfect move
without searching; with no table it searches.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gameclub.ataxx.board import Board
from gameclub.ataxx.move import Move

if TYPE_CHECKING:
    from gameclub.ataxx.engine.search import MasterSearch
    from gameclub.ataxx.engine.tables import TableProbe

LEVELS: tuple[str, ...] = ("random", "simple", "hard", "expert", "master")


@dataclass(frozen=True)
class SearchLimits:
    """When to stop searching; every field ``None`` (and not ``infinite``) means a default."""

    depth: int | None = None
    nodes: int | None = None
    #: seconds for this move.
    movetime: float | None = None
    #: clock of each side in seconds, increments in seconds.
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    infinite: bool = False


@dataclass
class SearchResult:
    """What a search found: scores are in centipawns (100 per piece) from the mover's view."""

    move: Move
    score: int = 0
    #: plies to a forced end when the search proved one (positive: the mover wins).
    mate: int | None = None
    depth: int = 0
    seldepth: int = 0
    nodes: int = 0
    time: float = 0.0
    pv: list[Move] = field(default_factory=list)


InfoCallback = Callable[[SearchResult], None]


class Engine:
    """One engine at one level; keeps its own state (hash table, random generator).

    ``master`` loads its numba kernels on the first :meth:`new_game` or
    :meth:`search` (from the on-disk cache; the very first run compiles them).
    Call :meth:`new_game` before a timed game so that this does not happen on
    the clock.
    """

    def __init__(self, level: str = "master", *, seed: int | None = None,
                 hash_mb: int = 32, tables: TableProbe | None = None) -> None:
        """``tables``: the endgame tables ``master`` asks first (``None``: those of the
        default table directory; :class:`gameclub.ataxx.engine.tables.NoTables`: none)."""
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
        self.level = level
        self.seed = seed
        self.rng = random.Random(seed)
        self.hash_mb = hash_mb
        self._master: MasterSearch | None = None
        self.tables = tables

    def new_game(self) -> None:
        """Forget what was learnt in the previous game (and load the kernels if needed)."""
        self.rng = random.Random(self.seed)
        if self.level == "master":
            self._master_search().new_game()

    def _master_search(self) -> MasterSearch:
        if self._master is None:
            from gameclub.ataxx.engine.search import MasterSearch

            self._master = MasterSearch(self.hash_mb)
            self._master.warm_up()
            self._master.new_game()
        return self._master

    def search(
        self,
        board: Board,
        limits: SearchLimits | None = None,
        *,
        info: InfoCallback | None = None,
        stop: threading.Event | None = None,
    ) -> SearchResult:
        """Choose a move for the side to move; ``board`` is left unchanged.

        ``random``, ``simple``, ``hard`` and ``expert`` search to their fixed depth
        whatever the limits say; ``master`` honours every field of ``limits``.
        """
        started = time.perf_counter()
        moves = board.legal_moves
        if not moves:
            raise ValueError(f"no move to search: the game is over in {board.fen()!r}")
        if self.level == "master":
            from gameclub.ataxx.engine.tables import table_result

            known = table_result(self.tables, board)
            if known is not None:
                known.time = time.perf_counter() - started
                if info is not None:
                    info(known)
                return known
            return self._master_search().search(board, limits or SearchLimits(), info, stop)
        if self.level == "random":
            move, score, depth, nodes = self.rng.choice(moves), 0, 0, len(moves)
        elif self.level == "simple":
            from gameclub.ataxx.engine.levels import simple_move

            move, score, depth, nodes = simple_move(board, moves, self.rng), 0, 1, len(moves)
        else:
            from gameclub.ataxx.engine.levels import LEVEL_DEPTH, level_move

            move, score, nodes = level_move(board, self.level, self.rng)
            depth = LEVEL_DEPTH[self.level]
        result = SearchResult(
            move=move, score=score, depth=depth, seldepth=depth, nodes=nodes,
            time=time.perf_counter() - started, pv=[move],
        )
        if info is not None:
            info(result)
        return result


def choose_move(
    board: Board, level: str, *, seed: int | None = None, movetime: float | None = None
) -> Move:
    """One move for ``board`` at ``level`` (synchronous; run it off any event loop)."""
    limits = SearchLimits(movetime=movetime) if movetime is not None else None
    return Engine(level, seed=seed).search(board, limits).move
