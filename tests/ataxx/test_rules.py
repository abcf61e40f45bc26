"""The rule sets: start positions, passing, the end of the game under each preset."""

from __future__ import annotations

import pytest

from gameclub.ataxx import (
    ATAXX,
    PRESSIBUS,
    RULESETS,
    SITE_2005,
    Board,
    Color,
    IllegalMoveError,
    InvalidFenError,
    InvalidRulesError,
    Move,
    RuleSet,
    StartLayout,
    StuckPolicy,
    Termination,
    TiePolicy,
)

# x on a4 is walled in by o: nothing empty within two squares.
X_STUCK_4X4 = "xoo1/ooo1/ooo1/4 x 0 1"


def test_presets_by_name() -> None:
    assert set(RULESETS) == {"ataxx", "pressibus", "site-2005"}
    assert RuleSet.from_name("pressibus") is PRESSIBUS
    with pytest.raises(InvalidRulesError, match="unknown rule set 'chess'.*ataxx"):
        RuleSet.from_name("chess")


def test_start_positions() -> None:
    assert Board().fen() == "x5o/7/7/7/7/7/o5x x 0 1"
    assert Board(rules=PRESSIBUS).fen() == "x5o/7/7/7/7/7/o5x x 0 1"
    assert Board(rules=SITE_2005).fen() == "x6/7/7/7/7/7/6o x 0 1"
    assert len(Board(rules=SITE_2005).legal_moves) == 8
    small = ATAXX.replace(width=4, height=3, start=StartLayout.TWO_CORNERS)
    assert Board(rules=small).fen() == "x3/4/3o x 0 1"
    blocked = Board(rules=ATAXX.with_blocks("3ghx"))
    assert blocked.fen() == "x5o/1-3-1/2-1-2/2---2/2-1-2/1-3-1/o5x x 0 1"


def test_rule_set_validation() -> None:
    with pytest.raises(InvalidRulesError, match="width must be between 2 and 8, not 9"):
        ATAXX.replace(width=9)
    with pytest.raises(InvalidRulesError, match="starting square"):
        ATAXX.replace(blocks=1)  # a1 is a starting corner
    with pytest.raises(InvalidRulesError, match="outside the board"):
        ATAXX.replace(width=5, height=5, blocks=1 << 62)
    with pytest.raises(InvalidRulesError, match="d4 cannot be reached"):
        PRESSIBUS.with_blocks("2356cfgh")
    with pytest.raises(InvalidRulesError, match="at most 24"):
        PRESSIBUS.with_blocks("123abcde")
    with pytest.raises(InvalidRulesError, match="7x7"):
        ATAXX.replace(width=5, height=5).with_blocks("x")
    with pytest.raises(InvalidRulesError, match="fifty_move_limit"):
        ATAXX.replace(fifty_move_limit=0)
    assert PRESSIBUS.with_blocks("3ghx").blocks_code == "3ghx"


def test_pressibus_rejects_asymmetric_blocks_in_fen() -> None:
    with pytest.raises(InvalidFenError, match="symmetr|mirror"):
        Board("x5o/1-5/7/7/7/7/o5x x 0 1", PRESSIBUS)
    # Plain Ataxx takes any blocks.
    assert Board("x5o/1-5/7/7/7/7/o5x x 0 1").blocks == 1 << (5 * 8 + 1)


def test_pass_only_when_stuck() -> None:
    board = Board(X_STUCK_4X4)
    assert board.legal_moves == [Move.PASS]
    board.push(Move.PASS)
    assert board.turn is Color.O and board.halfmove_clock == 1
    assert Move.PASS not in board.legal_moves
    with pytest.raises(IllegalMoveError, match="passing is allowed only when stuck"):
        board.push(Move.PASS)


def test_site_2005_stuck_side_loses() -> None:
    board = Board(X_STUCK_4X4, SITE_2005)
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.STUCK, Color.O)
    assert board.legal_moves == []


def test_pressibus_early_fill() -> None:
    board = Board(X_STUCK_4X4, PRESSIBUS)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.EARLY_FILL
    assert outcome.winner is Color.O
    assert outcome.score == (1, 15)  # the 7 empty squares count for o


def test_pressibus_no_early_fill_without_a_majority() -> None:
    # x holds files a-d (28 squares), o files e-f, file g empty: x is stuck, but o
    # would only reach 21 of 49 squares, so x passes and the game goes on.
    fen = "/".join(["xxxxoo1"] * 7) + " x 0 1"
    board = Board(fen, PRESSIBUS)
    assert board.outcome() is None
    assert board.legal_moves == [Move.PASS]


def test_threefold_repetition() -> None:
    shuffle = ["a7a5", "g7g5", "a5a7", "g5g7"] * 2
    for rules, winner in ((PRESSIBUS, None), (ATAXX, "not over")):
        board = Board(rules=rules)
        for move in shuffle:
            assert board.outcome() is None
            board.push_uci(move)
        assert board.repetitions() == 3
        outcome = board.outcome()
        if winner == "not over":
            assert outcome is None
        else:
            assert outcome is not None
            assert outcome.termination is Termination.THREEFOLD_REPETITION
            assert outcome.winner is None
    board = Board(rules=SITE_2005)
    for move in ["a7a5", "g1g3", "a5a7", "g3g1"] * 2:
        board.push_uci(move)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.THREEFOLD_REPETITION
    assert outcome.winner is Color.O  # a tie goes to the second player


def test_repetition_counts_only_identical_positions() -> None:
    board = Board(rules=PRESSIBUS)
    for move in ["a7a5", "g7g5", "a5a7", "g5g7", "a7a5", "g7g5"]:
        board.push_uci(move)
    assert board.repetitions() == 2
    board.push_uci("a5a7")
    assert board.repetitions() == 2
    board.push_uci("g5g7")
    assert board.repetitions() == 3


def test_fifty_move_rule_and_precedence() -> None:
    board = Board("x5o/7/7/7/7/7/o5x x 99 1")
    board.push_uci("a7a5")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.FIFTY_MOVES, None)
    assert board.legal_moves == []
    # A clone on the 100th halfmove resets the clock.
    board = Board("x5o/7/7/7/7/7/o5x x 99 1")
    board.push_uci("b7")
    assert board.outcome() is None
    # A decisive end on the 100th halfmove takes precedence over the draw.
    board = Board("5/2o2/5/5/x4 x 99 1")
    board.push_uci("a1c3")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.NO_PIECES, Color.X)
    # Pressibus has no fifty-move rule.
    assert Board("x5o/7/7/7/7/7/o5x x 150 1", PRESSIBUS).outcome() is None


def test_board_full_and_no_moves() -> None:
    full = Board("xxo/xxo/oox o 0 1")
    outcome = full.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner, outcome.score) == (
        Termination.BOARD_FULL, Color.X, (5, 4))
    walled = "x--o/----/----/4 x 0 1"
    outcome = Board(walled).outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner) == (Termination.NO_MOVES, None)
    outcome = Board(walled, SITE_2005).outcome()
    assert outcome is not None and outcome.winner is Color.O  # tie to the second player
    tie_x = ATAXX.replace(tie=TiePolicy.DRAW, stuck=StuckPolicy.LOSE)
    outcome = Board(walled, tie_x).outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES


def test_no_pieces() -> None:
    board = Board("x1o/3/3 x 0 1")
    board.push_uci("b3")
    outcome = board.outcome()
    assert outcome is not None
    assert (outcome.termination, outcome.winner, outcome.result()) == (
        Termination.NO_PIECES, Color.X, "1-0")


def test_moves_flip_and_clock() -> None:
    board = Board("7/7/7/3o3/2o1o2/7/x6 x 5 1")
    board.push_uci("a1c2")
    assert board.fen() == "7/7/7/3o3/2x1o2/2x4/7 o 6 1"
    board.push_uci("d2")
    assert board.fen() == "7/7/7/3o3/2o1o2/2oo3/7 x 0 2"
    board.pop()
    board.pop()
    assert board.fen() == "7/7/7/3o3/2o1o2/7/x6 x 5 1"


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("a7", "occupied"),
        ("d4", "no x piece next to d4"),
        ("g7e5", "no x piece on g7"),
        ("c5a3", "no x piece on c5"),
        ("h1", "off the board"),
        ("0000", "passing is allowed only when stuck"),
        ("c7", "a block"),
    ],
)
def test_illegal_moves_change_nothing(move: str, message: str) -> None:
    board = Board("x1-1-1o/7/7/7/7/7/o5x x 0 1")
    before = board.fen()
    with pytest.raises(IllegalMoveError, match=message):
        board.push_uci(move)
    assert board.fen() == before and board.move_stack == []
    assert not board.is_legal(Move.from_uci(move))


def test_no_move_after_the_end() -> None:
    board = Board("xxo/xxo/oo1 o 0 1")
    board.push_uci("c1")
    assert board.is_game_over()
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push(Move.PASS)


def test_pop_on_fresh_board() -> None:
    with pytest.raises(IndexError):
        Board().pop()


def test_zobrist_hash() -> None:
    a, b = Board(), Board()
    for move in ("g2", "a2", "b7"):
        a.push_uci(move)
    for move in ("b7", "a2", "g2"):
        b.push_uci(move)
    assert a.fen().split()[0] == b.fen().split()[0]
    assert a.zobrist_hash() == b.zobrist_hash()
    assert a.zobrist_hash() == Board(a.fen()).zobrist_hash()
    c = Board(a.fen().replace(" o ", " x "))
    assert c.zobrist_hash() != a.zobrist_hash()


def test_destinations() -> None:
    board = Board()
    clones, jumps = board.destinations(0)  # a1
    assert clones.bit_count() == 3 and jumps.bit_count() == 5
