"""The one error type of the club: a stable code for programs, a message for people.

Raised anywhere below the edges; the HTTP layer turns it into a JSON error with
its status, the WebSocket layer into an ``error`` message. Nothing is changed
by a request that ends in a :class:`ClubError`.
"""

from __future__ import annotations


class ClubError(Exception):
    """A refused request: ``code`` (see docs/protocol.md), ``message``, HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message}

    def __reduce__(self) -> tuple[type[ClubError], tuple[str, str, int]]:
        # Raised in worker processes too (records are read there): it must pickle.
        return (ClubError, (self.code, self.message, self.status))


def bad_field(message: str) -> ClubError:
    return ClubError("bad-field", message)


def not_found(what: str) -> ClubError:
    return ClubError("not-found", f"{what} does not exist", 404)
