"""The board and the kernel agree on random games under every preset."""

import numpy as np
import pytest

from gameclub.awele import RULESETS, Board, Move
from gameclub.awele import kernel as K


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_kernel_and_board_play_the_same_games(name):
    rules = RULESETS[name]
    flags = rules.kernel_flags()
    moves = np.empty(2000, np.int64)
    states = np.empty((2000, K.STATE_SIZE), np.uint8)
    for seed in range(30):
        plies, kind = K.random_game(Board().kernel_state(), seed, flags, rules.repetition_count,
                                    2000, moves, states)
        board = Board(rules=rules)
        for ply in range(plies):
            mask = K.legal_mask(board.kernel_state(), flags)
            assert [m.column for m in board.legal_moves] == [i for i in range(6) if mask >> i & 1]
            board.push(Move(int(moves[ply])))
            assert list(board.kernel_state()) == list(states[ply])
        assert (board.outcome() is None) == (kind == K.ONGOING)
