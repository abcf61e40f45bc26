"""The exact Awele solver at 8, 10 and 12 seeds: time and peak memory, against a
peer: the same solver module as it stood at an earlier revision, same run.

Each solve runs in a fresh process (so its peak resident memory is its own),
after one tiny solve that loads the compiled kernels; the figures (wall time,
CPU time, which a busy machine disturbs less, and peak memory) are the medians
of ``--runs`` such processes. The peer is ``src/gameclub/awele/solver.py`` at
``--baseline`` (a git revision, e.g. the one before the dense per-layer solve),
imported from a copy; values and position counts must agree with ours.

    python benchmarks/bench_awele_solve.py [--runs 3] [--baseline REV] [--seeds 8 10 12]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Positions under awari rules with all their seeds spread over the pits.
POSITIONS = {
    8: "1-1-1-1-0-0-1-1-1-1-0-0-20-20-S",
    10: "1-1-1-1-1-0-1-1-1-1-1-0-19-19-S",
    12: "1-1-1-1-1-1-1-1-1-1-1-1-18-18-S",
}

CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[2]) if sys.argv[2] else None
from gameclub.awele import AWARI, Board
solve = __import__(sys.argv[3]).solve if sys.argv[2] else __import__(
    "gameclub.awele.solver", fromlist=["solve"]).solve
solve(Board("1-0-0-0-0-0-0-0-0-0-0-1-0-0-S", AWARI))
started, cpu = time.perf_counter(), time.process_time()
found = solve(Board(sys.argv[1], AWARI))
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"value": found.value, "positions": found.positions, "moves":
                  {m.text: v for m, v in found.moves.items()}, "time": elapsed, "cpu": cpu,
                  "mb": peak}))
"""


def run(position: str, module_dir: str, module: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CHILD, position, module_dir, module],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="git revision of the peer solver (default: none)")
    parser.add_argument("--seeds", type=int, nargs="+", default=sorted(POSITIONS),
                        choices=sorted(POSITIONS))
    args = parser.parse_args()
    peers = [("ours", "", "")]
    with tempfile.TemporaryDirectory() as scratch:
        if args.baseline:
            source = subprocess.run(
                ["git", "show", f"{args.baseline}:src/gameclub/awele/solver.py"], cwd=ROOT,
                check=True, capture_output=True, text=True).stdout
            (Path(scratch) / "baseline_solver.py").write_text(source)
            peers.append((f"at {args.baseline}", scratch, "baseline_solver"))
        for seeds in args.seeds:
            position = POSITIONS[seeds]
            found: dict[str, dict[str, object]] = {}
            for name, module_dir, module in peers:
                results = [run(position, module_dir, module) for _ in range(args.runs)]
                time_s = statistics.median(float(r["time"]) for r in results)  # type: ignore[arg-type]
                cpu = statistics.median(float(r["cpu"]) for r in results)  # type: ignore[arg-type]
                mb = statistics.median(float(r["mb"]) for r in results)  # type: ignore[arg-type]
                found[name] = results[0]
                print(f"{seeds:2d} seeds {position}: {name:>14}: value {results[0]['value']:+d} "
                      f"{results[0]['positions']} positions, {time_s:7.2f} s "
                      f"({cpu:6.2f} s of CPU), {mb:6.0f} MB peak",
                      flush=True)
            answers = {(r["value"], r["positions"], json.dumps(r["moves"])) for r in found.values()}
            if len(answers) != 1:
                print(f"  DISAGREE: {found}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
