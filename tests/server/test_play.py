"""Playing over the WebSocket: against the computer and people, every refusal, the endings."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from gameclub.ataxx import Board
from gameclub.server.round import WATCHABLE_IDLE_MS
from gameclub.server.settings import Settings

from .conftest import first_move, invite_and_accept


def start_ai_game(browser, **fields: Any) -> str:
    response = browser.post("/api/games/ai", {"level": "random", **fields})
    assert response.status_code == 201, response.text
    game: str = response.json()["game"]
    return game


def test_guest_plays_the_computer_at_once(club):
    browser = club.browser()
    game = start_ai_game(browser, color="x")
    ws = browser.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.state(game)
    assert state["you"] == "x" and state["turn"] == "x" and state["status"] == "started"
    assert state["players"]["o"]["ai"] == "random"
    assert state["cells"][0] == "x.....o" and state["counts"] == {"x": 2, "o": 2}
    assert state["dests"]["a7"]["clone"] and state["abortable"] is True
    move = first_move(state)
    ws.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 1})
    ack = ws.expect_type("ack", id=1)
    assert ack["v"] > state["v"]
    # The computer answers by itself (its first move may wait for the engine's
    # kernels to compile on a fresh checkout).
    after = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) >= 2, timeout=60)
    assert after["moves"][0] == move and after["turn"] == "x"
    assert after["last"]["by"] == "o"
    assert browser.get("/api/me").json()["games"] == [game]


def test_computer_moves_first_when_it_has_x(club):
    browser = club.browser()
    game = start_ai_game(browser, color="o", rules="pressibus", blocks="3ghx")
    ws = browser.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    assert state["you"] == "o" and state["turn"] == "o" and state["blocks"] == "3ghx"
    assert sum(row.count("#") for row in state["cells"]) == 11


def test_bad_game_settings_are_refused(club):
    browser = club.browser()
    for body, code in [
        ({"level": "godlike"}, "bad-field"),
        ({"level": "random", "rules": "chess"}, "bad-field"),
        ({"level": "random", "blocks": "zz"}, "invalid-blocks"),
        ({"level": "random", "blocks": "2356cfgh"}, "invalid-blocks"),
        ({"level": "random", "clock": {"base": 0, "increment": 0}}, "bad-field"),
        ({"level": "random", "clock": "5+3"}, "bad-field"),
        ({"level": "random", "color": "green"}, "bad-field"),
        ({"level": "random", "rated": True}, "bad-field"),
    ]:
        response = browser.post("/api/games/ai", body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"]["code"] == code, (body, response.text)
    assert browser.get("/api/me").json()["games"] == []


def test_random_blocks_are_a_valid_code(club):
    browser = club.browser()
    game = start_ai_game(browser, blocks="random", color="x")
    record = browser.get(f"/api/games/{game}").json()
    from gameclub.ataxx.blocks import BlocsConfig

    assert BlocsConfig.parse(record["blocks"]).is_valid


def test_every_bad_message_gets_a_clear_error_and_changes_nothing(club):
    ann, bob, carl = club.browser(), club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a, b, c = ann.socket(), bob.socket(), carl.socket()
    for ws in (a, b, c):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    assert state["you"] == "x" and b.state(game)["you"] == "o" and c.state(game)["you"] is None
    move = first_move(state)

    def refused(ws, message: Any, code: str) -> None:
        if isinstance(message, str):
            ws.send_text(message)
        else:
            ws.send(message)
        error = ws.expect_type("error")
        assert error["code"] == code, (message, error)

    refused(b, {"t": "move", "game": game, "move": move, "ply": 0}, "not-your-turn")
    refused(c, {"t": "move", "game": game, "move": move, "ply": 0}, "not-a-player")
    refused(c, {"t": "resign", "game": game}, "not-a-player")
    refused(a, {"t": "move", "game": "nope1234", "move": move, "ply": 0}, "no-such-game")
    refused(a, {"t": "move", "game": {"x": 1}, "move": move, "ply": 0}, "no-such-game")
    refused(a, {"t": "move", "game": game, "move": "d4", "ply": 0}, "illegal-move")
    refused(a, {"t": "move", "game": game, "move": "a7a4", "ply": 0}, "invalid-move")
    refused(a, {"t": "move", "game": game, "move": "g7g5", "ply": 0}, "illegal-move")
    refused(a, {"t": "move", "game": game, "move": "0000", "ply": 0}, "illegal-move")
    refused(a, {"t": "move", "game": game, "move": "z9", "ply": 0}, "invalid-move")
    refused(a, {"t": "move", "game": game, "move": 42, "ply": 0}, "invalid-move")
    refused(a, {"t": "move", "game": game, "move": move, "ply": 3}, "stale")
    refused(a, {"t": "move", "game": game, "move": move, "ply": "0"}, "bad-field")
    refused(a, "{not json", "bad-json")
    refused(a, "[1, 2]", "bad-message")
    refused(a, {"t": "teleport"}, "unknown-type")
    refused(a, {"t": "ping", "id": [1]}, "bad-field")
    refused(a, {"t": "ping", "pad": "x" * 5000}, "too-large")
    refused(a, {"t": "claim", "game": game}, "not-allowed")
    refused(a, {"t": "draw-decline", "game": game}, "not-allowed")
    refused(a, {"t": "rematch", "game": game}, "not-allowed")
    # Nothing changed: the game is where it was.
    a.send({"t": "sub", "game": game})
    again = a.state(game)
    assert again["v"] == state["v"] and again["moves"] == []
    # And a good move still works.
    a.send({"t": "move", "game": game, "move": move, "ply": 0, "id": "m1"})
    assert a.expect_type("ack", id="m1")
    seen = c.state(game, min_v=state["v"] + 1)
    assert seen["moves"] == [move] and seen["you"] is None


def test_a_resent_move_is_acknowledged_but_applied_once(club):
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a = ann.socket()
    a.send({"t": "sub", "game": game})
    state = a.state(game)
    move = first_move(state)
    a.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 1})
    first = a.expect_type("ack", id=1)
    a.close()
    a = ann.socket()  # reconnect, resend the same move
    a.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 2})
    second = a.expect_type("ack", id=2)
    assert second["v"] == first["v"]
    a.send({"t": "sub", "game": game})
    assert a.state(game)["moves"] == [move]
    record = ann.get(f"/api/games/{game}").json()
    assert record["moves"] == [move]


def test_spectators_watch_live_with_a_count(club):
    ann, bob, viewer = club.browser(), club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a, v = ann.socket(), viewer.socket()
    a.send({"t": "sub", "game": game})
    a.state(game)
    v.send({"t": "sub", "game": game})
    watched = v.state(game)
    assert watched["spectators"] == 1
    presence = a.expect_type("presence", game=game)
    assert presence["spectators"] == 1
    a.send({"t": "move", "game": game, "move": first_move(watched), "ply": 0})
    assert len(v.state(game, min_v=watched["v"] + 1)["moves"]) == 1
    v.close()
    assert a.expect_type("presence", game=game)["spectators"] == 0


def test_the_watch_list_has_only_games_really_being_played(club):
    ann, bob, viewer = club.browser(), club.browser(), club.browser()
    untouched = invite_and_accept(ann, bob)  # abandoned before the first move
    game = invite_and_accept(ann, bob)
    listed = lambda: [g["id"] for g in viewer.get("/api/games/live").json()["games"]]  # noqa: E731
    assert listed() == []
    a, b = ann.socket(), bob.socket()
    a.send({"t": "sub", "game": game})
    state = a.state(game)
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0, "id": 1})
    a.expect_type("ack", id=1)
    assert listed() == []  # only one side has moved
    b.send({"t": "sub", "game": game})
    state = b.state(game, min_v=state["v"] + 1)
    b.send({"t": "move", "game": game, "move": first_move(state), "ply": 1, "id": 2})
    b.expect_type("ack", id=2)
    live = viewer.get("/api/games/live").json()["games"]
    assert [g["id"] for g in live] == [game] and live[0]["plies"] == 2
    assert untouched not in listed()
    # Left alone for longer than the limit: no longer listed.
    rnd = club.app.state.club.rounds.rounds[game]
    assert rnd.watchable(rnd.last_move_at + WATCHABLE_IDLE_MS)
    assert not rnd.watchable(rnd.last_move_at + WATCHABLE_IDLE_MS + 1)


def test_a_move_text_error_names_the_files_and_ranks_of_the_board(club):
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a = ann.socket()
    a.send({"t": "sub", "game": game})
    a.state(game)
    for text in ("zz", "h8", "a0"):
        a.send({"t": "move", "game": game, "move": text, "ply": 0})
        error = a.expect_type("error")
        assert error["code"] in ("invalid-move", "illegal-move"), error
        assert "a-g" in error["message"] and "1-7" in error["message"], error
        assert "a-h" not in error["message"] and "1-8" not in error["message"], error


def test_resign_draw_and_abort(club):
    ann, bob = club.browser(), club.browser()
    # Abort before both have moved.
    game = invite_and_accept(ann, bob)
    a, b = ann.socket(), bob.socket()
    a.send({"t": "sub", "game": game})
    b.send({"t": "sub", "game": game})
    state = a.state(game)
    a.send({"t": "abort", "game": game, "id": 1})
    a.expect_type("ack", id=1)
    ended = b.expect(lambda m: m["t"] == "state" and m["status"] == "aborted")
    assert ended["result"]["reason"] == "aborted" and ended["result"]["winner"] is None

    # Draw by agreement after some moves; abort is no longer possible.
    game = invite_and_accept(ann, bob)
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0})
    state = b.expect(lambda m: m["t"] == "state" and m["game"] == game and len(m["moves"]) == 1)
    b.send({"t": "move", "game": game, "move": first_move(state), "ply": 1})
    a.expect(lambda m: m["t"] == "state" and m["game"] == game and len(m["moves"]) == 2)
    a.send({"t": "abort", "game": game})
    assert a.expect_type("error")["code"] == "not-allowed"
    a.send({"t": "draw", "game": game})
    offered = b.expect(lambda m: m["t"] == "state" and m["game"] == game and m["draw_offer"] == "x")
    assert offered["status"] == "started"
    b.send({"t": "draw", "game": game})
    drawn = a.expect(
        lambda m: m["t"] == "state" and m["game"] == game and m["status"] == "finished"
    )
    assert drawn["result"]["winner"] is None and drawn["result"]["reason"] == "agreement"
    b.send({"t": "move", "game": game, "move": "a1", "ply": 2})
    assert b.expect_type("error")["code"] == "game-over"

    # Resignation.
    game = invite_and_accept(ann, bob)
    b.send({"t": "sub", "game": game})
    b.state(game)
    b.send({"t": "resign", "game": game})
    over = b.expect(lambda m: m["t"] == "state" and m["game"] == game and m["status"] == "finished")
    assert over["result"]["winner"] == "x" and over["result"]["reason"] == "resign"


def test_rematch_swaps_colours_and_keeps_blocks(club):
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, blocks="3ghx", rules="pressibus")
    a, b = ann.socket(), bob.socket()
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
        ws.state(game)
    a.send({"t": "resign", "game": game})
    b.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    b.send({"t": "rematch", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["rematch_offer"] == "o")
    a.send({"t": "rematch", "game": game})
    new = a.expect(lambda m: m["t"] == "state" and m["rematch"] is not None)["rematch"]
    assert b.expect_type("start", game=new)
    b.send({"t": "sub", "game": new})
    state = b.state(new)
    assert state["you"] == "x" and state["blocks"] == "3ghx" and state["rules"] == "pressibus"
    assert state["players"]["o"]["name"] == ann.user["name"]


def test_clock_runs_out(make_club, settings: Settings):
    club = make_club(settings)
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, clock={"base": 1, "increment": 0})
    a, b = ann.socket(), bob.socket()
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    assert state["clocks"]["running"] is None  # clocks start after both first moves
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0})
    state = b.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    b.send({"t": "move", "game": game, "move": first_move(state), "ply": 1})
    running = a.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    assert running["clocks"]["running"] == "x"
    # x does not move: after a second the server ends the game by itself.
    over = a.expect(lambda m: m["t"] == "state" and m["status"] == "finished", timeout=5)
    assert over["result"] == {**over["result"], "winner": "o", "reason": "timeout"}
    assert over["clocks"]["x"] == 0


def test_opponent_may_claim_after_the_grace_period(make_club, settings: Settings):
    club = make_club(replace(settings, disconnect_grace_s=0.3))
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a, b = ann.socket(), bob.socket()
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0})
    state = b.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    b.send({"t": "move", "game": game, "move": first_move(state), "ply": 1})
    a.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    b.close()
    presence = a.expect(lambda m: m["t"] == "presence" and m["online"]["o"] is False)
    assert presence["claim_at"] is not None
    time.sleep(0.4)
    a.send({"t": "claim", "game": game, "id": 5})
    # The new state goes out to every subscriber first, then the ack to the sender.
    over = a.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    assert over["result"]["winner"] == "x" and over["result"]["reason"] == "abandon"
    assert a.expect_type("ack", id=5)["v"] == over["v"]


def test_a_game_played_to_the_end(make_club, settings: Settings):
    """Play legal moves until the rules end the game; the record replays it."""
    # Faster than any person: lift the message budget.
    club = make_club(replace(settings, ws_burst=10_000))
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, rules="ataxx", blocks="1x")
    sockets = {"x": ann.socket(), "o": bob.socket()}
    for ws in sockets.values():
        ws.send({"t": "sub", "game": game})
    state = sockets["x"].state(game)
    sockets["o"].state(game)
    plies = 0
    while state["status"] == "started" and plies < 400:
        ws = sockets[state["turn"]]
        ply = len(state["moves"])
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply, "id": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
        ws.expect_type("ack", id=ply)
        plies += 1
    assert state["status"] == "finished", state
    assert state["result"]["reason"] in {"board-full", "no-pieces", "no-moves", "fifty-moves"}
    record = ann.get(f"/api/games/{game}").json()
    assert record["moves"] == state["moves"]
    assert len(record["positions"]) == len(record["moves"]) + 1
    assert record["positions"][-1]["cells"] == state["cells"]
    board = Board(record["start_fen"])
    for move in record["moves"]:
        board.push_uci(move)
    assert "[Result" in record["pgn"]


@pytest.mark.parametrize("level", ["random", "simple"])
def test_levels_play(club, level):
    browser = club.browser()
    game = start_ai_game(browser, color="o", level=level)
    ws = browser.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    assert state["players"]["x"]["ai"] == level


def test_message_budget(make_club, settings: Settings):
    club = make_club(replace(settings, ws_burst=5, ws_rate_per_s=0.001, ws_close_after_overdraft=3))
    ws = club.browser().socket()
    for n in range(5):
        ws.send({"t": "ping", "id": n})
        assert ws.receive()["t"] == "pong"
    ws.send({"t": "ping", "id": 99})
    assert ws.receive()["code"] == "rate-limited"
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as closed:
        for _ in range(10):
            ws.send({"t": "ping"})
            ws.receive()
    assert closed.value.code == 1008
