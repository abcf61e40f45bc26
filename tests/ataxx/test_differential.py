"""Differential test against python-ataxx, an independent implementation of the rules.

1,000 seeded random games, most of them on random valid Blocs-Config boards:
the legal-move sets, the FEN after every move and the final result must agree.
"""

from __future__ import annotations

import random

import ataxx
import pytest

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.blocks import random_valid

GAMES = 1000
BATCHES = 10


def play_both(board: Board, rng: random.Random) -> int:
    theirs = ataxx.Board(board.fen())
    plies = 0
    while True:
        ours_moves = sorted(m.uci() for m in board.legal_moves)
        their_moves = sorted(str(m) for m in theirs.legal_moves())
        assert ours_moves == their_moves, board.fen()
        assert board.fen() == theirs.get_fen()
        if not ours_moves:
            break
        move = rng.choice(ours_moves)
        board.push_uci(move)
        theirs.makemove(ataxx.Move.from_san(move))
        plies += 1
    outcome = board.outcome()
    assert outcome is not None
    assert theirs.gameover()
    assert outcome.result() == theirs.result(), board.fen()
    return plies


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_games_agree(batch: int) -> None:
    rng = random.Random(1000 + batch)
    total = 0
    for game in range(GAMES // BATCHES):
        rules = ATAXX if game % 5 == 0 else ATAXX.with_blocks(random_valid(rng).code)
        board = Board(rules=rules)
        # Some games start mid-way with a random halfmove clock, to reach the
        # fifty-move rule and its interplay with decisive ends.
        if game % 7 == 3:
            board = Board(board.fen().replace(" 0 1", f" {rng.randrange(80, 100)} 1"), rules)
        total += play_both(board, rng)
    assert total > 0
