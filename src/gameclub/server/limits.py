"""What one client may cost the others: request budgets per address and bounded bodies.

* :class:`TokenBuckets` — a token bucket per key (burst, then a steady rate),
  in a table that forgets full buckets, so it stays as small as the set of
  clients that are spending right now.
* :class:`RequestLimits` — ASGI middleware charging every ``/api`` request and
  every WebSocket handshake to the client address's bucket; over budget, the
  answer is a ready-made 429, before routing, a session lookup or a body read.
* :func:`read_body` — a request body read as it streams in, refused (413) by
  its ``Content-Length`` before reading, or as soon as it passes the limit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from gameclub.server.errors import ClubError
from gameclub.server.settings import Settings

#: The bucket table is swept of full buckets when it grows past this many keys
#: (then past twice what the sweep left, so that sweeping stays rare).
_SWEEP_AT = 4096
#: The longest wait ever announced (``Retry-After``), in seconds.
_MAX_WAIT = 86_400.0


class TokenBuckets:
    """A token bucket per key: ``burst`` tokens, refilled at ``rate`` a second."""

    def __init__(self, burst: int, rate: float) -> None:
        self.burst = float(burst)
        self.rate = rate
        #: key -> (tokens, last refill time)
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._sweep_at = _SWEEP_AT

    def take(self, key: Hashable, cost: float = 1.0) -> float:
        """Spend ``cost`` tokens of ``key``; 0 if it could, else seconds until it can."""
        now = time.monotonic()
        tokens, then = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens >= cost:
            self._buckets[key] = (tokens - cost, now)
            if len(self._buckets) > self._sweep_at:
                self._sweep(now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return min(_MAX_WAIT, (cost - tokens) / self.rate) if self.rate > 0 else _MAX_WAIT

    def _sweep(self, now: float) -> None:
        # A bucket that has refilled is the same as no bucket: forget it.
        full = [
            key
            for key, (tokens, then) in self._buckets.items()
            if tokens + (now - then) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        self._sweep_at = max(_SWEEP_AT, 2 * len(self._buckets))

    def __len__(self) -> int:
        return len(self._buckets)


def rate_limited(what: str, wait: float) -> ClubError:
    """A 429 ``rate-limited`` error with its ``Retry-After``."""
    error = ClubError("rate-limited", f"too many {what}; try again in {max(1, round(wait))} s", 429)
    error.retry_after = wait  # type: ignore[attr-defined]
    return error


class RequestLimits:
    """Charge each ``/api`` request and ``/ws`` handshake to its client address's budget.

    Refusals are answered here, from bytes made once, so that a flood costs
    as little as an answer can; the connection is closed with them
    (``Connection: close``): a client must reconnect to try again.
    """

    def __init__(
        self, app: ASGIApp, settings: Settings, client_of: Callable[[Scope], str]
    ) -> None:
        self.app = app
        self.buckets = TokenBuckets(settings.api_burst, settings.api_rate_per_s)
        self.client_of = client_of
        self._body = json.dumps(
            {
                "error": {
                    "code": "rate-limited",
                    "message": "too many requests from your address: slow down",
                }
            }
        ).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        path: str = scope.get("path", "")
        if (kind == "http" and path.startswith("/api/")) or (kind == "websocket" and path == "/ws"):
            wait = self.buckets.take(self.client_of(scope))
            if wait > 0:
                if kind == "websocket":
                    # Refused before the handshake: the client sees a 403.
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send(
                    {
                        "type": "http.response.start",
                        "status": 429,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(self._body)).encode()),
                            (b"retry-after", str(max(1, round(wait))).encode()),
                            (b"connection", b"close"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": self._body})
                return
        await self.app(scope, receive, send)


def too_large(limit: int) -> ClubError:
    return ClubError("too-large", f"request bodies are at most {limit} bytes", 413)


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes: refused by its announced length
    before reading anything, else as soon as the bytes received pass the limit."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isascii() or not length.isdigit():
            raise ClubError("bad-request", "Content-Length must be a number of bytes", 400)
        if int(length) > limit:
            raise too_large(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ClubError("bad-request", "the body ended before it was whole", 400) from None
    return b"".join(chunks)

