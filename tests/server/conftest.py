"""Fixtures for the club's tests: the real app on SQLite and on PostgreSQL, browsers, sockets.

Every test that takes ``club`` runs twice: on a fresh SQLite file and on a
fresh PostgreSQL schema inside a database created for this test session
(``gameclub_test_<random>``, dropped at the end). When PostgreSQL cannot be
reached, the PostgreSQL pass is skipped with a message saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Any

import anyio
import psycopg
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gameclub.server.app import create_app
from gameclub.server.settings import Settings

PG_ADMIN_URL = os.environ.get("GAMECLUB_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

# Cheap hashing keeps the tests fast; production uses argon2-cffi's defaults.
TEST_SETTINGS = Settings(
    argon2_time_cost=1, argon2_memory_kib=1024, argon2_parallelism=1, ai_workers=1
)


def _pg_connect(url: str) -> psycopg.Connection[Any]:
    return psycopg.connect(url, connect_timeout=3, autocommit=True)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this session; its URL (without driver)."""
    try:
        admin = _pg_connect(PG_ADMIN_URL)
    except psycopg.Error as exc:
        pytest.skip(
            f"PostgreSQL not reachable at {PG_ADMIN_URL} ({exc}); skipping the PostgreSQL pass"
        )
    name = f"gameclub_test_{secrets.token_hex(4)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with _pg_connect(PG_ADMIN_URL) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/gameclub.db"
    database: str = request.getfixturevalue("pg_database")
    # A schema per test: as fresh as a new database, much cheaper to make.
    schema = f"t_{secrets.token_hex(6)}"
    with _pg_connect(database) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return f"{database}?options=-csearch_path%3D{schema}"


@pytest.fixture(scope="session")
def ai_executor() -> Iterator[ProcessPoolExecutor]:
    """One engine worker process for the whole session (spawning one per app is slow)."""
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    yield pool
    pool.shutdown(cancel_futures=True)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return replace(TEST_SETTINGS, database_url=database_url)


def first_move(state: dict[str, Any]) -> str:
    """The first legal move of a state, from its destination hints."""
    for src, dests in sorted(state["dests"].items()):
        if dests["clone"]:
            return str(dests["clone"][0])
        if dests["jump"]:
            return src + dests["jump"][0]
    raise AssertionError("no move in dests")


def invite_and_accept(host: Any, guest: Any, **fields: Any) -> str:
    """``host`` invites by link (playing x), ``guest`` accepts: the new game's id."""
    response = host.post("/api/invitations", {"to": None, "color": "x", **fields})
    assert response.status_code == 201, response.text
    invitation = response.json()["invitation"]
    response = guest.post(f"/api/invitations/{invitation['id']}/accept")
    assert response.status_code == 201, response.text
    game: str = response.json()["game"]
    return game


@pytest.fixture(name="first_move")
def first_move_fixture() -> Callable[[dict[str, Any]], str]:
    return first_move


#: Fields of a ``delta`` that replace the state's field of the same name.
DELTA_FIELDS = (
    "fen",
    "turn",
    "counts",
    "dests",
    "clocks",
    "draw_offer",
    "takeback_offer",
    "abortable",
    "claim_at",
)


#: The same for an Awele game (docs/protocol.md, "Awele").
AWELE_DELTA_FIELDS = (
    "position",
    "pits",
    "stores",
    "turn",
    "legal",
    "clocks",
    "draw_offer",
    "takeback_offer",
    "abortable",
    "claim_at",
)


def cells_of_fen(fen: str) -> list[str]:
    """The ``cells`` rows of a FEN's board field (written here, not taken from the server)."""
    rows = []
    for rank in fen.split(" ", 1)[0].split("/"):
        row = ""
        for char in rank:
            row += "." * int(char) if char.isdigit() else "#" if char == "-" else char
        rows.append(row)
    return rows


def apply_delta(state: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any] | None:
    """The state after ``delta``, built the way the browser builds it (docs/protocol.md).

    ``None`` when the delta does not follow ``state`` (a version gap, or moves
    that do not line up): a client then resyncs with ``sub``.
    """
    if delta["game"] != state["game"] or delta["v"] != state["v"] + 1:
        return None
    if delta["ply"] != len(state["moves"]) or not delta["plies"]:
        return None
    new = dict(state)
    new["v"] = delta["v"]
    new["moves"] = state["moves"] + [ply["move"] for ply in delta["plies"]]
    new["last"] = delta["plies"][-1]
    awele = state.get("kind") == "awele"
    for name in AWELE_DELTA_FIELDS if awele else DELTA_FIELDS:
        new[name] = delta[name]
    if not awele:
        new["cells"] = cells_of_fen(delta["fen"])
    if state["hotseat"] and state["you"] is not None:
        new["you"] = delta["turn"]
    return new


@pytest.fixture(name="apply_delta")
def apply_delta_fixture() -> Callable[[dict[str, Any], dict[str, Any]], dict[str, Any] | None]:
    return apply_delta


class Browser:
    """One person's browser: its own cookies, the CSRF token, helpers for the API."""

    def __init__(self, client: TestClient, sockets: list[Socket] | None = None) -> None:
        self.client = client
        self.sockets = sockets if sockets is not None else []
        self.first_response = self.get("/api/me")
        me = self.first_response.json()
        self.user: dict[str, Any] = me["user"]
        self.csrf: str = me["csrf"]

    def refresh(self) -> dict[str, Any]:
        me = self.get("/api/me").json()
        self.user, self.csrf = me["user"], me["csrf"]
        return me

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.client.get(path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.client.post(path, json=json, headers=headers, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        headers = {"X-CSRF-Token": self.csrf, **kwargs.pop("headers", {})}
        return self.client.delete(path, headers=headers, **kwargs)

    def sign_up(self, name: str, password: str = "correct horse battery") -> dict[str, Any]:
        response = self.post("/api/signup", {"name": name, "password": password})
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        self.user, self.csrf = body["user"], body["csrf"]
        return body

    def watch(self, game: str) -> tuple[Socket, dict[str, Any]]:
        """A new socket subscribed to ``game``, and the state it was sent."""
        ws = self.socket()
        ws.send({"t": "sub", "game": game})
        return ws, ws.state(game)

    def socket(self) -> Socket:
        socket = Socket(self.client.websocket_connect("/ws").__enter__())
        self.sockets.append(socket)
        return socket


class Socket:
    """A WebSocket test session with timeouts, so a missing message fails instead of hanging.

    Like the browser, it keeps the last state of each game it follows and
    applies every ``delta`` to it: :meth:`expect` offers a predicate each
    message as it came and, after a delta, the full state rebuilt from it
    (a ``state`` message). A delta that does not follow the state held is
    recorded in ``gaps`` (and never turned into a state).
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        self.closed = False
        self.states: dict[str, dict[str, Any]] = {}
        self.awaiting_sub: set[str] = set()
        self.gaps: list[dict[str, Any]] = []
        self.welcome = self.receive()
        assert self.welcome["t"] == "welcome", self.welcome

    def send(self, message: dict[str, Any]) -> None:
        if message.get("t") == "sub" and isinstance(message.get("game"), str):
            self.awaiting_sub.add(message["game"])
        self.session.send_json(message)

    def send_text(self, text: str) -> None:
        self.session.send_text(text)

    def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        import json

        async def next_message() -> Any:
            with anyio.fail_after(timeout):
                return await self.session._send_rx.receive()

        message = self.session.portal.call(next_message)
        if message["type"] == "websocket.close":
            raise WebSocketDisconnect(message.get("code", 1000))
        text = message.get("text")
        data: dict[str, Any] = json.loads(text if text is not None else message["bytes"])
        return data

    def follow(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Keep the state of ``message``'s game; after a delta, the state rebuilt from it."""
        game = message.get("game")
        if message["t"] == "state":
            held = self.states.get(game)  # type: ignore[arg-type]
            # Like the browser: the answer to a sub is always taken, a broadcast if newer.
            if game in self.awaiting_sub or held is None or message["v"] > held["v"]:
                self.awaiting_sub.discard(game)  # type: ignore[arg-type]
                self.states[game] = message  # type: ignore[index]
            return None
        if message["t"] == "presence" and game in self.states:
            # Folded into the state held, as the browser does.
            held = self.states[game]  # type: ignore[index]
            players = {
                color: {**player, "online": message["online"][color]}
                for color, player in held["players"].items()
            }
            self.states[game] = {  # type: ignore[index]
                **held,
                "spectators": message["spectators"],
                "claim_at": message["claim_at"],
                "players": players,
            }
            return None
        if message["t"] != "delta":
            return None
        held = self.states.get(game)  # type: ignore[arg-type]
        if held is None or game in self.awaiting_sub or message["v"] <= held["v"]:
            return None  # not followed yet, or older than the state held
        state = apply_delta(held, message)
        if state is None:
            self.gaps.append(message)
            return None
        self.states[game] = state  # type: ignore[index]
        return state

    def expect(
        self, predicate: Callable[[dict[str, Any]], bool], limit: int = 200, timeout: float = 10.0
    ) -> dict[str, Any]:
        """Read messages until one satisfies ``predicate``; an unexpected error fails.

        After a ``delta``, the state it leads to is offered to ``predicate`` too.
        """
        for _ in range(limit):
            message = self.receive(timeout)
            rebuilt = self.follow(message)
            if predicate(message):
                return message
            if rebuilt is not None and predicate(rebuilt):
                return rebuilt
            assert message["t"] != "error", f"unexpected error: {message}"
        raise AssertionError("expected message did not come")

    def expect_type(self, kind: str, **fields: Any) -> dict[str, Any]:
        return self.expect(
            lambda m: m["t"] == kind and all(m.get(k) == v for k, v in fields.items())
        )

    def state(self, game: str, *, min_v: int = 0) -> dict[str, Any]:
        return self.expect(lambda m: m["t"] == "state" and m["game"] == game and m["v"] >= min_v)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.session.__exit__(None, None, None)


class Club:
    """The running app with helpers to open more browsers on the same event loop."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.app = client.app
        self.sockets: list[Socket] = []
        self.stopped = False

    def browser(
        self, address: str = "testclient", headers: dict[str, str] | None = None
    ) -> Browser:
        """A new browser; ``address`` is the client address the app sees (the peer)."""
        client = TestClient(
            self.app, base_url="http://testserver", client=(address, 50000), headers=headers
        )
        # Share the running app's event loop (its lifespan's portal).
        client.portal = self.client.portal
        return Browser(client, self.sockets)

    def close_sockets(self) -> None:
        for socket in self.sockets:
            with contextlib.suppress(Exception):
                socket.close()

    def stop(self) -> None:
        """Close every socket and shut the app down (its lifespan ends)."""
        if not self.stopped:
            self.stopped = True
            self.close_sockets()
            self.client.__exit__(None, None, None)


@pytest.fixture
def make_club(ai_executor: ProcessPoolExecutor) -> Iterator[Callable[[Settings], Club]]:
    """Start the app with given settings; stopped (lifespan shutdown) after the test."""
    clubs: list[Club] = []

    def start(settings: Settings) -> Club:
        client = TestClient(create_app(settings, ai_executor=ai_executor))
        client.__enter__()
        clubs.append(Club(client))
        return clubs[-1]

    yield start
    for club in reversed(clubs):
        club.stop()


@pytest.fixture
def club(make_club: Callable[[Settings], Club], settings: Settings) -> Club:
    return make_club(settings)


def run_in_own_loop(coroutine: Any) -> None:
    """Run ``coroutine`` on a fresh event loop in its own thread.

    The browser tests' sync Playwright leaves an event loop running in the main
    thread, where ``asyncio.run`` refuses to start.
    """
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
