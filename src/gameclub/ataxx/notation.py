"""Game records in the PGN form of the Ataxx tools, read and written strictly.

A record has tag pairs, the moves as UAI text with move numbers, and the result::

    [Event "Casual game"]
    [Site "gameclub"]
    [Date "2026.11.29"]
    [Round "-"]
    [White "bob"]
    [Black "ann"]
    [Result "1-0"]
    [FEN "x5o/7/7/7/7/7/o5x x 0 1"]
    [Rules "ataxx"]

    1. g2 a1a3 2. f3 0000 1-0

As in libataxx, cuteataxx and python-ataxx, ``Black`` is the player of ``x`` (the
first player) and ``White`` the player of ``o``; ``1-0`` means that ``x`` won.
The moves are written on one line, as cuteataxx does and as python-ataxx's
reader needs. The ``Rules``
tag names the rule set preset, and ``RuleOptions`` lists the options that differ
from it; the ``FEN`` tag carries the board size, the start layout and the blocks.
This is the club's save and restore format.

>>> from gameclub.ataxx import Board
>>> board = Board()
>>> _ = board.push_uci("g2")
>>> record = GameRecord.from_board(board, {"Black": "ann"})
>>> GameRecord.from_pgn(record.to_pgn()).moves
[Move.from_uci('g2')]
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from gameclub.ataxx.board import Board
from gameclub.ataxx.errors import AtaxxError, InvalidRecordError, InvalidRulesError
from gameclub.ataxx.fen import STARTPOS, format_fen, parse_fen
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import RULESETS, RuleSet, StuckPolicy, TiePolicy

__all__ = ["GameRecord", "format_fen", "parse_fen", "rule_options", "rules_from_tags"]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")

_TAG_RE = re.compile(r'^\[([A-Za-z0-9_]+) "((?:[^"\\]|\\.)*)"\]$')
#: ASCII digits only (``\d`` alone also matches '٣' and '３').
_MOVE_NUMBER_RE = re.compile(r"^\d+\.(\.\.)?$", re.ASCII)

# The set-up fields travel in the FEN tag; the other options in Rules/RuleOptions.
_SETUP_FIELDS = {"name", "width", "height", "start", "blocks"}


def rule_options(rules: RuleSet) -> str:
    """The ``RuleOptions`` tag: options where ``rules`` differs from its preset, or ``""``."""
    preset = RULESETS.get(rules.name, RULESETS["ataxx"])
    parts = []
    if rules.stuck is not preset.stuck:
        parts.append(f"stuck={rules.stuck.value}")
    if rules.fifty_move_limit != preset.fifty_move_limit:
        parts.append(f"fifty={rules.fifty_move_limit or 'off'}")
    if rules.repetition != preset.repetition:
        parts.append(f"repetition={'on' if rules.repetition else 'off'}")
    if rules.tie is not preset.tie:
        parts.append(f"tie={rules.tie.value}")
    if rules.blocs_config_required != preset.blocs_config_required:
        parts.append(f"blocs-config={'on' if rules.blocs_config_required else 'off'}")
    return " ".join(parts)


def rules_from_tags(name: str, options: str = "") -> RuleSet:
    """The rule set named by a ``Rules`` tag, with a ``RuleOptions`` tag applied."""
    rules = RuleSet.from_name(name)
    changes: dict[str, object] = {}
    for item in options.split():
        key, sep, value = item.partition("=")
        if not sep:
            raise InvalidRulesError(f"rule option {item!r} is not key=value")
        try:
            if key == "stuck":
                changes["stuck"] = StuckPolicy(value)
            elif key == "fifty":
                changes["fifty_move_limit"] = None if value == "off" else int(value)
            elif key == "repetition":
                changes["repetition"] = _on_off(value)
            elif key == "tie":
                changes["tie"] = TiePolicy(value)
            elif key == "blocs-config":
                changes["blocs_config_required"] = _on_off(value)
            else:
                raise InvalidRulesError(
                    f"unknown rule option {key!r}; known: stuck, fifty, repetition, tie, "
                    "blocs-config"
                )
        except (ValueError, KeyError) as exc:
            if isinstance(exc, InvalidRulesError):
                raise
            raise InvalidRulesError(f"bad value {value!r} for rule option {key!r}") from None
    return rules.replace(**changes) if changes else rules


def _on_off(value: str) -> bool:
    if value not in ("on", "off"):
        raise ValueError(value)
    return value == "on"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


@dataclass
class GameRecord:
    """A game: its tags, rule set, start position, moves and result."""

    headers: dict[str, str] = field(default_factory=dict)
    rules: RuleSet = dataclasses.field(default_factory=lambda: RULESETS["ataxx"])
    start_fen: str = STARTPOS
    moves: list[Move] = field(default_factory=list)
    result: str = "*"

    # -- building -----------------------------------------------------------------

    @classmethod
    def from_board(cls, board: Board, headers: dict[str, str] | None = None) -> GameRecord:
        """The record of the moves played on ``board`` since its set-up."""
        replay = board.copy()
        while replay.move_stack:
            replay.pop()
        outcome = board.outcome()
        result = outcome.result() if outcome is not None else "*"
        tags = {
            "Event": "?",
            "Site": "gameclub",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Round": "-",
            "White": "?",
            "Black": "?",
        }
        tags.update(headers or {})
        tags["Result"] = result
        return cls(tags, board.rules, replay.fen(), list(board.move_stack), result)

    def board(self, ply: int | None = None) -> Board:
        """The position after ``ply`` moves (all of them by default)."""
        board = Board(self.start_fen, self.rules)
        moves = self.moves if ply is None else self.moves[:ply]
        for move in moves:
            board.push(move)
        return board

    # -- writing ------------------------------------------------------------------

    def to_pgn(self) -> str:
        tags = dict(self.headers)
        tags["Result"] = self.result
        tags["FEN"] = self.start_fen
        tags["Rules"] = self.rules.name
        options = rule_options(self.rules)
        if options:
            tags["RuleOptions"] = options
        else:
            tags.pop("RuleOptions", None)
        code = self.rules.replace(blocks=parse_fen(self.start_fen).blocks).blocks_code if (
            parse_fen(self.start_fen)[:2] == (7, 7)
        ) else None
        if code and code != "0":
            tags["Blocks"] = code
        ordered = [k for k in SEVEN_TAGS if k in tags] + [k for k in tags if k not in SEVEN_TAGS]
        lines = [f'[{key} "{_escape(tags[key])}"]' for key in ordered]
        fields = parse_fen(self.start_fen)
        number, turn = fields.fullmove_number, fields.turn
        tokens: list[str] = []
        for index, move in enumerate(self.moves):
            if turn == 0:
                tokens.append(f"{number}.")
            elif index == 0:
                tokens.append(f"{number}...")
            tokens.append(move.uci())
            if turn == 1:
                number += 1
            turn ^= 1
        tokens.append(self.result)
        return "\n".join(lines) + "\n\n" + " ".join(tokens) + "\n"

    # -- reading ------------------------------------------------------------------

    @classmethod
    def from_pgn(cls, text: str) -> GameRecord:
        """Read exactly one game; :class:`InvalidRecordError` says what is wrong and where."""
        games = list(cls.read_all(text))
        if len(games) != 1:
            raise InvalidRecordError(f"expected one game in the record, found {len(games)}")
        return games[0]

    @classmethod
    def read_all(cls, text: str) -> Iterator[GameRecord]:
        """Read every game of a PGN file, in order."""
        if not isinstance(text, str):
            raise InvalidRecordError("a record must be text")
        lines = text.replace("\r\n", "\n").split("\n")
        index = 0
        while index < len(lines):
            while index < len(lines) and not lines[index].strip():
                index += 1
            if index >= len(lines):
                return
            headers: dict[str, str] = {}
            while index < len(lines) and lines[index].strip().startswith("["):
                line = lines[index].strip()
                match = _TAG_RE.match(line)
                if not match:
                    raise InvalidRecordError(f"line {index + 1}: malformed tag {line!r}")
                key = match.group(1)
                if key in headers:
                    raise InvalidRecordError(f"line {index + 1}: tag {key} appears twice")
                headers[key] = _unescape(match.group(2))
                index += 1
            start = index
            movetext = []
            while index < len(lines) and not lines[index].strip().startswith("["):
                movetext.append(lines[index])
                index += 1
            yield cls._from_parts(headers, "\n".join(movetext), start + 1)

    @classmethod
    def _from_parts(cls, headers: dict[str, str], movetext: str, first_line: int) -> GameRecord:
        try:
            rules = rules_from_tags(headers.get("Rules", "ataxx"), headers.get("RuleOptions", ""))
        except InvalidRulesError as exc:
            raise InvalidRecordError(f"tag Rules/RuleOptions: {exc}") from None
        fen = headers.get("FEN", rules.start_fen())
        try:
            board = Board(fen, rules)
        except AtaxxError as exc:
            raise InvalidRecordError(f"tag FEN: {exc}") from None
        start_fen = board.fen()
        # The FEN tag carries the set-up: make the rule set describe it too.
        try:
            rules = rules.replace(width=board.width, height=board.height, blocks=board.blocks)
            board.rules = rules
        except InvalidRulesError:
            pass
        result: str | None = None
        line_no = first_line
        for token, token_line in _tokens(movetext, first_line):
            line_no = token_line
            if result is not None:
                raise InvalidRecordError(
                    f"line {token_line}: {token!r} after the result {result}"
                )
            if token in RESULTS:
                result = token
            elif _MOVE_NUMBER_RE.match(token):
                continue
            else:
                try:
                    board.push(Move.from_uci(token))
                except AtaxxError as exc:
                    ply = len(board.move_stack) + 1
                    raise InvalidRecordError(f"line {token_line}, move {ply}: {exc}") from None
        if result is None:
            raise InvalidRecordError(f"line {line_no}: the moves do not end with a result")
        tag_result = headers.get("Result")
        if tag_result is not None and tag_result != result:
            raise InvalidRecordError(
                f"the Result tag says {tag_result} but the moves end with {result}"
            )
        outcome = board.outcome()
        if outcome is not None and result not in ("*", outcome.result()):
            raise InvalidRecordError(
                f"the record says {result} but the game ended {outcome.result()} "
                f"({outcome.termination.value})"
            )
        headers.setdefault("Result", result)
        return cls(headers, rules, start_fen, list(board.move_stack), result)


def _tokens(movetext: str, first_line: int) -> Iterator[tuple[str, int]]:
    """Tokens of the movetext with their line numbers; comments, NAGs and variations skipped."""
    depth = 0
    in_comment = False
    for offset, line in enumerate(movetext.split("\n")):
        line_no = first_line + offset
        if not in_comment and line.lstrip().startswith(";"):
            continue
        spaced = line
        for bracket in "{}()":
            spaced = spaced.replace(bracket, f" {bracket} ")
        for token in spaced.split():
            if in_comment:
                in_comment = token != "}"
                continue
            if token == "{":
                in_comment = True
            elif token == "}":
                raise InvalidRecordError(f"line {line_no}: '}}' without an opening '{{'")
            elif token == "(":
                depth += 1
            elif token == ")":
                if depth == 0:
                    raise InvalidRecordError(f"line {line_no}: ')' without an opening '('")
                depth -= 1
            elif depth == 0 and not token.startswith("$"):
                # A move number glued to its move ("1.g2") is split here.
                match = re.match(r"^(\d+\.(?:\.\.)?)(\S+)$", token, re.ASCII)
                if match:
                    yield match.group(1), line_no
                    yield match.group(2), line_no
                else:
                    yield token, line_no
    if in_comment:
        raise InvalidRecordError("a comment '{' is never closed")
    if depth:
        raise InvalidRecordError("a variation '(' is never closed")
