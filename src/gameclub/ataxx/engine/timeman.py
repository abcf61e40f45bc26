"""Time management: how long ``master`` thinks about one move.

Two limits come out of the clock: a *soft* one, after which no new iteration is
started (an iteration that has begun costs about as much again as all before it),
and a *hard* one, at which a watchdog thread stops the kernel. The hard limit
always leaves the rule's ``overhead`` seconds on the clock for the reply to
travel, so the engine never loses on time while its clock is above that.
"""

from __future__ import annotations

from dataclasses import dataclass

from gameclub.ataxx.engine import SearchLimits

#: seconds kept back for everything outside the search (protocol, process hops).
DEFAULT_OVERHEAD = 0.02
#: clock kept back (seconds, plus this many increments) in games with an increment.
_RESERVE = 0.1
_RESERVE_INCREMENTS = 5
#: a move with no limit at all thinks this long.
DEFAULT_MOVETIME = 1.0


@dataclass(frozen=True)
class TimeRule:
    """The time manager's settings (``MasterSearch.time_rule``; selfplay.py's
    ``reserve``, ``reserveinc``, ``softshare`` and ``minmtg`` set them per player)."""

    #: seconds kept back from every move for what happens outside the search. The UAI
    #: server takes its ``MoveOverhead`` off the clocks itself and sets this to 0.
    overhead: float = DEFAULT_OVERHEAD
    #: clock kept back: ``reserve`` seconds plus ``reserve_increments`` increments.
    reserve: float = _RESERVE
    reserve_increments: float = _RESERVE_INCREMENTS
    #: the soft limit's share of a move's base time.
    soft_share: float = 0.6
    #: the fewest moves left that the clock is shared among.
    min_moves: int = 8


@dataclass(frozen=True)
class TimeBudget:
    """Seconds from the start of the search; ``None`` means no time limit."""

    soft: float | None
    hard: float | None


def moves_to_go(empty_squares: int, minimum: int = TimeRule.min_moves) -> int:
    """Our moves left, guessed from the empty squares.

    About one square in two is filled by us, but jumps fill nothing and games run
    long (90-115 plies from the 4-ply openings), so the guess is ``0.85 * empty + 4``.
    Guessing fewer (``empty / 2 + 4``) spent the clock early and left 20-30 ms a move
    for the endgame, where games are decided: in self-play at 1 s + 10 ms the longer
    guess scored 55-59% against it over 200 games (benchmarks/selfplay.py, ``mtgscale``).
    """
    return max(minimum, (empty_squares * 17) // 20 + 4)


def allocate(
    limits: SearchLimits, x_to_move: bool, empty_squares: int,
    rule: TimeRule = TimeRule(),
) -> TimeBudget:
    if limits.infinite:
        return TimeBudget(None, None)
    if limits.movetime is not None:
        hard = max(0.001, limits.movetime - rule.overhead)
        return TimeBudget(hard, hard)
    remaining = limits.wtime if x_to_move else limits.btime
    if remaining is None:
        if limits.depth is not None or limits.nodes is not None:
            return TimeBudget(None, None)
        return TimeBudget(DEFAULT_MOVETIME, DEFAULT_MOVETIME)
    inc = limits.winc if x_to_move else limits.binc
    mtg = limits.movestogo if limits.movestogo else moves_to_go(empty_squares, rule.min_moves)
    usable = max(0.0, remaining - rule.overhead)
    # With an increment, a reserve of the clock is kept for the moments when the
    # machine is busy and a reply arrives late: above it a move spends its share of
    # the surplus plus most of the increment, at or below it only half the increment,
    # so the clock climbs back. (Without it, 2 shared cores at load 4-5 cost 14 games
    # of 200 on time at 1 s + 10 ms: the clock had drifted down to a few tens of ms.)
    reserve = rule.reserve + rule.reserve_increments * inc if inc else 0.0
    surplus = usable - reserve
    base = surplus / mtg + 0.9 * inc if surplus > 0 else 0.5 * inc
    # Never plan to spend more than a fraction of what is left: a long think on one
    # move must not leave the rest of the game with nothing.
    hard = min(3.0 * base, 0.4 * usable + inc * 0.5 if mtg > 1 else 0.9 * usable)
    hard = max(0.001, min(hard, usable))
    soft = max(0.0005, min(rule.soft_share * base, hard))
    return TimeBudget(soft, hard)
