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


def _restarted_clock_game(make_club: Any, settings: Any, first_move: Any) -> tuple[Any, ...]:
    """A clocked game at move 3 (o to move), and the club restarted: o's clock waits."""
    club = make_club(settings)
    ann, bob = club.browser(), club.browser()
    invitation = ann.post("/api/invitations", {"color": "x", "clock": {"base": 60, "increment": 2}})
    game = bob.post(f"/api/invitations/{invitation.json()['invitation']['id']}/accept").json()[
        "game"
    ]
    a, state = ann.watch(game)
    b, _ = bob.watch(game)
    for ply in range(3):
        ws = a if ply % 2 == 0 else b
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) > n)
    cookies = (ann.client.cookies, bob.client.cookies)
    club.stop()
    again = make_club(settings)
    ann2, bob2 = again.browser(), again.browser()
    ann2.client.cookies, bob2.client.cookies = cookies
    ann2.refresh()
    bob2.refresh()
    return game, state, ann2, bob2


def test_a_move_before_subscribing_after_a_restart_starts_the_right_clock(
    make_club, settings, first_move
):
    game, state, ann, bob = _restarted_clock_game(make_club, settings, first_move)
    # o plays without subscribing first (a client that resends its move at once).
    ws = bob.socket()
    ws.send({"t": "move", "game": game, "move": first_move(state), "ply": 3, "id": 1})
    ws.expect_type("ack", id=1)
    # Then it subscribes: x is to move, and x's clock is the one that runs.
    ws.send({"t": "sub", "game": game})
    now = ws.state(game)
    assert now["turn"] == "x" and now["clocks"]["running"] == "x"
    _, seen = ann.watch(game)
    assert seen["clocks"]["running"] == "x"


def test_a_game_that_ended_before_its_player_came_back_keeps_its_clocks_stopped(
    make_club, settings, first_move
):
    game, _, ann, bob = _restarted_clock_game(make_club, settings, first_move)
    a = ann.socket()
    a.send({"t": "resign", "game": game, "id": 1})
    a.expect_type("ack", id=1)
    _, seen = bob.watch(game)
    assert seen["status"] == "finished" and seen["clocks"]["running"] is None


def test_coming_back_while_an_action_is_being_stored(make_club, settings, first_move):
    """The clock that waited for a player starts under the round's lock: not in the middle
    of another action (its version, its rollback) that holds it."""
    game, _, ann, bob = _restarted_clock_game(make_club, settings, first_move)
    _, before = ann.watch(game)
    club = ann.client.app.state.club
    portal = ann.client.portal
    held = portal.call(asyncio.Event)
    release = portal.call(asyncio.Event)

    async def hold_the_lock() -> None:
        rnd = await club.rounds.get(game)
        async with rnd.lock:
            held.set()
            await release.wait()

    holder = portal.start_task_soon(hold_the_lock)
    try:
        portal.call(held.wait)
        ws = bob.socket()
        ws.send({"t": "sub", "game": game})
        answer = ws.state(game)
        # Nothing changed while the lock was held by someone else...
        assert answer["v"] == before["v"] and answer["clocks"]["running"] is None
    finally:
        portal.call(release.set)
        holder.result(timeout=10)
    # ... and once it is free, o's clock starts: a new version.
    started = ws.state(game, min_v=before["v"] + 1)
    assert started["clocks"]["running"] == "o" and started["turn"] == "o"
