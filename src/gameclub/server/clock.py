"""Wall-clock time in milliseconds, random ids, and the game clock (base + increment).

The game clock is plain data stepped with explicit timestamps, so the round
that owns it decides when "now" is and tests can drive it without sleeping.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass

from gameclub.games import Color

_ID_ALPHABET = string.ascii_letters + string.digits


def now_ms() -> int:
    """Milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


def new_id(length: int = 8) -> str:
    """A random id from 62 letters and digits (8 characters: about 47 bits)."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


@dataclass
class GameClock:
    """Time left to each side; ``running`` side's clock runs since ``started_at``.

    ``remaining[c]`` is the time ``c`` had when its clock last started (or stopped).
    """

    base_ms: int
    increment_ms: int
    remaining: dict[Color, int]
    running: Color | None = None
    started_at: int = 0

    @classmethod
    def new(cls, base_ms: int, increment_ms: int) -> GameClock:
        return cls(base_ms, increment_ms, {Color.X: base_ms, Color.O: base_ms})

    def time_left(self, color: Color, now: int) -> int:
        left = self.remaining[color]
        if self.running is color:
            left -= now - self.started_at
        return max(0, left)

    def flagged(self, now: int) -> Color | None:
        """The side whose time has run out, if any."""
        if self.running is not None and self.time_left(self.running, now) <= 0:
            return self.running
        return None

    def start(self, color: Color, now: int) -> None:
        """Start ``color``'s clock (the other one stands)."""
        self.stop(now)
        self.running = color
        self.started_at = now

    def stop(self, now: int) -> None:
        """Stop the running clock, charging its side the time used."""
        if self.running is not None:
            self.remaining[self.running] = self.time_left(self.running, now)
            self.running = None

    def moved(self, color: Color, now: int, *, charge: bool) -> None:
        """``color`` has moved: charge its time (if ``charge``) and add the increment."""
        if self.running is color:
            self.stop(now)
        if charge:
            self.remaining[color] += self.increment_ms

    def to_json(self, now: int) -> dict[str, object]:
        return {
            "x": self.time_left(Color.X, now),
            "o": self.time_left(Color.O, now),
            "running": self.running.char if self.running is not None else None,
            "at": now,
        }
