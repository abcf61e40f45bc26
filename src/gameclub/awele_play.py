"""``gameclub awele play``: a game of Awele in the terminal against one of the engine's levels.

The board is drawn with North's row on top (his ``a`` on the right) and South's
below; you type a pit letter to sow it. Commands: ``moves``, ``undo`` (your
last move and the computer's reply), ``position`` (Aalina's position text),
``help``, ``quit``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from gameclub import __version__
from gameclub.awele.board import Board
from gameclub.awele.engine import LEVELS, Engine, SearchLimits
from gameclub.awele.errors import AweleError
from gameclub.awele.move import Side
from gameclub.awele.rules import RULESETS

_HELP = """\
  A-F / a-f   sow that pit (South's are A-F, North's a-f)
  moves       the legal moves
  undo        take back your last move (and the computer's reply)
  position    the position in Aalina's notation
  quit        leave the game"""


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", choices=list(RULESETS), default="awele",
                        help="rule set (default awele, the source's rules)")
    parser.add_argument("--level", default="master",
                        help=f"the computer: human (two players) or {', '.join(LEVELS)} "
                        "(default master)")
    parser.add_argument("--side", choices=("south", "north"), default="south",
                        help="your side (South moves first from the start)")
    parser.add_argument("--position", help="start from this position (Aalina's notation)")
    parser.add_argument("--movetime", type=float, default=1.0, metavar="SECONDS",
                        help="the computer's time per move (master; default 1)")
    parser.add_argument("--seed", type=int, help="seed for the computer's random choices")


def run_play(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Play until the game ends, ``quit`` or the end of the input; bad options raise ValueError."""
    out = out if out is not None else sys.stdout
    if args.level != "human" and args.level not in LEVELS:
        raise ValueError(f"unknown level {args.level!r}; choose human or {', '.join(LEVELS)}")
    if args.movetime <= 0:
        raise ValueError(f"movetime must be above 0 seconds, not {args.movetime}")
    board = Board(args.position, RULESETS[args.rules])
    engine = Engine(args.level, seed=args.seed) if args.level != "human" else None
    human = Side.SOUTH if args.side == "south" else Side.NORTH

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"gameclub {__version__}: Awele, rules {board.rules.name} ({board.rules.describe()}). "
        "Type 'help' for commands.")
    if engine is not None:
        engine.new_game()
    while True:
        say()
        say(str(board))
        outcome = board.outcome()
        if outcome is not None:
            winner = f"{outcome.winner.name.title()} wins" if outcome.winner is not None \
                else "draw"
            say(f"Game over: {winner} ({outcome.termination.value}), "
                f"{outcome.score[0]}-{outcome.score[1]}.")
        elif engine is not None and board.turn is not human:
            move = engine.search(board, SearchLimits(movetime=args.movetime)).move
            say(f"{args.level} plays {move.text}")
            board.push(move)
            continue
        try:
            line = input("> ").strip()
        except EOFError:
            say()
            return 0
        if not line:
            continue
        if line in ("quit", "exit"):
            return 0
        if line == "help":
            say(_HELP)
        elif line == "moves":
            say(" ".join(m.text for m in board.legal_moves) or "(none: the game is over)")
        elif line == "position":
            say(board.position())
        elif line == "undo":
            if not board.move_stack:
                say("Nothing to undo.")
                continue
            board.pop()
            if engine is not None and board.move_stack and board.turn is not human:
                board.pop()
        else:
            try:
                board.push(line)
            except AweleError as exc:
                say(f"Error: {exc}")
