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
from gameclub.tablebase.storage import BUILD_LOG, TableDir, TableError

# A local cluster's processes and the 12-seed reference take about a minute of CPU; on
# a loaded shared machine the wall clock can be several times that.
pytestmark = pytest.mark.timeout(900)


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


@pytest.fixture(scope="module")
def single_12(tmp_path_factory: pytest.TempPathFactory) -> TableDir:
    """The single-process awari table of 0 to 12 seeds, built once for the tests here."""
    return build(AweleTables(12, "awari"), tmp_path_factory.mktemp("single-12"))


def _built_both_ways(cluster: DaskLayers, tmp: Path, seeds: int, rules: str,
                     single: TableDir | None = None) -> None:
    single = single or build(AweleTables(seeds, rules), tmp / "single")
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


def test_layers_0_to_12_through_two_workers_are_the_single_process_ones(cluster, tmp_path,
                                                                        single_12):
    _built_both_ways(cluster, tmp_path, 12, "awari", single_12)
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


def test_small_chunks_give_the_same_layer(cluster, single_12):
    """Chunks that start anywhere in a layer (here 1 000 positions, not a multiple of the
    kernel's blocks) give the cells of the whole layer at once."""
    from gameclub.tablebase.awele import exits_pass

    table = single_12
    game = AweleTables(12, "awari")
    small = DaskLayers(cluster.client, chunk=1000)
    cells = small.awele_cells(game, table.path, 7)
    whole = exits_pass(7, game.binom, game.flags, game.odd_seed,
                       game.lower_list(7, lambda k: table.values(k)))
    assert small.stats[7]["chunks"] == -(-game.layer_size(7) // 1000)
    assert (cells == whole).all()


def test_a_worker_that_cannot_see_the_table_is_named(cluster, tmp_path):
    with pytest.raises(TableError, match="every worker must see the build directory"):
        cluster.awele_cells(AweleTables(3), tmp_path / "nowhere", 3)


def test_the_command_line_builds_on_a_running_cluster(cluster, tmp_path, single_12):
    """``--scheduler`` with the address of the cluster the other tests use (``--workers``
    starts one the same way as that cluster was started). A layer's files do not depend
    on the table's last layer: those of 0 to 5 seeds are the 12-seed table's."""
    assert main(["tablebase", "build", "awele", "--rules", "awari", "--seeds", "0-5",
                 "--quiet", "--dir", str(tmp_path), "--scheduler",
                 cluster.client.scheduler.address, "--chunk", "1000"]) == 0
    built = _files(tmp_path / "awele-5-awari")
    reference = _files(single_12.path)
    layer_files = [name for name in built if name.startswith("layer-")]
    assert len(layer_files) == 18
    for name in layer_files:
        assert built[name] == reference[name], name
    log = json.loads((tmp_path / "awele-5-awari" / BUILD_LOG).read_text())
    assert log["layers"]["5"]["cluster"]["chunks"] == 5


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
