"""Each rule of source 001, the awari and oware rule sets' own cases, on positions built for them.

Positions are Aalina's text: pits A-F (South), a-f (North), stores, side to move.
"""

from __future__ import annotations

import pytest

from gameclub.awele import (
    AWARI,
    AWELE,
    OWARE,
    Board,
    IllegalMoveError,
    Move,
    Side,
    Termination,
)
from gameclub.awele.kernel import legal_mask

# -- source 001 -----------------------------------------------------------------------


def test_start_has_four_seeds_in_each_of_twelve_pits_and_south_moves_first():
    board = Board()
    assert board.pits == (4,) * 12 and board.stores == (0, 0) and board.turn is Side.SOUTH


def test_sowing_goes_counter_clockwise_from_the_next_pit_and_empties_the_pit():
    board = Board("0-0-0-0-3-0-0-0-0-0-0-0-0-0-S")
    board.push("E")
    assert board.pits == (0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0)


def test_sowing_12_or_more_seeds_skips_the_starting_pit():
    board = Board("12-0-0-0-0-0-0-0-0-0-0-1-0-0-S")
    board.push("A")
    # Eleven pits get one seed; the twelfth seed passes over A and lands in B.
    assert board.pits == (0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2)
    assert board.pits[0] == 0


def test_capture_of_2_or_3_takes_the_pits_before_it_and_stops_at_the_end_of_the_row():
    # E sows F, a, b, c: a 1->2, b 2->3, c 1->2 are taken; F (South's own, now 2) is not.
    board = Board("0-0-0-0-4-1-1-2-1-0-0-5-0-0-S")
    board.push("E")
    assert board.stores == (7, 0)
    assert board.pits == (0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 5)


def test_capture_chain_stops_at_a_pit_without_2_or_3():
    # D sows E, F, a, b: b 1->2 is taken, a 3->4 stops the chain.
    board = Board("0-0-0-4-0-0-3-1-0-0-0-1-0-0-S")
    board.push("D")
    assert board.stores == (2, 0)
    assert board.pits[6:8] == (4, 0)


def test_last_seed_in_own_row_captures_nothing():
    board = Board("1-1-0-0-0-0-2-2-0-0-0-0-0-0-S")
    board.push("A")
    assert board.stores == (0, 0)


def test_reaching_25_ends_the_game_at_once():
    board = Board("0-0-0-0-0-1-1-0-0-0-0-1-23-22-S")
    board.push("F")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.MAJORITY
    assert outcome.winner is Side.SOUTH and outcome.score == (25, 22)
    assert board.legal_moves == []


def test_a_player_who_cannot_move_gives_the_seeds_left_to_his_opponent():
    board = Board("1-2-0-3-0-2-0-0-0-0-0-0-20-20-N")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.STUCK
    assert outcome.score == (28, 20) and outcome.winner is Side.SOUTH


def test_24_24_is_a_draw():
    board = Board("0-0-0-0-0-1-1-0-0-0-0-0-22-24-S")
    board.push("F")  # a 1->2, captured
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.DRAW_24
    assert outcome.winner is None and outcome.score == (24, 24)


# One seed each, chasing each other round the board: back to the start after 12 moves.
CYCLE_START = "0-0-0-0-0-1-0-0-0-0-0-1-23-23-S"
CYCLE = "FfAaBbCcDdEe"


def test_third_occurrence_of_a_position_shares_the_seeds_left_equally():
    board = Board(CYCLE_START)
    for text in CYCLE * 2:
        assert board.outcome() is None
        board.push(text)
    assert board.repetitions() == 3
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION
    assert outcome.score == (24, 24) and outcome.winner is None


def test_second_occurrence_does_not_end_an_awele_game():
    board = Board(CYCLE_START)
    for text in CYCLE:
        board.push(text)
    assert board.repetitions() == 2 and board.outcome() is None


def test_odd_seed_of_an_equal_share_goes_where_the_option_says():
    import numpy as np

    from gameclub.awele import kernel as K

    # Three seeds left, South to move: each takes one, the odd one as the option says.
    state = np.array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 22, 23, 0], dtype=np.uint8)
    flags = AWELE.kernel_flags()
    assert K.final_stores(state, flags, K.END_REPETITION, True, K.ODD_NOBODY) == (23, 24)
    assert K.final_stores(state, flags, K.END_REPETITION, True, K.ODD_TO_MOVE) == (24, 24)
    assert K.final_stores(state, flags, K.END_REPETITION, True, K.ODD_OPPONENT) == (23, 25)


def test_awele_has_no_feeding_obligation():
    board = Board("1-0-0-0-2-1-0-0-0-0-0-0-20-24-S")
    assert board.legal_moves == [Move.A, Move.E, Move.F]  # A does not feed North


def test_awele_has_no_grand_slam_rule():
    # F sows a (1->2) and b (2->3): every seed of North's row, all captured.
    board = Board("1-0-0-0-0-2-1-2-0-0-0-0-21-21-S")
    board.push("F")
    assert board.stores == (26, 21)


# -- awari: Romein and Bal's rules ----------------------------------------------------


def test_awari_grand_slam_is_illegal_when_another_move_exists():
    board = Board("1-0-0-0-0-2-1-2-0-0-0-0-21-21-S", AWARI)
    assert board.legal_moves == [Move.A]
    with pytest.raises(IllegalMoveError, match="grand slam"):
        board.push("F")


def test_awari_forced_grand_slam_is_played_and_captures():
    board = Board("0-0-0-0-0-2-1-2-0-0-0-0-21-21-S", AWARI)
    assert board.legal_moves == [Move.F]
    board.push("F")
    assert board.stores == (26, 21)


def test_awari_must_feed_an_opponent_without_seeds_when_it_can():
    board = Board("1-0-0-0-2-1-0-0-0-0-0-0-20-24-S", AWARI)
    assert board.legal_moves == [Move.E, Move.F]
    with pytest.raises(IllegalMoveError, match="does not give seeds"):
        board.push("A")


def test_awari_allows_any_move_when_none_feeds():
    board = Board("1-1-0-0-0-0-0-0-0-0-0-0-23-23-S", AWARI)
    assert board.legal_moves == [Move.A, Move.B]
    board.push("A")
    outcome = board.outcome()  # North has no seeds: South takes the seeds left
    assert outcome is not None and outcome.termination is Termination.STUCK
    assert outcome.score == (25, 23)


def test_awari_threefold_repetition_shares_the_seeds_left():
    board = Board(CYCLE_START, AWARI)
    for text in CYCLE * 2:
        board.push(text)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION
    assert outcome.score == (24, 24)


def test_awari_lookup_example_has_all_six_moves():
    # The position of the Awari database README's db_lookup example: every child
    # has a score there (none is 127, "not available").
    board = Board("1-1-1-1-1-2-4-2-3-0-0-0-0-0-S", AWARI)
    assert len(board.legal_moves) == 6


# -- oware: abapa as OpenSpiel plays it -----------------------------------------------


def test_oware_grand_slam_is_played_but_captures_nothing():
    board = Board("1-0-0-0-0-2-1-2-0-0-0-0-21-21-S", OWARE)
    assert Move.F in board.legal_moves
    board.push("F")
    assert board.stores == (21, 21) and board.pits[6:8] == (2, 3)


def test_oware_without_a_feeding_move_ends_and_each_takes_his_row():
    board = Board("1-1-0-0-0-0-0-0-0-0-0-0-23-23-S", OWARE)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_FEED
    assert outcome.score == (25, 23)


def test_oware_first_return_ends_the_game_with_own_rows():
    board = Board(CYCLE_START, OWARE)
    for text in CYCLE:
        board.push(text)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION
    assert outcome.score == (24, 24)


@pytest.mark.parametrize("rules", [AWELE, AWARI, OWARE], ids=lambda r: r.name)
def test_the_kernel_refuses_the_same_moves(rules):
    for position in ("1-0-0-0-0-2-1-2-0-0-0-0-21-21-S", "1-0-0-0-2-1-0-0-0-0-0-0-20-24-S",
                     "0-0-0-0-0-2-1-2-0-0-0-0-21-21-S"):
        board = Board(position, rules)
        mask = legal_mask(board.kernel_state(), rules.kernel_flags())
        assert [m.column for m in board._legal_and_refused()[0]] == \
            [i for i in range(6) if mask >> i & 1]
