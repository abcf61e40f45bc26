"""FEN, move text and PGN records: round trips, strict errors, and python-ataxx as a peer."""

from __future__ import annotations

import random

import ataxx
import ataxx.pgn
import pytest

from gameclub.ataxx import (
    PRESSIBUS,
    SITE_2005,
    Board,
    InvalidFenError,
    InvalidMoveError,
    InvalidRecordError,
    Move,
)
from gameclub.ataxx.notation import GameRecord, rules_from_tags


@pytest.mark.parametrize(
    "fen",
    [
        "x5o/7/7/7/7/7/o5x x 0 1",
        "x5o/7/2-1-2/7/2-1-2/7/o5x o 17 42",
        "xo/ox x 0 1",
        "x7/8/8/8/8/8/8/7o o 3 2",
        "x3/4/3o x 0 1",
        "--x/o2 o 0 1",
    ],
)
def test_fen_round_trip(fen: str) -> None:
    assert Board(fen).fen() == fen


def test_fen_counters_optional_and_startpos() -> None:
    assert Board("x5o/7/7/7/7/7/o5x o").fen() == "x5o/7/7/7/7/7/o5x o 0 1"
    assert Board("startpos").fen() == "x5o/7/7/7/7/7/o5x x 0 1"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "expected 'board side'"),
        ("x5o/7/7/7/7/7/o5x", "expected 'board side'"),
        ("x5o/7/7/7/7/7/o5x x 0", "expected 'board side"),
        ("x5o/7/7/7/7/7/o5x  x 0 1", "single spaces"),
        ("x5o/7/7/7/7/7/o5x y 0 1", "side to move must be 'x' or 'o'"),
        ("x5o/7/7/7/7/7/o5x x -1 1", "halfmove clock '-1' is not a number"),
        ("x5o/7/7/7/7/7/o5x x 0 0", "fullmove number 0 is out of range"),
        ("x5o/7/7/7/7/7/o5z x 0 1", "unexpected 'z' in rank 7"),
        ("x5o/7/7/6/7/7/o5x x 0 1", "rank 4 from the top has 6 squares, the first has 7"),
        ("x8/9/9/9/9/9/9/9/9 x 0 1", "9 ranks"),
        ("x/o x 0 1", "too short"),
        ("x9/x9 x 0 1", "longer than 8"),
        ("x15o/7/7/7/7/7/o5x x 0 1", "two digits in a row"),
        ("x0/ox x 0 1", "empty run of 0"),
        # Digits are ASCII: str.isdigit() and int() also take these.
        ("x5o/7/7/7/7/7/o٥x x 0 1", "unexpected '٥' in rank 7"),
        ("x²o/7/7/7/7/7/o5x x 0 1", "unexpected '²' in rank 1"),
        ("x5o/7/①/7/7/7/o5x x 0 1", "unexpected '①' in rank 3"),
        ("x5o/7/7/7/7/7/o5x x 0 ３", "fullmove number '３' is not a number"),
    ],
)
def test_fen_errors(fen: str, message: str) -> None:
    with pytest.raises(InvalidFenError, match=message):
        Board(fen)


def test_fen_error_changes_nothing() -> None:
    board = Board()
    board.push_uci("g2")
    with pytest.raises(InvalidFenError):
        board.set_fen("nonsense")
    assert board.fen() == "x5o/7/7/7/7/6x/o5x o 0 1" and len(board.move_stack) == 1


def test_move_text_round_trip() -> None:
    for frm in range(64):
        for to in range(64):
            for move in (Move.clone(to),):
                assert Move.from_uci(move.uci()) == move
            try:
                move = Move.jump(frm, to)
            except InvalidMoveError:
                continue
            assert Move.from_uci(move.uci()) is move
    assert Move.from_uci("0000") is Move.PASS and Move.PASS.is_pass


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected a clone"),
        ("a", "expected a clone"),
        ("i1", "invalid square 'i1'"),
        ("a9", "invalid square"),
        ("a1b2", "clone is written with its destination only: 'b2'"),
        ("a1a4", "3 squares apart"),
        ("a1a1", "0 squares apart"),
        ("A1", "invalid square"),
        ("a1 a3", "expected a clone"),
    ],
)
def test_move_text_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidMoveError, match=message):
        Move.from_uci(text)


def _random_game(board: Board, rng: random.Random, plies: int) -> Board:
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def test_pgn_round_trip_with_rules_and_blocks() -> None:
    rng = random.Random(5)
    board = _random_game(Board(rules=PRESSIBUS.with_blocks("3ghx")), rng, 60)
    record = GameRecord.from_board(board, {"White": 'Ann "the" Player', "Black": "bob"})
    text = record.to_pgn()
    assert '[Rules "pressibus"]' in text and '[Blocks "3ghx"]' in text
    assert '[White "Ann \\"the\\" Player"]' in text
    again = GameRecord.from_pgn(text)
    assert again.moves == board.move_stack
    assert again.rules == board.rules
    assert again.headers["White"] == 'Ann "the" Player'
    assert again.board().fen() == board.fen()
    assert again.board(ply=10).fen() == record.board(ply=10).fen()


def test_pgn_finished_game_result() -> None:
    rng = random.Random(11)
    board = _random_game(Board(rules=SITE_2005), rng, 10_000)
    outcome = board.outcome()
    assert outcome is not None
    record = GameRecord.from_pgn(GameRecord.from_board(board).to_pgn())
    assert record.result == outcome.result()
    assert record.board().outcome() == outcome


def test_pgn_custom_rule_options() -> None:
    rules = SITE_2005.replace(repetition=False, fifty_move_limit=60)
    board = Board(rules=rules)
    board.push_uci("b6")
    text = GameRecord.from_board(board).to_pgn()
    assert '[RuleOptions "fifty=60 repetition=off"]' in text
    assert GameRecord.from_pgn(text).rules == rules
    assert rules_from_tags("ataxx", "stuck=lose tie=second-player").stuck.value == "lose"


def test_python_ataxx_reads_our_records() -> None:
    """An independent PGN reader replays our record to the same position."""
    rng = random.Random(3)
    board = _random_game(Board(), rng, 120)
    text = GameRecord.from_board(board).to_pgn()
    game = ataxx.pgn.parse(text)
    theirs = ataxx.Board()
    for node in game.main_line():
        theirs.makemove(node.move)
    assert theirs.get_fen() == board.fen()


def test_reads_records_from_other_tools() -> None:
    text = """[Event "match"]
[White "a"]
[Black "b"]
[FEN "x5o/7/7/7/7/7/o5x x 0 1"]
[Result "*"]

1.g2 {a comment
over two lines} a1a3 $1 2. b7 (2. g1e3 b2) b4 *
"""
    record = GameRecord.from_pgn(text)
    assert [m.uci() for m in record.moves] == ["g2", "a1a3", "b7", "b4"]
    assert len(list(GameRecord.read_all(text + "\n" + text))) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Event "x"\n\n1. g2 *', "line 1: malformed tag"),
        ('[Event "x"]\n[Event "y"]\n\n*', "tag Event appears twice"),
        ('[FEN "x5o/7/6 x 0 1"]\n\n*', "tag FEN"),
        ('[Rules "go"]\n\n*', "unknown rule set 'go'"),
        ('[RuleOptions "tie=maybe"]\n\n*', "bad value 'maybe' for rule option 'tie'"),
        ("\n1. g2 a7 *", "move 2: illegal move a7"),
        ("\n1. g2 zz *", "move 2: invalid move 'zz'"),
        ("\n1. g2 a1a3", "do not end with a result"),
        ('[Result "1-0"]\n\n1. g2 *', "Result tag says 1-0"),
        ("\n1. g2 * g1", "after the result"),
        ("\n1. g2 { open *", "never closed"),
        ("\n1. g2 ( b2 *", "never closed"),
        ('[FEN "x1o/3/3 x 0 1"]\n\n1. b3 0-1', "the game ended 1-0"),
    ],
)
def test_pgn_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        GameRecord.from_pgn(text)


def test_pgn_one_game_expected() -> None:
    with pytest.raises(InvalidRecordError, match="found 0"):
        GameRecord.from_pgn("   \n")


@pytest.mark.parametrize("number", ["١.", "３.", "¹."])
def test_move_numbers_are_ascii_digits(number: str) -> None:
    with pytest.raises(InvalidRecordError):
        GameRecord.from_pgn(f'[Rules "ataxx"]\n\n{number} g2 *\n')
    with pytest.raises(InvalidRecordError):
        GameRecord.from_pgn(f'[Rules "ataxx"]\n\n{number}g2 *\n')
