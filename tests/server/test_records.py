"""Save and restore (PGN records), playing a board again, and piece colour preferences."""

from __future__ import annotations

from typing import Any

from gameclub.ataxx.notation import GameRecord


def friend_game(ann, bob, **fields: Any) -> str:
    inv = ann.post("/api/invitations", {"to": None, "color": "x", **fields}).json()["invitation"]
    game: str = bob.post(f"/api/invitations/{inv['id']}/accept").json()["game"]
    return game


def test_a_game_downloads_as_a_pgn_record(club, first_move):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("blackie")
    bob.sign_up("whitey")
    game = friend_game(ann, bob, rules="pressibus", blocks="3ghx")
    a, state = ann.watch(game)
    b, _ = bob.watch(game)
    for ply in range(4):
        ws = a if ply % 2 == 0 else b
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    b.send({"t": "resign", "game": game})
    b.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    response = ann.get(f"/api/games/{game}/pgn")
    assert response.status_code == 200
    assert f'filename="gameclub-{game}.pgn"' in response.headers["content-disposition"]
    record = GameRecord.from_pgn(response.text)
    # As in libataxx and cuteataxx: Black plays x (first), White plays o.
    assert record.headers["Black"] == "blackie" and record.headers["White"] == "whitey"
    assert record.headers["Rules"] == "pressibus" and record.headers["Blocks"] == "3ghx"
    assert record.headers["Termination"] == "resign" and record.result == "1-0"
    assert [m.uci() for m in record.moves] == state["moves"]
    assert ann.get(f"/api/games/{game}").json()["pgn"] == response.text
    assert ann.get("/api/games/nope/pgn").status_code == 404


def test_a_record_is_loaded_replayed_and_continued(club, first_move):
    ann = club.browser()
    game = ann.post(
        "/api/games/ai", {"level": "random", "color": "x", "rules": "pressibus", "blocks": "g"}
    ).json()["game"]
    ws, state = ann.watch(game)
    for ply in (0, 2):
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) >= n + 2)
    pgn = ann.get(f"/api/games/{game}/pgn").text
    loaded = ann.post("/api/records", {"pgn": pgn}).json()
    assert loaded["rules"] == "pressibus" and loaded["blocks"] == "g"
    assert loaded["moves"] == state["moves"][:4] and len(loaded["positions"]) == 5
    assert loaded["players"]["x"].startswith("Guest-") and loaded["result"] == "*"
    assert loaded["continuable"] is True and loaded["why_not"] is None
    # Continue from move 2 against the computer: the position after two moves, same board.
    after2 = loaded["positions"][2]
    new = ann.post(
        "/api/games/ai",
        {
            "level": "random",
            "color": "x",
            "rules": loaded["rules"],
            "blocks": loaded["blocks"],
            "fen": after2["fen"],
        },
    )
    assert new.status_code == 201, new.text
    _, started = ann.watch(new.json()["game"])
    assert started["cells"] == after2["cells"] and started["rules"] == "pressibus"
    assert started["blocks"] == "g" and started["start"] == "custom"
    # ... or with a friend (an invitation carrying the position).
    inv = ann.post("/api/invitations", {"to": None, "fen": after2["fen"], "blocks": "g"})
    assert inv.status_code == 201 and inv.json()["invitation"]["fen"] == after2["fen"]


def test_corrupt_records_are_refused_with_the_reason(club):
    ann = club.browser()
    ok = '[Rules "ataxx"]\n\n1. g2 a1a3 *\n'
    assert ann.post("/api/records", {"pgn": ok}).status_code == 200
    for text, words in [
        ('[Rules "ataxx"]\n\n1. g2 g2 *\n', "move 2"),
        ('[Rules "chess"]\n\n1. e4 *\n', "chess"),
        ('[FEN "x5o/7/7/7/7/7/o5q x 0 1"]\n\n*\n', "FEN"),
        ('[Rules "ataxx"]\n\n1. g2 a1a3\n', "result"),
        ('[Result "1-0"]\n\n1. g2 0-1\n', "Result"),
        ("[Broken tag\n\n*\n", "malformed tag"),
    ]:
        response = ann.post("/api/records", {"pgn": text})
        assert response.status_code == 400, text
        error = response.json()["error"]
        assert error["code"] == "invalid-record" and words in error["message"], error
    assert ann.post("/api/records", {"pgn": 12}).json()["error"]["code"] == "bad-field"
    # A record the club can show but not continue (another board size).
    small = '[FEN "x3o/5/5/5/o3x x 0 1"]\n\n1. d2 *\n'
    shown = ann.post("/api/records", {"pgn": small}).json()
    assert shown["width"] == 5 and shown["continuable"] is False and "7x7" in shown["why_not"]
    assert ann.get("/api/me").json()["games"] == []


def test_playing_the_same_board_again(club):
    ann, bob = club.browser(), club.browser()
    game = ann.post(
        "/api/games/ai",
        {"level": "random", "color": "o", "blocks": "random", "start": "two-corners"},
    ).json()["game"]
    ws, state = ann.watch(game)
    assert ann.post(f"/api/games/{game}/again").json()["error"]["code"] == "not-allowed"
    ws.send({"t": "resign", "game": game})
    ws.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    assert bob.post(f"/api/games/{game}/again").json()["error"]["code"] == "not-a-player"
    again = ann.post(f"/api/games/{game}/again")
    assert again.status_code == 201
    new = again.json()["game"]
    _, fresh = ann.watch(new)
    # Same board, rules and start; same colour against the same level.
    assert fresh["blocks"] == state["blocks"] and fresh["rules"] == state["rules"]
    assert fresh["start"] == "two-corners" and fresh["you"] == "o"
    assert fresh["players"]["x"]["ai"] == "random"
    # The hot seat again is a hot seat.
    hot = ann.post("/api/games/hotseat", {"blocks": "3ghx"}).json()["game"]
    hw, _ = ann.watch(hot)
    hw.send({"t": "abort", "game": hot})
    hw.expect(lambda m: m["t"] == "state" and m["status"] == "aborted")
    hot2 = ann.post(f"/api/games/{hot}/again").json()["game"]
    _, hs = ann.watch(hot2)
    assert hs["hotseat"] is True and hs["blocks"] == "3ghx"
    # Against a person: the same person is invited again, on the same board.
    game3 = friend_game(ann, bob, blocks="6bch")
    a, _ = ann.watch(game3)
    a.send({"t": "abort", "game": game3})
    a.expect(lambda m: m["t"] == "state" and m["status"] == "aborted")
    b = bob.socket()
    invitation = ann.post(f"/api/games/{game3}/again").json()["invitation"]
    assert invitation["to"]["id"] == bob.user["id"] and invitation["blocks"] == "6bch"
    assert invitation["color"] == "x"
    assert b.expect_type("invited")["invitation"]["id"] == invitation["id"]


def test_piece_colours_are_a_preference(club):
    ann = club.browser()
    me = ann.get("/api/me").json()
    assert me["prefs"] is None  # guests keep theirs in the browser
    refused = ann.post("/api/prefs", {"colors": {"x": "green", "o": "yellow"}})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "accounts-only"
    assert "green" in ann.get("/api/options").json()["piece_colors"]
    ann.sign_up("painter")
    assert ann.get("/api/me").json()["prefs"] == {"colors": {"x": "red", "o": "blue"}}
    saved = ann.post("/api/prefs", {"colors": {"x": "green", "o": "yellow"}})
    assert saved.json() == {"prefs": {"colors": {"x": "green", "o": "yellow"}}}
    assert ann.get("/api/me").json()["prefs"]["colors"] == {"x": "green", "o": "yellow"}
    for bad in ({"x": "green", "o": "green"}, {"x": "mauve", "o": "red"}, {"x": "red"}, "red"):
        response = ann.post("/api/prefs", {"colors": bad})
        assert response.status_code == 400 and response.json()["error"]["code"] == "bad-field"
    assert ann.get("/api/me").json()["prefs"]["colors"] == {"x": "green", "o": "yellow"}
    # The rules do not change: the first player is still x.
    game = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    _, state = ann.watch(game)
    assert state["turn"] == "x" and state["you"] == "x"
    ann.post("/api/prefs", {"colors": None})
    assert ann.get("/api/me").json()["prefs"]["colors"] == {"x": "red", "o": "blue"}
