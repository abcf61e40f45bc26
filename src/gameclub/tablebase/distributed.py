"""Building a table's layers on a Dask cluster, beside the single-process build.

A layer's work splits in two. The **exits** (for every position, its best capture
valued from the finished lower layers, or its end, and its number of in-layer
moves) need the lower layers and nothing of the layer itself: they run here as
one Dask task per chunk of consecutive indices. Each task opens the table's
directory, which every worker sees at the same path (a shared file system),
memory-maps the finished lower layers it needs (checking their SHA-256 once per
worker process), and returns its chunk's cells: 2 bytes a position. The
**propagation** inside the layer needs only those cells and no lower layer: it
runs in the building process, on its threads, as in a single-process build. So
the only data that crosses the cluster is the finished lower layers (read by the
workers from the build directory) and the cells coming back; no task waits for
another, a failed task is simply run again, and the files are byte for byte those
of a single-process build (the same kernel computes every cell; the tests check
it).

``gameclub tablebase build awele ... --workers N`` starts a local cluster of ``N``
worker processes; ``--scheduler tcp://HOST:PORT`` uses a running one. Dask is an
optional dependency (``pip install 'gameclub[cluster]'``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gameclub.tablebase.storage import TableDir, TableError

if TYPE_CHECKING:
    from gameclub.tablebase.awele import AweleTables

#: the least positions a task takes (a task costs a few milliseconds of scheduling).
MIN_CHUNK = 1 << 16
#: tasks per worker thread and layer, so that a slow or lost worker delays little.
TASKS_PER_THREAD = 4
#: how long to wait for a scheduler that does not answer.
CONNECT_TIMEOUT = "20s"


def _dask() -> Any:
    try:
        import distributed
    except ImportError:
        raise ValueError("a distributed build needs Dask: pip install 'gameclub[cluster]' "
                         "(dask[distributed])") from None
    return distributed


class DaskLayers:
    """The layers' chunk tasks on a Dask cluster: a client, and the local cluster when
    this process started one. Use as a context manager (it closes what it opened)."""

    def __init__(self, client: Any, cluster: Any = None, chunk: int | None = None) -> None:
        if chunk is not None and chunk < 1:
            raise ValueError(f"invalid chunk of {chunk} positions: at least 1")
        self.client = client
        self.cluster = cluster
        self.chunk = chunk
        #: per layer: chunks, tasks' CPU seconds in all, cells bytes received, the largest
        #: resident memory of a worker process after a task (for the build log).
        self.stats: dict[int, dict[str, float]] = {}

    @classmethod
    def connect(cls, scheduler: str | None = None, workers: int | None = None,
                chunk: int | None = None) -> DaskLayers:
        """A client of the scheduler at ``scheduler`` (``tcp://host:port``), or of a local
        cluster of ``workers`` processes of one thread each."""
        if (scheduler is None) == (workers is None):
            raise ValueError("give either a scheduler address or a number of workers")
        distributed = _dask()
        if scheduler is not None:
            try:
                client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: "
                                 f"{exc}") from None
            return cls(client, None, chunk)
        if workers is None or workers < 1:
            raise ValueError(f"invalid number of workers {workers}: at least 1")
        # One thread a worker: the chunk kernel runs on the calling thread, and
        # processes keep one worker's memory maps and numba caches from another's. No
        # memory limit: the mapped lower layers count in a worker's resident memory but
        # are the page cache's, which the nanny would take for a leak. The dashboard
        # on a free port: 8787 may be another cluster's.
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, memory_limit=0,
                                           dashboard_address=":0")
        return cls(distributed.Client(cluster), cluster, chunk)

    def __enter__(self) -> DaskLayers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def threads(self) -> int:
        """The worker threads the cluster has now (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def chunks(self, size: int) -> list[tuple[int, int]]:
        """The layer's index ranges, one a task, in order."""
        chunk = self.chunk or max(MIN_CHUNK, -(-size // (TASKS_PER_THREAD * self.threads())))
        return [(start, min(size, start + chunk)) for start in range(0, size, chunk)]

    def awele_cells(self, game: AweleTables, path: Path, layer: int) -> np.ndarray:
        """The cells of Awele layer ``layer`` (see :func:`gameclub.tablebase.awele.exits_pass`),
        computed by the workers from the finished lower layers in ``path``."""
        distributed = _dask()
        size = game.layer_size(layer)
        cells = np.empty(size, dtype=np.uint16)
        ranges = self.chunks(size)
        where = str(path.resolve())
        futures = {
            self.client.submit(awele_exits_task, where, game.params, layer, start, stop,
                               pure=False): (start, stop)
            for start, stop in ranges
        }
        seconds = 0.0
        received = 0
        resident = 0
        # Each chunk is copied in as it arrives and then dropped by the workers.
        for future, (part, spent, rss) in distributed.as_completed(futures,
                                                                   with_results=True):
            start, stop = futures.pop(future)
            if part.shape != (stop - start,) or part.dtype != np.uint16:
                raise RuntimeError(f"layer {layer}: chunk {start}-{stop} came back as "
                                   f"{part.shape} {part.dtype}")
            cells[start:stop] = part
            seconds += spent
            received += part.nbytes
            resident = max(resident, rss)
        self.stats[layer] = {"chunks": len(ranges), "task_seconds": round(seconds, 3),
                             "received_bytes": received, "worker_rss_mb": resident}
        return cells


# -- on the workers -----------------------------------------------------------------

#: per worker process: (table path, layer) -> (SHA-256, the layer's mapped values).
_mapped: dict[tuple[str, int], tuple[str, np.ndarray]] = {}
_mapped_lock = threading.Lock()


def _lower_layers(path: str, params: dict[str, Any], layer: int) -> list[np.ndarray]:
    """The finished layers below ``layer`` of the table at ``path``, memory-mapped; each
    file's checksum is checked the first time this process maps it."""
    table = TableDir.open(Path(path), params)
    entries = table.layers
    below = []
    with _mapped_lock:
        for k in range(layer):
            if k not in entries:
                raise TableError(f"{path} has no layer {k} yet, which layer {layer} needs "
                                 f"(on worker {os.uname().nodename}: every worker must see "
                                 "the build directory at the same path)")
            digest = entries[k]["values"]["sha256"]
            known = _mapped.get((path, k))
            if known is None or known[0] != digest:
                known = (digest, np.asarray(table.values(k)))
                _mapped[(path, k)] = known
            below.append(known[1])
    return below


def awele_exits_task(path: str, params: dict[str, Any], layer: int, start: int,
                     stop: int) -> tuple[np.ndarray, float, int]:
    """One chunk's cells of Awele layer ``layer``, the task's CPU seconds and the worker
    process's resident memory in MB when it ends (the pages of the lower layers it has
    touched included): the task a distributed build runs on a worker."""
    import time

    import psutil  # a dependency of Dask's
    from numba.typed import List

    from gameclub.tablebase.awele import AweleTables, exits_range

    started = time.thread_time()
    try:
        table = Path(path)
        if not (table / "manifest.json").is_file():
            raise TableError(f"no table in {path} on worker {os.uname().nodename}: every "
                             "worker must see the build directory at the same path")
    except OSError as exc:
        raise TableError(f"{path} is unreadable on worker {os.uname().nodename}: {exc}") \
            from None
    game = AweleTables(int(params["seeds"]), str(params["rules"]))
    if game.params != params:
        raise TableError(f"the worker's rules differ from the build's: {game.params} "
                         f"against {params} (the same gameclub on every worker?)")
    below = List()
    for values in _lower_layers(path, params, layer):
        below.append(values)
    if not below:
        below.append(np.zeros(0, dtype=np.int8))
    cells = exits_range(np.int64(layer), game.binom, game.flags, game.odd_seed, below,
                        np.int64(start), np.int64(stop))
    # The current resident size, not ru_maxrss: a spawned worker inherits its parent's
    # high-water mark across exec.
    return cells, time.thread_time() - started, psutil.Process().memory_info().rss >> 20
