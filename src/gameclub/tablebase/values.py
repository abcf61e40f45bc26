"""How a table stores the value of a position: one signed byte, and the 2-bit WIN/LOSS/DRAW.

A value is the outcome for the side to move with best play, ordered as the engine's
exact solver orders it (:mod:`gameclub.ataxx.engine.endgame`): first win / draw /
loss, then the final margin. It is packed as ``result * RESULT_STEP + margin``, so
that one integer comparison orders values and negation gives the opponent's view
(the tables are negamax tables). A game that never ends is a draw with margin 0,
the value ``0``. For Awele the margin is the capture margin over the seeds left.

``RESULT_STEP`` is 64: margins from -31 to +31 decode without ambiguity (boards of
up to 31 squares, Awele layers of up to 31 seeds), and every value fits an ``int8``.
``NO_EXIT`` (-128) is below every value: "this position has no move
leaving its layer" in the builder's arrays, never a stored value.

>>> encode(1, 3), decode(67), decode(-61)
(67, (1, 3), (-1, 3))
"""

from __future__ import annotations

import numpy as np

RESULT_STEP = 64
MAX_MARGIN = RESULT_STEP // 2 - 1
NO_EXIT = -128

#: the 2-bit codes of the WIN/LOSS/DRAW tables.
WDL_LOSS = 0
WDL_DRAW = 1
WDL_WIN = 2
WDL_NAMES = {WDL_LOSS: "loss", WDL_DRAW: "draw", WDL_WIN: "win"}


def encode(result: int, margin: int) -> int:
    """The stored value of ``result`` (+1 / 0 / -1) with this final ``margin``."""
    if result not in (-1, 0, 1) or not -MAX_MARGIN <= margin <= MAX_MARGIN:
        raise ValueError(f"no stored value for result {result} and margin {margin}")
    return result * RESULT_STEP + margin


def decode(value: int) -> tuple[int, int]:
    """``(result, margin)`` of a stored value."""
    value = int(value)
    result = (value + RESULT_STEP // 2) // RESULT_STEP
    return result, value - result * RESULT_STEP


def wdl_codes(values: np.ndarray) -> np.ndarray:
    """The 2-bit WIN/LOSS/DRAW code of each value (``uint8``, one per position)."""
    result = (values.astype(np.int16) + RESULT_STEP // 2) // RESULT_STEP
    return (result + 1).astype(np.uint8)
