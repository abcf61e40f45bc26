"""The distributed build: Awele layers built through a local Dask cluster of two worker
processes are byte for byte those of the single-process build, a killed cluster build
resumes, and bad requests are named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gameclub.cli import main
from gameclub.tablebase.awele import AweleTables
from gameclub.tablebase.build import Progress, build
from gameclub.tablebase.distributed import DaskLayers
from gameclub.tablebase.storage import BUILD_LOG, TableError


class _Killed(Exception):
    pass


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.name != BUILD_LOG}


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskLayers]:
    with DaskLayers.connect(workers=2) as layers:
        yield layers


def _worker_layers(cluster: DaskLayers) -> dict[str, int]:
    """How many lower layers each worker process has mapped: a worker that ran no task
    has none."""
    from gameclub.tablebase import distributed

    def count() -> int:
        return len(distributed._mapped)

    return cluster.client.run(count)


def _built_both_ways(cluster: DaskLayers, tmp: Path, seeds: int, rules: str) -> None:
    single = build(AweleTables(seeds, rules), tmp / "single")
    spread = build(AweleTables(seeds, rules), tmp / "cluster", cluster=cluster)
    assert spread.complete
    files = _files(spread.path)
    assert set(files) == set(_files(single.path))
    for name, data in _files(single.path).items():
        assert files[name] == data, name
    log = json.loads((spread.path / BUILD_LOG).read_text())["layers"]
    # Every layer went through the cluster, the large ones as several tasks.
    assert all(log[str(k)]["cluster"]["chunks"] >= 1 for k in range(seeds + 1))
    assert log[str(seeds)]["cluster"]["chunks"] >= 4
    assert log[str(seeds)]["cluster"]["received_bytes"] == 2 * spread.layers[seeds]["positions"]


def test_layers_0_to_12_through_two_workers_are_the_single_process_ones(cluster, tmp_path):
    _built_both_ways(cluster, tmp_path, 12, "awari")
    mapped = _worker_layers(cluster)
    assert len(mapped) == 2
    assert all(n > 0 for n in mapped.values()), mapped


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_layers_0_to_16_through_two_workers_are_the_single_process_ones(cluster, tmp_path):
    _built_both_ways(cluster, tmp_path, 16, "awari")


def test_a_killed_cluster_build_resumes_to_the_same_files(cluster, tmp_path):
    whole = build(AweleTables(8, "awele"), tmp_path / "whole")

    def kill_after_six_layers(progress: Progress) -> None:
        if progress.done_layers == 6:
            raise _Killed

    with pytest.raises(_Killed):
        build(AweleTables(8, "awele"), tmp_path / "resumed", cluster=cluster,
              progress=kill_after_six_layers)
    path = tmp_path / "resumed" / "awele-8-awele"
    # a layer the killed build was writing when it died
    (path / "layer-06.values.tmp").write_bytes(b"\x01" * 100)
    resumed = build(AweleTables(8, "awele"), tmp_path / "resumed", resume=True,
                    cluster=cluster)
    assert _files(resumed.path) == _files(whole.path)
    log = json.loads((path / BUILD_LOG).read_text())["layers"]
    assert sorted(int(k) for k in log) == list(range(9))


def test_small_chunks_give_the_same_layer(cluster, tmp_path):
    """Chunks that start anywhere in a layer (here 1 000 positions, not a multiple of the
    kernel's blocks) give the cells of the whole layer at once."""
    from gameclub.tablebase.awele import exits_pass

    table = build(AweleTables(7, "awari"), tmp_path)
    game = AweleTables(7, "awari")
    small = DaskLayers(cluster.client, chunk=1000)
    cells = small.awele_cells(game, table.path, 7)
    whole = exits_pass(7, game.binom, game.flags, game.odd_seed,
                       game.lower_list(7, lambda k: table.values(k)))
    assert small.stats[7]["chunks"] == -(-game.layer_size(7) // 1000)
    assert (cells == whole).all()


def test_a_worker_that_cannot_see_the_table_is_named(cluster, tmp_path):
    with pytest.raises(TableError, match="every worker must see the build directory"):
        cluster.awele_cells(AweleTables(3), tmp_path / "nowhere", 3)


def test_the_command_line_builds_on_a_running_cluster(cluster, tmp_path):
    """``--scheduler`` with the address of the cluster the other tests use (``--workers``
    starts one the same way as that cluster was started)."""
    args = ["tablebase", "build", "awele", "--rules", "awari", "--seeds", "0-6", "--quiet"]
    assert main([*args, "--dir", str(tmp_path / "single")]) == 0
    assert main([*args, "--dir", str(tmp_path / "cluster"), "--scheduler",
                 cluster.client.scheduler.address, "--chunk", "5000"]) == 0
    assert _files(tmp_path / "cluster" / "awele-6-awari") == \
        _files(tmp_path / "single" / "awele-6-awari")
    log = json.loads((tmp_path / "cluster" / "awele-6-awari" / BUILD_LOG).read_text())
    assert log["layers"]["6"]["cluster"]["chunks"] == 3


@pytest.mark.parametrize(("extra", "message"), [
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not both"),
    (["--chunk", "1000"], "--chunk is for a distributed build"),
    (["--workers", "0"], "invalid number of workers 0"),
    (["--workers", "2", "--method", "iterate"], "by propagate, not iterate"),
])
def test_bad_cluster_requests_are_named_and_change_nothing(tmp_path, capsys, extra, message):
    args = ["tablebase", "build", "awele", "--seeds", "0-4", "--dir", str(tmp_path), "--quiet"]
    assert main([*args, *extra]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_ataxx_has_no_cluster_build(tmp_path, capsys):
    assert main(["tablebase", "build", "ataxx", "--size", "2x2", "--dir", str(tmp_path),
                 "--workers", "2"]) == 2
    assert "only Awele tables have a distributed build" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
