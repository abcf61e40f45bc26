"""How closely networks agree with a reference network, on whole scores and on move order.

    .venv/bin/python scripts/nnue_agreement.py REFERENCE.bin data/selfplay NET.bin [NET.bin ...]

For positions of a data set (``scripts/nnue_selfplay.py``'s files; the proven ones are
left out) each network scores the position and every child (the position after each
legal move, scored from the mover's side: minus the child's score). Per network it
prints, against the reference:

- ``whole``: the correlation of the positions' scores, and their root mean square
  difference in centipawns;
- ``siblings``: the correlation of the children's scores once each position's mean is
  taken off, which is what ordering one position's moves depends on;
- ``best``: the share of positions (of two moves or more) where the network's best
  child is the reference's, and ``regret``: what its choice costs on average in the
  reference's centipawns.

A network's agreement on whole scores says little of its strength: networks that
follow another's scores to a correlation of 0.95 have played 100 to 200 Elo below it
(docs/nnue.md). The move order of one position is what a search reads off its
evaluation, and what these figures isolate. Networks of either kind (piece-square or
tuples) can be compared.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from numba import njit

from gameclub.ataxx.bitboard import MAX_MOVES, count_moves, generate_moves, make_move
from gameclub.ataxx.engine import nnue
from gameclub.ataxx.engine.nnue import Network, NetworkFileError, load_network
from gameclub.ataxx.engine.nnue_data import FLAG_MATE, PositionFileError, read_many


# Not cached: numba's cache keys on the module, and the tests load this script by path.
@njit
def _score(net_kind, us, them, playable, w1, b1, rows, base, w2, b2, scale, acc):
    """The network's centipawns for the side to move (``us``)."""
    if net_kind == 1:
        return nnue.evaluate_tuples(us, them, rows, base, w2, b2, scale, acc[0])
    return nnue.evaluate_position(us, them, playable, 0, w1, b1, w2, b2, scale)


@njit
def _children(us, them, playable):
    """The number of children of all the positions (their non-pass moves)."""
    n = 0
    for i in range(len(us)):
        n += count_moves(us[i], playable[i] & ~(us[i] | them[i]))
    return n


@njit
def _scores_kernel(net_kind, us, them, playable, base_of, bases, w1, b1, rows, w2, b2, scale,
                   parent, child, owner):
    """Fill ``parent`` with each position's score and ``child``/``owner`` with each
    child's score from the mover's side and its position's index; return the children."""
    acc = np.empty((2, w1.shape[1]), dtype=np.int16)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n = 0
    for i in range(len(us)):
        base = bases[base_of[i]]
        parent[i] = _score(net_kind, us[i], them[i], playable[i], w1, b1, rows, base, w2, b2,
                           scale, acc)
        count = generate_moves(us[i], playable[i] & ~(us[i] | them[i]), moves)
        for j in range(count):
            mover, other = make_move(us[i], them[i], moves[j])
            child[n] = -_score(net_kind, other, mover, playable[i], w1, b1, rows, base, w2, b2,
                               scale, acc)
            owner[n] = i
            n += 1
    return n


def scores(net: Network, records: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(parent, child, owner)``: the network's score of each record's position, of each
    child from the mover's side, and the index of the child's position."""
    playables, base_of = np.unique(records["playable"], return_inverse=True)
    if net.tuples:
        bases = np.stack([net.base(int(p)) for p in playables])
    else:
        bases = np.zeros((len(playables), net.hidden), dtype=np.int16)
    parent = np.zeros(len(records), dtype=np.int64)
    total = _children(records["us"], records["them"], records["playable"])
    child = np.zeros(total, dtype=np.int64)
    owner = np.zeros(total, dtype=np.int64)
    n = _scores_kernel(1 if net.tuples else 0, records["us"], records["them"],
                       records["playable"], base_of.astype(np.int64), bases, net.w1, net.b1,
                       net.rows, net.w2, net.b2, np.int64(net.scale), parent, child, owner)
    assert n == total
    return parent, child, owner


def best_children(child: np.ndarray, owner: np.ndarray, positions: int) -> np.ndarray:
    """For each position, the index (into ``child``) of its best child, the first of
    equals; -1 where it has none."""
    order = np.lexsort((-child, owner))  # by position, best first (stable: first of equals)
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order[1:]] != owner[order[:-1]]
    best = np.full(positions, -1, dtype=np.int64)
    best[owner[order[first]]] = order[first]
    return best


def agreement(reference: tuple[np.ndarray, ...], other: tuple[np.ndarray, ...]
              ) -> dict[str, float]:
    """The figures of the module docstring for two networks' :func:`scores`."""
    ref_parent, ref_child, owner = reference
    parent, child, other_owner = other
    if not np.array_equal(owner, other_owner):
        raise ValueError("the two networks' scores are not of the same positions")
    positions = len(ref_parent)
    counts = np.bincount(owner, minlength=positions)

    def centred(values: np.ndarray) -> np.ndarray:
        means = np.bincount(owner, values.astype(np.float64), minlength=positions)
        return values - (means / np.maximum(counts, 1))[owner]

    choices = counts > 1
    ref_best = best_children(ref_child, owner, positions)[choices]
    best = best_children(child, owner, positions)[choices]
    return {
        "whole": float(np.corrcoef(ref_parent, parent)[0, 1]),
        "rms": float(np.sqrt(np.mean((ref_parent - parent).astype(np.float64) ** 2))),
        "siblings": float(np.corrcoef(centred(ref_child), centred(child))[0, 1]),
        "best": float(np.mean(ref_best == best)),
        "regret": float(np.mean(ref_child[ref_best] - ref_child[best])),
        "positions": float(positions),
        "children": float(len(owner)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", help="the reference network's weights file")
    parser.add_argument("data", type=Path, help="a positions file or a folder of them")
    parser.add_argument("networks", nargs="+", help="weights files to compare with it")
    parser.add_argument("--positions", type=int, default=20000,
                        help="positions to compare on, drawn at random (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error(f"--positions {args.positions}: expected at least 1")
    files = sorted(args.data.glob("*.bin")) if args.data.is_dir() else [args.data]
    if not files:
        parser.error(f"no positions files in {args.data}")
    try:
        records = read_many(files)
        networks = [load_network(path) for path in [args.reference, *args.networks]]
    except (OSError, PositionFileError, NetworkFileError) as exc:
        parser.error(str(exc))
    records = records[(records["flags"] & FLAG_MATE) == 0]
    if not len(records):
        parser.error(f"{args.data}: no positions with a searched score")
    rng = np.random.default_rng(args.seed)
    records = records[np.sort(rng.permutation(len(records))[:args.positions])]
    reference = scores(networks[0], records)
    print(f"{len(records)} positions, {len(reference[1])} children; "
          f"against {args.reference}")
    for path, net in zip(args.networks, networks[1:], strict=True):
        f = agreement(reference, scores(net, records))
        print(f"{path}: whole {f['whole']:.3f} ({f['rms']:.0f} cp rms)  "
              f"siblings {f['siblings']:.3f}  best {f['best']:.3f}  "
              f"regret {f['regret']:.1f} cp")


if __name__ == "__main__":
    main()
