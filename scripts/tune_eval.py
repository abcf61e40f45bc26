"""Tune the ``master`` evaluation by logistic regression on self-play positions.

    .venv/bin/python benchmarks/selfplay.py master:nodes=4000,random=0.08 \\
        master:nodes=4000,random=0.08 --games 1200 --dump data.npz
    .venv/bin/python scripts/tune_eval.py data.npz [more.npz ...] \\
        --out src/gameclub/ataxx/engine/weights.py

Each position is labelled with the final result for its side to move (1, 0.5, 0).
The model is P(win) = sigmoid(sum_i (p * a_i + (1 - p) * b_i) * f_i) where ``f``
are :data:`gameclub.ataxx.engine.evaluate.FEATURES`, ``p`` the share of empty
squares, ``a`` / ``b`` the opening / endgame weights. It is fitted by full-batch
gradient descent (Adam) on the log-loss with a small L2 penalty, on 90% of the
positions; the other 10% report the held-out log-loss. The weights are then
scaled so that an average square in the opening is worth 100 centipawns, and
written as a Python module.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from gameclub.ataxx.engine.evaluate import FEATURES, N_CLASSES, N_FEATURES, features


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Design matrix (phase-split features), labels and the per-square class counts."""
    from gameclub.ataxx.engine.evaluate import class_masks

    rows, labels = [], []
    masks_cache: dict[int, np.ndarray] = {}
    buf = np.zeros(N_FEATURES, dtype=np.int64)
    for path in paths:
        data = np.load(path)
        for us, them, playable, result in zip(data["us"], data["them"], data["playable"],
                                              data["result"], strict=True):
            masks = masks_cache.get(int(playable))
            if masks is None:
                width = max((int(playable) >> (8 * r)) & 0xFF for r in range(8)).bit_length()
                height = sum(1 for r in range(8) if (int(playable) >> (8 * r)) & 0xFF)
                masks = masks_cache[int(playable)] = class_masks(width, height, int(playable))
            p = features(np.uint64(us), np.uint64(them), np.uint64(playable), masks, buf)
            rows.append(np.concatenate([p * buf, (1 - p) * buf]))
            labels.append(result / 2)
    counts = np.array([bin(int(m)).count("1") for m in next(iter(masks_cache.values()))])
    return np.array(rows), np.array(labels), counts


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 3000) -> np.ndarray:
    w = np.zeros(x.shape[1])
    w[:N_CLASSES] = w[N_FEATURES:N_FEATURES + N_CLASSES] = 0.3
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    lr, b1, b2 = 0.02, 0.9, 0.999
    for t in range(1, steps + 1):
        z = np.clip(x @ w, -30, 30)
        pred = 1 / (1 + np.exp(-z))
        grad = x.T @ (pred - y) / len(y) + l2 * w
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad * grad
        w -= lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + 1e-9)
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    pred = np.clip(1 / (1 + np.exp(-np.clip(x @ w, -30, 30))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(pred) + (1 - y) * np.log(1 - pred)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--design", type=Path, help="cache of the feature matrix (npz)")
    parser.add_argument("--l2", type=float, default=1e-3, help="L2 penalty (default 1e-3)")
    args = parser.parse_args()
    if args.design and args.design.exists():
        cached = np.load(args.design)
        x, y, counts = cached["x"], cached["y"], cached["counts"]
    else:
        x, y, counts = load(args.data)
        if args.design:
            np.savez_compressed(args.design, x=x, y=y, counts=counts)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(y))
    split = len(y) * 9 // 10
    train, test = order[:split], order[split:]
    w = fit(x[train], y[train], l2=args.l2)
    material = np.zeros(x.shape[1])
    material[:N_CLASSES] = material[N_FEATURES:N_FEATURES + N_CLASSES] = 1.0
    base = fit(x[train][:, material > 0], y[train], l2=args.l2)
    print(f"{len(y)} positions; held-out log-loss {log_loss(x[test], y[test], w):.4f} "
          f"(square classes only: {log_loss(x[test][:, material > 0], y[test], base):.4f}, "
          f"constant: {log_loss(x[test], y[test], np.zeros_like(w)):.4f})")
    opening, endgame = w[:N_FEATURES], w[N_FEATURES:]
    # Centipawns: an average square at mid-game (half the squares empty) is worth 100.
    mid = (opening[:N_CLASSES] + endgame[:N_CLASSES]) / 2
    scale = 100 / (np.dot(mid, counts) / counts.sum())
    opening_cp = [round(float(v) * scale) for v in opening]
    endgame_cp = [round(float(v) * scale) for v in endgame]
    for name, a, b in zip(FEATURES, opening_cp, endgame_cp, strict=True):
        print(f"{name:8s} {a:6d} {b:6d}")
    if args.out:
        args.out.write_text(
            '"""Evaluation weights (centipawns) written by scripts/tune_eval.py; '
            'see evaluate.FEATURES."""\n\n'
            f"# Fitted on {len(y)} self-play positions; held-out log-loss "
            f"{log_loss(x[test], y[test], w):.4f}.\n"
            f"OPENING = {tuple(opening_cp)}\n"
            f"ENDGAME = {tuple(endgame_cp)}\n"
        )
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
