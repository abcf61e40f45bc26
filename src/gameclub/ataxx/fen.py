"""FEN as the Ataxx engine ecosystem writes it, for every board size from 2x2 to 8x8.

``x5o/7/7/7/7/7/o5x x 0 1``: ranks from top to bottom separated by ``/``, ``x`` and
``o`` pieces, ``-`` blocks, digits for runs of empty squares; then the side to
move, the halfmove clock and the fullmove number. The two counters may be left
out together (they default to ``0 1``); nothing else is optional.

>>> parse_fen("x1o/3/o1x o 3 7")[:2]
(3, 3)
"""

from __future__ import annotations

from typing import NamedTuple

from gameclub.ataxx.errors import InvalidFenError
from gameclub.ataxx.squares import MAX_SIZE, MIN_SIZE, Bitboard, square

STARTPOS = "x5o/7/7/7/7/7/o5x x 0 1"


class FenFields(NamedTuple):
    width: int
    height: int
    x: Bitboard
    o: Bitboard
    blocks: Bitboard
    turn: int  # 0 = x, 1 = o
    halfmove_clock: int
    fullmove_number: int


def parse_fen(fen: str) -> FenFields:
    """Parse a FEN strictly; :class:`InvalidFenError` says which field is wrong and why."""
    if not isinstance(fen, str):
        raise InvalidFenError(f"FEN must be a string, not {type(fen).__name__}")
    if fen.strip() == "startpos":
        fen = STARTPOS
    fields = fen.split(" ")
    if len(fields) not in (2, 4) or any(f == "" for f in fields):
        raise InvalidFenError(
            f"invalid FEN {fen!r}: expected 'board side' or 'board side halfmove fullmove' "
            "separated by single spaces"
        )
    ranks = fields[0].split("/")
    height = len(ranks)
    if not MIN_SIZE <= height <= MAX_SIZE:
        raise InvalidFenError(
            f"invalid FEN {fen!r}: {height} ranks, a board has {MIN_SIZE} to {MAX_SIZE}"
        )
    x = o = blocks = 0
    width = -1
    for index, text in enumerate(ranks):
        rank = height - 1 - index
        file = 0
        previous_digit = False
        for char in text:
            # ASCII digits only: str.isdigit() is also true of '²', '①' and '٥'.
            if "0" <= char <= "9":
                if previous_digit:
                    raise InvalidFenError(
                        f"invalid FEN {fen!r}: rank {index + 1} from the top has two digits "
                        "in a row"
                    )
                if char == "0":
                    raise InvalidFenError(
                        f"invalid FEN {fen!r}: rank {index + 1} from the top has an empty run of 0"
                    )
                file += int(char)
                previous_digit = True
                continue
            previous_digit = False
            if file >= MAX_SIZE:
                raise InvalidFenError(
                    f"invalid FEN {fen!r}: rank {index + 1} from the top is longer than "
                    f"{MAX_SIZE} squares"
                )
            bit = 1 << square(file, rank)
            if char == "x":
                x |= bit
            elif char == "o":
                o |= bit
            elif char == "-":
                blocks |= bit
            else:
                raise InvalidFenError(
                    f"invalid FEN {fen!r}: unexpected {char!r} in rank {index + 1} from the top "
                    "(expected x, o, - or a digit)"
                )
            file += 1
        if file > MAX_SIZE:
            raise InvalidFenError(
                f"invalid FEN {fen!r}: rank {index + 1} from the top is longer than "
                f"{MAX_SIZE} squares"
            )
        if width == -1:
            width = file
        elif file != width:
            raise InvalidFenError(
                f"invalid FEN {fen!r}: rank {index + 1} from the top has {file} squares, "
                f"the first has {width}"
            )
    if width < MIN_SIZE:
        raise InvalidFenError(f"invalid FEN {fen!r}: ranks of {width} squares are too short")
    side = fields[1]
    if side not in ("x", "o"):
        raise InvalidFenError(f"invalid FEN {fen!r}: side to move must be 'x' or 'o', not {side!r}")
    halfmove, fullmove = 0, 1
    if len(fields) == 4:
        halfmove = _counter(fen, fields[2], "halfmove clock", 0)
        fullmove = _counter(fen, fields[3], "fullmove number", 1)
    return FenFields(width, height, x, o, blocks, 0 if side == "x" else 1, halfmove, fullmove)


def _counter(fen: str, text: str, what: str, minimum: int) -> int:
    if not text.isdigit() or not text.isascii() or (len(text) > 1 and text[0] == "0"):
        raise InvalidFenError(f"invalid FEN {fen!r}: {what} {text!r} is not a number")
    value = int(text)
    if value < minimum or value > 1_000_000:
        raise InvalidFenError(f"invalid FEN {fen!r}: {what} {value} is out of range")
    return value


def format_fen(
    width: int,
    height: int,
    x: Bitboard,
    o: Bitboard,
    blocks: Bitboard,
    turn: int,
    halfmove_clock: int,
    fullmove_number: int,
) -> str:
    """Write a position as FEN (always with both counters).

    Rows come from a cache: a row's text depends only on its pieces and blocks
    (eight bits each) and the board's width, and a game meets few distinct rows,
    so the club, which writes a FEN for every move, mostly gets dictionary hits.
    """
    rows = []
    for shift in range(8 * (height - 1), -8, -8):
        key = ((x >> shift & 0xFF) | (o >> shift & 0xFF) << 8 | (blocks >> shift & 0xFF) << 16
               | width << 24)
        row = _ROWS.get(key)
        rows.append(row if row is not None else _row_text(key))
    side = "x" if turn == 0 else "o"
    return f"{'/'.join(rows)} {side} {halfmove_clock} {fullmove_number}"


#: FEN rows by (x bits, o bits, block bits, width) packed in one int; bounded.
_ROWS: dict[int, str] = {}


def _row_text(key: int) -> str:
    if len(_ROWS) > 1 << 16:
        _ROWS.clear()
    x, o, blocks, width = key & 0xFF, key >> 8 & 0xFF, key >> 16 & 0xFF, key >> 24
    row = []
    run = 0
    for file in range(width):
        bit = 1 << file
        char = "x" if x & bit else "o" if o & bit else "-" if blocks & bit else ""
        if not char:
            run += 1
            continue
        if run:
            row.append(str(run))
            run = 0
        row.append(char)
    if run:
        row.append(str(run))
    text = _ROWS[key] = "".join(row)
    return text
