"""Train master's network on self-play positions and export it in the engine's integer format.

    pip install -e '.[train]'                       # PyTorch (CPU) for this script only
    .venv/bin/python scripts/nnue_train.py data/selfplay --out src/gameclub/data/ataxx-nnue.bin

The recipe (docs/nnue.md): inputs and architecture as in
``gameclub.ataxx.engine.nnue``: ``--inputs piece-square`` (192 inputs per
perspective, ``H`` hidden units shared by both perspectives) or ``--inputs tuples``
(the 36 2x2 squares of the board in 81 states each and the not-playable squares,
the side to move's perspective), a squared clipped ReLU, one output in units of
``SCALE`` centipawns. On each batch a random one of the 8 symmetries of the
square board is applied to 7x7 positions (the rules and the start position are
symmetric). The loss is the mean squared error between ``sigmoid(cp / K)`` and the
target ``(1 - wdl) * sigmoid(score / K) + wdl * result`` (result 1 / 0.5 / 0 for
the side to move; for positions off the game's path, ``FLAG_CHILD``, the score
alone), ``K`` fitted on the data so that ``sigmoid(score / K)`` best
predicts the results. AdamW, learning rate ``--lr`` with a cosine decay to 1% over
``--epochs``, batches of ``--batch``; weights are clipped after each step to what
int16 holds once quantised, the first layer's further so that no accumulator
(the bias and one row per square, or per 2x2 square and not-playable square) can
leave int16. The epoch with the lowest held-out loss (the last
``--holdout`` share of the files, whole games) is exported. ``--init FILE`` starts from a
network's weights (of the same inputs, and the same size or fewer hidden units)
instead of random ones: a round of new data refines the last network rather than
starting over, or widens it (the added units start with random inputs and no
output, so the widened network first scores every position as the narrow one).
``--buckets B`` gives a tuple network ``B`` output layers, chosen by the number of
pieces (``gameclub.ataxx.engine.nnue.output_bucket``; default: as many as the
``--init`` network has); from a network of one, each bucket starts as its output
layer, and from a network of other buckets, as the layer of the old bucket that
covers most of its piece counts (from 8 to 16 each new bucket lies within an old one,
so the network first scores every position as before).

The exported network's centipawns are calibrated (``--calibrate K``): its file's
``SCALE`` is set so that its own scores of the held-out positions (those played in
their games) predict their results as ``sigmoid(cp / K)``. The search's margins are in
centipawns, and a network trained on its own games' scores scores smaller each round
(the mean squared error draws what it cannot predict towards the mean: a fifth a
round here), so without it the margins grew against the scores from one network to the
next. ``--epochs 0`` exports the ``--init`` network again, only calibrated.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from gameclub.ataxx.engine.nnue import (
    ACC_LIMIT,
    MAX_BUCKETS,
    N_INPUTS,
    N_TUPLES,
    QA,
    QB,
    TUPLE_BLOCKED,
    TUPLE_ORIGINS,
    TUPLE_STATES,
    Network,
    NetworkFileError,
    load_network,
)
from gameclub.ataxx.engine.nnue_data import FLAG_CHILD, FLAG_MATE, read_many

#: centipawns per unit of the output of a network trained from random weights.
SCALE = 400
#: the ``K`` an exported network's scores have on the held-out positions (see
#: ``calibrated_scale``): the search's margins are in centipawns, and so mean the same
#: from one network to the next. 240: docs/nnue.md, "Calibrated centipawns".
CALIBRATED_K = 240.0
#: first-layer weights and biases are clipped to this: an accumulator sums the bias
#: and at most one row per square (64), so 65 * round(FT_CLIP * QA) stays within int16.
FT_CLIP = (ACC_LIMIT // 65) / QA
#: the same for a tuple network: the bias, 36 tuple rows and up to 64 not-playable rows.
TUPLE_FT_CLIP = (ACC_LIMIT // (1 + N_TUPLES + 64)) / QA
_SHIFTS = np.arange(64, dtype=np.uint64)
_TUPLE_OFFSETS = (TUPLE_STATES * np.arange(N_TUPLES)).astype(np.int16)
_BEYOND_7X7 = np.uint64(0xFF00_0000_0000_0000 | 0x8080_8080_8080_8080)
_RANK_7 = np.uint64(0x7F << 48)
_FILE_G = np.uint64(0x0040_4040_4040_4040)


class NnueModel(nn.Module):
    """The float network the integer one is quantised from."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.ft = nn.Linear(N_INPUTS, hidden)
        self.out = nn.Linear(2 * hidden, 1)
        #: centipawns per unit of output: ``SCALE``, or that of the network loaded.
        self.scale = float(SCALE)

    def forward(self, stm: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
        """Centipawns for the side to move, from both perspectives' 0/1 inputs."""
        a = torch.clamp(self.ft(stm), 0, 1) ** 2
        b = torch.clamp(self.ft(other), 0, 1) ** 2
        return self.out(torch.cat([a, b], dim=1)).squeeze(1) * self.scale

    def clip_(self) -> None:
        """Keep every weight within int16 once quantised, and the accumulators too."""
        with torch.no_grad():
            self.ft.weight.clamp_(-FT_CLIP, FT_CLIP)
            self.ft.bias.clamp_(-FT_CLIP, FT_CLIP)
            self.out.weight.clamp_(-127, 127)

    def export(self, scale: int | None = None) -> Network:
        """The integer network (see ``gameclub.ataxx.engine.nnue``), its output in units
        of ``scale`` centipawns (default: the model's own)."""
        w1 = self.ft.weight.detach().numpy().T
        return _quantised(w1, self.ft.bias, self.out,
                          round(self.scale) if scale is None else scale)

    def load_(self, net: Network) -> None:
        """Start from an integer network of this shape or a narrower one (its weights,
        unquantised, in the first units: see ``_load_output``)."""
        h, hidden = net.hidden, self.ft.out_features
        self.scale = float(net.scale)
        with torch.no_grad():
            self.ft.weight[:h].copy_(torch.from_numpy(net.w1.T / QA))
            self.ft.bias[:h].copy_(torch.from_numpy(net.b1 / QA))
            # The output reads the side to move's units, then the other side's.
            w2 = net.w2.reshape(2, h)
            _load_output(self.out, net, np.concatenate(
                [np.pad(half, (0, hidden - h)) for half in w2])[None, :])


class TupleModel(nn.Module):
    """The float tuple network: one row per 2x2 square's state, the not-playable
    squares as a linear layer (whose bias is the accumulator's), and ``buckets``
    output layers."""

    def __init__(self, hidden: int, buckets: int = 1) -> None:
        super().__init__()
        # A bag of the 36 active rows, summed without building a [batch, 36, H] tensor.
        self.tuples = nn.EmbeddingBag(TUPLE_BLOCKED, hidden, mode="sum")
        nn.init.uniform_(self.tuples.weight, -0.1, 0.1)
        self.blocked = nn.Linear(64, hidden)
        self.out = nn.Linear(hidden, buckets)
        self.scale = float(SCALE)

    def forward(self, index: torch.Tensor, blocked: torch.Tensor,
                pieces: torch.Tensor) -> torch.Tensor:
        """Centipawns for the side to move from its 36 tuple inputs, the blocked squares
        and the number of pieces on the board (which picks the output bucket)."""
        acc = self.tuples(index) + self.blocked(blocked)
        outputs = self.out(torch.clamp(acc, 0, 1) ** 2)
        buckets = self.out.out_features
        # nnue.output_bucket, on the batch.
        bucket = torch.clamp(pieces * buckets // MAX_BUCKETS, max=buckets - 1)
        return outputs.gather(1, bucket[:, None]).squeeze(1) * self.scale

    def clip_(self) -> None:
        with torch.no_grad():
            self.tuples.weight.clamp_(-TUPLE_FT_CLIP, TUPLE_FT_CLIP)
            self.blocked.weight.clamp_(-TUPLE_FT_CLIP, TUPLE_FT_CLIP)
            self.blocked.bias.clamp_(-TUPLE_FT_CLIP, TUPLE_FT_CLIP)
            self.out.weight.clamp_(-127, 127)

    def export(self, scale: int | None = None) -> Network:
        w1 = np.concatenate([self.tuples.weight.detach().numpy(),
                             self.blocked.weight.detach().numpy().T])
        return _quantised(w1, self.blocked.bias, self.out,
                          round(self.scale) if scale is None else scale)

    def load_(self, net: Network) -> None:
        """As ``NnueModel.load_``: this shape or a narrower one, of any number of output
        buckets (see ``_load_output``)."""
        h, hidden = net.hidden, self.out.in_features
        self.scale = float(net.scale)
        with torch.no_grad():
            self.tuples.weight[:, :h].copy_(torch.from_numpy(net.w1[:TUPLE_BLOCKED] / QA))
            self.blocked.weight[:h].copy_(torch.from_numpy(net.w1[TUPLE_BLOCKED:].T / QA))
            self.blocked.bias[:h].copy_(torch.from_numpy(net.b1 / QA))
            _load_output(self.out, net, np.pad(net.w2, ((0, 0), (0, hidden - h))))


def _load_output(out: nn.Linear, net: Network, w2: np.ndarray) -> None:
    """The output layer from ``w2`` (``[B, inputs]``: the network's output weights,
    with zeros for the units a wider model adds). Those keep their random first-layer
    weights, so the widened network scores every position exactly as the narrow one
    and its new units still learn (a unit whose input and output weights are both
    zero gets no gradient through the squared clipped ReLU). The network's buckets
    go to the model's by :func:`bucket_sources` (one layer goes to every bucket)."""
    rows = bucket_sources(w2.shape[0], out.out_features)
    out.weight.copy_(torch.from_numpy(w2[rows] / QB))
    out.bias.copy_(torch.from_numpy(np.asarray(net.b2)[rows] / (QA * QB)))


def bucket_sources(old: int, new: int) -> np.ndarray:
    """For each of ``new`` output buckets, the one of ``old`` buckets that covers most of
    its numbers of pieces (``nnue.output_bucket``; the first of a tie)."""
    pieces = np.arange(MAX_BUCKETS)
    old_bucket = np.minimum(old - 1, pieces * old // MAX_BUCKETS)
    new_bucket = np.minimum(new - 1, pieces * new // MAX_BUCKETS)
    return np.array([np.bincount(old_bucket[new_bucket == b], minlength=old).argmax()
                     for b in range(new)])


def _quantised(w1: np.ndarray, bias: torch.Tensor, out: nn.Linear, scale: int) -> Network:
    b1 = bias.detach().numpy()
    w2 = out.weight.detach().numpy()
    b2 = out.bias.detach().numpy().astype(np.float64)
    return Network.from_arrays(np.round(w1 * QA), np.round(b1 * QA), np.round(w2 * QB),
                               np.round(b2 * QA * QB).astype(np.int64), scale)


def tuple_indices(us_bits: np.ndarray, them_bits: np.ndarray) -> np.ndarray:
    """``[N, 36]`` int64: the tuple network's active inputs from ``[N, 64]`` square bits."""
    # In int16 (the largest index, 2,915, fits), half the work of int64.
    digit = us_bits.astype(np.int16) + 2 * them_bits.astype(np.int16)
    origins = TUPLE_ORIGINS
    index = (digit[:, origins] + 3 * digit[:, origins + 1] + 9 * digit[:, origins + 8]
             + 27 * digit[:, origins + 9] + _TUPLE_OFFSETS)
    return index.astype(np.int64)


def bits(boards: np.ndarray, shifts: np.ndarray = _SHIFTS) -> np.ndarray:
    """``[N, 64]`` uint8: bit ``shifts[i]`` (``[64]``, or ``[N, 64]`` one row a board;
    by default ``i``) of each bitboard as column ``i``."""
    return ((boards[:, None] >> shifts) & np.uint64(1)).astype(np.uint8)


def inputs(us: np.ndarray, them: np.ndarray, playable: np.ndarray,
           shifts: np.ndarray = _SHIFTS) -> tuple[np.ndarray, ...]:
    """Both perspectives' inputs ``[N, 192]`` (uint8), side to move first."""
    u, t, blocked = bits(us, shifts), bits(them, shifts), 1 - bits(playable, shifts)
    return (np.concatenate([u, t, blocked], axis=1), np.concatenate([t, u, blocked], axis=1))


def symmetries() -> np.ndarray:
    """``[8, 64]``: where each square goes under the 8 symmetries of the 7x7 board.

    Squares outside 7x7 stay put (only 7x7 positions are transformed).
    """
    perms = np.tile(np.arange(64), (8, 1))
    for k in range(8):
        for r in range(7):
            for f in range(7):
                rr, ff = (f, r) if k & 4 else (r, f)
                rr = 6 - rr if k & 1 else rr
                ff = 6 - ff if k & 2 else ff
                perms[k, r * 8 + f] = rr * 8 + ff
    return perms


def fit_k(score: np.ndarray, result: np.ndarray) -> float:
    """The ``K`` with which ``sigmoid(score / K)`` best predicts the results (log-loss)."""
    target = (result.astype(np.float64) + 1) / 2
    best_k, best_loss = 100.0, math.inf
    for k in np.arange(50, 1001, 10):
        p = np.clip(1 / (1 + np.exp(-score / k)), 1e-6, 1 - 1e-6)
        loss = -np.mean(target * np.log(p) + (1 - target) * np.log(1 - p))
        if loss < best_loss:
            best_k, best_loss = float(k), loss
    return best_k


def logistic_k(cp: np.ndarray, result: np.ndarray) -> float:
    """The ``K`` with which ``sigmoid(cp / K)`` best predicts the results (0, 0.5, 1),
    by log-loss, exactly (Newton's method on ``1 / K``); ``inf`` if the scores do not
    predict the results at all (no positive ``1 / K`` does better than ``K = inf``)."""
    x = cp.astype(np.float64)
    b = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-b * x))
        gradient = np.dot(p - result, x)
        curvature = np.dot(p * (1 - p), x * x)
        if curvature <= 0:
            break
        step = gradient / curvature
        b = max(b - step, b / 4)  # the log-loss is convex in b: damp only the way down
        if abs(step) <= 1e-12 + 1e-9 * abs(b):
            break
    return 1 / b if b > 0 else math.inf


def calibrated_scale(model: NnueModel | TupleModel, data: Dataset, k_target: float,
                     batch: int) -> tuple[int | None, float]:
    """The ``SCALE`` with which the model's scores of ``data`` (not the proven ones, nor
    those off the game's path) predict their results as ``sigmoid(cp / k_target)``, and
    the model's own ``K`` there; ``None`` when its scores do not predict the results."""
    # Neither proven scores nor positions whose results are another's (FLAG_CHILD).
    quiet = np.flatnonzero(~data.mate & data.played)
    cp = np.empty(len(quiet))
    model.eval()
    with torch.no_grad():
        for start in range(0, len(quiet), batch):
            index = quiet[start:start + batch]
            features, _ = data.batch(index, k_target, 0.0, None)  # (the target unused)
            cp[start:start + len(index)] = model(*features).numpy()
    k = logistic_k(cp, data.result[quiet])
    if not math.isfinite(k):
        return None, k
    return max(1, round(model.scale * k_target / k)), k


class Dataset:
    """Records as inputs and targets, with a 7x7 flag for the symmetries.

    The boards stay bitboards (24 bytes a position) and become input bits one batch
    at a time: 23M positions then take 1 GB rather than the 4.4 GB of their bits
    (and some 12 GB while those were made)."""

    def __init__(self, records: np.ndarray, tuples: bool = False) -> None:
        self.tuples = tuples
        self.us = np.ascontiguousarray(records["us"])
        self.them = np.ascontiguousarray(records["them"])
        self.playable = np.ascontiguousarray(records["playable"])
        # The number of pieces, which picks the output bucket (no symmetry changes it).
        self.pieces = (np.bitwise_count(self.us).astype(np.int64)
                       + np.bitwise_count(self.them).astype(np.int64))
        self.score = records["score"].astype(np.float32)
        self.result = ((records["result"].astype(np.float32)) + 1) / 2
        self.mate = (records["flags"] & FLAG_MATE) != 0
        #: whether the result is the position's own (not ``FLAG_CHILD``).
        self.played = (records["flags"] & FLAG_CHILD) == 0
        # The symmetries apply to 7x7 boards: something playable on rank 7 and on file g,
        # nothing on rank 8 or file h.
        playable = self.playable
        self.square = (
            ((playable & _BEYOND_7X7) == 0) & ((playable & _RANK_7) != 0)
            & ((playable & _FILE_G) != 0)
        )

    def __len__(self) -> int:
        return len(self.score)

    def batch(self, index: np.ndarray, k: float, wdl: float, perm: np.ndarray | None
              ) -> tuple[torch.Tensor, ...]:
        """The model's inputs and the targets of the positions ``index``, under the
        symmetry ``perm`` (7x7 boards only) if given."""
        us, them, playable = self.us[index], self.them[index], self.playable[index]
        shifts = _SHIFTS
        if perm is not None:
            # Square i takes what was at perm[i] (the inverse symmetry, also one of the
            # 8), read straight from the bitboards; other boards than 7x7 stay as they are.
            shifts = np.where(self.square[index][:, None], _SHIFTS[perm], _SHIFTS)
        if self.tuples:
            stm, other = bits(us, shifts), bits(them, shifts)
            blocked = 1 - bits(playable, shifts)
        else:
            (stm, other), blocked = inputs(us, them, playable, shifts), None
        # A position off the game's path learns its score alone.
        weight = wdl * self.played[index]
        target = torch.from_numpy(
            ((1 - weight) / (1 + np.exp(-self.score[index] / k)) + weight * self.result[index])
            .astype(np.float32))
        if self.tuples:
            features = (torch.from_numpy(tuple_indices(stm, other)),
                        torch.from_numpy(blocked.astype(np.float32)),
                        torch.from_numpy(self.pieces[index]))
        else:
            features = (torch.from_numpy(stm.astype(np.float32)),
                        torch.from_numpy(other.astype(np.float32)))
        return features, target


def loss_on(model: NnueModel | TupleModel, data: Dataset, k: float, wdl: float,
            batch: int) -> float:
    model.eval()
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(data), batch):
            index = np.arange(start, min(start + batch, len(data)))
            features, target = data.batch(index, k, wdl, None)
            pred = torch.sigmoid(model(*features) / k)
            total += float(torch.sum((pred - target) ** 2))
    return total / max(1, len(data))


def data_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.bin")) if p.is_dir() else [p])
    if not files:
        raise SystemExit(f"no positions files in {', '.join(map(str, paths))}")
    return files


def train(files: list[Path], out: Path, *, tuples: bool = False, hidden: int = 64,
          buckets: int = 1, epochs: int = 10, batch: int = 1024,
          lr: float = 2e-3, wdl: float = 0.5, holdout: float = 0.05, seed: int = 1,
          threads: int = 1, init: Network | None = None, calibrate: float = CALIBRATED_K,
          log=print) -> dict[str, float]:
    """Train, export the best epoch to ``out`` (its output scale calibrated to
    ``calibrate``, 0: the model's own) and return its figures. With ``epochs=0`` the
    ``init`` network is exported as it is, calibrated."""
    if buckets != 1 and not tuples:
        raise SystemExit("--buckets: output buckets are for tuple networks (--inputs tuples)")
    if not 1 <= buckets <= MAX_BUCKETS:
        raise SystemExit(f"--buckets {buckets}: expected 1..{MAX_BUCKETS}")
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    n_hold = max(1, round(len(files) * holdout)) if len(files) > 1 else 0
    train_records = read_many(files[: len(files) - n_hold])
    hold_records = read_many(files[len(files) - n_hold:]) if n_hold else train_records[-max(
        1, len(train_records) // 20):]
    k = fit_k(train_records["score"][train_records["flags"] == 0].astype(np.float64),
              train_records["result"][train_records["flags"] == 0])
    train_set, hold_set = Dataset(train_records, tuples), Dataset(hold_records, tuples)
    del train_records, hold_records
    log(f"{len(train_set)} training positions ({len(files) - n_hold} files), "
        f"{len(hold_set)} held out; K = {k:.0f}")
    model = TupleModel(hidden, buckets) if tuples else NnueModel(hidden)
    if init is not None:
        if init.tuples != tuples or init.hidden > hidden:
            raise SystemExit(f"--init: a {'tuple' if init.tuples else 'piece-square'} network "
                             f"of {init.hidden} hidden units, not the one asked for "
                             f"(--hidden {hidden} or more, --inputs "
                             f"{'tuples' if init.tuples else 'piece-square'})")
        model.load_(init)
    model.clip_()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = max(1, epochs * math.ceil(len(train_set) / batch))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    perms = symmetries()
    best = math.inf
    started = time.perf_counter()
    figures: dict[str, float] = {"k": k, "positions": float(len(train_set))}

    def export(held: float) -> None:
        scale = None
        if calibrate:
            scale, own_k = calibrated_scale(model, hold_set, calibrate, 4096)
            figures["own_k"] = own_k
            log(f"its scores' K on the held-out positions: {own_k:.1f}; "
                + (f"exported at SCALE {scale} (K {calibrate:g})" if scale else
                   "they do not predict the results: exported uncalibrated"))
        out.write_bytes(model.export(scale).to_bytes())
        figures["held_out"] = held
        figures["scale"] = float(scale or round(model.scale))

    if epochs == 0:
        if init is None:
            raise SystemExit("--epochs 0 exports the --init network again: name one")
        export(loss_on(model, hold_set, k, wdl, 4096))
    for epoch in range(1, epochs + 1):
        model.train()
        order = rng.permutation(len(train_set))
        total = 0.0
        for start in range(0, len(order), batch):
            index = order[start:start + batch]
            features, target = train_set.batch(index, k, wdl, perms[rng.integers(8)])
            pred = torch.sigmoid(model(*features) / k)
            loss = torch.mean((pred - target) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            model.clip_()
            total += loss.item() * len(index)
        held = loss_on(model, hold_set, k, wdl, 4096)
        log(f"epoch {epoch}: train {total / len(train_set):.5f}, held-out {held:.5f}, "
            f"{time.perf_counter() - started:.0f} s")
        if held < best:
            best = held
            export(held)
    figures["seconds"] = time.perf_counter() - started
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+", help="positions files or folders of them")
    parser.add_argument("--out", type=Path, required=True, help="weights file to write")
    parser.add_argument("--inputs", choices=("piece-square", "tuples"), default="piece-square",
                        help="the network's inputs (gameclub.ataxx.engine.nnue)")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--buckets", type=int,
                        help="output layers of a tuple network, chosen by the number of "
                             f"pieces (1..{MAX_BUCKETS}; default: the --init network's, or 1)")
    parser.add_argument("--epochs", type=int, default=10,
                        help="0: export the --init network again, only calibrated")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--wdl", type=float, default=0.5,
                        help="weight of the game result in the target (the rest: the score)")
    parser.add_argument("--holdout", type=float, default=0.05, help="share of files held out")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch CPU threads")
    parser.add_argument("--init", metavar="FILE",
                        help="start from this network (same inputs, --hidden no smaller: "
                             "a wider model keeps its weights in its first units; 1: the "
                             "shipped one) instead of random weights")
    parser.add_argument("--calibrate", type=float, default=CALIBRATED_K, metavar="K",
                        help="export with the output scale at which the network's scores "
                             "predict the held-out results as sigmoid(cp / K) (default "
                             f"{CALIBRATED_K:g}; 0: keep the model's scale)")
    args = parser.parse_args(argv)
    if args.epochs < 0 or args.calibrate < 0:
        parser.error("--epochs and --calibrate cannot be negative")
    init = None
    if args.init is not None:
        try:
            init = load_network(None if args.init == "1" else args.init)
        except NetworkFileError as exc:
            parser.error(f"--init: {exc}")
    figures = train(data_files(args.data), args.out, tuples=args.inputs == "tuples",
                    hidden=args.hidden,
                    buckets=(args.buckets if args.buckets is not None
                             else init.buckets if init is not None else 1),
                    epochs=args.epochs,
                    batch=args.batch, lr=args.lr, wdl=args.wdl, holdout=args.holdout,
                    seed=args.seed, threads=args.threads, init=init,
                    calibrate=args.calibrate, log=lambda s: print(s, file=sys.stderr, flush=True))
    print(f"wrote {args.out}: held-out loss {figures['held_out']:.5f} on "
          f"{figures['positions']:.0f} positions in {figures['seconds']:.0f} s, "
          f"SCALE {figures['scale']:.0f}")


if __name__ == "__main__":
    main()
