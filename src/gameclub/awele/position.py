"""Position text: Aalina's notation, ``4-4-4-4-4-4-4-4-4-4-4-4-0-0-S``, parsed strictly.

Fifteen fields joined by ``-``: the twelve pit counts from South's leftmost pit
counter-clockwise (South's ``A``-``F``, then North's ``a``-``f``), South's
store, North's store, and the side to move, ``S`` or ``N``. This is the
notation of Aalina, the engine of the Aualé program, and the ``FEN`` tag of its
OGN game records.

>>> parse_position(START_POSITION).turn
<Side.SOUTH: 0>
>>> format_position((0,) * 11 + (1,), (24, 23), Side.NORTH)
'0-0-0-0-0-0-0-0-0-0-0-1-24-23-N'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gameclub.awele.errors import InvalidPositionError
from gameclub.awele.move import PIT_LETTERS, Side
from gameclub.awele.rules import TOTAL_SEEDS

START_POSITION = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"

_COUNT = re.compile(r"0|[1-9][0-9]?")
_FIELD_NAMES = [f"pit {letter}" for letter in PIT_LETTERS] + ["South's store", "North's store"]


class PositionFields(NamedTuple):
    """A parsed position: the pits in kernel order, the stores (South, North), the side."""

    pits: tuple[int, ...]
    stores: tuple[int, int]
    turn: Side


def parse_position(text: str) -> PositionFields:
    """Parse position text; raise :class:`InvalidPositionError` naming what is wrong."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position is text, not {type(text).__name__}")
    if text != text.strip():
        raise InvalidPositionError(f"position {text!r} has spaces around it")
    fields = text.split("-")
    if "--" in text or text.startswith("-"):
        index = 0 if text.startswith("-") else text.index("--") + 1
        before = text[:index].count("-")
        name = _FIELD_NAMES[before] if before < len(_FIELD_NAMES) else f"field {before + 1}"
        raise InvalidPositionError(
            f"position {text!r}: {name} is negative or empty; seed counts are 0 or more"
        )
    if len(fields) != 15:
        raise InvalidPositionError(
            f"position {text!r} has {len(fields)} fields; expected 15 joined by '-': "
            "12 pit counts (A-F, a-f), South's store, North's store, side to move (S or N)"
        )
    counts = []
    for name, field in zip(_FIELD_NAMES, fields[:14], strict=True):
        if not _COUNT.fullmatch(field):
            raise InvalidPositionError(
                f"position {text!r}: {name} is {field!r}, not a count of seeds (0 to 48)"
            )
        value = int(field)
        if value > TOTAL_SEEDS:
            raise InvalidPositionError(
                f"position {text!r}: {name} holds {value} seeds, more than the {TOTAL_SEEDS} "
                "of the game"
            )
        counts.append(value)
    side = fields[14]
    if side not in ("S", "N"):
        raise InvalidPositionError(
            f"position {text!r}: the side to move is {side!r}; it must be S (South) or N (North)"
        )
    total = sum(counts)
    if total > TOTAL_SEEDS:
        raise InvalidPositionError(
            f"position {text!r} holds {total} seeds in all (pits and stores); "
            f"the game has {TOTAL_SEEDS}"
        )
    return PositionFields(tuple(counts[:12]), (counts[12], counts[13]),
                          Side.SOUTH if side == "S" else Side.NORTH)


def format_position(pits: tuple[int, ...] | list[int], stores: tuple[int, int] | list[int],
                    turn: Side) -> str:
    """The position text of these pits, stores and side to move."""
    return "-".join(str(n) for n in (*pits, *stores)) + "-" + turn.char
