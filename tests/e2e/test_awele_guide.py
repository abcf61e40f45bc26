"""The Awele guide's tiny rules module (``web/guide/awele-mini.js``) against the rules library.

The small boards of /awele/learn sow and capture in the page (the club's games
are played by the server). Their one-move model must say what the real rules
say: for positions met in random games under the club's ``awele`` rules, each
legal move's pits, stores and captured seeds from ``awele-mini.js`` (run by
node) equal those of ``gameclub.awele.Board``; and the guide's scenes do what
their captions promise.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from gameclub.awele import AWELE, Board

WEB = Path(__file__).resolve().parents[2] / "src" / "gameclub" / "web"
MINI = WEB / "guide" / "awele-mini.js"
SCENES = WEB / "guide" / "awele-scenes.js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_module(source: str, script: str) -> object:
    """Run ``source`` (an ES module without imports) with ``script`` appended; its JSON output."""
    assert NODE
    done = subprocess.run(
        [NODE, "--input-type=module"], input=source + "\n" + script, capture_output=True,
        text=True, timeout=60, check=True,
    )
    return json.loads(done.stdout)


def sampled_moves(games: int, seed: int) -> list[dict[str, object]]:
    """Positions of random games under ``awele`` and each legal move's outcome by the library."""
    rng = random.Random(seed)
    cases: list[dict[str, object]] = []
    for _ in range(games):
        board = Board(rules=AWELE)
        while board.outcome() is None and board.legal_moves:
            side = "x" if board.position().endswith("S") else "o"
            for move in board.legal_moves:
                after = Board(board.position(), rules=AWELE)
                after.push(move)
                cases.append({
                    "pits": list(board.pits), "side": side, "move": str(move),
                    "stores": {"x": board.stores[0], "o": board.stores[1]},
                    "after": list(after.pits),
                    "stores_after": {"x": after.stores[0], "o": after.stores[1]},
                })
            board.push(rng.choice(board.legal_moves))
    return cases


def test_the_guide_sows_and_captures_as_the_rules_library() -> None:
    cases = sampled_moves(games=12, seed=2026)
    assert len(cases) > 1000
    captures = [c for c in cases if c["stores_after"] != c["stores"]]
    assert len(captures) > 50  # the sample holds captures, chains of them and long laps
    assert any(c["pits"][" ABCDEFabcdef".index(str(c["move"])) - 1] >= 12 for c in cases)
    out = run_module(MINI.read_text(encoding="utf-8"), f"""
        const cases = {json.dumps(cases)};
        console.log(JSON.stringify(cases.map((c) => {{
          const r = play(c.pits, c.stores, c.side, c.move);
          return {{ pits: r.pits, stores: r.stores, seeds: r.seeds }};
        }})));
    """)
    assert isinstance(out, list)
    for case, got in zip(cases, out, strict=True):
        assert got["pits"] == case["after"], case
        assert got["stores"] == case["stores_after"], case
        stores_before = case["stores"]
        assert isinstance(stores_before, dict)
        gained = got["stores"][case["side"]] - stores_before[case["side"]]
        assert got["seeds"] == gained, case


def test_the_guide_scenes_do_what_their_captions_say() -> None:
    source = MINI.read_text(encoding="utf-8") + "\n" + SCENES.read_text(encoding="utf-8")
    out = run_module(source, """
        const s = AWELE_SCENES;
        console.log(JSON.stringify({
          sow: legal(s.sow.pits, "x").map((p) =>
            play(s.sow.pits, s.sow.stores, "x", p).sown.length),
          capture: Object.fromEntries(legal(s.capture.pits, "x").map((p) =>
            [p, play(s.capture.pits, s.capture.stores, "x", p).seeds])),
          lap: play(s.lap.pits, s.lap.stores, "x", "F"),
          end: legal(s.end.pits, "x").map((p) => play(s.end.pits, s.end.stores, "x", p).over),
        }));
    """)
    assert isinstance(out, dict)
    assert out["sow"] == [4] * 6
    # Exactly one pit captures in the capture scene: D, two pits (5 seeds).
    assert out["capture"] == {"A": 0, "D": 5, "E": 0}
    # F's 13 seeds skip F (index 5) and capture.
    lap = out["lap"]
    assert 5 not in lap["sown"] and len(lap["sown"]) == 13 and lap["seeds"] == 5
    # Every move of the last scene reaches 25 and wins.
    assert out["end"] == [{"winner": "x"}, {"winner": "x"}]
