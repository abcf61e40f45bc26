"""``gameclub awele play``, ``engine`` and ``match`` through the real command line."""

from __future__ import annotations

import io

import pytest

from gameclub.awele import RULESETS, Board
from gameclub.cli import main


def test_play_a_game_in_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("moves\nx\nF\nposition\nundo\nquit\n"))
    assert main(["awele", "play", "--level", "greedy", "--seed", "1", "--rules", "oware"]) == 0
    out = capsys.readouterr().out
    assert "Awele, rules oware" in out
    assert "A B C D E F" in out  # the legal moves at the start
    assert "Error: invalid move 'x'" in out
    reply = out.split("greedy plays ")[1][0]
    board = Board(rules=RULESETS["oware"])
    board.push("F")
    board.push(reply)
    assert board.position() in out


def test_play_as_north_lets_the_computer_open(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["awele", "play", "--level", "random", "--side", "north", "--seed", "2"]) == 0
    assert "random plays " in capsys.readouterr().out


def test_play_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["awele", "play", "--level", "grandmaster"]) == 2
    assert "gameclub awele play: error: unknown level 'grandmaster'" in capsys.readouterr().err


def test_engine_runs_protocol_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["awele", "engine", "--level", "greedy", "position startpos moves Fb",
                 "go depth 1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    board = Board(rules=RULESETS["oware"])
    board.push("F")
    board.push("b")
    assert lines[-1].split()[0] == "bestmove"
    assert lines[-1].split()[1] in {m.text for m in board.legal_moves}


def test_match_between_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["awele", "match", "builtin:greedy", "builtin:random", "--games", "2",
                 "--depth", "1", "--opening-plies", "1", "--rules", "awari"]) == 0
    out = capsys.readouterr().out
    assert "Match greedy vs random: 2 games, 6 openings" in out
    assert "Finished match" in out


def test_match_with_a_bad_engine(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["awele", "match", "builtin:grand", "builtin:random"]) == 2
    assert "unknown built-in Awele level 'grand'" in capsys.readouterr().err
