"""Game settings chosen by players (rules, blocks, clock, colour, rated): parsed and checked.

Every game-creating request (against the computer, a seek, an invitation)
sends the same fields; :func:`parse_options` turns them into a
:class:`GameOptions` or raises a :class:`ClubError` naming the bad field.
``"random"`` blocks are drawn here, once, so that everyone who sees a seek or
an invitation sees the blocks that will be played.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Any

from gameclub.ataxx import RULESETS, AtaxxError, Board, Move, RuleSet
from gameclub.ataxx.blocks import BlocsConfig, preferred_configs, random_valid
from gameclub.ataxx.engine import LEVELS
from gameclub.ataxx.fen import format_fen, parse_fen
from gameclub.ataxx.rules import StartLayout
from gameclub.ataxx.squares import iter_squares, square_name
from gameclub.server.errors import ClubError, bad_field
from gameclub.server.fields import whole_number

COLORS = ("x", "o", "random")
#: Where the pieces start: the rule set's own layout, one of the two layouts, or set up freely.
STARTS = ("standard", "four-corners", "two-corners", "custom")
#: The club plays on the standard board.
CLUB_SIZE = 7
MAX_FEN_CHARS = 200
MAX_BASE_S = 3 * 60 * 60
MAX_INCREMENT_S = 180
#: Clocks the forms offer (any base 1..10800 s and increment 0..180 s is accepted).
SUGGESTED_CLOCKS = (
    {"base": 60, "increment": 1},
    {"base": 180, "increment": 2},
    {"base": 300, "increment": 5},
    {"base": 600, "increment": 10},
)
#: Random blocks stay light enough to keep the game open.
RANDOM_MAX_BLOCKS = 12

_rng = random.SystemRandom()


@dataclass(frozen=True)
class GameOptions:
    rules: str = "ataxx"
    #: Blocs-Config code, ``None`` for no blocks.
    blocks: str | None = None
    clock_base_ms: int | None = None
    clock_inc_ms: int | None = None
    color: str = "random"
    rated: bool = False
    #: The start position when it is not the rule set's own (a FEN), else ``None``.
    setup: str | None = None

    def ruleset(self) -> RuleSet:
        rules = RULESETS[self.rules]
        return rules.with_blocks(self.blocks) if self.blocks else rules

    def start_fen(self) -> str:
        return self.setup or Board(rules=self.ruleset()).fen()

    def start(self) -> str:
        """``standard``, ``four-corners``, ``two-corners`` or ``custom`` (see :data:`STARTS`)."""
        return start_label(self.ruleset(), self.setup)

    def clock_json(self) -> dict[str, int] | None:
        if self.clock_base_ms is None:
            return None
        return {"base": self.clock_base_ms // 1000, "increment": (self.clock_inc_ms or 0) // 1000}

    def to_json(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "blocks": self.blocks,
            "clock": self.clock_json(),
            "rated": self.rated,
            "color": self.color,
            "start": self.start(),
            "fen": self.setup,
        }


def start_label(rules: RuleSet, setup: str | None) -> str:
    """How a game starts: the rule set's own position, one of the layouts, or ``custom``."""
    if setup is None:
        return "standard"
    for layout in StartLayout:
        if rules.replace(start=layout).start_fen() == setup:
            return layout.value
    return "custom"


def parse_blocks(value: Any, rules: RuleSet) -> str | None:
    """A canonical Blocs-Config code, ``None`` for none; ``"random"`` draws a valid one."""
    if value is None or value in ("", "none", "0"):
        return None
    if not isinstance(value, str):
        raise bad_field(f"blocks must be a Blocs-Config code, 'random' or null, not {value!r}")
    if (rules.width, rules.height) != (7, 7):
        raise ClubError("invalid-blocks", f"rule set {rules.name!r} has no 7x7 board for blocks")
    if value == "random":
        return random_valid(_rng, min_blocks=1, max_blocks=RANDOM_MAX_BLOCKS).code
    try:
        config = BlocsConfig.parse(value)
    except AtaxxError as exc:
        raise ClubError("invalid-blocks", f"blocks: {exc}") from None
    reason = config.invalid_reason()
    if reason is not None:
        raise ClubError("invalid-blocks", f"blocks {config.code} cannot be played: {reason}")
    try:
        rules.with_blocks(config.code)
    except AtaxxError as exc:
        raise ClubError("invalid-blocks", f"blocks {config.code}: {exc}") from None
    return None if config.block_count == 0 else config.code


def _bad_position(message: str) -> ClubError:
    return ClubError("invalid-position", message)


def parse_setup(
    start: Any, fen: Any, rules: RuleSet, blocks: str | None
) -> tuple[str | None, str | None]:
    """The start position chosen by a player: ``(setup FEN or None, blocks code or None)``.

    ``start`` is one of :data:`STARTS` (``None``: ``standard``, or ``custom``
    when a ``fen`` is given); ``fen`` places the pieces freely (and the side to
    move). Its blocks, if it has any, must be those of ``blocks`` (or give
    them); pieces may not stand on blocks; the position must be a 7x7 one in
    which the side to move can move: not one that is already over.
    """
    if start is None:
        start = "standard" if fen is None else "custom"
    if not isinstance(start, str) or start not in STARTS:
        raise bad_field(f"start must be one of {', '.join(STARTS)}, not {start!r}")
    if start != "custom":
        if fen is not None:
            raise bad_field(f'fen goes with start "custom", not {start!r}')
        if start == "standard":
            return None, blocks
        layout = rules.replace(start=StartLayout(start))
        fen_text = layout.start_fen()
        return (None if fen_text == rules.start_fen() else fen_text), blocks
    if not isinstance(fen, str) or not fen.strip():
        raise bad_field('start "custom" needs a fen: the position, e.g. "x5o/7/7/7/7/7/o5x x 0 1"')
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
            raise ClubError("invalid-blocks", f"the position's blocks: {exc}") from None
        reason = config.invalid_reason()
        if reason is not None:
            raise ClubError(
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
        board = Board(text, rules)
    except AtaxxError as exc:
        raise _bad_position(f"fen: {exc}") from None
    outcome = board.outcome()
    if outcome is not None:
        reason = outcome.termination.name.lower().replace("_", "-")
        raise _bad_position(
            f"this position is already over ({reason}, {outcome.result()}): there is nothing"
            " to play"
        )
    if board.legal_moves == [Move.PASS]:
        raise _bad_position(
            f"{board.turn.char} is to move but has no move here: give the move to the other side"
        )
    canonical = board.fen()
    return (None if canonical == rules.start_fen() else canonical), blocks


def parse_options(body: dict[str, Any], *, allow_rated: bool = True) -> GameOptions:
    """Check the shared game fields of a request body (see docs/protocol.md)."""
    rules_name = body.get("rules", "ataxx")
    if rules_name is None:
        rules_name = "ataxx"
    if not isinstance(rules_name, str) or rules_name not in RULESETS:
        raise bad_field(f"rules must be one of {', '.join(RULESETS)}, not {rules_name!r}")
    rules = RULESETS[rules_name]
    blocks = parse_blocks(body.get("blocks"), rules)
    clock = body.get("clock")
    base_ms = inc_ms = None
    if clock is not None:
        if not isinstance(clock, dict):
            raise bad_field('clock must be null or {"base": seconds, "increment": seconds}')
        base_ms = 1000 * whole_number(clock.get("base"), "clock.base", 1, MAX_BASE_S, "seconds")
        inc_ms = 1000 * whole_number(
            clock.get("increment", 0), "clock.increment", 0, MAX_INCREMENT_S, "seconds"
        )
    color = body.get("color", "random")
    if color is None:
        color = "random"
    if color not in COLORS:
        raise bad_field(f"color must be one of {', '.join(COLORS)}, not {color!r}")
    rated = body.get("rated", False)
    if not isinstance(rated, bool):
        raise bad_field(f"rated must be true or false, not {rated!r}")
    if rated and not allow_rated:
        raise bad_field("games against the computer are never rated")
    base = rules.with_blocks(blocks) if blocks else rules
    setup, blocks = parse_setup(body.get("start"), body.get("fen"), base, blocks)
    options = GameOptions(rules_name, blocks, base_ms, inc_ms, color, rated, setup)
    if rated and options.start() == "custom":
        raise bad_field("a game from a set-up position is casual: it cannot be rated")
    return options


def why_not_start(rules: str, blocks: str | None, fen: str) -> str | None:
    """Why a new game could not start from ``fen`` (the message it would get), else ``None``.

    The very check of game creation (:func:`parse_options` with the fields a
    page sends to continue a record), so that the two cannot disagree.
    """
    try:
        parse_options({"rules": rules, "blocks": blocks, "fen": fen})
    except ClubError as exc:
        return exc.message
    return None


def parse_level(value: Any) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise bad_field(f"level must be one of {', '.join(LEVELS)}, not {value!r}")
    return value


@functools.cache
def options_json() -> dict[str, object]:
    """What the forms offer (``GET /api/options``); built once (walking the board
    layouts for the suggested blocks takes a few hundred milliseconds): do not
    change what it returns."""
    return {
        "rulesets": [
            {
                "name": name,
                "width": rules.width,
                "height": rules.height,
                "description": rules.describe(),
            }
            for name, rules in RULESETS.items()
        ],
        "levels": list(LEVELS),
        "clocks": list(SUGGESTED_CLOCKS),
        "blocks": [
            config.code
            for config in preferred_configs(valid_only=True)
            if 1 <= config.block_count <= 8
        ][:24],
    }
