"""OpenSpiel's ``oware`` as an oracle: positions by move sequence, and its perft.

Run as a script to rewrite tests/data/awele-perft-oware.txt from OpenSpiel
alone (our code plays no part in the counts)::

    python tests/awele/oware_oracle.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

TABLE = Path(__file__).parent.parent / "data" / "awele-perft-oware.txt"
LETTERS = "ABCDEFabcdef"


def load_game():  # type: ignore[no-untyped-def]
    import pyspiel

    return pyspiel.load_game("oware")


def state_after(game, moves: str):  # type: ignore[no-untyped-def]
    """OpenSpiel's state after ``moves`` (pit letters) from the start."""
    state = game.new_initial_state()
    for letter in moves:
        state.apply_action(LETTERS.index(letter) % 6)
    return state


def openspiel_perft(state, depth: int) -> int:  # type: ignore[no-untyped-def]
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    return sum(openspiel_perft(state.child(action), depth - 1)
               for action in state.legal_actions())


def random_line(game, seed: int, plies: int) -> str:  # type: ignore[no-untyped-def]
    """Letters of a seeded random line of ``plies`` moves (shorter if the game ends)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    letters = []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        letters.append(LETTERS[6 * state.current_player() + action])
        state.apply_action(action)
    return "".join(letters)


def build_table(budget: int = 400_000) -> list[tuple[str, int, int]]:
    game = load_game()
    lines = [""] + [random_line(game, seed, plies)
                    for seed, plies in ((1, 20), (2, 40), (3, 60), (4, 80), (5, 100),
                                        (6, 120), (7, 150), (8, 30), (9, 70), (10, 110))]
    rows = []
    for line in lines:
        state = state_after(game, line)
        if state.is_terminal():
            continue
        depth = 1
        while True:
            nodes = openspiel_perft(state, depth)
            rows.append((line, depth, nodes))
            if nodes * 6 > budget or nodes == 0 or depth >= 14:
                break
            depth += 1
    return rows


if __name__ == "__main__":
    rows = build_table()
    with TABLE.open("w") as out:
        out.write("# OpenSpiel oware perft: moves from the start (- for none), depth, leaves\n")
        for line, depth, nodes in rows:
            out.write(f"{line or '-'} {depth} {nodes}\n")
    print(f"{len(rows)} rows written to {TABLE}", file=sys.stderr)
