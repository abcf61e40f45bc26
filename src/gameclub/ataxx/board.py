"""The Ataxx board: positions, legal moves, making and unmaking moves, and the outcome.

>>> board = Board()
>>> len(board.legal_moves)
16
>>> board.push_uci("f2")
Move.from_uci('f2')
>>> board.fen()
'x5o/7/7/7/7/7/o4xx o 0 1'
>>> board.pop()
Move.from_uci('f2')

The position is two bitboards (``x`` and ``o``) plus the blocks; the rules of the
game come from a :class:`~gameclub.ataxx.rules.RuleSet`. This module is plain
Python on integer bitboards; the numba kernels in :mod:`gameclub.ataxx.bitboard`
do the same work for search and perft.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gameclub.ataxx.errors import IllegalMoveError, InvalidFenError
from gameclub.ataxx.fen import format_fen, parse_fen
from gameclub.ataxx.move import CLONE_BY_BIT, JUMP_BY_BIT, MOVE_BY_CODE, Move
from gameclub.ataxx.rules import ATAXX, RuleSet, StuckPolicy, TiePolicy
from gameclub.ataxx.squares import (
    DOUBLES,
    SINGLES,
    Bitboard,
    Square,
    board_mask,
    expand,
    square_name,
)


def _signed(bb: Bitboard) -> int:
    """The 64-bit pattern of ``bb`` as a signed int64 value."""
    return bb - (1 << 64) if bb >> 63 else bb


class Color(enum.IntEnum):
    """A side: ``X`` moves first (red in the 1997 rules, blue on the 2005 site)."""

    X = 0
    O = 1

    @property
    def char(self) -> str:
        return "xo"[self]

    @property
    def other(self) -> Color:
        return Color(1 - self)

    def __invert__(self) -> Color:
        return Color(1 - self)


class Termination(enum.Enum):
    """Why a game ended."""

    #: a side has no pieces left.
    NO_PIECES = "no pieces"
    #: every square is filled.
    BOARD_FULL = "board full"
    #: empty squares remain, but neither side can ever reach them.
    NO_MOVES = "neither side can move"
    #: the side to move has no legal move and loses at once (2005 site).
    STUCK = "stuck player loses"
    #: the halfmove clock reached the rule set's limit.
    FIFTY_MOVES = "fifty-move rule"
    #: the same position occurred for the third time.
    THREEFOLD_REPETITION = "threefold repetition"
    #: the stuck side's opponent takes every empty square (Pressibus 1997).
    EARLY_FILL = "early fill"


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, who won (``None`` for a draw) and the final count."""

    termination: Termination
    winner: Color | None
    #: final piece counts ``(x, o)``, empty squares credited under an early fill.
    score: tuple[int, int]

    def result(self) -> str:
        """The PGN result: ``1-0`` (x won), ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.X else "0-1"


# The kernel behind Board._piece_moves, imported on first use so that importing
# this module does not import numba.
_move_codes: Callable[[int, int], Any] | None = None
# MOVE_BY_CODE as a numpy object array, so that the kernel's codes turn into
# Move objects with one fancy index (built with the kernel, on first use).
_moves_by_code: Any = None


#: What pop() restores: (move, x, o, halfmove clock, fullmove number). A plain
#: tuple because push() builds one per move and a NamedTuple costs more.
_Undo = tuple[Move, Bitboard, Bitboard, int, int]


_ZOBRIST_RANDOM = random.Random(0x41544158)
_ZOBRIST_PIECES = [
    [_ZOBRIST_RANDOM.getrandbits(64) for _ in range(64)],
    [_ZOBRIST_RANDOM.getrandbits(64) for _ in range(64)],
]
_ZOBRIST_TURN = _ZOBRIST_RANDOM.getrandbits(64)


class Board:
    """A position and the moves that led to it from its set-up, under one rule set.

    ``Board()`` is the start position of ``rules``; ``Board(fen)`` sets up any
    position (its geometry and blocks come from the FEN). Under a rule set that
    requires a Blocs-Config, the FEN's blocks must be a valid one.
    """

    def __init__(self, fen: str | None = None, rules: RuleSet = ATAXX) -> None:
        self.rules = rules
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []
        self.set_fen(fen if fen is not None else rules.start_fen())

    # -- set-up -------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Set up a position from a FEN; on error nothing changes."""
        fields = parse_fen(fen)
        if self.rules.blocs_config_required and fields.blocks:
            from gameclub.ataxx.blocks import valid_config_of

            try:
                valid_config_of(fields.blocks, fields.width, fields.height)
            except ValueError as exc:
                raise InvalidFenError(
                    f"blocks of {fen!r} under rule set {self.rules.name!r}: {exc}"
                ) from None
        self.width = fields.width
        self.height = fields.height
        self._x = fields.x
        self._o = fields.o
        self.blocks: Bitboard = fields.blocks
        self.turn = Color(fields.turn)
        self.halfmove_clock = fields.halfmove_clock
        self.fullmove_number = fields.fullmove_number
        #: playable squares: the board less its blocks.
        self.playable: Bitboard = board_mask(self.width, self.height) & ~self.blocks
        self.move_stack = []
        self._undo = []
        # (history length, x, o, turn, has piece moves) of the last position that
        # legal_moves found alive, so that push() can skip the outcome test.
        self._live: tuple[int, int, int, Color, bool] | None = None

    def copy(self) -> Board:
        board = Board.__new__(Board)
        board.__dict__.update(self.__dict__)
        board.move_stack = list(self.move_stack)
        board._undo = list(self._undo)
        return board

    def __copy__(self) -> Board:
        return self.copy()

    # -- position -----------------------------------------------------------------

    def pieces(self, color: Color) -> Bitboard:
        return self._o if color else self._x

    def count(self, color: Color) -> int:
        return (self._o if color else self._x).bit_count()

    @property
    def empty(self) -> Bitboard:
        return self.playable & ~(self._x | self._o)

    def piece_at(self, sq: Square) -> Color | None:
        bit = 1 << sq
        if self._x & bit:
            return Color.X
        if self._o & bit:
            return Color.O
        return None

    def is_block(self, sq: Square) -> bool:
        return bool(self.blocks >> sq & 1)

    def fen(self) -> str:
        return format_fen(
            self.width,
            self.height,
            self._x,
            self._o,
            self.blocks,
            int(self.turn),
            self.halfmove_clock,
            self.fullmove_number,
        )

    def zobrist_hash(self) -> int:
        """A 64-bit Zobrist hash of the pieces and the side to move."""
        h = _ZOBRIST_TURN if self.turn else 0
        for color, bb in ((0, self._x), (1, self._o)):
            keys = _ZOBRIST_PIECES[color]
            while bb:
                low = bb & -bb
                h ^= keys[low.bit_length() - 1]
                bb ^= low
        return h

    def _key(self) -> tuple[int, int, int]:
        return (self._x, self._o, int(self.turn))

    def repetitions(self) -> int:
        """How many times the current position has occurred (1 the first time).

        Clones add a piece for good, so a position can only repeat since the last
        clone: only that many entries of the history are looked at.
        """
        key = self._key()
        count = 1
        window = min(self.halfmove_clock, len(self._undo))
        for index in range(len(self._undo) - 1, len(self._undo) - 1 - window, -1):
            _, x, o, _, _ = self._undo[index]
            # The side to move alternates with every move, passes included.
            turn = int(self.turn) ^ ((len(self._undo) - index) & 1)
            if (x, o, turn) == key:
                count += 1
        return count

    # -- moves --------------------------------------------------------------------

    def can_move(self, color: Color) -> bool:
        """Whether ``color`` has a move other than a pass."""
        us = self._o if color else self._x
        return bool(expand(expand(us)) & self.empty)

    def _piece_moves(self) -> list[Move]:
        """The non-pass moves of the side to move, generated by the numba kernel."""
        global _move_codes, _moves_by_code
        if _move_codes is None:
            import numpy as np

            from gameclub.ataxx.bitboard import move_codes

            _moves_by_code = np.empty(len(MOVE_BY_CODE), dtype=object)
            _moves_by_code[:] = MOVE_BY_CODE
            _move_codes = move_codes
        us = self._o if self.turn else self._x
        empty = self.playable & ~(self._x | self._o)
        # numba takes Python ints as int64: give h8 (bit 63) as the sign bit.
        if (us | empty) >> 63:
            us, empty = _signed(us), _signed(empty)
        moves: list[Move] = _moves_by_code[_move_codes(us, empty)].tolist()
        return moves

    def _piece_moves_python(self) -> list[Move]:
        """The same moves in plain Python: the readable reference for the kernel."""
        us = self._o if self.turn else self._x
        empty = self.playable & ~(self._x | self._o)
        moves: list[Move] = []
        append = moves.append
        clones = expand(us) & empty
        while clones:
            low = clones & -clones
            append(CLONE_BY_BIT[low])
            clones ^= low
        bb = us
        while bb:
            low = bb & -bb
            bb ^= low
            frm = low.bit_length() - 1
            jumps = DOUBLES[frm] & empty
            if jumps:
                by_bit = JUMP_BY_BIT[frm]
                while jumps:
                    low = jumps & -jumps
                    append(by_bit[low])
                    jumps ^= low
        return moves

    @property
    def legal_moves(self) -> list[Move]:
        """The legal moves: ``[Move.PASS]`` when the side to move must pass, ``[]`` when over."""
        moves = self._piece_moves()
        if not moves:
            if self.outcome() is not None:
                return []
            self._live = (len(self._undo), self._x, self._o, self.turn, False)
            return [Move.PASS]
        # With a move available only these ends can apply (a cheaper test than outcome()).
        rules = self.rules
        if (
            not (self._x and self._o)
            or (rules.fifty_move_limit is not None
                and self.halfmove_clock >= rules.fifty_move_limit)
            or (rules.repetition and self.halfmove_clock >= 4 and self.repetitions() >= 3)
        ):
            return []
        self._live = (len(self._undo), self._x, self._o, self.turn, True)
        return moves

    def destinations(self, from_square: Square) -> tuple[Bitboard, Bitboard]:
        """Clone and jump destinations of the piece on ``from_square`` (for hints)."""
        empty = self.empty
        return SINGLES[from_square] & empty, DOUBLES[from_square] & empty

    def is_legal(self, move: Move) -> bool:
        try:
            self._check_legal(move)
        except IllegalMoveError:
            return False
        return True

    def _check_legal(self, move: Move) -> None:
        live = self._live
        # legal_moves has just shown that the game goes on here: skip outcome().
        if live is None or not (
            live[1] == self._x
            and live[2] == self._o
            and live[0] == len(self._undo)
            and live[3] is self.turn
        ):
            outcome = self.outcome()
            if outcome is not None:
                raise IllegalMoveError(
                    f"illegal move {move.uci()}: the game is over ({outcome.termination.value})"
                )
            live = None
        us = self._o if self.turn else self._x
        if move.to_square is None:
            if live[4] if live is not None else self._piece_moves():
                raise IllegalMoveError(
                    f"illegal move 0000: {self.turn.char} has legal moves, "
                    "passing is allowed only when stuck"
                )
            return
        to_bit = 1 << move.to_square
        if not self.playable & to_bit:
            where = "a block" if self.blocks & to_bit else "off the board"
            raise IllegalMoveError(
                f"illegal move {move.uci()}: {square_name(move.to_square)} is {where}"
            )
        if (self._x | self._o) & to_bit:
            raise IllegalMoveError(
                f"illegal move {move.uci()}: {square_name(move.to_square)} is occupied"
            )
        if move.from_square is None:
            if not SINGLES[move.to_square] & us:
                raise IllegalMoveError(
                    f"illegal move {move.uci()}: no {self.turn.char} piece next to "
                    f"{square_name(move.to_square)}"
                )
        elif not us >> move.from_square & 1:
            raise IllegalMoveError(
                f"illegal move {move.uci()}: no {self.turn.char} piece on "
                f"{square_name(move.from_square)}"
            )

    def push(self, move: Move) -> None:
        """Play ``move``; raise :class:`IllegalMoveError` (changing nothing) if it is illegal."""
        self._check_legal(move)
        self._push_unchecked(move)

    def _push_unchecked(self, move: Move) -> None:
        x, o = self._x, self._o
        self._undo.append((move, x, o, self.halfmove_clock, self.fullmove_number))
        self.move_stack.append(move)
        to = move.to_square
        if to is None:
            self.halfmove_clock += 1
        else:
            to_bit = 1 << to
            frm = move.from_square
            if self.turn:
                flips = SINGLES[to] & x
                o = o | to_bit | flips
                if frm is not None:
                    o ^= 1 << frm
                x ^= flips
            else:
                flips = SINGLES[to] & o
                x = x | to_bit | flips
                if frm is not None:
                    x ^= 1 << frm
                o ^= flips
            self._x, self._o = x, o
            self.halfmove_clock = 0 if frm is None else self.halfmove_clock + 1
        if self.turn:
            self.fullmove_number += 1
            self.turn = Color.X
        else:
            self.turn = Color.O

    def push_uci(self, text: str) -> Move:
        """Parse and play a move; return it."""
        move = Move.from_uci(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Undo the last move and return it; ``IndexError`` when there is none."""
        if not self._undo:
            raise IndexError("pop from a board with no moves played")
        move, self._x, self._o, self.halfmove_clock, self.fullmove_number = self._undo.pop()
        self._live = None
        self.move_stack.pop()
        self.turn = Color.O if self.turn is Color.X else Color.X
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    # -- end of the game ------------------------------------------------------------

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def outcome(self) -> Outcome | None:
        """The outcome if the game is over under the rule set, else ``None``.

        Decisive ends are checked before the fifty-move rule, so that a game that
        ends on the 100th halfmove with a full board is scored by its pieces.
        """
        x, o = self._x, self._o
        score = (x.bit_count(), o.bit_count())
        rules = self.rules
        if not x or not o:
            return self._by_count(Termination.NO_PIECES, score)
        empty = self.playable & ~(x | o)
        if not empty:
            return self._by_count(Termination.BOARD_FULL, score)
        us, them = (o, x) if self.turn else (x, o)
        if not expand(expand(us)) & empty:
            if not expand(expand(them)) & empty:
                return self._by_count(Termination.NO_MOVES, score)
            if rules.stuck is StuckPolicy.LOSE:
                return Outcome(Termination.STUCK, self.turn.other, score)
            if rules.stuck is StuckPolicy.EARLY_FILL:
                early = self._early_fill(them, empty, score)
                if early is not None:
                    return early
        if rules.repetition and self.halfmove_clock >= 4 and self.repetitions() >= 3:
            return self._by_count(Termination.THREEFOLD_REPETITION, score)
        if rules.fifty_move_limit is not None and self.halfmove_clock >= rules.fifty_move_limit:
            return Outcome(Termination.FIFTY_MOVES, None, score)
        return None

    def _early_fill(
        self, them: Bitboard, empty: Bitboard, score: tuple[int, int]
    ) -> Outcome | None:
        reach = them
        while True:
            grown = reach | (expand(reach) & empty)
            if grown == reach:
                break
            reach = grown
        if empty & ~reach:
            return None
        theirs = them.bit_count() + empty.bit_count()
        if 2 * theirs <= self.playable.bit_count():
            return None
        other = self.turn.other
        final = (theirs, score[1]) if other is Color.X else (score[0], theirs)
        return Outcome(Termination.EARLY_FILL, other, final)

    def _by_count(self, termination: Termination, score: tuple[int, int]) -> Outcome:
        x, o = score
        if x != o:
            return Outcome(termination, Color.X if x > o else Color.O, score)
        if self.rules.tie is TiePolicy.SECOND_PLAYER:
            return Outcome(termination, Color.O, score)
        return Outcome(termination, None, score)

    # -- display ------------------------------------------------------------------

    def __str__(self) -> str:
        lines = []
        for rank in range(self.height - 1, -1, -1):
            row = []
            for file in range(self.width):
                sq = rank * 8 + file
                piece = self.piece_at(sq)
                row.append(piece.char if piece is not None else "#" if self.is_block(sq) else ".")
            lines.append(" ".join(row))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, rules={self.rules.name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.fen() == other.fen() and self.rules == other.rules

    __hash__ = None  # type: ignore[assignment]
