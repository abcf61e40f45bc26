"""Rule sets: the orthogonal options of Ataxx, and the named presets from the sources.

A :class:`RuleSet` is a frozen value. The presets are:

``ataxx``
    The engine ecosystem's rules (libataxx, UAI tools) and the club page's classic
    rules: four pieces in the corners, ``x`` moves first, a side with no move passes,
    the game ends when a side has no pieces, when neither side can move, or at
    100 halfmoves without a clone (a draw, unless a decisive end applies).
``pressibus``
    The 1997 Pressibus rules: pass when stuck, threefold repetition ends the game
    (more pieces wins), the *early fill* end, no fifty-move rule, and blocks that
    must form a valid Blocs-Config.
``site-2005``
    The 2005 web site: one piece each in opposite corners, a side with no legal move
    loses at once, a full board goes to the side with more pieces and a tie to the
    second player. The source says nothing about endless jumping, so this preset adds
    threefold repetition (more pieces wins, a tie to the second player) to guarantee
    that every game ends.

>>> RULESETS["site-2005"].stuck is StuckPolicy.LOSE
True
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from gameclub.ataxx.errors import InvalidRulesError
from gameclub.ataxx.squares import MAX_SIZE, MIN_SIZE, Bitboard, board_mask, square


class StartLayout(enum.Enum):
    """Where the pieces stand at the start (when no FEN is given)."""

    #: x top-left and bottom-right, o top-right and bottom-left.
    FOUR_CORNERS = "four-corners"
    #: x top-left, o bottom-right.
    TWO_CORNERS = "two-corners"


class StuckPolicy(enum.Enum):
    """What happens to a side that has no legal move while the game goes on."""

    #: it passes (UAI move ``0000``).
    PASS = "pass"
    #: it loses at once (2005 site).
    LOSE = "lose"
    #: it passes, unless the opponent can fill every empty square by clones alone and
    #: would then hold more than half the playable squares: then the game ends and the
    #: empty squares count for the opponent (Pressibus 1997).
    EARLY_FILL = "early-fill"


class TiePolicy(enum.Enum):
    """Who wins when the final piece counts are equal."""

    DRAW = "draw"
    #: the second player (``o``) wins ties: on the 2005 site, the computer.
    SECOND_PLAYER = "second-player"


@dataclass(frozen=True)
class RuleSet:
    """A complete, frozen description of the rules of one game of Ataxx.

    The set-up fields (``width``, ``height``, ``start``, ``blocks``) define the
    start position of :meth:`start_fen`; a board built from a FEN takes its
    geometry from the FEN instead.
    """

    name: str = "ataxx"
    width: int = 7
    height: int = 7
    start: StartLayout = StartLayout.FOUR_CORNERS
    #: block squares (a stride-8 bitboard, see :mod:`gameclub.ataxx.squares`).
    blocks: Bitboard = 0
    stuck: StuckPolicy = StuckPolicy.PASS
    #: halfmoves without a clone that end the game in a draw; ``None``: no such rule.
    fifty_move_limit: int | None = 100
    #: threefold repetition of a position ends the game; more pieces wins.
    repetition: bool = False
    tie: TiePolicy = TiePolicy.DRAW
    #: blocks must form a valid Blocs-Config (7x7, symmetric, <= 24, all reachable).
    blocs_config_required: bool = False

    def __post_init__(self) -> None:
        for field, value in (("width", self.width), ("height", self.height)):
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise InvalidRulesError(
                    f"{field} must be between {MIN_SIZE} and {MAX_SIZE}, not {value}"
                )
        if self.fifty_move_limit is not None and self.fifty_move_limit < 1:
            raise InvalidRulesError(
                f"fifty_move_limit must be a positive number of halfmoves or None, "
                f"not {self.fifty_move_limit}"
            )
        if self.blocks & ~board_mask(self.width, self.height):
            raise InvalidRulesError("blocks lie outside the board")
        if self.blocks & self.start_squares():
            raise InvalidRulesError("a block stands on a starting square")
        if self.blocs_config_required and self.blocks:
            from gameclub.ataxx.blocks import valid_config_of

            try:
                valid_config_of(self.blocks, self.width, self.height)
            except ValueError as exc:
                raise InvalidRulesError(f"rule set {self.name!r}: {exc}") from None

    @classmethod
    def from_name(cls, name: str) -> RuleSet:
        """The preset called ``name``; raise :class:`InvalidRulesError` naming the choices."""
        try:
            return RULESETS[name]
        except KeyError:
            raise InvalidRulesError(
                f"unknown rule set {name!r}; choose one of {', '.join(RULESETS)}"
            ) from None

    def replace(self, **changes: object) -> RuleSet:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def with_blocks(self, blocks: str | Bitboard) -> RuleSet:
        """A copy with these blocks: a Blocs-Config code (7x7) or a bitboard."""
        if isinstance(blocks, str):
            from gameclub.ataxx.blocks import BlocsConfig

            if (self.width, self.height) != (7, 7):
                raise InvalidRulesError("Blocs-Config codes describe 7x7 boards only")
            blocks = BlocsConfig.parse(blocks).squares()
        return self.replace(blocks=blocks)

    @property
    def blocks_code(self) -> str | None:
        """The Blocs-Config code of the blocks, or ``None`` when they have none."""
        if (self.width, self.height) != (7, 7):
            return None
        from gameclub.ataxx.blocks import BlocsConfig

        try:
            return BlocsConfig.from_squares(self.blocks).code
        except ValueError:
            return None

    def start_squares(self) -> Bitboard:
        x, o = self.start_pieces()
        return x | o

    def start_pieces(self) -> tuple[Bitboard, Bitboard]:
        """Bitboards of ``x`` and ``o`` at the start."""
        top, right = self.height - 1, self.width - 1
        top_left, top_right = square(0, top), square(right, top)
        bottom_left, bottom_right = square(0, 0), square(right, 0)
        if self.start is StartLayout.FOUR_CORNERS:
            return (1 << top_left) | (1 << bottom_right), (1 << top_right) | (1 << bottom_left)
        return 1 << top_left, 1 << bottom_right

    def start_fen(self) -> str:
        """FEN of the start position of this rule set."""
        from gameclub.ataxx.fen import format_fen

        x, o = self.start_pieces()
        return format_fen(self.width, self.height, x, o, self.blocks, 0, 0, 1)

    def describe(self) -> str:
        """One line for people: what differs from plain Ataxx."""
        parts = [f"{self.width}x{self.height}", self.start.value, f"stuck: {self.stuck.value}"]
        parts.append(
            f"{self.fifty_move_limit}-halfmove rule" if self.fifty_move_limit else "no move limit"
        )
        if self.repetition:
            parts.append("threefold repetition ends the game")
        parts.append(f"ties: {self.tie.value}")
        code = self.blocks_code
        if self.blocks:
            parts.append(f"blocks {code}" if code else f"{self.blocks.bit_count()} blocks")
        return ", ".join(parts)


ATAXX = RuleSet()
PRESSIBUS = RuleSet(
    name="pressibus",
    stuck=StuckPolicy.EARLY_FILL,
    fifty_move_limit=None,
    repetition=True,
    blocs_config_required=True,
)
SITE_2005 = RuleSet(
    name="site-2005",
    start=StartLayout.TWO_CORNERS,
    stuck=StuckPolicy.LOSE,
    fifty_move_limit=None,
    repetition=True,
    tie=TiePolicy.SECOND_PLAYER,
)

#: The named presets, by name.
RULESETS: dict[str, RuleSet] = {r.name: r for r in (ATAXX, PRESSIBUS, SITE_2005)}
