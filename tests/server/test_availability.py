"""One client must never slow everyone: budgets per address, bounded bodies and frames,
cached answers, nothing CPU-heavy on the event loop."""

from __future__ import annotations

import contextlib
import os
import random
import select
import socket
import time
from dataclasses import replace
from typing import Any

import httpx2 as httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from gameclub import games as games_module
from gameclub.ataxx import Board
from gameclub.ataxx import blocks as blocks_module
from gameclub.ataxx.notation import GameRecord
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
    monkeypatch.setattr(games_module, "preferred_configs", counted)
    for cached in (
        options_module.options_json,
        games_module.suggested_blocks,
        getattr(api, "options_body", None),
    ):
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()  # built afresh for this app
    club = make_club(settings)
    guest = club.browser()
    answers = [guest.get("/api/options") for _ in range(5)]
    assert all(a.status_code == 200 for a in answers)
    assert len(calls) == 1  # at start-up, in a thread; never again
    assert answers[0].json()["blocks"] and answers[0].json() == answers[-1].json()
    assert "max-age" in answers[0].headers["cache-control"]


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


def test_binary_frames_that_are_not_utf8_spend_the_budget(make_club, settings: Settings):
    # A budget that does not refill during the test: the count is exact.
    club = make_club(replace(settings, ws_rate_per_s=0.001))
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
    """The status and the whole response (read until the connection closes)."""
    data = b""
    while chunk := sock.recv(65536):
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


def _moves(browser: Any, game: str) -> int:
    return len(browser.get(f"/api/games/{game}").json()["moves"])


def test_the_computer_serves_players_in_turn(make_club, settings: Settings):
    """One player's many master games do not go before another player's random game."""
    club = make_club(
        replace(settings, max_ai_games_per_player=8, ai_max_movetime_s=0.4, ai_workers=1)
    )
    greedy, modest = club.browser(), club.browser()
    # The computer (x) moves first in every game.
    many = [
        greedy.post("/api/games/ai", {"level": "master", "color": "o"}).json()["game"]
        for _ in range(6)
    ]
    ws, _ = modest.watch(
        modest.post("/api/games/ai", {"level": "random", "color": "o"}).json()["game"]
    )
    ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1, timeout=120)
    served_before = sum(_moves(greedy, game) > 0 for game in many)
    # First come, first served would have answered all six first.
    assert served_before <= 2, served_before


def test_games_against_the_computer_are_capped_per_player(make_club, settings: Settings):
    club = make_club(replace(settings, max_ai_games_per_player=2))
    guest = club.browser()
    for _ in range(2):
        assert guest.post("/api/games/ai", {"level": "random"}).status_code == 201
    refused = guest.post("/api/games/ai", {"level": "random"})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "too-many-games"
    assert "against the computer" in refused.json()["error"]["message"]
    # Others are not affected; hot-seat games are not games against the computer.
    assert club.browser().post("/api/games/ai", {"level": "random"}).status_code == 201
    assert guest.post("/api/games/hotseat", {}).status_code == 201


def test_a_full_engine_queue_refuses_new_games_clearly(make_club, settings: Settings):
    club = make_club(
        replace(settings, ai_queue_limit=2, ai_max_movetime_s=1.0, max_ai_games_per_player=10)
    )
    players = [club.browser() for _ in range(4)]
    answers = [
        p.post("/api/games/ai", {"level": "master", "color": "o"}) for p in players
    ]
    # One game's search runs, two wait; the fourth finds the queue full.
    assert [a.status_code for a in answers] == [201, 201, 201, 503]
    error = answers[3].json()["error"]
    assert error["code"] == "busy" and "try again" in error["message"]


def test_unfinished_games_and_new_games_are_capped_per_player(make_club, settings: Settings):
    club = make_club(
        replace(settings, max_open_games_per_player=3, games_per_player_per_10min=5)
    )
    guest = club.browser()
    games = [guest.post("/api/games/hotseat", {}).json()["game"] for _ in range(3)]
    refused = guest.post("/api/games/hotseat", {})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "too-many-games"
    # Invitations accepted count too, for the one who accepts.
    host = club.browser()
    link = host.post("/api/invitations", {"to": None}).json()["invitation"]["id"]
    assert guest.post(f"/api/invitations/{link}/accept").status_code == 409
    assert host.get(f"/api/invitations/{link}").json()["invitation"]["status"] == "open"
    ws = guest.socket()
    for game in games:
        ws.send({"t": "abort", "game": game})
        ws.expect_type("ack", game=game)
    # The budget of new games: five in ten minutes, three spent.
    assert guest.post("/api/games/hotseat", {}).status_code == 201
    assert guest.post("/api/games/hotseat", {}).status_code == 201
    limited = guest.post("/api/games/hotseat", {})
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate-limited"
    assert int(limited.headers["retry-after"]) > 1


def test_open_invitations_are_capped_per_player(make_club, settings: Settings):
    club = make_club(replace(settings, max_open_invitations_per_player=2))
    host = club.browser()
    sent = [host.post("/api/invitations", {"to": None}) for _ in range(3)]
    assert [s.status_code for s in sent] == [201, 201, 409]
    assert sent[2].json()["error"]["code"] == "too-many-invitations"
    host.delete(f"/api/invitations/{sent[0].json()['invitation']['id']}")
    assert host.post("/api/invitations", {"to": None}).status_code == 201


def _long_record(plies: int) -> str:
    board = Board()
    rng = random.Random(7)
    while len(board.move_stack) < plies:
        if board.outcome() is not None:
            board = Board()  # start again until a game is long enough
            continue
        board.push(rng.choice(board.legal_moves))
    return GameRecord.from_board(board).to_pgn()


def test_records_are_bounded_in_moves(make_club, settings: Settings):
    club = make_club(replace(settings, max_record_plies=40))
    guest = club.browser()
    ok = guest.post("/api/records", {"pgn": _long_record(40)})
    assert ok.status_code == 200 and len(ok.json()["moves"]) == 40
    refused = guest.post("/api/records", {"pgn": _long_record(41)})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid-record"
    assert "at most 40 moves" in refused.json()["error"]["message"]
    # The body limit applies before anything is parsed.
    huge = guest.post("/api/records", {"pgn": "x" * (settings.max_record_bytes + 1)})
    assert huge.status_code == 413 and huge.json()["error"]["code"] == "too-large"


def test_records_are_read_by_the_workers_not_the_event_loop(club):
    """A record waits for a free worker (here busy with another player's job): it is
    read there, in its turn, not on the event loop at once."""
    guest = club.browser()
    engines = club.app.state.club.engines
    busy = club.client.portal.start_task_soon(engines.run, "someone else", time.sleep, 2.0)
    record = _long_record(60)
    answer = guest.post("/api/records", {"pgn": record})
    assert answer.status_code == 200 and len(answer.json()["moves"]) == 60
    assert busy.done(), "the record was read before the worker was free: on the event loop"


def _wait_for(predicate: Any, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("did not happen in time")


def _status(browser: Any, game: str) -> str:
    return str(browser.get(f"/api/games/{game}").json()["status"])


def test_games_nobody_starts_are_aborted(make_club, settings: Settings, first_move):
    club = make_club(replace(settings, abort_unstarted_after_s=1.0))
    ann, bob = club.browser(), club.browser()
    hotseat = ann.post("/api/games/hotseat", {}).json()["game"]
    # Against the computer, which moves first: the person then never answers.
    computer_first = ann.post("/api/games/ai", {"level": "random", "color": "o"}).json()["game"]
    # Between two people: x moves, o never does.
    invitation = ann.post("/api/invitations", {"to": None, "color": "x"}).json()["invitation"]
    people = bob.post(f"/api/invitations/{invitation['id']}/accept").json()["game"]
    a, state = ann.watch(people)
    a.send({"t": "move", "game": people, "move": first_move(state), "ply": 0, "id": 1})
    a.expect_type("ack", id=1)
    # A game whose first moves were played goes on, however long the next one takes.
    started = ann.post("/api/games/hotseat", {}).json()["game"]
    s, state = ann.watch(started)
    for ply in range(2):
        s.send({"t": "move", "game": started, "move": first_move(state), "ply": ply})
        state = s.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    for game in (hotseat, computer_first, people):
        _wait_for(lambda game=game: _status(ann, game) == "aborted")
    assert len(ann.get(f"/api/games/{computer_first}").json()["moves"]) == 1
    time.sleep(1.5)
    assert _status(ann, started) == "started"
    assert set(ann.get("/api/me").json()["games"]) == {started}


def test_start_up_does_not_load_stored_games_and_abandoned_ones_are_aborted(
    make_club, settings: Settings, first_move
):
    club = make_club(settings)
    ann = club.browser()
    games = [ann.post("/api/games/hotseat", {}).json()["game"] for _ in range(4)]
    ws, state = ann.watch(games[0])
    for ply in range(2):
        ws.send({"t": "move", "game": games[0], "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    cookies = ann.client.cookies
    club.stop()

    again = make_club(replace(settings, abort_unstarted_after_s=3600.0))
    assert again.app.state.club.rounds.rounds == {}  # nothing loaded at start-up
    ann2 = again.browser()
    ann2.client.cookies = cookies
    ann2.refresh()
    ws, resumed = ann2.watch(games[0])  # loaded when asked for
    assert resumed["moves"] == state["moves"] and resumed["status"] == "started"
    assert set(again.app.state.club.rounds.rounds) == {games[0]}
    again.stop()

    # Much later: the three games nobody started are aborted by the sweep, unloaded.
    # (A sweep every 0.2 s: the one at start-up sometimes finds nothing, not yet explained.)
    later = make_club(replace(settings, abort_unstarted_after_s=0.01, sweep_interval_s=0.2))
    ann3 = later.browser()
    ann3.client.cookies = cookies
    # The sweep runs at start-up, in the background, on the store: the player's
    # list (read from the store, loading no game) loses the three aborted games.
    name = ann.user["name"]
    _wait_for(
        lambda: [g["id"] for g in ann3.get(f"/api/users/{name}/games").json()["games"]]
        == [games[0]]
    )
    assert later.app.state.club.rounds.rounds == {}
    assert [_status(ann3, game) for game in games] == ["started"] + ["aborted"] * 3


def test_me_lists_a_bounded_page_of_games(make_club, settings: Settings):
    club = make_club(replace(settings, me_games_limit=3))
    guest = club.browser()
    games = [guest.post("/api/games/hotseat", {}).json()["game"] for _ in range(5)]
    listed = guest.get("/api/me").json()["games"]
    assert len(listed) == 3 and set(listed) <= set(games)


def test_new_guests_are_limited_per_address(make_club, settings: Settings):
    club = make_club(replace(settings, guests_per_address_per_hour=3))
    first = club.browser("10.0.0.7")
    names = {first.user["name"]}
    for _ in range(2):
        first.client.cookies.clear()
        names.add(first.get("/api/me").json()["user"]["name"])
    assert len(names) == 3
    first.client.cookies.clear()
    refused = first.get("/api/me")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate-limited"
    assert club.browser("10.0.0.8").user["guest"] is True


def test_idle_guests_expire(make_club, settings: Settings):
    # Idle after one second; swept every half second.
    club = make_club(replace(settings, guest_idle_days=1.0 / 86400, sweep_interval_s=0.5))
    idle, player = club.browser(), club.browser()
    player.post("/api/games/hotseat", {})
    _wait_for(lambda: idle.get(f"/api/users/{idle.user['name']}").status_code == 404)
    # A guest with games keeps its name and record, though its session has ended.
    assert player.get(f"/api/users/{player.user['name']}").status_code == 200
    for browser in (idle, player):
        assert browser.get("/api/me").json()["user"]["id"] != browser.user["id"]


def test_finished_games_kept_in_memory_are_bounded(make_club, settings: Settings):
    club = make_club(replace(settings, max_finished_rounds=2))
    guest = club.browser()
    ws = guest.socket()
    games = [guest.post("/api/games/hotseat", {}).json()["game"] for _ in range(5)]
    for game in games:
        ws.send({"t": "abort", "game": game})
        ws.expect_type("ack", game=game)
    assert len(club.app.state.club.rounds.rounds) == 2
    # The store keeps them all.
    assert all(_status(guest, game) == "aborted" for game in games)


def test_a_game_record_is_replayed_once_per_version(club, monkeypatch, first_move):
    ataxx = games_module.GAMES["ataxx"]
    real = ataxx.replay
    calls = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(ataxx, "replay", counted)
    guest = club.browser()
    game = guest.post("/api/games/hotseat", {}).json()["game"]
    first = [guest.get(f"/api/games/{game}").json() for _ in range(4)]
    assert len(calls) == 1 and first[0] == first[-1]
    ws, state = guest.watch(game)
    ws.send({"t": "move", "game": game, "move": first_move(state), "ply": 0})
    ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    after = [guest.get(f"/api/games/{game}").json() for _ in range(3)]
    assert len(calls) == 2 and len(after[0]["positions"]) == 2


def test_an_overlong_record_is_refused_before_it_is_replayed(make_club, settings):
    # 2,000 moves (all but the first illegal): refused by their number, unread.
    club = make_club(replace(settings, max_record_plies=100))
    guest = club.browser()
    moves = " ".join(f"{n}. g1 a7" for n in range(1, 1001))
    refused = guest.post("/api/records", {"pgn": f'[Rules "ataxx"]\n\n{moves} *\n'})
    assert refused.status_code == 400
    assert "at most 100 moves; this one is longer" in refused.json()["error"]["message"]


def test_token_buckets_forget_refilled_clients_and_stay_cheap():
    from gameclub.server.limits import TokenBuckets

    buckets = TokenBuckets(burst=2, rate=1000.0)
    for n in range(10_000):
        assert buckets.take(f"client {n}") == 0.0
    time.sleep(0.01)  # every bucket refills
    buckets.take("one more")
    assert len(buckets) < 4096
    slow = TokenBuckets(burst=1, rate=0.001)
    assert slow.take("a") == 0.0 and slow.take("a") > 100
    assert slow.take("b") == 0.0  # each key has its own bucket


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def test_engine_workers_end_with_a_killed_server(tmp_path):
    """``kill -9`` of the server leaves no engine worker behind, holding its memory."""
    server = Server(f"sqlite:///{tmp_path}/club.db", free_port(), tmp_path)
    try:
        # The workers start in the background at start-up (with the pool's own helpers).
        workers = _wait_for(lambda: _children(server.process.pid), 60)
    finally:
        server.kill()
    _wait_for(lambda: not any(_alive(pid) for pid in workers), 20)
