"""Zobrist keys of Awele positions, shared by the board and the numba kernels.

``ZOBRIST_PITS[pit, seeds]`` for the 12 pits and 0-48 seeds, and ``ZOBRIST_SIDE``
for North to move. Fixed by a seed, so a key means the same in every process.
"""

from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(0x4157454C45)
ZOBRIST_PITS = _rng.integers(0, 2**63 - 1, size=(12, 49), dtype=np.int64).astype(np.uint64)
ZOBRIST_SIDE = np.uint64(_rng.integers(0, 2**63 - 1, dtype=np.int64))
