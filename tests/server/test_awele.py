"""Awele in the club, end to end through the real app: the computer, people, ratings, records.

Sowing and capturing are checked against a few lines written here from the
rules (source 001), not against the club's library.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import invite_and_accept

START = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"
LETTERS = "ABCDEFabcdef"


def sow_and_capture(pits: list[int], pit: int) -> tuple[list[int], list[int], list[int], int]:
    """Source 001's sowing (skip the emptied pit on every lap) and capture (2 or 3 seeds,
    backwards along the opponent's row): pits after, pits sown, pits captured, seeds."""
    after = list(pits)
    seeds, after[pit] = after[pit], 0
    sown = []
    index = pit
    while seeds:
        index = (index + 1) % 12
        if index == pit:
            continue
        after[index] += 1
        sown.append(index)
        seeds -= 1
    opponent = range(6, 12) if pit < 6 else range(0, 6)
    captured: list[int] = []
    taken = 0
    index = sown[-1]
    while index in opponent and after[index] in (2, 3):
        captured.append(index)
        taken += after[index]
        index -= 1
    # A capture of the opponent's every seed (a grand slam) is allowed under "awele".
    for index in captured:
        after[index] = 0
    return after, sown, sorted(captured), taken


def start_ai_game(browser: Any, **fields: Any) -> str:
    response = browser.post("/api/games/ai", {"game": "awele", "level": "random", **fields})
    assert response.status_code == 201, response.text
    game: str = response.json()["game"]
    return game


def play_out(ws: Any, game: str, state: dict[str, Any], me: str) -> dict[str, Any]:
    """Play ``me``'s side (the first legal pit each time) until the game ends; every move
    of either side is checked against the rules written above."""
    for _ in range(600):
        if state["status"] != "started":
            return state
        plies = len(state["moves"])
        if state["turn"] == me:
            time.sleep(0.1)  # within the socket's budget of 10 messages a second
            move = state["legal"][0]
            ws.send({"t": "move", "game": game, "move": move, "ply": plies, "id": plies})
        before = state
        state = ws.expect(
            lambda m, n=plies: m["t"] == "state" and m["game"] == game and len(m["moves"]) > n
        )
        last = state["last"]
        pits, sown, captured, taken = sow_and_capture(
            before["pits"], LETTERS.index(state["moves"][plies])
        )
        assert (last["sown"], last["captured"], last["seeds"]) == (sown, captured, taken)
        if state["status"] == "started":
            assert state["pits"] == pits
            assert sum(state["pits"]) + sum(state["stores"].values()) == 48
            mover = last["by"]
            assert state["stores"][mover] == before["stores"][mover] + taken
    raise AssertionError("the game did not end in 600 moves")


def test_a_guest_plays_the_computer_to_the_end(club):
    browser = club.browser()
    game = start_ai_game(browser, color="x")
    ws, state = browser.watch(game)
    assert state["kind"] == "awele" and state["rules"] == "awele" and state["you"] == "x"
    assert state["position"] == START and state["pits"] == [4] * 12
    assert state["stores"] == {"x": 0, "o": 0} and state["legal"] == list("ABCDEF")
    assert "fen" not in state and "cells" not in state and "dests" not in state
    assert state["start_position"] == START and state["start"] == "standard"
    end = play_out(ws, game, state, "x")
    assert end["status"] == "finished" and end["legal"] == []
    result = end["result"]
    assert result["reason"] in {"majority", "draw-24", "stuck", "no-feed", "repetition"}
    x, o = result["score"]
    assert result["winner"] == (None if x == o else "x" if x > o else "o")
    # The record replays to the same end.
    record = browser.get(f"/api/games/{game}").json()
    assert record["kind"] == "awele" and record["moves"] == end["moves"]
    assert record["positions"][-1]["pits"] == end["pits"]
    assert record["result"]["score"] == [x, o]


@pytest.mark.parametrize("level", ["random", "greedy", "master"])
def test_the_computer_plays_at_every_level(club, level):
    browser = club.browser()
    game = start_ai_game(browser, color="o", level=level, rules="oware")
    ws = browser.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1, timeout=120)
    assert state["players"]["x"]["ai"] == level and state["turn"] == "o"
    assert state["moves"][0] in "ABCDEF" and state["last"]["by"] == "x"


def test_awele_settings_are_checked(club):
    browser = club.browser()
    for body, code in [
        ({"level": "simple"}, "bad-field"),  # an Ataxx level
        ({"rules": "ataxx"}, "bad-field"),
        ({"blocks": "3ghx"}, "bad-field"),
        ({"fen": "x5o/7/7/7/7/7/o5x x 0 1"}, "bad-field"),
        ({"start": "four-corners"}, "bad-field"),
        ({"start": "custom"}, "bad-field"),
        ({"position": "4-4-4-4-4-4-4-4-4-4-4-0-0-S"}, "invalid-position"),  # 11 pits
        ({"position": "4-4-4-4-4-4-4-4-4-4-4--4-0-0-S"}, "invalid-position"),  # negative
        ({"position": "9-9-9-9-9-9-4-4-4-4-4-4-0-0-S"}, "invalid-position"),  # 78 seeds
        ({"position": "4-4-4-4-4-4-4-4-4-4-4-4-0-0-W"}, "invalid-position"),  # no such side
        ({"position": "0-0-0-0-0-0-4-4-4-4-4-4-24-0-S"}, "invalid-position"),  # over
        ({"position": 44}, "bad-field"),
        ({"game": "chess"}, "bad-field"),
    ]:
        response = browser.post("/api/games/ai", {"game": "awele", **body})
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"]["code"] == code, (body, response.text)
        assert "message" in response.json()["error"]
    response = browser.post("/api/games/ai", {"level": "random", "position": START})
    assert response.json()["error"]["code"] == "bad-field"  # an Awele field for Ataxx
    assert browser.get("/api/me").json()["games"] == []


def test_a_custom_start_and_moves_of_the_wrong_game(club):
    browser = club.browser()
    position = "0-0-0-0-0-1-1-0-0-0-0-0-23-23-S"
    game = start_ai_game(browser, color="x", start="custom", position=position)
    ws, state = browser.watch(game)
    assert state["start"] == "custom" and state["position"] == position
    assert state["legal"] == ["F"]
    for move, code in [
        ("a1a3", "invalid-move"),  # an Ataxx move
        ("b2", "invalid-move"),
        ("G", "invalid-move"),
        ("", "invalid-move"),
        ("A", "illegal-move"),  # empty pit
        ("a", "illegal-move"),  # the opponent's pit
        (7, "invalid-move"),
    ]:
        ws.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 9})
        error = ws.expect(lambda m: m["t"] == "error" and m.get("id") == 9)
        assert error["code"] == code, (move, error)
    assert browser.watch(game)[1]["v"] == state["v"]
    # An Awele letter sent to an Ataxx game is refused as well.
    ataxx = browser.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    ws.send({"t": "move", "game": ataxx, "move": "C", "ply": 0, "id": 10})
    error = ws.expect(lambda m: m["t"] == "error" and m.get("id") == 10)
    assert error["code"] == "invalid-move", error
    # The capture that ends the game: F sows into a, which then holds 2.
    ws.send({"t": "move", "game": game, "move": "F", "ply": 0, "id": 11})
    end = ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    assert end["last"] == {
        "move": "F",
        "by": "x",
        "sown": [6],
        "captured": [6],
        "seeds": 2,
        "auto": False,
    }
    assert end["result"]["reason"] == "majority" and end["result"]["winner"] == "x"
    assert end["result"]["score"] == [25, 23]


def test_not_your_turn_and_nothing_changes(club):
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, game="awele")
    ws_bob, state = bob.watch(game)
    assert state["you"] == "o" and state["turn"] == "x"
    ws_bob.send({"t": "move", "game": game, "move": "a", "ply": 0, "id": 1})
    error = ws_bob.expect_type("error", id=1)
    assert error["code"] == "not-your-turn"
    assert bob.watch(game)[1]["v"] == state["v"]


def test_seeks_invitations_and_a_spectator(club):
    ann, bob, eve = club.browser(), club.browser(), club.browser()
    ws_ann = ann.socket()
    response = ann.post("/api/seeks", {"game": "awele", "rules": "awari", "color": "o"})
    assert response.status_code == 201, response.text
    seek = response.json()["seek"]
    assert seek["kind"] == "awele" and seek["rules"] == "awari" and seek["blocks"] is None
    assert [s["id"] for s in bob.get("/api/lobby?game=awele").json()["seeks"]] == [seek["id"]]
    assert bob.get("/api/lobby?game=ataxx").json()["seeks"] == []
    assert bob.get("/api/lobby?game=chess").json()["error"]["code"] == "bad-field"
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    ws_ann.expect_type("start", game=game)
    ws_bob, state = bob.watch(game)
    assert state["kind"] == "awele" and state["you"] == "x" and state["rules"] == "awari"
    ws_ann.send({"t": "sub", "game": game})
    ws_ann.state(game)
    ws_eve, watched = eve.watch(game)
    assert watched["you"] is None and watched["kind"] == "awele"
    ws_bob.send({"t": "move", "game": game, "move": "C", "ply": 0, "id": 1})
    ws_ann.send({"t": "move", "game": game, "move": "c", "ply": 1, "id": 2})
    seen = ws_eve.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    assert seen["moves"] == ["C", "c"] and seen["pits"] == [5, 4, 0, 5, 5, 5, 5, 4, 0, 5, 5, 5]
    assert not ws_eve.gaps
    live = eve.get("/api/games/live?game=awele").json()["games"]
    assert [row["id"] for row in live] == [game]
    assert live[0]["kind"] == "awele" and live[0]["stores"] == {"x": 0, "o": 0}
    assert eve.get("/api/games/live?game=ataxx").json()["games"] == []
    # An invitation by link.
    response = ann.post("/api/invitations", {"to": None, "game": "awele", "rules": "oware"})
    invitation = response.json()["invitation"]
    assert invitation["kind"] == "awele" and invitation["game"] is None
    assert eve.get(f"/api/invitations/{invitation['id']}").json()["invitation"]["rules"] == "oware"
    other = eve.post(f"/api/invitations/{invitation['id']}/accept").json()["game"]
    assert eve.watch(other)[1]["kind"] == "awele"


def test_takebacks_in_a_casual_game_against_the_computer(club):
    browser = club.browser()
    game = start_ai_game(browser, color="x")
    ws, _ = browser.watch(game)
    ws.send({"t": "move", "game": game, "move": "D", "ply": 0, "id": 1})
    ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    ws.send({"t": "takeback", "game": game, "id": 2})
    back = ws.expect(lambda m: m["t"] == "state" and m["moves"] == [])
    assert back["pits"] == [4] * 12 and back["turn"] == "x" and back["last"] is None
    assert back["legal"] == list("ABCDEF")


def test_rated_games_change_only_that_games_rating(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("ann")
    bob.sign_up("bob")
    game = invite_and_accept(ann, bob, game="awele", rated=True)
    ws_ann, _ = ann.watch(game)
    ws_ann.send({"t": "move", "game": game, "move": "A", "ply": 0, "id": 1})
    ws_bob, _ = bob.watch(game)
    ws_bob.send({"t": "move", "game": game, "move": "a", "ply": 1, "id": 2})
    ws_bob.expect_type("ack", id=2)
    ws_bob.send({"t": "resign", "game": game, "id": 3})
    end = ws_ann.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    diff = end["result"]["rating_diff"]
    assert diff["x"] > 0 > diff["o"]
    profile = ann.get("/api/users/ann").json()
    assert profile["ratings"]["awele"]["rated_games"] == 1
    assert profile["ratings"]["awele"]["rating"] > 1500
    assert profile["ratings"]["ataxx"] == {
        "rating": 1500,
        "rd": 500.0,
        "provisional": True,
        "rating_text": "1500?",
        "rated_games": 0,
    }
    assert profile["user"]["rating"] == 1500  # the Ataxx rating, as before
    board = ann.get("/api/leaderboard?game=awele").json()
    assert [p["name"] for p in board["players"]] == ["ann", "bob"]
    assert ann.get("/api/leaderboard").json()["players"] == []
    assert ann.get("/api/leaderboard?game=ataxx").json()["players"] == []
    history = ann.get("/api/users/bob/ratings?game=awele").json()["history"]
    assert [h["game"] for h in history] == [game]
    assert ann.get("/api/users/bob/ratings").json()["history"] == []
    stats = ann.get("/api/users/ann?game=awele").json()["stats"]
    assert stats["kind"] == "awele" and stats["overall"] == {"win": 1, "loss": 0, "draw": 0}
    assert ann.get("/api/users/ann").json()["stats"]["overall"]["win"] == 0
    rows = ann.get("/api/users/ann/games?game=awele").json()
    assert rows["total"] == 1 and rows["games"][0]["kind"] == "awele"
    assert ann.get("/api/users/ann/games?game=ataxx").json()["total"] == 0
    # The next game shows the players with their Awele ratings.
    again = invite_and_accept(ann, bob, game="awele", rated=True)
    players = ann.watch(again)[1]["players"]
    assert players["x"]["rating"] == profile["ratings"]["awele"]["rating"]


def test_records_download_and_upload(club):
    browser = club.browser()
    game = start_ai_game(browser, color="x")
    ws, state = browser.watch(game)
    for ply in (0, 2, 4):
        move = state["legal"][0]
        ws.send({"t": "move", "game": game, "move": move, "ply": ply, "id": ply})
        state = ws.expect(
            lambda m, n=ply: m["t"] == "state"
            and (len(m["moves"]) == n + 2 or m["status"] != "started")
        )
    response = browser.get(f"/api/games/{game}/record")
    assert response.status_code == 200
    assert 'filename="gameclub-' in response.headers["content-disposition"]
    assert response.headers["content-disposition"].endswith('.ogn"')
    text = response.text
    assert '[Variant "awele"]' in text and "[South " in text
    assert browser.get(f"/api/games/{game}/pgn").status_code == 404
    record = browser.get(f"/api/games/{game}").json()
    assert record["record"]["format"] == "ogn" and record["ogn"] == text
    assert record["positions"][1]["last"]["move"] == record["moves"][0]
    loaded = browser.post("/api/records", {"ogn": text})
    assert loaded.status_code == 200, loaded.text
    body = loaded.json()
    assert body["kind"] == "awele" and body["moves"] == record["moves"]
    assert [p["position"] for p in body["positions"]] == [
        p["position"] for p in record["positions"]
    ]
    assert body["continuable"] and body["positions"][2]["continuable"]
    assert body["players"]["o"] == "Computer (random)"
    # Continue from the position after two moves.
    again = browser.post(
        "/api/games/hotseat",
        {
            "game": "awele",
            "rules": body["rules"],
            "start": "custom",
            "position": body["positions"][2]["position"],
        },
    )
    assert again.status_code == 201, again.text
    assert browser.watch(again.json()["game"])[1]["pits"] == body["positions"][2]["pits"]
    for bad, code in [
        ({"ogn": "1. G"}, "invalid-record"),
        ({"ogn": '[Variant "chess"]\n\n1. A'}, "invalid-record"),
        ({"ogn": "1. A a 2. A"}, "invalid-record"),  # A is empty by then
        ({"ogn": text, "pgn": "1. g2"}, "bad-field"),
        ({}, "bad-field"),
        ({"ogn": 5}, "bad-field"),
    ]:
        response = browser.post("/api/records", bad)
        assert response.status_code == 400, (bad, response.text)
        assert response.json()["error"]["code"] == code, (bad, response.text)


def test_options_and_setups(club):
    browser = club.browser()
    options = browser.get("/api/options").json()
    assert options["levels"] == ["random", "simple", "hard", "expert", "master"]
    games = {game["id"]: game for game in options["games"]}
    assert [r["name"] for r in games["awele"]["rulesets"]] == ["awele", "awari", "oware"]
    assert games["awele"]["levels"] == ["random", "greedy", "master"]
    assert games["awele"]["default_rules"] == "awele"
    setup = browser.get(
        "/api/setup",
        params={"game": "awele", "start": "custom", "position": "0-0-0-0-0-0-1-0-0-0-0-0-0-0-N"},
    ).json()
    assert setup["kind"] == "awele" and setup["turn"] == "o" and setup["legal"] == ["a"]
    refused = browser.get("/api/setup", params={"game": "awele", "position": "1-2-3"}).json()
    assert refused["error"]["code"] == "invalid-position"


def test_an_awele_game_with_a_clock_survives_a_restart(make_club, settings):
    club = make_club(settings)
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, game="awele", clock={"base": 60, "increment": 2})
    ws_ann, state = ann.watch(game)
    ws_bob, _ = bob.watch(game)
    for ply, move in enumerate(["C", "c", "A"]):
        ws = ws_ann if ply % 2 == 0 else ws_bob
        ws.send({"t": "move", "game": game, "move": move, "ply": ply, "id": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    assert state["clocks"]["running"] == "o"
    cookies = bob.client.cookies
    club.stop()

    again = make_club(settings)
    bob2 = again.browser()
    bob2.client.cookies = cookies
    ws, resumed = bob2.watch(game)
    assert resumed["kind"] == "awele" and resumed["moves"] == ["C", "c", "A"]
    assert resumed["pits"] == state["pits"] and resumed["stores"] == state["stores"]
    assert resumed["last"] == state["last"] and resumed["legal"] == state["legal"]
    assert resumed["clocks"]["running"] == "o" and resumed["you"] == "o"
    ws.send({"t": "move", "game": game, "move": resumed["legal"][0], "ply": 3, "id": 9})
    assert len(ws.state(game, min_v=resumed["v"] + 1)["moves"]) == 4


def test_play_again_and_rematch_keep_the_game(club):
    browser = club.browser()
    game = start_ai_game(browser, color="x", rules="awari", level="greedy")
    ws, _ = browser.watch(game)
    ws.send({"t": "resign", "game": game, "id": 1})
    ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    response = browser.post(f"/api/games/{game}/again")
    assert response.status_code == 201, response.text
    _, again = browser.watch(response.json()["game"])
    assert again["kind"] == "awele" and again["rules"] == "awari" and again["you"] == "x"
    assert again["players"]["o"]["ai"] == "greedy"
    ws.send({"t": "rematch", "game": game, "id": 2})
    start = ws.expect_type("start")
    _, rematch = browser.watch(start["game"])
    assert rematch["kind"] == "awele" and rematch["you"] == "o"
