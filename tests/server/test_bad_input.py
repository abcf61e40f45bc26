"""Bad input gets a 400 naming the field and changes nothing: numbers JSON does not
allow, digits that are not ASCII, keys that cannot name anything, records that the
club would not continue."""

from __future__ import annotations

from typing import Any

import pytest

GAME_CREATING = ("/api/games/ai", "/api/games/hotseat", "/api/seeks", "/api/invitations")


def post_text(browser: Any, path: str, text: str) -> Any:
    return browser.client.post(
        path,
        content=text.encode(),
        headers={"X-CSRF-Token": browser.csrf, "Content-Type": "application/json"},
    )


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_numbers_that_json_does_not_allow_name_their_field(club, number):
    ann = club.browser()
    for path in GAME_CREATING:
        for clock in (f'{{"base": {number}}}', f'{{"base": 60, "increment": {number}}}'):
            response = post_text(ann, path, f'{{"level": "random", "clock": {clock}}}')
            assert response.status_code == 400, (path, clock, response.text)
            error = response.json()["error"]
            field = "clock.base" if '"base": 60' not in clock else "clock.increment"
            assert error["code"] == "bad-field" and field in error["message"], error
    # Not JSON at all is still bad-json; a huge integer names its field too.
    response = post_text(ann, "/api/games/ai", '{"clock": {"base": NaN')
    assert response.json()["error"]["code"] == "bad-json"
    response = post_text(ann, "/api/seeks", '{"clock": {"base": ' + "9" * 400 + "}}")
    assert response.status_code == 400 and "clock.base" in response.json()["error"]["message"]
    # Nothing was created.
    assert ann.get("/api/me").json()["games"] == []
    assert ann.get("/api/lobby").json()["seeks"] == []


def test_whole_numbers_are_checked_by_value_too(club):
    ann = club.browser()
    for clock, field in [
        ({"base": 60.5}, "clock.base"),
        ({"base": True}, "clock.base"),
        ({"base": "60"}, "clock.base"),
        ({"base": 1e300}, "clock.base"),
        ({"base": 60, "increment": -1}, "clock.increment"),
    ]:
        response = ann.post("/api/games/ai", {"level": "random", "clock": clock})
        assert response.status_code == 400, clock
        assert field in response.json()["error"]["message"]
    # A whole number written as a float is a whole number.
    response = ann.post("/api/games/ai", {"level": "random", "clock": {"base": 60.0}})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("digits", ["²", "①", "٣", "３", "1²", " 3", "3 ", "+3", "-0", "0x3"])
def test_integer_query_parameters_take_ascii_digits_only(club, digits):
    ann = club.browser()
    ann.sign_up("digits")
    for path, name in [
        ("/api/blocks/random?min={}", "min"),
        ("/api/blocks/random?max={}", "max"),
        ("/api/blocks/gallery?blocks={}", "blocks"),
        ("/api/blocks/gallery?offset={}", "offset"),
        ("/api/blocks/gallery?blocks=4&limit={}", "limit"),
        ("/api/users/digits/games?limit={}", "limit"),
        ("/api/users/digits/games?offset={}", "offset"),
    ]:
        response = ann.get(path.format(digits))
        assert response.status_code == 400, (path, digits, response.text)
        error = response.json()["error"]
        assert error["code"] == "bad-field" and error["message"].startswith(name), error
    assert ann.get("/api/blocks/gallery?blocks=4&limit=3").status_code == 200
    assert ann.get("/api/users/digits/games?limit=" + "9" * 5000).status_code == 400


def test_websocket_messages_with_numbers_json_does_not_allow(club):
    ann = club.browser()
    game = ann.post("/api/games/hotseat", {}).json()["game"]
    ws, _ = ann.watch(game)
    for number in ("NaN", "Infinity", "1e999"):
        ws.send_text(f'{{"t": "move", "game": "{game}", "move": "b2", "ply": {number}}}')
        error = ws.expect_type("error")
        assert error["code"] == "bad-field" and "ply" in error["message"], error
    ws.send_text('{"t": "ping", "id": 1e999}')
    assert "id" in ws.expect_type("error")["message"]
    ws.send_text('{"t": "move", "game": "\\ud800"}')
    assert ws.expect_type("error")["code"] == "bad-field"
    ws.send({"t": "sub", "game": game})
    assert ws.state(game)["moves"] == []


def test_keys_that_cannot_name_anything_are_unknown(club):
    ann = club.browser()
    for path in ("/api/users/a%00b", "/api/users/a%00b/games", "/api/invitations/a%00b",
                 "/api/games/a%00b", "/api/games/a%00b/pgn"):
        response = ann.get(path)
        assert response.status_code == 404, (path, response.text)
    response = ann.post("/api/login", {"name": "a\x00b", "password": "whatever long"})
    assert response.status_code == 401
    response = ann.post("/api/invitations", {"to": "a\x00b"})
    assert response.status_code == 404
    ws = ann.socket()
    ws.send({"t": "sub", "game": "a\x00b"})
    assert ws.expect_type("error")["code"] == "no-such-game"


def test_a_record_is_continuable_exactly_where_a_game_can_start(club):
    """Every position's ``continuable`` is what game creation answers for it."""
    ann = club.browser()
    full = "xxxxxxx/" * 6
    records = {
        "a block on a corner": '[FEN "-5o/7/7/7/7/7/o5x x 0 1"]\n\n*\n',
        "blocks not symmetric": '[FEN "x5o/1-5/7/7/7/7/o5x x 0 1"]\n\n*\n',
        "over before it starts": f'[FEN "{full}xxxxxxo o 0 1"]\n\n*\n',
        "over after its move": f'[FEN "{full}xxxxx1o x 0 1"]\n\n1. f1 1-0\n',
        "a game that goes on": '[Rules "pressibus"]\n\n1. g2 a1a3 2. f1 *\n',
        "another board size": '[FEN "x3o/5/5/5/o3x x 0 1"]\n\n1. d2 *\n',
    }
    for name in ("a block on a corner", "over before it starts"):
        assert ann.post("/api/records", {"pgn": records[name]}).json()["continuable"] is False
    for name, pgn in records.items():
        loaded = ann.post("/api/records", {"pgn": pgn})
        assert loaded.status_code == 200, (name, loaded.text)
        record = loaded.json()
        created = []
        for position in record["positions"]:
            body = {"rules": record["rules"], "blocks": record["blocks"], "fen": position["fen"]}
            response = ann.post("/api/games/hotseat", body)
            assert response.status_code in (201, 400), response.text
            created.append(response.status_code == 201)
            assert position["continuable"] is (response.status_code == 201), (name, position)
            if response.status_code == 400:
                assert position["why_not"] == response.json()["error"]["message"]
        assert record["continuable"] is any(created), name
        if not any(created):
            assert record["why_not"] == record["positions"][0]["why_not"]


def test_paths_no_route_matches_get_the_apis_error(club):
    ann = club.browser()
    for method, path, status, code in [
        ("GET", "/api/%0A0", 404, "not-found"),
        ("DELETE", "/api/games/%0A", 404, "not-found"),
        ("OPTIONS", "/api/me", 405, "bad-method"),
    ]:
        response = ann.client.request(method, path)
        assert response.status_code == status, (method, path)
        assert response.json()["error"]["code"] == code
    # Pages and static files are not the API's.
    assert ann.get("/static/%0A").status_code == 404


@pytest.mark.parametrize("digit", ["²", "①", "٥", "３"])
def test_positions_with_digits_that_are_not_ascii_are_refused(club, digit):
    ann = club.browser()
    fen = f"x{digit}o/7/7/7/7/7/o5x x 0 1"
    response = ann.get("/api/setup", params={"fen": fen})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "invalid-position"
    response = ann.post("/api/games/hotseat", {"fen": fen})
    assert response.status_code == 400 and "fen" in response.json()["error"]["message"]


def test_moves_of_one_game_sent_to_the_other_change_nothing(club):
    """An Awele pit to an Ataxx game, an Ataxx move to an Awele game, a pit of the side not
    to move, a move out of turn: each a clear refusal, and the game's version is unchanged."""
    ann, bob = club.browser(), club.browser()
    response = ann.post("/api/invitations", {"to": None, "color": "x"})
    ataxx = bob.post(f"/api/invitations/{response.json()['invitation']['id']}/accept")
    response = ann.post("/api/invitations", {"to": None, "color": "x", "game": "awele"})
    awele = bob.post(f"/api/invitations/{response.json()['invitation']['id']}/accept")
    games = {"ataxx": ataxx.json()["game"], "awele": awele.json()["game"]}
    ws_ann, ws_bob = ann.socket(), bob.socket()
    versions = {}
    for kind, game in games.items():
        ws_ann.send({"t": "sub", "game": game})
        versions[kind] = ws_ann.state(game)["v"]
    cases = [
        (ws_ann, "ataxx", "C", "invalid-move"),
        (ws_ann, "ataxx", "f", "invalid-move"),
        (ws_ann, "ataxx", "A1", "invalid-move"),
        (ws_ann, "awele", "a1a3", "invalid-move"),
        (ws_ann, "awele", "b2", "invalid-move"),
        (ws_ann, "awele", "0000", "invalid-move"),
        (ws_ann, "awele", "c", "illegal-move"),  # North's pit, South to move
        (ws_ann, "awele", "AB", "invalid-move"),
        (ws_ann, "awele", ["A"], "invalid-move"),
        (ws_bob, "awele", "a", "not-your-turn"),
        (ws_bob, "ataxx", "a7", "not-your-turn"),
    ]
    for number, (ws, kind, move, code) in enumerate(cases):
        ws.send({"t": "move", "game": games[kind], "move": move, "ply": 0, "id": number})
        error = ws.expect(lambda m, n=number: m["t"] == "error" and m.get("id") == n)
        assert error["code"] == code, (kind, move, error)
        assert error["message"], error
    for kind, game in games.items():
        ws_ann.send({"t": "sub", "game": game})
        state = ws_ann.state(game)
        assert state["v"] == versions[kind] and state["moves"] == [], kind


@pytest.mark.parametrize(
    ("position", "says"),
    [
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-S", "fields"),  # 14 fields
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-0-S", "fields"),  # 16 fields
        ("-4-4-4-4-4-4-4-4-4-4-4-4-0-S", "negative"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-1-0-S", "49 seeds"),
        ("49-0-0-0-0-0-0-0-0-0-0-0-0-0-S", "49 seeds"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-X", "side to move"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-s", "side to move"),
        ("4-4-4-4-4-4-4-4-4-4-4-٤-0-0-S", "not a count"),
        ("04-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "not a count"),
        (" 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "spaces"),
    ],
)
def test_malformed_awele_positions_are_refused_everywhere(club, position, says):
    ann = club.browser()
    body = {"game": "awele", "start": "custom", "position": position}
    for path in GAME_CREATING:
        response = ann.post(path, body)
        assert response.status_code == 400, (path, response.text)
        error = response.json()["error"]
        assert error["code"] == "invalid-position" and says in error["message"], error
    response = ann.get("/api/setup", params=body)
    assert response.json()["error"]["code"] == "invalid-position"
    assert ann.get("/api/me").json()["games"] == []
    assert ann.get("/api/lobby").json()["seeks"] == []
    assert ann.get("/api/invitations").json()["outgoing"] == []


def test_fields_of_the_other_game_are_refused(club):
    ann = club.browser()
    for body, names in [
        ({"game": "awele", "blocks": "3ghx"}, "blocks"),
        ({"game": "awele", "fen": "x5o/7/7/7/7/7/o5x x 0 1"}, "fen"),
        ({"game": "awele", "rules": "pressibus"}, "rules"),
        ({"game": "ataxx", "position": "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"}, "position"),
        ({"game": "ataxx", "rules": "oware"}, "rules"),
        ({"game": "Awele"}, "game"),
        ({"game": 1}, "game"),
    ]:
        for path in GAME_CREATING:
            response = ann.post(path, {"level": "random", **body})
            assert response.status_code == 400, (path, body, response.text)
            error = response.json()["error"]
            assert error["code"] == "bad-field" and names in error["message"], (body, error)
    response = ann.post("/api/games/ai", {"game": "awele", "level": "expert"})
    assert response.json()["error"]["code"] == "bad-field"
    for query in ("game=chess", "game="):
        for path in ("/api/lobby", "/api/games/live", "/api/leaderboard", "/api/users/x/games"):
            response = ann.get(f"{path}?{query}")
            assert response.status_code in (400, 404), (path, response.text)
            if path != "/api/users/x/games":
                assert response.json()["error"]["code"] == "bad-field"
    assert ann.get("/api/me").json()["games"] == []


def test_the_api_root_answers_json_errors_like_any_unknown_api_path(club):
    # A client may normalise "/api/." to "/api": it is no page, and answers as the API does.
    ann = club.browser()
    for method in ("GET", "POST", "DELETE", "PUT", "PATCH"):
        for path in ("/api", "/api/.", "/api/nothing"):
            response = ann.client.request(method, path, headers={"X-CSRF-Token": ann.csrf})
            assert response.status_code == 404, (method, path, response.text)
            assert isinstance(response.json()["error"]["code"], str), (method, path)
