"""Exact small endgames for ``master``'s search: the margin of every position with
few seeds, from the exact solver, looked up at the search's nodes.

:func:`gameclub.awele.solver.margin_table` solves every position with at most
:data:`EXACT_SEEDS` seeds on the board (a byte each: 19 MB at 14 seeds, about
half a minute to build on a busy machine; 5.4 MB and a few seconds at 12).
The search scores a node with that few seeds, below the root, as its store
difference plus the table's margin, in the evaluation's unit, instead of
searching on: such endgames are played to their exact end
(under ``oware`` a repetition's "each takes his own row" is taken as an equal
share, the one approximation). A table is kept on disk once built
(``$GAMECLUB_CACHE_DIR``, else ``~/.cache/gameclub``): it is a deterministic
function of the rule set and the seed count, and a new process reads it in
milliseconds instead of solving it again.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from gameclub.awele.solver import margin_table

#: Seeds on the board at or below which the search looks the exact margin up.
EXACT_SEEDS = 14
#: Bumped whenever the table's meaning or layout changes, so old files are not read.
FORMAT = 1


def cache_dir() -> Path:
    """Where the tables are kept between processes."""
    configured = os.environ.get("GAMECLUB_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "gameclub"


def _path(flags: int, seeds: int) -> Path:
    return cache_dir() / f"awele-margins-v{FORMAT}-flags{flags}-{seeds}.npz"


#: Tables already in this process, so that an engine made per move (as the club's
#: workers make them) reads its file once, not once a move.
_LOADED: dict[tuple[Path, int, int], tuple[np.ndarray, np.ndarray]] = {}


def exact_table(flags: int, seeds: int = EXACT_SEEDS) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, values)`` of :func:`margin_table` for the rule set whose kernel flags
    are ``flags``: from this process's memory, else from disk, else solved and saved."""
    key = (cache_dir(), flags, seeds)
    if key not in _LOADED:
        _LOADED[key] = _read_or_solve(flags, seeds)
    return _LOADED[key]


def _read_or_solve(flags: int, seeds: int) -> tuple[np.ndarray, np.ndarray]:
    path = _path(flags, seeds)
    try:
        with np.load(path) as saved:
            offsets, values = saved["offsets"], saved["values"]
        if values.dtype == np.int8 and len(values) == 2 * int(offsets[-1]):
            return offsets, values
    except (OSError, KeyError, ValueError):
        pass  # absent or unreadable: solve it again
    offsets, values = margin_table(flags, seeds)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written aside and renamed, so that a process reading it never sees half a table.
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as out:
            np.savez(out, offsets=offsets, values=values)
        os.replace(out.name, path)
    except OSError:
        pass  # a read-only home only costs the next process the solve
    return offsets, values
