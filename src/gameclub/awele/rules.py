"""Rule sets: the orthogonal options of Awele, and the named presets from the sources.

A :class:`RuleSet` is a frozen value. Every preset plays on 2 rows of 6 pits with
4 seeds each, sows counter-clockwise skipping the pit it empties (so a pit of 12
or more seeds is passed over), captures 2s and 3s backwards from the last seed
while they lie in the opponent's row, and ends the game as soon as a store holds
25 seeds, or at 24-24. They differ in what the presets below say:

``awele``
    Source 001 exactly: no feeding obligation, no grand-slam rule (a capture of
    every seed of the opponent's row is captured like any other). The game ends
    when the player to move has no seed (the opponent takes the seeds left) and
    at the third occurrence of a position with the same player to move (the
    seeds left are shared equally; an odd seed goes to nobody). Where the source
    is silent the choices are options (:attr:`RuleSet.stuck_check`,
    :attr:`RuleSet.odd_seed`), documented in docs/awele.md.
``awari``
    The rules of Romein and Bal's 2002 solution, as the Vrije Universiteit's
    published supplement (keesverstoep/Awari: its README and db_lookup tool)
    states them: a move that leaves the opponent without seeds (capturing them
    all, or not feeding an opponent who has none) is illegal unless every move
    does so, and such a forced move captures normally; the player to move with no
    seed ends the game and the opponent takes the seeds left; the third
    occurrence of a position shares the seeds left equally.
``oware``
    Abapa, the tournament rules, exactly as OpenSpiel's ``oware`` game
    implements them: a grand slam is played but captures nothing; an opponent
    with no seeds must be fed, and when no move feeds him the game ends; the
    first return to an earlier position (since the last capture) ends the game;
    at every end each player takes the seeds of his own row.

>>> RULESETS["awari"].grand_slam is GrandSlam.FORBIDDEN
True
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from gameclub.awele.errors import InvalidRulesError

#: A store of this many seeds ends the game (more than half of 48).
WINNING_STORE = 25
#: Seeds in play at the start: 12 pits of 4.
TOTAL_SEEDS = 48


class GrandSlam(enum.Enum):
    """What a move that would capture every seed of the opponent's row does."""

    #: it captures them all, like any capture (source 001).
    CAPTURE = "capture"
    #: it is played but captures nothing (abapa; OpenSpiel's ``oware``).
    NO_CAPTURE = "no-capture"
    #: it is illegal unless every legal move leaves the opponent without seeds;
    #: then it captures normally (Romein and Bal's awari).
    FORBIDDEN = "forbidden"


class Feeding(enum.Enum):
    """Whether a player must give seeds to an opponent who has none."""

    #: no obligation (source 001).
    NONE = "none"
    #: he must; when no move does, the game ends and each player takes the seeds
    #: of his own row (abapa; OpenSpiel's ``oware``).
    REQUIRED = "required"
    #: he must when some move does; otherwise any move is legal (awari).
    IF_POSSIBLE = "if-possible"


class StuckCheck(enum.Enum):
    """When "a player cannot move" ends the game (source 001 does not say)."""

    #: when the player to move has no seed in his row.
    TO_MOVE = "to-move"
    #: as soon as either row is empty after a move, even if the next move could
    #: feed it: the player with the empty row is the one who "cannot play".
    EITHER = "either"


class RepetitionShare(enum.Enum):
    """Who takes the seeds left on the board when a repetition ends the game."""

    #: shared equally between the players (source 001, awari).
    EQUAL = "equal"
    #: each player takes the seeds of his own row (OpenSpiel's ``oware``).
    OWN_ROW = "own-row"


class OddSeed(enum.Enum):
    """Who takes the odd seed when an odd number of seeds is shared equally."""

    #: nobody: each player takes half, rounded down. The margin between the
    #: players is unchanged, as in Romein and Bal's databases (a cycle is worth 0).
    NOBODY = "nobody"
    #: the player to move at the repeated position.
    TO_MOVE = "to-move"
    #: the other player.
    OPPONENT = "opponent"


@dataclass(frozen=True)
class RuleSet:
    """A complete, frozen description of the rules of one game of Awele."""

    name: str = "awele"
    grand_slam: GrandSlam = GrandSlam.CAPTURE
    feeding: Feeding = Feeding.NONE
    stuck_check: StuckCheck = StuckCheck.TO_MOVE
    #: occurrences of a position (same pits, same player to move) that end the
    #: game; 3 is the third occurrence, 2 the first return.
    repetition_count: int = 3
    repetition_share: RepetitionShare = RepetitionShare.EQUAL
    odd_seed: OddSeed = OddSeed.NOBODY
    #: when a store reaches 25 (or at 24-24), each player also takes the seeds of
    #: his own row into the final score (OpenSpiel's ``oware``); otherwise the
    #: seeds left on the board count for nobody.
    collect_at_majority: bool = False

    def __post_init__(self) -> None:
        if self.repetition_count not in (2, 3):
            raise InvalidRulesError(
                f"repetition_count must be 2 or 3 occurrences, not {self.repetition_count}"
            )

    @classmethod
    def from_name(cls, name: str) -> RuleSet:
        """The preset called ``name``; raise :class:`InvalidRulesError` naming the choices."""
        try:
            return RULESETS[name]
        except KeyError:
            raise InvalidRulesError(
                f"unknown rule set {name!r}; choose one of {', '.join(RULESETS)}"
            ) from None

    def replace(self, **changes: object) -> RuleSet:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def kernel_flags(self) -> int:
        """The options the numba kernels need, packed in one int (see :mod:`.kernel`)."""
        from gameclub.awele import kernel

        flags = {
            GrandSlam.CAPTURE: kernel.GS_CAPTURE,
            GrandSlam.NO_CAPTURE: kernel.GS_NO_CAPTURE,
            GrandSlam.FORBIDDEN: kernel.GS_FORBIDDEN,
        }[self.grand_slam]
        flags |= {
            Feeding.NONE: kernel.FEED_NONE,
            Feeding.REQUIRED: kernel.FEED_REQUIRED,
            Feeding.IF_POSSIBLE: kernel.FEED_IF_POSSIBLE,
        }[self.feeding]
        if self.stuck_check is StuckCheck.EITHER:
            flags |= kernel.STUCK_EITHER
        if self.collect_at_majority:
            flags |= kernel.COLLECT_AT_MAJORITY
        return flags

    def describe(self) -> str:
        """One line for people: the options in words."""
        return (
            f"grand slam: {self.grand_slam.value}, feeding: {self.feeding.value}, "
            f"stuck: {self.stuck_check.value}, repetition: {self.repetition_count} "
            f"occurrences, shared {self.repetition_share.value}"
            + (f" (odd seed: {self.odd_seed.value})"
               if self.repetition_share is RepetitionShare.EQUAL else "")
        )


AWELE = RuleSet()
AWARI = RuleSet(
    name="awari",
    grand_slam=GrandSlam.FORBIDDEN,
    feeding=Feeding.IF_POSSIBLE,
)
OWARE = RuleSet(
    name="oware",
    grand_slam=GrandSlam.NO_CAPTURE,
    feeding=Feeding.REQUIRED,
    repetition_count=2,
    repetition_share=RepetitionShare.OWN_ROW,
    collect_at_majority=True,
)

#: The named presets, by name.
RULESETS: dict[str, RuleSet] = {r.name: r for r in (AWELE, AWARI, OWARE)}
