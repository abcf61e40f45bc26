"""Building a table layer by layer, from the bottom up, with progress and resumption.

A game plugs in by offering a :class:`LayeredGame`: its table name and rules
(``params``), its layers in build order, their sizes, and ``solve_layer``, which
gets the finished lower layers and returns the values of one layer (most games
compute the moves that leave the layer and hand the rest to
:mod:`gameclub.tablebase.retro`). Everything else is shared: the files, the
checksums, the progress bar and ``resume``. A game that also offers
``solve_layer_on(cluster, path, layer, lower, method)`` can have each layer's work
run on a Dask cluster (:mod:`gameclub.tablebase.distributed`), with the same files.

A killed build resumes from its last finished layer: the layers in the manifest
are verified and kept, the next one is built again from scratch. The build is
deterministic, so the files are byte for byte those of an uninterrupted build.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

import numpy as np

from gameclub.tablebase.rle import DEFAULT_BLOCK, to_bytes
from gameclub.tablebase.storage import BUILD_LOG, MANIFEST, TableDir, TableError, write_atomic

if TYPE_CHECKING:
    from gameclub.tablebase.distributed import DaskLayers

#: the two ways of resolving a layer's cycles (see :mod:`gameclub.tablebase.retro`).
METHODS = ("propagate", "iterate")


class LayeredGame(Protocol):
    """What a game offers the builder."""

    #: the game's name on the command line (``ataxx``, ``awele``).
    game: str
    #: the table's directory name, e.g. ``ataxx-4x4-ataxx``.
    name: str

    @property
    def params(self) -> dict[str, Any]:
        """Everything the values depend on, as JSON: the manifest keeps it."""
        ...

    def layers(self) -> Sequence[int]:
        """The layers in build order: each only needs layers before it."""
        ...

    def layer_size(self, layer: int) -> int: ...

    def solve_layer(self, layer: int, lower: Callable[[int], np.ndarray],
                    method: str) -> np.ndarray | tuple[np.ndarray, ...] | tuple[Any, ...]:
        """The values (``int8``) of ``layer``; ``lower(k)`` gives a finished layer. A game
        that keeps distances returns ``(values, distances)`` (``uint8``), and may add a
        dict of figures about the layer for the manifest: ``(values, distances, notes)``."""
        ...

    def wdl_codes(self, values: np.ndarray) -> np.ndarray:
        """The 2-bit WIN/LOSS/DRAW code of each value (gameclub.tablebase.values)."""
        ...


def _peak_rss_mb() -> int:
    """The process's peak resident memory so far, in MB (Linux reports kB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@dataclass
class Progress:
    """Where a build stands, after each layer."""

    layer: int
    done_layers: int
    total_layers: int
    done_positions: int
    total_positions: int
    seconds: float
    layer_seconds: float
    #: positions built by this run (a resumed build counts only its own).
    built_positions: int

    @property
    def rate(self) -> float:
        return self.built_positions / self.seconds if self.seconds > 0 else 0.0

    @property
    def seconds_left(self) -> float:
        rate = self.rate
        return (self.total_positions - self.done_positions) / rate if rate > 0 else 0.0

    def line(self) -> str:
        width = 24
        filled = int(width * self.done_positions / max(1, self.total_positions))
        return (f"[{'#' * filled}{'.' * (width - filled)}] layer {self.layer} "
                f"({self.done_layers}/{self.total_layers}) "
                f"{self.done_positions:,}/{self.total_positions:,} positions, "
                f"{self.rate / 1e6:.2f} M/s, {self.seconds_left:.0f} s left")


def progress_bar(stream: TextIO = sys.stderr) -> Callable[[Progress], None]:
    """A progress callback that redraws one line on a terminal, or prints a line per layer."""
    tty = stream.isatty()

    def show(progress: Progress) -> None:
        end = "\n" if not tty or progress.done_layers == progress.total_layers else ""
        stream.write(("\r" if tty else "") + progress.line() + end)
        stream.flush()

    return show


def _table_path(root: Path, name: str, params: dict[str, Any]) -> Path:
    """Where ``build`` writes: ``root / name``, or ``root`` itself when it is already
    that table's directory (as ``probe --dir`` and ``info`` accept). A ``root`` that is
    the directory of another table is refused: the new table would be nested in it."""
    if not (root / MANIFEST).exists():
        return root / name
    try:
        TableDir.open(root, params)
    except TableError as exc:
        raise TableError(f"{exc}; --dir names a table's own directory: give the directory "
                         f"that holds the tables ({root.parent})") from None
    return root


def build(game: LayeredGame, root: Path, *, resume: bool = False, method: str | None = None,
          block: int = DEFAULT_BLOCK,
          progress: Callable[[Progress], None] | None = None,
          cluster: DaskLayers | None = None) -> TableDir:
    """Build ``game``'s table in ``root / game.name``; return it opened.

    Without ``resume`` the directory must not hold a table yet; with it, a table of
    the same ``params`` is continued (or started when there is none). ``method``
    defaults to the game's ``default_method``, else ``propagate``. With ``cluster``, each
    layer's chunk tasks run on that Dask cluster (the game must offer
    ``solve_layer_on``); the files are the same.
    """
    method = method or getattr(game, "default_method", "propagate")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if cluster is not None:
        if not hasattr(game, "solve_layer_on"):
            raise ValueError(f"{game.game} tables are built in one process only "
                             "(no distributed build for them)")
        if method != "propagate":
            raise ValueError(f"a distributed build resolves the layers by propagate, "
                             f"not {method}")
    params = game.params
    path = _table_path(root, game.name, params)
    if (path / MANIFEST).exists():
        if not resume:
            raise TableError(f"{path} already holds a table; use --resume to continue it "
                             "or choose another directory")
        table = TableDir.open(path, params)
        table.verify()
        # Files a killed build was writing: never recorded, so never trusted.
        for stale in path.glob("*.tmp"):
            stale.unlink()
    else:
        # Files without a manifest are not a table this build wrote (it writes the
        # manifest before any layer; a killed write leaves only a *.tmp): never
        # overwrite them.
        if path.is_dir() and any(not p.name.endswith(".tmp") for p in path.iterdir()):
            raise TableError(f"{path} holds files but no {MANIFEST}: it is not a table to "
                             "build or resume; remove it or choose another directory")
        table = TableDir.create(path, game.game, params)
    log_path = path / BUILD_LOG
    log: dict[str, Any] = {"method": method, "layers": {}}
    if resume and log_path.is_file():
        try:
            log["layers"] = json.loads(log_path.read_text()).get("layers", {})
        except ValueError:
            log["layers"] = {}
    order = list(game.layers())
    sizes = {layer: game.layer_size(layer) for layer in order}
    finished = table.layers

    def lower(layer: int) -> np.ndarray:
        if layer not in table.layers:
            raise TableError(f"layer {layer} is needed before it is built")
        return np.asarray(table.values(layer))

    started = time.perf_counter()
    done_positions = sum(sizes[layer] for layer in order if layer in finished)
    built_positions = 0
    total = sum(sizes.values())
    for count, layer in enumerate(order, start=1):
        if layer in finished:
            continue
        layer_started = time.perf_counter()
        cpu_started = time.process_time()
        if cluster is None:
            solved = game.solve_layer(layer, lower, method)
        else:
            solved = game.solve_layer_on(cluster, path, layer, lower,  # type: ignore[attr-defined]
                                         method)
        notes: dict[str, Any] = {}
        if isinstance(solved, tuple):
            values, distance = solved[0], solved[1]
            if len(solved) > 2:
                notes = dict(solved[2])
        else:
            values, distance = solved, None
        if values.shape != (sizes[layer],) or values.dtype != np.int8:
            raise RuntimeError(f"layer {layer}: the game returned {values.shape} "
                               f"{values.dtype}, not ({sizes[layer]},) int8")
        table.add_layer(layer, values, to_bytes(game.wdl_codes(values), block), distance, notes)
        # Lower layers are read back memory-mapped: the page cache holds them once,
        # instead of a copy in this process as well.
        del solved, values, distance
        layer_seconds = time.perf_counter() - layer_started
        done_positions += sizes[layer]
        built_positions += sizes[layer]
        # CPU seconds (every thread) beside the wall-clock ones: on a shared machine the
        # wall clock mostly measures the other work.
        log["layers"][str(layer)] = {"seconds": round(layer_seconds, 3),
                                     "cpu_seconds": round(time.process_time() - cpu_started, 3),
                                     "peak_rss_mb": _peak_rss_mb(),
                                     "positions": sizes[layer]}
        if cluster is not None and layer in cluster.stats:
            # The workers' CPU time is not this process's: keep it beside.
            log["layers"][str(layer)]["cluster"] = cluster.stats[layer]
        write_atomic(log_path, (json.dumps(log, indent=1, sort_keys=True) + "\n").encode())
        if progress is not None:
            progress(Progress(layer, count, len(order), done_positions, total,
                              time.perf_counter() - started, layer_seconds, built_positions))
    table.manifest["complete"] = True
    table.save_manifest()
    return table
