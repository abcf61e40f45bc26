"""Moves and their UAI text: a clone ``g2``, a jump ``a1a3``, a pass ``0000``.

Moves are small immutable values; every possible move is created once and shared,
so move generation only looks moves up.

>>> Move.from_uci("a1a3").from_square, Move.from_uci("g2").is_clone, Move.PASS.uci()
(0, True, '0000')
"""

from __future__ import annotations

from typing import ClassVar

from gameclub.ataxx.errors import InvalidMoveError
from gameclub.ataxx.squares import Square, chebyshev, parse_square, square_name


class Move:
    """A move: ``to_square`` alone for a clone, ``from_square`` too for a jump, neither for a pass.

    Construct with :meth:`clone`, :meth:`jump`, :meth:`from_uci` or :attr:`PASS`.
    """

    __slots__ = ("_uci", "from_square", "to_square")

    from_square: Square | None
    to_square: Square | None
    _uci: str
    PASS: ClassVar[Move]

    def __init__(self, from_square: Square | None, to_square: Square | None) -> None:
        self.from_square = from_square
        self.to_square = to_square
        if to_square is None:
            self._uci = "0000"
        elif from_square is None:
            self._uci = square_name(to_square)
        else:
            self._uci = square_name(from_square) + square_name(to_square)

    @staticmethod
    def clone(to_square: Square) -> Move:
        return _CLONES[to_square]

    @staticmethod
    def jump(from_square: Square, to_square: Square) -> Move:
        move = _JUMPS.get((from_square, to_square))
        if move is None:
            raise InvalidMoveError(
                f"{square_name(from_square)}{square_name(to_square)} is not a jump: "
                "a jump goes exactly two squares away"
            )
        return move

    @staticmethod
    def from_uci(text: str) -> Move:
        """Parse UAI move text; raise :class:`InvalidMoveError` saying what is wrong.

        A clone is written with its destination only: ``a1b2`` is rejected with a
        message that says to write ``b2``.
        """
        move = _BY_TEXT.get(text) if isinstance(text, str) else None
        if move is not None:
            return move
        if not isinstance(text, str):
            raise InvalidMoveError(f"move text must be a string, not {type(text).__name__}")
        if text == "0000":
            return Move.PASS
        if len(text) == 2:
            try:
                return _CLONES[parse_square(text)]
            except ValueError as exc:
                raise InvalidMoveError(f"invalid move {text!r}: {exc}") from None
        if len(text) == 4:
            try:
                frm, to = parse_square(text[:2]), parse_square(text[2:])
            except ValueError as exc:
                raise InvalidMoveError(f"invalid move {text!r}: {exc}") from None
            distance = chebyshev(frm, to)
            if distance == 2:
                return _JUMPS[(frm, to)]
            if distance == 1:
                raise InvalidMoveError(
                    f"invalid move {text!r}: a clone is written with its destination "
                    f"only: {text[2:]!r}"
                )
            raise InvalidMoveError(
                f"invalid move {text!r}: {text[:2]} and {text[2:]} are {distance} squares apart, "
                "a move goes 1 (clone) or 2 (jump) squares"
            )
        raise InvalidMoveError(
            f"invalid move {text!r}: expected a clone like 'g2', a jump like 'a1a3' or '0000'"
        )

    def uci(self) -> str:
        return self._uci

    @property
    def is_pass(self) -> bool:
        return self.to_square is None

    @property
    def is_clone(self) -> bool:
        return self.from_square is None and self.to_square is not None

    @property
    def is_jump(self) -> bool:
        return self.from_square is not None

    def __str__(self) -> str:
        return self._uci

    def __repr__(self) -> str:
        return f"Move.from_uci({self._uci!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._uci == other._uci
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._uci)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Move.from_uci, (self._uci,))


_CLONES: tuple[Move, ...] = tuple(Move(None, sq) for sq in range(64))
_JUMPS: dict[tuple[Square, Square], Move] = {
    (frm, to): Move(frm, to)
    for frm in range(64)
    for to in range(64)
    if chebyshev(frm, to) == 2
}
Move.PASS = Move(None, None)
#: Every well-formed move text, for the fast path of Move.from_uci.
_BY_TEXT: dict[str, Move] = {m.uci(): m for m in (*_CLONES, *_JUMPS.values(), Move.PASS)}

#: ``JUMP_BY_BIT[frm]``: the jump moves leaving ``frm``, keyed by their destination bit.
JUMP_BY_BIT: tuple[dict[int, Move], ...] = tuple(
    {1 << to: m for (f, to), m in _JUMPS.items() if f == frm} for frm in range(64)
)
#: ``CLONE_BY_BIT``: clone moves keyed by their destination bit.
CLONE_BY_BIT: dict[int, Move] = {1 << sq: _CLONES[sq] for sq in range(64)}

#: ``MOVE_BY_CODE[code]``: the move packed as the numba kernels do (``to | from << 8``,
#: ``from = 0xFF`` for a clone).
MOVE_BY_CODE: list[Move | None] = [None] * 0x10000
for _move in _CLONES:
    MOVE_BY_CODE[_move.to_square | 0xFF00] = _move  # type: ignore[operator]
for (_frm, _to), _move in _JUMPS.items():
    MOVE_BY_CODE[_to | _frm << 8] = _move

__all__ = ["CLONE_BY_BIT", "JUMP_BY_BIT", "MOVE_BY_CODE", "Move"]
