"""Game settings chosen by players (rules, blocks, clock, colour, rated): parsed and checked.

Every game-creating request (against the computer, a seek, an invitation)
sends the same fields; :func:`parse_options` turns them into a
:class:`GameOptions` or raises a :class:`ClubError` naming the bad field.
``"random"`` blocks are drawn here, once, so that everyone who sees a seek or
an invitation sees the blocks that will be played.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from gameclub.ataxx import RULESETS, AtaxxError, Board, RuleSet
from gameclub.ataxx.blocks import BlocsConfig, preferred_configs, random_valid
from gameclub.ataxx.engine import LEVELS
from gameclub.server.errors import ClubError, bad_field

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

    def ruleset(self) -> RuleSet:
        rules = RULESETS[self.rules]
        return rules.with_blocks(self.blocks) if self.blocks else rules

    def start_fen(self) -> str:
        return Board(rules=self.ruleset()).fen()

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
        }


def _int_in(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise bad_field(f"{name} must be a whole number of seconds, not {value!r}")
    if not low <= value <= high:
        raise bad_field(f"{name} must be between {low} and {high} seconds, not {value}")
    return int(value)


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
        base_ms = 1000 * _int_in(clock.get("base"), "clock.base", 1, MAX_BASE_S)
        inc_ms = 1000 * _int_in(clock.get("increment", 0), "clock.increment", 0, MAX_INCREMENT_S)
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
    return GameOptions(rules_name, blocks, base_ms, inc_ms, color, rated)


def parse_level(value: Any) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise bad_field(f"level must be one of {', '.join(LEVELS)}, not {value!r}")
    return value


def options_json() -> dict[str, object]:
    """What the forms offer (``GET /api/options``)."""
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
