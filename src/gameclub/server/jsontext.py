"""JSON text for the wire: every state, event and lobby update the club sends,
and every message it receives.

Game states and deltas are encoded once per change and sent to every player
and spectator, and every move arrives as a JSON message, which makes both
directions a hot path under load; orjson does them several times faster than
the standard library, with the same output for our data. (It is stricter on
input: ``NaN``, ``Infinity``, numbers beyond a double (``1e999``), integers
beyond 64 bits and unpaired UTF-16 surrogates are not JSON to it.)

Every message the club receives, over HTTP or the WebSocket, is read by
:func:`loads`, so that such values never reach a handler; when the text is
JSON to a lenient reader, the error names the field that holds the value.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return orjson.dumps(value).decode()


class BadJSON(ValueError):
    """Text that is not JSON the club reads; ``field`` names where, when known
    (``clock.base``, ``moves[3]``)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def loads(text: str | bytes) -> Any:
    """Parse JSON text strictly; :class:`BadJSON` if it is not JSON or holds a value
    that is not (``NaN``, ``Infinity``, ``1e999``, a lone surrogate, a huge integer)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise _explain(text, exc) from None


#: Deepest nesting explained: orjson itself refuses deeper than 1024 levels.
_MAX_DEPTH = 256


def _explain(text: str | bytes, exc: orjson.JSONDecodeError) -> BadJSON:
    """Why orjson refused ``text``: a named field when a lenient reader finds one."""
    try:
        lenient = json.loads(text)
    except (ValueError, RecursionError):
        return BadJSON(f"not valid JSON: {exc}")
    found = _unreadable(lenient, "", 0)
    if found is None:
        return BadJSON(f"not valid JSON: {exc}")
    path, why = found
    where = path or "the message"
    return BadJSON(f"{where}: {why}", path or None)


def _unreadable(value: Any, path: str, depth: int) -> tuple[str, str] | None:
    if isinstance(value, float):
        if not math.isfinite(value):
            return path, "numbers must be finite (not NaN, Infinity or 1e999)"
    elif isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            return path, "this number is too large"
    elif isinstance(value, str):
        if not _is_unicode(value):
            return path, "text must be valid Unicode (no unpaired surrogates)"
    elif depth < _MAX_DEPTH and isinstance(value, dict):
        for name, item in value.items():
            label = _label(name)
            where = f"{path}.{label}" if path else label
            found = _unreadable(name, where, depth + 1) or _unreadable(item, where, depth + 1)
            if found is not None:
                return found
    elif depth < _MAX_DEPTH and isinstance(value, list):
        for index, item in enumerate(value):
            found = _unreadable(item, f"{path}[{index}]", depth + 1)
            if found is not None:
                return found
    return None


def _label(name: str) -> str:
    """A field's name as it can be shown back (short, encodable)."""
    return name[:40].encode("utf-8", "backslashreplace").decode()


def _is_unicode(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True
