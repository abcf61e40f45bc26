"""Engine-vs-engine matches over the 4-ply openings, for quick strength checks.

    .venv/bin/python benchmarks/selfplay.py master:tc=1+0.01 expert --games 40
    .venv/bin/python benchmarks/selfplay.py master:nodes=2000 master:nodes=2000 \\
        --games 400 --dump positions.npz          # tuning data for scripts/tune_eval.py

A player is ``level[:key=value,...]`` with keys ``tc`` (seconds+increment),
``movetime``, ``depth``, ``nodes``, the master switches ``nullmove`` (0/1), ``lmr``
(0/1/2/3: see search.OPT_LMR), ``futility`` and ``staticcut`` (margins in centipawns
per ply, 0 = off), ``prunedepth`` (the depth up to which those two apply),
``quietjumps`` (N: skip jumps that take nothing once N moves are searched, 0 = off),
``iir`` (N: one ply less without a transposition-table move from depth N), ``malus``
(1: moves searched before a cut-off lose history), ``lmrpv`` (1: one ply less
reduction at PV nodes), ``lmp`` (N: at depth <= 3 skip moves that take nothing after
N * depth moves), ``lmrindex`` (the move index from which late-move reductions
apply), ``latefp``, ``latefpslope`` and ``latefpdepth`` (late futility: once three
moves are searched at depth <= ``latefpdepth``, stop when the static score plus
``latefp`` plus ``latefpslope`` per ply is below alpha; ``latefpdepth=0`` off),
``gravity`` (1: history bounded, Zataxx's formula), ``lmrhistory`` (N: one ply less
reduction per N of history), ``singular`` (N: singular extensions and multi-cut from
depth N, 0 off), ``tteval`` (1: the pruning reads the static score bounded by the
transposition table's score), ``improving`` (1: the static cut-off's margin a ply
smaller where the static score is above the one two plies up), ``endgame`` (empty
squares at which the exact solver is tried first),
``aspiration`` and ``aspgrow`` (the aspiration window's first half-width in
centipawns and the factor that widens it after a failure), ``nodetm`` (N: the soft
time limit scaled by ``(1.55 - share) * N`` from depth 7, ``share`` the best root
move's part of the nodes; 0 off), ``nnue`` (a network
weights file from scripts/nnue_train.py, ``1`` for the shipped one, master's
default, ``0`` for the hand-written evaluation), ``mtgscale`` (the
time manager guesses ``scale * empty squares + 4`` moves left), ``reserve`` and
``reserveinc`` (the clock it keeps back: seconds plus increments), ``softshare``
(the soft limit's share of a move's time), ``minmtg`` (the fewest moves left it
shares the clock among) and ``random``
(probability of a random move in the first 16 plies, for varied data).
Each opening is played twice with colours swapped; the file has 40, so at fixed
nodes or depth games 80 on repeat games 0-79 move for move unless ``--random-plies
N`` follows each opening with N random moves (drawn from ``--seed`` and the pair,
the same for both games of a pair). A side whose clock runs out
loses (that is counted and printed). Prints wins/draws/losses of the first
player, its score and an Elo estimate with a 95% interval.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gameclub.ataxx import ATAXX, Board, Color
from gameclub.ataxx.engine import Engine, SearchLimits, search

#: selfplay keys for the fields of master's time rule (timeman.TimeRule).
TIME_RULE_KEYS = {"reserve": "reserve", "reserveinc": "reserve_increments",
                  "softshare": "soft_share", "minmtg": "min_moves"}

OPENINGS = Path(__file__).resolve().parents[1] / "src/gameclub/data/ataxx-openings-4ply.txt"


@dataclass
class Player:
    level: str
    options: dict[str, float]
    engine: Engine

    @classmethod
    def parse(cls, spec: str, seed: int) -> Player:
        level, _, rest = spec.partition(":")
        options: dict[str, float] = {}
        clock = None
        weights_file = None
        network = None
        for item in filter(None, rest.split(",")):
            key, _, value = item.partition("=")
            if key == "weights":
                weights_file = value
                continue
            if key == "nnue":
                network = value
                continue
            if key == "tc":
                base, _, inc = value.partition("+")
                options["time"], options["inc"] = float(base), float(inc or 0)
                clock = True
            else:
                options[key] = float(value)
        del clock
        engine = Engine(level, seed=seed)
        if level == "master":
            master = engine._master_search()
            for key, index in search.SWITCHES.items():
                if key in options:
                    master.options[index] = int(options[key])
            if "endgame" in options:
                master.endgame_empties = int(options["endgame"])
            if "aspiration" in options:
                master.aspiration = int(options["aspiration"])
            if "aspgrow" in options:
                master.aspiration_growth = options["aspgrow"]
            if "nodetm" in options:
                master.node_time = options["nodetm"]
            rule = {field: options[key] for key, field in TIME_RULE_KEYS.items() if key in options}
            if rule:
                if "min_moves" in rule:
                    rule["min_moves"] = int(rule["min_moves"])
                master.time_rule = dataclasses.replace(master.time_rule, **rule)
            # A weights file from scripts/nnue_train.py ("1": the shipped network, the
            # default; "0": the hand-written evaluation).
            if network == "0":
                master.use_network(False)
            elif network is not None and not master.use_network(
                    path=None if network == "1" else network):
                raise SystemExit(f"cannot use the network {network!r}")
            if weights_file is not None:
                # A weights module written by scripts/tune_eval.py, to compare before shipping:
                # the hand-written evaluation's weights, so that player plays without a network.
                master.use_network(False)
                namespace: dict[str, tuple[int, ...]] = {}
                exec(Path(weights_file).read_text(), namespace)
                master.w_open = np.array(namespace["OPENING"], dtype=np.int64)
                master.w_end = np.array(namespace["ENDGAME"], dtype=np.int64)
        return cls(level, options, engine)

    def limits(self, clocks: list[float], incs: list[float], empties: int) -> SearchLimits:
        o = self.options
        if "time" in o:
            mtg = None
            if "mtgscale" in o:
                # Time-manager experiments: guess our moves left as scale * empty squares.
                mtg = max(8, round(empties * o["mtgscale"]) + 4)
            return SearchLimits(wtime=clocks[0], btime=clocks[1], winc=incs[0], binc=incs[1],
                                movestogo=mtg)
        return SearchLimits(
            depth=int(o["depth"]) if "depth" in o else None,
            nodes=int(o["nodes"]) if "nodes" in o else None,
            movetime=o.get("movetime"),
        )


def play(players: tuple[Player, Player], fen: str, rng: random.Random,
         positions: list[tuple[int, int, int, int]] | None) -> tuple[float, bool]:
    """Play one game, ``players[0]`` as x; return x's score (1 / 0.5 / 0) and a time loss flag."""
    board = Board(fen, rules=ATAXX)
    for p in players:
        p.engine.new_game()
    clocks = [p.options.get("time", 0.0) for p in players]
    incs = [p.options.get("inc", 0.0) for p in players]
    seen: list[tuple[int, int, int]] = []
    while board.outcome() is None:
        side = int(board.turn)
        player = players[side]
        if rng.random() < player.options.get("random", 0.0) and len(board.move_stack) < 16:
            move = rng.choice(board.legal_moves)
        else:
            started = time.perf_counter()
            limits = player.limits(clocks, incs, board.empty.bit_count())
            move = player.engine.search(board, limits).move
            if "time" in player.options:
                clocks[side] -= time.perf_counter() - started
                if clocks[side] < 0:
                    return (0.0 if side == 0 else 1.0), True
                clocks[side] += incs[side]
        if positions is not None:
            seen.append((board.pieces(board.turn), board.pieces(board.turn.other), side))
        board.push(move)
    outcome = board.outcome()
    assert outcome is not None
    x_score = 0.5 if outcome.winner is None else (1.0 if outcome.winner is Color.X else 0.0)
    if positions is not None:
        for us, them, side in seen:
            label = int(2 * (x_score if side == 0 else 1 - x_score))
            positions.append((us, them, board.playable, label))
    return x_score, False


def random_start(fen: str, plies: int, rng: random.Random) -> str:
    """``fen`` after up to ``plies`` random moves (fewer if the game ends)."""
    board = Board(fen, rules=ATAXX)
    for _ in range(plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    return board.fen()


def elo(score: float, games: int) -> tuple[float, float]:
    """Elo difference and the half-width of its 95% interval (normal approximation)."""
    p = min(max(score / games, 1e-3), 1 - 1e-3)
    diff = -400 * math.log10(1 / p - 1)
    sd = math.sqrt(p * (1 - p) / games)
    hi = min(p + 1.96 * sd, 1 - 1e-3)
    return diff, -400 * math.log10(1 / hi - 1) - diff


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--games", type=int, default=40, help="rounded up to pairs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", type=Path, help="save every position with its result (npz)")
    parser.add_argument("--random-plies", type=int, default=0, metavar="N",
                        help="random moves after each opening, for more distinct games")
    args = parser.parse_args()
    openings = [line.strip() for line in OPENINGS.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    rng = random.Random(args.seed)
    a = Player.parse(args.first, args.seed)
    b = Player.parse(args.second, args.seed + 1)
    positions: list[tuple[int, int, int, int]] | None = [] if args.dump else None
    wins = draws = losses = time_losses = 0
    started = time.perf_counter()
    for game in range(args.games + args.games % 2):
        fen = openings[(game // 2) % len(openings)]
        if args.random_plies:
            fen = random_start(fen, args.random_plies, random.Random(f"{args.seed}-{game // 2}"))
        a_is_x = game % 2 == 0
        x_score, on_time = play((a, b) if a_is_x else (b, a), fen, rng, positions)
        a_score = x_score if a_is_x else 1 - x_score
        time_losses += on_time
        wins += a_score == 1
        draws += a_score == 0.5
        losses += a_score == 0
    games = wins + draws + losses
    score = wins + draws / 2
    diff, margin = elo(score, games)
    print(f"{args.first} vs {args.second}: +{wins} ={draws} -{losses} "
          f"score {100 * score / games:.1f}% Elo {diff:+.0f} +- {margin:.0f} "
          f"({games} games, {time_losses} lost on time, {time.perf_counter() - started:.0f} s)")
    if positions is not None and args.dump:
        data = np.array(positions, dtype=np.uint64)
        np.savez_compressed(args.dump, us=data[:, 0], them=data[:, 1], playable=data[:, 2],
                            result=data[:, 3].astype(np.int8))
        print(f"saved {len(positions)} positions to {args.dump}")


if __name__ == "__main__":
    main()
