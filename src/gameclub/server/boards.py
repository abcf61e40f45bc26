"""Boards and records for the editor, the gallery and save/restore: checked with the library.

The browser draws and asks; everything it shows about a board (the code of a
drawing, its preferred form, its twin, whether it may be played and why not),
about a set-up position and about a loaded record comes from here:

* :func:`describe_code` / :func:`describe_squares` — a Blocs-Config, from its
  code or from the squares of a drawing (:func:`gameclub.cli.blocks_summary`);
* :func:`gallery` — the preferred, playable configurations by block count;
* :func:`read_record` — a PGN record (``GameRecord``) as positions to replay,
  and whether the club can continue it;
* :func:`record_of` — a game of the club as a PGN record.
"""

from __future__ import annotations

import datetime
import functools
import json
import random
from typing import TYPE_CHECKING, Any

from gameclub.ataxx import AtaxxError, Board, Color
from gameclub.ataxx.blocks import MAX_BLOCKS, BlocsConfig, preferred_configs, random_valid
from gameclub.ataxx.notation import GameRecord, rule_options
from gameclub.ataxx.squares import iter_squares, parse_square, square_name
from gameclub.server.errors import ClubError, bad_field
from gameclub.server.options import why_not_start

if TYPE_CHECKING:
    from gameclub.server.round import Round

#: Longest list of squares accepted for a drawing (the 7x7 board has 49).
MAX_SQUARES = 49
#: Records longer than this are refused (a 7x7 game is a few kilobytes).
MAX_RECORD_CHARS = 60_000
#: Records with more moves than this are refused (see ``Settings.max_record_plies``).
MAX_RECORD_PLIES = 1000

_rng = random.SystemRandom()


def _cells(board: Board) -> list[str]:
    from gameclub.server.round import cells_of

    return cells_of(board)


def describe_code(code: Any) -> dict[str, Any]:
    """Everything about a Blocs-Config code; ``invalid-blocks`` when it is not one."""
    from gameclub.cli import blocks_summary

    if not isinstance(code, str) or not code.strip() or len(code) > 40:
        raise bad_field(f"code must be a Blocs-Config code such as 3ghx, not {code!r}")
    try:
        summary = blocks_summary(code.strip())
    except AtaxxError as exc:
        raise ClubError("invalid-blocks", str(exc)) from None
    board = Board(str(summary["fen"]))
    config = BlocsConfig.parse(str(summary["canonical"]))
    return {
        **summary,
        "squares": [square_name(sq) for sq in iter_squares(config.squares())],
        "cells": _cells(board),
        "max_blocks": MAX_BLOCKS,
    }


def describe_squares(text: Any) -> dict[str, Any]:
    """The Blocs-Config of a drawing: squares such as ``"c4,e4"`` (empty: no blocks).

    An asymmetric drawing, or one with a block in a corner, is ``invalid-blocks``
    with the library's message naming the square.
    """
    if not isinstance(text, str):
        raise bad_field("squares must be a comma-separated list of squares such as c4,e4")
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if len(names) > MAX_SQUARES:
        raise bad_field(f"squares: at most {MAX_SQUARES}")
    bb = 0
    for name in names:
        try:
            bb |= 1 << parse_square(name)
        except (AtaxxError, ValueError):
            raise bad_field(f"squares: {name!r} is not a square such as c4") from None
    try:
        config = BlocsConfig.from_squares(bb)
    except AtaxxError as exc:
        raise ClubError("invalid-blocks", str(exc)) from None
    return describe_code(config.code)


def random_board(min_blocks: int, max_blocks: int) -> dict[str, Any]:
    try:
        config = random_valid(_rng, min_blocks=min_blocks, max_blocks=max_blocks)
    except AtaxxError as exc:
        raise ClubError("invalid-blocks", str(exc)) from None
    return describe_code(config.code)


@functools.lru_cache(maxsize=1)
def _gallery_index() -> dict[int, tuple[tuple[str, int, str], ...]]:
    """Preferred valid configurations by block count: ``(code, weight, twin)``."""
    index: dict[int, list[tuple[str, int, str]]] = {}
    for config in preferred_configs(valid_only=True):
        index.setdefault(config.block_count, []).append(
            (config.code, config.weight, config.twin().code)
        )
    return {count: tuple(items) for count, items in index.items()}


def gallery(count: int | None, offset: int, limit: int) -> dict[str, Any]:
    """The club's ready-to-play boards: preferred, valid Blocs-Configs with ``count`` blocks.

    (Slow once, about two seconds, the first time: call it in a thread.)
    """
    index = _gallery_index()
    counts = [{"blocks": n, "total": len(items)} for n, items in sorted(index.items())]
    if count is None:
        return {"counts": counts, "blocks": None, "configs": [], "total": 0}
    items = index.get(count, ())
    return {
        "counts": counts,
        "blocks": count,
        "configs": [
            {"code": code, "blocks": count, "weight": weight, "twin": twin}
            for code, weight, twin in items[offset : offset + limit]
        ],
        "total": len(items),
        "offset": offset,
    }


def position_json(board: Board) -> dict[str, Any]:
    return {
        "cells": _cells(board),
        "counts": {"x": board.count(Color.X), "o": board.count(Color.O)},
        "fen": board.fen(),
    }


def positions_of(start_fen: str, rules: Any, moves: list[str]) -> list[dict[str, Any]]:
    board = Board(start_fen, rules)
    positions = [position_json(board)]
    for move in moves:
        board.push_uci(move)
        positions.append(position_json(board))
    return positions


_RESULT_OF_WINNER = {"x": "1-0", "o": "0-1", None: "1/2-1/2"}


def record_of(rnd: Round) -> GameRecord:
    """A game of the club as a record: ``Black`` plays x and ``White`` o (as in the Ataxx tools)."""
    players = rnd.players_json()
    date = datetime.datetime.fromtimestamp(rnd.created_at / 1000, tz=datetime.UTC)
    headers = {
        "Event": "gameclub " + ("rated game" if rnd.options.rated else "casual game"),
        "Site": f"/game/{rnd.id}",
        "Date": date.strftime("%Y.%m.%d"),
        "Round": "-",
        "White": players["o"]["name"],
        "Black": players["x"]["name"],
    }
    record = GameRecord.from_board(rnd.board, headers=headers)
    if rnd.reason is not None and rnd.reason != "aborted":
        record.headers["Termination"] = rnd.reason
        if record.result == "*":
            winner = rnd.winner.char if rnd.winner is not None else None
            record.result = _RESULT_OF_WINNER[winner]
    return record


def read_record(text: Any, max_plies: int = MAX_RECORD_PLIES) -> dict[str, Any]:
    """A PGN record, checked move by move, as positions to replay (``invalid-record``).

    Costs about 50 microseconds a move: the server runs it in a worker process.
    """
    if not isinstance(text, str) or not text.strip():
        raise bad_field("pgn must be the text of a game record")
    if len(text) > MAX_RECORD_CHARS:
        raise ClubError("invalid-record", f"a record is at most {MAX_RECORD_CHARS} characters")
    # A cheap bound first, so that an overlong record costs no replay at all: a
    # record of n moves has about 1.5 n words (moves and move numbers), plus tags.
    if len(text.split()) > 3 * max_plies + 200:
        raise ClubError(
            "invalid-record", f"a record has at most {max_plies} moves; this one is longer"
        )
    try:
        record = GameRecord.from_pgn(text)
    except AtaxxError as exc:
        raise ClubError("invalid-record", f"this record cannot be read: {exc}") from None
    if len(record.moves) > max_plies:
        raise ClubError(
            "invalid-record",
            f"a record has at most {max_plies} moves; this one has {len(record.moves)}",
        )
    board = record.board(0)
    moves = [move.uci() for move in record.moves]
    positions = positions_of(record.start_fen, record.rules, moves)
    blocks = record.rules.blocks_code if board.blocks else None
    blocks = None if blocks in (None, "0") else blocks
    why_not = _why_not_continuable(record)
    for position in positions:
        position["why_not"] = why_not or why_not_start(record.rules.name, blocks, position["fen"])
        position["continuable"] = position["why_not"] is None
    if why_not is None and not any(position["continuable"] for position in positions):
        why_not = positions[0]["why_not"]
    headers = record.headers
    return {
        "headers": headers,
        "rules": record.rules.name,
        "rule_options": rule_options(record.rules),
        "blocks": blocks,
        "width": board.width,
        "height": board.height,
        "start_fen": record.start_fen,
        "moves": moves,
        "positions": positions,
        "result": record.result,
        "players": {"x": headers.get("Black", "?"), "o": headers.get("White", "?")},
        "continuable": why_not is None,
        "why_not": why_not,
    }


def read_record_json(text: Any, max_plies: int = MAX_RECORD_PLIES) -> bytes:
    """:func:`read_record` encoded as JSON (in the worker, so the encoding is off-loaded too)."""
    return json.dumps(read_record(text, max_plies)).encode()


def _why_not_continuable(record: GameRecord) -> str | None:
    """What keeps the club from continuing any position of ``record`` that the check
    of a new game's position cannot see (it knows only the club's own rule sets)."""
    if rule_options(record.rules):
        return f"the club does not offer the rule options {rule_options(record.rules)!r}"
    return None
