"""Average the weights of networks trained from one start (a "model soup").

    .venv/bin/python scripts/nnue_average.py A.bin B.bin --out SOUP.bin
    .venv/bin/python scripts/nnue_train.py DATA... --epochs 0 --init SOUP.bin --out NET.bin

Two trainings of one recipe on one round's data, from the same network and with
different ``--seed``, end in networks that differ by more than the noise of a match
(docs/nnue.md, "A twenty-fifth round"); trained from one start they stay close enough
in weight space that their mean is a network too, and the mean of several is what each
training estimates. The weights are averaged as integers (rounded to the nearest), so
the soup is within one quantisation step of the float mean. Its ``SCALE`` is the mean
of theirs; calibrate it again on the data (``nnue_train.py --epochs 0``, second line
above), as every exported network is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from gameclub.ataxx.engine.nnue import Network, NetworkFileError, load_network


def average(networks: list[Network]) -> Network:
    """The weight-wise mean of networks of one shape; ValueError if their shapes differ."""
    first = networks[0]
    for net in networks[1:]:
        if (net.w1.shape, net.w2.shape) != (first.w1.shape, first.w2.shape):
            raise ValueError(f"networks of shapes {first.w1.shape}/{first.w2.shape} and "
                             f"{net.w1.shape}/{net.w2.shape}: only networks of one shape "
                             "average")

    def mean(name: str) -> np.ndarray:
        stack = np.stack([getattr(net, name).astype(np.float64) for net in networks])
        return np.rint(stack.mean(axis=0)).astype(np.int64)

    scale = round(float(np.mean([net.scale for net in networks])))
    return Network.from_arrays(mean("w1"), mean("b1"), mean("w2"), mean("b2"), scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("networks", type=Path, nargs="+", help="weights files of one shape")
    parser.add_argument("--out", type=Path, required=True, help="weights file to write")
    args = parser.parse_args(argv)
    if len(args.networks) < 2:
        parser.error("give at least two networks to average")
    try:
        networks = [load_network(path) for path in args.networks]
        soup = average(networks)
    except (NetworkFileError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.write_bytes(soup.to_bytes())
    print(f"{args.out}: the mean of {len(networks)} networks "
          f"({soup.inputs} inputs, {soup.hidden} hidden, {soup.buckets} buckets), "
          f"SCALE {soup.scale}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
