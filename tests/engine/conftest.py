"""Shared helpers for the engine tests: random positions and plain reference searches."""

from __future__ import annotations

import random

import pytest

from gameclub.ataxx import ATAXX, Board, Color, RuleSet, Termination
from gameclub.ataxx.fen import format_fen
from gameclub.ataxx.squares import board_mask


def random_board(rng: random.Random, width: int, height: int, empties: int,
                 rules: RuleSet = ATAXX, clock: int = 0) -> Board:
    """A position with ``empties`` empty squares, both sides present, game not over."""
    squares = [r * 8 + f for r in range(height) for f in range(width)]
    while True:
        rng.shuffle(squares)
        filled = squares[: len(squares) - empties]
        x = o = 0
        for sq in filled:
            if rng.random() < 0.5:
                x |= 1 << sq
            else:
                o |= 1 << sq
        turn = rng.randrange(2)
        fen = format_fen(width, height, x, o, 0, turn, clock, 1)
        board = Board(fen, rules=rules)
        if board.outcome() is None and x and o:
            return board


def outcome_value(board: Board, win: int) -> int | None:
    """``result * win + margin`` for the side to move if the game is over, else None."""
    outcome = board.outcome()
    if outcome is None:
        return None
    x, o = outcome.score
    margin = (o - x) if board.turn is Color.O else (x - o)
    if outcome.termination is Termination.FIFTY_MOVES or outcome.winner is None:
        return margin
    return (win if outcome.winner is board.turn else -win) + margin


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20050101)


__all__ = ["board_mask", "outcome_value", "random_board"]
