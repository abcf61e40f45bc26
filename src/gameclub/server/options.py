"""Game settings chosen by players (game, rules, clock, colour, rated, start): parsed and checked.

Every game-creating request (against the computer, a seek, an invitation)
sends the same fields; :func:`parse_options` turns them into a
:class:`GameOptions` or raises a :class:`ClubError` naming the bad field. The
fields of one game (Ataxx's blocks and FEN, Awele's position) are read by that
game's entry in :mod:`gameclub.games`. ``"random"`` blocks are drawn there,
once, so that everyone who sees a seek or an invitation sees the blocks that
will be played.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from gameclub.games import GAMES, Game, Position, Setup, game_of, suggested_blocks
from gameclub.server.errors import bad_field
from gameclub.server.fields import whole_number

COLORS = ("x", "o", "random")
MAX_BASE_S = 3 * 60 * 60
MAX_INCREMENT_S = 180
#: Clocks the forms offer (any base 1..10800 s and increment 0..180 s is accepted).
SUGGESTED_CLOCKS = (
    {"base": 60, "increment": 1},
    {"base": 180, "increment": 2},
    {"base": 300, "increment": 5},
    {"base": 600, "increment": 10},
)


@dataclass(frozen=True)
class GameOptions:
    rules: str = "ataxx"
    #: Blocs-Config code (Ataxx), ``None`` for no blocks.
    blocks: str | None = None
    clock_base_ms: int | None = None
    clock_inc_ms: int | None = None
    color: str = "random"
    rated: bool = False
    #: The start position when it is not the rule set's own (a FEN, an Aalina
    #: position), else ``None``.
    setup: str | None = None
    #: Which game (a key of :data:`gameclub.games.GAMES`).
    game: str = "ataxx"

    @property
    def kind(self) -> Game:
        return GAMES[self.game]

    def _setup(self) -> Setup:
        return Setup(self.rules, self.blocks, self.setup)

    def start_fen(self) -> str:
        """The start position's text (stored as the game's ``start_fen``)."""
        return self.kind.start_text(self._setup())

    def position(self, start: str | None = None) -> Position:
        """A live position of this game at ``start`` (the game's own by default)."""
        return self.kind.position(self.rules, self.blocks, start or self.start_fen())

    def start(self) -> str:
        """``standard``, ``custom``, or Ataxx's ``four-corners`` and ``two-corners``."""
        return self.kind.start_label(self._setup())

    def clock_json(self) -> dict[str, int] | None:
        if self.clock_base_ms is None:
            return None
        return {"base": self.clock_base_ms // 1000, "increment": (self.clock_inc_ms or 0) // 1000}

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.game,
            "rules": self.rules,
            "clock": self.clock_json(),
            "rated": self.rated,
            "color": self.color,
            "start": self.start(),
            **self.kind.setup_json(self._setup()),
        }


def parse_options(body: dict[str, Any], *, allow_rated: bool = True) -> GameOptions:
    """Check the shared game fields of a request body (see docs/protocol.md)."""
    kind = game_of(body.get("game"))
    setup = kind.parse_setup(body)
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
    options = GameOptions(
        setup.rules, setup.blocks, base_ms, inc_ms, color, rated, setup.setup, kind.id
    )
    if rated and options.start() == "custom":
        raise bad_field("a game from a set-up position is casual: it cannot be rated")
    return options


def parse_level(value: Any, game: str = "ataxx") -> str:
    """A computer level of ``game`` (``None``: the game's default level)."""
    return GAMES[game].parse_level(value)


@functools.cache
def options_json() -> dict[str, object]:
    """What the forms offer (``GET /api/options``); built once (walking the board
    layouts for the suggested blocks takes a few hundred milliseconds): do not
    change what it returns."""
    ataxx = GAMES["ataxx"].options_json()
    return {
        "rulesets": ataxx["rulesets"],
        "levels": ataxx["levels"],
        "clocks": list(SUGGESTED_CLOCKS),
        "blocks": suggested_blocks(),
        "games": [game.options_json() for game in GAMES.values()],
    }
