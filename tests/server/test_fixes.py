"""Defects found by the front end: rated once, "mine" seeks, engine warm-up, headers,
flips after a restart, unfinished games in a player's list."""

from __future__ import annotations

import time


def test_a_rated_game_is_rated_once_whatever_follows(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("once")
    bob.sign_up("twice")
    seek = ann.post("/api/seeks", {"rated": True, "color": "x"}).json()["seek"]
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    a, _ = ann.watch(game)
    b, _ = bob.watch(game)
    b.send({"t": "resign", "game": game})
    over = b.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    diff = over["result"]["rating_diff"]
    rating = ann.get("/api/users/once").json()["user"]["rating"]
    # Rematch offered, declined, offered again and accepted: each is a change of the game.
    b.send({"t": "rematch", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["rematch_offer"] == "o")
    a.send({"t": "rematch-decline", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["rematch_offer"] is None)
    b.send({"t": "rematch", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["rematch_offer"] == "o")
    a.send({"t": "rematch", "game": game})
    final = a.expect(lambda m: m["t"] == "state" and m["rematch"] is not None)
    assert final["result"]["rating_diff"] == diff
    for name in ("once", "twice"):
        user = ann.get(f"/api/users/{name}").json()["user"]
        assert user["rated_games"] == 1
        assert len(ann.get(f"/api/users/{name}/ratings").json()["history"]) == 1
    assert ann.get("/api/users/once").json()["user"]["rating"] == rating


def test_seeks_say_whether_they_are_mine(club):
    ann, bob = club.browser(), club.browser()
    a, b = ann.socket(), bob.socket()
    seek = ann.post("/api/seeks", {}).json()["seek"]
    assert seek["mine"] is True
    assert ann.get("/api/lobby").json()["seeks"][0]["mine"] is True
    assert bob.get("/api/lobby").json()["seeks"][0]["mine"] is False
    a.send({"t": "lobby"})
    b.send({"t": "lobby"})
    assert a.expect(lambda m: m["t"] == "lobby" and m["seeks"])["seeks"][0]["mine"] is True
    assert b.expect(lambda m: m["t"] == "lobby" and m["seeks"])["seeks"][0]["mine"] is False
    # Broadcasts too.
    ann.post("/api/seeks", {"color": "o"})
    mine = a.expect(lambda m: m["t"] == "lobby" and len(m["seeks"]) == 2)
    theirs = b.expect(lambda m: m["t"] == "lobby" and len(m["seeks"]) == 2)
    assert all(s["mine"] for s in mine["seeks"]) and not any(s["mine"] for s in theirs["seeks"])


def test_the_engine_warms_up_in_the_background(club):
    engines = club.app.state.club.engines
    assert engines._warming is not None  # started at start-up, not awaited by it
    deadline = time.monotonic() + 60
    while not engines.warmed and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engines.warmed and engines._warming.result() is True


def test_security_and_cache_headers(club):
    ann = club.browser()
    for path in ("/", "/game/abc", "/editor"):
        response = ann.get(path)
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
    static = ann.get("/static/app.js")
    assert static.status_code == 200 and static.headers["cache-control"] == "no-cache"
    assert "content-security-policy" not in ann.get("/api/options").headers


def test_flips_of_the_last_move_survive_a_restart(make_club, settings):
    club = make_club(settings)
    ann, bob = club.browser(), club.browser()
    inv = ann.post("/api/invitations", {"to": None, "color": "x"}).json()["invitation"]
    game = bob.post(f"/api/invitations/{inv['id']}/accept").json()["game"]
    a, state = ann.watch(game)
    b, _ = bob.watch(game)
    plies = ["b6", "g7e7", "c7", "e7c6"]  # o jumps to c6, next to b6 and c7: two flips
    for ply, move in enumerate(plies):
        ws = a if ply % 2 == 0 else b
        ws.send({"t": "move", "game": game, "move": move, "ply": ply, "id": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    flipped = state["last"]["flipped"]
    assert sorted(flipped) == ["b6", "c7"]
    cookies = dict(ann.client.cookies)
    club.stop()
    again = make_club(settings)
    ann2 = again.browser()
    ann2.client.cookies.update(cookies)
    ann2.refresh()
    _, resumed = ann2.watch(game)
    assert resumed["last"]["move"] == "e7c6" and sorted(resumed["last"]["flipped"]) == ["b6", "c7"]
    assert resumed["last"]["by"] == "o" and resumed["last"]["auto"] is False


def test_unfinished_games_have_no_result_in_a_players_list(club):
    ann = club.browser()
    ann.sign_up("lister")
    live = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    done = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    ws, _ = ann.watch(done)
    ws.send({"t": "resign", "game": done})
    ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    games = {g["id"]: g for g in ann.get("/api/users/lister/games").json()["games"]}
    assert games[live]["result"] is None and games[live]["status"] == "started"
    assert games[done]["result"]["winner"] == "o" and games[done]["status"] == "finished"
