"""Sides and moves: South and North, and a move as the letter of the pit it sows.

South's pits are ``A``-``F`` from his left, North's ``a``-``f`` from his left,
so the twelve letters ``ABCDEFabcdef`` run counter-clockwise, the way seeds are
sown. A :class:`Move` is an ``IntEnum`` whose value is the pit's index 0-11 in
that order, the index the numba kernels use.

>>> Move.from_text("c")
<Move.c: 8>
>>> Move.c.side
<Side.NORTH: 1>
"""

from __future__ import annotations

import enum

from gameclub.awele.errors import InvalidMoveError

PIT_LETTERS = "ABCDEFabcdef"


class Side(enum.IntEnum):
    """A player: South moves first at the start, North sits across the board."""

    SOUTH = 0
    NORTH = 1

    @property
    def char(self) -> str:
        """``S`` or ``N``, as in the position text."""
        return "SN"[self]

    @property
    def other(self) -> Side:
        return Side(1 - self)

    def __invert__(self) -> Side:
        return Side(1 - self)

    @property
    def pits(self) -> range:
        """The indices of this side's six pits."""
        return range(6 * self, 6 * self + 6)


class Move(enum.IntEnum):
    """A move: the pit sown, by its letter; its value is the pit's index 0-11."""

    A = 0
    B = 1
    C = 2
    D = 3
    E = 4
    F = 5
    a = 6
    b = 7
    c = 8
    d = 9
    e = 10
    f = 11

    @classmethod
    def from_text(cls, text: str) -> Move:
        """The move written as one pit letter; :class:`InvalidMoveError` otherwise."""
        if not isinstance(text, str) or len(text) != 1 or text not in PIT_LETTERS:
            raise InvalidMoveError(
                f"invalid move {text!r}: a move is one pit letter, A-F (South) or a-f (North)"
            )
        return cls(PIT_LETTERS.index(text))

    @property
    def text(self) -> str:
        return PIT_LETTERS[self]

    @property
    def side(self) -> Side:
        """The side whose pit this is (the only side that may play it)."""
        return Side(self // 6)

    @property
    def column(self) -> int:
        """0-5: the pit's place in its own row, from its owner's left."""
        return self % 6

    def __str__(self) -> str:
        return self.text
