"""The Awele engine: named levels from beginner to master, behind one interface.

>>> from gameclub.awele import Board
>>> engine = Engine("greedy", seed=1)
>>> engine.search(Board(), SearchLimits(depth=1)).move in Board().legal_moves
True

Levels: ``random`` (a uniformly random legal move), ``greedy`` (the move that
captures most now, ties broken at random) and ``master`` (iterative-deepening
PVS in numba with a transposition table, :mod:`gameclub.awele.engine.search`).
``master`` asks an endgame database first (:mod:`gameclub.awele.engine.endgame`)
and plays its positions perfectly.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gameclub.awele.board import Board
from gameclub.awele.move import Move

if TYPE_CHECKING:
    from gameclub.awele.engine.endgame import EndgameProbe
    from gameclub.awele.engine.search import MasterSearch

LEVELS: tuple[str, ...] = ("random", "greedy", "master")


@dataclass(frozen=True)
class SearchLimits:
    """When to stop searching; every field ``None`` (and not ``infinite``) means a default."""

    depth: int | None = None
    nodes: int | None = None
    #: seconds for this move.
    movetime: float | None = None
    #: the clock of the side to move and its increment, in seconds.
    time: float | None = None
    increment: float = 0.0
    movestogo: int | None = None
    infinite: bool = False


@dataclass
class SearchResult:
    """What a search found; scores in hundredths of a seed from the mover's view."""

    move: Move
    score: int = 0
    #: plies to a forced end when the search proved one (positive: the mover wins).
    win_in: int | None = None
    depth: int = 0
    seldepth: int = 0
    nodes: int = 0
    time: float = 0.0
    pv: list[Move] = field(default_factory=list)


InfoCallback = Callable[[SearchResult], None]


class Engine:
    """One engine at one level; keeps its own state (hash table, random generator).

    ``master`` loads its numba kernel on the first :meth:`new_game` or
    :meth:`search` (from the on-disk cache; the very first run compiles it, about
    20 s). Call :meth:`new_game` before a timed game so that this happens off
    the clock.
    """

    def __init__(self, level: str = "master", *, seed: int | None = None, hash_mb: int = 32,
                 endgame: EndgameProbe | None = None, exact_seeds: int | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
        self.level = level
        self.seed = seed
        self.rng = random.Random(seed)
        self.hash_mb = hash_mb
        self.endgame = endgame
        #: ``master`` scores positions with at most this many seeds exactly
        #: (:mod:`gameclub.awele.engine.exact`; ``None``: its default, -1: never).
        self.exact_seeds = exact_seeds
        self._master: MasterSearch | None = None

    def new_game(self) -> None:
        """Forget what was learnt in the previous game (and load the kernel if needed)."""
        self.rng = random.Random(self.seed)
        if self.level == "master":
            self._master_search().new_game()

    def _master_search(self) -> MasterSearch:
        if self._master is None:
            from gameclub.awele.engine.search import MasterSearch

            self._master = MasterSearch(self.hash_mb, self.exact_seeds)
            self._master.warm_up()
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

        ``random`` and ``greedy`` answer at once whatever the limits say;
        ``master`` honours every field of ``limits``.
        """
        started = time.perf_counter()
        moves = board.legal_moves
        if not moves or board.is_game_over():
            raise ValueError(f"no move to search: the game is over in {board.position()!r}")
        if self.level == "master":
            from gameclub.awele.engine.endgame import probe_best_move

            known = probe_best_move(self.endgame, board)
            if known is not None:
                if info is not None:
                    info(known)
                return known
            from gameclub.awele.engine.state import KernelGame

            return self._master_search().search_game(
                KernelGame.from_board(board), limits or SearchLimits(), info=info, stop=stop
            )
        if self.level == "random":
            move = self.rng.choice(moves)
        else:
            from gameclub.awele.engine.levels import greedy_move

            move = greedy_move(board, moves, self.rng)
        result = SearchResult(move=move, depth=1 if self.level == "greedy" else 0,
                              nodes=len(moves), time=time.perf_counter() - started, pv=[move])
        if info is not None:
            info(result)
        return result


def choose_move(board: Board, level: str, *, seed: int | None = None,
                movetime: float | None = None, exact_seeds: int | None = None) -> Move:
    """One move for ``board`` at ``level`` (synchronous; run it off any event loop).

    ``exact_seeds`` is :class:`Engine`'s: how few seeds ``master`` scores exactly.
    """
    limits = SearchLimits(movetime=movetime) if movetime is not None else None
    return Engine(level, seed=seed, exact_seeds=exact_seeds).search(board, limits).move
