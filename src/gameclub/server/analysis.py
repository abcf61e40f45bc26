"""The analysis of a position from the endgame tables: its exact value and every move's.

``GET /api/analysis`` answers it for both games (see docs/protocol.md). The tables
are those of :mod:`gameclub.tablebase` in the default table directory
(``$GAMECLUB_TABLEBASES``, else ``~/.local/share/gameclub/tablebases``); where no
table covers the position the answer says so (``"table": null``), and the club
needs no tables at all. The first probe of a table layer checks its SHA-256 (up
to a second for the largest Awele layers), so the server calls this in a thread.

Ataxx: a small board without blocks, under rules that end the game as a table
does (:func:`gameclub.tablebase.ataxx.table_rules_of`). Without a move limit the
values are the game's; under one (the ``ataxx`` preset, unless a record's
``RuleOptions`` says ``fifty=off``) a value is the game's when the halfmove clock
leaves room for the table's play (:meth:`AtaxxProbe.exact_under`), and each value
says whether it is ``exact``. Awele: the ``awari`` and ``awele`` rule sets, positions
with at most the table's seeds on the board; a value is the margin over the seeds
left (what the side to move will still capture minus what the opponent will).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from gameclub.ataxx.errors import AtaxxError
from gameclub.awele.errors import AweleError
from gameclub.server.errors import bad_field

#: the longest position text read (a 7x7 FEN with blocks is under 80).
MAX_POSITION_CHARS = 200

_awele_tables: dict[tuple[str, str], Any] = {}
_awele_lock = threading.Lock()


def _value_json(value: int) -> dict[str, Any]:
    from gameclub.tablebase.values import decode

    result, margin = decode(value)
    return {"result": {1: "win", 0: "draw", -1: "loss"}[result], "margin": margin}


def ataxx_analysis(rules: str, options: str, position: str,
                   root: Path | None = None) -> dict[str, Any]:
    """The table analysis of an Ataxx position (a FEN) under a preset and its options."""
    from gameclub.ataxx.board import Board
    from gameclub.ataxx.engine.tables import TableProbe, default_tables
    from gameclub.ataxx.notation import rules_from_tags

    try:
        ruleset = rules_from_tags(rules, options)
    except AtaxxError as exc:
        raise bad_field(f"rules: {exc}") from None
    try:
        board = Board(position, ruleset)
    except AtaxxError as exc:
        raise bad_field(f"position: {exc}") from None
    answer: dict[str, Any] = {"game": "ataxx", "rules": rules, "rule_options": options,
                              "position": board.fen(), "table": None}
    if board.outcome() is not None:
        return answer
    tables = TableProbe(root) if root is not None else default_tables()
    looked = tables.lookup(board)
    if looked is None:
        return answer
    probe, exact = looked
    limit = ruleset.fifty_move_limit
    table = tables.table(board.width, board.height, probe_rules(ruleset))
    moves_exact = []
    for m in probe.moves:
        board.push(m.move)
        moves_exact.append(table is not None and table.exact_under(board, limit))
        board.pop()
    best = probe.best
    answer["table"] = {
        "value": _value_json(probe.value),
        "exact": exact,
        "distance": probe.distance,
        "best": best.uci() if best is not None else None,
        "moves": [{"move": m.move.uci(), "value": _value_json(m.value),
                   "exact": exact_move, "distance": m.distance}
                  for m, exact_move in zip(probe.moves, moves_exact, strict=True)],
    }
    return answer


def probe_rules(ruleset: Any) -> str:
    """The name of the table rules that serve ``ruleset`` (it has some: see lookup)."""
    from gameclub.tablebase.ataxx import table_rules_of

    found = table_rules_of(ruleset)
    assert found is not None
    return found[0]


def _awele_table(rules: str, root: Path | None) -> Any:
    """The largest complete table of ``rules`` (``None``: none), opened once a directory."""
    from gameclub.awele.engine.endgame import TableProbe
    from gameclub.tablebase.storage import default_root

    where = root if root is not None else default_root()
    key = (str(where), rules)
    with _awele_lock:
        if key not in _awele_tables:
            _awele_tables[key] = TableProbe.open(rules, where)
        return _awele_tables[key]


def awele_analysis(rules: str, position: str, root: Path | None = None) -> dict[str, Any]:
    """The table analysis of an Awele position (Aalina's text) under a rule set."""
    from gameclub.awele.board import Board
    from gameclub.awele.rules import RULESETS
    from gameclub.tablebase.awele import best_of
    from gameclub.tablebase.storage import TableError

    if rules not in RULESETS:
        raise bad_field(f"rules must be one of {', '.join(RULESETS)} for Awele, not {rules!r}")
    try:
        board = Board(position, RULESETS[rules])
    except AweleError as exc:
        raise bad_field(f"position: {exc}") from None
    answer: dict[str, Any] = {"game": "awele", "rules": rules, "rule_options": "",
                              "position": board.position(), "table": None}
    if board.outcome() is not None:
        return answer
    found = _awele_table(rules, root)
    if found is None or not found.knows(board):
        return answer
    table = found.table
    try:
        value = table.board_value(board)
        if found.has_distances:
            distance: int | None = table.board_distance(board)
            scored: list[tuple[Any, int, int | None]] = list(table.scored_moves(board))
            best: str | None = best_of(scored).text  # type: ignore[arg-type]
        else:
            distance = None
            scored = [(m, v, None) for m, v in table.probe(board)[1]]
            best = next((m.text for m, v, _ in scored if v == value), None)
    except (TableError, ValueError):
        return answer
    answer["table"] = {
        "value": {"margin": value},
        "exact": True,
        "distance": distance,
        "best": best,
        "moves": [{"move": m.text, "value": {"margin": v}, "exact": True, "distance": d}
                  for m, v, d in scored],
    }
    return answer


def table_analysis(game: str, rules: str | None, options: str, position: str,
                   root: Path | None = None) -> dict[str, Any]:
    """``GET /api/analysis``: the analysis of ``position`` for ``game`` (``rules``
    ``None``: the game's default rule set in the club)."""
    from gameclub.games import GAMES

    if game not in GAMES:
        raise bad_field(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    rules = rules or GAMES[game].default_rules
    if game == "ataxx":
        return ataxx_analysis(rules, options, position, root)
    if options:
        raise bad_field("rule options are for Ataxx positions; Awele has none")
    return awele_analysis(rules, position, root)
