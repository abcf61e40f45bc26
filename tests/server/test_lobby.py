"""Seeks, presence counts, invitations by name and by link, notifications."""

from __future__ import annotations


def test_seeks_create_list_cancel_accept(club):
    ann, bob = club.browser(), club.browser()
    a, b = ann.socket(), bob.socket()
    b.send({"t": "lobby"})
    first = b.expect_type("lobby")
    assert first["online"] == 2 and first["searching"] == 0
    response = ann.post("/api/seeks", {"rules": "ataxx", "clock": {"base": 300, "increment": 5}})
    assert response.status_code == 201, response.text
    seek = response.json()["seek"]
    update = b.expect(lambda m: m["t"] == "lobby" and m["searching"] == 1)
    assert update["seeks"][0]["id"] == seek["id"]
    assert update["seeks"][0]["user"]["name"] == ann.user["name"]
    assert bob.get("/api/lobby").json()["searching"] == 1

    # Only the creator cancels; nobody accepts their own.
    assert bob.delete(f"/api/seeks/{seek['id']}").json()["error"]["code"] == "not-allowed"
    assert ann.post(f"/api/seeks/{seek['id']}/accept").json()["error"]["code"] == "not-allowed"
    assert ann.delete(f"/api/seeks/{seek['id']}").json() == {"ok": True}
    assert bob.get("/api/lobby").json()["searching"] == 0
    assert bob.post(f"/api/seeks/{seek['id']}/accept").status_code == 410

    seek = ann.post("/api/seeks", {"color": "o"}).json()["seek"]
    response = bob.post(f"/api/seeks/{seek['id']}/accept")
    assert response.status_code == 201, response.text
    game = response.json()["game"]
    assert a.expect_type("start")["game"] == game
    a.send({"t": "sub", "game": game})
    state = a.state(game)
    assert state["you"] == "o" and state["players"]["x"]["name"] == bob.user["name"]
    lobby = bob.get("/api/lobby").json()
    assert lobby["searching"] == 0 and lobby["playing"] == 1


def test_seeks_go_when_their_creator_leaves(club):
    ann, bob = club.browser(), club.browser()
    a = ann.socket()
    ann.post("/api/seeks", {})
    assert bob.get("/api/lobby").json()["searching"] == 1
    a.close()
    lobby = bob.get("/api/lobby").json()
    assert lobby["searching"] == 0 and lobby["online"] == 0


def test_guests_play_casual_games_only(club):
    guest, ann = club.browser(), club.browser()
    ann.sign_up("annie")
    response = guest.post("/api/seeks", {"rated": True})
    assert response.status_code == 403 and response.json()["error"]["code"] == "accounts-only"
    seek = ann.post("/api/seeks", {"rated": True}).json()["seek"]
    response = guest.post(f"/api/seeks/{seek['id']}/accept")
    assert response.json()["error"]["code"] == "accounts-only"
    assert guest.get("/api/lobby").json()["searching"] == 1
    response = ann.post("/api/invitations", {"to": guest.user["name"], "rated": True})
    assert response.json()["error"]["code"] == "accounts-only"


def test_invite_by_name_accept_and_decline(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("ann2")
    bob.sign_up("bob2")
    a, b = ann.socket(), bob.socket()
    response = ann.post("/api/invitations", {"to": "BOB2", "blocks": "3ghx", "color": "x"})
    assert response.status_code == 201, response.text
    invitation = response.json()["invitation"]
    assert invitation["to"]["name"] == "bob2" and invitation["blocks"] == "3ghx"
    pushed = b.expect_type("invited")
    assert pushed["invitation"]["id"] == invitation["id"]
    assert [i["id"] for i in bob.get("/api/invitations").json()["incoming"]] == [invitation["id"]]
    assert [i["id"] for i in ann.get("/api/invitations").json()["outgoing"]] == [invitation["id"]]
    # A third person cannot take it.
    carl = club.browser()
    assert carl.post(f"/api/invitations/{invitation['id']}/accept").status_code == 403
    response = bob.post(f"/api/invitations/{invitation['id']}/accept")
    assert response.status_code == 201
    game = response.json()["game"]
    assert a.expect_type("start")["game"] == game
    assert bob.post(f"/api/invitations/{invitation['id']}/accept").status_code == 410

    second = ann.post("/api/invitations", {"to": "bob2"}).json()["invitation"]
    assert bob.post(f"/api/invitations/{second['id']}/decline").json() == {"ok": True}
    assert a.expect_type("declined")["invitation"] == second["id"]
    assert bob.get("/api/invitations").json()["incoming"] == []


def test_invite_by_link(club):
    ann, friend = club.browser(), club.browser()
    invitation = ann.post("/api/invitations", {"to": None}).json()["invitation"]
    assert invitation["url"] == f"/invite/{invitation['id']}"
    page = friend.get(invitation["url"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    seen = friend.get(f"/api/invitations/{invitation['id']}").json()["invitation"]
    assert seen["status"] == "open" and seen["from"]["name"] == ann.user["name"]
    assert ann.post(f"/api/invitations/{invitation['id']}/accept").status_code == 409
    assert friend.post(f"/api/invitations/{invitation['id']}/accept").status_code == 201
    assert friend.get(f"/api/invitations/{invitation['id']}").json()["invitation"]["game"]
    # The sender cancels another one; then nobody can accept it.
    other = ann.post("/api/invitations", {}).json()["invitation"]
    assert ann.delete(f"/api/invitations/{other['id']}").json() == {"ok": True}
    assert friend.post(f"/api/invitations/{other['id']}/accept").status_code == 410
    assert friend.get("/api/invitations/doesnotexist").status_code == 404
    assert ann.post("/api/invitations", {"to": "nobody-here"}).status_code == 404


def test_pages_and_unknown_api_paths(club):
    browser = club.browser()
    assert browser.get("/").status_code == 200
    assert browser.get("/game/abc").status_code == 200
    response = browser.get("/api/nothing")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not-found"
    options = browser.get("/api/options").json()
    assert [r["name"] for r in options["rulesets"]] == ["ataxx", "pressibus", "site-2005"]
    assert options["levels"] == ["random", "simple", "hard", "expert", "master"]
