"""Table files: resuming a killed build, checksums, and clear errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gameclub.cli import main
from gameclub.tablebase.ataxx import AtaxxProbe, AtaxxTables
from gameclub.tablebase.build import Progress, build
from gameclub.tablebase.storage import BUILD_LOG, TableError


class _Killed(Exception):
    pass


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.name != BUILD_LOG}


def test_a_resumed_build_is_byte_for_byte_an_uninterrupted_one(tmp_path):
    whole = build(AtaxxTables(3, 3), tmp_path / "whole")

    def kill_after_four_layers(progress: Progress) -> None:
        if progress.done_layers == 4:
            raise _Killed

    with pytest.raises(_Killed):
        build(AtaxxTables(3, 3), tmp_path / "resumed", progress=kill_after_four_layers)
    path = tmp_path / "resumed" / "ataxx-3x3-ataxx"
    assert len(json.loads((path / "manifest.json").read_text())["layers"]) == 4
    # a layer the killed build was writing when it died
    (path / "layer-04.values.tmp").write_bytes(b"\x01" * 100)
    with pytest.raises(TableError, match="use --resume"):
        build(AtaxxTables(3, 3), tmp_path / "resumed")
    resumed = build(AtaxxTables(3, 3), tmp_path / "resumed", resume=True)
    assert resumed.complete
    assert _files(resumed.path) == _files(whole.path)


def test_a_build_killed_by_a_signal_resumes(tmp_path):
    command = [sys.executable, "-m", "gameclub", "tablebase", "build", "ataxx", "--size",
               "3x4", "--dir", str(tmp_path / "killed"), "--quiet"]
    manifest = tmp_path / "killed" / "ataxx-3x4-ataxx" / "manifest.json"
    process = subprocess.Popen(command)
    try:
        while process.poll() is None:
            if manifest.exists() and len(json.loads(manifest.read_text())["layers"]) >= 3:
                process.kill()
                break
    finally:
        process.wait()
    assert main([*command[3:-1], "--resume", "--quiet"]) == 0
    whole = build(AtaxxTables(3, 4), tmp_path / "whole")
    assert _files(manifest.parent) == _files(whole.path)


@pytest.fixture(scope="module")
def table_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("copy")
    build(AtaxxTables(2, 3), root)
    return root / "ataxx-2x3-ataxx"


def _damaged(table_copy: Path, tmp_path: Path) -> Path:
    path = tmp_path / "ataxx-2x3-ataxx"
    path.mkdir()
    for file in table_copy.iterdir():
        (path / file.name).write_bytes(file.read_bytes())
    return path


def test_a_corrupted_layer_is_never_probed(table_copy, tmp_path):
    path = _damaged(table_copy, tmp_path)
    data = bytearray((path / "layer-02.values").read_bytes())
    data[7] ^= 1
    (path / "layer-02.values").write_bytes(bytes(data))
    probe = AtaxxProbe.open(path, 2, 3)
    with pytest.raises(TableError, match="layer-02.values fails its checksum"):
        probe.value_of(0b000011, 0b001100)  # a position of layer 2
    assert probe.value_of(0b000111, 0b111000) is not None  # layer 0 is sound


def test_a_cut_or_missing_layer_is_named(table_copy, tmp_path):
    path = _damaged(table_copy, tmp_path)
    (path / "layer-03.wdl").write_bytes((path / "layer-03.wdl").read_bytes()[:-3])
    (path / "layer-01.values").unlink()
    probe = AtaxxProbe.open(path, 2, 3)
    with pytest.raises(TableError, match="layer-03.wdl has .* bytes"):
        probe.wdl_of(0b000011, 0b000100)
    with pytest.raises(TableError, match="layer-01.values is missing"):
        probe.value_of(0b000011, 0b011100)


def test_a_table_of_other_rules_or_size_is_refused(table_copy):
    with pytest.raises(TableError, match="rules site-2005"):
        AtaxxProbe.open(table_copy, 2, 3, "site-2005")
    with pytest.raises(TableError, match="width 3"):
        AtaxxProbe.open(table_copy, 3, 2)


def test_the_command_line_names_bad_input_and_changes_nothing(table_copy, capsys):
    before = _files(table_copy)
    root = str(table_copy.parent)
    cases = [
        (["probe", "ataxx", "x1o/3/o1x x", "--dir", root], "ataxx-3x3-ataxx"),
        (["probe", "ataxx", "x-/2/ox x", "--dir", root], "without blocks"),
        (["probe", "ataxx", "xo/2/oq x", "--dir", root], "invalid FEN"),
        (["build", "ataxx", "--size", "2x3", "--dir", root], "use --resume"),
        (["build", "ataxx", "--size", "6x6", "--dir", root], "at most 25 squares"),
        (["build", "ataxx", "--size", "4by4", "--dir", root], "invalid board size"),
        (["info", str(table_copy / "nothing")], "not a directory"),
    ]
    for argv, message in cases:
        assert main(["tablebase", *argv]) == 2
        assert message in capsys.readouterr().err
    assert _files(table_copy) == before


def test_probe_json_gives_the_value_and_every_move(table_copy, capsys):
    from gameclub.ataxx import Board
    from gameclub.tablebase.ataxx import table_ruleset
    from gameclub.tablebase.values import decode

    fen = "x1/2/1o x 0 1"
    assert main(["tablebase", "probe", "ataxx", fen, "--dir", str(table_copy.parent),
                 "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    board = Board(fen, table_ruleset(2, 3))
    probe = AtaxxProbe.open(table_copy, 2, 3)
    assert [m["move"] for m in found["moves"]] == [m.uci() for m in board.legal_moves]
    for entry in found["moves"]:
        board.push_uci(entry["move"])
        result, margin = decode(-probe.board_value(board))
        board.pop()
        assert entry["value"] == {"result": {1: "win", 0: "draw", -1: "loss"}[result],
                                  "margin": margin}
    result, margin = decode(probe.board_value(board))
    assert found["value"]["margin"] == margin
    assert found["best"] in [m["move"] for m in found["moves"] if m["value"] == found["value"]]


def test_info_reports_every_layer(table_copy, capsys):
    assert main(["tablebase", "info", str(table_copy), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [x["layer"] for x in info["layers"]] == list(range(7))
    layers = AtaxxTables(2, 3).geometry
    assert [x["positions"] for x in info["layers"]] == [layers.layer_size(e) for e in range(7)]
    assert [x["boards"] for x in info["layers"]] == [layers.boards(e) for e in range(7)]
    assert info["boards"] == 3**6 > info["positions"]
    assert np.isclose(info["wdl_ratio"], ((info["positions"] + 3) // 4) / info["wdl_bytes"],
                      atol=0.01)


def test_a_table_of_the_earlier_unfolded_index_is_refused_with_a_rebuild_message(
        table_copy, tmp_path, capsys):
    """Tables indexed before the symmetries were folded hold every board: their slots
    mean other boards, so they must never be probed or resumed."""
    path = _damaged(table_copy, tmp_path)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["params"]["index"] = "empty-squares rank, then colours/1"
    (path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(TableError, match="earlier index .* build the table again"):
        AtaxxProbe.open(path, 2, 3)
    before = _files(path)
    for argv in (["probe", "ataxx", "x1/2/1o x", "--dir", str(tmp_path)],
                 ["build", "ataxx", "--size", "2x3", "--dir", str(tmp_path), "--resume"]):
        assert main(["tablebase", *argv]) == 2
        assert "build the table again" in capsys.readouterr().err
    assert _files(path) == before
