"""The seam for an endgame database: ``master`` asks it before searching.

An :class:`EndgameProbe` answers, for a position, the exact final margin the
side to move gets with best play (its future captures minus the opponent's, as
Romein and Bal count it), or ``None`` when the position is not in the database.
``master`` probes every legal move's result at the root and, when all are known,
plays the best one at once: the database's positions are then played perfectly.
No database ships yet, so :class:`NoEndgameDatabase` knows nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gameclub.awele.board import Board

if TYPE_CHECKING:
    from gameclub.awele.engine import SearchResult


class EndgameProbe(Protocol):
    def probe(self, board: Board) -> int | None:
        """The side to move's exact margin over the seeds left on the board, or ``None``."""


class NoEndgameDatabase:
    """The probe used until an endgame database is built: it knows no position."""

    def probe(self, board: Board) -> int | None:
        return None


def probe_best_move(probe: EndgameProbe | None, board: Board) -> SearchResult | None:
    """The best root move by the database when it knows every reply, else ``None``.

    A move's value is what it captures now minus the opponent's value after it;
    a move that ends the game is worth its final margin.
    """
    from gameclub.awele.engine import SearchResult
    from gameclub.awele.engine.search import WIN

    if probe is None:
        return None
    best = None
    best_value = 0
    for move in board.legal_moves:
        before = board.stores
        child = board.copy()
        child.push(move)
        mover = int(board.turn)
        gained = child.stores[mover] - before[mover]
        outcome = child.outcome()
        if outcome is not None:
            final = outcome.score
            value = (final[mover] - before[mover]) - (final[1 - mover] - before[1 - mover])
        else:
            reply = probe.probe(child)
            if reply is None:
                return None
            value = gained - reply
        if best is None or value > best_value:
            best, best_value = move, value
    if best is None:
        return None
    mover = int(board.turn)
    margin = board.stores[mover] - board.stores[1 - mover] + best_value
    score = 0 if margin == 0 else (WIN - 1 if margin > 0 else -(WIN - 1))
    return SearchResult(move=best, score=score, depth=0, pv=[best])
