"""The group commit of merged writes (every move of every game): on SQLite and PostgreSQL.

Concurrent saves share one transaction on the writer thread; a save that
cannot be stored fails alone, the others land, and the writer goes on.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from gameclub.server.store import games as store
from gameclub.server.store.db import Database

from .conftest import run_in_own_loop as run


def game_fields(game_id: str) -> dict[str, Any]:
    return {
        "id": game_id,
        "game": "ataxx",
        "rules": "ataxx",
        "blocks": None,
        "start_fen": "x5o/7/7/7/7/7/o5x x 0 1",
        "clock_base_ms": None,
        "clock_inc_ms": None,
        "rated": False,
        "x_user_id": None,
        "o_user_id": None,
        "x_ai": "random",
        "o_ai": "random",
        "x_rating": None,
        "o_rating": None,
        "rematch_of": None,
        "created_at": 1,
        "status": "started",
        "plies": 0,
        "version": 1,
    }


def move_row(ply: int, auto: bool = False) -> dict[str, Any]:
    uci = "0000" if auto else "f2"
    color = "x" if ply % 2 == 0 else "o"
    return {
        "ply": ply,
        "uci": uci,
        "color": color,
        "auto": auto,
        "x_ms": None,
        "o_ms": 1000,
        "played_at": 5,
    }


def save(db: Database, game_id: str, ply: int, *, auto: bool = False) -> Any:
    return store.save_progress(
        db, game_id, {"plies": ply + 1, "version": ply + 2}, [move_row(ply, auto)]
    )


def test_merged_saves_land_and_a_bad_one_fails_alone(database_url: str):
    async def scenario() -> None:
        db = Database(database_url)
        await db.migrate()
        try:
            ids = [f"g{i}" for i in range(20)]
            await asyncio.gather(*(store.insert_game(db, game_fields(gid)) for gid in ids))
            for ply in range(3):
                await asyncio.gather(*(save(db, gid, ply, auto=ply == 1) for gid in ids))
            # One batch: a move of a game that does not exist, a move already stored,
            # and good moves. Only the two bad ones fail.
            results = await asyncio.gather(
                save(db, "nope", 0),
                save(db, ids[0], 2),
                *(save(db, gid, 3) for gid in ids[1:]),
                return_exceptions=True,
            )
            assert isinstance(results[0], IntegrityError)
            assert isinstance(results[1], IntegrityError)
            assert results[2:] == [None] * (len(ids) - 1)
            # The writer goes on after a failed transaction.
            await save(db, ids[0], 3)
            for gid in ids:
                loaded = await store.load_game(db, gid)
                assert loaded is not None
                game, moves = loaded
                assert game.plies == 4 and game.version == 5 and game.status == "started"
                assert [m.ply for m in moves] == [0, 1, 2, 3]
                assert [m.auto for m in moves] == [False, True, False, False]
                assert moves[1].uci == "0000" and moves[0].o_ms == 1000
        finally:
            await db.close()

    run(scenario())


@pytest.mark.parametrize("first", ["insert", "save"])
def test_merged_writes_of_both_kinds_in_one_batch(database_url: str, first: str):
    async def scenario() -> None:
        db = Database(database_url)
        await db.migrate()
        try:
            await store.insert_game(db, game_fields("old"))
            insert = store.insert_game(db, game_fields("new"))
            move = save(db, "old", 0)
            await asyncio.gather(*((insert, move) if first == "insert" else (move, insert)))
            assert set(await store.started_game_ids(db)) == {"old", "new"}
            loaded = await store.load_game(db, "old")
            assert loaded is not None and [m.uci for m in loaded[1]] == ["f2"]
        finally:
            await db.close()

    run(scenario())


def test_the_writer_gets_a_new_connection_when_its_own_is_lost(database_url: str):
    async def scenario() -> None:
        db = Database(database_url)
        await db.migrate()
        try:
            await store.insert_game(db, game_fields("g1"))
            await save(db, "g1", 0)
            # The writer's connection goes away (a database restart, a killed backend).
            raw = db._raw
            assert raw is not None
            await db._on_writer(raw.dbapi_connection.close)
            # The next write notices, takes a fresh connection and lands.
            await save(db, "g1", 1)
            loaded = await store.load_game(db, "g1")
            assert loaded is not None
            assert loaded[0].plies == 2 and [m.ply for m in loaded[1]] == [0, 1]
        finally:
            await db.close()

    run(scenario())


def test_sqlite_writes_reach_the_database_file_by_checkpoints(tmp_path: Any, monkeypatch: Any):
    import sqlite3
    import time

    from gameclub.server.store import db as dbmodule

    monkeypatch.setattr(dbmodule, "CHECKPOINT_EVERY_S", 0.05)
    path = tmp_path / "club.db"

    def in_file(game_id: str) -> bool:
        # The database file alone, without its write-ahead log.
        try:
            with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as conn:
                rows = conn.execute("SELECT plies FROM games WHERE id = ?", (game_id,)).fetchall()
        except sqlite3.DatabaseError:
            return False  # not even the schema there yet
        return rows == [(1,)]

    async def scenario() -> None:
        db = Database(f"sqlite:///{path}")
        await db.migrate()
        try:
            await store.insert_game(db, game_fields("g1"))
            await save(db, "g1", 0)
            # No commit checkpoints by itself; the checkpoint thread soon does.
            deadline = time.monotonic() + 5
            while not in_file("g1"):
                assert time.monotonic() < deadline, "the log was not checkpointed"
                await asyncio.sleep(0.05)
        finally:
            await db.close()

    run(scenario())
