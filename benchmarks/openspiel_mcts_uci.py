"""OpenSpiel's MCTS bot for ``oware`` as a UCI-for-Oware engine, so the match runner can drive it.

    python benchmarks/openspiel_mcts_uci.py [--simulations 10000] [--seed 1]

It plays OpenSpiel's own (C++) ``MCTSBot`` with a random-rollout evaluator,
UCT constant 2 and solving on, the defaults of OpenSpiel's examples. Only
``position startpos moves ...`` is understood (the match runner sends nothing
else); the rules are OpenSpiel's ``oware``, our ``oware`` rule set. Needs
``open-spiel`` (the dev extra).
"""

from __future__ import annotations

import argparse
import sys


def main() -> int:
    import pyspiel

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game("oware")
    evaluator = pyspiel.RandomRolloutEvaluator(1, args.seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, args.simulations, 1000, True, args.seed, False)
    moves = ""
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print(f"id name OpenSpiel MCTS {args.simulations}")
            print("id author DeepMind (OpenSpiel)")
            print("uciok", flush=True)
        elif command == "isready":
            print("readyok", flush=True)
        elif command == "position":
            if words[1:2] != ["startpos"]:
                print("info string only 'position startpos [moves ...]' is understood", flush=True)
                moves = ""
            else:
                moves = "".join(words[3:]) if words[2:3] == ["moves"] else ""
        elif command == "go":
            state = game.new_initial_state()
            for letter in moves:
                state.apply_action("ABCDEFabcdef".index(letter) % 6)
            if state.is_terminal():
                print("bestmove 0000", flush=True)
                continue
            action = bot.step(state)
            letter = ("ABCDEF" if state.current_player() == 0 else "abcdef")[action]
            print(f"bestmove {letter}", flush=True)
        elif command == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
