"""The game of Awele (Oware, Awari): rules, board, notation and numba kernels. No I/O lives here.

>>> from gameclub.awele import Board
>>> board = Board()
>>> board.push_text("F")
<Move.F: 5>
>>> board.position()
'4-4-4-4-4-0-5-5-5-5-4-4-0-0-N'
"""

from gameclub.awele.board import Board, MoveEffect, Outcome, Termination
from gameclub.awele.errors import (
    AweleError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
)
from gameclub.awele.move import Move, Side
from gameclub.awele.position import START_POSITION, format_position, parse_position
from gameclub.awele.rules import (
    AWARI,
    AWELE,
    OWARE,
    RULESETS,
    Feeding,
    GrandSlam,
    OddSeed,
    RepetitionShare,
    RuleSet,
    StuckCheck,
)

__all__ = [
    "AWARI",
    "AWELE",
    "OWARE",
    "RULESETS",
    "START_POSITION",
    "AweleError",
    "Board",
    "Feeding",
    "GrandSlam",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidRecordError",
    "InvalidRulesError",
    "Move",
    "MoveEffect",
    "OddSeed",
    "Outcome",
    "RepetitionShare",
    "RuleSet",
    "Side",
    "StuckCheck",
    "Termination",
    "format_position",
    "parse_position",
]
