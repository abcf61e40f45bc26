"""Training positions for the network: the binary file format, written and read.

A file is a 16-byte header then fixed 32-byte records, all little-endian:

- header: magic ``b"GCAXPOS\\0"`` (8 bytes), format version (u32, now 1), record
  size in bytes (u32, 32);
- record: ``us`` (u64, pieces of the side to move, bit ``rank * 8 + file``),
  ``them`` (u64), ``playable`` (u64, the board less its blocks), ``score`` (i16,
  the search's score in centipawns for the side to move, clipped to
  ``+-SCORE_CLIP``), ``result`` (i8: +1 the side to move went on to win, 0 draw,
  -1 loss), ``flags`` (u8, ``FLAG_MATE``: the score is a proven win or loss or
  comes from the exact solver; ``FLAG_CHILD``: the position is off the game's path,
  after a move that was not played, and its result is the game's, not its own),
  ``ply`` (u16, plies played since the start position), two bytes of padding.

One file holds whole games (``scripts/nnue_selfplay.py`` writes one file per shard
of games, atomically), so a set of files is a data set and a missing file is
simply a shard still to play.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MAGIC = b"GCAXPOS\0"
VERSION = 1
HEADER_SIZE = 16
SCORE_CLIP = 3000
#: the score is a proven result (mate distance or the exact solver), not an estimate.
FLAG_MATE = 1
#: the position follows a move the game did not play (``nnue_selfplay.py --children``):
#: its score is its own search's, its result only the game's it branched from.
FLAG_CHILD = 2

RECORD = np.dtype([
    ("us", "<u8"),
    ("them", "<u8"),
    ("playable", "<u8"),
    ("score", "<i2"),
    ("result", "i1"),
    ("flags", "u1"),
    ("ply", "<u2"),
    ("pad", "<u2"),
])
assert RECORD.itemsize == 32


class PositionFileError(ValueError):
    """A positions file that is not in this format (wrong magic, version, size)."""


def write_positions(path: Path, records: np.ndarray) -> None:
    """Write ``records`` (dtype :data:`RECORD`) to ``path`` atomically (temp file, rename)."""
    if records.dtype != RECORD:
        raise TypeError(f"records must have dtype RECORD, not {records.dtype}")
    header = MAGIC + np.array([VERSION, RECORD.itemsize], dtype="<u4").tobytes()
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(records.tobytes())
    tmp.replace(path)


def read_positions(path: Path) -> np.ndarray:
    """The records of one file; :class:`PositionFileError` names what is wrong."""
    data = Path(path).read_bytes()
    if len(data) < HEADER_SIZE or data[:8] != MAGIC:
        raise PositionFileError(f"{path}: not a positions file (magic {data[:8]!r})")
    version, size = np.frombuffer(data[8:16], dtype="<u4")
    if version != VERSION or size != RECORD.itemsize:
        raise PositionFileError(
            f"{path}: format version {version} with {size}-byte records; "
            f"this reader knows version {VERSION} with {RECORD.itemsize}-byte records"
        )
    body = len(data) - HEADER_SIZE
    if body % RECORD.itemsize:
        raise PositionFileError(f"{path}: truncated ({body} bytes after the header "
                                f"is not a whole number of {RECORD.itemsize}-byte records)")
    return np.frombuffer(data, dtype=RECORD, offset=HEADER_SIZE).copy()


def read_many(paths: list[Path]) -> np.ndarray:
    """All records of several files, concatenated."""
    parts = [read_positions(p) for p in paths]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=RECORD)
