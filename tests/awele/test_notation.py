"""Position text, move text and OGN records: strict parsing, clear errors, round trips."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameclub.awele import (
    AWARI,
    OWARE,
    START_POSITION,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    Move,
    Side,
    format_position,
    parse_position,
)
from gameclub.awele.ogn import read_ogn, write_ogn


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0", "has 14 fields; expected 15"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S-S", "has 16 fields"),
        ("4-4-4--1-4-4-4-4-4-4-4-4-0-0-S", "pit D is negative or empty"),
        ("-1-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "pit A is negative or empty"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-1-S", "49 seeds in all"),
        ("40-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "84 seeds in all"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-X", "side to move is 'X'"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-0-s", "side to move is 's'"),
        ("4-4-4-4-4-4-4-4-4-4-4-x-0-0-S", "pit f is 'x'"),
        ("4-4-4-4-4-4-4-4-4-4-4-04-0-0-S", "pit f is '04'"),
        ("4-4-4-4-4-4-4-4-4-4-4-4-0-49-S", "North's store holds 49"),
        (" 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "spaces"),
    ],
)
def test_bad_positions_are_refused_with_what_is_wrong(text, message):
    with pytest.raises(InvalidPositionError, match=message.replace("(", r"\(")):
        parse_position(text)


def test_a_bad_position_changes_nothing():
    board = Board()
    board.push("C")
    with pytest.raises(InvalidPositionError):
        board.set_position("4-4-4")
    assert board.position() == "4-4-0-5-5-5-5-4-4-4-4-4-0-0-N" and board.move_stack == [Move.C]


@pytest.mark.parametrize("text", ["", "G", "g", "AB", "1", " A", "0000", "F+2"])
def test_bad_move_text_is_refused(text):
    with pytest.raises(InvalidMoveError, match="one pit letter"):
        Move.from_text(text)


def test_illegal_moves_say_why_and_change_nothing():
    board = Board("0-4-4-4-4-4-4-4-4-4-4-4-0-4-S")
    with pytest.raises(IllegalMoveError, match="pit A is empty"):
        board.push("A")
    with pytest.raises(IllegalMoveError, match="North's pit and South is to move"):
        board.push("a")
    assert board.position() == "0-4-4-4-4-4-4-4-4-4-4-4-0-4-S"
    over = Board("0-0-0-0-0-0-1-1-1-0-0-0-25-20-S")
    with pytest.raises(IllegalMoveError, match="game is over"):
        over.push("a")


positions = st.lists(st.integers(0, 8), min_size=14, max_size=14).filter(
    lambda counts: sum(counts) <= 48
).flatmap(lambda counts: st.sampled_from([Side.SOUTH, Side.NORTH]).map(
    lambda side: (tuple(counts[:12]), (counts[12], counts[13]), side)))


@given(positions)
def test_position_text_round_trips(fields):
    pits, stores, side = fields
    text = format_position(pits, stores, side)
    assert tuple(parse_position(text)) == (pits, stores, side)


@given(st.text(alphabet="0123456789-SNx ", max_size=40))
def test_position_parser_raises_only_its_own_error(text):
    with contextlib.suppress(InvalidPositionError):
        parse_position(text)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["awele", "awari", "oware"]))
def test_push_pop_restores_every_position(rng, name):
    from gameclub.awele import RULESETS

    board = Board(rules=RULESETS[name])
    seen = []
    for _ in range(rng.randint(0, 120)):
        moves = board.legal_moves
        if not moves:
            break
        seen.append((board.position(), board.repetitions(), board.zobrist_hash()))
        board.push(rng.choice(moves))
    while seen:
        board.pop()
        assert (board.position(), board.repetitions(), board.zobrist_hash()) == seen.pop()
    assert board.position() == START_POSITION


def _played(rules, moves):
    board = Board(rules=rules)
    for text in moves:
        board.push(text)
    return board


def test_ogn_written_as_aualé_writes_it_and_read_back():
    board = _played(OWARE, "FbCeAfBa")
    text = write_ogn(board, {"South": "Ann", "North": "Bo"})
    assert text.startswith('[Variant "Oware Abapa"]\n[Event "?"]')
    assert '[South "Ann"]' in text and '[Result "*"]' in text
    assert "1. F b 2. C e 3. A f+3 4. B a" in text
    game = read_ogn(text)
    assert game.board.position() == board.position() and game.board.rules == OWARE
    assert game.tags["South"] == "Ann"


def test_ogn_captures_and_final_score():
    board = Board("0-0-0-0-4-1-1-2-1-0-0-5-0-0-S", AWARI)
    board.push("E")
    text = write_ogn(board)
    assert '[FEN "0-0-0-0-4-1-1-2-1-0-0-5-0-0-S"]' in text and "1. E+7" in text
    assert read_ogn(text).board.position() == board.position()


def test_ogn_reads_a_finished_game_and_checks_its_result():
    board = Board("0-0-0-0-0-1-1-0-0-0-0-1-23-22-S")
    board.push("F")
    text = write_ogn(board)
    assert text.rstrip().endswith("1. F+2 25-22")
    assert read_ogn(text).board.outcome() is not None
    with pytest.raises(InvalidRecordError, match="does not match"):
        read_ogn(text.replace("25-22\n", "22-25\n").replace('"25-22"', '"22-25"'))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Variant "Oware Abapa"]\n\n1. F F', "move 2: illegal move F"),
        ('[Variant "Oware Abapa"]\n\n1. F+3', "captures 0 seeds"),
        ('[Variant "Bao"]\n\n1. F', "unknown Variant"),
        ('[Variant "Oware Abapa"]\n\n1. G', "unexpected text"),
        ('[Variant "awele"]\n[FEN "4-4"]\n\n1. F', "FEN tag"),
    ],
)
def test_bad_records_are_refused(text, message):
    with pytest.raises(InvalidRecordError, match=message):
        read_ogn(text)
