"""The one error type of the club: a stable code for programs, a message for people.

Raised anywhere below the edges; the HTTP layer turns it into a JSON error with
its status, the WebSocket layer into an ``error`` message. Nothing is changed
by a request that ends in a :class:`ClubError`.
"""

from __future__ import annotations

from gameclub.games import GameError


class ClubError(GameError):
    """A refused request: ``code`` (see docs/protocol.md), ``message``, HTTP ``status``.

    The refusals of a game's rules (:class:`gameclub.games.GameError`, its base)
    are answered the same way.
    """


def bad_field(message: str) -> ClubError:
    return ClubError("bad-field", message)


def not_found(what: str) -> ClubError:
    return ClubError("not-found", f"{what} does not exist", 404)
