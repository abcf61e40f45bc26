"""Several nodes, one club: game ownership by lease, forwarding, fan-out through Redis.

A node started with a Redis URL (``gameclub serve --redis-url``) is one of the
club's nodes; all of them share one PostgreSQL database (what lasts) and one
Redis (what passes between nodes). docs/server.md, "Several nodes", tells the
whole design; in short:

* Each live game has one owner node, the holder of its **lease**: the Redis key
  ``gc:lease:<game>`` = ``<node>:<epoch>``, set with ``NX`` and an expiry,
  renewed by the owner every third of ``lease_s``. Only the owner keeps the
  game's :class:`~gameclub.server.round.Round`; any node takes a game whose
  lease has lapsed over on demand.
* Taking a game over increments its **owner epoch** in the database
  (:func:`~gameclub.server.store.games.take_ownership`); the owner's every
  write is fenced by it in the same transaction, so a node that lost its lease
  without noticing (paused, partitioned) cannot store anything any more.
* A player's action arriving at another node is **forwarded** to the owner
  over the owner's Redis channel ``gc:node:<node>`` and answered on the
  asker's: acknowledged only once the owner has stored it.
* A connection following a game owned elsewhere is a
  :class:`RemoteSubscriber` of the owner's round: the owner sends it the same
  frames, in the same order, through the one ordered publisher of each node.
* Club-wide counts and lists (who is online, the games being played and
  watchable) are each node's share, written to ``gc:nodes`` every second and
  summed by every node.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from sqlalchemy.exc import DBAPIError

from gameclub.games import GameError
from gameclub.server.accounts import Identity
from gameclub.server.clock import now_ms
from gameclub.server.errors import ClubError
from gameclub.server.lobby import seek_of_record, seek_record
from gameclub.server.ratings import Rating
from gameclub.server.round import PLAYER_ACTIONS, Round, Rounds, Subscriber, _check_id
from gameclub.server.settings import Settings
from gameclub.server.store import games as store

if TYPE_CHECKING:
    from gameclub.server.lobby import Lobby
    from gameclub.server.ws import Connections

log = logging.getLogger(__name__)

#: Renew the leases ``KEYS`` whose values are still ``ARGV[1..n]`` (this node holds
#: them) for ``ARGV[n+1]`` ms: for each, 1 if renewed, else 0.
_RENEW = """
local ms = ARGV[#KEYS + 1]
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i] then
    held[i] = redis.call('PEXPIRE', key, ms)
  else
    held[i] = 0
  end
end
return held
"""
#: Most leases renewed by one call of :data:`_RENEW` (Redis does nothing else meanwhile).
_RENEW_AT_ONCE = 1000
#: Replace the lease's value (a new epoch) only if this node still holds it.
_REPLACE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1
end
return 0
"""
#: Let go of the lease only if this node holds it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

NODES_KEY = "gc:nodes"
#: Seeks of dead nodes, waiting for their players' pages to reconnect to another node.
ORPHANS_KEY = "gc:orphan-seeks"
#: How long an orphaned seek waits for its player to come back.
_ORPHAN_GRACE_MS = 30_000
#: How long the tombstone of a dead node's share stays (so that, if it was only
#: stalled, it learns that its seeks were handed over).
_TOMBSTONE_MS = 600_000
#: Write a node's share; 1 if it found a tombstone there (taken for dead meanwhile).
_WRITE_SHARE = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if old and string.find(old, '"dead":true', 1, true) then return 1 end
return 0
"""
#: Replace a stale share (unchanged since it was read) with a tombstone.
_BURY = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""
#: Most messages that one round of the publisher carries.
_MAX_PUBLISHED = 500
#: The club-wide channel: messages for a user wherever their pages are.
USERS_CHANNEL = "gc:users"
_USERS_CHANNEL_BYTES = USERS_CHANNEL.encode()


def lease_key(game_id: str) -> str:
    return f"gc:lease:{game_id}"


def alive_key(node: str) -> str:
    """The key a node keeps while it is up (see :meth:`Cluster._renew_all`)."""
    return f"gc:alive:{node}"


def node_channel(node: str) -> str:
    return f"gc:node:{node}"


def _without_times(shares: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        node: {name: value for name, value in share.items() if name != "at"}
        for node, share in shares.items()
    }


#: A message for the publisher: its channel; the message encoded, or ``None`` for a
#: frame; for a request to another node the future of how many nodes listened
#: (``None`` otherwise); for a frame, the connection on the other node and the
#: frame's text (encoded when it leaves, once for all of that node's connections).
_Outgoing = tuple[str, bytes | None, asyncio.Future[int] | None, str | None, str | None]


@dataclass(eq=False, slots=True)
class _Frame:
    """One frame for some connections of one node (a push)."""

    text: str
    conns: list[str]

    def encode(self) -> bytes:
        return orjson.dumps({"k": "push", "c": self.conns, "x": self.text})


def bundle(batch: list[_Outgoing]) -> list[tuple[str, bytes, list[asyncio.Future[int]]]]:
    """The messages of ``batch`` as few publishes as their order allows: one per channel,
    its payload the JSON array of that channel's messages in the order they were queued,
    with the futures of the requests among them (each learns how many nodes listened).

    Each channel's messages keep their order. A node reads its own channel and the
    club's (:data:`USERS_CHANNEL`), so the bundles for nodes and those for the club
    never span each other: what was queued for a node before a message to the club
    leaves before it, and after it what was queued after it. A frame queued for
    several connections of one node in a row (the same text to each: a broadcast)
    is one message naming all of them, its text encoded once."""
    published: list[tuple[str, list[bytes | _Frame], list[asyncio.Future[int]]]] = []
    groups: dict[str, tuple[list[bytes | _Frame], list[asyncio.Future[int]]]] = {}
    club = False  # whether the open bundles are the club's (else nodes')
    for channel, data, listened, conn, text in batch:
        if groups and (channel == USERS_CHANNEL) != club:
            published.extend((name, parts, futures) for name, (parts, futures) in groups.items())
            groups = {}
        club = channel == USERS_CHANNEL
        group = groups.get(channel)
        if group is None:
            group = groups[channel] = ([], [])
        parts, futures = group
        if listened is not None:
            futures.append(listened)
        if data is not None:
            parts.append(data)
        elif conn is not None and text is not None:
            last = parts[-1] if parts else None
            if isinstance(last, _Frame) and last.text is text:
                last.conns.append(conn)
            else:
                parts.append(_Frame(text, [conn]))
    published.extend((name, parts, futures) for name, (parts, futures) in groups.items())
    return [
        (
            channel,
            b"[" + b",".join(part if isinstance(part, bytes) else part.encode()
                             for part in parts) + b"]",
            futures,
        )
        for channel, parts, futures in published
    ]


def _expire(
    listened: asyncio.Future[int], reply: asyncio.Future[Any], node: str, request: dict[str, Any]
) -> None:
    """A call to ``node`` had no answer in time (the owner is dead, paused, or Redis is
    away): the one of its futures being waited for fails with :class:`_Unreachable`."""
    waited = reply if listened.done() else listened
    if not waited.done():
        # Said once per call: how a stall or a lost message shows in the node's log.
        log.warning(
            "node %s: %s %s of game %s to %s (call %s) had no answer in time",
            request.get("from"), "request" if waited is reply else "unsent request",
            request.get("op"), request.get("game"), node, request.get("id"),
        )
        waited.set_exception(_Unreachable(node))


def _version(frame: str, game_id: str) -> int | None:
    """The version ``v`` of a frame of ``game_id`` (``None``: another game's, or none)."""
    try:
        message = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(message, dict) or message.get("game") != game_id:
        return None
    version = message.get("v")
    return version if isinstance(version, int) else None


class StartError(RuntimeError):
    """A node cannot join its club (Redis unreachable, ...): the message says why."""


class _Unreachable(Exception):
    """The owner did not answer (dead, paused, or Redis down): try again."""


class _Moved(Exception):
    """The node asked does not own the game (any more), or not in that epoch."""


class _Taken(Exception):
    """Another node took the lease first."""


@dataclass
class Lease:
    node: str
    epoch: int

    @classmethod
    def parse(cls, value: bytes | str | None) -> Lease | None:
        if value is None:
            return None
        text = value.decode() if isinstance(value, bytes) else value
        node, _, epoch = text.rpartition(":")
        if not node or not epoch.isdigit():
            return None
        return cls(node, int(epoch))


#: The lease of a game whose owner could not be found yet (never equal to a real one).
_NOBODY = Lease("", -1)


@dataclass(eq=False)
class RemoteSubscriber:
    """A connection on another node following a game this node owns: its frames go
    to that node through the ordered publisher, and it counts as any subscriber."""

    cluster: Cluster
    node: str
    conn: str
    user_id: int

    def send_text(self, text: str) -> None:
        self.cluster.push_frame(self.node, self.conn, text)


@dataclass(eq=False)
class RemoteRound:
    """A game owned by another node, as this node's connections follow it."""

    cluster: Cluster
    id: str
    lease: Lease
    subscribers: set[Subscriber] = field(default_factory=set)

    def unsubscribe(self, sub: Subscriber) -> None:
        if sub not in self.subscribers:
            return
        self.subscribers.discard(sub)
        key = self.cluster.conn_key(sub)
        self.cluster.forget_conn(sub, self)
        self.cluster.spawn(
            self.cluster.call_quietly(self.lease, {"op": "unsub", "game": self.id, "conn": key})
        )


class Cluster:
    """This node's part in a club of several: leases, forwarding, fan-out, shared counts."""

    def __init__(self, settings: Settings, rounds: Rounds, connections: Connections) -> None:
        assert settings.redis_url is not None
        self.settings = settings
        self.rounds = rounds
        self.connections = connections
        self.node = settings.node_id or f"n{secrets.token_hex(4)}"
        self.lease_ms = int(settings.lease_s * 1000)
        self.redis = aioredis.Redis.from_url(
            settings.redis_url, socket_connect_timeout=2, socket_timeout=5
        )
        self._renew = self.redis.register_script(_RENEW)
        self._replace = self.redis.register_script(_REPLACE)
        self._release = self.redis.register_script(_RELEASE)
        self._write_share = self.redis.register_script(_WRITE_SHARE)
        self._bury = self.redis.register_script(_BURY)
        #: What the publisher sends, in order (see :data:`_Outgoing`).
        self._outbox: asyncio.Queue[_Outgoing] = asyncio.Queue()
        self._calls: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._call_ids = itertools.count(1)
        self._conn_ids = itertools.count(1)
        #: This node's connections that follow games owned elsewhere, by key.
        self._conns: dict[str, Subscriber] = {}
        self._keys: dict[Subscriber, str] = {}
        #: Frames for connections whose state message is still on its way.
        self._early: dict[str, list[str]] = {}
        #: Games owned elsewhere that this node's connections follow.
        self.remotes: dict[str, RemoteRound] = {}
        #: Remote subscribers of this node's rounds, by (node, connection key, game).
        #: (Each connection may follow several games of this node: one entry each.)
        self._remote_subs: dict[tuple[str, str, str], tuple[RemoteSubscriber, Round]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._was_alive = False
        self._loops: list[asyncio.Task[None]] = []
        #: The club-wide shares of every node, as last read (see :meth:`_share_loop`).
        self.shares: dict[str, dict[str, Any]] = {}
        self.on_shares: Callable[[], None] = lambda: None
        self.lobby: Lobby | None = None

    # -- start and stop ----------------------------------------------------------------

    async def start(self) -> None:
        """Reach Redis (or raise :class:`StartError`) and start the node's loops."""
        try:
            # Alive before it serves (which also shows Redis answers): an owner forgets
            # the pages of a node whose key is missing, and the first renewal is a third
            # of a lease away, in which a page of this node may already follow another
            # node's game.
            await asyncio.wait_for(self._mark_alive(), timeout=5)
        except (RedisError, OSError, TimeoutError) as exc:
            raise StartError(
                f"cannot reach Redis at {self.settings.redis_url}: {exc or type(exc).__name__}"
            ) from None
        self._was_alive = True
        subscribed = asyncio.get_running_loop().create_future()
        self._loops = [
            asyncio.ensure_future(self._listen(subscribed)),
            asyncio.ensure_future(self._publish_loop()),
            asyncio.ensure_future(self._lease_loop()),
            asyncio.ensure_future(self._share_loop()),
        ]
        await asyncio.wait_for(subscribed, timeout=10)
        log.info("node %s of the club (Redis %s)", self.node, self.settings.redis_url)

    async def close(self) -> None:
        """Let go of this node's games at once (the others take them over without waiting)."""
        for task in self._loops + list(self._tasks):
            task.cancel()
        for task in self._loops:
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2):
                for rnd in list(self.rounds.rounds.values()):
                    if rnd.owner_epoch is not None:
                        await self._release(
                            keys=[lease_key(rnd.id)], args=[self._value(rnd.owner_epoch)]
                        )
                # Its seeks wait for their players' pages on the other nodes.
                records = [seek_record(seek) for seek in (self.lobby.seeks.values()
                                                           if self.lobby else ())]
                if records:
                    await self.redis.hset(
                        ORPHANS_KEY,
                        mapping={
                            record["id"]: orjson.dumps({**record, "orphaned_at": now_ms()})
                            for record in records
                        },
                    )
                await self.redis.hdel(NODES_KEY, self.node)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- leases --------------------------------------------------------------------------

    def _value(self, epoch: int) -> str:
        return f"{self.node}:{epoch}"

    async def lease_of(self, game_id: str) -> Lease | None:
        return Lease.parse(await self.redis.get(lease_key(game_id)))

    async def own_new(self, game_id: str) -> int:
        """Hold the lease of a game this node is creating; its first epoch (1)."""
        await self._redis_or_unavailable(
            self.redis.set(lease_key(game_id), self._value(1), nx=True, px=self.lease_ms)
        )
        log.info("node %s owns new game %s in epoch 1", self.node, game_id)
        return 1

    async def take_over(self, game_id: str) -> int | None:
        """Take the lease of ``game_id`` (free) and increment its epoch in the database.

        Raises :class:`_Taken` if another node took it first; ``None`` when there
        is no such game.
        """
        key = lease_key(game_id)
        placeholder = self._value(0)
        got = await self._redis_or_unavailable(
            self.redis.set(key, placeholder, nx=True, px=self.lease_ms)
        )
        if not got:
            raise _Taken(game_id)
        try:
            epoch = await store.take_ownership(self.rounds.db, game_id)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                await self._release(keys=[key], args=[placeholder])
            if isinstance(exc, DBAPIError):
                raise ClubError(
                    "unavailable", "the club's database is not answering: try again in a moment",
                    503,
                ) from exc
            raise
        if epoch is None:
            await self._release(keys=[key], args=[placeholder])
            return None
        replaced = await self._replace(
            keys=[key], args=[placeholder, self._value(epoch), self.lease_ms]
        )
        if not replaced:
            # Lost meanwhile (Redis restarted, or this node stalled past the lease):
            # the epoch stays, and fences whoever comes next as usual.
            raise _Taken(game_id)
        log.info("node %s owns game %s in epoch %d", self.node, game_id, epoch)
        return epoch

    async def _redis_or_unavailable(self, call: Awaitable[Any]) -> Any:
        try:
            return await call
        except (RedisError, OSError) as exc:
            raise ClubError(
                "unavailable", "the club's servers cannot reach each other: try again"
                " in a moment", 503
            ) from exc

    def lost(self, rnd: Round) -> None:
        """``rnd`` is no longer this node's: its lease goes, its followers follow the new owner."""
        epoch = rnd.owner_epoch
        if epoch is not None:
            self.spawn(self._release_quietly(rnd.id, epoch))
        followers = list(rnd.subscribers)
        rnd.subscribers.clear()
        for sub in followers:
            if isinstance(sub, RemoteSubscriber):
                self._remote_subs.pop((sub.node, sub.conn, rnd.id), None)
            # The connections of every node follow whoever owns it now; those of
            # other nodes notice by themselves (their lease checks).
            elif rnd.id in getattr(sub, "games", {}):
                self.spawn(self._refollow(rnd.id, [sub]))

    async def _release_quietly(self, game_id: str, epoch: int) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self._release(keys=[lease_key(game_id)], args=[self._value(epoch)])

    async def unowned(self, ids: list[str]) -> list[str]:
        """Those of ``ids`` that no node holds (the sweep leaves the others alone)."""
        if not ids:
            return ids
        values = await self.redis.mget([lease_key(game_id) for game_id in ids])
        return [game_id for game_id, value in zip(ids, values, strict=True) if value is None]

    async def _lease_loop(self) -> None:
        """Renew this node's leases; check the owners of the games followed from here."""
        every = self.settings.lease_s / 3
        while True:
            slept = time.monotonic()
            await asyncio.sleep(every)
            late = time.monotonic() - slept - every
            if late > every:
                # Leases lapse when this happens often: the node is overloaded.
                log.warning("node %s: lease renewal %.1f s late", self.node, late)
            try:
                await self._renew_all()
                await self._check_remotes()
            except (RedisError, OSError) as exc:
                log.warning("node %s: Redis unreachable (%s); retrying", self.node, exc)
            except Exception:
                log.exception("node %s: lease check failed", self.node)

    async def _mark_alive(self) -> bool:
        """Keep this node's ``gc:alive`` key for a lease; whether it was there before."""
        before = await self.redis.set(alive_key(self.node), "1", px=self.lease_ms, get=True)
        return before is not None

    async def _renew_all(self) -> None:
        if not await self._mark_alive() and self._was_alive:
            # This node was taken for dead (stalled past a lease, or Redis restarted): the
            # owners of the games its pages follow may have forgotten them; follow again.
            for game_id, remote in list(self.remotes.items()):
                self.spawn(self._refollow(game_id, list(remote.subscribers)))
        self._was_alive = True
        owned = [
            (rnd, lease_key(rnd.id), self._value(rnd.owner_epoch))
            for rnd in self.rounds.rounds.values()
            if rnd.owner_epoch is not None
        ]
        renewed: list[int] = []
        for start in range(0, len(owned), _RENEW_AT_ONCE):
            # One call for a thousand of this node's games.
            chunk = owned[start:start + _RENEW_AT_ONCE]
            renewed.extend(
                await self._renew(
                    keys=[key for _, key, _ in chunk],
                    args=[*(value for _, _, value in chunk), self.lease_ms],
                )
            )
        for (rnd, key, value), held in zip(owned, renewed, strict=True):
            if held or self.rounds.rounds.get(rnd.id) is not rnd:
                continue
            # Gone (Redis restarted empty, or expired while this node stalled): held
            # again if nobody else took it; the epoch in the database decides anyway.
            if await self.redis.set(key, value, nx=True, px=self.lease_ms):
                continue
            log.warning(
                "node %s: lost the lease of game %s; stepping down", self.node, rnd.id
            )
            self.rounds.lost(rnd)
        # Remote subscribers of nodes that are gone are forgotten (presence counts).
        nodes = {key[0] for key in self._remote_subs}
        for node in nodes:
            if not await self.redis.exists(alive_key(node)):
                for key2, (sub, rnd) in list(self._remote_subs.items()):
                    if key2[0] == node:
                        del self._remote_subs[key2]
                        rnd.unsubscribe(sub)

    async def _check_remotes(self) -> None:
        remotes = list(self.remotes.items())
        if not remotes:
            return
        # One round trip for all of them.
        values = await self.redis.mget([lease_key(game_id) for game_id, _ in remotes])
        for (game_id, remote), value in zip(remotes, values, strict=True):
            lease = Lease.parse(value)
            if lease != remote.lease:
                # The owner changed, or its lease lapsed (dead): follow the new one,
                # taking the game over if nobody has.
                await self._refollow(game_id, list(remote.subscribers))

    # -- resolving a game: this node's round, or another node's --------------------------

    async def resolve(self, game_id: Any, *, fresh: bool = False) -> Round | RemoteRound:
        """``game_id``'s round if this node owns it or could take it over, else a stand-in.

        A game that this node's connections follow is asked of the owner they follow
        (the lease checks keep it current) without reading the lease each time;
        ``fresh`` reads it (after that owner refused or did not answer). The owner
        checks the epoch of every request, so a stale one is never acted upon."""
        _check_id(game_id)
        rnd = self.rounds.rounds.get(game_id)
        if rnd is not None:
            return rnd
        followed = self.remotes.get(game_id)
        if not fresh and followed is not None and followed.lease.epoch > 0:
            return followed
        try:
            lease = await self.lease_of(game_id)
            if lease is None:
                try:
                    return await self.rounds.get(game_id)
                except _Taken:
                    lease = await self.lease_of(game_id)
        except (RedisError, OSError) as exc:
            raise _Unreachable(game_id) from exc  # Redis away: tried again shortly
        if lease is None or lease.epoch == 0 or lease.node == self.node:
            raise _Unreachable(game_id)
        remote = self.remotes.get(game_id)
        if remote is not None and remote.lease == lease:
            return remote
        return RemoteRound(self, game_id, lease)

    async def _retrying(self, game_id: Any, attempt: Callable[[Round | RemoteRound], Any]) -> Any:
        """``attempt`` on the game's owner; while the owner cannot be reached or has just
        changed, again, until a takeover makes one reachable (within a lease or so)."""
        deadline = time.monotonic() + 2 * self.settings.lease_s + self.settings.forward_timeout_s
        fresh = False
        while True:
            try:
                return await attempt(await self.resolve(game_id, fresh=fresh))
            except (_Unreachable, _Moved, _Taken):
                fresh = True
                if time.monotonic() > deadline:
                    raise ClubError(
                        "unavailable",
                        "the server of this game is not answering and no other could take"
                        " it over yet: nothing was stored, try again in a moment",
                        503,
                    ) from None
            except ClubError as exc:
                if exc.code != "moved" or time.monotonic() > deadline:
                    raise
                fresh = True
            await asyncio.sleep(0.2)

    async def act(self, game_id: Any, user_id: int, action: str, *args: Any) -> int:
        async def attempt(rnd: Round | RemoteRound) -> int:
            if isinstance(rnd, Round):
                return await rnd.act_as(user_id, action, *args)
            reply = await self.call(
                rnd.lease,
                {"op": "act", "game": rnd.id, "user": user_id, "action": action,
                 "args": list(args)},
            )
            return int(reply["v"])

        result: int = await self._retrying(game_id, attempt)
        return result

    async def follow(self, game_id: Any, sub: Subscriber) -> Round | RemoteRound:
        """Subscribe ``sub``; its state message is queued to it before any later frame."""

        async def attempt(rnd: Round | RemoteRound) -> Round | RemoteRound:
            if isinstance(rnd, Round):
                sub.send_text(rnd.subscribe(sub))
                return rnd
            key = self.conn_key(sub)
            # Frames that come after the state (the owner sends them in that order) wait
            # here until the state has been queued to the connection.
            self._early[key] = []
            try:
                reply = await self.call(
                    rnd.lease, {"op": "sub", "game": rnd.id, "user": sub.user_id, "conn": key}
                )
            except BaseException:
                self._early.pop(key, None)
                raise
            remote = self.remotes.setdefault(rnd.id, rnd)
            remote.lease = rnd.lease
            remote.subscribers.add(sub)
            state = str(reply["frame"])
            sub.send_text(state)
            # Frames of this game that the state already holds (sent before it by the
            # owner, queued here while it was on its way) would be seen twice.
            held = _version(state, rnd.id)
            for text in self._early.pop(key, ()):
                version = _version(text, rnd.id)
                if held is None or version is None or version > held:
                    sub.send_text(text)
            self._conns[key] = sub
            return remote

        result: Round | RemoteRound = await self._retrying(game_id, attempt)
        return result

    async def _refollow(self, game_id: str, subs: list[Subscriber]) -> None:
        """Move ``subs`` (this node's connections) to whoever owns ``game_id`` now."""
        old = self.remotes.pop(game_id, None)
        for sub in subs:
            games = getattr(sub, "games", None)
            if games is None or game_id not in games:
                continue  # unsubscribed meanwhile
            if old is not None:
                old.subscribers.discard(sub)
            try:
                games[game_id] = await self.follow(game_id, sub)
            except GameError as exc:
                log.warning("game %s: could not follow its new owner: %s", game_id, exc.message)
                # Followed by nobody for now: the lease checks try again shortly.
                waiting = self.remotes.setdefault(game_id, RemoteRound(self, game_id, _NOBODY))
                waiting.subscribers.add(sub)
                games[game_id] = waiting

    def conn_key(self, sub: Subscriber) -> str:
        key = self._keys.get(sub)
        if key is None:
            key = self._keys[sub] = str(next(self._conn_ids))
        return key

    def forget_conn(self, sub: Subscriber, remote: RemoteRound) -> None:
        if not any(sub in other.subscribers for other in self.remotes.values()):
            key = self._keys.pop(sub, None)
            if key is not None:
                self._conns.pop(key, None)
        if not remote.subscribers and self.remotes.get(remote.id) is remote:
            del self.remotes[remote.id]

    # -- messages between nodes ----------------------------------------------------------

    def push(self, node: str, message: dict[str, Any]) -> None:
        """Send ``message`` to ``node``, after everything sent before it (never blocks)."""
        self._outbox.put_nowait((node_channel(node), orjson.dumps(message), None, None, None))

    def push_frame(self, node: str, conn: str, text: str) -> None:
        """Send the frame ``text`` to the connection ``conn`` of ``node``, as :meth:`push`."""
        self._outbox.put_nowait((node_channel(node), None, None, conn, text))

    async def _publish_loop(self) -> None:
        """The node's one publisher: messages leave in the order they were pushed, each
        tried again until Redis takes it (a restart of Redis loses none of them).

        Whatever has queued up meanwhile leaves together (:func:`bundle`): one publish
        for all that goes to each node, all publishes in one pipeline (one write and
        one read), not a round trip each, nor a message each for the receiving node
        to parse and dispatch: under load a node sends thousands of frames a second
        to the others. A pipeline cut off midway is sent again whole; the frames it
        repeats carry their plies and versions, which the pages use to drop what
        they already have (or to resync)."""
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < _MAX_PUBLISHED and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            while True:
                # A request whose asker gave up (timed out) is not sent late.
                batch = [item for item in batch if item[2] is None or not item[2].done()]
                if not batch:
                    break
                bundles = bundle(batch)
                try:
                    if len(bundles) == 1:
                        counts = [await self.redis.publish(bundles[0][0], bundles[0][1])]
                    else:
                        async with self.redis.pipeline(transaction=False) as pipe:
                            for channel, data, _ in bundles:
                                pipe.publish(channel, data)
                            counts = await pipe.execute()
                except (RedisError, OSError):
                    await asyncio.sleep(0.2)
                    continue
                for (_, _, futures), count in zip(bundles, counts, strict=True):
                    for listened in futures:
                        if not listened.done():
                            listened.set_result(int(count))
                break

    async def call(self, lease: Lease, request: dict[str, Any]) -> dict[str, Any]:
        """Ask the owner named by ``lease``; its reply, or :class:`_Unreachable` /
        :class:`_Moved`, or the owner's refusal raised as a :class:`ClubError`."""
        return await self.call_node(lease.node, {**request, "epoch": lease.epoch})

    async def call_node(self, node: str, request: dict[str, Any]) -> dict[str, Any]:
        """Ask ``node``: see :meth:`call`."""
        loop = asyncio.get_running_loop()
        call_id = next(self._call_ids)
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._calls[call_id] = future
        request.update(k="req", id=call_id)
        request["from"] = self.node
        listened: asyncio.Future[int] = loop.create_future()
        # One timer for the whole call (cheaper than a timeout scope: one call a move).
        expiry = loop.call_at(
            loop.time() + self.settings.forward_timeout_s, _expire, listened, future, node, request
        )
        try:
            # Sent by the publisher, with whatever else is leaving (one round trip for all).
            self._outbox.put_nowait(
                (node_channel(node), orjson.dumps(request), listened, None, None)
            )
            if not await listened:
                raise _Unreachable(node)  # not listening: dead or cut off
            reply = await future
        finally:
            expiry.cancel()
            listened.cancel()
            self._calls.pop(call_id, None)
        error = reply.get("error")
        if error == "moved":
            raise _Moved(request.get("game"))
        if error is not None:
            raise ClubError(str(error), str(reply.get("message")), int(reply.get("status", 409)))
        return reply

    async def call_quietly(self, lease: Lease, request: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self.call(lease, request)

    async def _listen(self, subscribed: asyncio.Future[None]) -> None:
        """Receive this node's channel and the club's; reconnect whenever Redis went away."""
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(node_channel(self.node), USERS_CHANNEL)
                if not subscribed.done():
                    subscribed.set_result(None)
                else:
                    log.info("node %s: back on Redis", self.node)
                    # Frames sent while away are lost: every followed game resyncs.
                    for game_id, remote in list(self.remotes.items()):
                        self.spawn(self._refollow(game_id, list(remote.subscribers)))
                # Blocking reads (a lost connection raises): no timer per message.
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        self._dispatch(message["channel"], message["data"])
                raise ConnectionError("the subscription ended")
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                raise
            except Exception as exc:
                log.warning("node %s: Redis subscription lost (%s); reconnecting", self.node, exc)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(0.5)

    def _dispatch(self, channel: bytes, data: bytes) -> None:
        """Hand on what came on this node's channel or the club's: a bundle of messages
        (see :func:`bundle`), each handled in order."""
        try:
            messages = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.warning("node %s: a message that is not JSON, ignored", self.node)
            return
        if not isinstance(messages, list):
            messages = [messages]
        club = channel == _USERS_CHANNEL_BYTES
        for message in messages:
            if not isinstance(message, dict):
                continue
            if club:
                self._dispatch_club(message)
                continue
            kind = message.get("k")
            if kind == "push":
                self._dispatch_frame(message.get("c"), message.get("x"))
            elif kind == "reply":
                future = self._calls.get(message.get("id"))  # type: ignore[arg-type]
                if future is not None and not future.done():
                    future.set_result(message)
            elif kind == "req":
                self.spawn(self._answer(message))

    def _dispatch_club(self, message: dict[str, Any]) -> None:
        user, body, ended = message.get("u"), message.get("m"), message.get("end")
        if isinstance(user, int) and isinstance(body, dict):
            self.connections.notify(user, body)
        elif isinstance(user, int) and isinstance(ended, str):
            self.connections.end_session(user, ended)

    def _dispatch_frame(self, conns: Any, text: Any) -> None:
        """The frame ``text`` for this node's connections ``conns`` (their keys)."""
        if not isinstance(text, str) or not isinstance(conns, list):
            return
        for key in conns:
            if not isinstance(key, str):
                continue
            early = self._early.get(key)
            if early is not None:
                early.append(text)
                continue
            sub = self._conns.get(key)
            if sub is not None:
                sub.send_text(text)

    async def _answer(self, request: dict[str, Any]) -> None:
        """Do what another node forwarded, if this node owns the game in the epoch named."""
        asker = request.get("from")
        if not isinstance(asker, str):
            return
        reply: dict[str, Any] = {"k": "reply", "id": request.get("id")}
        try:
            op = request.get("op")
            user = request.get("user")
            if op in ("accept-seek", "cancel-seek"):
                await self._answer_seek(op, request, reply)
                self.push(asker, reply)
                return
            rnd = self._owned(request)
            if op == "act":
                action, args = request.get("action"), request.get("args")
                if (
                    not isinstance(user, int)
                    or action not in PLAYER_ACTIONS
                    or not isinstance(args, list)
                ):
                    raise ClubError("bad-message", "a forwarded action that makes no sense")
                reply["v"] = await rnd.act_as(user, str(action), *args)
            elif op == "sub" and isinstance(user, int):
                key = (asker, str(request.get("conn")), rnd.id)
                old = self._remote_subs.get(key)
                sub = old[0] if old else RemoteSubscriber(self, asker, key[1], user)
                self._remote_subs[key] = (sub, rnd)
                reply["frame"] = rnd.subscribe(sub)
            elif op == "unsub":
                held = self._remote_subs.pop((asker, str(request.get("conn")), rnd.id), None)
                if held is not None:
                    held[1].unsubscribe(held[0])
            else:
                raise ClubError("bad-message", "a forwarded request that makes no sense")
        except _Moved:
            reply["error"] = "moved"
        except GameError as exc:
            reply.update(error=exc.code, message=exc.message, status=getattr(exc, "status", 409))
        except Exception:
            log.exception("node %s: a forwarded request failed", self.node)
            reply.update(error="unavailable", message="the game's server failed", status=503)
        self.push(asker, reply)

    async def _answer_seek(self, op: str, request: dict[str, Any], reply: dict[str, Any]) -> None:
        """Accept or cancel one of this node's seeks for a player on another node."""
        lobby = self.lobby
        who = request.get("who")
        if lobby is None or not isinstance(who, dict):
            raise ClubError("bad-message", "a forwarded request that makes no sense")
        rating = who.get("rating")
        if not (
            isinstance(who.get("id"), int)
            and isinstance(who.get("name"), str)
            and isinstance(who.get("guest"), bool)
            and isinstance(rating, list)
            and len(rating) == 3
            and all(isinstance(x, int | float) for x in rating)
        ):
            raise ClubError("bad-message", "a forwarded request that makes no sense")
        identity = Identity(who["id"], who["name"], who["guest"], Rating(*map(float, rating)))
        seek_id = str(request.get("seek"))
        if op == "accept-seek":
            reply["game"] = (await lobby.accept_seek(identity, seek_id)).id
        else:
            lobby.cancel_seek(identity, seek_id)

    def seek_node(self, seek_id: str) -> str | None:
        for found, node in self.remote_seeks():
            if found["id"] == seek_id:
                return node
        return None

    def remote_seeks(self) -> list[tuple[dict[str, Any], str]]:
        """The other nodes' seeks (as seen by nobody in particular) and their nodes."""
        return [
            (found, node)
            for node, share in self.shares.items()
            if node != self.node
            for found in share.get("seeks", ())
        ]

    async def _seek_call(self, op: str, identity: Identity, seek_id: str) -> dict[str, Any]:
        node = self.seek_node(seek_id)
        if node is None:
            raise ClubError("gone", "this seek is no longer open", 410)
        rating = identity.rating
        who = {
            "id": identity.user_id,
            "name": identity.name,
            "guest": identity.guest,
            "rating": [rating.rating, rating.rd, rating.volatility],
        }
        try:
            return await self.call_node(node, {"op": op, "seek": seek_id, "who": who})
        except (_Unreachable, _Moved):
            raise ClubError("gone", "this seek is no longer open", 410) from None

    async def accept_remote_seek(self, identity: Identity, seek_id: str) -> str:
        return str((await self._seek_call("accept-seek", identity, seek_id))["game"])

    async def cancel_remote_seek(self, identity: Identity, seek_id: str) -> None:
        await self._seek_call("cancel-seek", identity, seek_id)

    def _owned(self, request: dict[str, Any]) -> Round:
        """The round named by a forwarded request, which must be this node's in the epoch
        the asker read from the lease: anything else (forged, or stale) is refused."""
        game_id, epoch = request.get("game"), request.get("epoch")
        rnd = self.rounds.rounds.get(game_id) if isinstance(game_id, str) else None
        if rnd is None or rnd.owner_epoch is None or rnd.owner_epoch != epoch:
            log.info("node %s: refused a request for game %r in epoch %r", self.node,
                     game_id, epoch)
            raise _Moved(game_id)
        return rnd

    def end_session(self, user_id: int, session: str) -> None:
        """Close the sockets of one session of ``user_id`` (logged out) on every node."""
        self._outbox.put_nowait(
            (USERS_CHANNEL, orjson.dumps({"u": user_id, "end": session}), None, None, None)
        )

    def notify(self, user_id: int, message: dict[str, Any]) -> None:
        """Tell ``user_id``'s pages on every node."""
        self._outbox.put_nowait(
            (USERS_CHANNEL, orjson.dumps({"u": user_id, "m": message}), None, None, None)
        )

    # -- club-wide counts and lists ------------------------------------------------------

    async def _share_loop(self) -> None:
        """Every second: write this node's share of the club-wide counts, read everyone's;
        hand the seeks of dead nodes over (see :meth:`_orphan` and :meth:`_adopt`)."""
        while True:
            try:
                await self._share()
            except (RedisError, OSError):
                pass
            except Exception:
                log.exception("node %s: sharing the counts failed", self.node)
            await asyncio.sleep(1.0)

    def _my_share(self) -> dict[str, Any]:
        seeks = list(self.lobby.seeks.values()) if self.lobby else []
        return {
            "users": list(self.connections.by_user),
            "playing": len(self.rounds.live_rounds()),
            "watchable": [rnd.summary_json() for rnd in self.rounds.watchable_rounds()],
            "seeks": [seek.to_json() for seek in seeks],
            "records": [seek_record(seek) for seek in seeks],
            "at": now_ms(),
        }

    async def _share(self) -> None:
        mine = self._my_share()
        written = orjson.dumps(mine)
        declared_dead = await self._write_share(keys=[NODES_KEY], args=[self.node, written])
        if declared_dead and self.lobby is not None and self.lobby.seeks:
            # This node stalled so long that another took it for dead and handed its
            # seeks over: they are no longer this node's.
            log.warning("node %s was taken for dead: its seeks were handed over", self.node)
            self.lobby.seeks.clear()
            self.lobby.changed()
            mine = self._my_share()
            written = orjson.dumps(mine)
            await self.redis.hset(NODES_KEY, self.node, written)
        raw = await self.redis.hgetall(NODES_KEY)
        now = now_ms()
        fresh = now - 3 * max(1000, self.lease_ms)
        shares = {}
        for key, data in raw.items():
            node = key.decode() if isinstance(key, bytes) else key
            # This node's own share, as just written, needs no parsing.
            value = mine if node == self.node and data == written else orjson.loads(data)
            if value.get("dead"):
                if value.get("at", 0) < now - _TOMBSTONE_MS:
                    await self.redis.hdel(NODES_KEY, node)
            elif value.get("at", 0) >= fresh:
                shares[node] = value
            elif node != self.node:
                await self._orphan(node, data, value)
        await self._adopt(now)
        # The lobby is told only when something it shows changed (not the times).
        changed = _without_times(shares) != _without_times(self.shares)
        self.shares = shares
        if changed:
            self.on_shares()

    async def _orphan(self, node: str, data: bytes | str, share: dict[str, Any]) -> None:
        """``node`` has not shared anything for a while (dead, or stalled): its share is
        replaced by a tombstone and its seeks are left for the nodes that their
        players' pages reconnect to, by the one node that made the tombstone."""
        tombstone = orjson.dumps({"dead": True, "at": now_ms()})
        if not await self._bury(keys=[NODES_KEY], args=[node, data, tombstone]):
            return  # changed meanwhile, or buried by another node
        records = share.get("records") or []
        if records:
            log.info("node %s: %d seek(s) of dead node %s handed over", self.node,
                     len(records), node)
            await self.redis.hset(
                ORPHANS_KEY,
                mapping={
                    str(record.get("id")): orjson.dumps({**record, "orphaned_at": now_ms()})
                    for record in records
                },
            )

    async def _adopt(self, now: int) -> None:
        """Take over the orphaned seeks of players connected to this node; forget those
        whose players did not come back in time (as if their page had closed)."""
        orphans = await self.redis.hgetall(ORPHANS_KEY)
        for key, data in orphans.items():
            try:
                record = orjson.loads(data)
                seek = seek_of_record(record)
            except (orjson.JSONDecodeError, ValueError):
                await self.redis.hdel(ORPHANS_KEY, key)
                continue
            if seek.seat.user_id in self.connections.by_user:
                # HDEL answers 1 to one node only: that one holds the seek from now on.
                if await self.redis.hdel(ORPHANS_KEY, key) and self.lobby is not None:
                    self.lobby.adopt(seek)
            elif int(record.get("orphaned_at", 0)) < now - _ORPHAN_GRACE_MS:
                await self.redis.hdel(ORPHANS_KEY, key)

    def online_users(self) -> set[int]:
        """The users with a page open on any node (the others' as last shared)."""
        users: set[int] = set(self.connections.by_user)
        for node, share in self.shares.items():
            if node != self.node:
                users.update(share.get("users", ()))
        return users

    def online_count(self) -> int:
        return len(self.online_users())

    def playing_count(self) -> int:
        others = sum(int(s.get("playing", 0)) for n, s in self.shares.items() if n != self.node)
        return others + len(self.rounds.live_rounds())

    def watchable(self) -> list[dict[str, Any]]:
        mine = [rnd.summary_json() for rnd in self.rounds.watchable_rounds()]
        for node, share in self.shares.items():
            if node != self.node:
                mine.extend(share.get("watchable", ()))
        return mine
