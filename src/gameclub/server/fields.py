"""Strict reading of the values clients send: numbers, whole numbers in query strings, keys.

Every number and every look-up key that reaches the club from outside goes
through here, so that one rule holds everywhere: a whole number is written
with the ASCII digits 0-9 (``int()`` also reads ``'٣'`` and ``str.isdigit``
also passes ``'²'`` and ``'①'``), a number is finite, and a key that cannot
name anything (wrong characters, a NUL byte that PostgreSQL refuses) is
unknown rather than an error of the database. A refusal is a ``bad-field``
error naming the field.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gameclub.server.errors import bad_field

_ASCII_WHOLE = re.compile(r"[0-9]{1,12}")
#: Names the club gives (accounts and ``Guest-xxxx``) and ids it makes (letters, digits).
_KEY = re.compile(r"[A-Za-z0-9_-]{1,40}")


def query_int(params: Any, name: str, default: int, high: int) -> int:
    """The whole number ``0..high`` of query parameter ``name`` (``default`` when absent)."""
    text = params.get(name)
    if text is None:
        return default
    if not _ASCII_WHOLE.fullmatch(text) or int(text) > high:
        raise bad_field(f"{name} must be a whole number from 0 to {high}, not {text[:20]!r}")
    return int(text)


def whole_number(value: Any, name: str, low: int, high: int, unit: str = "") -> int:
    """A whole number ``low..high`` from a JSON body (``60`` or ``60.0``, not ``60.5``,
    ``true``, ``NaN`` or ``1e999``)."""
    units = f" {unit}" if unit else ""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not (math.isfinite(value) and value.is_integer()))
    ):
        raise bad_field(f"{name} must be a whole number{units}, not {value!r}")
    if not low <= value <= high:
        raise bad_field(f"{name} must be between {low} and {high}{units}, not {value}")
    return int(value)


def key(value: Any) -> str | None:
    """``value`` if it can be a name or an id of the club, else ``None`` (nothing has it)."""
    if isinstance(value, str) and _KEY.fullmatch(value):
        return value
    return None
