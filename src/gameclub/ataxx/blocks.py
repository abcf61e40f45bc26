"""Blocs-Config: the Pressibus (1997) code that names the blocks of a 7x7 Ataxx board.

Blocks on a standard board are symmetric under the left-right and the top-bottom
reflections and never stand in a corner, so the top-left quadrant without its
corner (15 cells) says where every block is. Each cell has a one-character name;
a code lists the blocked cells in the canonical order ``123456abcdefghx``, and
``0`` is the board without blocks. The quadrant, row by row from the top of the
board (rank 7), files a..d::

    (corner) d e 4      a7 b7 c7 d7
    a        g f 5      a6 b6 c6 d6
    b        c h 6      a5 b5 c5 d5
    1        2 3 x      a4 b4 c4 d4

A letter names 4 blocks, a digit 2 (it lies on a mirror axis) and ``x`` one
(the centre d4). The *twin* of a code is its reflection in the diagonal; of two
twins the *preferred* one is the one with the higher *weight* (see
``docs/blocs-config.md`` for why "higher" although the source text says "lower").

>>> cfg = BlocsConfig.parse("xhg3")
>>> cfg.code, cfg.block_count, cfg.twin().code, cfg.preferred().code
('3ghx', 11, '6ghx', '3ghx')
>>> BlocsConfig.from_squares(cfg.squares()) == cfg
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable
from dataclasses import dataclass

from gameclub.ataxx.errors import InvalidBlocksError
from gameclub.ataxx.squares import (
    DOUBLES,
    SINGLES,
    Bitboard,
    Square,
    board_mask,
    iter_squares,
    square,
    square_file,
    square_name,
    square_rank,
)

__all__ = [
    "BOARD_SIZE",
    "CELL_SQUARES",
    "CODE_ORDER",
    "EMPTY_CODE",
    "MAX_BLOCKS",
    "TWIN",
    "BlocsConfig",
    "preferred_configs",
    "random_valid",
]

#: Canonical order of the 15 cell names in a code.
CODE_ORDER = "123456abcdefghx"
#: The code of the board without blocks.
EMPTY_CODE = "0"
#: Blocs-Config describes 7x7 boards only.
BOARD_SIZE = 7
#: At most 24 blocks: fewer than half of the 49 squares (rules, "complementary elements").
MAX_BLOCKS = 24

#: Cells that count for the weight, in the order used to break ties: 1, 2, 3, a, b, c.
_HEAVY = "123abc"

#: Position of each cell in the top-left quadrant: (row from the top, column from the left).
_QUADRANT: dict[str, tuple[int, int]] = {
    "d": (0, 1), "e": (0, 2), "4": (0, 3),
    "a": (1, 0), "g": (1, 1), "f": (1, 2), "5": (1, 3),
    "b": (2, 0), "c": (2, 1), "h": (2, 2), "6": (2, 3),
    "1": (3, 0), "2": (3, 1), "3": (3, 2), "x": (3, 3),
}  # fmt: skip

#: The twin of each cell: the reflection of the quadrant in its diagonal.
TWIN: dict[str, str] = {
    "1": "4", "2": "5", "3": "6", "4": "1", "5": "2", "6": "3",
    "a": "d", "b": "e", "c": "f", "d": "a", "e": "b", "f": "c",
    "g": "g", "h": "h", "x": "x",
}  # fmt: skip

_LAST = BOARD_SIZE - 1
_BOARD: Bitboard = board_mask(BOARD_SIZE, BOARD_SIZE)
_CORNERS: tuple[Square, ...] = (
    square(0, 0),
    square(_LAST, 0),
    square(0, _LAST),
    square(_LAST, _LAST),
)
_CORNER_MASK: Bitboard = sum(1 << sq for sq in _CORNERS)


def _orbit(sq: Square) -> tuple[Square, ...]:
    """``sq`` and its images under the two reflections, without repeats, lowest first."""
    f, r = square_file(sq), square_rank(sq)
    images = {square(file, rank) for file in (f, _LAST - f) for rank in (r, _LAST - r)}
    return tuple(sorted(images))


def _cell_square(cell: str) -> Square:
    row, col = _QUADRANT[cell]
    return square(col, _LAST - row)


#: The squares each cell name stands for (4, 2 or 1 of them), lowest first.
CELL_SQUARES: dict[str, tuple[Square, ...]] = {
    cell: _orbit(_cell_square(cell)) for cell in CODE_ORDER
}
_CELL_MASK: dict[str, Bitboard] = {
    cell: sum(1 << sq for sq in sqs) for cell, sqs in CELL_SQUARES.items()
}
#: The cell that names each square of the board (corners excluded).
_SQUARE_CELL: dict[Square, str] = {sq: cell for cell, sqs in CELL_SQUARES.items() for sq in sqs}


def _describe(text: str) -> str:
    return f"Blocs-Config {text!r}"


@dataclass(frozen=True)
class BlocsConfig:
    """A set of blocked code cells; its :attr:`code` is the Blocs-Config text.

    Build one with :meth:`parse` or :meth:`from_squares`; ``BlocsConfig(cells)``
    also works with any iterable of cell names.

    >>> BlocsConfig.parse("bch").twin()
    BlocsConfig('efh')
    >>> BlocsConfig(frozenset("x")).block_count
    1
    """

    cells: frozenset[str]

    def __post_init__(self) -> None:
        cells = self.cells
        if not isinstance(cells, frozenset):
            cells = frozenset(cells)
            object.__setattr__(self, "cells", cells)
        for cell in cells:
            if not isinstance(cell, str) or cell not in _QUADRANT:
                raise InvalidBlocksError(
                    f"unknown Blocs-Config cell {cell!r}: expected one of {CODE_ORDER!r}"
                )

    # ------------------------------------------------------------------ text
    @classmethod
    def parse(cls, text: str) -> BlocsConfig:
        """Read a code; characters in any order, ``0`` alone for no blocks.

        Raises :class:`InvalidBlocksError` naming the offending character and its
        1-based position: empty text, whitespace, upper case, unknown characters,
        duplicates, ``0`` together with other characters.

        >>> BlocsConfig.parse("hx3g").code
        '3ghx'
        >>> BlocsConfig.parse("0").block_count
        0
        """
        if not isinstance(text, str):
            raise TypeError(f"a Blocs-Config code is a str, not {type(text).__name__}")
        if text == "":
            raise InvalidBlocksError("empty Blocs-Config: write '0' for a board without blocks")
        if text == EMPTY_CODE:
            return cls(frozenset())
        seen: dict[str, int] = {}
        for index, char in enumerate(text):
            pos = index + 1
            where = f"at position {pos} of {_describe(text)}"
            if char.isspace():
                raise InvalidBlocksError(f"whitespace {char!r} {where}: a code has no spaces")
            if char == EMPTY_CODE:
                raise InvalidBlocksError(f"'0' {where}: '0' (no blocks) must stand alone")
            if char not in _QUADRANT:
                if char.lower() in _QUADRANT and char != char.lower():
                    raise InvalidBlocksError(
                        f"upper-case {char!r} {where}: cell names are lower case,"
                        f" write {char.lower()!r}"
                    )
                raise InvalidBlocksError(
                    f"unknown character {char!r} {where}: expected characters"
                    f" from {CODE_ORDER!r}, or '0' alone"
                )
            if char in seen:
                raise InvalidBlocksError(
                    f"duplicate {char!r} {where} (already at position {seen[char]})"
                )
            seen[char] = pos
        return cls(frozenset(seen))

    @property
    def code(self) -> str:
        """The canonical code: cells in the order ``123456abcdefghx``; ``0`` when empty.

        >>> BlocsConfig.parse("x3").code
        '3x'
        """
        return "".join(c for c in CODE_ORDER if c in self.cells) or EMPTY_CODE

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"BlocsConfig({self.code!r})"

    # ------------------------------------------------------ twins, preference
    def twin(self) -> BlocsConfig:
        """The reflection in the quadrant's diagonal (1<->4, 2<->5, 3<->6, a<->d, b<->e, c<->f).

        >>> BlocsConfig.parse("35chx").twin().code
        '26fhx'
        """
        return BlocsConfig(frozenset(TWIN[c] for c in self.cells))

    @property
    def weight(self) -> int:
        """How many of the cells 1, 2, 3, a, b, c the code uses.

        >>> BlocsConfig.parse("bch").weight, BlocsConfig.parse("efh").weight
        (2, 0)
        """
        return sum(1 for c in self.cells if c in _HEAVY)

    def _preference_key(self) -> tuple[int, tuple[int, ...]]:
        # Smaller is preferred: higher weight first, then the smaller sequence of
        # heavy cells in the order 1, 2, 3, a, b, c.
        heavy = tuple(sorted(_HEAVY.index(c) for c in self.cells if c in _HEAVY))
        return (-len(heavy), heavy)

    def preferred(self) -> BlocsConfig:
        """The preferred one of ``self`` and its twin (higher weight, then smaller cells).

        >>> BlocsConfig.parse("5ch").preferred().code
        '2fh'
        >>> BlocsConfig.parse("6h").preferred().code
        '3h'
        """
        twin = self.twin()
        return twin if twin._preference_key() < self._preference_key() else self

    @property
    def is_preferred(self) -> bool:
        """True when the code is the preferred form of its twin pair.

        >>> BlocsConfig.parse("afg").is_preferred, BlocsConfig.parse("cdg").is_preferred
        (True, False)
        """
        return self.preferred() == self

    # ----------------------------------------------------------- the board
    @property
    def block_count(self) -> int:
        """Blocks on the board: 2 per digit, 4 per letter a..h, 1 for ``x``.

        >>> BlocsConfig.parse("3bhx").block_count, BlocsConfig.parse("2bg").block_count
        (11, 10)
        """
        return sum(len(CELL_SQUARES[c]) for c in self.cells)

    def squares(self) -> Bitboard:
        """Bitboard of the block squares on the 7x7 board (stride 8, ``a1`` = bit 0).

        >>> [square_name(sq) for sq in iter_squares(BlocsConfig.parse("3").squares())]
        ['c4', 'e4']
        """
        bb = 0
        for cell in self.cells:
            bb |= _CELL_MASK[cell]
        return bb

    @classmethod
    def from_squares(cls, bb: Bitboard) -> BlocsConfig:
        """The code of a set of block squares on the 7x7 board.

        Raises :class:`InvalidBlocksError` when a block lies off the 7x7 board or
        in a corner, or when the set is not symmetric under both reflections (the
        message names a square whose mirror image is missing).

        >>> from gameclub.ataxx.squares import parse_square
        >>> BlocsConfig.from_squares((1 << parse_square("c4")) | (1 << parse_square("e4"))).code
        '3'
        """
        if isinstance(bb, bool) or not isinstance(bb, int):
            raise TypeError(f"a block bitboard is an int, not {type(bb).__name__}")
        if bb < 0 or bb >> 64:
            raise InvalidBlocksError(f"block bitboard {bb:#x} is not a 64-bit set of squares")
        outside = bb & ~_BOARD
        if outside:
            sq = next(iter_squares(outside))
            raise InvalidBlocksError(
                f"block on {square_name(sq)} is outside the 7x7 board"
                " (Blocs-Config describes 7x7 boards only)"
            )
        corners = bb & _CORNER_MASK
        if corners:
            sq = next(iter_squares(corners))
            raise InvalidBlocksError(
                f"block on corner {square_name(sq)}: the corners are starting squares"
                " and cannot be blocked"
            )
        cells = set()
        for sq in iter_squares(bb):
            for image in CELL_SQUARES[_SQUARE_CELL[sq]]:
                if not bb >> image & 1:
                    raise InvalidBlocksError(
                        f"block on {square_name(sq)} has no mirror block on"
                        f" {square_name(image)}: blocks must be symmetric under the"
                        " left-right and top-bottom reflections"
                    )
            cells.add(_SQUARE_CELL[sq])
        return cls(frozenset(cells))

    # ----------------------------------------------------------- validity
    def invalid_reason(self) -> str | None:
        """Why this configuration may not be played, or ``None`` when it may.

        A valid configuration has at most 24 blocks, no block in a corner (always
        true for a code) and every empty square reachable from the four starting
        corners by moves of Chebyshev distance 1 or 2 landing on empty squares.

        >>> BlocsConfig.parse("2356cfgh").invalid_reason()
        'square d4 cannot be reached from the starting corners'
        >>> BlocsConfig.parse("3ghx").invalid_reason() is None
        True
        """
        return _invalid_reason(self.squares())

    @property
    def is_valid(self) -> bool:
        """``invalid_reason() is None``.

        >>> BlocsConfig.parse("0").is_valid, BlocsConfig.parse("abcdefgh").is_valid
        (True, False)
        """
        return self.invalid_reason() is None


@functools.lru_cache(maxsize=1 << 15)  # one entry per code at most
def valid_config_of(blocks: Bitboard, width: int = 7, height: int = 7) -> BlocsConfig:
    """The Blocs-Config of a block set that a rule set requiring one accepts.

    Raises :class:`InvalidBlocksError` saying why not: a board other than 7x7,
    blocks without a code (asymmetric, in a corner), or an invalid configuration.
    """
    if (width, height) != (BOARD_SIZE, BOARD_SIZE):
        raise InvalidBlocksError(
            f"Blocs-Config blocks need a {BOARD_SIZE}x{BOARD_SIZE} board, not {width}x{height}"
        )
    config = BlocsConfig.from_squares(blocks)
    reason = config.invalid_reason()
    if reason is not None:
        raise InvalidBlocksError(f"blocks {config.code} are invalid: {reason}")
    return config


def _invalid_reason(blocks: Bitboard) -> str | None:
    count = blocks.bit_count()
    if count > MAX_BLOCKS:
        return (
            f"{count} blocks: at most {MAX_BLOCKS} are allowed (fewer than half of the 49 squares)"
        )
    empty = _BOARD & ~blocks
    reached = _CORNER_MASK & empty
    frontier = reached
    while frontier:
        step = 0
        for sq in iter_squares(frontier):
            step |= SINGLES[sq] | DOUBLES[sq]
        frontier = step & empty & ~reached
        reached |= frontier
    unreachable = [square_name(sq) for sq in iter_squares(empty & ~reached)]
    if not unreachable:
        return None
    if len(unreachable) == 1:
        return f"square {unreachable[0]} cannot be reached from the starting corners"
    return f"squares {', '.join(unreachable)} cannot be reached from the starting corners"


@functools.lru_cache(maxsize=1)
def _subsets_in_order() -> tuple[tuple[int, ...], ...]:
    """Every set of cell positions (indices in CODE_ORDER), in listing order.

    Listing order: block count, then the sorted positions compared as tuples.
    A depth-first walk yields the tuples in lexicographic order (a prefix before
    its extensions); the stable sort on the block count keeps that order.
    """
    sizes = [len(CELL_SQUARES[c]) for c in CODE_ORDER]
    out: list[tuple[int, ...]] = []

    def walk(start: int, prefix: tuple[int, ...]) -> None:
        out.append(prefix)
        for i in range(start, len(CODE_ORDER)):
            walk(i + 1, (*prefix, i))

    walk(0, ())
    out.sort(key=lambda t: sum(sizes[i] for i in t))
    return tuple(out)


_TWIN_POS = tuple(CODE_ORDER.index(TWIN[c]) for c in CODE_ORDER)
_HEAVY_POS = frozenset(CODE_ORDER.index(c) for c in _HEAVY)


def _is_preferred_positions(positions: tuple[int, ...]) -> bool:
    """``BlocsConfig.is_preferred`` on sorted positions, without building objects.

    The heavy cells 1, 2, 3, a, b, c have increasing positions in CODE_ORDER, so
    comparing position tuples compares in the order 1, 2, 3, a, b, c.
    """
    heavy = tuple(i for i in positions if i in _HEAVY_POS)
    twin_heavy = tuple(sorted(_TWIN_POS[i] for i in positions if _TWIN_POS[i] in _HEAVY_POS))
    return (-len(heavy), heavy) <= (-len(twin_heavy), twin_heavy)


def _from_positions(positions: tuple[int, ...]) -> BlocsConfig:
    return BlocsConfig(frozenset(CODE_ORDER[i] for i in positions))


@functools.lru_cache(maxsize=1)
def _all_configs() -> tuple[BlocsConfig, ...]:
    """All 2**15 configurations, in listing order (built on first use only)."""
    return tuple(_from_positions(t) for t in _subsets_in_order())


@functools.lru_cache(maxsize=1)
def _preferred_all() -> tuple[BlocsConfig, ...]:
    """The preferred forms, one per twin pair, in listing order."""
    return tuple(_from_positions(t) for t in _subsets_in_order() if _is_preferred_positions(t))


def preferred_configs(
    n_blocks: int | None = None, *, valid_only: bool = False
) -> list[BlocsConfig]:
    """Preferred configurations (one per twin pair), by block count then cell order.

    ``n_blocks`` keeps only those with that many blocks; ``valid_only`` only the
    playable ones (see :meth:`BlocsConfig.invalid_reason`).

    >>> [c.code for c in preferred_configs(3)]
    ['1x', '2x', '3x']
    """
    configs: Iterable[BlocsConfig] = _preferred_all()
    if n_blocks is not None:
        configs = (c for c in configs if c.block_count == n_blocks)
    if valid_only:
        configs = (c for c in configs if c.is_valid)
    return list(configs)


@functools.lru_cache(maxsize=64)
def _candidates(min_blocks: int, max_blocks: int, preferred: bool) -> tuple[BlocsConfig, ...]:
    pool = _preferred_all() if preferred else _all_configs()
    return tuple(c for c in pool if min_blocks <= c.block_count <= max_blocks and c.is_valid)


def random_valid(
    rng: random.Random,
    *,
    min_blocks: int = 0,
    max_blocks: int = MAX_BLOCKS,
    preferred: bool = True,
) -> BlocsConfig:
    """A valid configuration drawn uniformly among those with ``min_blocks..max_blocks`` blocks.

    With ``preferred`` (the default) only preferred forms are drawn. Raises
    :class:`InvalidBlocksError` when the range is empty or holds no valid one.

    >>> cfg = random_valid(random.Random(7), min_blocks=4, max_blocks=8)
    >>> cfg.is_valid and cfg.is_preferred and 4 <= cfg.block_count <= 8
    True
    """
    if min_blocks < 0 or max_blocks < min_blocks:
        raise InvalidBlocksError(
            f"bad block range min_blocks={min_blocks}, max_blocks={max_blocks}:"
            " need 0 <= min_blocks <= max_blocks"
        )
    pool = _candidates(min_blocks, min(max_blocks, MAX_BLOCKS), preferred)
    if not pool:
        raise InvalidBlocksError(
            f"no valid Blocs-Config has between {min_blocks} and {max_blocks} blocks"
        )
    return rng.choice(pool)
