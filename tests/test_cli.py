"""The ``gameclub`` command through a real subprocess: output forms that tools rely on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gameclub", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_perft_lines() -> None:
    proc = run("perft", "startpos", "4")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 4
    pattern = re.compile(r"^depth (\d) nodes (\d+) time [\d.]+ nps \d+$")
    nodes = [int(pattern.match(line).group(2)) for line in lines]  # type: ignore[union-attr]
    assert nodes == [16, 256, 6460, 155888]


def test_perft_with_fen() -> None:
    proc = run("perft", "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", "3")
    assert proc.stdout.splitlines()[-1].startswith("depth 3 nodes 4184 ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("perft", "x5o/6 x 0 1", "2"), "invalid FEN"),
        (("perft", "startpos", "-1"), "depth must be 0 or more"),
        (("blocks", "show", "3gq"), "'q'"),
        (("play", "--rules", "chess"), "unknown rule set 'chess'"),
    ],
)
def test_errors_are_one_line_with_status_2(args: tuple[str, ...], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_blocks_show_json() -> None:
    proc = run("blocks", "show", "hg3x", "--json")
    data = json.loads(proc.stdout)
    assert data == {
        "code": "hg3x",
        "canonical": "3ghx",
        "preferred": "3ghx",
        "twin": "6ghx",
        "weight": 1,
        "blocks": 11,
        "valid": True,
        "reason": None,
        "fen": "x5o/1-3-1/2-1-2/2---2/2-1-2/1-3-1/o5x x 0 1",
    }
    invalid = json.loads(run("blocks", "show", "2356cfgh", "--json").stdout)
    assert invalid["valid"] is False and "d4" in invalid["reason"]


def test_blocks_show_text() -> None:
    out = run("blocks", "show", "efh").stdout
    assert "preferred  bch" in out and "twin       bch" in out


def test_blocks_list() -> None:
    assert run("blocks", "list", "4").stdout.split() == (
        ["12", "13", "14", "15", "16", "23", "25", "26", "36", "a", "b", "c", "g", "h"]
    )
    lines = run("blocks", "list", "--valid").stdout.splitlines()
    assert lines[0].split() == ["0", "0"] and len(lines) > 10_000


def test_play_against_the_computer(tmp_path: Path) -> None:
    record = tmp_path / "game.pgn"
    script = f"f2\nf2 ?\nmoves\nundo\ng2\nsave {record}\nquit\n"
    proc = run("play", "--opponent", "simple", "--seed", "3", "--no-color", stdin=script)
    assert proc.returncode == 0, proc.stderr
    assert "simple plays" in proc.stdout
    text = record.read_text()
    assert "1. g2" in text and '[Rules "ataxx"]' in text
    proc = run("play", "--opponent", "human", "--no-color",
               stdin=f"load {record}\nfen\nzz\nquit\n")
    assert "Loaded 2 moves" in proc.stdout
    assert "Error: invalid move 'zz'" in proc.stdout


def test_play_site_2005_blocks() -> None:
    proc = run("play", "--rules", "pressibus", "--blocks", "3ghx", "--opponent", "human",
               "--no-color", stdin="fen\nquit\n")
    assert "x5o/1-3-1/2-1-2/2---2/2-1-2/1-3-1/o5x x 0 1" in proc.stdout
    proc = run("play", "--rules", "pressibus", "--blocks", "2356cfgh", stdin="quit\n")
    assert proc.returncode == 2 and "d4 cannot be reached" in proc.stderr
