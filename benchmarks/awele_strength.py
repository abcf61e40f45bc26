"""Strength of the Awele levels: the ladder, OpenSpiel's MCTS, and Aalina.

Every match is played by the match runner (``gameclub.match.run_awele_match``)
with our engine as a UCI-for-Oware process under the ``oware`` rules (abapa:
Aalina's and OpenSpiel's). The games of a series are numbered: game ``g``
starts from opening ``g // 2`` of the 190 three-move openings (shuffled with
``--seed``), master (or the first engine) plays South when ``g`` is even and
North when it is odd, so each opening is played twice with colours swapped::

    python benchmarks/awele_strength.py ladder --games 72
        random vs greedy and greedy vs master (0.1 s a move)
    python benchmarks/awele_strength.py mcts --games 200 [--nodes 300000]
        master (a node budget: the bot ignores time) vs OpenSpiel's MCTS, 10,000
        simulations a move (benchmarks/openspiel_mcts_uci.py, seeded per game)
    python benchmarks/awele_strength.py aalina --games 100 --movetime 1 \\
        --aalina "java -cp /tmp/aalina/build com.joansala.oware.OwareService"
        master vs Aalina at 1 s a move, its opening book off (docs/awele-engine.md
        says how to build it)

A long series is played in slices: ``--first-game N --games M`` plays games
``N .. N+M-1`` (``N`` even), and ``--results FILE`` appends each finished game
to FILE as a JSON line, skips the games FILE already holds, and ends with the
tally of every game in it; ``--tally`` only prints that tally. So 200 games
can be played across runs, each game once, with distinct openings.

Each match prints its games as they end and a summary: W-L-D from the first
engine's side, its score, the Elo difference with a 95% interval, and the
likelihood of superiority.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from pathlib import Path

from gameclub.ataxx.board import Color
from gameclub.awele.rules import RULESETS
from gameclub.match import (
    AweleMatchConfig,
    MatchResult,
    TimeControl,
    awele_openings,
    elo_estimate,
    parse_awele_engine,
    run_awele_match,
)

HERE = Path(__file__).resolve().parent

#: Plies of the openings: 190 of them (a pit emptied by the first move cannot be
#: played third), 380 games with colours swapped.
OPENING_PLIES = 3


def series_openings(seed: int) -> list[str]:
    """The openings of a series in their order: game ``g`` starts from entry ``g // 2``."""
    openings = awele_openings(RULESETS["oware"], OPENING_PLIES)
    random.Random(seed).shuffle(openings)
    return openings


def play(engine1: str, engine2: str, tc: TimeControl, games: int, seed: int, *,
         options2: tuple[str, ...] = (), name2: str | None = None, margin: float = 0.1,
         pgn: str | None = None, concurrency: int = 1) -> MatchResult:
    """One match of ``games`` games from the start of the series' openings."""
    config = AweleMatchConfig(
        engine1=parse_awele_engine(engine1),
        engine2=parse_awele_engine(engine2, name=name2, options=options2),
        time_control=tc,
        openings=series_openings(seed),
        games=games,
        concurrency=concurrency,
        awele_rules=RULESETS["oware"],
        pgn_path=pgn,
        time_margin=margin,
        move_timeout=120.0,
        event="awele strength",
    )
    started = time.perf_counter()
    result = run_awele_match(config)
    print(f"{len(result.games)} games in {time.perf_counter() - started:.0f} s", flush=True)
    return result


def recorded(path: Path) -> dict[int, dict[str, object]]:
    """The games a results file holds, by number (a later line wins)."""
    games: dict[int, dict[str, object]] = {}
    if path.exists():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                games[int(record["game"])] = record
            except (ValueError, KeyError, TypeError) as exc:
                raise SystemExit(f"{path}:{number}: not a game record ({exc})") from None
    return games


def tally(path: Path) -> None:
    """Print W-L-D, score and Elo of every game in a results file."""
    games = recorded(path)
    points = [float(record["points"]) for record in games.values()]  # type: ignore[arg-type]
    wins, losses = points.count(1.0), points.count(0.0)
    draws = len(points) - wins - losses
    score = (wins + 0.5 * draws) / len(points) if points else 0.0
    numbers = sorted(games)
    print(f"{path}: {len(points)} games (numbers {numbers[0] if numbers else '-'}.."
          f"{numbers[-1] if numbers else '-'}): {wins} - {losses} - {draws} [{score:.3f}]")
    if points:
        print(elo_estimate(wins, losses, draws).describe())


def play_slice(engine1: str, engine2: str, tc: TimeControl, first: int, games: int, seed: int,
               results: Path, *, engine2_for_game=None, options2: tuple[str, ...] = (),
               name2: str | None = None, margin: float = 0.1, pgn: str | None = None) -> None:
    """Games ``first .. first+games-1`` of the series, an opening (two games) at a time,
    each appended to ``results`` as it ends; games already there are skipped."""
    if first < 0 or first % 2:
        raise SystemExit(f"--first-game must be even and not negative, not {first}")
    openings = series_openings(seed)
    last = first + games
    if last > 2 * len(openings):
        raise SystemExit(f"the series has {2 * len(openings)} games; {first}+{games} is past it")
    done = recorded(results)
    for pair in range(first // 2, (last + 1) // 2):
        wanted = [g for g in (2 * pair, 2 * pair + 1) if first <= g < last and g not in done]
        if not wanted:
            continue
        command2 = engine2_for_game(2 * pair) if engine2_for_game else engine2
        config = AweleMatchConfig(
            engine1=parse_awele_engine(engine1),
            engine2=parse_awele_engine(command2, name=name2, options=options2),
            time_control=tc,
            openings=[openings[pair]],
            # Both colours of the opening when the second game is wanted: the
            # runner gives engine 1 South in its first game, North in its second.
            games=2 if 2 * pair + 1 in wanted else 1,
            awele_rules=RULESETS["oware"],
            pgn_path=pgn,
            time_margin=margin,
            move_timeout=120.0,
            event="awele strength",
        )
        started = time.perf_counter()
        result = run_awele_match(config, out=io.StringIO())
        seconds = time.perf_counter() - started
        with results.open("a") as out:
            for game in result.games:
                number = 2 * pair + game.number - 1
                if number not in wanted:
                    continue
                record = {
                    "game": number, "opening": openings[pair],
                    "engine1": result.engine1, "engine2": result.engine2,
                    "engine1_side": "south" if game.engine1_color is Color.X else "north",
                    "result": game.result, "points": game.engine1_points,
                    "termination": game.termination, "plies": len(game.moves),
                    "moves": "".join(move.text for move in game.moves),
                }
                out.write(json.dumps(record) + "\n")
                print(f"game {number} ({openings[pair]}, {record['engine1_side']}): "
                      f"{game.result} -> {game.engine1_points} ({game.termination})", flush=True)
        print(f"opening {pair} in {seconds:.0f} s", flush=True)
    tally(results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Awele strength matches")
    parser.add_argument("pair", choices=("ladder", "mcts", "aalina"))
    parser.add_argument("--games", type=int, default=72)
    parser.add_argument("--first-game", type=int, default=0,
                        help="the series' first game to play (even; with --results)")
    parser.add_argument("--results", type=Path,
                        help="append each game to this JSON-lines file, skip the games it "
                        "holds, and print the tally of all of them")
    parser.add_argument("--tally", action="store_true",
                        help="only print the tally of --results")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--movetime", type=float, default=1.0, help="seconds a move (aalina)")
    parser.add_argument("--nodes", type=int, default=300_000, help="master's nodes a move (mcts)")
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--aalina", help="the command that runs Aalina's UCI service")
    parser.add_argument("--margin", type=float, default=0.1,
                        help="seconds an engine may overrun its move time (default 0.1)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--pgn", help="append the games to this file")
    args = parser.parse_args(argv)
    if args.tally:
        if not args.results:
            parser.error("--tally needs --results FILE")
        tally(args.results)
        return 0
    if args.first_game and not args.results:
        parser.error("--first-game needs --results FILE")

    def mcts_command(game: int) -> str:
        # Each opening's bot its own seed, so the games differ beyond the opening.
        return (f"uci:{sys.executable} {HERE / 'openspiel_mcts_uci.py'} "
                f"--simulations {args.simulations} --seed {args.seed + game}")

    if args.pair == "ladder":
        tc = TimeControl(movetime=0.1)
        play("builtin:greedy", "builtin:random", tc, args.games, args.seed, pgn=args.pgn,
             concurrency=args.concurrency)
        play("builtin:master", "builtin:greedy", tc, args.games, args.seed, pgn=args.pgn,
             concurrency=args.concurrency)
    elif args.pair == "mcts":
        name = f"mcts-{args.simulations}"
        if args.results:
            play_slice("builtin:master", "", TimeControl(nodes=args.nodes), args.first_game,
                       args.games, args.seed, args.results, engine2_for_game=mcts_command,
                       name2=name, pgn=args.pgn)
        else:
            play("builtin:master", mcts_command(0), TimeControl(nodes=args.nodes), args.games,
                 args.seed, name2=name, pgn=args.pgn, concurrency=args.concurrency)
    else:
        if not args.aalina:
            parser.error("aalina needs --aalina COMMAND (see docs/awele-engine.md)")
        tc = TimeControl(movetime=args.movetime)
        if args.results:
            play_slice("builtin:master", f"uci:{args.aalina}", tc, args.first_game, args.games,
                       args.seed, args.results, options2=("OwnBook=false",), name2="aalina",
                       margin=args.margin, pgn=args.pgn)
        else:
            play("builtin:master", f"uci:{args.aalina}", tc, args.games, args.seed,
                 options2=("OwnBook=false",), name2="aalina", margin=args.margin, pgn=args.pgn,
                 concurrency=args.concurrency)
    return 0


if __name__ == "__main__":
    sys.exit(main())
