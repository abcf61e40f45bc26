"""The Awele board: positions, legal moves, making and unmaking moves, and the outcome.

>>> board = Board()
>>> board.legal_moves
[<Move.A: 0>, <Move.B: 1>, <Move.C: 2>, <Move.D: 3>, <Move.E: 4>, <Move.F: 5>]
>>> board.push_text("C")
<Move.C: 2>
>>> board.position()
'4-4-0-5-5-5-5-4-4-4-4-4-0-0-N'
>>> board.pop()
<Move.C: 2>

The position is twelve pit counts, two stores and the side to move; the rules of
the game come from a :class:`~gameclub.awele.rules.RuleSet`. This module is
plain Python, the readable reference; the numba kernels in
:mod:`gameclub.awele.kernel` do the same work for perft, playouts and search
(:meth:`Board.kernel_state` hands a position over to them).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from gameclub.awele.errors import IllegalMoveError
from gameclub.awele.move import Move, Side
from gameclub.awele.position import START_POSITION, format_position, parse_position
from gameclub.awele.rules import (
    AWELE,
    WINNING_STORE,
    Feeding,
    GrandSlam,
    OddSeed,
    RepetitionShare,
    RuleSet,
    StuckCheck,
)
from gameclub.awele.zobrist import ZOBRIST_PITS, ZOBRIST_SIDE


class Termination(enum.Enum):
    """Why a game ended."""

    #: a store holds 25 seeds or more.
    MAJORITY = "25 seeds captured"
    #: both stores hold 24.
    DRAW_24 = "24-24"
    #: a player cannot move (his row is empty): the opponent takes the seeds left.
    STUCK = "a player cannot move"
    #: no move feeds an opponent who has no seeds (abapa): each takes his own row.
    NO_FEED = "no move feeds the opponent"
    #: the position occurred for the rule set's count of times.
    REPETITION = "repetition"


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, who won (``None`` for a draw) and the final score."""

    termination: Termination
    winner: Side | None
    #: final seeds (South, North): the stores plus the seeds left that the
    #: ending hands out under the rule set.
    score: tuple[int, int]

    def result(self) -> str:
        """The result as OGN writes it: the final seeds, ``South-North``."""
        return f"{self.score[0]}-{self.score[1]}"


class MoveEffect(NamedTuple):
    """What sowing a pit would do: the pits after it, the seeds captured, and why
    the rules might refuse it."""

    pits: tuple[int, ...]
    captured: int
    #: the opponent's row is empty after sowing and capturing.
    starves: bool
    #: the opponent's row was empty before and the sowing does not reach it.
    unfed: bool
    #: the capture would take every seed of the opponent's row.
    grand_slam: bool


def sow(pits: tuple[int, ...] | list[int], pit: int) -> tuple[list[int], int]:
    """The pits after sowing ``pit`` (skipping it on every lap), and the last pit sown."""
    after = list(pits)
    seeds = after[pit]
    after[pit] = 0
    index = pit
    while seeds:
        index = (index + 1) % 12
        if index != pit:  # a pit of 12 or more seeds is passed over
            after[index] += 1
            seeds -= 1
    return after, index


def move_effect(pits: tuple[int, ...] | list[int], pit: int, rules: RuleSet) -> MoveEffect:
    """What the side owning ``pit`` would do by sowing it (the pit must hold seeds)."""
    mover = pit // 6
    low = 6 - 6 * mover  # the opponent's row is low..low+5
    opponent_before = sum(pits[low:low + 6])
    after, last = sow(pits, pit)
    captured = 0
    grand_slam = False
    if low <= last < low + 6:
        k = last
        while k >= low and after[k] in (2, 3):
            captured += after[k]
            k -= 1
        grand_slam = bool(captured) and captured == sum(after[low:low + 6])
        if grand_slam and rules.grand_slam is GrandSlam.NO_CAPTURE:
            captured = 0
        if captured:
            for j in range(k + 1, last + 1):
                after[j] = 0
    opponent_after = sum(after[low:low + 6])
    return MoveEffect(
        pits=tuple(after),
        captured=captured,
        starves=opponent_after == 0,
        unfed=opponent_before == 0 and sum(after[low:low + 6]) + captured == 0,
        grand_slam=grand_slam,
    )


#: What pop() restores: (move, pits, stores).
_Undo = tuple[Move, tuple[int, ...], tuple[int, int]]


class Board:
    """A position and the moves that led to it from its set-up, under one rule set.

    ``Board()`` is the start position; ``Board(text)`` sets up any position in
    Aalina's notation. Repetitions are counted over the moves played on this
    board since its set-up.
    """

    def __init__(self, position: str | None = None, rules: RuleSet = AWELE) -> None:
        self.rules = rules
        self.set_position(position if position is not None else START_POSITION)

    # -- set-up -------------------------------------------------------------------

    def set_position(self, text: str) -> None:
        """Set up a position from its text; on error nothing changes."""
        fields = parse_position(text)
        self._pits: tuple[int, ...] = fields.pits
        self._stores: tuple[int, int] = fields.stores
        self.turn: Side = fields.turn
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []

    def copy(self) -> Board:
        board = Board.__new__(Board)
        board.__dict__.update(self.__dict__)
        board.move_stack = list(self.move_stack)
        board._undo = list(self._undo)
        return board

    def __copy__(self) -> Board:
        return self.copy()

    # -- position -----------------------------------------------------------------

    @property
    def pits(self) -> tuple[int, ...]:
        """The twelve pit counts: South's A-F, then North's a-f."""
        return self._pits

    @property
    def stores(self) -> tuple[int, int]:
        """The seeds captured so far: (South, North)."""
        return self._stores

    def row(self, side: Side) -> tuple[int, ...]:
        """``side``'s six pits, from its owner's left."""
        return self._pits[6 * side:6 * side + 6]

    def seeds_on_board(self) -> int:
        """The seeds in the pits: an endgame database's layer."""
        return sum(self._pits)

    def position(self) -> str:
        """Aalina's position text, e.g. ``4-4-4-4-4-4-4-4-4-4-4-4-0-0-S``."""
        return format_position(self._pits, self._stores, self.turn)

    def kernel_state(self) -> object:
        """The position as the numba kernels' uint8 array (see :mod:`.kernel`)."""
        import numpy as np

        return np.array([*self._pits, *self._stores, int(self.turn)], dtype=np.uint8)

    def zobrist_hash(self) -> int:
        """A 64-bit Zobrist key of the pits and the side to move (the kernel's
        ``position_key``). Stores are left out: within a game they change only
        with a capture, after which no earlier position can return."""
        key = int(ZOBRIST_SIDE) if self.turn else 0
        for pit, seeds in enumerate(self._pits):
            key ^= int(ZOBRIST_PITS[pit, seeds])
        return key

    def repetitions(self) -> int:
        """How many times the current position (pits and side to move) has occurred
        on this board, this time included. Only the moves since the last capture
        are looked at: a capture takes seeds out for good."""
        key = (self._pits, self.turn)
        count = 1
        seeds = sum(self._pits)
        for index in range(len(self._undo) - 1, -1, -1):
            _, pits, _ = self._undo[index]
            if sum(pits) != seeds:
                break
            turn = Side(int(self.turn) ^ ((len(self._undo) - index) & 1))
            if (pits, turn) == key:
                count += 1
        return count

    # -- moves --------------------------------------------------------------------

    def _candidates(self) -> list[Move]:
        """The side to move's non-empty pits."""
        base = 6 * self.turn
        return [Move(base + i) for i in range(6) if self._pits[base + i]]

    def _refusal(self, effect: MoveEffect) -> str | None:
        """Why the rule set forbids a move with this effect (before the forced case)."""
        rules = self.rules
        if rules.feeding is not Feeding.NONE and effect.unfed:
            return "it does not give seeds to an opponent who has none"
        if rules.grand_slam is GrandSlam.FORBIDDEN and effect.grand_slam and effect.starves:
            return "it would capture every seed of the opponent (a grand slam)"
        return None

    def _legal_and_refused(self) -> tuple[list[Move], dict[Move, str]]:
        """The legal moves ignoring game ends, and the refused ones with the reason."""
        candidates = self._candidates()
        rules = self.rules
        if rules.feeding is Feeding.NONE and rules.grand_slam is not GrandSlam.FORBIDDEN:
            return candidates, {}
        refused = {}
        for move in candidates:
            reason = self._refusal(move_effect(self._pits, move, rules))
            if reason is not None:
                refused[move] = reason
        allowed = [move for move in candidates if move not in refused]
        if allowed or not candidates:
            return allowed, refused
        if rules.feeding is Feeding.REQUIRED and not any(self.row(self.turn.other)):
            return [], refused  # no move feeds: the game ends (abapa)
        # Every move leaves the opponent without seeds: any of them may be played.
        return candidates, {}

    @property
    def legal_moves(self) -> list[Move]:
        """The legal moves; ``[]`` when the game is over."""
        if self.outcome() is not None:
            return []
        return self._legal_and_refused()[0]

    def is_legal(self, move: Move) -> bool:
        try:
            self._check_legal(move)
        except IllegalMoveError:
            return False
        return True

    def _check_legal(self, move: Move) -> None:
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(
                f"illegal move {move.text}: the game is over ({outcome.termination.value})"
            )
        if move.side is not self.turn:
            letters = "ABCDEF" if self.turn is Side.SOUTH else "abcdef"
            raise IllegalMoveError(
                f"illegal move {move.text}: it is {move.side.name.title()}'s pit and "
                f"{self.turn.name.title()} is to move (pits {letters})"
            )
        if not self._pits[move]:
            raise IllegalMoveError(f"illegal move {move.text}: pit {move.text} is empty")
        legal, refused = self._legal_and_refused()
        if move not in legal:
            reason = refused.get(move, "the rules forbid it here")
            raise IllegalMoveError(f"illegal move {move.text}: {reason}")

    def push(self, move: Move | str) -> Move:
        """Play ``move`` (a :class:`Move` or its letter) and return it; raise
        :class:`IllegalMoveError` (changing nothing) if it is illegal."""
        if isinstance(move, str):
            move = Move.from_text(move)
        self._check_legal(move)
        self._push_unchecked(move)
        return move

    def push_text(self, text: str) -> Move:
        """Parse and play a move given as its pit letter; return it."""
        return self.push(Move.from_text(text))

    def _push_unchecked(self, move: Move) -> None:
        self._undo.append((move, self._pits, self._stores))
        self.move_stack.append(move)
        effect = move_effect(self._pits, move, self.rules)
        self._pits = effect.pits
        if effect.captured:
            south, north = self._stores
            if self.turn is Side.SOUTH:
                south += effect.captured
            else:
                north += effect.captured
            self._stores = (south, north)
        self.turn = self.turn.other

    def pop(self) -> Move:
        """Undo the last move and return it; ``IndexError`` when there is none."""
        if not self._undo:
            raise IndexError("pop from a board with no moves played")
        move, self._pits, self._stores = self._undo.pop()
        self.move_stack.pop()
        self.turn = self.turn.other
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    # -- end of the game ------------------------------------------------------------

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """The outcome if the game is over under the rule set, else ``None``."""
        rules = self.rules
        south, north = self._stores
        south_row, north_row = sum(self._pits[:6]), sum(self._pits[6:])
        own_rows = (south + south_row, north + north_row)
        if south >= WINNING_STORE or north >= WINNING_STORE:
            return self._scored(Termination.MAJORITY,
                                own_rows if rules.collect_at_majority else self._stores)
        if south == north == WINNING_STORE - 1:
            return self._scored(Termination.DRAW_24, own_rows)
        mover_row = north_row if self.turn else south_row
        other_row = south_row if self.turn else north_row
        # A stuck player's row is empty, so "the opponent takes the seeds left" and
        # "each takes his own row" are the same count.
        if mover_row == 0 or (rules.stuck_check is StuckCheck.EITHER and other_row == 0):
            return self._scored(Termination.STUCK, own_rows)
        if not self._legal_and_refused()[0]:
            return self._scored(Termination.NO_FEED, own_rows)
        if len(self._undo) >= 2 * (rules.repetition_count - 1) and \
                self.repetitions() >= rules.repetition_count:
            if rules.repetition_share is RepetitionShare.OWN_ROW:
                return self._scored(Termination.REPETITION, own_rows)
            left = south_row + north_row
            half = left // 2
            south, north = south + half, north + half
            if left % 2 and rules.odd_seed is not OddSeed.NOBODY:
                if (rules.odd_seed is OddSeed.TO_MOVE) == (self.turn is Side.SOUTH):
                    south += 1
                else:
                    north += 1
            return self._scored(Termination.REPETITION, (south, north))
        return None

    @staticmethod
    def _scored(termination: Termination, score: tuple[int, int]) -> Outcome:
        south, north = score
        winner = None if south == north else Side.SOUTH if south > north else Side.NORTH
        return Outcome(termination, winner, (south, north))

    # -- display ------------------------------------------------------------------

    def __str__(self) -> str:
        """North's row on top (his left, ``a``, on the right), South's below."""
        north = " ".join(f"{n:2d}" for n in reversed(self._pits[6:]))
        south = " ".join(f"{n:2d}" for n in self._pits[:6])
        return (
            f"    f  e  d  c  b  a    North {self._stores[1]}{' *' if self.turn else ''}\n"
            f"   {north}\n"
            f"   {south}\n"
            f"    A  B  C  D  E  F    South {self._stores[0]}{'' if self.turn else ' *'}"
        )

    def __repr__(self) -> str:
        return f"Board({self.position()!r}, rules={self.rules.name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.position() == other.position() and self.rules == other.rules

    __hash__ = None  # type: ignore[assignment]
