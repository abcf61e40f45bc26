"""Property tests: push/pop, FEN and hash invariants over random games on random boards."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gameclub.ataxx import RULESETS, Board, RuleSet, StartLayout
from gameclub.ataxx.bitboard import pick_next
from gameclub.ataxx.board import Color
from gameclub.ataxx.squares import board_mask


@st.composite
def games(draw: st.DrawFn) -> Board:
    """A board of random size, blocks and rule set after a random sequence of moves."""
    name = draw(st.sampled_from(sorted(RULESETS)))
    width = draw(st.integers(2, 8))
    height = draw(st.integers(2, 8))
    start = draw(st.sampled_from(list(StartLayout)))
    base = RuleSet.from_name(name).replace(blocs_config_required=False)
    rules = base.replace(width=width, height=height, start=start)
    free = board_mask(width, height) & ~rules.start_squares()
    blocks = draw(st.integers(0, (1 << 64) - 1)) & free & draw(st.integers(0, (1 << 64) - 1))
    board = Board(rules=rules.replace(blocks=blocks))
    for choice in draw(st.lists(st.integers(0, 10_000), max_size=60)):
        moves = board.legal_moves
        if not moves:
            break
        board.push(moves[choice % len(moves)])
    return board


@settings(max_examples=150, deadline=None)
@given(games())
def test_push_pop_round_trip(board: Board) -> None:
    fens = []
    replay = board.copy()
    while replay.move_stack:
        fens.append(replay.fen())
        move = replay.pop()
        replay.push(move)
        assert replay.fen() == fens[-1]
        replay.pop()
    for move in board.move_stack:
        replay.push(move)
    assert replay.fen() == board.fen()


@settings(max_examples=150, deadline=None)
@given(games())
def test_fen_round_trip_and_hash(board: Board) -> None:
    again = Board(board.fen(), board.rules)
    assert again.fen() == board.fen()
    assert again.zobrist_hash() == board.zobrist_hash()
    assert sorted(m.uci() for m in again.legal_moves) == sorted(m.uci() for m in board.legal_moves)


@settings(max_examples=150, deadline=None)
@given(games())
def test_move_invariants(board: Board) -> None:
    x, o = board.pieces(Color.X), board.pieces(Color.O)
    assert not x & o and not (x | o) & board.blocks
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        total = child.count(Color.X) + child.count(Color.O)
        assert total == board.count(Color.X) + board.count(Color.O) + (1 if move.is_clone else 0)
        assert child.zobrist_hash() == Board(child.fen()).zobrist_hash()
        assert child.turn is board.turn.other


@settings(max_examples=150, deadline=None)
@given(games())
def test_kernel_moves_equal_python_reference(board: Board) -> None:
    kernel = sorted(m.uci() for m in board._piece_moves())
    assert kernel == sorted(m.uci() for m in board._piece_moves_python())


# No deadline: the first example compiles the numba kernel.
@settings(deadline=None)
@given(st.lists(st.integers(-(1 << 50), 1 << 50) | st.integers(0, 3), min_size=1, max_size=576),
       st.data())
def test_pick_next_takes_the_first_of_the_largest_keys(keys: list[int], data: st.DataObject
                                                       ) -> None:
    # A selection sort run to the end against the plain first-maximum scan it replaces;
    # small keys make ties common (the earliest slot wins them).
    count = len(keys)
    start = data.draw(st.integers(0, count - 1))
    moves = np.arange(count, dtype=np.int64).reshape(1, count) + 1000
    key_rows = np.array(keys, dtype=np.int64).reshape(1, count)
    expected_moves = moves.copy()
    expected_keys = key_rows.copy()
    for i in range(start, count):
        top = i
        for j in range(i + 1, count):
            if expected_keys[0, j] > expected_keys[0, top]:
                top = j
        expected = expected_moves[0, top]
        expected_moves[0, top], expected_keys[0, top] = expected_moves[0, i], expected_keys[0, i]
        expected_moves[0, i] = expected
        assert pick_next(moves, key_rows, 0, i, count) == expected
    assert (moves == expected_moves).all()
