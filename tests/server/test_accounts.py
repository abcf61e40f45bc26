"""Guests, sign-up, login, logout, sessions, CSRF and rate limits over real HTTP."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any

from starlette.websockets import WebSocketDisconnect

from gameclub.server.settings import Settings


def test_first_visit_makes_a_guest_with_an_httponly_cookie(club):
    browser = club.browser()
    assert browser.user["guest"] is True
    assert browser.user["name"].startswith("Guest-")
    assert browser.user["rating_text"] == "1500?"
    cookie = browser.first_response.headers["set-cookie"]
    assert "gc_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    # The same browser keeps its guest.
    again = browser.get("/api/me").json()
    assert again["user"]["id"] == browser.user["id"]


def test_sign_up_log_out_log_in(club):
    browser = club.browser()
    body = browser.sign_up("ann")
    assert body["user"]["name"] == "ann" and body["user"]["guest"] is False
    assert browser.get("/api/me").json()["user"]["name"] == "ann"
    out = browser.post("/api/logout").json()
    assert out["user"]["guest"] is True
    browser.csrf = out["csrf"]
    response = browser.post("/api/login", {"name": "ANN", "password": "correct horse battery"})
    assert response.status_code == 200, response.text
    assert response.json()["user"]["name"] == "ann"


def test_bad_sign_ups_are_refused_with_reasons(club):
    browser = club.browser()
    browser.sign_up("bob")
    other = club.browser()
    for body, code in [
        ({"name": "Bob", "password": "long enough pw"}, "name-taken"),
        ({"name": "b", "password": "long enough pw"}, "bad-field"),
        ({"name": "Guest-abcd", "password": "long enough pw"}, "bad-field"),
        ({"name": "carol", "password": "short"}, "bad-field"),
        ({"name": 5, "password": "long enough pw"}, "bad-field"),
    ]:
        response = other.post("/api/signup", body)
        assert response.json()["error"]["code"] == code, (body, response.text)
    response = other.post(
        "/api/signup", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad-json"
    assert other.get("/api/me").json()["user"]["guest"] is True


def test_wrong_password_and_unknown_name_look_the_same(club):
    club.browser().sign_up("dora")
    browser = club.browser()
    wrong = browser.post("/api/login", {"name": "dora", "password": "not her password"})
    unknown = browser.post("/api/login", {"name": "nobody", "password": "not her password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()


def test_state_changing_requests_need_the_csrf_token(club):
    browser = club.browser()
    response = browser.client.post(
        "/api/signup", json={"name": "eve", "password": "long enough pw"}
    )
    assert response.status_code == 403 and response.json()["error"]["code"] == "csrf"
    response = browser.post(
        "/api/games/ai", {"level": "random"}, headers={"X-CSRF-Token": "forged"}
    )
    assert response.status_code == 403
    response = browser.post(
        "/api/games/ai", {"level": "random"}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403
    # Nothing was created.
    assert browser.get("/api/me").json()["games"] == []


def test_login_is_rate_limited(make_club, settings: Settings):
    club = make_club(
        replace(settings, auth_attempts_per_minute=100, auth_free_failures=3, auth_backoff_s=60)
    )
    club.browser().sign_up("fred")
    browser = club.browser()
    codes = [
        browser.post("/api/login", {"name": "fred", "password": "wrong password!"}).status_code
        for _ in range(4)
    ]
    assert codes == [401, 401, 401, 429]
    limited = browser.post("/api/login", {"name": "fred", "password": "correct horse battery"})
    assert limited.status_code == 429 and "Retry-After" in limited.headers


def test_an_attacker_elsewhere_cannot_lock_the_owner_out(make_club, settings: Settings):
    club = make_club(replace(settings, auth_attempts_per_minute=1000))
    club.browser("10.0.0.1").sign_up("owner")
    password = "correct horse battery"
    # Many failures for the name, from many other addresses and from one.
    for n in range(30):
        attacker = club.browser(f"10.6.6.{n % 6}")
        response = attacker.post("/api/login", {"name": "owner", "password": f"guess {n} pw"})
        assert response.status_code in (401, 429)
    stubborn = club.browser("10.6.6.66")
    codes = [
        stubborn.post("/api/login", {"name": "Owner", "password": "guess pw!"}).status_code
        for _ in range(8)
    ]
    # A few failures are free; then each next try must wait (twice as long each time).
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    first_wait = int(
        stubborn.post("/api/login", {"name": "owner", "password": "x" * 9}).headers["Retry-After"]
    )
    assert first_wait >= 1
    # Even the right password waits, from that address.
    blocked = stubborn.post("/api/login", {"name": "owner", "password": password})
    assert blocked.status_code == 429
    # The owner, from their own address, logs in at once.
    owner = club.browser("10.0.0.1")
    assert owner.post("/api/login", {"name": "owner", "password": password}).status_code == 200
    # And from a new address too, having never failed from there.
    away = club.browser("192.0.2.7")
    assert away.post("/api/login", {"name": "owner", "password": password}).status_code == 200


def test_the_back_off_doubles_and_is_forgotten_after_a_success():
    from gameclub.server.accounts import Backoff

    backoff = Backoff(free=2, base=10.0, cap=35.0, forget=3600.0)
    waits = []
    for _ in range(6):
        waits.append(round(backoff.retry_after("k")))
        backoff.fail("k")
    waits.append(round(backoff.retry_after("k")))
    assert waits == [0, 0, 10, 20, 35, 35, 35]
    assert backoff.retry_after("other") == 0
    backoff.succeed("k")
    assert backoff.retry_after("k") == 0


def test_the_per_address_limit_holds_for_every_name(make_club, settings: Settings):
    club = make_club(replace(settings, auth_attempts_per_minute=5))
    browser = club.browser("10.9.9.9")
    codes = [
        browser.post("/api/login", {"name": f"name{n}", "password": "wrong password"}).status_code
        for n in range(7)
    ]
    assert codes == [401] * 5 + [429] * 2
    # Another address is not slowed down by it.
    other = club.browser("10.9.9.10")
    assert other.post("/api/login", {"name": "name1", "password": "wrong pass"}).status_code == 401


def test_sessions_are_stored_hashed(club):
    browser = club.browser()
    token = browser.client.cookies["gc_session"]

    async def stored() -> list[str]:
        from sqlalchemy import select

        from gameclub.server.store.models import Session

        async with club.app.state.club.db.read() as db:
            return list((await db.execute(select(Session.token_hash))).scalars())

    hashes = club.client.portal.call(stored)
    assert token not in hashes
    import hashlib

    assert hashlib.sha256(token.encode()).hexdigest() in hashes


def _closed(socket: Any) -> dict[str, Any]:
    """The socket's last messages up to its close: the error that says why, and the code."""
    messages: list[dict[str, Any]] = []
    try:
        for _ in range(50):
            messages.append(socket.receive(timeout=5))
    except WebSocketDisconnect as exc:
        return {"messages": messages, "code": exc.code}
    raise AssertionError(f"the socket stayed open: {messages}")


def test_logging_out_closes_the_sessions_sockets(club, first_move):
    ann = club.browser()
    ann.sign_up("leaver")
    game = ann.post("/api/games/hotseat", {}).json()["game"]
    ws, state = ann.watch(game)
    move = first_move(state)
    lobby = ann.socket()
    # The same account in another browser: a session of its own, which goes on.
    other = club.browser()
    assert other.post(
        "/api/login", {"name": "leaver", "password": "correct horse battery"}
    ).status_code == 200
    other_ws, _ = other.watch(game)
    assert ann.post("/api/logout").status_code == 200
    for socket in (ws, lobby):
        closed = _closed(socket)
        assert closed["code"] == 4001
        assert [m["code"] for m in closed["messages"] if m["t"] == "error"] == ["session-ended"]
    # A move or a resignation on the old socket does nothing.
    for message in (
        {"t": "move", "game": game, "move": move, "ply": 0},
        {"t": "resign", "game": game},
    ):
        with contextlib.suppress(Exception):
            ws.send(message)
    record = other.get(f"/api/games/{game}").json()
    assert record["moves"] == [] and record["status"] == "started"
    # The other session's socket still plays.
    other_ws.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 1})
    other_ws.expect_type("ack", id=1)


def test_a_socket_closes_when_its_session_expires(club):
    # An account: a guest's session is pushed back on each visit (the socket's own too).
    ann = club.browser()
    ann.sign_up("expiring")
    token = ann.client.cookies["gc_session"]

    async def expire_soon() -> None:
        from sqlalchemy import update

        from gameclub.server.accounts import hash_token
        from gameclub.server.clock import now_ms
        from gameclub.server.store.models import Session

        async with club.app.state.club.db.write() as db:
            await db.execute(
                update(Session)
                .where(Session.token_hash == hash_token(token))
                .values(expires_at=now_ms() + 1500)
            )

    club.client.portal.call(expire_soon)
    ws = ann.socket()
    ws.send({"t": "ping", "id": 1})
    assert ws.expect_type("pong", id=1)
    closed = _closed(ws)
    assert closed["code"] == 4001
    # The expired session is no one now: a new page gets a new guest.
    assert ann.get("/api/me").json()["user"]["name"] != ann.user["name"]
