"""Races between a game's background tasks (the computer's move, the flag) and its players."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from gameclub.ataxx import Color
from gameclub.server.round import Round


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.ERROR and record.name.startswith("gameclub")
    ]


def test_a_takeback_right_after_a_move_against_the_computer(club, caplog, first_move):
    """The move's commit starts the computer's task; the takeback that follows at once
    (before that task has run at all) changes the side to move under it. The task must
    notice, under the round's lock, that its turn is gone."""
    caplog.set_level(logging.INFO)
    ann = club.browser()
    game = ann.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    ws, state = ann.watch(game)
    rounds = club.app.state.club.rounds
    move = first_move(state)

    async def move_then_take_back() -> tuple[list[str], int]:
        rnd: Round = await rounds.get(game)
        await rnd.play(Color.X, move, 0)
        # No await in between: the computer's task has been created but not run.
        await rnd.takeback(Color.X)
        # Let the computer's task (and anything it starts) run to its end.
        for _ in range(200):
            await asyncio.sleep(0.01)
            if not rnd._tasks:
                break
        return list(rnd.moves), len(rnd._tasks)

    for _ in range(3):
        moves, pending = club.client.portal.call(move_then_take_back)
        assert moves == [] and pending == 0
        assert _errors(caplog) == []
    # The game goes on: the player moves, the computer replies.
    ws.send({"t": "move", "game": game, "move": move, "ply": 0, "id": 9})
    ws.expect_type("ack", id=9)
    replied: dict[str, Any] = ws.expect(lambda m: m["t"] == "state" and len(m["moves"]) >= 2)
    assert replied["moves"][0] == move and replied["turn"] == "x"
    assert _errors(caplog) == []
