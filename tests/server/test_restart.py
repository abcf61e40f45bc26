"""Games survive restarts: a clean stop, and ``kill -9`` of a real server process."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import httpx2 as httpx
import pytest
from websockets.sync.client import connect

from gameclub.server.settings import Settings

from .conftest import first_move


def test_games_resume_after_a_restart(make_club, settings: Settings):
    club = make_club(settings)
    ann, bob = club.browser(), club.browser()
    invitation = ann.post("/api/invitations", {"color": "x", "clock": {"base": 60, "increment": 2}})
    game = bob.post(f"/api/invitations/{invitation.json()['invitation']['id']}/accept").json()[
        "game"
    ]
    ai_game = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    a, b = ann.socket(), bob.socket()
    a.send({"t": "sub", "game": game})
    b.send({"t": "sub", "game": game})
    state = a.state(game)
    for ply in range(3):
        ws = a if ply % 2 == 0 else b
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    cookies = (ann.client.cookies, bob.client.cookies)
    club.stop()

    again = make_club(settings)
    ann2, bob2 = again.browser(), again.browser()
    ann2.client.cookies, bob2.client.cookies = cookies
    assert ann2.refresh()["user"]["id"] == ann.user["id"]
    assert set(ann2.get("/api/me").json()["games"]) == {game, ai_game}
    ws = bob2.socket()
    ws.send({"t": "sub", "game": game, "v": state["v"]})
    resumed = ws.state(game)
    assert resumed["moves"] == state["moves"] and resumed["cells"] == state["cells"]
    assert resumed["v"] > state["v"] and resumed["you"] == "o"
    assert resumed["clocks"]["running"] == "o"
    # The outage cost nobody time: o has what it had when its turn began.
    assert resumed["clocks"]["o"] >= state["clocks"]["o"] - 100
    assert resumed["clocks"]["x"] == state["clocks"]["x"]
    ws.send({"t": "move", "game": game, "move": first_move(resumed), "ply": 3, "id": 1})
    assert len(ws.state(game, min_v=resumed["v"] + 1)["moves"]) == 4
    # The game against the computer goes on too.
    a2 = ann2.socket()
    a2.send({"t": "sub", "game": ai_game})
    assert a2.state(ai_game)["status"] == "started"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m gameclub.server`` in a child process."""

    def __init__(self, database_url: str, port: int, tmp_path: Any) -> None:
        self.port = port
        self.log = open(tmp_path / f"server-{time.monotonic_ns()}.log", "w")  # noqa: SIM115
        env = {**os.environ, "GAMECLUB_DATABASE_URL": database_url}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gameclub.server", "--port", str(port)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/options", timeout=1)
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()


class Player:
    """A real client over a real socket; it follows a game's deltas as the browser does."""

    def __init__(self, port: int, apply_delta: Any) -> None:
        self.port = port
        self.apply_delta = apply_delta
        self.state: dict[str, Any] | None = None
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}")
        me = self.http.get("/api/me").json()
        self.csrf = me["csrf"]
        self.token = self.http.cookies["gc_session"]
        self.ws: Any = None

    def post(self, path: str, body: Any = None) -> Any:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf}).json()

    def connect(self, port: int) -> None:
        if self.ws is not None:
            self.ws.close()
        self.ws = connect(
            f"ws://127.0.0.1:{port}/ws", additional_headers={"Cookie": f"gc_session={self.token}"}
        ).__enter__()
        assert json.loads(self.ws.recv(timeout=10))["t"] == "welcome"

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def expect(self, predicate: Any) -> dict[str, Any]:
        for _ in range(100):
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
            if message["t"] == "state":
                self.state = message
            elif message["t"] == "delta" and self.state is not None:
                rebuilt = self.apply_delta(self.state, message)
                assert rebuilt is not None, f"a delta that does not follow: {message}"
                self.state = message = rebuilt
            if predicate(message):
                return message
        raise AssertionError("message not received")


@pytest.mark.slow
def test_kill_9_mid_game_then_restart(database_url: str, tmp_path: Any, apply_delta: Any):
    port = free_port()
    server = Server(database_url, port, tmp_path)
    try:
        ann, bob = Player(port, apply_delta), Player(port, apply_delta)
        invitation = ann.post(
            "/api/invitations", {"color": "x", "clock": {"base": 120, "increment": 0}}
        )
        game = bob.post(f"/api/invitations/{invitation['invitation']['id']}/accept")["game"]
        ann.connect(port)
        bob.connect(port)
        for p in (ann, bob):
            p.send({"t": "sub", "game": game})
        state = ann.expect(lambda m: m["t"] == "state")
        moves = []
        for ply in range(3):
            p = ann if ply % 2 == 0 else bob
            move = first_move(state)
            moves.append(move)
            p.send({"t": "move", "game": game, "move": move, "ply": ply, "id": ply})
            state = p.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
            p.expect(lambda m, n=ply: m["t"] == "ack" and m["id"] == n)
        time.sleep(0.5)
    finally:
        server.kill()

    server = Server(database_url, port, tmp_path)
    try:
        # The browsers reconnect and resync: the same game, every acknowledged move.
        for p in (ann, bob):
            p.connect(port)
            p.send({"t": "sub", "game": game, "v": state["v"]})
        resumed = bob.expect(lambda m: m["t"] == "state")
        assert resumed["moves"] == moves and resumed["cells"] == state["cells"]
        assert resumed["v"] > state["v"] and resumed["status"] == "started"
        assert resumed["clocks"]["o"] >= state["clocks"]["o"] - 100
        # x resends its last move (its ack might have been lost): applied once only.
        ann.send({"t": "move", "game": game, "move": moves[2], "ply": 2, "id": "again"})
        ann.expect(lambda m: m["t"] == "ack" and m["id"] == "again")
        bob.send({"t": "move", "game": game, "move": first_move(resumed), "ply": 3, "id": 9})
        after = bob.expect(lambda m: m["t"] == "state" and len(m["moves"]) > 3)
        assert after["moves"][:3] == moves and len(after["moves"]) == 4
    finally:
        server.kill()
