"""What one client may cost the others: request budgets per address and bounded bodies.

* :class:`TokenBuckets` — a token bucket per key (burst, then a steady rate),
  in a table that forgets full buckets, so it stays as small as the set of
  clients that are spending right now.
* :class:`RequestLimits` — ASGI middleware charging every ``/api`` request and
  every WebSocket handshake to the client address's bucket; over budget, the
  answer is a ready-made 429, before routing, a session lookup or a body read.
* :func:`read_body` — a request body read as it streams in, refused (413) by
  its ``Content-Length`` before reading, or as soon as it passes the limit.
* :class:`SharedBudgets` — on a node of several, the same budgets kept in Redis,
  so that a client spends from one budget wherever its requests land.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Hashable
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Receive, Scope, Send

from gameclub.server.errors import ClubError
from gameclub.server.settings import Settings

log = logging.getLogger(__name__)

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

    async def spend(self, key: Hashable, cost: float = 1.0) -> float:
        """:meth:`take`, from the club-wide bucket when there is one (several nodes)."""
        if self.shared is None:
            return self.take(key, cost)
        budgets, name = self.shared
        return await budgets.take(name, str(key), self.burst, self.rate, cost)

    #: Several nodes: the club-wide budgets and this table's name among them.
    shared: tuple[SharedBudgets, str] | None = None


#: A token bucket in a Redis hash (the server's clock: nodes' clocks may differ).
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local burst, rate, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(held[1]) or burst
local at = tonumber(held[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate)
local wait = 0
if tokens >= cost then tokens = tokens - cost
elseif rate > 0 then wait = (cost - tokens) / rate
else wait = 86400 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(now))
local full = 86400
if rate > 0 then full = burst / rate end
redis.call('PEXPIRE', KEYS[1], math.ceil(full * 1000) + 1000)
return tostring(wait)
"""
#: A sliding window of events (a sorted set of times): the wait before one more.
_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local limit, window, hit = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if hit then
  redis.call('ZADD', KEYS[1], now, tostring(now) .. ':' .. tostring(count))
  redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
  return '0'
end
if count < limit then return '0' end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(math.max(0.1, tonumber(oldest[2]) + window - now))
"""
#: Failures that double the wait: ``fail`` counts one, ``check`` says the wait.
_BACKOFF = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local free, base, cap, forget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4])
if ARGV[5] == 'fail' then
  redis.call('HINCRBY', KEYS[1], 'n', 1)
  redis.call('HSET', KEYS[1], 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(forget * 1000))
  return '0'
end
local held = redis.call('HMGET', KEYS[1], 'n', 'at')
local count, last = tonumber(held[1]), tonumber(held[2])
if count == nil or last == nil or count < free then return '0' end
local wait = math.min(cap, base * 2 ^ math.min(count - free, 30))
return tostring(math.max(0, last + wait - now))
"""


class SharedBudgets:
    """The club's budgets in Redis (several nodes): every node spends from the same ones.

    Each call is one script, atomic on the Redis server and timed by its clock.
    If Redis cannot be reached the budget is not enforced for that call (logged):
    a short outage of Redis must not refuse every request of the club.
    """

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def _run(self, script: str, key: str, *args: object) -> float:
        try:
            return float(await self.redis.eval(script, 1, key, *args))
        except Exception as exc:
            log.warning("club-wide budget %s not checked: Redis unreachable (%s)", key, exc)
            return 0.0

    async def take(self, name: str, key: str, burst: float, rate: float, cost: float) -> float:
        return await self._run(_TAKE, f"gc:bucket:{name}:{key}", burst, rate, cost)

    async def window(self, name: str, key: str, limit: int, window: float, *, hit: bool) -> float:
        return await self._run(
            _WINDOW, f"gc:window:{name}:{key}", limit, window, "1" if hit else "0"
        )

    async def backoff(
        self, name: str, key: str, limits: tuple[int, float, float, float], *, fail: bool
    ) -> float:
        free, base, cap, forget = limits
        return await self._run(
            _BACKOFF, f"gc:backoff:{name}:{key}", free, base, cap, forget,
            "fail" if fail else "check",
        )

    async def forget(self, name: str, key: str) -> None:
        try:
            await self.redis.delete(f"gc:backoff:{name}:{key}")
        except Exception as exc:
            log.warning("club-wide budget %s not reset: Redis unreachable (%s)", key, exc)


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
        self.shared_name = "api"
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
            client = self.client_of(scope)
            # Several nodes: the club's budget for the address, wherever it lands.
            club = getattr(scope["app"].state, "club", None) if "app" in scope else None
            shared = club.shared_budgets if club is not None else None
            if shared is None:
                wait = self.buckets.take(client)
            else:
                buckets = self.buckets
                wait = await shared.take("api", client, buckets.burst, buckets.rate, 1.0)
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

