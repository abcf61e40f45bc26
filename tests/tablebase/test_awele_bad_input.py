"""Bad input to the Awele tables: positions of another game or size, counts out of range,
missing, cut or corrupted files (through the probe, the command line and ``master``'s
default probe), and directories that belong to another rule set. Each gets an error
naming what is wrong, and nothing on disk changes."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from gameclub.awele import Board
from gameclub.awele.engine import Engine, SearchLimits
from gameclub.awele.engine.endgame import (
    TableProbe,
    TableWarning,
    default_probe,
    probe_best_move,
)
from gameclub.awele.rules import RULESETS
from gameclub.cli import main
from gameclub.tablebase.ataxx import AtaxxTables
from gameclub.tablebase.awele import AweleProbe, AweleTables
from gameclub.tablebase.build import build
from gameclub.tablebase.storage import TableError

SEEDS = 5
#: a position of 5 seeds, South to move; its moves lead to layers 5 and below.
POSITION = "1-0-2-0-0-0-0-1-0-0-1-0-0-0-S"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Awele tables of 0 to 5 seeds for both rule sets and a 2x3 Ataxx table, side by side."""
    path = tmp_path_factory.mktemp("bad-input")
    build(AweleTables(SEEDS, "awari"), path)
    build(AweleTables(SEEDS, "awele"), path)
    build(AtaxxTables(2, 3), path)
    return path


def snapshot(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` (build logs included) by relative name."""
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def copy_table(root: Path, tmp_path: Path, name: str = f"awele-{SEEDS}-awari",
               as_name: str | None = None) -> Path:
    copy = tmp_path / (as_name or name)
    shutil.copytree(root / name, copy)
    return copy


def cli_error(argv: list[str], capsys) -> str:
    """Run ``gameclub tablebase ARGV``: it must fail with status 2; its message."""
    assert main(["tablebase", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


# -- positions -------------------------------------------------------------------------


@pytest.mark.parametrize(("position", "message"), [
    ("x1o/3/o1x x", "has 1 fields; expected 15"),                          # an Ataxx FEN
    ("1-0-2-0-0-0-0-1-0-0-1-0-0-S", "has 14 fields; expected 15"),          # 11 pits
    ("1-0-2-0-0-0-0-1-0-0-1-0-0-0-0-S", "has 16 fields; expected 15"),      # 13 pits
    ("1-0-2-0-0--1-0-1-0-0-1-0-0-0-S", "pit F is negative"),
    ("1-0-2-0-0-49-0-1-0-0-1-0-0-0-S", "pit F holds 49 seeds"),
    ("1-0-2-0-0-0-0-1-0-0-1-0-0-0-X", "side"),
    ("1-0-2-0-0-0-0-1-0-0-1-4-0-0-S", "9 seeds on the board; the table holds up to 5"),
])
def test_a_bad_position_is_named(root, capsys, position, message):
    before = snapshot(root)
    assert message in cli_error(["probe", "awele", position, "--dir", str(root)], capsys)
    assert snapshot(root) == before


def test_an_awele_position_is_no_ataxx_fen(root, capsys):
    assert "invalid FEN" in cli_error(["probe", "ataxx", POSITION, "--dir", str(root)], capsys)


@pytest.mark.parametrize(("pits", "message"), [
    ([1] * 11, "12 pit counts, not 11"),
    ([0] * 13, "12 pit counts, not 13"),
    ([-1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "pit 1 holds -1"),
    ([1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "pit 1 holds 1.5"),
    ([True, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "pit 1 holds True"),
    ([3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "6 seeds on the board; the table holds up to 5"),
])
def test_the_probe_refuses_counts_out_of_range(root, pits, message):
    probe = AweleProbe.open(root, "awari")
    with pytest.raises(ValueError, match=message):
        probe.value_of(pits)
    with pytest.raises(ValueError, match=message):
        probe.distance_of(pits)


def test_a_board_of_other_rules_is_refused(root):
    probe = AweleProbe.open(root, "awari")
    for rules in ("awele", "oware"):
        with pytest.raises(ValueError, match=f"the board plays {rules}; the table is for awari"):
            probe.board_value(Board(POSITION, RULESETS[rules]))


# -- files -----------------------------------------------------------------------------


def flip_a_byte(file: Path, at: int = 0) -> None:
    data = bytearray(file.read_bytes())
    data[at] ^= 0x40
    file.write_bytes(bytes(data))


@pytest.mark.parametrize("kind", ["values", "distance", "wdl"])
def test_a_corrupted_file_is_never_probed(root, tmp_path, capsys, kind):
    path = copy_table(root, tmp_path)
    flip_a_byte(path / f"layer-03.{kind}")
    probe = AweleProbe.open(path, "awari")
    pits = [1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # layer 3
    name = f"layer-03.{kind} fails its checksum"
    with pytest.raises(TableError, match=name):
        if kind == "values":
            probe.value_of(pits)
        elif kind == "distance":
            probe.distance_of(pits)
        else:
            probe.table.wdl(3)
    assert probe.value_of([1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]) is not None  # layer 2: sound
    before = snapshot(path)
    assert name in cli_error(["info", str(path)], capsys)
    if kind != "wdl":  # the command line probes values and distances, not the WDL codes
        err = cli_error(["probe", "awele", "1-0-2-0-0-0-0-0-0-0-0-0-0-0-S", "--dir",
                         str(path)], capsys)
        assert name in err
    assert snapshot(path) == before


def test_a_cut_or_missing_file_is_named(root, tmp_path):
    path = copy_table(root, tmp_path)
    (path / "layer-04.values").write_bytes((path / "layer-04.values").read_bytes()[:-5])
    (path / "layer-02.distance").unlink()
    probe = AweleProbe.open(path, "awari")
    with pytest.raises(TableError, match=r"layer-04.values has 1360 bytes, the manifest says "
                                         r"1365: the file is damaged"):
        probe.value_of([4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    with pytest.raises(TableError, match="layer-02.distance is missing"):
        probe.distance_of([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])


def rewrite_manifest(path: Path, change) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    change(manifest)
    (path / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(("damage", "message"), [
    (lambda p: (p / "manifest.json").write_text('{"format": "gameclub-tab'), "is unreadable"),
    (lambda p: (p / "manifest.json").unlink(), "manifest.json is missing"),
    (lambda p: rewrite_manifest(p, lambda m: m["layers"][2].pop("values")),
     "damaged: layer 2 has no valid values file entry"),
    (lambda p: rewrite_manifest(p, lambda m: m["layers"][1]["wdl"].update(file="../x")),
     "damaged: layer 1 has no valid wdl file entry"),
    (lambda p: rewrite_manifest(p, lambda m: m.update(layers=m["layers"][:3] + m["layers"][4:])),
     "has no layer 3"),
    (lambda p: rewrite_manifest(p, lambda m: m["layers"][5].update(positions=7)),
     "the manifest gives layer 5 7 positions; an Awele layer of 5 seeds has 4368"),
    (lambda p: rewrite_manifest(p, lambda m: m.update(layers={})), "damaged: no list of layers"),
])
def test_a_damaged_manifest_is_refused_by_name(root, tmp_path, capsys, damage, message):
    path = copy_table(root, tmp_path)
    damage(path)
    with pytest.raises(TableError, match=message):
        AweleProbe.open(path, "awari")
    before = snapshot(tmp_path)
    assert message in cli_error(["probe", "awele", POSITION, "--dir", str(path)], capsys)
    assert snapshot(tmp_path) == before


# -- master's default probe ------------------------------------------------------------


def test_master_never_plays_from_a_corrupted_default_table(root, tmp_path, monkeypatch):
    """The default directory's table has a corrupted layer: the first probe that reads
    it warns and turns the table off for good; ``master`` searches instead (a table
    move has depth 0), also in positions whose layers are sound."""
    path = copy_table(root, tmp_path)
    flip_a_byte(path / "layer-05.values", at=100)
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(tmp_path))
    default_probe.cache_clear()
    try:
        engine = Engine("master", seed=1)
        five = Board(POSITION, RULESETS["awari"])  # its non-capturing moves stay in layer 5
        with pytest.warns(TableWarning, match=r"awari endgame table .* is not used: .*"
                                              r"layer-05.values fails its checksum"):
            result = engine.search(five, SearchLimits(depth=4))
        assert result.depth > 0
        probe = default_probe("awari")
        assert probe is not None and probe.broken is not None
        three = Board("1-0-1-0-0-0-0-1-0-0-0-0-0-0-S", RULESETS["awari"])  # layers 0-3
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # warned once, not at every probe
            assert probe_best_move(None, three) is None
            assert engine.search(three, SearchLimits(depth=4)).depth > 0
    finally:
        default_probe.cache_clear()


def test_an_explicit_probe_of_a_damaged_table_is_not_used_either(root, tmp_path):
    path = copy_table(root, tmp_path)
    (path / "layer-04.distance").unlink()
    endgame = TableProbe.open("awari", tmp_path)
    assert endgame is not None
    board = Board("1-0-1-0-0-0-0-1-0-0-1-0-0-0-S", RULESETS["awari"])  # 4 seeds
    with pytest.warns(TableWarning, match="layer-04.distance is missing"):
        assert probe_best_move(endgame, board) is None
    assert endgame.probe(board) is None


# -- directories of other rules ----------------------------------------------------------


def test_building_into_another_rule_sets_table_is_refused(root, tmp_path, capsys):
    path = copy_table(root, tmp_path)
    before = snapshot(tmp_path)
    for argv in (["build", "awele", "--rules", "awele", "--seeds", "0-5", "--dir", str(path)],
                 ["build", "awele", "--rules", "awari", "--seeds", "0-4", "--dir", str(path)],
                 ["build", "ataxx", "--size", "2x3", "--dir", str(path), "--resume"]):
        err = cli_error([*argv, "--quiet"], capsys)
        assert f"{path} holds a table for" in err and "rules awari" in err, err
        assert f"give the directory that holds the tables ({tmp_path})" in err
    assert snapshot(tmp_path) == before


def test_resuming_with_other_rules_is_refused(root, tmp_path, capsys):
    """A directory of the awele table's name that holds the awari table."""
    copy_table(root, tmp_path, as_name=f"awele-{SEEDS}-awele")
    before = snapshot(tmp_path)
    err = cli_error(["build", "awele", "--rules", "awele", "--seeds", "0-5", "--dir",
                     str(tmp_path), "--resume", "--quiet"], capsys)
    assert "holds a table for" in err and "rules awari" in err and "not for" in err
    assert "rules awele" in err
    assert snapshot(tmp_path) == before
    with pytest.raises(TableError, match="holds a table for awele awari, not for awele awele"):
        AweleProbe.open(tmp_path, "awele")


def test_a_directory_of_foreign_files_is_not_built_over(tmp_path, capsys):
    path = tmp_path / f"awele-{SEEDS}-awari"
    path.mkdir()
    (path / "layer-00.values").write_bytes(b"mine")
    before = snapshot(tmp_path)
    for resume in ([], ["--resume"]):
        err = cli_error(["build", "awele", "--seeds", "0-5", "--dir", str(tmp_path),
                         "--quiet", *resume], capsys)
        assert f"{path} holds files but no manifest.json" in err
    assert snapshot(tmp_path) == before


def test_the_table_directory_itself_is_accepted_for_its_own_rules(root, tmp_path, capsys):
    path = copy_table(root, tmp_path)
    before = snapshot(tmp_path)
    err = cli_error(["build", "awele", "--seeds", "0-5", "--dir", str(path), "--quiet"], capsys)
    assert f"{path} already holds a table; use --resume" in err
    assert main(["tablebase", "build", "awele", "--seeds", "0-5", "--dir", str(path),
                 "--resume", "--quiet"]) == 0
    assert snapshot(tmp_path).keys() == before.keys()  # nothing nested in it


@pytest.mark.parametrize(("argv", "message"), [
    (["--rules", "awele", "--dir", "{root}/awele-5-awari"],
     "awele-5-awari holds a table for awele awari, not for awele awele"),
    (["--rules", "awari", "--dir", "{root}/awele-5-awele"],
     "awele-5-awele holds a table for awele awele, not for awele awari"),
    (["--rules", "oware", "--dir", "{root}"], "no Awele tables for rules 'oware'"),
    (["--rules", "abapa", "--dir", "{root}"], "no Awele tables for rules 'abapa'"),
    (["--dir", "{root}/ataxx-2x3-ataxx"], "holds a table for ataxx ataxx, not for awele awari"),
    (["--rules", "awele", "--dir", "{root}/nothing"], "no Awele table for rules awele in"),
])
def test_probing_with_rules_that_do_not_match_is_refused(root, capsys, argv, message):
    before = snapshot(root)
    argv = [a.replace("{root}", str(root)) for a in argv]
    assert message in cli_error(["probe", "awele", POSITION, *argv], capsys)
    assert snapshot(root) == before


def test_an_ataxx_probe_of_an_awele_table_is_refused(root, capsys):
    err = cli_error(["probe", "ataxx", "x1/2/1o x", "--dir", str(root / "awele-5-awari")],
                    capsys)
    assert "awele-5-awari holds a table for" in err and "game awele" in err
    assert "not for" in err and "game ataxx" in err


def test_an_unfinished_table_is_not_probed(root, tmp_path, capsys):
    path = copy_table(root, tmp_path)
    rewrite_manifest(path, lambda m: m.update(complete=False))
    err = cli_error(["probe", "awele", POSITION, "--dir", str(path)], capsys)
    assert "holds an unfinished build; finish it with --resume" in err
    assert TableProbe.open("awari", tmp_path) is None
