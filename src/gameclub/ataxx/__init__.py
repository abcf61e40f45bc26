"""The game of Ataxx: rules, board, notation, Blocs-Config. No I/O lives here.

>>> from gameclub.ataxx import Board
>>> board = Board()
>>> board.push_uci("g2")
Move.from_uci('g2')
>>> board.turn
<Color.O: 1>
"""

from gameclub.ataxx.board import Board, Color, Outcome, Termination
from gameclub.ataxx.errors import (
    AtaxxError,
    IllegalMoveError,
    InvalidBlocksError,
    InvalidFenError,
    InvalidMoveError,
    InvalidRecordError,
    InvalidRulesError,
)
from gameclub.ataxx.fen import STARTPOS
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import (
    ATAXX,
    PRESSIBUS,
    RULESETS,
    SITE_2005,
    RuleSet,
    StartLayout,
    StuckPolicy,
    TiePolicy,
)

__all__ = [
    "ATAXX",
    "PRESSIBUS",
    "RULESETS",
    "SITE_2005",
    "STARTPOS",
    "AtaxxError",
    "Board",
    "Color",
    "IllegalMoveError",
    "InvalidBlocksError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidRecordError",
    "InvalidRulesError",
    "Move",
    "Outcome",
    "RuleSet",
    "StartLayout",
    "StuckPolicy",
    "Termination",
    "TiePolicy",
]
