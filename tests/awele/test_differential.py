"""Differential tests against OpenSpiel's ``oware`` (abapa), an independent implementation.

After every move of 10,000 seeded random games: the same legal moves, pits,
stores and terminal status; at the end the same final score and result.
Games are played by our numba kernel (the path perft, playouts and searches
use) and replayed move by move in OpenSpiel; a smaller run drives the plain
Python :class:`Board` the same way.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from gameclub.awele import OWARE, RULESETS, Board, Move
from gameclub.awele import kernel as K

GAME = pyspiel.load_game("oware")
MAX_PLIES = 1000  # OpenSpiel's own limit on an oware game's length


def _openspiel_counts(state) -> list[int]:  # type: ignore[no-untyped-def]
    """Pits (A-F, a-f) then stores (South, North), in seeds."""
    return [round(x * 48) for x in state.observation_tensor(0)]


def _replay_kernel_games(first_seed: int, games: int) -> int:
    flags = OWARE.kernel_flags()
    start = Board().kernel_state()
    moves = np.empty(MAX_PLIES, dtype=np.int64)
    states = np.empty((MAX_PLIES, K.STATE_SIZE), dtype=np.uint8)
    total = 0
    for seed in range(first_seed, first_seed + games):
        plies, kind = K.random_game(start, seed, flags, OWARE.repetition_count, MAX_PLIES,
                                    moves, states)
        assert kind != K.ONGOING, f"game {seed} did not end within {MAX_PLIES} plies"
        total += plies
        state = GAME.new_initial_state()
        current = start
        for ply in range(plies):
            mask = K.legal_mask(current, flags)
            assert list(state.legal_actions()) == [i for i in range(6) if mask >> i & 1], \
                (seed, ply)
            state.apply_action(int(moves[ply]) % 6)
            current = states[ply]
            ended = ply == plies - 1
            assert state.is_terminal() == ended, (seed, ply)
            if not ended:
                assert _openspiel_counts(state) == list(current[:14]), (seed, ply)
                assert state.current_player() == current[K.SIDE], (seed, ply)
        final = K.final_stores(current, flags, kind, False, K.ODD_NOBODY)
        assert _openspiel_counts(state)[12:] == list(final), seed
        south, north = final
        expected = 0 if south == north else (1 if south > north else -1)
        assert state.returns() == [expected, -expected], seed
    return total


def test_kernel_matches_openspiel_over_10000_random_games():
    plies = _replay_kernel_games(0, 10_000)
    assert plies > 10_000 * 50  # real games, not stubs


@pytest.mark.slow
def test_kernel_matches_openspiel_over_100000_more_random_games():
    _replay_kernel_games(10_000, 100_000)


def test_board_matches_openspiel_over_random_games():
    for seed in range(200):
        rng = random.Random(seed)
        state = GAME.new_initial_state()
        board = Board(rules=OWARE)
        while True:
            ours = [move.column for move in board.legal_moves]
            theirs = [] if state.is_terminal() else list(state.legal_actions())
            assert ours == theirs, (seed, board.position())
            outcome = board.outcome()
            assert (outcome is not None) == state.is_terminal(), (seed, board.position())
            if outcome is not None:
                assert list(outcome.score) == _openspiel_counts(state)[12:], seed
                winner = 0 if outcome.winner is None else (1 if outcome.winner == 0 else -1)
                assert state.returns()[0] == winner
                break
            counts = _openspiel_counts(state)
            assert (tuple(counts[:12]), tuple(counts[12:])) == (board.pits, board.stores)
            action = rng.choice(theirs)
            state.apply_action(action)
            board.push(Move(6 * board.turn + action))


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_kernel_and_board_agree_under_every_rule_set(name):
    rules = RULESETS[name]
    flags = rules.kernel_flags()
    moves = np.empty(MAX_PLIES, np.int64)
    states = np.empty((MAX_PLIES, K.STATE_SIZE), np.uint8)
    share_equal = rules.repetition_share.value == "equal"
    for seed in range(150):
        plies, kind = K.random_game(Board().kernel_state(), seed, flags, rules.repetition_count,
                                    MAX_PLIES, moves, states)
        board = Board(rules=rules)
        for ply in range(plies):
            mask = K.legal_mask(board.kernel_state(), flags)
            assert [m.column for m in board.legal_moves] == [i for i in range(6) if mask >> i & 1]
            board.push(Move(int(moves[ply])))
            assert list(board.kernel_state()) == list(states[ply])
            assert board.zobrist_hash() == K.position_key(states[ply])
        outcome = board.outcome()
        assert (outcome is None) == (kind == K.ONGOING)
        if outcome is not None:
            final = K.final_stores(states[plies - 1], flags, kind, share_equal, K.ODD_NOBODY)
            assert tuple(final) == outcome.score
