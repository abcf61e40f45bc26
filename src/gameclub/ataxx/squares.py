"""Squares, files, ranks and bitboard masks shared by every board size.

Every board, from 2x2 to 8x8, lives in the low bits of one 64-bit integer with a
fixed stride of 8: square ``rank * 8 + file``, rank 0 at the bottom (``a1``),
file 0 on the left. A fixed stride means that one set of neighbour tables serves
every board size: a table entry is intersected with the board's playable mask.

>>> parse_square("a1"), parse_square("g7"), square_name(54)
(0, 54, 'g7')
"""

from __future__ import annotations

STRIDE = 8
MAX_SIZE = 8
MIN_SIZE = 2
FILE_NAMES = "abcdefgh"

Square = int
Bitboard = int


def square(file: int, rank: int) -> Square:
    """The square at ``file`` (0 = a) and ``rank`` (0 = bottom)."""
    return rank * STRIDE + file


def square_file(sq: Square) -> int:
    return sq & 7


def square_rank(sq: Square) -> int:
    return sq >> 3


def square_name(sq: Square) -> str:
    return FILE_NAMES[sq & 7] + str((sq >> 3) + 1)


def parse_square(name: str) -> Square:
    """Parse ``a1``..``h8``; raise ``ValueError`` naming the bad text."""
    if (
        len(name) != 2
        or name[0] not in FILE_NAMES
        or name[1] not in "12345678"
    ):
        raise ValueError(f"invalid square {name!r}: expected a file a-h and a rank 1-8")
    return square(FILE_NAMES.index(name[0]), int(name[1]) - 1)


def board_mask(width: int, height: int) -> Bitboard:
    """All squares of a ``width`` x ``height`` board."""
    row = (1 << width) - 1
    mask = 0
    for rank in range(height):
        mask |= row << (rank * STRIDE)
    return mask


def iter_squares(bb: Bitboard):
    """Yield the squares of a bitboard, lowest first."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def chebyshev(a: Square, b: Square) -> int:
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def _ring(sq: Square, distance: int) -> Bitboard:
    f, r = sq & 7, sq >> 3
    bb = 0
    for df in range(-distance, distance + 1):
        for dr in range(-distance, distance + 1):
            if max(abs(df), abs(dr)) != distance:
                continue
            nf, nr = f + df, r + dr
            if 0 <= nf < MAX_SIZE and 0 <= nr < MAX_SIZE:
                bb |= 1 << square(nf, nr)
    return bb


#: ``SINGLES[sq]``: squares at Chebyshev distance 1 (clone destinations, flip ring).
SINGLES: tuple[Bitboard, ...] = tuple(_ring(sq, 1) for sq in range(64))
#: ``DOUBLES[sq]``: squares at Chebyshev distance exactly 2 (jump sources/destinations).
DOUBLES: tuple[Bitboard, ...] = tuple(_ring(sq, 2) for sq in range(64))

_NOT_FILE_A = 0xFEFEFEFEFEFEFEFE
_NOT_FILE_H = 0x7F7F7F7F7F7F7F7F
_ALL = (1 << 64) - 1


def expand(bb: Bitboard) -> Bitboard:
    """``bb`` and every square next to it (clipped to the 8x8 grid)."""
    east = (bb << 1) & _NOT_FILE_A
    west = (bb >> 1) & _NOT_FILE_H
    row = bb | east | west
    return (row | (row << 8) | (row >> 8)) & _ALL
