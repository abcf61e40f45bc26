"""A club of several nodes under faults: real node processes, a real PostgreSQL, a
private ``redis-server`` per test, real HTTP and WebSocket clients.

Each test starts its nodes (``python -m gameclub serve --redis-url ...``) on free
ports against a database made for this module, with leases short enough for
takeovers to take a second or two (``GAMECLUB_LEASE_SECONDS``), and then kills,
pauses or cuts off what its fault is about. docs/server.md, "Several nodes",
says what each promise below is.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import psycopg
import pytest
import redis
from sqlalchemy import text
from websockets.sync.client import connect

from gameclub.server.settings import Settings
from gameclub.server.store import games as store
from gameclub.server.store.db import Database

from .conftest import PG_ADMIN_URL, apply_delta, first_move, run_in_own_loop

pytestmark = pytest.mark.postgres

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
#: Short enough for quick takeovers, long enough for a busy test machine (where a
#: node's event loop may not run for a second) not to lose leases by itself.
LEASE_S = 4.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this module (dropped after it)."""
    try:
        admin = psycopg.connect(PG_ADMIN_URL, connect_timeout=3, autocommit=True)
    except psycopg.Error as exc:
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL} ({exc})")
    name = f"gameclub_nodes_{secrets.token_hex(4)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Redis:
    """A private ``redis-server`` (no persistence) that the test may kill and restart."""

    def __init__(self, tmp_path: Path) -> None:
        if not os.path.exists(REDIS_SERVER):
            pytest.skip("redis-server is not installed")
        self.port = free_port()
        self.tmp_path = tmp_path
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--bind", "127.0.0.1"],
            cwd=self.tmp_path,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(
                ("127.0.0.1", self.port), timeout=0.5
            ) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)


class Node:
    """One node of the club: ``python -m gameclub serve`` in a child process."""

    def __init__(
        self,
        name: str,
        database_url: str,
        redis_url: str,
        tmp_path: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.port = free_port()
        self.log_path = tmp_path / f"{name}-{time.monotonic_ns()}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115
        env = {
            **os.environ,
            "GAMECLUB_NODE_ID": name,
            "GAMECLUB_LEASE_SECONDS": str(LEASE_S),
            "GAMECLUB_FORWARD_TIMEOUT_SECONDS": "2",
            "GAMECLUB_AI_WORKERS": "1",
            **(env or {}),
        }
        env.pop("GAMECLUB_REDIS_URL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gameclub", "serve", "--port", str(self.port),
             "--database-url", database_url, "--redis-url", redis_url],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"node {self.name} did not start:\n{self.output()}")
            time.sleep(0.2)

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def signal(self, sig: int) -> None:
        self.process.send_signal(sig)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Redis]:
    server = Redis(tmp_path)
    yield server
    with contextlib.suppress(Exception):
        server.kill()


@pytest.fixture
def start_nodes(
    pg_url: str, redis_server: Redis, tmp_path: Path
) -> Iterator[Callable[..., list[Node]]]:
    started: list[Node] = []

    def start(
        count: int, database_url: str | None = None, env: dict[str, str] | None = None
    ) -> list[Node]:
        nodes = [
            Node(f"node{len(started) + i + 1}", database_url or pg_url, redis_server.url,
                 tmp_path, env)
            for i in range(count)
        ]
        started.extend(nodes)
        for node in nodes:
            node.wait_ready()
        return nodes

    yield start
    for node in started:
        with contextlib.suppress(Exception):
            node.signal(signal.SIGCONT)
        node.kill()


class Player:
    """A browser: its session (valid on every node), one socket, the game as it follows it."""

    def __init__(self, node: Node) -> None:
        self.http = httpx.Client(base_url=node.url, timeout=15)
        me = self.http.get("/api/me").json()
        self.id: int = me["user"]["id"]
        self.csrf = me["csrf"]
        self.token = self.http.cookies["gc_session"]
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        #: The moves of every state this player saw, in order (``(v, moves)``).
        self.seen: list[tuple[int, list[str]]] = []
        self.received: list[str] = []

    def another_page(self) -> Player:
        """A second page of the same browser (the same session), not yet connected."""
        page = Player.__new__(Player)
        page.http, page.id, page.csrf, page.token = self.http, self.id, self.csrf, self.token
        page.ws, page.state, page.seen, page.received = None, None, [], []
        return page

    def post(self, node: Node, path: str, body: Any = None) -> Any:
        response = self.http.post(
            f"{node.url}{path}", json=body, headers={"X-CSRF-Token": self.csrf}
        )
        assert response.status_code < 300, response.text
        return response.json()

    def get(self, node: Node, path: str) -> Any:
        return self.http.get(f"{node.url}{path}").json()

    def connect(self, node: Node) -> None:
        self.close()
        self.ws = connect(
            f"ws://127.0.0.1:{node.port}/ws",
            additional_headers={"Cookie": f"gc_session={self.token}"},
        ).__enter__()
        assert json.loads(self.ws.recv(timeout=10))["t"] == "welcome"

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
            self.ws = None

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def expect(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                message: dict[str, Any] = json.loads(self.ws.recv(timeout=left))
            except TimeoutError:
                raise AssertionError(
                    f"message not received; the last: {self.received[-4:]}"
                ) from None
            self.received.append(str(message)[:300])
            if message["t"] == "state":
                self.state = message
            elif message["t"] == "delta" and self.state is not None:
                rebuilt = apply_delta(self.state, message)
                assert rebuilt is not None, f"a delta that does not follow: {message}"
                self.state = message = rebuilt
            if message["t"] == "state":
                self.seen.append((message["v"], list(message["moves"])))
            if predicate(message):
                return message

    def sub(self, game: str, v: int = 0) -> dict[str, Any]:
        self.send({"t": "sub", "game": game, "v": v})
        return self.expect(lambda m: m["t"] == "state" and m["game"] == game)

    def move(self, game: str, ply: int, move: str | None = None) -> dict[str, Any]:
        """Play ``move`` (default: the first legal one) as ``ply``; the ack or the error."""
        assert self.state is not None
        move = move or first_move(self.state)
        tag = f"{ply}-{secrets.token_hex(2)}"
        self.send({"t": "move", "game": game, "move": move, "ply": ply, "id": tag})
        return self.expect(lambda m: m["t"] in ("ack", "error") and m.get("id") == tag)

    def play(self, game: str, ply: int) -> str:
        """Play the first legal move as ``ply`` and wait for its ack and its state."""
        assert self.state is not None
        move = first_move(self.state)
        reply = self.move(game, ply, move)
        assert reply["t"] == "ack", reply
        self.wait_plies(ply + 1)
        return move

    def wait_plies(self, plies: int) -> dict[str, Any]:
        """The game's state once it has ``plies`` moves (maybe seen already)."""
        if self.state is None or len(self.state["moves"]) < plies:
            self.expect(lambda m: m["t"] == "state" and len(m["moves"]) >= plies)
        assert self.state is not None
        return self.state


def another_move(state: dict[str, Any]) -> str:
    """A legal move other than :func:`first_move`'s (a jump of the last piece that has one)."""
    for src, dests in sorted(state["dests"].items(), reverse=True):
        if dests["jump"]:
            return src + dests["jump"][-1]
    raise AssertionError("no jump in dests")


def new_game(host: Player, guest: Player, node: Node, clock: int | None = 120) -> str:
    """``host`` (x) invites ``guest``, who accepts on ``node`` (which then owns the game)."""
    fields: dict[str, Any] = {"color": "x"}
    if clock is not None:
        fields["clock"] = {"base": clock, "increment": 0}
    invitation = host.post(node, "/api/invitations", fields)["invitation"]["id"]
    return str(guest.post(node, f"/api/invitations/{invitation}/accept")["game"])


def stored_moves(pg_url: str, game: str) -> list[str]:
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT uci FROM moves WHERE game_id = %s ORDER BY ply", (game,)
        ).fetchall()
    return [row[0] for row in rows]


def owner_epoch(pg_url: str, game: str) -> int:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT owner_epoch FROM games WHERE id = %s", (game,)).fetchone()
    assert row is not None
    return int(row[0])


def alternate(players: tuple[Player, Player], game: str, plies: range) -> list[str]:
    """x and o play the first legal move in turn (ply 0 is x's)."""
    moves = []
    for ply in plies:
        mover, other = players[ply % 2], players[1 - ply % 2]
        moves.append(mover.play(game, ply))
        other.wait_plies(ply + 1)
    return moves


# -- the tests ---------------------------------------------------------------------------


def test_kill_9_of_the_owner_then_another_node_takes_the_game_over(start_nodes, pg_url):
    first, second = start_nodes(2)
    ann, bob = Player(first), Player(second)
    game = new_game(ann, bob, first)  # accepted on the first node: it owns the game
    ann.connect(first)
    bob.connect(second)  # bob's moves are forwarded to the owner
    ann.sub(game)
    bob.sub(game)
    moves = alternate((ann, bob), game, range(3))
    before = bob.state
    assert before is not None and before["clocks"]["running"] == "o"

    first.kill()
    killed = time.monotonic()
    ann.connect(second)
    resumed = ann.sub(game, v=before["v"])
    # Taken over as soon as the lease has lapsed: a few seconds at most.
    assert time.monotonic() - killed < 4 * LEASE_S + 5
    assert resumed["moves"] == moves == stored_moves(pg_url, game)
    assert resumed["status"] == "started"
    # The clocks: the side to move gets back the time since its turn began (the
    # outage included: at least two thirds of a lease, seconds); its clock starts
    # again only once its player is back (bob's page may be, already). The other
    # side's is as stored.
    assert resumed["clocks"]["x"] == before["clocks"]["x"]
    assert resumed["clocks"]["o"] >= before["clocks"]["o"] - 1000
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT o_ms FROM games WHERE id = %s", (game,)).fetchone()
    assert row is not None and row[0] >= before["clocks"]["o"]
    bob.expect(lambda m: m["t"] == "state" and m["v"] >= resumed["v"])
    assert bob.state is not None
    moves.append(bob.play(game, 3))
    ann.wait_plies(4)
    moves += alternate((ann, bob), game, range(4, 6))
    assert stored_moves(pg_url, game) == moves
    assert owner_epoch(pg_url, game) == 2


def test_redis_restarted_mid_game(start_nodes, redis_server, pg_url):
    first, second = start_nodes(2)
    ann, bob = Player(first), Player(second)
    game = new_game(ann, bob, first)
    ann.connect(first)
    bob.connect(second)
    ann.sub(game)
    bob.sub(game)
    moves = alternate((ann, bob), game, range(3))

    redis_server.kill()
    time.sleep(1)
    redis_server.start()  # empty: no lease, no subscription survives
    # bob's move is forwarded again once the nodes are back on Redis: retried until
    # then, or refused; never acknowledged without being stored.
    assert bob.state is not None
    tried = first_move(bob.state)
    deadline = time.monotonic() + 20
    while (reply := bob.move(game, 3, tried))["t"] != "ack":
        assert reply["code"] in ("unavailable", "moved"), reply
        assert time.monotonic() < deadline, "the club did not recover from the Redis restart"
        time.sleep(0.5)
    moves.append(tried)
    ann.wait_plies(4)
    bob.wait_plies(4)
    moves += alternate((ann, bob), game, range(4, 7))
    assert stored_moves(pg_url, game) == moves
    for player in (ann, bob):
        assert player.state is not None and player.state["moves"] == moves


class Relay:
    """A TCP relay to PostgreSQL that the test can cut: every connection through it is
    closed and new ones are refused until it is resumed."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.cut = False
        self.loop = asyncio.new_event_loop()
        self.writers: set[asyncio.StreamWriter] = set()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait(5)

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
            started.set()
            await self.server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError, RuntimeError):
            self.loop.run_until_complete(main())

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            for end in (dst, writer if dst is up_writer else up_writer):
                end.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self.writers -= {writer, up_writer}

    def stop_relaying(self) -> None:
        def cut() -> None:
            self.cut = True
            for writer in list(self.writers):
                writer.transport.abort()

        self.loop.call_soon_threadsafe(cut)

    def resume(self) -> None:
        self.cut = False

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)


def test_postgresql_unreachable_for_a_few_seconds(start_nodes, pg_url):
    target = int(pg_url.rsplit(":", 1)[1].split("/", 1)[0])
    relay = Relay(target)
    try:
        through_relay = pg_url.replace(f":{target}/", f":{relay.port}/")
        (node,) = start_nodes(1, database_url=through_relay)
        ann, bob = Player(node), Player(node)
        game = new_game(ann, bob, node)
        ann.connect(node)
        bob.connect(node)
        ann.sub(game)
        bob.sub(game)
        moves = alternate((ann, bob), game, range(2))

        relay.stop_relaying()
        time.sleep(0.2)
        assert ann.state is not None
        tried = first_move(ann.state)
        refused = ann.move(game, 2, tried)
        # Refused with a clear error, not acknowledged: nothing was stored.
        assert refused["t"] == "error" and refused["code"] == "unavailable", refused
        assert "database" in refused["message"]
        time.sleep(2)
        relay.resume()
        assert stored_moves(pg_url, game) == moves
        # The node recovers by itself: the same move, sent again, is played.
        deadline = time.monotonic() + 15
        while (reply := ann.move(game, 2, tried))["t"] != "ack":
            assert reply["code"] == "unavailable", reply
            assert time.monotonic() < deadline, "the node did not recover"
            time.sleep(0.5)
        moves.append(tried)
        bob.wait_plies(3)
        assert stored_moves(pg_url, game) == moves
    finally:
        relay.close()


def forged_request(server: Redis, node: Node, request: dict[str, Any]) -> dict[str, Any]:
    """Send ``request`` to ``node`` as another node would, straight through Redis (a
    bundle of one message); its reply."""
    client = redis.Redis.from_url(server.url)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("gc:node:tester")
    try:
        client.publish(
            f"gc:node:{node.name}",
            json.dumps([{**request, "k": "req", "id": 1, "from": "tester"}]),
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            message = pubsub.get_message(timeout=1.0)
            if message is not None:
                replies = [m for m in json.loads(message["data"]) if m.get("k") == "reply"]
                if replies:
                    reply: dict[str, Any] = replies[0]
                    return reply
        raise AssertionError("no reply")
    finally:
        pubsub.close()
        client.close()


def test_a_paused_owner_is_fenced_out_and_steps_down(start_nodes, redis_server, pg_url):
    first, second = start_nodes(2)
    ann, bob = Player(first), Player(second)
    game = new_game(ann, bob, first)  # the first node owns it
    ann.connect(second)
    bob.connect(second)
    ann.sub(game)
    bob.sub(game)
    moves = alternate((ann, bob), game, range(3))
    # bob also has a page on the owner itself.
    stale = bob.another_page()
    stale.connect(first)
    stale.sub(game)
    assert stale.state is not None
    # Not the move bob then plays through the new owner (that one would be a resend).
    stale_move = another_move(stale.state)
    assert stale_move != first_move(stale.state)

    first.signal(signal.SIGSTOP)
    try:
        time.sleep(LEASE_S + 0.5)  # its lease lapses
        # bob's move on the second node: the owner does not answer, so the second
        # node takes the game over (epoch 2) and plays it; then ann's.
        moves.append(bob.play(game, 3))
        ann.wait_plies(4)
        moves.append(ann.play(game, 4))
        assert owner_epoch(pg_url, game) == 2
        # Meanwhile bob's page on the paused node sends another move for ply 3.
        tag = "from-the-paused-node"
        stale.send({"t": "move", "game": game, "move": stale_move, "ply": 3, "id": tag})
    finally:
        first.signal(signal.SIGCONT)
    reply = stale.expect(lambda m: m["t"] in ("ack", "error") and m.get("id") == tag)
    # Refused (by the fence, or by the new owner once the old one stepped down).
    assert reply["t"] == "error" and reply["code"] in ("moved", "stale", "unavailable"), reply
    deadline = time.monotonic() + 10
    while "stepping down" not in first.output():
        assert time.monotonic() < deadline, first.output()
        time.sleep(0.2)
    assert stored_moves(pg_url, game) == moves
    assert owner_epoch(pg_url, game) == 2
    # The game goes on, on its new owner.
    bob.wait_plies(5)
    moves.append(bob.play(game, 5))
    assert stored_moves(pg_url, game) == moves

    # Requests between nodes are checked too: a move for the game in the old epoch,
    # or sent to the node that owned it, is refused, and nothing is stored.
    assert ann.state is not None
    ann.wait_plies(6)
    move = first_move(ann.state)
    for node, epoch in ((second, 1), (first, 2), (second, 3)):
        reply = forged_request(
            redis_server, node,
            {"op": "act", "game": game, "epoch": epoch, "user": ann.id, "action": "play",
             "args": [move, 6]},
        )
        assert reply.get("error") == "moved", reply
    assert stored_moves(pg_url, game) == moves


def test_a_write_with_a_stale_owner_epoch_is_refused(pg_url):
    """The fence itself, on the database: a write in an epoch that is no longer the
    game's stores nothing (the node that made it then steps down)."""

    async def main() -> None:
        db = Database(pg_url)
        await db.migrate()
        try:
            game_id = f"f{secrets.token_hex(4)}"
            await store.insert_game(
                db,
                {"id": game_id, "game": "ataxx", "rules": "ataxx", "blocks": "",
                 "start_fen": "x5o/7/7/7/7/7/o5x x 0 1", "rated": False, "created_at": 1,
                 "status": "started", "plies": 0, "version": 1, "owner_epoch": 1},
            )
            assert await store.take_ownership(db, game_id) == 2
            move = {"ply": 0, "uci": "a7b6", "color": "x", "auto": False, "x_ms": None,
                    "o_ms": None, "played_at": 2}
            with pytest.raises(store.Fenced):
                await store.save_progress(db, game_id, {"plies": 1}, [move], fence=1)
            await store.save_progress(db, game_id, {"plies": 1}, [move], fence=2)
        finally:
            await db.close()
        assert stored_moves(pg_url, game_id) == ["a7b6"]

    run_in_own_loop(main())


def test_a_batch_mixing_fenced_and_owned_games_writes_only_the_owned_ones(pg_url):
    """Saves of several games committed together (one group commit) are fenced game
    by game: those whose epoch is stale store nothing, the others are stored, in one
    transaction (their rows share PostgreSQL's ``xmin``, the transaction that wrote them)."""
    start = "x5o/7/7/7/7/7/o5x x 0 1"
    move = {"ply": 0, "uci": "a7b6", "color": "x", "auto": False, "x_ms": None,
            "o_ms": None, "played_at": 2}

    ids = [f"b{k}{secrets.token_hex(4)}" for k in range(6)]

    async def main() -> None:
        db = Database(pg_url)
        await db.migrate()
        try:
            for game_id in ids:
                await store.insert_game(
                    db,
                    {"id": game_id, "game": "ataxx", "rules": "ataxx", "blocks": "",
                     "start_fen": start, "rated": False, "created_at": 1,
                     "status": "started", "plies": 0, "version": 1, "owner_epoch": 1},
                )
            # Another node took every other game over: this node's epoch 1 is stale there.
            for game_id in ids[1::2]:
                assert await store.take_ownership(db, game_id) == 2
            results = await asyncio.gather(
                *(store.save_progress(db, game_id, {"plies": 1}, [move], fence=1)
                  for game_id in ids),
                return_exceptions=True,
            )
            for game_id, result in zip(ids, results, strict=True):
                if game_id in ids[1::2]:
                    assert isinstance(result, store.Fenced), (game_id, result)
                else:
                    assert result is None, (game_id, result)
            # The same in a batch that also carries other work (a takeover): the save
            # after it in the batch is fenced, the one before it is not.
            late = ids[0]
            second = {**move, "ply": 1, "uci": "g1f2", "color": "o"}
            third = {**move, "ply": 2, "uci": "b6c5"}
            results = await asyncio.gather(
                store.save_progress(db, late, {"plies": 2}, [second], fence=1),
                store.take_ownership(db, late),
                store.save_progress(db, late, {"plies": 3}, [third], fence=1),
                return_exceptions=True,
            )
            assert results[0] is None and results[1] == 2, results
            assert isinstance(results[2], store.Fenced), results
        finally:
            await db.close()

    run_in_own_loop(main())
    owned, fenced = ids[0::2], ids[1::2]
    assert stored_moves(pg_url, ids[0]) == ["a7b6", "g1f2"]
    for game_id in owned[1:]:
        assert stored_moves(pg_url, game_id) == ["a7b6"]
    with psycopg.connect(pg_url) as conn:
        for game_id in fenced:
            assert stored_moves(pg_url, game_id) == []
            row = conn.execute("SELECT plies FROM games WHERE id = %s", (game_id,)).fetchone()
            assert row == (0,)
        writers = conn.execute(
            "SELECT DISTINCT xmin::text FROM moves WHERE game_id = ANY(%s) AND ply = 0",
            (owned,),
        ).fetchall()
    assert len(writers) == 1, writers


@pytest.mark.parametrize("asynchronous", [False, True])
def test_async_commit_is_set_on_the_connection_of_the_group_commits(pg_url, asynchronous):
    seen: list[str] = []

    async def main() -> None:
        db = Database(pg_url, async_commit=asynchronous)
        try:
            def plan(query: Any) -> list[Any]:
                seen.extend(row[0] for row in query(text("SHOW synchronous_commit"), {}))
                return []

            await db.write_planned(plan)
        finally:
            await db.close()

    run_in_own_loop(main())
    assert seen == ["off" if asynchronous else "on"]


def test_async_commit_setting_is_read_strictly(monkeypatch):
    monkeypatch.setenv("GAMECLUB_ASYNC_COMMIT", "yes")
    assert Settings.from_env().async_commit
    monkeypatch.setenv("GAMECLUB_ASYNC_COMMIT", "0")
    assert not Settings.from_env().async_commit
    monkeypatch.setenv("GAMECLUB_ASYNC_COMMIT", "sometimes")
    with pytest.raises(ValueError, match="GAMECLUB_ASYNC_COMMIT must be one of"):
        Settings.from_env()


def lobby_seeks(player: Player, node: Node) -> list[str]:
    return [found["id"] for found in player.get(node, "/api/lobby")["seeks"]]


def test_the_seeks_of_a_node_that_dies_go_on_where_their_players_reconnect(start_nodes):
    first, second = start_nodes(2)
    ann, bob = Player(first), Player(second)
    ann.connect(first)
    seek = ann.post(first, "/api/seeks", {"color": "x"})["seek"]["id"]
    deadline = time.monotonic() + 10
    while seek not in lobby_seeks(bob, second):  # the club's lobby lists it
        assert time.monotonic() < deadline, "the seek is not listed on the other node"
        time.sleep(0.2)

    first.kill()
    ann.connect(second)  # her page reconnects (through the proxy) to a node alive
    # Held by the second node once the first is taken for dead (a few leases),
    # then accepted there as any seek of its own.
    deadline = time.monotonic() + 6 * LEASE_S + 10
    while True:
        reply = bob.http.post(
            f"{second.url}/api/seeks/{seek}/accept", headers={"X-CSRF-Token": bob.csrf}
        )
        if reply.status_code == 201:
            break
        assert reply.status_code == 410, reply.text  # "gone" until it is taken over
        assert time.monotonic() < deadline, "the seek did not come back"
        time.sleep(0.5)
    game = reply.json()["game"]
    start = ann.expect(lambda m: m["t"] == "start")
    assert start["game"] == game
    state = ann.sub(game)
    assert state["players"]["x"]["id"] == ann.id, state["players"]  # her colour, as sought
    assert seek not in lobby_seeks(bob, second)
    assert "handed over" in second.output()


def test_a_game_read_on_another_node_says_who_is_online_in_the_club(start_nodes):
    first, second = start_nodes(2)
    ann, bob = Player(first), Player(second)
    game = new_game(ann, bob, first)  # the first node owns it
    ann.connect(first)
    ann.sub(game)

    def online_on_second() -> dict[str, bool]:
        players = ann.get(second, f"/api/games/{game}")["players"]
        return {color: players[color]["online"] for color in ("x", "o")}

    def wait_for(expected: dict[str, bool]) -> None:
        deadline = time.monotonic() + 10
        while (found := online_on_second()) != expected:
            assert time.monotonic() < deadline, found
            time.sleep(0.2)

    wait_for({"x": True, "o": False})  # ann's page is open (on the first node), bob's not
    bob.connect(second)
    bob.sub(game)
    wait_for({"x": True, "o": True})
    ann.close()
    wait_for({"x": False, "o": True})


def test_a_node_is_alive_in_the_club_from_its_start(start_nodes, redis_server):
    """An owner forgets the pages of a node that is not alive: a node just started,
    whose first renewal is far away (a long lease here), follows a game of another
    node at once, and its page still sees every move after the owner's checks ran."""
    (owner,) = start_nodes(1)
    (late,) = start_nodes(1, env={"GAMECLUB_LEASE_SECONDS": "60"})
    client = redis.Redis.from_url(redis_server.url)
    assert client.exists(f"gc:alive:{late.name}")
    ann, bob, carol = Player(owner), Player(owner), Player(late)
    game = new_game(ann, bob, owner)
    ann.connect(owner)
    bob.connect(owner)
    carol.connect(late)
    for player in (ann, bob, carol):
        player.sub(game)
    time.sleep(LEASE_S)  # the owner has checked the nodes of its remote pages meanwhile
    moves = alternate((ann, bob), game, range(2))
    assert carol.wait_plies(2)["moves"] == moves


def test_player_and_spectator_on_different_nodes_see_the_same_moves(start_nodes):
    first, second, third = start_nodes(3, env={"GAMECLUB_GUESTS_PER_ADDRESS_PER_HOUR": "3"})
    ann, bob, carol = Player(first), Player(second), Player(third)
    # The budgets are the club's: three new guests from this address on three nodes
    # spent it all, on every node.
    for node in (first, second, third):
        assert httpx.get(f"{node.url}/api/me").status_code == 429
    game = new_game(ann, bob, second)
    ann.connect(first)
    bob.connect(second)
    carol.connect(third)  # a spectator, on a node that does not own the game
    for player in (ann, bob, carol):
        player.sub(game)
    moves = alternate((ann, bob), game, range(8))
    carol.wait_plies(8)
    for player in (ann, bob, carol):
        assert player.state is not None and player.state["moves"] == moves
        # Every state seen, in the same order: each one the previous plus one move.
        sequences = [seen for _, seen in player.seen if seen]
        assert all(a == b[: len(a)] for a, b in itertools.pairwise(sequences))
    assert [v for v, _ in carol.seen][-1] == ann.state["v"] == bob.state["v"]  # type: ignore[index]

    # The lobby is the club's: a seek made on one node is listed, and taken, on another.
    seek = ann.post(first, "/api/seeks", {"game": "ataxx"})["seek"]["id"]

    def lobbies() -> list[dict[str, Any]]:
        return [carol.get(node, "/api/lobby") for node in (first, second, third)]

    deadline = time.monotonic() + 10
    while True:
        seen = lobbies()
        keys = [(lobby["online"], lobby["searching"], [s["id"] for s in lobby["seeks"]])
                for lobby in seen]
        if keys[0] == keys[1] == keys[2] and keys[0][2] == [seek]:
            break
        assert time.monotonic() < deadline, keys
        time.sleep(0.3)
    assert seen[0]["online"] == 3  # ann, bob and carol, each on their own node
    started = carol.post(third, f"/api/seeks/{seek}/accept")["game"]
    ann.expect(lambda m: m["t"] == "start" and m["game"] == started)

    # Logging out on one node closes the session's sockets on the others.
    page = carol.another_page()
    page.connect(first)
    carol.post(third, "/api/logout")
    page.expect(lambda m: m["t"] == "error" and m["code"] == "session-ended")


@pytest.mark.parametrize("which", ["redis", "database"])
def test_a_node_that_cannot_reach_redis_or_the_database_exits(which, pg_url, tmp_path):
    nowhere = free_port()
    redis_url = f"redis://127.0.0.1:{nowhere}/0"
    database_url = pg_url
    if which == "database":
        redis = Redis(tmp_path)
        redis_url = redis.url
        database_url = pg_url.replace(pg_url.rsplit("@", 1)[1].split("/", 1)[0],
                                      f"127.0.0.1:{nowhere}")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "gameclub", "serve", "--port", str(free_port()),
             "--database-url", database_url, "--redis-url", redis_url],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    finally:
        if which == "database":
            redis.kill()
    assert result.returncode != 0
    expected = "cannot reach Redis" if which == "redis" else "cannot reach the database"
    assert expected in result.stderr, result.stderr
