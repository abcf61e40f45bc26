"""One client must never slow everyone: budgets per address, bounded bodies and frames,
cached answers, nothing CPU-heavy on the event loop."""

from __future__ import annotations

import select
import socket
from dataclasses import replace
from typing import Any

import httpx2 as httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from gameclub.ataxx import blocks as blocks_module
from gameclub.server import api
from gameclub.server import options as options_module
from gameclub.server.settings import Settings

from .test_restart import Server, free_port


def test_the_options_are_built_once_not_per_request(make_club, settings: Settings, monkeypatch):
    real = blocks_module.preferred_configs
    calls = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    # Counted, not replaced: the real layouts are walked, and how often is seen.
    monkeypatch.setattr(options_module, "preferred_configs", counted)
    options_module.options_json.cache_clear()
    api.options_body.cache_clear()
    club = make_club(settings)
    guest = club.browser()
    answers = [guest.get("/api/options") for _ in range(5)]
    assert all(a.status_code == 200 for a in answers)
    assert answers[0].json()["blocks"] and answers[0].json() == answers[-1].json()
    assert "max-age" in answers[0].headers["cache-control"]
    assert len(calls) == 1  # at start-up, in a thread; never again


def test_anonymous_requests_are_limited_per_address(make_club, settings: Settings):
    club = make_club(replace(settings, api_burst=12, api_rate_per_s=0.5))
    client = club.browser("10.0.0.1").client  # one request spent on /api/me
    answers = [client.get("/api/options").status_code for _ in range(15)]
    assert answers[:11] == [200] * 11 and answers[11:] == [429] * 4
    refused = client.get("/api/lobby")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate-limited"
    assert int(refused.headers["retry-after"]) >= 1
    # The socket handshake is charged to the same budget.
    with pytest.raises(WebSocketDisconnect):
        client.websocket_connect("/ws").__enter__()
    # Another address is not slowed by the first one.
    other = club.browser("10.0.0.2")
    assert other.get("/api/options").status_code == 200
    assert other.get("/api/lobby").status_code == 200


def test_binary_frames_that_are_not_utf8_spend_the_budget(club):
    guest = club.browser()
    ws = guest.socket()
    for _ in range(300):
        ws.session.send_bytes(b"\xff\xfe\xfd")
    codes = []
    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(300):
            message = ws.receive()
            codes.append(message["code"])
    assert closed.value.code == 1008
    assert codes.count("bad-json") == 30  # the burst; then refusals until the socket closes
    assert set(codes) == {"bad-json", "rate-limited"}


def test_sockets_per_player_are_bounded(make_club, settings: Settings):
    club = make_club(replace(settings, max_sockets_per_user=3))
    guest = club.browser()
    for _ in range(3):
        guest.socket()
    with guest.client.websocket_connect("/ws") as session:
        refused = session.receive_json()
        assert refused["t"] == "error" and refused["code"] == "too-many-sockets"
        with pytest.raises(WebSocketDisconnect):
            session.receive_json()


def _raw_post(
    port: int, path: str, session: httpx.Client, csrf: str, headers: str
) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    token = session.cookies["gc_session"]
    sock.sendall(
        (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nX-CSRF-Token: {csrf}\r\n"
            f"Cookie: gc_session={token}\r\n{headers}\r\n"
        ).encode()
    )
    return sock


def _response(sock: socket.socket) -> tuple[int, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def test_large_bodies_are_refused_before_they_are_read(tmp_path):
    """A real server: a body announced too large is refused without waiting for it, and a
    streamed one as soon as it passes the limit (not after reading it whole)."""
    port = free_port()
    server = Server(f"sqlite:///{tmp_path}/club.db", port, tmp_path)
    try:
        http = httpx.Client(base_url=f"http://127.0.0.1:{port}")
        csrf = http.get("/api/me").json()["csrf"]
        # Announced: 400 MB that never come; the answer comes at once.
        sock = _raw_post(
            port, "/api/games/hotseat", http, csrf, "Content-Length: 400000000\r\n"
        )
        status, data = _response(sock)
        sock.close()
        assert status == 413 and b"too-large" in data
        # Streamed (chunked, no length): refused while it streams.
        sock = _raw_post(port, "/api/games/hotseat", http, csrf, "Transfer-Encoding: chunked\r\n")
        chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
        sent, total = 0, 256 * 1024 * 1024
        answered = False
        try:
            while sent < total:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    answered = True
                    break
                sock.sendall(chunk)
                sent += 65536
        except OSError:
            answered = True  # the server closed the connection on us
        assert answered, "the whole 256 MB was read before any answer"
        assert sent < total
        # The server is still well.
        assert http.get("/api/options").status_code == 200
    finally:
        server.kill()
