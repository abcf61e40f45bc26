"""Glicko-2 against Glickman's worked example, and rated games end to end."""

from __future__ import annotations

import pytest

from gameclub.server.ratings import Rating, rate_game, update


def test_glickman_worked_example():
    player = Rating(1500, 200, 0.06)
    new = update(
        player,
        [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
        tau=0.5,
    )
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_no_games_only_widens_the_deviation():
    new = update(Rating(1500, 200, 0.06), [])
    assert new.rating == 1500 and new.rd == pytest.approx((200**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_new_players_and_display():
    fresh = Rating()
    assert (fresh.rating, fresh.rd, fresh.volatility) == (1500, 500, 0.09)
    assert fresh.text() == "1500?" and Rating(1612.4, 109.9).text() == "1612"
    winner, loser = rate_game(fresh, fresh, 1.0)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert 45 <= winner.rd < 500


def play_to_resignation(ann, bob, loser_socket, game):
    loser_socket.send({"t": "sub", "game": game})
    loser_socket.state(game)
    loser_socket.send({"t": "resign", "game": game})
    return loser_socket.expect(lambda m: m["t"] == "state" and m["status"] == "finished")


def test_rated_game_updates_ratings_history_and_leaderboard(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("anna")
    bob.sign_up("boris")
    seek = ann.post("/api/seeks", {"rated": True, "color": "x"}).json()["seek"]
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    over = play_to_resignation(ann, bob, bob.socket(), game)
    assert over["result"]["winner"] == "x"
    diff = over["result"]["rating_diff"]
    assert diff["x"] > 0 > diff["o"]
    anna = ann.get("/api/users/anna").json()["user"]
    assert anna["rating"] > 1500 and anna["rated_games"] == 1 and anna["rating_text"].endswith("?")
    history = ann.get("/api/users/anna/ratings").json()["history"]
    assert len(history) == 1 and history[0]["game"] == game
    board = ann.get("/api/leaderboard").json()["players"]
    assert [p["name"] for p in board] == ["anna", "boris"]


def test_casual_games_leave_ratings_alone(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("carla")
    bob.sign_up("dmitri")
    seek = ann.post("/api/seeks", {"rated": False}).json()["seek"]
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    over = play_to_resignation(ann, bob, bob.socket(), game)
    assert over["result"]["rating_diff"] is None
    assert ann.get("/api/users/carla").json()["user"]["rating"] == 1500
    assert ann.get("/api/leaderboard").json()["players"] == []


def test_statistics_and_history(club):
    ann, bob = club.browser(), club.browser()
    ann.sign_up("edith")
    bob.sign_up("frank")
    ws = ann.socket()
    # Two games against the computer, both resigned.
    for _ in range(2):
        game = ann.post("/api/games/ai", {"level": "simple", "color": "x"}).json()["game"]
        ws.send({"t": "sub", "game": game})
        ws.state(game)
        ws.send({"t": "resign", "game": game})
        ws.expect(
            lambda m, g=game: m["t"] == "state" and m["game"] == g and m["status"] == "finished"
        )
    # One against frank, who resigns.
    seek = ann.post("/api/seeks", {}).json()["seek"]
    game = bob.post(f"/api/seeks/{seek['id']}/accept").json()["game"]
    play_to_resignation(ann, bob, bob.socket(), game)
    profile = ann.get("/api/users/edith").json()
    assert profile["stats"]["overall"] == {"win": 1, "loss": 2, "draw": 0}
    assert profile["stats"]["ai"] == {"simple": {"win": 0, "loss": 2, "draw": 0}}
    assert profile["stats"]["opponents"] == [{"name": "frank", "win": 1, "loss": 0, "draw": 0}]
    games = ann.get("/api/users/edith/games?limit=2").json()
    assert games["total"] == 3 and len(games["games"]) == 2
    record = ann.get(f"/api/games/{games['games'][0]['id']}").json()
    assert record["status"] == "finished" and record["positions"]
    assert ann.get("/api/users/nobody").status_code == 404
    assert ann.get("/api/users/edith/games?limit=lots").status_code == 400
