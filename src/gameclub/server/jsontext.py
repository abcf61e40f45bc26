"""JSON text for the wire: every state, event and lobby update the club sends,
and every message it receives.

Game states and deltas are encoded once per change and sent to every player
and spectator, and every move arrives as a JSON message, which makes both
directions a hot path under load; orjson does them several times faster than
the standard library, with the same output for our data. (It is stricter on
input: ``NaN``, ``Infinity`` and integers beyond 64 bits are not JSON to it.)
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return orjson.dumps(value).decode()


def loads(text: str | bytes) -> Any:
    """Parse JSON text; ``ValueError`` (``orjson.JSONDecodeError``) if it is not JSON."""
    return orjson.loads(text)
