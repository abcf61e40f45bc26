"""Migration 0003 on a database made by the club before it: the games load and play on,
the ratings are kept (as each player's Ataxx rating), on SQLite and PostgreSQL.

The old database is made with the migrations up to 0002 and filled the way the
store of that time wrote its rows (columns of that schema, no ``game``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text

from gameclub.ataxx import Board
from gameclub.server.settings import Settings
from gameclub.server.store.db import MIGRATIONS_DIR, sync_url

from .conftest import first_move

NOW = 1_760_000_000_000
START = "x5o/7/7/7/7/7/o5x x 0 1"
DAY = 86_400_000


def moves_of(count: int) -> list[str]:
    """The first ``count`` legal moves of a game (each side's first in the library's order)."""
    board = Board(START)
    moves = []
    for _ in range(count):
        move = board.legal_moves[0]
        board.push(move)
        moves.append(move.uci())
    return moves


def migrate(url: str, target: str, *, down: bool = False) -> None:
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        if url.startswith("sqlite"):
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")  # as the club's connections have
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, target)
    engine.dispose()


def make_old_database(url: str) -> None:
    migrate(url, "0002")
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        users = [
            (1, "ann", 1620.5, 80.25, 0.0601, 7),
            (2, "bob", 1410.75, 95.5, 0.0599, 7),
            (3, "cid", 1500.0, 500.0, 0.09, 0),
        ]
        for user_id, name, rating, rd, vol, rated in users:
            conn.execute(
                text(
                    "INSERT INTO users (id, name, name_key, password_hash, guest, created_at,"
                    " rating, rd, volatility, rated_games, piece_colors) VALUES (:id, :name,"
                    " :key, NULL, :guest, :at, :rating, :rd, :vol, :rated, NULL)"
                ),
                {
                    "id": user_id,
                    "name": name,
                    "key": name,
                    "guest": False,
                    "at": NOW - DAY,
                    "rating": rating,
                    "rd": rd,
                    "vol": vol,
                    "rated": rated,
                },
            )
            conn.execute(
                text(
                    "INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at)"
                    " VALUES (:hash, :id, :csrf, :at, :expires)"
                ),
                {
                    "hash": hashlib.sha256(f"token-{name}".encode()).hexdigest(),
                    "id": user_id,
                    "csrf": f"csrf-{name}",
                    "at": NOW,
                    "expires": 2 * NOW,
                },
            )
        if url.startswith("postgresql"):
            conn.execute(text("SELECT setval('users_id_seq', 3)"))
        game_columns = (
            "id, rules, blocks, start_fen, clock_base_ms, clock_inc_ms, rated, x_user_id,"
            " o_user_id, x_ai, o_ai, status, winner, reason, score_x, score_o, plies, version,"
            " x_ms, o_ms, turn_started_at, draw_offer, rematch_offer, takeback_offer, rematch_id,"
            " rematch_of, x_rating, o_rating, x_rating_diff, o_rating_diff, created_at, ended_at"
        )
        values = ", ".join(":" + name.strip() for name in game_columns.split(","))
        base = {name.strip(): None for name in game_columns.split(",")}
        games = [
            {
                **base,
                "id": "oldFinished",
                "rules": "ataxx",
                "start_fen": START,
                "rated": True,
                "x_user_id": 1,
                "o_user_id": 2,
                "status": "finished",
                "winner": "x",
                "reason": "resign",
                "score_x": 3,
                "score_o": 2,
                "plies": 2,
                "version": 4,
                "x_rating": 1600.0,
                "o_rating": 1430.0,
                "x_rating_diff": 20.5,
                "o_rating_diff": -19.25,
                "created_at": NOW - 2000,
                "ended_at": NOW - 1000,
            },
            {
                **base,
                "id": "oldLive",
                "rules": "ataxx",
                "start_fen": START,
                "rated": False,
                "x_user_id": 1,
                "o_user_id": 2,
                "status": "started",
                "plies": 3,
                "version": 5,
                "created_at": NOW - 500,
            },
        ]
        for game, count in zip(games, (2, 3), strict=True):
            conn.execute(text(f"INSERT INTO games ({game_columns}) VALUES ({values})"), game)
            for ply, move in enumerate(moves_of(count)):
                conn.execute(
                    text(
                        "INSERT INTO moves (game_id, ply, uci, color, auto, x_ms, o_ms,"
                        " played_at) VALUES (:game, :ply, :uci, :color, :auto, NULL, NULL, :at)"
                    ),
                    {
                        "game": game["id"],
                        "ply": ply,
                        "uci": move,
                        "color": "xo"[ply % 2],
                        "auto": False,
                        "at": game["created_at"] + ply,
                    },
                )
        for user_id, rating in ((1, 1620.5), (2, 1410.75)):
            conn.execute(
                text(
                    "INSERT INTO rating_history (user_id, game_id, rating, rd, volatility, at)"
                    " VALUES (:id, 'oldFinished', :rating, 90.0, 0.06, :at)"
                ),
                {"id": user_id, "rating": rating, "at": NOW - 1000},
            )
        conn.execute(
            text(
                "INSERT INTO invitations (id, from_user_id, to_user_id, rules, blocks,"
                " clock_base_ms, clock_inc_ms, rated, color, start_fen, status, game_id,"
                " created_at) VALUES ('oldInvite', 1, 3, 'pressibus', NULL, NULL, NULL, FALSE,"
                " 'x', NULL, 'open', NULL, :at)"
            ),
            {"at": NOW},
        )
    engine.dispose()


def signed_in(club: Any, name: str) -> Any:
    browser = club.browser()
    browser.client.cookies = {"gc_session": f"token-{name}"}
    browser.refresh()
    return browser


def test_a_database_of_ataxx_only_is_upgraded_and_plays_on(make_club, settings: Settings):
    make_old_database(settings.database_url)
    club = make_club(settings)  # the start migrates to the newest schema
    ann, bob = signed_in(club, "ann"), signed_in(club, "bob")
    me = ann.get("/api/me").json()
    assert me["user"]["name"] == "ann" and me["user"]["rating"] == 1620
    assert me["ratings"]["ataxx"]["rating"] == 1620 and me["ratings"]["ataxx"]["rated_games"] == 7
    assert me["ratings"]["awele"]["rated_games"] == 0
    profile = ann.get("/api/users/bob").json()
    assert profile["user"]["rating"] == 1411 and profile["user"]["rd"] == 95.5
    assert profile["ratings"]["ataxx"]["rated_games"] == 7
    assert profile["stats"]["overall"] == {"win": 0, "loss": 1, "draw": 0}
    board = ann.get("/api/leaderboard").json()["players"]
    assert [(p["name"], p["rating"]) for p in board] == [("ann", 1620), ("bob", 1411)]
    history = ann.get("/api/users/ann/ratings").json()["history"]
    assert [(h["game"], h["rating"]) for h in history] == [("oldFinished", 1620.5)]
    # The finished game reads as before.
    record = ann.get("/api/games/oldFinished").json()
    assert record["kind"] == "ataxx" and record["moves"] == moves_of(2)
    assert record["result"]["rating_diff"] == {"x": 20.5, "o": -19.2}
    assert record["pgn"].startswith("[Event ")
    rows = ann.get("/api/users/ann/games?game=ataxx").json()
    assert rows["total"] == 2 and {row["kind"] for row in rows["games"]} == {"ataxx"}
    invitation = ann.get("/api/invitations").json()["outgoing"]
    assert [(i["id"], i["kind"], i["rules"]) for i in invitation] == [
        ("oldInvite", "ataxx", "pressibus")
    ]
    # The unfinished one plays on: o is to move.
    ws, state = bob.watch("oldLive")
    assert state["kind"] == "ataxx" and state["moves"] == moves_of(3) and state["you"] == "o"
    ws.send({"t": "move", "game": "oldLive", "move": first_move(state), "ply": 3, "id": 1})
    assert len(ws.state("oldLive", min_v=state["v"] + 1)["moves"]) == 4
    # A rated Awele game between them leaves their Ataxx ratings alone.
    response = ann.post("/api/invitations", {"to": "bob", "game": "awele", "rated": True})
    assert response.status_code == 201, response.text
    game = bob.post(f"/api/invitations/{response.json()['invitation']['id']}/accept").json()
    ws_bob, awele = bob.watch(game["game"])
    ws_bob.send({"t": "resign", "game": game["game"], "id": 2})
    ws_bob.expect(lambda m: m["t"] == "state" and m["status"] == "finished")
    after = ann.get("/api/users/ann").json()["ratings"]
    assert after["ataxx"]["rating"] == 1620 and after["ataxx"]["rated_games"] == 7
    assert after["awele"]["rated_games"] == 1 and awele["kind"] == "awele"


def test_0003_goes_down_and_up_again_losing_no_move(settings: Settings):
    url = settings.database_url
    make_old_database(url)
    migrate(url, "head")
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        conn.execute(text("UPDATE ratings SET rating = 1700.0 WHERE user_id = 1"))
    migrate(url, "0002", down=True)
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM moves")).scalar_one() == 5
        rating = conn.execute(text("SELECT rating, rated_games FROM users WHERE id = 1")).one()
        assert tuple(rating) == (1700.0, 7)
    migrate(url, "head")
    with engine.begin() as conn:
        games = conn.execute(text("SELECT id, game FROM games ORDER BY id")).all()
        assert [tuple(row) for row in games] == [("oldFinished", "ataxx"), ("oldLive", "ataxx")]
        assert conn.execute(text("SELECT count(*) FROM ratings")).scalar_one() == 2
    engine.dispose()


def test_0004_owner_epoch_goes_down_and_up_again_losing_no_move(settings: Settings):
    url = settings.database_url
    make_old_database(url)
    migrate(url, "head")
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        epochs = conn.execute(text("SELECT owner_epoch FROM games")).scalars().all()
        assert epochs == [0, 0]  # games made before several nodes: nobody's yet
    migrate(url, "0003", down=True)
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM moves")).scalar_one() == 5
        columns = conn.execute(text("SELECT * FROM games LIMIT 1")).keys()
        assert "owner_epoch" not in columns
    migrate(url, "head")
    with engine.begin() as conn:
        assert conn.execute(text("SELECT count(*) FROM moves")).scalar_one() == 5
        assert conn.execute(text("SELECT max(owner_epoch) FROM games")).scalar_one() == 0
    engine.dispose()
