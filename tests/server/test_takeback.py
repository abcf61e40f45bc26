"""Undo: against the computer at once, against a person by asking, never in rated games;
and the hot seat (two people on one device)."""

from __future__ import annotations


def test_taking_back_against_the_computer(club, make_club, settings, first_move):
    ann = club.browser()
    game = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    ws, state = ann.watch(game)
    assert state["takebacks"] is True and state["takeback_offer"] is None
    # Nothing to take back yet: refused, nothing changes.
    ws.send({"t": "takeback", "game": game, "id": 1})
    error = ws.expect_type("error", id=1)
    assert error["code"] == "not-allowed" and "no move to take back" in error["message"]
    moves: list[str] = []
    for ply in (0, 2):
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) >= n + 2)
        moves = state["moves"]
    assert len(moves) == 4
    before_v = state["v"]
    ws.send({"t": "takeback", "game": game, "id": 2})
    back = ws.expect(lambda m: m["t"] == "state" and m["v"] > before_v)
    ws.expect_type("ack", id=2)
    # Our last move and the computer's reply are gone; it is our turn again.
    assert back["moves"] == moves[:2] and back["turn"] == "x" and back["you"] == "x"
    assert back["last"]["move"] == moves[1] and back["last"]["by"] == "o"
    assert back["dests"]
    record = ann.get(f"/api/games/{game}").json()
    assert record["moves"] == moves[:2] and len(record["positions"]) == 3
    # Stored: a restarted server has the same moves.
    cookies = ann.client.cookies
    club.stop()
    again = make_club(settings)
    ann2 = again.browser()
    ann2.client.cookies = cookies
    ann2.refresh()
    ws2, resumed = ann2.watch(game)
    assert resumed["moves"] == moves[:2]
    # And the game goes on from there.
    ws2.send({"t": "move", "game": game, "move": first_move(resumed), "ply": 2, "id": 3})
    ws2.expect_type("ack", id=3)


def test_a_finished_game_against_the_computer_can_be_reopened(club):
    ann = club.browser()
    # x to move can take the last empty square next to o's only piece... and win.
    fen = "xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxx1o x 0 1"
    game = ann.post("/api/games/ai", {"level": "random", "color": "x", "fen": fen}).json()["game"]
    ws, _ = ann.watch(game)
    ws.send({"t": "move", "game": game, "move": "f1", "ply": 0})
    over = ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    assert over["result"]["reason"] in ("no-pieces", "board-full")
    ws.send({"t": "takeback", "game": game, "id": 5})
    reopened = ws.expect(lambda m: m["t"] == "state" and m["status"] == "started")
    assert reopened["moves"] == [] and reopened["result"] is None and reopened["fen"] == fen
    # A resignation is final.
    ws.send({"t": "resign", "game": game})
    ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    ws.send({"t": "takeback", "game": game, "id": 6})
    assert ws.expect_type("error", id=6)["code"] == "game-over"


def test_asking_a_person_for_a_takeback(club, first_move):
    ann, bob = club.browser(), club.browser()
    inv = ann.post("/api/invitations", {"to": None, "color": "x"}).json()["invitation"]
    game = bob.post(f"/api/invitations/{inv['id']}/accept").json()["game"]
    a, state = ann.watch(game)
    b, _ = bob.watch(game)
    for ply in range(3):
        ws = a if ply % 2 == 0 else b
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    moves = state["moves"]
    # Bob (o) cannot take back out of turn what he has not played... he has played ply 1:
    # he asks; ann declines; nothing changes.
    b.send({"t": "takeback", "game": game, "id": 1})
    asked = b.expect(lambda m: m["t"] == "state" and m["takeback_offer"] == "o")
    assert asked["moves"] == moves
    a.send({"t": "takeback-decline", "game": game, "id": 2})
    declined = a.expect(lambda m: m["t"] == "state" and m["takeback_offer"] is None)
    assert declined["moves"] == moves
    a.send({"t": "takeback-decline", "game": game, "id": 3})
    assert a.expect_type("error", id=3)["code"] == "not-allowed"
    # Asked again and accepted: bob's move and ann's reply go; bob is to move.
    b.send({"t": "takeback", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["takeback_offer"] == "o")
    a.send({"t": "takeback", "game": game, "id": 4})
    back = a.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    assert back["moves"] == moves[:1] and back["turn"] == "o" and back["takeback_offer"] is None
    # A move answers a pending request (declines it).
    a.send({"t": "takeback", "game": game})
    a.expect(lambda m: m["t"] == "state" and m["takeback_offer"] == "x")
    b.send({"t": "move", "game": game, "move": first_move(back), "ply": 1})
    moved = b.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    assert moved["takeback_offer"] is None


def test_no_takebacks_in_rated_games(club, first_move):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("strict")
    bob.sign_up("stern")
    seek = ann.post("/api/seeks", {"rated": True, "color": "x"}).json()["seek"]
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    a, state = ann.watch(game)
    assert state["takebacks"] is False
    a.send({"t": "move", "game": game, "move": first_move(state), "ply": 0})
    a.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 1)
    a.send({"t": "takeback", "game": game, "id": 1})
    error = a.expect_type("error", id=1)
    assert error["code"] == "not-allowed" and "rated" in error["message"]
    # A spectator cannot ask either.
    carl = club.browser()
    c, _ = carl.watch(game)
    c.send({"t": "takeback", "game": game, "id": 2})
    assert c.expect_type("error", id=2)["code"] == "not-a-player"


def test_hot_seat(club, first_move):
    ann = club.browser()
    ann.sign_up("solo")
    assert ann.post("/api/games/hotseat", {"rated": True}).status_code == 400
    game = ann.post("/api/games/hotseat", {"blocks": "3ghx"}).json()["game"]
    ws, state = ann.watch(game)
    assert state["hotseat"] is True and state["you"] == "x" and state["blocks"] == "3ghx"
    assert state["players"]["x"]["id"] == state["players"]["o"]["id"] == ann.user["id"]
    # One browser plays both sides: "you" follows the side to move.
    for ply in range(3):
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
        assert state["you"] == state["turn"]
    ws.send({"t": "takeback", "game": game, "id": 1})
    back = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) == 2)
    assert back["turn"] == "x" and back["you"] == "x"
    # A spectator is only a spectator.
    bob = club.browser()
    b, seen = bob.watch(game)
    assert seen["you"] is None
    b.send({"t": "move", "game": game, "move": first_move(seen), "ply": 2, "id": 9})
    assert b.expect_type("error", id=9)["code"] == "not-a-player"
    # Hot-seat games count in nobody's statistics.
    ws.send({"t": "resign", "game": game})
    over = ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    assert over["result"]["winner"] == "o"  # x, to move, resigned
    stats = ann.get("/api/users/solo").json()["stats"]
    assert stats["overall"] == {"win": 0, "loss": 0, "draw": 0}
    listed = ann.get("/api/users/solo/games").json()["games"]
    assert listed[0]["hotseat"] is True
