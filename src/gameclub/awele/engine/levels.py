"""The beginner levels: ``greedy`` takes the biggest capture in sight and nothing more."""

from __future__ import annotations

import random

from gameclub.awele.board import Board, move_effect
from gameclub.awele.move import Move


def greedy_move(board: Board, moves: list[Move], rng: random.Random) -> Move:
    """The move that captures most at once (a win at once first); ties at random.

    It looks one move ahead only: it never sees what the reply captures.
    """
    best: list[Move] = []
    best_gain = -1
    south, north = board.stores
    mine = south if board.turn == 0 else north
    for move in moves:
        gain = move_effect(board.pits, move, board.rules).captured
        if mine + gain >= 25:
            gain += 100  # reaching 25 ends the game: nothing beats it
        if gain > best_gain:
            best, best_gain = [move], gain
        elif gain == best_gain:
            best.append(move)
    return rng.choice(best)
