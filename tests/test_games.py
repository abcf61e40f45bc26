"""The games interface (gameclub.games): what a move did, as the club shows it, checked
against sowing written here; moves of one game refused by the other; records round trip."""

from __future__ import annotations

import random

import pytest

from gameclub.games import GAMES, GameError, RecordInfo, Setup


def sown_by_hand(pits: list[int], pit: int) -> tuple[list[int], list[int]]:
    """Sowing (source 001): the pits after it and the pits sown in order (the emptied pit
    is skipped on every lap)."""
    after = list(pits)
    seeds, after[pit] = after[pit], 0
    sown = []
    index = pit
    while len(sown) < seeds:
        index = (index + 1) % 12
        if index != pit:
            after[index] += 1
            sown.append(index)
    return after, sown


@pytest.mark.parametrize("rules", ["awele", "awari", "oware"])
def test_each_awele_move_is_described_as_sown(rules):
    awele = GAMES["awele"]
    rng = random.Random(rules)
    for _ in range(40):
        position = awele.position(rules, None, awele.start_text(Setup(rules)))
        while position.outcome() is None:
            before = position.view(live=True)
            move = rng.choice(before["legal"])
            last = position.push(position.parse_move(move))
            after = position.view(live=True)
            sown_pits, sown = sown_by_hand(before["pits"], "ABCDEFabcdef".index(move))
            assert last["sown"] == sown and last["by"] in "xo"
            # The captured pits are emptied sown pits of the opponent's row, and hold the
            # seeds that reached the mover's store.
            opponent = range(6, 12) if move.isupper() else range(0, 6)
            assert all(pit in sown and pit in opponent for pit in last["captured"])
            assert last["seeds"] == sum(sown_pits[pit] for pit in last["captured"])
            assert all(after["pits"][pit] == 0 for pit in last["captured"])
            assert after["stores"][last["by"]] == before["stores"][last["by"]] + last["seeds"]
            assert position.last() == last
        outcome = position.outcome()
        assert outcome is not None and outcome.reason in awele.rules_endings


def test_moves_of_one_game_are_not_moves_of_the_other():
    ataxx = GAMES["ataxx"].position("ataxx", None, GAMES["ataxx"].start_text(Setup("ataxx")))
    awele = GAMES["awele"].position("awele", None, GAMES["awele"].start_text(Setup("awele")))
    for text in ("C", "a", "A1"):
        with pytest.raises(GameError) as refused:
            ataxx.parse_move(text)
        assert refused.value.code == "invalid-move"
    for text in ("a1a3", "b2", "0000", "AB", ""):
        with pytest.raises(GameError) as refused:
            awele.parse_move(text)
        assert refused.value.code == "invalid-move"
    assert awele.illegal("a") is not None and awele.illegal("C") is None
    assert ataxx.forced_move() is None and awele.forced_move() is None


@pytest.mark.parametrize("kind", ["ataxx", "awele"])
def test_records_written_read_back(kind):
    game = GAMES[kind]
    rules = game.default_rules
    start = game.start_text(Setup(rules))
    position = game.position(rules, None, start)
    rng = random.Random(7)
    moves = []
    for _ in range(12):
        legal = position.view(live=True).get("legal")
        if legal is None:  # Ataxx: any destination of any piece
            dests = position.view(live=True)["dests"]
            source = rng.choice(sorted(dests))
            move = rng.choice(dests[source]["clone"] or [source + dests[source]["jump"][0]])
        else:
            move = rng.choice(legal)
        position.push(move)
        moves.append(move)
    info = RecordInfo("g1", rules, None, start, moves, False, 0, ("ann", "bob"), None)
    record = game.write_record(info)
    assert record.format == game.record_format and record.filename.endswith(record.format)
    read = game.read_record(record.text)
    assert read["kind"] == kind and read["moves"] == moves
    assert read["players"] == {"x": "ann", "o": "bob"}
    assert read["continuable"] and len(read["positions"]) == len(moves) + 1
