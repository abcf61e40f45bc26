"""``GET /api/analysis``: the endgame tables' value of a position and of every move, for
Ataxx and Awele, checked against the exact solvers (not the tables), and the answer
where no table covers a position."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.engine.endgame import solve
from gameclub.ataxx.fen import format_fen
from gameclub.awele import Board as AweleBoard
from gameclub.awele.move import Side
from gameclub.awele.position import format_position
from gameclub.awele.rules import RULESETS as AWELE_RULES
from gameclub.awele.solver import solve as awele_solve
from gameclub.tablebase.ataxx import AtaxxTables
from gameclub.tablebase.awele import AweleTables
from gameclub.tablebase.build import build

SEEDS = 6


@pytest.fixture(scope="module")
def table_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("analysis-tables")
    build(AtaxxTables(3, 4, "ataxx"), root)
    build(AweleTables(SEEDS, "awari"), root)
    return root


@pytest.fixture
def tables(table_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(table_root))
    return table_root


def random_3x4(rng: random.Random, turn: int, clock: int = 0) -> str:
    """A 3x4 FEN with pieces placed at random (stride-8 bitboards, as the FEN wants)."""
    x = o = 0
    for rank in range(4):
        for file in range(3):
            digit = rng.randrange(3)
            if digit == 1:
                x |= 1 << (rank * 8 + file)
            elif digit == 2:
                o |= 1 << (rank * 8 + file)
    return format_fen(3, 4, x, o, 0, turn, clock, 1)


def value_json(result: int, margin: int) -> dict[str, object]:
    return {"result": {1: "win", 0: "draw", -1: "loss"}[result], "margin": margin}


def test_ataxx_values_without_the_move_limit_are_the_solvers(club, tables):
    """A record's ``fifty=off``: the tables are the game; every value is exact and is the
    exact solver's, the position's and each move's."""
    ann = club.browser()
    rules = ATAXX.replace(width=3, height=4, fifty_move_limit=None)
    rng = random.Random(3)
    checked = 0
    while checked < 12:
        fen = random_3x4(rng, rng.randrange(2))
        board = Board(fen, rules)
        if board.outcome() is not None or board.empty.bit_count() > 6:
            continue
        body = ann.get("/api/analysis", params={"game": "ataxx", "rules": "ataxx",
                                                "options": "fifty=off", "position": fen}).json()
        found = solve(board, max_nodes=200_000)
        if found is None or not found.exact:
            continue
        table = body["table"]
        assert table["exact"] is True
        assert table["value"] == value_json(found.result, found.margin), fen
        moves = {m["move"]: m for m in table["moves"]}
        assert set(moves) == {m.uci() for m in board.legal_moves}
        for move in board.legal_moves:
            board.push(move)
            child = solve(board, max_nodes=200_000)
            board.pop()
            if child is None or not child.exact:
                continue
            assert moves[move.uci()]["value"] == value_json(-child.result, -child.margin), fen
            assert moves[move.uci()]["exact"] is True
        best = moves[table["best"]]
        assert best["value"] == table["value"]
        checked += 1


def test_ataxx_under_the_move_limit_exact_values_are_the_solvers(club, tables):
    """The ``ataxx`` preset keeps its 100-halfmove limit: a value said to be exact is the
    exact solver's under that limit, wins and losses included; a table win or loss with
    the clock about to run out is not said to be exact."""
    ann = club.browser()
    limited = ATAXX.replace(width=3, height=4)
    rng = random.Random(4)
    seen = {"draw": 0, "decided": 0, "late": 0}
    while min(seen.values()) < 5:
        clock = rng.choice((0, 30, 99))
        fen = random_3x4(rng, rng.randrange(2), clock=clock)
        board = Board(fen, limited)
        if board.outcome() is not None or board.empty.bit_count() > 6:
            continue
        table = ann.get("/api/analysis", params={"game": "ataxx", "rules": "ataxx",
                                                 "position": fen}).json()["table"]
        assert table is not None
        draw = table["value"]["result"] == "draw"
        if not table["exact"]:
            assert not draw
            seen["late"] += clock == 99
            continue
        found = solve(board, max_nodes=50_000)
        if found is None or not found.exact:
            continue
        assert table["value"] == value_json(found.result, found.margin if found.result else 0)
        seen["draw" if draw else "decided"] += 1


def test_no_table_means_no_values_and_bad_input_is_named(club, tables):
    ann = club.browser()
    start = Board().fen()
    body = ann.get("/api/analysis", params={"game": "ataxx", "position": start}).json()
    assert body["table"] is None and body["position"] == start
    # The 2005 site's tie and repetition rules: no table serves them.
    fen = "x1o/3/3/o1x x 0 1"
    body = ann.get("/api/analysis", params={"game": "ataxx", "rules": "site-2005",
                                            "position": fen}).json()
    assert body["table"] is None
    for params, words in (
        ({"game": "ataxx", "position": "x1o/4 x"}, "position"),
        ({"game": "ataxx", "rules": "nope", "position": fen}, "rules"),
        ({"game": "chess", "position": fen}, "game"),
        ({"game": "awele", "rules": "awari", "position": "4-4-4"}, "position"),
        ({"game": "ataxx"}, "position"),
    ):
        response = ann.get("/api/analysis", params=params)
        assert response.status_code == 400, params
        assert words in response.json()["error"]["message"], params


def test_awele_values_are_the_exhaustive_solvers(club, tables):
    """Awari positions of up to the table's seeds: the margin over the seeds left of the
    position and of every move, as ``gameclub awele solve`` finds them."""
    ann = club.browser()
    rng = random.Random(6)
    for _ in range(15):
        pits = [0] * 12
        for _ in range(rng.randint(2, SEEDS)):
            pits[rng.randrange(12)] += 1
        side = rng.choice((Side.SOUTH, Side.NORTH))
        text = format_position(pits, (20, 22), side)
        board = AweleBoard(text, AWELE_RULES["awari"])
        body = ann.get("/api/analysis", params={"game": "awele", "rules": "awari",
                                                "position": text}).json()
        if board.outcome() is not None:
            assert body["table"] is None
            continue
        solved = awele_solve(board)
        table = body["table"]
        assert table["value"] == {"margin": solved.value}, text
        assert {m["move"]: m["value"]["margin"] for m in table["moves"]} == \
            {m.text: v for m, v in solved.moves.items()}, text
        assert solved.moves[next(m for m in solved.moves if m.text == table["best"])] \
            == solved.value
    # More seeds than the table: no values.
    body = ann.get("/api/analysis", params={"game": "awele", "rules": "awari",
                                            "position": AweleBoard(rules=AWELE_RULES["awari"])
                                            .position()}).json()
    assert body["table"] is None


def test_no_table_directory_is_no_error(club, monkeypatch, tmp_path):
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(tmp_path / "none"))
    ann = club.browser()
    body = ann.get("/api/analysis", params={"game": "ataxx", "rules": "ataxx",
                                            "options": "fifty=off",
                                            "position": "x1o/3/3/o1x x 0 1"}).json()
    assert body["table"] is None
