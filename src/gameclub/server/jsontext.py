"""JSON text for the wire: every state, event and lobby update the club sends.

Game states are encoded once per change and sent to every player and
spectator, which makes encoding a hot path under load; orjson does it several
times faster than the standard library, with the same output for our data.
"""

from __future__ import annotations

from typing import Any

import orjson


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return orjson.dumps(value).decode()
