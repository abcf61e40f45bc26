"""Moves travel as small versioned deltas; full states answer `sub` and every other change.

The test sockets rebuild the full state from each delta the way the browser
does (``conftest.apply_delta``, written independently of the server); these
tests check that what they rebuild is exactly the state the server sends on a
fresh `sub`, that every subscriber gets the same delta, and that a missed
delta (a version gap) or a lost connection is repaired by a resync.
"""

from __future__ import annotations

from typing import Any

from gameclub.ataxx import Board

from .conftest import first_move, invite_and_accept

#: Fields that differ between two readings of the same version: clock times at "now".
TIMED = ("clocks",)


def same_state(rebuilt: dict[str, Any], full: dict[str, Any]) -> None:
    """``rebuilt`` (from deltas) is ``full`` (a fresh state of the same version)."""
    assert rebuilt["v"] == full["v"]
    for key in full:
        if key in TIMED:
            continue
        assert rebuilt.get(key) == full[key], (key, rebuilt.get(key), full[key])
    clocks, full_clocks = rebuilt["clocks"], full["clocks"]
    if full_clocks is None:
        assert clocks is None
    else:
        assert clocks["running"] == full_clocks["running"]
        for color in ("x", "o"):
            # Both read the same clock, the fresh one a little later.
            assert 0 <= clocks[color] - full_clocks[color] <= 2000


def resubscribe(ws, game: str) -> dict[str, Any]:
    """A fresh full state of ``game`` on ``ws`` (which then follows that state)."""
    ws.send({"t": "sub", "game": game, "v": ws.states[game]["v"]})
    state: dict[str, Any] = ws.expect(lambda m: m["t"] == "state" and m["game"] == game)
    return state


def test_moves_arrive_as_the_same_delta_for_players_and_spectators(club):
    ann, bob, carl = club.browser(), club.browser(), club.browser()
    game = invite_and_accept(ann, bob, clock={"base": 300, "increment": 2})
    a, b, c = ann.socket(), bob.socket(), carl.socket()
    for ws in (a, b, c):
        ws.send({"t": "sub", "game": game})
        ws.state(game)
    a.expect_type("presence", game=game)  # carl arrives
    b.expect_type("presence", game=game)
    for ply in range(12):
        mover = (a, b)[ply % 2]
        held = mover.states[game]
        mover.send(
            {"t": "move", "game": game, "move": first_move(held), "ply": ply, "id": f"m{ply}"}
        )
        deltas = [ws.expect_type("delta", game=game) for ws in (a, b, c)]
        # One text for everybody: the same delta, one version on, no per-connection field.
        assert deltas[0] == deltas[1] == deltas[2]
        delta = deltas[0]
        assert delta["v"] == held["v"] + 1 and delta["ply"] == ply
        assert "you" not in delta and "players" not in delta and "moves" not in delta
        ack = mover.expect_type("ack", id=f"m{ply}")
        assert ack["v"] == delta["v"]
        assert not (a.gaps or b.gaps or c.gaps)
        # What each socket rebuilt is the state the server sends on a fresh sub.
        for ws in (a, b, c):
            same_state(ws.states[game], resubscribe(ws, game))
    assert a.states[game]["you"] == "x" and b.states[game]["you"] == "o"
    assert c.states[game]["you"] is None
    assert len(c.states[game]["moves"]) == 12


def test_a_version_gap_is_repaired_by_a_resync(club):
    ann, bob, carl = club.browser(), club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a, b, c = ann.socket(), bob.socket(), carl.socket()
    for ws in (a, b, c):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    b.state(game)
    c.state(game)
    # The spectator misses the first move's delta (read here, never applied).
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0, "id": 1})
    a.expect_type("ack", id=1)
    missed = c.receive()  # raw: not followed
    while missed["t"] != "delta":
        missed = c.receive()
    assert missed["v"] == state["v"] + 1
    second = b.state(game, min_v=missed["v"])
    b.send({"t": "move", "game": game, "move": first_move(second), "ply": 1, "id": 2})
    b.expect_type("ack", id=2)
    # The next delta does not follow the state the spectator holds: a gap.
    gap = c.expect_type("delta", game=game)
    assert gap["v"] == state["v"] + 2 and c.gaps == [gap]
    assert len(c.states[game]["moves"]) == 0
    # The resync: sub with the version held, answered with the full state.
    c.send({"t": "sub", "game": game, "v": c.states[game]["v"]})
    full = c.state(game)
    assert full["v"] == gap["v"] and len(full["moves"]) == 2 and full["you"] is None
    # And the deltas after it apply again.
    third = a.state(game, min_v=gap["v"])
    a.send({"t": "move", "game": game, "move": first_move(third), "ply": 2, "id": 3})
    rebuilt = c.state(game, min_v=gap["v"] + 1)
    assert len(rebuilt["moves"]) == 3 and c.gaps == [gap]
    same_state(rebuilt, resubscribe(c, game))


def test_a_player_back_after_a_lost_connection_gets_the_full_state(club):
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob)
    a, b = ann.socket(), bob.socket()
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0, "id": 1})
    a.expect_type("ack", id=1)  # the delta came first: followed
    held = a.states[game]
    assert held["v"] == state["v"] + 1
    a.close()  # ann's connection is lost; bob moves meanwhile
    seen = b.state(game, min_v=held["v"])
    b.send({"t": "move", "game": game, "move": first_move(seen), "ply": 1, "id": 2})
    b.expect_type("ack", id=2)
    a = ann.socket()
    a.send({"t": "sub", "game": game, "v": held["v"]})
    back = a.state(game)
    assert back["t"] == "state" and len(back["moves"]) == 2 and back["you"] == "x"
    assert back["players"]["x"]["online"] is True
    # Playing on from the state of the resync: deltas again.
    a.send({"t": "move", "game": game, "move": first_move(back), "ply": 2, "id": 3})
    delta = a.expect_type("delta", game=game)
    assert delta["v"] == back["v"] + 1
    assert a.states[game]["v"] == delta["v"]
    same_state(a.states[game], resubscribe(a, game))


def two_players_from(club, fen: str) -> tuple[str, Any, Any, dict[str, Any]]:
    """A game between two new players from ``fen``, both subscribed: (id, x's socket,
    o's socket, the first state)."""
    ann, bob = club.browser(), club.browser()
    game = invite_and_accept(ann, bob, fen=fen)
    a, b = ann.socket(), bob.socket()
    for ws in (a, b):
        ws.send({"t": "sub", "game": game})
    state = a.state(game)
    b.state(game)
    return game, a, b, state


def test_forced_passes_travel_in_the_same_delta(club):
    # o's one piece is walled in: after any x move far from it, o must pass.
    fen = "7/7/7/7/xxx4/xxx4/oxx4 x 0 1"
    game, a, b, state = two_players_from(club, fen)
    assert state["turn"] == "x" and state["start"] == "custom"
    a.send({"t": "move", "game": game, "move": "d4", "ply": 0, "id": 1})
    delta = b.expect_type("delta", game=game)
    assert [p["move"] for p in delta["plies"]] == ["d4", "0000"]
    assert [p["auto"] for p in delta["plies"]] == [False, True]
    assert delta["plies"][1]["by"] == "o" and delta["turn"] == "x"
    assert delta["dests"] and delta["fen"] == _after(fen, "d4", "0000")
    rebuilt = b.states[game]
    assert rebuilt["v"] == delta["v"]
    assert rebuilt["moves"] == ["d4", "0000"] and rebuilt["last"]["auto"] is True
    same_state(rebuilt, resubscribe(b, game))


def _after(fen: str, *moves: str) -> str:
    board = Board(fen)
    for move in moves:
        board.push_uci(move)
    return board.fen()


def test_the_move_that_ends_the_game_sends_the_full_state(club):
    # x takes o's last piece: the game is over (no pieces).
    fen = "7/7/7/7/7/1x5/o6 x 0 1"
    game, a, b, state = two_players_from(club, fen)
    a.send({"t": "move", "game": game, "move": "a2", "ply": 0, "id": 1})
    ended = b.expect(lambda m: m["t"] in ("state", "delta") and m["v"] > state["v"])
    assert ended["t"] == "state" and ended["status"] == "finished"
    assert ended["result"]["reason"] == "no-pieces" and ended["result"]["winner"] == "x"
    assert ended["moves"] == ["a2"] and ended["dests"] == {}
    assert a.expect_type("ack", id=1)["v"] == ended["v"]


def test_on_the_hot_seat_you_follows_the_side_to_move(club):
    ann = club.browser()
    game = ann.post("/api/games/hotseat", {}).json()["game"]
    ws = ann.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.state(game)
    assert state["hotseat"] is True and state["you"] == state["turn"] == "x"
    for ply in range(3):
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply, "id": ply})
        delta = ws.expect_type("delta", game=game)
        state = ws.states[game]
        assert state["v"] == delta["v"]
        assert state["you"] == state["turn"] == ("o", "x")[ply % 2]
    same_state(state, resubscribe(ws, game))


def test_the_computers_moves_are_deltas_too(club):
    ann = club.browser()
    response = ann.post("/api/games/ai", {"level": "random", "color": "x"})
    game = response.json()["game"]
    ws = ann.socket()
    ws.send({"t": "sub", "game": game})
    state = ws.state(game)
    ws.send({"t": "move", "game": game, "move": first_move(state), "ply": 0, "id": 1})
    mine = ws.expect_type("delta", game=game)
    reply = ws.expect_type("delta", game=game, v=mine["v"] + 1)
    assert reply["plies"][0]["by"] == "o" and reply["ply"] == 1
    same_state(ws.states[game], resubscribe(ws, game))
