"""The board editor's server side: Blocs-Config descriptions, the gallery, random boards,
set-up positions (start layouts and pieces placed freely), and games made from them."""

from __future__ import annotations

from typing import Any

from gameclub.cli import blocks_summary


def sub_state(browser, game: str) -> tuple[Any, dict[str, Any]]:
    ws = browser.socket()
    ws.send({"t": "sub", "game": game})
    return ws, ws.state(game)


def test_a_code_is_described_as_the_command_line_does(club):
    ann = club.browser()
    body = ann.get("/api/blocks", params={"code": "xhg3"}).json()
    summary = blocks_summary("xhg3")
    assert {k: body[k] for k in summary} == summary
    assert body["canonical"] == "3ghx" and body["twin"] == "6ghx" and body["preferred"] == "3ghx"
    assert body["blocks"] == 11 and body["valid"] is True and body["reason"] is None
    assert sorted(body["squares"])[:3] == ["b2", "b6", "c3"]
    assert sum(row.count("#") for row in body["cells"]) == 11
    # The twin's preferred form is the code itself.
    assert ann.get("/api/blocks", params={"code": "6ghx"}).json()["preferred"] == "3ghx"


def test_a_drawing_is_described_by_its_squares(club):
    ann = club.browser()
    body = ann.get("/api/blocks", params={"squares": "c4,e4"}).json()
    assert body["canonical"] == "3" and body["blocks"] == 2 and body["valid"] is True
    assert ann.get("/api/blocks", params={"squares": ""}).json()["canonical"] == "0"


def test_bad_boards_get_a_clear_message(club):
    ann = club.browser()
    asym = ann.get("/api/blocks", params={"squares": "c4"})
    assert asym.status_code == 400
    assert asym.json()["error"]["code"] == "invalid-blocks"
    assert "no mirror block on e4" in asym.json()["error"]["message"]
    corner = ann.get("/api/blocks", params={"squares": "a1,g1,a7,g7"}).json()["error"]
    assert corner["code"] == "invalid-blocks" and "corner" in corner["message"]
    assert ann.get("/api/blocks", params={"squares": "z9"}).json()["error"]["code"] == "bad-field"
    assert ann.get("/api/blocks", params={"code": "zz"}).json()["error"]["code"] == "invalid-blocks"
    assert ann.get("/api/blocks").json()["error"]["code"] == "bad-field"
    # Over-full (28 blocks) and unreachable boards are described, as not valid, with the reason.
    full = ann.get("/api/blocks", params={"code": "abcdefg"}).json()
    assert full["valid"] is False and full["blocks"] == 28 and "at most 24" in full["reason"]
    shut = ann.get("/api/blocks", params={"code": "2356cfgh"}).json()
    assert shut["valid"] is False and "cannot be reached" in shut["reason"]
    # ... and refused for a game, which is not created.
    refused = ann.post("/api/games/ai", {"level": "random", "blocks": "abcdefg"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid-blocks"
    assert ann.get("/api/me").json()["games"] == []


def test_random_boards_and_the_gallery(club):
    ann = club.browser()
    for _ in range(5):
        body = ann.get("/api/blocks/random", params={"min": 4, "max": 8}).json()
        assert body["valid"] and 4 <= body["blocks"] <= 8 and body["canonical"] == body["preferred"]
    assert ann.get("/api/blocks/random", params={"min": 9, "max": 3}).status_code == 400
    index = ann.get("/api/blocks/gallery").json()
    counts = {row["blocks"]: row["total"] for row in index["counts"]}
    assert counts[0] == 1 and counts[1] == 1 and counts[2] == 3 and counts[4] == 14
    four = ann.get("/api/blocks/gallery", params={"blocks": 4}).json()
    codes = [c["code"] for c in four["configs"]]
    # Source 000's list of the boards with 4 blocks (the valid ones: all 14).
    assert codes == ["12", "13", "14", "15", "16", "23", "25", "26", "36", "a", "b", "c", "g", "h"]
    assert four["total"] == 14
    page = ann.get("/api/blocks/gallery", params={"blocks": 12, "offset": 10, "limit": 5}).json()
    assert len(page["configs"]) == 5 and page["total"] == counts[12]
    assert all(c["blocks"] == 12 for c in page["configs"])


def test_start_layouts_and_free_placement_are_checked(club):
    ann = club.browser()
    two = ann.get("/api/setup", params={"start": "two-corners", "blocks": "3ghx"}).json()
    assert two["start"] == "two-corners" and two["cells"][0][0] == "x" and two["cells"][6][6] == "o"
    assert two["cells"][0][6] == "." and two["counts"] == {"x": 1, "o": 1}
    # The 2005 rule set starts that way already: "standard" for it.
    assert ann.get("/api/setup", params={"rules": "site-2005"}).json()["counts"] == {"x": 1, "o": 1}
    four = ann.get("/api/setup", params={"rules": "site-2005", "start": "four-corners"}).json()
    assert four["start"] == "four-corners" and four["counts"] == {"x": 2, "o": 2}
    free = ann.get("/api/setup", params={"fen": "7/7/2x4/3o3/7/7/7 o", "blocks": "3"}).json()
    assert free["start"] == "custom" and free["turn"] == "o"
    assert free["fen"] == "7/7/2x4/2-o-2/7/7/7 o 0 1"
    assert free["blocks"] == "3" and sum(r.count("#") for r in free["cells"]) == 2

    def refused(params: dict[str, str]) -> dict[str, str]:
        response = ann.get("/api/setup", params=params)
        assert response.status_code == 400, response.text
        error: dict[str, str] = response.json()["error"]
        return error

    assert refused({"fen": "x5o/7/7/7/7/7 x"})["code"] == "invalid-position"  # 7x6
    assert "7x7" in refused({"fen": "x6o/8/8/8/8/8/8/o6x x"})["message"]
    assert "FEN" in refused({"fen": "x5o/7/7/7/7/7/o5q x"})["message"]
    on_block = refused({"fen": "x5o/7/7/3x3/7/7/o5x x", "blocks": "3ghx"})
    assert on_block["code"] == "invalid-position" and "d4" in on_block["message"]
    over = refused({"fen": "x6/7/7/7/7/7/7 o"})
    assert "already over" in over["message"]
    asym = refused({"fen": "x5o/7/7/-6/7/7/o5x x"})
    assert asym["code"] == "invalid-blocks" and "mirror" in asym["message"]
    assert refused({"start": "sideways"})["code"] == "bad-field"
    assert refused({"start": "custom"})["code"] == "bad-field"


def test_games_start_from_set_up_positions(club):
    ann, bob = club.browser(), club.browser()
    fen = "x5o/7/7/3x3/7/7/o5x o 0 1"
    game = ann.post("/api/games/ai", {"level": "random", "color": "x", "fen": fen}).json()["game"]
    ws, state = sub_state(ann, game)
    if not state["moves"]:
        state = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) >= 1)  # o moves first
    assert state["start"] == "custom"
    record = ann.get(f"/api/games/{game}").json()
    assert record["start_fen"] == fen and record["start"] == "custom"
    assert record["positions"][0]["fen"] == fen
    # An invitation carries its set-up to the game it makes (and through a restart of the row).
    inv = ann.post(
        "/api/invitations", {"to": None, "color": "x", "start": "two-corners", "blocks": "g"}
    ).json()["invitation"]
    assert inv["start"] == "two-corners" and inv["fen"].startswith("x6/")
    listed = bob.get(f"/api/invitations/{inv['id']}").json()["invitation"]
    assert listed["fen"] == inv["fen"]
    game2 = bob.post(f"/api/invitations/{inv['id']}/accept").json()["game"]
    _, state2 = sub_state(bob, game2)
    assert state2["fen"] == inv["fen"] and state2["counts"] == {"x": 1, "o": 1}
    assert state2["blocks"] == "g"
    # Seeks too; a set-up position is never rated.
    seek = ann.post("/api/seeks", {"fen": fen}).json()["seek"]
    assert seek["start"] == "custom" and seek["fen"] == fen and seek["mine"] is True
    ann.sign_up("setupper")
    rated = ann.post("/api/seeks", {"fen": fen, "rated": True})
    assert rated.status_code == 400 and "casual" in rated.json()["error"]["message"]
    # A bad set-up creates nothing.
    before = ann.get("/api/me").json()["games"]
    bad = ann.post("/api/games/ai", {"level": "random", "fen": "x6/7/7/7/7/7/7 o"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid-position"
    assert ann.get("/api/me").json()["games"] == before


def test_statistics_by_board_and_rule_set(club):
    ann = club.browser()
    ann.sign_up("boardfan")
    ws = ann.socket()
    for blocks, rules in (("6bch", "pressibus"), ("6bch", "pressibus"), ("14cfgx", "ataxx")):
        game = ann.post(
            "/api/games/ai", {"level": "random", "color": "x", "blocks": blocks, "rules": rules}
        ).json()["game"]
        ws.send({"t": "sub", "game": game})
        ws.state(game)
        ws.send({"t": "resign", "game": game})
        ws.expect(
            lambda m, g=game: m["t"] == "state" and m["game"] == g and m["status"] != "started"
        )
    stats = ann.get("/api/users/boardfan").json()["stats"]
    boards = {row["blocks"]: row for row in stats["boards"]}
    assert boards["6bch"]["loss"] == 2 and boards["6bch"]["ai"] == {"win": 0, "loss": 2, "draw": 0}
    assert boards["6bch"]["people"] == {"win": 0, "loss": 0, "draw": 0}
    assert boards["14cfgx"]["loss"] == 1
    assert stats["boards"][0]["blocks"] == "6bch"  # the most played first
    assert stats["rules"]["pressibus"]["loss"] == 2 and stats["rules"]["ataxx"]["loss"] == 1
    club_wide = {row["blocks"]: row for row in ann.get("/api/stats/boards").json()["boards"]}
    assert club_wide["6bch"]["loss"] >= 2
