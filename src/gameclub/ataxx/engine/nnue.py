"""Master's networks: weights file, accumulators, evaluation.

Two kinds of network share the file format and the output layer; the number of
inputs in the file says which one it is.

**Piece-square** (192 inputs, an NNUE updated incrementally). Inputs, for each of
the two perspectives (x's and o's), 192 binary features on the 8x8 grid the
bitboards use (``sq = rank * 8 + file``):

- ``sq``: a piece of the perspective's side on ``sq``;
- ``64 + sq``: a piece of the other side on ``sq``;
- ``128 + sq``: ``sq`` is not playable (a block, or outside a smaller board).

Piece-square per side is the plainest input that an Ataxx move updates cheaply: a
clone adds one piece, a jump moves one, and each flip turns "other" into "own". The
not-playable squares make one network serve Blocs-Config boards; they never change
during a game, so they only shift the accumulators' starting values.

Architecture: ``192 -> H`` (shared by both perspectives; the accumulator), then the
side to move's ``H`` values and the other side's ``H``, each through a squared
clipped ReLU (``clamp(v, 0, 1) ** 2``), into one linear output; centipawns are
``SCALE`` times that output.

Incremental update: the search keeps one accumulator pair (``[2, H]``, int16, by
absolute colour) per ply and builds a child's from its parent's (copy and update:
"unmake" is going back one ply). With ``D[sq] = W[sq] - W[64 + sq]`` (own minus
other), a move by the side ``p`` to ``to`` that flips the squares ``F`` is, for
``p``'s accumulator, ``+W[to] (-W[from] for a jump) + sum D[F]``, and for the
other, ``+W[64+to] (-W[64+from]) - sum D[F]``: one row per flip and perspective.

Why int16 and a zero row: the update is a handful of sweeps over ``H`` values, and
what it costs is whether LLVM vectorises them. A branch between a clone's sweep and
a jump's made numba keep reference counts on the row views taken inside it and
cost four times as much as one branch-free sweep that always subtracts a "from"
row, which for a clone (and a pass) is the zero row ``NO_ROW`` appended to ``W``
(``Network.rows``). int16 halves the bytes moved. int16 sums are exact as long as
every accumulator value fits (the adds wrap, so intermediate values do not
matter): :class:`Network` refuses weights whose worst case, ``|b1| + sum over the
squares of the largest of their three rows``, does not (``ACC_LIMIT``).

Quantisation: first-layer weights and biases times ``QA`` (int16), output weights
times ``QB`` (int16), output bias times ``QA * QB`` (int32); the evaluation sums
``clamp(acc, 0, QA) ** 2 * w2`` in int64, divides by ``QA`` and scales by
``SCALE / (QA * QB)``.

**Tuples** (2,980 inputs, recomputed at each evaluation; the inputs Zataxx uses).
The 7x7 board's 36 squares of 2x2 neighbouring squares (origins ``a1`` .. ``f6``,
each with the squares to its right, above, and above right), each in one of
``3 ** 4 = 81`` states (every square empty, the side to move's or the other's):
input ``81 * t + sum(digit_k * 3 ** k)``, where ``k`` counts the origin, the square
to its right, the one above and the one above right, and a digit is 0 empty, 1 the
side to move's, 2 the other's. Then ``2916 + sq``: ``sq`` not playable, as above.
One perspective (the side to move's): ``W1`` ``[2980, H]``, a squared clipped ReLU,
one linear output from ``H`` values. The 36 active rows describe the local shapes
(an own piece beside an empty square, a wall of four) that the piece-square inputs
can only add up square by square. A move changes up to 20 of the 36 rows and turns
the perspective, so the accumulator is summed afresh at each evaluation, from a
starting vector (``b1`` and the not-playable rows: :meth:`Network.base`) that a
search computes once.

**Output buckets** (tuple networks): ``B`` output layers instead of one, the one
that scores a position chosen by its number of pieces (``pieces * B // 50``,
:func:`output_bucket`). The game changes in kind as the board fills (mobility and
shape early, the count of pieces at the end), and one hidden layer feeding one
output must mix both; a bucket costs the search nothing but the choice of a row.

The weights file (little-endian): magic ``b"GCAXNNUE"``, then u32 fields version
(1, or 2 with output buckets), inputs (192 or 2,980: the kind), hidden size ``H``,
``QA``, ``QB``, ``SCALE``, (version 2 only) the number of buckets ``B``, and the
CRC-32 of the payload; then the payload: ``W1`` int16 ``[inputs, H]``, ``b1`` int16
``[H]``, ``W2`` int16 (``[2H]`` piece-square, ``[B, H]`` tuples), ``b2`` int32
``[B]``. A network of one bucket is written as version 1.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import CLONE_FROM, PASS_MOVE, SINGLES, lowest_square, popcount

MAGIC = b"GCAXNNUE"
VERSION = 1
#: the format version of a file with output buckets (its header has one field more).
VERSION_BUCKETS = 2
#: the most output buckets a file may have (one per number of pieces, 0..49, at most).
MAX_BUCKETS = 50
#: inputs of a piece-square network.
N_INPUTS = 192
#: 2x2 squares of the 7x7 board, and the states of one.
N_TUPLES = 36
TUPLE_STATES = 81
#: the first not-playable input of a tuple network, and its number of inputs.
TUPLE_BLOCKED = N_TUPLES * TUPLE_STATES
N_TUPLE_INPUTS = TUPLE_BLOCKED + 64
#: the origins of the 36 2x2 squares (``rank * 8 + file``, ranks and files 0..5).
TUPLE_ORIGINS = np.array([r * 8 + f for r in range(6) for f in range(6)], dtype=np.int64)
_TUPLE_BITS = np.uint64(0x303)
#: the 4 bits of a 2x2 square (origin, right, above, above right) read in base 3.
_TERNARY = np.array([sum(3 ** k for k in range(4) if m >> k & 1) for m in range(16)],
                    dtype=np.int64)
QA = 255
QB = 256
_HEADER = 8 + 7 * 4
_HEADER_BUCKETS = _HEADER + 4
#: the row of ``Network.rows`` that holds zeros: the "from" square of a clone or a pass.
NO_ROW = N_INPUTS
#: the largest accumulator value int16 holds (see the module docstring).
ACC_LIMIT = 32767
#: evaluations are clipped to +-EVAL_LIMIT centipawns (mate scores start at 29000).
EVAL_LIMIT = 20000
#: the network shipped with the package (``gameclub/data``).
SHIPPED = "ataxx-nnue.bin"


class NetworkFileError(ValueError):
    """A weights file that is missing, truncated, corrupted or of another format."""


@dataclass
class Network:
    """Integer weights ready for the kernels (int16 as in the file, except ``w2``)."""

    w1: np.ndarray  # [inputs, H] int16
    b1: np.ndarray  # [H] int16
    #: ``[B, 2H]`` (piece-square, side to move first; ``B`` = 1) or ``[B, H]``
    #: (tuples), int32: one output layer per bucket (:func:`output_bucket`).
    w2: np.ndarray
    b2: np.ndarray  # [B] int64
    scale: int
    #: piece-square: ``w1[sq] - w1[64 + sq]``, what a flip to the perspective's side
    #: adds (int16, wrapping: the sums stay exact, see the module docstring).
    flip: np.ndarray  # [64, H] int16
    #: piece-square: ``w1`` and a zero row ``NO_ROW``, what the accumulator kernels
    #: index; tuples: ``w1``.
    rows: np.ndarray  # [N_INPUTS + 1, H] or [N_TUPLE_INPUTS, H] int16
    #: :meth:`base` by playable squares, computed once each.
    _bases: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def buckets(self) -> int:
        """The number of output layers (:func:`output_bucket`)."""
        return int(self.w2.shape[0])

    @property
    def tuples(self) -> bool:
        """Whether this is a tuple network (else piece-square)."""
        return self.inputs == N_TUPLE_INPUTS

    @classmethod
    def from_arrays(cls, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                    b2: int | np.ndarray, scale: int) -> Network:
        """A network from integer weights; ValueError if they do not fit the kernels.

        ``w2`` is ``[2H]`` or ``[H]`` for one output, or ``[B, H]`` (tuples) and then
        ``b2`` is ``[B]``.
        """
        wide = np.asarray(w1, dtype=np.int64)
        bias = np.asarray(b1, dtype=np.int64)
        out = np.asarray(w2, dtype=np.int64)
        if out.ndim == 1:
            out = out[None, :]
        out_bias = np.asarray(b2, dtype=np.int64).reshape(-1)
        if wide.ndim != 2 or wide.shape[0] not in (N_INPUTS, N_TUPLE_INPUTS):
            raise ValueError(f"first-layer weights of shape {wide.shape}; expected "
                             f"({N_INPUTS}, H) or ({N_TUPLE_INPUTS}, H)")
        tuples = wide.shape[0] == N_TUPLE_INPUTS
        outputs = wide.shape[1] if tuples else 2 * wide.shape[1]
        if bias.shape != (wide.shape[1],) or out.ndim != 2 or out.shape[1:] != (outputs,):
            raise ValueError(f"weights of shapes {wide.shape}, {bias.shape}, {out.shape}; "
                             f"expected ({wide.shape[0]}, H), (H,), "
                             f"({'B, H' if tuples else '2H'})")
        if not 1 <= out.shape[0] <= (MAX_BUCKETS if tuples else 1) \
                or out_bias.shape != (out.shape[0],):
            raise ValueError(f"{out.shape[0]} output layers and {out_bias.size} output biases; "
                             "expected one bias per layer, "
                             + (f"1..{MAX_BUCKETS} layers" if tuples
                                else "one layer (buckets are for tuple networks)"))
        if out_bias.min() < -2 ** 31 or out_bias.max() >= 2 ** 31:
            raise ValueError(f"b2 does not fit in int32 (range {out_bias.min()}..{out_bias.max()})")
        for name, arr in (("w1", wide), ("b1", bias), ("w2", out)):
            if arr.size and (arr.min() < -32768 or arr.max() > 32767):
                raise ValueError(f"{name} does not fit in int16 (range {arr.min()}..{arr.max()})")
        magnitude = np.abs(wide)
        if tuples:
            # One of its 81 rows per 2x2 square, and any of the not-playable rows.
            per_tuple = magnitude[:TUPLE_BLOCKED].reshape(N_TUPLES, TUPLE_STATES, -1).max(axis=1)
            reach = per_tuple.sum(axis=0) + magnitude[TUPLE_BLOCKED:].sum(axis=0)
        else:
            # Each square is own, other, not playable or empty: the largest of its
            # three rows bounds what it adds to an accumulator.
            reach = np.maximum(np.maximum(magnitude[:64], magnitude[64:128]),
                               magnitude[128:]).sum(axis=0)
        worst = int((np.abs(bias) + reach).max(initial=0))
        if worst > ACC_LIMIT:
            raise ValueError(f"an accumulator could reach {worst}, beyond int16 ({ACC_LIMIT}): "
                             "first-layer weights too large")
        w16 = np.ascontiguousarray(wide, dtype=np.int16)
        if tuples:
            rows = w16
            flip = np.zeros((64, w16.shape[1]), dtype=np.int16)
        else:
            rows = np.zeros((N_INPUTS + 1, w16.shape[1]), dtype=np.int16)
            rows[:N_INPUTS] = w16
            flip = (wide[:64] - wide[64:128]).astype(np.int16)  # wraps; see the docstring
        return cls(w1=w16, b1=np.ascontiguousarray(bias, dtype=np.int16),
                   w2=np.ascontiguousarray(out, dtype=np.int32),
                   b2=np.ascontiguousarray(out_bias), scale=int(scale),
                   flip=np.ascontiguousarray(flip), rows=rows)

    def base(self, playable: int) -> np.ndarray:
        """A tuple network's accumulator before the 36 rows: ``b1`` and the rows of the
        squares not playable on a board whose playable squares are ``playable``."""
        base = self._bases.get(playable)
        if base is None:
            blocked = np.array([sq for sq in range(64) if not playable >> sq & 1], dtype=np.int64)
            total = self.b1.astype(np.int64) + self.w1[TUPLE_BLOCKED + blocked].astype(
                np.int64).sum(axis=0)
            base = self._bases[playable] = total.astype(np.int16)  # wraps as the kernels' sums
        return base

    def to_bytes(self) -> bytes:
        """The weights file's bytes."""
        payload = (self.w1.astype("<i2").tobytes() + self.b1.astype("<i2").tobytes()
                   + self.w2.astype("<i2").tobytes() + self.b2.astype("<i4").tobytes())
        fields = [self.inputs, self.hidden, QA, QB, self.scale]
        if self.buckets == 1:
            fields = [VERSION, *fields]
        else:
            fields = [VERSION_BUCKETS, *fields, self.buckets]
        return MAGIC + np.array([*fields, zlib.crc32(payload)], dtype="<u4").tobytes() + payload

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "weights") -> Network:
        """Parse a weights file; :class:`NetworkFileError` says what is wrong with it."""
        if len(data) < _HEADER:
            raise NetworkFileError(f"{name}: {len(data)} bytes, shorter than the header")
        if data[:8] != MAGIC:
            raise NetworkFileError(f"{name}: not a network file (magic {data[:8]!r}, "
                                   f"expected {MAGIC!r})")
        version = int(np.frombuffer(data[8:12], dtype="<u4")[0])
        if version not in (VERSION, VERSION_BUCKETS):
            raise NetworkFileError(f"{name}: format version {version}, expected {VERSION} "
                                   f"or {VERSION_BUCKETS}")
        size = _HEADER if version == VERSION else _HEADER_BUCKETS
        if len(data) < size:
            raise NetworkFileError(f"{name}: {len(data)} bytes, shorter than the header")
        fields = [int(v) for v in np.frombuffer(data[12:size], dtype="<u4")]
        inputs, hidden, qa, qb, scale = fields[:5]
        buckets, crc = (1, fields[5]) if version == VERSION else fields[5:]
        if inputs not in (N_INPUTS, N_TUPLE_INPUTS) or qa != QA or qb != QB \
                or not 0 < hidden <= 4096:
            raise NetworkFileError(
                f"{name}: inputs {inputs}, hidden {hidden}, QA {qa}, QB {qb}; this engine "
                f"reads {N_INPUTS} or {N_TUPLE_INPUTS} inputs, QA {QA}, QB {QB}, "
                "1..4096 hidden units")
        if not 1 <= buckets <= (MAX_BUCKETS if inputs == N_TUPLE_INPUTS else 1):
            raise NetworkFileError(f"{name}: {buckets} output buckets; this engine reads "
                                   f"1..{MAX_BUCKETS} for tuple networks, 1 for piece-square")
        outputs = hidden if inputs == N_TUPLE_INPUTS else 2 * hidden
        payload = data[size:]
        expected = 2 * (inputs * hidden + hidden + buckets * outputs) + 4 * buckets
        if len(payload) != expected:
            raise NetworkFileError(f"{name}: payload of {len(payload)} bytes, expected "
                                   f"{expected} for {inputs} inputs, {hidden} hidden units "
                                   f"and {buckets} output bucket{'s' if buckets > 1 else ''} "
                                   "(truncated?)")
        if zlib.crc32(payload) != crc:
            raise NetworkFileError(f"{name}: checksum mismatch (corrupted file)")
        at = 0
        w1 = np.frombuffer(payload, "<i2", inputs * hidden, at).reshape(inputs, hidden)
        at += 2 * inputs * hidden
        b1 = np.frombuffer(payload, "<i2", hidden, at)
        at += 2 * hidden
        w2 = np.frombuffer(payload, "<i2", buckets * outputs, at).reshape(buckets, outputs)
        at += 2 * buckets * outputs
        b2 = np.frombuffer(payload, "<i4", buckets, at)
        try:
            return cls.from_arrays(w1, b1, w2, b2, scale)
        except ValueError as exc:
            raise NetworkFileError(f"{name}: {exc}") from None


def load_network(path: Path | str | None = None) -> Network:
    """Read a weights file (default: the shipped one); :class:`NetworkFileError` if unusable."""
    if path is None:
        source = resources.files("gameclub").joinpath("data", SHIPPED)
        name = f"shipped network {SHIPPED}"
        try:
            data = source.read_bytes()
        except FileNotFoundError:
            raise NetworkFileError(f"{name}: missing from the package") from None
    else:
        name = str(path)
        try:
            data = Path(path).read_bytes()
        except FileNotFoundError:
            raise NetworkFileError(f"{name}: no such file") from None
    return Network.from_bytes(data, name)


@functools.cache
def shipped_network() -> Network:
    """The shipped network, read once per process (every ``master`` shares its arrays,
    which nothing writes to); :class:`NetworkFileError` if unusable (not cached)."""
    return load_network()


@njit(cache=True)
def refresh(us, them, playable, color, w1, b1, acc):
    """Compute both accumulators of a position from scratch into ``acc[2, H]``.

    ``us``/``them`` belong to ``color`` (0 = x) and the other colour; ``acc[c]`` is
    colour ``c``'s perspective.
    """
    hidden = w1.shape[1]
    blocked = ~playable
    for c in range(2):
        own = us if c == color else them
        other = them if c == color else us
        for j in range(hidden):
            acc[c, j] = b1[j]
        for sq in range(64):
            bit = np.uint64(1) << np.uint64(sq)
            row = -1
            if own & bit:
                row = sq
            elif other & bit:
                row = 64 + sq
            if row >= 0:
                for j in range(hidden):
                    acc[c, j] += w1[row, j]
            if blocked & bit:
                for j in range(hidden):
                    acc[c, j] += w1[128 + sq, j]


@njit(inline="always", cache=True)
def update(parent, child, them, color, move, rows, flip):
    """Write into ``child`` the accumulators after ``color`` plays ``move`` from ``parent``.

    ``them`` is the opponent's pieces before the move (they give the flips); ``rows``
    is :attr:`Network.rows` (``W`` and the zero row ``NO_ROW``).
    """
    to = move & 0xFF
    frm = move >> 8
    add_m = to
    add_o = 64 + to
    sub_m = frm
    sub_o = 64 + frm
    # No branch around the sweeps (see the module docstring): a clone subtracts the
    # zero row, a pass adds and subtracts it.
    if frm == CLONE_FROM:
        sub_m = NO_ROW
        sub_o = NO_ROW
    if move == PASS_MOVE:
        add_m = NO_ROW
        add_o = NO_ROW
        sub_m = NO_ROW
        sub_o = NO_ROW
        to = 0
        them = np.uint64(0)
    pm = parent[color]
    po = parent[1 - color]
    cm = child[color]
    co = child[1 - color]
    am = rows[add_m]
    ao = rows[add_o]
    sm = rows[sub_m]
    so = rows[sub_o]
    hidden = len(pm)
    for j in range(hidden):
        cm[j] = pm[j] + am[j] - sm[j]
        co[j] = po[j] + ao[j] - so[j]
    flips = SINGLES[to] & them
    while flips:
        sq = lowest_square(flips)
        flips &= flips - np.uint64(1)
        d = flip[sq]
        for j in range(hidden):
            cm[j] += d[j]
            co[j] -= d[j]


@njit(inline="always", cache=True)
def _screlu_dot(row, weights):
    """``sum(clamp(row, 0, QA) ** 2 * weights)`` in int64: the output layer's sum."""
    total = np.int64(0)
    for j in range(len(row)):
        v = np.int64(min(max(row[j], 0), QA))
        total += v * v * weights[j]
    return total


@njit(inline="always", cache=True)
def _centipawns(total, b2, scale):
    """The output from the sum of :func:`_screlu_dot`, in centipawns within ``EVAL_LIMIT``."""
    cp = (total // QA + b2) * scale // (QA * QB)
    # The search's scores must stay below its proven-win range (and its infinity).
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, cp))


@njit(inline="always", cache=True)
def output_bucket(us, them, buckets):
    """The output layer that scores a position: by its number of pieces, ``buckets``
    equal ranges of 0..49."""
    return min(buckets - 1, popcount(us | them) * buckets // MAX_BUCKETS)


@njit(inline="always", cache=True)
def evaluate(acc, color, w2, b2, scale):
    """Centipawns for ``color`` (the side to move) from the accumulators, within ``EVAL_LIMIT``."""
    hidden = acc.shape[1]
    out = w2[0]
    total = _screlu_dot(acc[color], out[:hidden]) + _screlu_dot(acc[1 - color], out[hidden:])
    return _centipawns(total, b2[0], scale)


@njit(cache=True)
def evaluate_position(us, them, playable, color, w1, b1, w2, b2, scale):
    """Full recomputation and evaluation (for checks and tests)."""
    acc = np.empty((2, w1.shape[1]), dtype=np.int16)
    refresh(us, them, playable, color, w1, b1, acc)
    return evaluate(acc, color, w2, b2, scale)


@njit(cache=True)
def update_kernel(parent, child, them, color, move, rows, flip):
    """:func:`update` as a callable kernel (tests and benchmarks)."""
    update(parent, child, them, color, move, rows, flip)


@njit(cache=True)
def evaluate_kernel(acc, color, w2, b2, scale):
    """:func:`evaluate` as a callable kernel (tests and benchmarks)."""
    return evaluate(acc, color, w2, b2, scale)



@njit(inline="always", cache=True)
def _tuple_row(us, them, t):
    """The active input of the 2x2 square ``t`` (side to move: ``us``)."""
    origin = np.uint64(TUPLE_ORIGINS[t])
    # Bits 0, 1, 8 and 9 from the origin, packed into 4 bits, then read in base 3.
    u = np.int64((us >> origin) & _TUPLE_BITS)
    o = np.int64((them >> origin) & _TUPLE_BITS)
    return TUPLE_STATES * t + _TERNARY[(u & 3) | (u >> 6)] + 2 * _TERNARY[(o & 3) | (o >> 6)]


@njit(cache=True)
def evaluate_tuples(us, them, rows, base, w2, b2, scale, acc):
    """A tuple network's centipawns for the side to move (``us``), within ``EVAL_LIMIT``.

    ``base`` is :meth:`Network.base` for the board; ``acc`` (``[H]`` int16) is scratch.
    Not inlined: inside the search kernel its 36 rows ran out of registers and the
    search made half the nodes a second.
    """
    # All 36 rows in one sweep, written out: the sums of a slice of the accumulator
    # stay in vector registers across the rows and are stored once (a sweep of a few
    # rows at a time loads and stores the accumulator each time, a quarter slower).
    # The rows are named by rank of their 2x2 square (``r<rank><file>``).
    r00 = rows[_tuple_row(us, them, 0)]
    r01 = rows[_tuple_row(us, them, 1)]
    r02 = rows[_tuple_row(us, them, 2)]
    r03 = rows[_tuple_row(us, them, 3)]
    r04 = rows[_tuple_row(us, them, 4)]
    r05 = rows[_tuple_row(us, them, 5)]
    r10 = rows[_tuple_row(us, them, 6)]
    r11 = rows[_tuple_row(us, them, 7)]
    r12 = rows[_tuple_row(us, them, 8)]
    r13 = rows[_tuple_row(us, them, 9)]
    r14 = rows[_tuple_row(us, them, 10)]
    r15 = rows[_tuple_row(us, them, 11)]
    r20 = rows[_tuple_row(us, them, 12)]
    r21 = rows[_tuple_row(us, them, 13)]
    r22 = rows[_tuple_row(us, them, 14)]
    r23 = rows[_tuple_row(us, them, 15)]
    r24 = rows[_tuple_row(us, them, 16)]
    r25 = rows[_tuple_row(us, them, 17)]
    r30 = rows[_tuple_row(us, them, 18)]
    r31 = rows[_tuple_row(us, them, 19)]
    r32 = rows[_tuple_row(us, them, 20)]
    r33 = rows[_tuple_row(us, them, 21)]
    r34 = rows[_tuple_row(us, them, 22)]
    r35 = rows[_tuple_row(us, them, 23)]
    r40 = rows[_tuple_row(us, them, 24)]
    r41 = rows[_tuple_row(us, them, 25)]
    r42 = rows[_tuple_row(us, them, 26)]
    r43 = rows[_tuple_row(us, them, 27)]
    r44 = rows[_tuple_row(us, them, 28)]
    r45 = rows[_tuple_row(us, them, 29)]
    r50 = rows[_tuple_row(us, them, 30)]
    r51 = rows[_tuple_row(us, them, 31)]
    r52 = rows[_tuple_row(us, them, 32)]
    r53 = rows[_tuple_row(us, them, 33)]
    r54 = rows[_tuple_row(us, them, 34)]
    r55 = rows[_tuple_row(us, them, 35)]
    for j in range(len(base)):
        acc[j] = (base[j]
                  + r00[j] + r01[j] + r02[j] + r03[j] + r04[j] + r05[j]
                  + r10[j] + r11[j] + r12[j] + r13[j] + r14[j] + r15[j]
                  + r20[j] + r21[j] + r22[j] + r23[j] + r24[j] + r25[j]
                  + r30[j] + r31[j] + r32[j] + r33[j] + r34[j] + r35[j]
                  + r40[j] + r41[j] + r42[j] + r43[j] + r44[j] + r45[j]
                  + r50[j] + r51[j] + r52[j] + r53[j] + r54[j] + r55[j])
    bucket = output_bucket(us, them, len(w2))
    return _centipawns(_screlu_dot(acc, w2[bucket]), b2[bucket], scale)


@njit(cache=True)
def evaluate_tuples_kernel(us, them, rows, base, w2, b2, scale):
    """:func:`evaluate_tuples` as a callable kernel (tests and benchmarks)."""
    acc = np.empty(len(base), dtype=np.int16)
    return evaluate_tuples(us, them, rows, base, w2, b2, scale, acc)
