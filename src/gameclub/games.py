"""The games of the club behind one small interface, and the registry of them (:data:`GAMES`).

The club (``gameclub.server``) never speaks of Ataxx or Awele itself: it asks
the :class:`Game` of a game's ``kind`` for everything that depends on the
rules: the rule sets and levels the forms offer, a start position read from a
player's settings, a live :class:`Position` to play moves on (checking them,
describing what each one did, knowing when the game is over), the board as the
browser draws it, records (Ataxx PGN, Awele OGN) written and read, and the
computer's move (called in a worker process).

Seats are the club's colours ``x`` (moves first) and ``o`` in every game
(:data:`Color`); in Awele ``x`` is South. Refusals are :class:`GameError`
with a stable code (``invalid-move``, ``illegal-move``, ``bad-field``,
``invalid-position``, ``invalid-blocks``, ``invalid-record``) and a message
naming what is wrong; nothing is changed by a refused call.

Adding a game: its rules package, a :class:`Game` here and its entry in
:data:`GAMES`, and its board drawing in the front end (docs/server.md).
"""

from __future__ import annotations

import datetime
import functools
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gameclub import ataxx, awele
from gameclub.ataxx import AtaxxError, Color
from gameclub.ataxx.blocks import BlocsConfig, preferred_configs, random_valid
from gameclub.ataxx.fen import format_fen, parse_fen
from gameclub.ataxx.notation import GameRecord, rule_options
from gameclub.ataxx.rules import StartLayout
from gameclub.ataxx.squares import DOUBLES, SINGLES, iter_squares, square, square_name
from gameclub.awele import ogn as awele_ogn

__all__ = [
    "GAMES",
    "AtaxxGame",
    "AweleGame",
    "Color",
    "Game",
    "GameError",
    "Outcome",
    "Position",
    "Record",
    "Setup",
    "game_of",
]

#: Records longer than this are refused (a game is a few kilobytes).
MAX_RECORD_CHARS = 60_000
#: Records with more moves than this are refused (``Settings.max_record_plies``).
MAX_RECORD_PLIES = 1000


class GameError(Exception):
    """A refused input: ``code`` (see docs/protocol.md), ``message``, HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message}

    def __reduce__(self) -> tuple[type[GameError], tuple[str, str, int]]:
        # Raised in worker processes too (records are read there): it must pickle.
        return (type(self), (self.code, self.message, self.status))


def _bad_field(message: str) -> GameError:
    return GameError("bad-field", message)


def _bad_position(message: str) -> GameError:
    return GameError("invalid-position", message)


@dataclass(frozen=True)
class Outcome:
    """The end of a game by its rules: the winner (``None``: a draw), why, the final score."""

    winner: Color | None
    reason: str
    score: tuple[int, int]


@dataclass(frozen=True)
class Setup:
    """Where a game starts: its rule set, Ataxx's blocks, and a set-up start (``None``:
    the rule set's own)."""

    rules: str
    blocks: str | None = None
    setup: str | None = None


@dataclass(frozen=True)
class Record:
    """A game's record file: its format (``pgn``, ``ogn``), text, file name and media type."""

    format: str
    text: str
    filename: str
    media_type: str


class Position(ABC):
    """A live game's position and the moves that led to it, in one game's rules.

    Moves are text in the game's notation; ``push`` trusts its move (the
    caller checked it with :meth:`parse_move` and :meth:`illegal`, or it was
    stored after being checked).
    """

    @property
    @abstractmethod
    def turn(self) -> Color:
        """The side to move."""

    @abstractmethod
    def parse_move(self, text: str) -> str:
        """The move ``text`` names, in its one written form; ``invalid-move`` if it names none."""

    @abstractmethod
    def illegal(self, move: str) -> str | None:
        """Why ``move`` (parsed) may not be played now, or ``None`` when it may."""

    @abstractmethod
    def push(self, move: str, *, auto: bool = False) -> dict[str, Any]:
        """Play ``move``; returns what it did, as the state's ``last`` shows it."""

    @abstractmethod
    def pop(self) -> None:
        """Take back the last move."""

    @abstractmethod
    def forced_move(self) -> str | None:
        """A move the side to move must play without choosing (Ataxx's pass), else ``None``."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The end of the game by the rules, or ``None`` while it goes on."""

    @abstractmethod
    def score(self) -> tuple[int, int]:
        """What each side (x, o) holds now: pieces on the board, seeds in the store."""

    @abstractmethod
    def last(self) -> dict[str, Any] | None:
        """The last move as :meth:`push` described it (recomputed), ``None`` at the start."""

    @abstractmethod
    def view(self, *, live: bool) -> dict[str, Any]:
        """The board fields of the state message (what the browser draws)."""

    @abstractmethod
    def delta_view(self) -> dict[str, Any]:
        """The board fields of a ``delta`` message (those a move changes)."""

    @abstractmethod
    def summary(self) -> dict[str, Any]:
        """The board fields of a game's row in lists (the Watch page)."""


class Game(ABC):
    """One game the club plays: everything the server needs that depends on its rules."""

    #: The game's key (``"ataxx"``): the ``game`` of requests, the ``kind`` of answers.
    id: str
    #: The game's name for people.
    name: str
    #: The club's rule sets, by name (the first is the default).
    rule_names: tuple[str, ...]
    #: The computer's levels, weakest first.
    levels: tuple[str, ...]
    default_level: str
    #: The level played instead of one that fails.
    fallback_level: str
    #: Endings by the rules (not by a player or the clock): a takeback may reopen them.
    rules_endings: frozenset[str]
    #: The settings fields only this game takes (any other game refuses them).
    own_fields: tuple[str, ...]
    #: Its records' format (the file's extension) and media type.
    record_format: str
    record_media_type: str

    def record_filename(self, game_id: str) -> str:
        return f"gameclub-{game_id}.{self.record_format}"

    @property
    def default_rules(self) -> str:
        return self.rule_names[0]

    def rules_name(self, body: Mapping[str, Any]) -> str:
        """The rule set a settings ``body`` names (the default when it names none)."""
        rules_name = body.get("rules")
        if rules_name is None:
            return self.default_rules
        if not isinstance(rules_name, str) or rules_name not in self.rule_names:
            raise _bad_field(
                f"rules must be one of {', '.join(self.rule_names)} for {self.name},"
                f" not {rules_name!r}"
            )
        return rules_name

    @abstractmethod
    def parse_setup(self, body: Mapping[str, Any]) -> Setup:
        """The rule set and start of a game-creating request (``bad-field``, ``invalid-...``)."""

    @abstractmethod
    def start_text(self, setup: Setup) -> str:
        """The start position's text (a FEN, an Aalina position): stored with the game."""

    @abstractmethod
    def start_label(self, setup: Setup) -> str:
        """How the game starts, for people: ``standard``, ``custom``, ..."""

    @abstractmethod
    def setup_json(self, setup: Setup) -> dict[str, Any]:
        """The start fields of seeks, invitations and states (``blocks``, ``fen``, ``position``)."""

    @abstractmethod
    def position(self, rules: str, blocks: str | None, start: str) -> Position:
        """A live position at ``start`` (a stored start text) under ``rules`` and ``blocks``."""

    @abstractmethod
    def choose_move(
        self,
        rules: str,
        blocks: str | None,
        start: str,
        moves: Sequence[str],
        level: str,
        seed: int | None,
        movetime: float | None,
    ) -> str:
        """The computer's move at ``level`` (synchronous and CPU-bound: run it in a worker)."""

    def prepare_engine(self) -> None:
        """(In a worker, at start.) Load or build now what the computer's first timed
        move would otherwise spend its time on; nothing by default."""
        return None

    @abstractmethod
    def replay(
        self, rules: str, blocks: str | None, start: str, moves: Sequence[str]
    ) -> list[dict[str, Any]]:
        """Every position of a game, from its start: what a replay draws."""

    @abstractmethod
    def write_record(self, game: RecordInfo) -> Record:
        """A game of the club as a record file."""

    @abstractmethod
    def read_record(self, text: Any, max_plies: int = MAX_RECORD_PLIES) -> dict[str, Any]:
        """A record read and checked move by move, as positions to replay or continue from."""

    @abstractmethod
    def options_json(self) -> dict[str, Any]:
        """This game's entry in ``GET /api/options``."""

    def start_json(self, setup: Setup) -> dict[str, Any]:
        """A start checked as a new game's would be (``GET /api/setup``)."""
        start = self.start_text(setup)
        position = self.position(setup.rules, setup.blocks, start)
        return {
            "kind": self.id,
            "rules": setup.rules,
            "start": self.start_label(setup),
            **self.setup_json(setup),
            "start_text": start,
            "turn": position.turn.char,
            **position.view(live=True),
        }

    def parse_level(self, value: Any) -> str:
        if value is None:
            return self.default_level
        if not isinstance(value, str) or value not in self.levels:
            raise _bad_field(
                f"level must be one of {', '.join(self.levels)} for {self.name}, not {value!r}"
            )
        return value

    def why_not_start(self, body: Mapping[str, Any]) -> str | None:
        """Why a new game could not start from these settings (the very check of
        :meth:`parse_setup`), else ``None``."""
        try:
            setup = self.parse_setup(body)
        except GameError as exc:
            return exc.message
        del setup
        return None

    def refuse_foreign_fields(self, body: Mapping[str, Any]) -> None:
        """``bad-field`` for a settings field of another game (``blocks`` for Awele...)."""
        for other in GAMES.values():
            if other is self:
                continue
            for name in other.own_fields:
                if name not in self.own_fields and body.get(name) is not None:
                    raise _bad_field(
                        f"{name} is a setting of {other.name} games, not of {self.name} games"
                    )


@dataclass(frozen=True)
class RecordInfo:
    """What a record says about a game of the club besides its moves."""

    id: str
    rules: str
    blocks: str | None
    start: str
    moves: Sequence[str]
    rated: bool
    created_at: int
    players: tuple[str, str]
    #: ``(winner char or None, reason)`` once the game is over.
    ending: tuple[str | None, str] | None


def _date(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC).strftime("%Y.%m.%d")


def _check_record_text(text: Any, field: str, max_plies: int) -> str:
    if not isinstance(text, str) or not text.strip():
        raise _bad_field(f"{field} must be the text of a game record")
    if len(text) > MAX_RECORD_CHARS:
        raise GameError("invalid-record", f"a record is at most {MAX_RECORD_CHARS} characters")
    # A cheap bound first, so that an overlong record costs no replay at all: a
    # record of n moves has about 1.5 n words (moves and move numbers), plus tags.
    if len(text.split()) > 3 * max_plies + 200:
        raise GameError(
            "invalid-record", f"a record has at most {max_plies} moves; this one is longer"
        )
    return text


# -- Ataxx ------------------------------------------------------------------------------------

#: Where the pieces start: the rule set's own layout, one of the two layouts, or set up freely.
ATAXX_STARTS = ("standard", "four-corners", "two-corners", "custom")
#: The club plays on the standard board.
CLUB_SIZE = 7
MAX_FEN_CHARS = 200
#: Random blocks stay light enough to keep the game open.
RANDOM_MAX_BLOCKS = 12

_rng = random.SystemRandom()


def cells_of(board: ataxx.Board, fen: str | None = None) -> list[str]:
    """Rows of the board, top row first: ``x``, ``o``, ``.`` or ``#``.

    Read off the FEN's board field (digits are runs of empty squares), which
    str.translate expands in C: this runs for every state sent.
    """
    placement = (fen or board.fen()).split(" ", 1)[0]
    return placement.translate(_FEN_TO_CELLS).split("/")


_FEN_TO_CELLS = str.maketrans({"-": "#", **{str(n): "." * n for n in range(1, 9)}})


def dests_of(board: ataxx.Board) -> dict[str, dict[str, tuple[str, ...]]]:
    """Clone and jump destinations of each piece of the side to move (for hints).

    Empty when the side to move must pass. Computed for every move, so it
    walks the bitboards itself and takes the square names of each set from a
    cache of names by bitboard. A piece's jump ring (up to 16 squares) is
    looked up as its two halves, so that every key comes from a small family
    (at most 256 per square and half) and the cache stays warm.
    """
    dests: dict[str, dict[str, tuple[str, ...]]] = {}
    cache = _NAMES
    names = _SQUARE_NAMES
    low_half = _JUMPS_LOW
    empty = board.empty
    pieces = board.pieces(board.turn)
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        sq = low.bit_length() - 1
        clones, jumps = SINGLES[sq] & empty, DOUBLES[sq] & empty
        if clones or jumps:
            clone_names = cache.get(clones)
            if clone_names is None:
                clone_names = _names(clones)
            jumps_low = jumps & low_half[sq]
            first = cache.get(jumps_low)
            if first is None:
                first = _names(jumps_low)
            second = cache.get(jumps ^ jumps_low)
            if second is None:
                second = _names(jumps ^ jumps_low)
            dests[names[sq]] = {"clone": clone_names, "jump": first + second}
    return dests


#: Square names by square number.
_SQUARE_NAMES: tuple[str, ...] = tuple(square_name(sq) for sq in range(64))


@functools.cache
def _board_square_names(width: int, height: int) -> frozenset[str]:
    """The names of the squares of a ``width`` x ``height`` board (read for every move)."""
    return frozenset(square_name(square(f, r)) for f in range(width) for r in range(height))
#: The lower half (eight lowest squares) of each square's jump ring.
_JUMPS_LOW: tuple[int, ...] = tuple(
    sum(1 << ring_sq for ring_sq in sorted(iter_squares(DOUBLES[sq]))[:8]) for sq in range(64)
)
#: Square names of destination sets already seen (bounded below).
_NAMES: dict[int, tuple[str, ...]] = {}


def _names(bb: int) -> tuple[str, ...]:
    if len(_NAMES) > 1 << 16:
        _NAMES.clear()
    names = _NAMES[bb] = tuple(_SQUARE_NAMES[sq] for sq in iter_squares(bb))
    return names


def ataxx_reason(termination: ataxx.Termination) -> str:
    """``Termination.BOARD_FULL`` -> ``"board-full"``."""
    return termination.name.lower().replace("_", "-")


def ataxx_ruleset(rules: str, blocks: str | None) -> ataxx.RuleSet:
    ruleset = ataxx.RULESETS[rules]
    return ruleset.with_blocks(blocks) if blocks else ruleset


class AtaxxPosition(Position):
    """A live Ataxx game: a :class:`gameclub.ataxx.Board`."""

    def __init__(self, board: ataxx.Board) -> None:
        self.board = board

    @property
    def turn(self) -> Color:
        return self.board.turn

    def parse_move(self, text: str) -> str:
        off_board = self._off_board(text)
        if off_board:
            raise GameError("invalid-move", off_board)
        try:
            return ataxx.Move.from_uci(text).uci()
        except AtaxxError as exc:
            raise GameError("invalid-move", str(exc)) from None

    def _off_board(self, text: str) -> str | None:
        """Why ``text`` names no square of this board, in its files and ranks ("a-g", "1-7").

        None when its squares are the board's (the move may still be wrong).
        """
        board = self.board
        if text == ataxx.Move.PASS.uci():
            return None
        names = _board_square_names(board.width, board.height)
        if len(text) in (2, 4) and text[:2] in names and (len(text) == 2 or text[2:] in names):
            return None
        last_file = square_name(square(board.width - 1, 0))[0]
        return (
            f"invalid move {text!r}: expected squares with a file a-{last_file} and a rank "
            f"1-{board.height}, such as 'b2' (a clone) or 'a1a3' (a jump)"
        )

    def illegal(self, move: str) -> str | None:
        parsed = ataxx.Move.from_uci(move)
        if not parsed.is_pass and self.board.is_legal(parsed):
            return None
        try:
            self.board.copy().push(parsed)
        except ataxx.IllegalMoveError as exc:
            return str(exc)
        return f"{move} is not legal here"

    def push(self, move: str, *, auto: bool = False) -> dict[str, Any]:
        board = self.board
        color = board.turn
        before = board.pieces(color.other)
        board.push(ataxx.Move.from_uci(move))
        flipped = before & board.pieces(color)
        return {
            "move": move,
            "by": color.char,
            "flipped": [square_name(sq) for sq in iter_squares(flipped)],
            "auto": auto,
        }

    def pop(self) -> None:
        self.board.pop()

    def forced_move(self) -> str | None:
        return ataxx.Move.PASS.uci() if self.board.legal_moves == [ataxx.Move.PASS] else None

    def outcome(self) -> Outcome | None:
        outcome = self.board.outcome()
        if outcome is None:
            return None
        return Outcome(outcome.winner, ataxx_reason(outcome.termination), outcome.score)

    def score(self) -> tuple[int, int]:
        return self.board.count(Color.X), self.board.count(Color.O)

    def last(self) -> dict[str, Any] | None:
        board = self.board
        if not board.move_stack:
            return None
        color = board.turn.other  # every ply, passes included, hands the turn over
        before = board.copy()
        move = before.pop()
        flipped = before.pieces(color.other) & board.pieces(color)
        return {
            "move": move.uci(),
            "by": color.char,
            "flipped": [square_name(sq) for sq in iter_squares(flipped)],
            "auto": move.is_pass,
        }

    def view(self, *, live: bool) -> dict[str, Any]:
        board = self.board
        fen = board.fen()
        return {
            "width": board.width,
            "height": board.height,
            "fen": fen,
            "cells": cells_of(board, fen),
            "counts": {"x": board.count(Color.X), "o": board.count(Color.O)},
            "dests": dests_of(board) if live else {},
        }

    def delta_view(self) -> dict[str, Any]:
        board = self.board
        return {
            "fen": board.fen(),
            "counts": {"x": board.count(Color.X), "o": board.count(Color.O)},
            "dests": dests_of(board),
        }

    def summary(self) -> dict[str, Any]:
        return {"counts": {"x": self.board.count(Color.X), "o": self.board.count(Color.O)}}


@functools.cache
def suggested_blocks() -> list[str]:
    """A short list of Blocs-Config codes for the forms (walks the board layouts: slow)."""
    return [
        config.code for config in preferred_configs(valid_only=True) if 1 <= config.block_count <= 8
    ][:24]


def ataxx_position_json(board: ataxx.Board) -> dict[str, Any]:
    """One position of a replay."""
    return {
        "cells": cells_of(board),
        "counts": {"x": board.count(Color.X), "o": board.count(Color.O)},
        "fen": board.fen(),
    }


_RESULT_OF_WINNER = {"x": "1-0", "o": "0-1", None: "1/2-1/2"}


def parse_blocks(value: Any, rules: ataxx.RuleSet) -> str | None:
    """A canonical Blocs-Config code, ``None`` for none; ``"random"`` draws a valid one."""
    if value is None or value in ("", "none", "0"):
        return None
    if not isinstance(value, str):
        raise _bad_field(f"blocks must be a Blocs-Config code, 'random' or null, not {value!r}")
    if (rules.width, rules.height) != (7, 7):
        raise GameError("invalid-blocks", f"rule set {rules.name!r} has no 7x7 board for blocks")
    if value == "random":
        return random_valid(_rng, min_blocks=1, max_blocks=RANDOM_MAX_BLOCKS).code
    try:
        config = BlocsConfig.parse(value)
    except AtaxxError as exc:
        raise GameError("invalid-blocks", f"blocks: {exc}") from None
    reason = config.invalid_reason()
    if reason is not None:
        raise GameError("invalid-blocks", f"blocks {config.code} cannot be played: {reason}")
    try:
        rules.with_blocks(config.code)
    except AtaxxError as exc:
        raise GameError("invalid-blocks", f"blocks {config.code}: {exc}") from None
    return None if config.block_count == 0 else config.code


def ataxx_start_label(rules: ataxx.RuleSet, setup: str | None) -> str:
    """How a game starts: the rule set's own position, one of the layouts, or ``custom``."""
    if setup is None:
        return "standard"
    for layout in StartLayout:
        if rules.replace(start=layout).start_fen() == setup:
            return layout.value
    return "custom"


def parse_ataxx_setup(
    start: Any, fen: Any, rules: ataxx.RuleSet, blocks: str | None
) -> tuple[str | None, str | None]:
    """The start position chosen by a player: ``(setup FEN or None, blocks code or None)``.

    ``start`` is one of :data:`ATAXX_STARTS` (``None``: ``standard``, or ``custom``
    when a ``fen`` is given); ``fen`` places the pieces freely (and the side to
    move). Its blocks, if it has any, must be those of ``blocks`` (or give
    them); pieces may not stand on blocks; the position must be a 7x7 one in
    which the side to move can move: not one that is already over.
    """
    if start is None:
        start = "standard" if fen is None else "custom"
    if not isinstance(start, str) or start not in ATAXX_STARTS:
        raise _bad_field(f"start must be one of {', '.join(ATAXX_STARTS)}, not {start!r}")
    if start != "custom":
        if fen is not None:
            raise _bad_field(f'fen goes with start "custom", not {start!r}')
        if start == "standard":
            return None, blocks
        layout = rules.replace(start=StartLayout(start))
        fen_text = layout.start_fen()
        return (None if fen_text == rules.start_fen() else fen_text), blocks
    if not isinstance(fen, str) or not fen.strip():
        raise _bad_field('start "custom" needs a fen: the position, e.g. "x5o/7/7/7/7/7/o5x x 0 1"')
    if len(fen) > MAX_FEN_CHARS:
        raise _bad_position(f"fen: at most {MAX_FEN_CHARS} characters")
    try:
        fields = parse_fen(fen.strip())
    except AtaxxError as exc:
        raise _bad_position(f"fen: {exc}") from None
    if (fields.width, fields.height) != (CLUB_SIZE, CLUB_SIZE):
        raise _bad_position(
            f"the club plays on {CLUB_SIZE}x{CLUB_SIZE} boards; this position is"
            f" {fields.width}x{fields.height}"
        )
    chosen = rules.blocks
    if fields.blocks and chosen and fields.blocks != chosen:
        raise _bad_position(
            f"the position's blocks are not those of the chosen board {blocks}:"
            " leave the blocks out of the FEN or choose the same board"
        )
    if fields.blocks and not chosen:
        try:
            config = BlocsConfig.from_squares(fields.blocks)
        except AtaxxError as exc:
            raise GameError("invalid-blocks", f"the position's blocks: {exc}") from None
        reason = config.invalid_reason()
        if reason is not None:
            raise GameError(
                "invalid-blocks", f"the position's blocks {config.code} cannot be played: {reason}"
            )
        blocks = config.code
        rules = rules.with_blocks(config.code)
    on_blocks = (fields.x | fields.o) & rules.blocks
    if on_blocks:
        names = ", ".join(square_name(sq) for sq in iter_squares(on_blocks))
        raise _bad_position(f"a piece stands on a block ({names})")
    text = format_fen(
        fields.width,
        fields.height,
        fields.x,
        fields.o,
        rules.blocks,
        fields.turn,
        fields.halfmove_clock,
        fields.fullmove_number,
    )
    try:
        board = ataxx.Board(text, rules)
    except AtaxxError as exc:
        raise _bad_position(f"fen: {exc}") from None
    outcome = board.outcome()
    if outcome is not None:
        reason = ataxx_reason(outcome.termination)
        raise _bad_position(
            f"this position is already over ({reason}, {outcome.result()}): there is nothing"
            " to play"
        )
    if board.legal_moves == [ataxx.Move.PASS]:
        raise _bad_position(
            f"{board.turn.char} is to move but has no move here: give the move to the other side"
        )
    canonical = board.fen()
    return (None if canonical == rules.start_fen() else canonical), blocks


class AtaxxGame(Game):
    id = "ataxx"
    name = "Ataxx"
    rule_names = tuple(ataxx.RULESETS)
    levels = ("random", "simple", "hard", "expert", "master")
    default_level = "simple"
    fallback_level = "simple"
    rules_endings = frozenset(
        {
            "board-full",
            "no-pieces",
            "no-moves",
            "stuck",
            "fifty-moves",
            "threefold-repetition",
            "early-fill",
        }
    )
    own_fields = ("blocks", "fen")
    record_format = "pgn"
    record_media_type = "application/x-chess-pgn"

    def parse_setup(self, body: Mapping[str, Any]) -> Setup:
        self.refuse_foreign_fields(body)
        rules_name = self.rules_name(body)
        rules = ataxx.RULESETS[rules_name]
        blocks = parse_blocks(body.get("blocks"), rules)
        base = rules.with_blocks(blocks) if blocks else rules
        setup, blocks = parse_ataxx_setup(body.get("start"), body.get("fen"), base, blocks)
        return Setup(rules_name, blocks, setup)

    def start_text(self, setup: Setup) -> str:
        return setup.setup or ataxx.Board(rules=ataxx_ruleset(setup.rules, setup.blocks)).fen()

    def start_label(self, setup: Setup) -> str:
        return ataxx_start_label(ataxx_ruleset(setup.rules, setup.blocks), setup.setup)

    def setup_json(self, setup: Setup) -> dict[str, Any]:
        return {"blocks": setup.blocks, "fen": setup.setup}

    def position(self, rules: str, blocks: str | None, start: str) -> AtaxxPosition:
        return AtaxxPosition(ataxx.Board(start, ataxx_ruleset(rules, blocks)))

    def choose_move(
        self,
        rules: str,
        blocks: str | None,
        start: str,
        moves: Sequence[str],
        level: str,
        seed: int | None,
        movetime: float | None,
    ) -> str:
        from gameclub.ataxx.engine import choose_move

        board = ataxx.Board(start, ataxx_ruleset(rules, blocks))
        for move in moves:
            board.push_uci(move)
        return choose_move(board, level, seed=seed, movetime=movetime).uci()

    def replay(
        self, rules: str, blocks: str | None, start: str, moves: Sequence[str]
    ) -> list[dict[str, Any]]:
        return self._replay(start, ataxx_ruleset(rules, blocks), moves)

    @staticmethod
    def _replay(start: str, rules: ataxx.RuleSet, moves: Sequence[str]) -> list[dict[str, Any]]:
        board = ataxx.Board(start, rules)
        positions = [ataxx_position_json(board)]
        for move in moves:
            board.push_uci(move)
            positions.append(ataxx_position_json(board))
        return positions

    def pgn_record(self, game: RecordInfo) -> GameRecord:
        """A game of the club as a PGN record: ``Black`` plays x and ``White`` o (as in
        the Ataxx tools)."""
        board = ataxx.Board(game.start, ataxx_ruleset(game.rules, game.blocks))
        for move in game.moves:
            board.push_uci(move)
        headers = {
            "Event": "gameclub " + ("rated game" if game.rated else "casual game"),
            "Site": f"/game/{game.id}",
            "Date": _date(game.created_at),
            "Round": "-",
            "White": game.players[1],
            "Black": game.players[0],
        }
        record = GameRecord.from_board(board, headers=headers)
        if game.ending is not None and game.ending[1] != "aborted":
            winner, reason = game.ending
            record.headers["Termination"] = reason
            if record.result == "*":
                record.result = _RESULT_OF_WINNER[winner]
        return record

    def write_record(self, game: RecordInfo) -> Record:
        return Record(
            self.record_format,
            self.pgn_record(game).to_pgn(),
            self.record_filename(game.id),
            self.record_media_type,
        )

    def read_record(self, text: Any, max_plies: int = MAX_RECORD_PLIES) -> dict[str, Any]:
        """A PGN record, checked move by move, as positions to replay (``invalid-record``).

        Costs about 50 microseconds a move: the server runs it in a worker process.
        """
        text = _check_record_text(text, "pgn", max_plies)
        try:
            record = GameRecord.from_pgn(text)
        except AtaxxError as exc:
            raise GameError("invalid-record", f"this record cannot be read: {exc}") from None
        if len(record.moves) > max_plies:
            raise GameError(
                "invalid-record",
                f"a record has at most {max_plies} moves; this one has {len(record.moves)}",
            )
        board = record.board(0)
        moves = [move.uci() for move in record.moves]
        positions = self._replay(record.start_fen, record.rules, moves)
        blocks = record.rules.blocks_code if board.blocks else None
        blocks = None if blocks in (None, "0") else blocks
        # What the check of a new game's position cannot see: it knows only the
        # club's own rule sets.
        options = rule_options(record.rules)
        why_not = f"the club does not offer the rule options {options!r}" if options else None
        for position in positions:
            position["why_not"] = why_not or self.why_not_start(
                {"rules": record.rules.name, "blocks": blocks, "fen": position["fen"]}
            )
            position["continuable"] = position["why_not"] is None
        if why_not is None and not any(position["continuable"] for position in positions):
            why_not = positions[0]["why_not"]
        headers = record.headers
        return {
            "kind": self.id,
            "headers": headers,
            "rules": record.rules.name,
            "rule_options": rule_options(record.rules),
            "blocks": blocks,
            "width": board.width,
            "height": board.height,
            "start_fen": record.start_fen,
            "moves": moves,
            "positions": positions,
            "result": record.result,
            "players": {"x": headers.get("Black", "?"), "o": headers.get("White", "?")},
            "continuable": why_not is None,
            "why_not": why_not,
        }

    def options_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "rulesets": [
                {
                    "name": name,
                    "width": rules.width,
                    "height": rules.height,
                    "description": rules.describe(),
                }
                for name, rules in ataxx.RULESETS.items()
            ],
            "levels": list(self.levels),
            "default_rules": self.default_rules,
            "default_level": self.default_level,
            "starts": list(ATAXX_STARTS),
        }


# -- Awele ------------------------------------------------------------------------------------

AWELE_STARTS = ("standard", "custom")
MAX_POSITION_CHARS = 100
#: The seat of each Awele side: South moves first and is ``x``.
_SEAT_OF_SIDE = {awele.Side.SOUTH: Color.X, awele.Side.NORTH: Color.O}


def _awele_reason(termination: awele.Termination) -> str:
    """``Termination.DRAW_24`` -> ``"draw-24"``."""
    return termination.name.lower().replace("_", "-")


def awele_move_json(before: awele.Board, move: awele.Move, after: awele.Board) -> dict[str, Any]:
    """What sowing ``move`` did: the pits sown in order, those emptied by the capture."""
    pits = before.pits
    pit = int(move)
    seeds = pits[pit]
    sown: list[int] = []
    index = pit
    while len(sown) < seeds:
        index = (index + 1) % 12
        if index != pit:  # a pit of 12 or more seeds is passed over
            sown.append(index)
    side = before.turn
    gained = after.stores[side] - before.stores[side]
    # Every pit sown holds a seed afterwards unless the capture emptied it.
    after_pits = after.pits
    captured = sorted({i for i in sown if after_pits[i] == 0}) if gained else []
    return {
        "move": move.text,
        "by": _SEAT_OF_SIDE[side].char,
        "sown": sown,
        "captured": captured,
        "seeds": gained,
        "auto": False,
    }


def _awele_board_json(board: awele.Board) -> dict[str, Any]:
    south, north = board.stores
    return {
        "position": board.position(),
        "pits": list(board.pits),
        "stores": {"x": south, "o": north},
    }


class AwelePosition(Position):
    """A live Awele game: a :class:`gameclub.awele.Board` (no passes: a side that cannot
    move ends the game)."""

    def __init__(self, board: awele.Board) -> None:
        self.board = board
        #: What each move did, as ``push`` described it.
        self._lasts: list[dict[str, Any]] = []

    @property
    def turn(self) -> Color:
        return _SEAT_OF_SIDE[self.board.turn]

    def parse_move(self, text: str) -> str:
        try:
            return awele.Move.from_text(text).text
        except awele.AweleError as exc:
            raise GameError("invalid-move", str(exc)) from None

    def illegal(self, move: str) -> str | None:
        parsed = awele.Move.from_text(move)
        if self.board.is_legal(parsed):
            return None
        try:
            self.board.copy().push(parsed)
        except awele.AweleError as exc:
            return str(exc)
        return f"{move} is not legal here"

    def push(self, move: str, *, auto: bool = False) -> dict[str, Any]:
        board = self.board
        before = board.copy()
        parsed = board.push(awele.Move.from_text(move))
        last = awele_move_json(before, parsed, board)
        self._lasts.append(last)
        return last

    def pop(self) -> None:
        self.board.pop()
        if self._lasts:
            self._lasts.pop()

    def forced_move(self) -> str | None:
        return None

    def outcome(self) -> Outcome | None:
        outcome = self.board.outcome()
        if outcome is None:
            return None
        winner = _SEAT_OF_SIDE[outcome.winner] if outcome.winner is not None else None
        return Outcome(winner, _awele_reason(outcome.termination), outcome.score)

    def score(self) -> tuple[int, int]:
        return self.board.stores

    def last(self) -> dict[str, Any] | None:
        board = self.board
        if not board.move_stack:
            return None
        if len(self._lasts) == len(board.move_stack):
            return self._lasts[-1]
        before = board.copy()
        move = before.pop()
        return awele_move_json(before, move, board)

    def _legal(self) -> list[str]:
        return [move.text for move in self.board.legal_moves]

    def view(self, *, live: bool) -> dict[str, Any]:
        return {**_awele_board_json(self.board), "legal": self._legal() if live else []}

    def delta_view(self) -> dict[str, Any]:
        return {**_awele_board_json(self.board), "legal": self._legal()}

    def summary(self) -> dict[str, Any]:
        south, north = self.board.stores
        return {"stores": {"x": south, "o": north}}


#: ``master`` in the club scores positions of this many seeds or fewer exactly. Less
#: than the engine's own default (14), whose table takes half a minute to build on
#: first use: this one takes seconds, and a player's first move never waits long.
CLUB_EXACT_SEEDS = 12


class AweleGame(Game):
    id = "awele"
    name = "Awele"
    rule_names = tuple(awele.RULESETS)
    levels = ("random", "greedy", "master")
    default_level = "greedy"
    fallback_level = "greedy"
    rules_endings = frozenset({"majority", "draw-24", "stuck", "no-feed", "repetition"})
    own_fields = ("position",)
    record_format = "ogn"
    record_media_type = "text/plain; charset=utf-8"

    def parse_setup(self, body: Mapping[str, Any]) -> Setup:
        self.refuse_foreign_fields(body)
        rules_name = self.rules_name(body)
        rules = awele.RULESETS[rules_name]
        start, position = body.get("start"), body.get("position")
        if start is None:
            start = "standard" if position is None else "custom"
        if not isinstance(start, str) or start not in AWELE_STARTS:
            raise _bad_field(
                f"start must be one of {', '.join(AWELE_STARTS)} for Awele, not {start!r}"
            )
        if start == "standard":
            if position is not None:
                raise _bad_field('position goes with start "custom", not "standard"')
            return Setup(rules_name)
        if not isinstance(position, str) or not position:
            raise _bad_field(
                'start "custom" needs a position: Aalina text such as'
                f' "{awele.START_POSITION}" (12 pits A-F a-f, the stores, S or N to move)'
            )
        if len(position) > MAX_POSITION_CHARS:
            raise _bad_position(f"position: at most {MAX_POSITION_CHARS} characters")
        try:
            board = awele.Board(position, rules)
        except awele.AweleError as exc:
            raise _bad_position(str(exc)) from None
        outcome = board.outcome()
        if outcome is not None:
            raise _bad_position(
                f"position {position!r} is already over ({outcome.termination.value},"
                f" {outcome.result()}): there is nothing to play"
            )
        text = board.position()
        return Setup(rules_name, None, None if text == awele.START_POSITION else text)

    def start_text(self, setup: Setup) -> str:
        return setup.setup or awele.START_POSITION

    def start_label(self, setup: Setup) -> str:
        return "standard" if setup.setup is None else "custom"

    def setup_json(self, setup: Setup) -> dict[str, Any]:
        return {"blocks": None, "fen": None, "position": setup.setup}

    def position(self, rules: str, blocks: str | None, start: str) -> AwelePosition:
        return AwelePosition(awele.Board(start, awele.RULESETS[rules]))

    def choose_move(
        self,
        rules: str,
        blocks: str | None,
        start: str,
        moves: Sequence[str],
        level: str,
        seed: int | None,
        movetime: float | None,
    ) -> str:
        from gameclub.awele.engine import choose_move

        board = awele.Board(start, awele.RULESETS[rules])
        for move in moves:
            board.push_text(move)
        return choose_move(board, level, seed=seed, movetime=movetime,
                           exact_seeds=CLUB_EXACT_SEEDS).text

    def prepare_engine(self) -> None:
        """Build (once a machine) or read master's exact endgame table of the default
        rule set, so that the first game's first move does not wait for it; the other
        rule sets' tables take a few seconds on their first move."""
        from gameclub.awele.engine.exact import exact_table

        exact_table(awele.RULESETS[self.default_rules].kernel_flags(), CLUB_EXACT_SEEDS)

    def replay(
        self, rules: str, blocks: str | None, start: str, moves: Sequence[str]
    ) -> list[dict[str, Any]]:
        board = awele.Board(start, awele.RULESETS[rules])
        return self._replay(board, moves)

    @staticmethod
    def _replay(board: awele.Board, moves: Sequence[str]) -> list[dict[str, Any]]:
        """Positions from ``board`` on (``board`` is played to the end of ``moves``)."""
        positions = [
            {**_awele_board_json(board), "turn": _SEAT_OF_SIDE[board.turn].char, "last": None}
        ]
        for text in moves:
            before = board.copy()
            move = board.push_text(text)
            last = awele_move_json(before, move, board)
            del last["auto"]
            positions.append(
                {**_awele_board_json(board), "turn": _SEAT_OF_SIDE[board.turn].char, "last": last}
            )
        return positions

    def write_record(self, game: RecordInfo) -> Record:
        rules = awele.RULESETS[game.rules]
        board = awele.Board(game.start, rules)
        for move in game.moves:
            board.push_text(move)
        tags = {
            "Event": "gameclub " + ("rated game" if game.rated else "casual game"),
            "Site": f"/game/{game.id}",
            "Date": _date(game.created_at),
            "Round": "-",
            "South": game.players[0],
            "North": game.players[1],
        }
        if game.ending is not None and game.ending[1] != "aborted":
            tags["Termination"] = game.ending[1]
        text = awele_ogn.write_ogn(board, tags)
        return Record(
            self.record_format, text, self.record_filename(game.id), self.record_media_type
        )

    def read_record(self, text: Any, max_plies: int = MAX_RECORD_PLIES) -> dict[str, Any]:
        """An OGN record, checked move by move, as positions to replay (``invalid-record``)."""
        text = _check_record_text(text, "ogn", max_plies)
        try:
            game = awele_ogn.read_ogn(text)
        except awele.AweleError as exc:
            raise GameError("invalid-record", f"this record cannot be read: {exc}") from None
        board = game.board
        moves = [move.text for move in board.move_stack]
        if len(moves) > max_plies:
            raise GameError(
                "invalid-record",
                f"a record has at most {max_plies} moves; this one has {len(moves)}",
            )
        start = board.copy()
        while start.move_stack:
            start.pop()
        rules = board.rules.name
        positions = self._replay(awele.Board(start.position(), board.rules), moves)
        for position in positions:
            position["why_not"] = self.why_not_start(
                {"rules": rules, "start": "custom", "position": position["position"]}
            )
            position["continuable"] = position["why_not"] is None
        continuable = any(position["continuable"] for position in positions)
        outcome = board.outcome()
        tags = game.tags
        return {
            "kind": self.id,
            "headers": tags,
            "rules": rules,
            "start_position": start.position(),
            "moves": moves,
            "positions": positions,
            "result": outcome.result() if outcome is not None else tags.get("Result", "*"),
            "players": {"x": tags.get("South", "?"), "o": tags.get("North", "?")},
            "continuable": continuable,
            "why_not": None if continuable else positions[0]["why_not"],
        }

    def options_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "rulesets": [
                {"name": name, "description": rules.describe()}
                for name, rules in awele.RULESETS.items()
            ],
            "levels": list(self.levels),
            "default_rules": self.default_rules,
            "default_level": self.default_level,
            "starts": list(AWELE_STARTS),
            "start_position": awele.START_POSITION,
        }


#: The games of the club, by id.
GAMES: dict[str, Game] = {game.id: game for game in (AtaxxGame(), AweleGame())}


def game_of(value: Any, field: str = "game") -> Game:
    """The game a request names (``None``: Ataxx); ``bad-field`` for any other value."""
    if value is None:
        return GAMES["ataxx"]
    if not isinstance(value, str) or value not in GAMES:
        raise _bad_field(f"{field} must be one of {', '.join(GAMES)}, not {str(value)[:40]!r}")
    return GAMES[value]
