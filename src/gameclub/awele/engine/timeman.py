"""Time management: how long ``master`` thinks about one move.

Two limits come out of the clock: a *soft* one, after which no new iteration is
started (the next one costs several times all before it), and a *hard* one, at
which a watchdog thread stops the kernel. The hard limit leaves ``overhead``
seconds for the reply to travel.
"""

from __future__ import annotations

from dataclasses import dataclass

from gameclub.awele.engine import SearchLimits

#: seconds kept back for everything outside the search (protocol, process hops).
DEFAULT_OVERHEAD = 0.03
#: a move with no limit at all thinks this long.
DEFAULT_MOVETIME = 1.0
#: the fraction of a fixed move time after which no new iteration starts: an
#: iteration costs about three times the one before, so one started later
#: would rarely finish.
SOFT_SHARE = 0.45


@dataclass(frozen=True)
class TimeBudget:
    """Seconds from the start of the search; ``None`` means no time limit."""

    soft: float | None
    hard: float | None


def moves_to_go(seeds_on_board: int) -> int:
    """Our moves left, guessed from the seeds in play (games last 40-60 moves each)."""
    return max(6, seeds_on_board // 2 + 6)


def allocate(limits: SearchLimits, seeds_on_board: int,
             overhead: float = DEFAULT_OVERHEAD) -> TimeBudget:
    if limits.infinite:
        return TimeBudget(None, None)
    if limits.movetime is not None:
        hard = max(0.001, limits.movetime - overhead)
        return TimeBudget(SOFT_SHARE * hard, hard)
    remaining = limits.time
    if remaining is None:
        if limits.depth is not None or limits.nodes is not None:
            return TimeBudget(None, None)
        hard = DEFAULT_MOVETIME
        return TimeBudget(SOFT_SHARE * hard, hard)
    inc = limits.increment
    mtg = limits.movestogo if limits.movestogo else moves_to_go(seeds_on_board)
    usable = max(0.0, remaining - overhead)
    base = usable / mtg + 0.8 * inc
    hard = max(0.001, min(3.0 * base, 0.5 * usable + 0.5 * inc, usable))
    soft = max(0.0005, min(base, hard))
    return TimeBudget(soft, hard)
