"""2-bit WIN/LOSS/DRAW tables compressed by run-length encoding, in blocks with an index.

A layer's WDL codes (:mod:`gameclub.tablebase.values`) are cut into blocks of
``block`` positions. Each block is stored as runs, "the value followed by the
length of the run": one byte ``code << 6 | more << 5 | (length - 1) & 31``, and
while ``more`` is set, further bytes of 7 bits of ``(length - 1) >> 5`` (low
first, bit 7 set while more follow). A block whose runs would take more room than
its plain 2-bit packing (4 positions a byte) is stored packed instead. The index
holds one ``uint64`` per block and one at the end: the block's offset in the data,
with the top bit set for a packed block. One probe reads one index entry and
decodes at most one block.

File layout (little-endian): the magic ``GCWDL1\\0\\0``, positions (``u8``),
block (``u4``), number of blocks (``u4``), the index, then the data.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAGIC = b"GCWDL1\0\0"
DEFAULT_BLOCK = 4096
_PACKED = np.uint64(1) << np.uint64(63)
_HEADER = 8 + 8 + 4 + 4


@njit(cache=True)
def _encode_block(codes, start, stop, out, at):
    """Runs of ``codes[start:stop]`` written at ``out[at:]``; the new end."""
    i = start
    while i < stop:
        code = codes[i]
        j = i + 1
        while j < stop and codes[j] == code:
            j += 1
        rest = j - i - 1
        first = (np.int64(code) << 6) | (rest & 31)
        rest >>= 5
        if rest:
            first |= 32
        out[at] = first
        at += 1
        while rest:
            byte = rest & 127
            rest >>= 7
            if rest:
                byte |= 128
            out[at] = byte
            at += 1
        i = j
    return at


@njit(cache=True)
def _pack_block(codes, start, stop, out, at):
    for i in range(start, stop):
        k = i - start
        if k & 3 == 0:
            out[at + (k >> 2)] = 0
        out[at + (k >> 2)] |= codes[i] << (2 * (k & 3))
    return at + ((stop - start + 3) >> 2)


@njit(cache=True)
def compress(codes, block):
    """``(index, data)`` of the WDL ``codes`` (see the module docstring)."""
    n = codes.size
    blocks = (n + block - 1) // block
    index = np.empty(blocks + 1, dtype=np.uint64)
    # A block never takes more than its packed size (runs longer than that fall back
    # to the packed form), so the data fit in a quarter byte a position and a byte
    # a block.
    data = np.empty(n // 4 + blocks + 16, dtype=np.uint8)
    scratch = np.empty(block + 16, dtype=np.uint8)
    at = 0
    for b in range(blocks):
        start = b * block
        stop = min(n, start + block)
        runs_end = _encode_block(codes, start, stop, scratch, 0)
        packed_size = (stop - start + 3) >> 2
        if runs_end <= packed_size:
            index[b] = np.uint64(at)
            data[at:at + runs_end] = scratch[:runs_end]
            at += runs_end
        else:
            index[b] = np.uint64(at) | _PACKED
            at = _pack_block(codes, start, stop, data, at)
    index[blocks] = np.uint64(at)
    return index, data[:at].copy()


@njit(cache=True)
def code_at(index, data, block, position):
    """The WDL code of ``position``, decoding only its block."""
    b = position // block
    entry = index[b]
    k = position - b * block
    if entry & _PACKED:
        at = np.int64(entry & ~_PACKED)
        return (data[at + (k >> 2)] >> (2 * (k & 3))) & 3
    at = np.int64(entry)
    seen = 0
    while True:
        first = np.int64(data[at])
        at += 1
        rest = first & 31
        if first & 32:
            shift = 5
            while True:
                byte = np.int64(data[at])
                at += 1
                rest |= (byte & 127) << shift
                shift += 7
                if not byte & 128:
                    break
        seen += rest + 1
        if k < seen:
            return first >> 6


@njit(cache=True)
def decompress(index, data, block, n):
    """Every code of the table (the inverse of :func:`compress`)."""
    out = np.empty(n, dtype=np.uint8)
    for p in range(n):
        out[p] = code_at(index, data, block, p)
    return out


def to_bytes(codes: np.ndarray, block: int = DEFAULT_BLOCK) -> bytes:
    """The ``.wdl`` file of these codes."""
    index, data = compress(np.ascontiguousarray(codes, dtype=np.uint8), block)
    header = MAGIC + np.array([codes.size], "<u8").tobytes() + np.array(
        [block, index.size - 1], "<u4").tobytes()
    return header + index.astype("<u8").tobytes() + data.tobytes()


class WdlFile:
    """A ``.wdl`` file opened for probing (memory-mapped: only the blocks read are loaded)."""

    def __init__(self, raw: np.ndarray, name: str) -> None:
        if raw.size < _HEADER or bytes(raw[:8]) != MAGIC:
            raise ValueError(f"{name} is not a WDL table file")
        self.positions = int(raw[8:16].view("<u8")[0])
        self.block, blocks = (int(x) for x in raw[16:24].view("<u4"))
        end = _HEADER + 8 * (blocks + 1)
        if raw.size < end:
            raise ValueError(f"{name} is cut short")
        self.index = raw[_HEADER:end].view("<u8")
        self.data = raw[end:]
        if int(self.index[-1]) != self.data.size:
            raise ValueError(f"{name} is cut short or has bytes beyond its data")

    def code(self, position: int) -> int:
        return int(code_at(self.index, self.data, self.block, position))

    def codes(self) -> np.ndarray:
        return decompress(self.index, self.data, self.block, self.positions)
