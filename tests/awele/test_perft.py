"""Perft: our counts against a table made by OpenSpiel's oware, and the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gameclub.awele import AWELE, OWARE, Board
from gameclub.awele.perft import perft
from gameclub.cli import main

from .oware_oracle import TABLE, load_game, openspiel_perft, state_after


def _rows() -> list[tuple[str, int, int]]:
    rows = []
    for line in Path(TABLE).read_text().splitlines():
        if line.startswith("#"):
            continue
        moves, depth, nodes = line.split()
        rows.append(("" if moves == "-" else moves, int(depth), int(nodes)))
    return rows


def _board(moves: str, rules=OWARE) -> Board:
    board = Board(rules=rules)
    for text in moves:
        board.push(text)
    return board


@pytest.mark.parametrize(("moves", "depth", "nodes"), _rows(),
                         ids=lambda value: value if isinstance(value, int) else value[-6:])
def test_perft_matches_openspiels_table(moves, depth, nodes):
    assert perft(_board(moves), depth) == nodes


def test_the_table_is_openspiels_own_count():
    game = load_game()
    for moves, depth, nodes in _rows():
        if nodes <= 5000:
            assert openspiel_perft(state_after(game, moves), depth) == nodes


def test_perft_ends_lines_at_a_repetition():
    # The one-seed-each cycle returns to its start after 12 plies: under oware
    # (first return ends the game) no line continues past it, under awele it does.
    start = "0-0-0-0-0-1-0-0-0-0-0-1-23-23-S"
    assert perft(Board(start, OWARE), 13) == 0
    assert perft(Board(start, AWELE), 13) == 1


def test_cli_perft_prints_one_line_per_depth(capsys):
    assert main(["awele", "perft", "startpos", "4", "--rules", "oware"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    for depth, (line, nodes) in enumerate(zip(lines, (6, 36, 190, 1014), strict=True), 1):
        assert re.fullmatch(rf"depth {depth} nodes {nodes} time \d+\.\d{{3}} nps \d+", line)


def test_cli_perft_refuses_a_bad_position(capsys):
    assert main(["awele", "perft", "4-4-4-4-4-4-4-4-4-4-4-4-0-0-X", "2"]) == 2
    assert "side to move is 'X'" in capsys.readouterr().err
    assert main(["awele", "perft", "startpos", "2", "--rules", "bao"]) == 2
    assert "unknown rule set 'bao'" in capsys.readouterr().err
