"""A table on disk: one directory, a manifest, and two or three files per layer, each
with a checksum.

``manifest.json`` names the game and its rules (``params``), and for every finished
layer its number of positions and its files with their sizes and SHA-256:
``layer-NN.values`` (one signed byte per position, the exact value, memory-mapped
for probing), ``layer-NN.wdl`` (the 2-bit WIN/LOSS/DRAW codes compressed by
:mod:`gameclub.tablebase.rle`) and, for games that keep them, ``layer-NN.distance``
(one unsigned byte per position: plies to the move that leaves the layer). Every
file is written under a temporary name and renamed when complete, and the manifest
is rewritten after each layer, so a build that is killed leaves only finished
layers behind. Build times go to ``build-log.json``, apart, so that a resumed build
and an uninterrupted one write the same bytes in every other file.

A layer's checksum is verified the first time it is read; a missing, cut or
corrupted file, or a manifest for other rules than asked, raises
:class:`TableError` naming the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from gameclub.tablebase.rle import WdlFile

FORMAT = "gameclub-tablebase/1"
MANIFEST = "manifest.json"
BUILD_LOG = "build-log.json"
DEFAULT_ROOT_ENV = "GAMECLUB_TABLEBASES"


class TableError(ValueError):
    """A table that cannot be used: missing, corrupted, or built for something else."""


def default_root() -> Path:
    """Where tables live unless a directory is given: ``$GAMECLUB_TABLEBASES``, else
    ``$XDG_DATA_HOME/gameclub/tablebases`` (``~/.local/share/gameclub/tablebases``)."""
    if os.environ.get(DEFAULT_ROOT_ENV):
        return Path(os.environ[DEFAULT_ROOT_ENV])
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "gameclub" / "tablebases"


def sha256_of(data: bytes | np.ndarray) -> str:
    if isinstance(data, np.ndarray):
        return hashlib.sha256(np.ascontiguousarray(data).view(np.uint8).data).hexdigest()
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes | np.ndarray) -> None:
    """Write ``data`` to ``path`` so that ``path`` is either absent, old, or complete."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.data.cast("B"))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _write_file(path: Path, data: bytes | np.ndarray) -> dict[str, Any]:
    """Write one layer file atomically; its manifest entry (name, size, SHA-256)."""
    write_atomic(path, data)
    size = len(data) if isinstance(data, bytes) else int(data.nbytes)
    return {"file": path.name, "bytes": size, "sha256": sha256_of(data)}


def layer_name(layer: int) -> str:
    return f"layer-{layer:02d}"


class TableDir:
    """A table's directory: its manifest and its layers, opened for reading or building."""

    def __init__(self, path: Path, manifest: dict[str, Any]) -> None:
        self.path = path
        self.manifest = manifest
        self._values: dict[int, np.ndarray] = {}
        self._wdl: dict[int, WdlFile] = {}
        self._distance: dict[int, np.ndarray] = {}

    # -- opening ------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, params: dict[str, Any] | None = None) -> TableDir:
        """Open the table at ``path``; with ``params``, check that it was built for them."""
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            raise TableError(f"no table in {path}: {MANIFEST} is missing")
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError) as exc:
            raise TableError(f"{manifest_path} is unreadable: {exc}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise TableError(f"{manifest_path} is not a {FORMAT} manifest")
        problem = _manifest_problem(manifest)
        if problem:
            raise TableError(f"{manifest_path} is damaged: {problem}")
        found: dict[str, Any] = manifest["params"]
        if params is not None and found != params and "index" in params \
                and {k: v for k, v in found.items() if k != "index"} \
                == {k: v for k, v in params.items() if k != "index"}:
            # The same game and rules under another index: its slots mean other
            # positions, so it is never read, only built again.
            raise TableError(
                f"{path} holds a table of an earlier index ({found.get('index')!r}); this "
                f"version reads {params['index']!r}: remove the directory and build the "
                "table again")
        if params is not None and found != params:
            raise TableError(
                f"{path} holds a table for {describe_params(manifest.get('params'))}, "
                f"not for {describe_params(params)}"
            )
        return cls(path, manifest)

    @classmethod
    def create(cls, path: Path, game: str, params: dict[str, Any]) -> TableDir:
        path.mkdir(parents=True, exist_ok=True)
        table = cls(path, {"format": FORMAT, "game": game, "params": params,
                           "complete": False, "layers": []})
        table.save_manifest()
        return table

    def save_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=1, sort_keys=True) + "\n"
        write_atomic(self.path / MANIFEST, text.encode())

    # -- layers ---------------------------------------------------------------------

    @property
    def layers(self) -> dict[int, dict[str, Any]]:
        return {int(entry["layer"]): entry for entry in self.manifest["layers"]}

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    def add_layer(self, layer: int, values: np.ndarray, wdl: bytes,
                  distance: np.ndarray | None = None,
                  notes: dict[str, Any] | None = None) -> None:
        """Write a finished layer's files, then record it in the manifest (with the
        game's ``notes`` about the layer, figures such as its longest distance)."""
        name = layer_name(layer)
        raw = np.ascontiguousarray(values, dtype=np.int8)
        entry: dict[str, Any] = {
            "layer": layer,
            "positions": int(values.size),
            "values": _write_file(self.path / f"{name}.values", raw),
            "wdl": _write_file(self.path / f"{name}.wdl", wdl),
        }
        if distance is not None:
            if distance.shape != values.shape:
                raise ValueError(f"layer {layer}: {distance.size} distances for "
                                 f"{values.size} values")
            entry["distance"] = _write_file(self.path / f"{name}.distance",
                                            np.ascontiguousarray(distance, dtype=np.uint8))
        for key, value in (notes or {}).items():
            entry.setdefault(key, value)
        self.manifest["layers"].append(entry)
        self.manifest["layers"].sort(key=lambda entry: entry["layer"])
        self.save_manifest()

    def _mapped(self, layer: int, kind: str) -> np.ndarray:
        entry = self.layers.get(layer)
        if entry is None:
            raise TableError(f"{self.path} has no layer {layer}")
        spec = entry[kind]
        file = self.path / spec["file"]
        if not file.is_file():
            raise TableError(f"{file} is missing")
        if file.stat().st_size != spec["bytes"]:
            raise TableError(f"{file} has {file.stat().st_size} bytes, "
                             f"the manifest says {spec['bytes']}: the file is damaged")
        mapped = np.memmap(file, dtype=np.uint8, mode="r") if spec["bytes"] else np.zeros(
            0, np.uint8)
        if sha256_of(mapped) != spec["sha256"]:
            raise TableError(f"{file} fails its checksum: the file is corrupted")
        return mapped

    def values(self, layer: int) -> np.ndarray:
        """The exact values of ``layer`` (memory-mapped, checksum verified on first use)."""
        if layer not in self._values:
            self._values[layer] = self._mapped(layer, "values").view(np.int8)
        return self._values[layer]

    def has_distance(self, layer: int) -> bool:
        return "distance" in self.layers.get(layer, {})

    def distance(self, layer: int) -> np.ndarray:
        """The plies to the move that leaves ``layer`` with best play (see the game's
        module), memory-mapped; ``TableError`` if the table has none."""
        if layer not in self._distance:
            if layer in self.layers and not self.has_distance(layer):
                raise TableError(f"{self.path} has no distances for layer {layer}")
            self._distance[layer] = self._mapped(layer, "distance")
        return self._distance[layer]

    def wdl(self, layer: int) -> WdlFile:
        """The compressed WDL table of ``layer`` (checksum verified on first use)."""
        if layer not in self._wdl:
            name = str(self.path / layer_name(layer)) + ".wdl"
            try:
                self._wdl[layer] = WdlFile(self._mapped(layer, "wdl"), name)
            except TableError:
                raise
            except ValueError as exc:
                raise TableError(str(exc)) from None
        return self._wdl[layer]

    def verify(self) -> None:
        """Check every file of every layer against the manifest."""
        for layer, entry in self.layers.items():
            self._mapped(layer, "values")
            self._mapped(layer, "wdl")
            if "distance" in entry:
                self._mapped(layer, "distance")


def _manifest_problem(manifest: dict[str, Any]) -> str | None:
    """What is wrong with a parsed manifest's structure, or ``None``: a probe trusts its
    layer list, sizes and checksums, so a damaged one is refused as a whole."""
    if not isinstance(manifest.get("params"), dict):
        return "no params"
    layers = manifest.get("layers")
    if not isinstance(layers, list):
        return "no list of layers"
    seen = set()
    for entry in layers:
        if not isinstance(entry, dict) or type(entry.get("layer")) is not int \
                or type(entry.get("positions")) is not int or entry["positions"] < 0:
            return f"a layer entry without its number or positions: {entry!r:.80}"
        if entry["layer"] in seen:
            return f"layer {entry['layer']} is listed twice"
        seen.add(entry["layer"])
        for kind in ("values", "wdl", "distance"):
            if kind not in entry and kind == "distance":
                continue
            spec = entry.get(kind)
            if not isinstance(spec, dict) or not isinstance(spec.get("file"), str) \
                    or "/" in spec["file"] or type(spec.get("bytes")) is not int \
                    or not isinstance(spec.get("sha256"), str):
                return f"layer {entry['layer']} has no valid {kind} file entry"
    return None


def describe_params(params: Any) -> str:
    if not isinstance(params, dict):
        return "unknown rules"
    return ", ".join(f"{k} {v}" for k, v in sorted(params.items()))
