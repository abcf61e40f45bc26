"""Game records in OGN, the Oware Game Notation of the Aualé program.

OGN is PGN's shape for Oware: tag pairs, then the moves as pit letters with a
move number before South's, a ``+N`` after a move that captured ``N`` seeds,
``{comments}``, and the final score ``South-North`` once the game is over::

    [Variant "Oware Abapa"]
    [Event "?"]
    [Site "?"]
    [Date "?"]
    [Round "?"]
    [South "?"]
    [North "?"]
    [Result "*"]

    1. F b 2. C e+2 ...

It is chosen over our Ataxx PGN because Aualé reads and writes it (so its
users can open our games), it already carries Aalina's position text in its
``FEN`` tag, and its result is the final score, which Awele needs. Aualé
knows one variant, ``Oware Abapa``; our other rule sets are written by their
preset names in the ``Variant`` tag and read back the same way.

>>> game = read_ogn('[Variant "Oware Abapa"]\\n\\n1. F b 2. C')
>>> game.board.position()
'5-4-0-5-5-1-6-0-6-6-5-5-0-0-N'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gameclub.awele.board import Board
from gameclub.awele.errors import AweleError, InvalidRecordError
from gameclub.awele.move import Move
from gameclub.awele.position import START_POSITION
from gameclub.awele.rules import OWARE, RULESETS, RuleSet

#: The tags Aualé writes first, in its order.
TAG_ROSTER = ("Variant", "Event", "Site", "Date", "Round", "South", "North", "Result")
#: Aualé's name of the abapa rules.
AUALE_VARIANT = "Oware Abapa"

_TAG = re.compile(r'\s*\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(r"\s*(?:(\d+)\.|([A-Fa-f])(?:\+(\d+))?|\{([^}]*)\}|(\d+-\d+|\*))")


@dataclass
class Game:
    """A record read from OGN: its tags, its board after the moves, each move's comment."""

    tags: dict[str, str]
    board: Board
    comments: list[str | None] = field(default_factory=list)


def _variant_rules(variant: str) -> RuleSet:
    if variant == AUALE_VARIANT:
        return OWARE
    if variant in RULESETS:
        return RULESETS[variant]
    raise InvalidRecordError(
        f"unknown Variant {variant!r}; expected {AUALE_VARIANT!r} or one of {', '.join(RULESETS)}"
    )


def read_ogn(text: str) -> Game:
    """Parse an OGN record and replay its moves; :class:`InvalidRecordError` says what is
    wrong (an unknown tag syntax, a bad token, an illegal move, a capture count that
    does not match the move)."""
    tags: dict[str, str] = {}
    index = 0
    while True:
        match = _TAG.match(text, index)
        if match is None:
            break
        tags[match.group(1)] = match.group(2).replace('\\"', '"').replace("\\\\", "\\")
        index = match.end()
    rules = _variant_rules(tags.get("Variant", AUALE_VARIANT))
    try:
        board = Board(tags.get("FEN", START_POSITION), rules)
    except AweleError as exc:
        raise InvalidRecordError(f"FEN tag: {exc}") from None
    comments: list[str | None] = []
    result: str | None = None
    while True:
        rest = text[index:]
        if not rest.strip():
            break
        match = _TOKEN.match(text, index)
        if match is None or result is not None:
            snippet = rest.strip()[:20]
            raise InvalidRecordError(f"unexpected text {snippet!r} at character {index}")
        index = match.end()
        number, letter, captured, comment, final = match.groups()
        if letter is not None:
            move = Move.from_text(letter)
            stores = board.stores
            try:
                board.push(move)
            except AweleError as exc:
                raise InvalidRecordError(f"move {len(comments) + 1}: {exc}") from None
            gained = board.stores[board.turn.other] - stores[board.turn.other]
            if captured is not None and int(captured) != gained:
                raise InvalidRecordError(
                    f"move {len(comments) + 1} ({letter}+{captured}) captures {gained} seeds"
                )
            comments.append(None)
        elif comment is not None:
            if not comments:
                raise InvalidRecordError("a comment before the first move")
            comments[-1] = " ".join(comment.split())
        elif final is not None:
            result = final
        # A move number is only a reading aid.
        del number
    if result is not None and result != "*":
        outcome = board.outcome()
        if outcome is None or outcome.result() != result:
            actual = outcome.result() if outcome else "the game is not over"
            raise InvalidRecordError(f"the result {result} does not match the moves ({actual})")
    return Game(tags, board, comments)


def write_ogn(board: Board, tags: dict[str, str] | None = None,
              comments: list[str | None] | None = None) -> str:
    """The OGN record of ``board``'s game (from its set-up to its current position)."""
    start = board.copy()
    while start.move_stack:
        start.pop()
    values = {tag: "?" for tag in TAG_ROSTER}
    values["Variant"] = AUALE_VARIANT if board.rules == OWARE else board.rules.name
    outcome = board.outcome()
    values["Result"] = outcome.result() if outcome is not None else "*"
    if start.position() != START_POSITION:
        values["FEN"] = start.position()
    values.update(tags or {})
    lines = [f'[{tag} "{_escape(values[tag])}"]' for tag in TAG_ROSTER]
    lines += [f'[{tag} "{_escape(value)}"]' for tag, value in sorted(values.items())
              if tag not in TAG_ROSTER]
    tokens: list[str] = []
    for ply, move in enumerate(board.move_stack):
        if ply % 2 == 0:  # Aualé numbers every second move, whoever starts
            tokens.append(f"{ply // 2 + 1}.")
        mover = start.turn
        before = start.stores[mover]
        start._push_unchecked(move)
        gained = start.stores[mover] - before
        tokens.append(f"{move.text}+{gained}" if gained else move.text)
        if comments and ply < len(comments) and comments[ply]:
            tokens.append("{" + str(comments[ply]) + "}")
    if outcome is not None:
        tokens.append(outcome.result())
    out = "\n".join(lines) + "\n"
    if tokens:
        out += "\n" + _wrap(tokens) + "\n"
    return out


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _wrap(tokens: list[str]) -> str:
    lines = [tokens[0]]
    for token in tokens[1:]:
        if len(lines[-1]) + 1 + len(token) < 80:
            lines[-1] += " " + token
        else:
            lines.append(token)
    return "\n".join(lines)
