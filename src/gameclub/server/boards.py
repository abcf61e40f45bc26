"""Boards and records for the editor, the gallery and save/restore: checked with the library.

The browser draws and asks; everything it shows about a board (the code of a
drawing, its preferred form, its twin, whether it may be played and why not),
about a set-up position and about a loaded record comes from here:

* :func:`describe_code` / :func:`describe_squares` — a Blocs-Config, from its
  code or from the squares of a drawing (:func:`gameclub.cli.blocks_summary`);
* :func:`gallery` — the preferred, playable configurations by block count;
* :func:`read_record_json` — a record (PGN, OGN) as positions to replay, and
  whether the club can continue it (read by the game's entry in
  :mod:`gameclub.games`).
"""

from __future__ import annotations

import functools
import json
import random
from typing import TYPE_CHECKING, Any

from gameclub.ataxx import AtaxxError, Board, Color
from gameclub.ataxx.blocks import MAX_BLOCKS, BlocsConfig, preferred_configs, random_valid
from gameclub.ataxx.squares import iter_squares, parse_square, square_name
from gameclub.games import GAMES, cells_of
from gameclub.server.errors import ClubError, bad_field

if TYPE_CHECKING:
    pass

#: Longest list of squares accepted for a drawing (the 7x7 board has 49).
MAX_SQUARES = 49
#: Records longer than this are refused (a 7x7 game is a few kilobytes).
MAX_RECORD_CHARS = 60_000
#: Records with more moves than this are refused (see ``Settings.max_record_plies``).
MAX_RECORD_PLIES = 1000

_rng = random.SystemRandom()


def _cells(board: Board) -> list[str]:
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


def read_record_json(text: Any, max_plies: int, game: str = "ataxx") -> bytes:
    """A record of ``game`` read and checked (:meth:`gameclub.games.Game.read_record`),
    encoded as JSON (in the worker, so the encoding is off-loaded too)."""
    return json.dumps(GAMES[game].read_record(text, max_plies)).encode()
