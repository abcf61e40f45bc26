"""The WebSocket protocol: JSON messages, per-connection budgets, subscriptions, acks.

One socket per browser page (``/ws``), authenticated by the session cookie.
Each incoming frame is checked (size, JSON, type, fields, budget) before it
reaches a :class:`~gameclub.server.round.Round`; every refusal is an ``error``
message and changes nothing. Outgoing frames go through a per-connection
queue drained by its own task, so one slow browser never holds up a game's
other subscribers. The messages are documented in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import DBAPIError
from starlette.websockets import WebSocket, WebSocketDisconnect

from gameclub.games import GameError
from gameclub.server import jsontext
from gameclub.server.accounts import SESSION_COOKIE, Identity
from gameclub.server.clock import now_ms
from gameclub.server.errors import ClubError

if TYPE_CHECKING:
    from gameclub.server.club import Club
    from gameclub.server.round import Followed

log = logging.getLogger(__name__)

#: what handles one kind of client message.
Handler = Callable[["Connection", dict[str, Any]], Awaitable[None]]

#: Frames waiting for a slow client beyond this close its connection.
MAX_QUEUED = 2000
#: WebSocket close code for a policy violation (over budget, bad origin).
POLICY_VIOLATION = 1008
#: WebSocket close code when the connection's session ended (logout, expiry).
SESSION_ENDED = 4001


class Connection:
    """One open socket: who it is, what it watches, its budget and its outbox."""

    def __init__(self, websocket: WebSocket, identity: Identity, club: Club) -> None:
        self.websocket = websocket
        self.identity = identity
        self.user_id = identity.user_id
        self.club = club
        settings = club.settings
        self.tokens = float(settings.ws_burst)
        self.refilled = time.monotonic()
        self.overdraft = 0
        #: The games followed: rounds, or stand-ins for rounds owned by other nodes.
        self.games: dict[str, Followed] = {}
        self.in_lobby = False
        self.session = identity.token_hash
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.closing = False
        self.close_code = POLICY_VIOLATION

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def send_text(self, text: str) -> None:
        if self.closing:
            return
        if self.outbox.qsize() >= MAX_QUEUED:
            log.warning("closing connection of user %s: %d frames unsent", self.user_id, MAX_QUEUED)
            self.closing = True
            self.outbox.put_nowait(None)
            return
        self.outbox.put_nowait(text)

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(jsontext.dumps(message))

    def end_session(self) -> None:
        """The session behind this socket is over: say so, close, act on nothing more."""
        if self.closing:
            return
        self.send(
            {"t": "error", "code": "session-ended", "message": "this session has ended: reconnect"}
        )
        self.closing = True
        self.close_code = SESSION_ENDED
        self.outbox.put_nowait(None)

    async def writer(self) -> None:
        try:
            while True:
                text = await self.outbox.get()
                if text is None:
                    self.closing = True
                    await self.websocket.close(self.close_code)
                    return
                await self.websocket.send_text(text)
        except Exception:
            # The socket went away under us; the reader sees the disconnect.
            self.closing = True

    def spend(self) -> bool:
        """Take one message from the budget (a token bucket); ``False`` when over it."""
        settings = self.club.settings
        now = time.monotonic()
        self.tokens = min(
            float(settings.ws_burst), self.tokens + (now - self.refilled) * settings.ws_rate_per_s
        )
        self.refilled = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.overdraft += 1
        return False


class Connections:
    """Open connections by user: presence counts and messages to a user's every page."""

    def __init__(self) -> None:
        self.by_user: dict[int, set[Connection]] = defaultdict(set)
        self.on_change: list[Any] = []

    def add(self, conn: Connection) -> None:
        self.by_user[conn.user_id].add(conn)

    def remove(self, conn: Connection) -> bool:
        """Forget ``conn``; ``True`` if it was its user's last connection."""
        conns = self.by_user.get(conn.user_id)
        if conns is None:
            return False
        conns.discard(conn)
        if not conns:
            del self.by_user[conn.user_id]
            return True
        return False

    def end_session(self, user_id: int, session: str) -> None:
        """Close the connections of one session of ``user_id`` (logged out, expired)."""
        for conn in list(self.by_user.get(user_id, ())):
            if conn.session == session:
                conn.end_session()

    def online_count(self) -> int:
        return len(self.by_user)

    def notify(self, user_id: int, message: dict[str, Any]) -> None:
        conns = self.by_user.get(user_id)
        if conns:
            text = jsontext.dumps(message)
            for conn in list(conns):
                conn.send_text(text)


def _origin_ok(websocket: WebSocket) -> bool:
    """Refuse cross-site sockets (a page elsewhere cannot ride on our cookie)."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser (benchmarks, command-line clients)
    host = websocket.headers.get("host", "")
    return origin.split("://", 1)[-1].rstrip("/") == host


async def websocket_endpoint(websocket: WebSocket) -> None:
    club: Club = websocket.app.state.club
    if not _origin_ok(websocket):
        await websocket.close(POLICY_VIOLATION)
        return
    identity = await club.accounts.resolve(websocket.cookies.get(SESSION_COOKIE))
    if identity is None:
        # No session: the page must call GET /api/me first (it sets the cookie).
        await websocket.accept()
        await websocket.send_text(
            jsontext.dumps(
                {"t": "error", "code": "not-logged-in", "message": "no session: load /api/me first"}
            )
        )
        await websocket.close(POLICY_VIOLATION)
        return
    await websocket.accept()
    limit = club.settings.max_sockets_per_user
    if len(club.connections.by_user.get(identity.user_id, ())) >= limit:
        await websocket.send_text(
            jsontext.dumps(
                {
                    "t": "error",
                    "code": "too-many-sockets",
                    "message": f"at most {limit} open pages per player: close some",
                }
            )
        )
        await websocket.close(POLICY_VIOLATION)
        return
    conn = Connection(websocket, identity, club)
    club.connections.add(conn)
    club.lobby.changed()
    writer = asyncio.ensure_future(conn.writer())
    conn.send({"t": "welcome", "user": identity.to_json(), "now": now_ms()})
    expiry = (
        asyncio.get_running_loop().call_later(
            max(0.0, (identity.expires_at - now_ms()) / 1000), conn.end_session
        )
        if identity.expires_at
        else None
    )
    try:
        await _read_loop(conn)
    except WebSocketDisconnect:
        pass
    finally:
        if expiry is not None:
            expiry.cancel()
        if conn.closing:
            # Let the writer send what is queued and the close frame.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=2.0)
        writer.cancel()
        for rnd in conn.games.values():
            rnd.unsubscribe(conn)
        conn.games.clear()
        club.lobby.subscribers.discard(conn)
        if club.connections.remove(conn):
            club.lobby.drop_seeks_of(conn.user_id)
        club.lobby.changed()


async def _read_loop(conn: Connection) -> None:
    websocket = conn.websocket
    settings = conn.club.settings
    while not conn.closing:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect" or conn.closing:
            return
        # Every frame, text or binary, well-formed or not, is charged first:
        # nothing a client sends is answered for free.
        if not conn.spend():
            if conn.overdraft > settings.ws_close_after_overdraft:
                conn.closing = True
                conn.outbox.put_nowait(None)
                return
            conn.send(
                {"t": "error", "code": "rate-limited", "message": "too many messages: slow down"}
            )
            continue
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > settings.ws_max_message_bytes:
                text = None
            else:
                try:
                    text = data.decode()
                except UnicodeDecodeError:
                    conn.send(
                        {"t": "error", "code": "bad-json", "message": "frames are UTF-8 JSON"}
                    )
                    continue
        if text is None or len(text) > settings.ws_max_message_bytes:
            conn.send(
                {
                    "t": "error",
                    "code": "too-large",
                    "message": f"messages are at most {settings.ws_max_message_bytes} bytes",
                }
            )
            continue
        await handle_text(conn, text)


async def handle_text(conn: Connection, text: str) -> None:
    try:
        data = jsontext.loads(text)
    except jsontext.BadJSON as exc:
        code = "bad-json" if exc.field is None else "bad-field"
        conn.send({"t": "error", "code": code, "message": f"the message is {exc.message}"})
        return
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        conn.send(
            {
                "t": "error",
                "code": "bad-message",
                "message": 'a message is a JSON object with a type "t"',
            }
        )
        return
    msg_id = data.get("id")
    if msg_id is not None and not (
        (isinstance(msg_id, int) and not isinstance(msg_id, bool))
        or (isinstance(msg_id, str) and len(msg_id) <= 64)
    ):
        conn.send(
            {
                "t": "error",
                "code": "bad-field",
                "message": "id must be an integer or a short string",
            }
        )
        return
    kind = data["t"]
    handler = HANDLERS.get(kind)
    if handler is None:
        conn.send(
            {
                "t": "error",
                "id": msg_id,
                "code": "unknown-type",
                "message": f"unknown message type {kind[:40]!r}",
            }
        )
        return
    try:
        await handler(conn, data)
    except GameError as exc:  # a ClubError, or a refusal of the game's rules
        reply: dict[str, Any] = {
            "t": "error",
            "id": msg_id,
            "code": exc.code,
            "message": exc.message,
        }
        if isinstance(data.get("game"), str):
            reply["game"] = data["game"][:16]
        conn.send(reply)
    except DBAPIError:
        # The database went away under a read (a write says so itself): the socket stays.
        log.exception("a %s message failed on the database", kind[:20])
        conn.send(
            {
                "t": "error",
                "id": msg_id,
                "code": "unavailable",
                "message": "the club's database is not answering: try again in a moment",
            }
        )


def _ack(conn: Connection, data: dict[str, Any], version: int) -> None:
    conn.send({"t": "ack", "id": data.get("id"), "game": data.get("game"), "v": version})


async def on_sub(conn: Connection, data: dict[str, Any]) -> None:
    game_id = data.get("game")
    if not (isinstance(game_id, str) and game_id in conn.games) and len(conn.games) >= 16:
        # Only a game that exists counts: the round's own refusal comes first.
        await conn.club.rounds.read(game_id)
        raise ClubError("not-allowed", "a connection may follow at most 16 games")
    # Wherever the game is owned (several nodes): its state is queued to us first.
    rnd = await conn.club.rounds.follow(game_id, conn)
    conn.games[rnd.id] = rnd


async def on_unsub(conn: Connection, data: dict[str, Any]) -> None:
    rnd = conn.games.pop(str(data.get("game")), None)
    if rnd is not None:
        rnd.unsubscribe(conn)


async def on_lobby(conn: Connection, data: dict[str, Any]) -> None:
    lobby = conn.club.lobby
    lobby.subscribers.add(conn)
    conn.send({"t": "lobby", **lobby.to_json(conn.user_id)})


async def on_unlobby(conn: Connection, data: dict[str, Any]) -> None:
    conn.club.lobby.subscribers.discard(conn)


async def on_move(conn: Connection, data: dict[str, Any]) -> None:
    # Acknowledged once stored, by whichever node owns the game (see Rounds.act).
    version = await conn.club.rounds.act(
        data.get("game"), conn.user_id, "play", data.get("move"), data.get("ply")
    )
    _ack(conn, data, version)


def _player_action(method: str) -> Handler:
    """A handler for a player's action on a game (resign, offer a draw, ...): the
    ``Round`` method of that name, for the sender's colour, acknowledged with the
    game's new version (a spectator or a stranger gets the round's error)."""

    async def handler(conn: Connection, data: dict[str, Any]) -> None:
        _ack(conn, data, await conn.club.rounds.act(data.get("game"), conn.user_id, method))

    handler.__name__ = f"on_{method}"
    return handler


async def on_ping(conn: Connection, data: dict[str, Any]) -> None:
    conn.send({"t": "pong", "id": data.get("id"), "now": now_ms()})


HANDLERS: dict[str, Handler] = {
    "sub": on_sub,
    "unsub": on_unsub,
    "lobby": on_lobby,
    "unlobby": on_unlobby,
    "move": on_move,
    "ping": on_ping,
    **{
        kind: _player_action(kind.replace("-", "_"))
        for kind in ("resign", "draw", "draw-decline", "abort", "claim", "rematch",
                     "rematch-decline", "takeback", "takeback-decline")
    },
}
