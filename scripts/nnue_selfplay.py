"""Self-play training data for the network: master against itself at a fixed node budget.

    .venv/bin/python scripts/nnue_selfplay.py data/selfplay --games 2000 --nodes 2000

Each game starts from the standard 7x7 position or, with probability
``--blocks-share``, from a random valid Blocs-Config board (up to ``--max-blocks``
blocks), then plays ``--random-plies`` (a range, uniformly drawn) random moves, then
master plays both sides with ``--nodes`` nodes a move, with its hand-written
evaluation or, with ``--nnue FILE`` (``1``: the shipped network), with a network, whose
scores then label the positions. Every position master
searched (one with a single legal move is skipped: it has no score) is saved with
master's score and the final result; the format is in
``gameclub.ataxx.engine.nnue_data`` (32 bytes a position).

Two options follow Zataxx's generator: ``--max-opening-score CP`` searches each
opening with ``--nodes`` nodes and draws another while the score is further than
``CP`` from even, so that games start balanced and their results say something about
the positions; ``--adjudicate`` ends a game when master's search proves its result
(the position that proved it is saved, the rest of the game is not played).

With ``--opponents FILE,...`` a share of the games (``--league-share``) is a game
against one of those networks, drawn at random, on a random side: it chooses that
side's moves, and master with ``--nnue`` still searches every position of the game,
so every record carries its score. Games against its own earlier networks show the
network positions its own play never reaches, and results against play that is not
its own.

With ``--children K`` each saved position also has up to K of its other legal moves
(other than master's choice), drawn at random, played and searched, and the
positions after them saved with ``FLAG_CHILD`` (their results are the game's they
branch from, which the trainer does not read for them): the network then learns its
scores off the game's path too, on the positions a search compares with the one
played. A game of master costs K + 1 times its searches, and makes K + 1 times its
positions (docs/nnue.md, "A twenty-fifth round": not a gain).

Games are played in shards of ``--shard`` games, one file ``shard-NNNNN.bin`` each,
written atomically; game ``g`` depends only on ``--seed`` and ``g``. Running the
same command again skips the shards already on disk, so an interrupted run resumes
and a larger ``--games`` extends a data set. ``--workers`` processes (default: all
cores) play shards in parallel; a progress line on stderr reports games, positions
and positions per second.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.blocks import random_valid
from gameclub.ataxx.engine import Engine, SearchLimits, SearchResult
from gameclub.ataxx.engine.nnue import NetworkFileError, load_network
from gameclub.ataxx.engine.nnue_data import (
    FLAG_CHILD,
    FLAG_MATE,
    RECORD,
    SCORE_CLIP,
    write_positions,
)
from gameclub.ataxx.engine.tables import NoTables
from gameclub.ataxx.fen import format_fen

#: the corners of a 7x7 board: x on a7 and g1, o on g7 and a1.
_X_START = 1 << 48 | 1 << 6
_O_START = 1 << 54 | 1 << 0


def opening(rng: random.Random, blocks_share: float, max_blocks: int,
            random_plies: tuple[int, int]) -> Board:
    """A varied start: maybe a Blocs-Config board, then a few random moves (game not over)."""
    while True:
        blocks = 0
        if rng.random() < blocks_share:
            blocks = random_valid(rng, min_blocks=1, max_blocks=max_blocks).squares()
        board = Board(format_fen(7, 7, _X_START, _O_START, blocks, 0, 0, 1), rules=ATAXX)
        for _ in range(rng.randint(*random_plies)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        if board.outcome() is None:
            return board


def balanced_opening(rng: random.Random, engine: Engine, args: argparse.Namespace) -> Board:
    """:func:`opening`, drawn again while master scores it beyond ``--max-opening-score``."""
    while True:
        board = opening(rng, args.blocks_share, args.max_blocks, args.random_plies)
        if not args.max_opening_score:
            return board
        engine.new_game()
        score = engine.search(board, SearchLimits(nodes=args.nodes)).score
        if abs(score) <= args.max_opening_score:
            return board


def _record(board: Board, result: SearchResult, ply: int, flags: int = 0) -> tuple:
    """What a record keeps of a searched position until the game's result is known:
    ``(us, them, side to move, score, flags, ply)``."""
    if result.mate is not None or abs(result.score) > 20000:
        flags |= FLAG_MATE
    score = max(-SCORE_CLIP, min(SCORE_CLIP, result.score))
    return (board.pieces(board.turn), board.pieces(board.turn.other), int(board.turn),
            score, flags, ply)


def play_game(engine: Engine, board: Board, nodes: int, adjudicate: bool = False,
              opponent: Engine | None = None, opponent_side: int = 0,
              children: int = 0, rng: random.Random | None = None) -> list[tuple]:
    """Play ``board`` out with ``engine`` on both sides; return its records as tuples.

    With ``adjudicate`` the game ends at the first search that proves its result. With
    ``opponent``, that engine chooses the moves of the side ``opponent_side`` (0: x),
    and ``engine`` still searches each of its positions for the record. With
    ``children``, each recorded position also has up to that many moves other than
    ``engine``'s choice (drawn with ``rng``) played, searched and recorded with
    ``FLAG_CHILD``, the game going on from the move chosen."""
    engine.new_game()
    if opponent is not None:
        opponent.new_game()
    seen: list[tuple[int, int, int, int, int, int]] = []
    ply = len(board.move_stack)
    winner: int | None = None
    while board.outcome() is None:
        side = int(board.turn)
        moves = board.legal_moves
        result = engine.search(board, SearchLimits(nodes=nodes))
        if len(moves) > 1:
            seen.append(_record(board, result, ply))
            if children:
                assert rng is not None, "children are drawn with the game's rng"
                others = [m for m in moves if m != result.move]
                for move in rng.sample(others, min(children, len(others))):
                    board.push(move)
                    # As on the game's path: a position of one legal move has no score.
                    if board.outcome() is None and len(board.legal_moves) > 1:
                        branch = engine.search(board, SearchLimits(nodes=nodes))
                        seen.append(_record(board, branch, ply + 1, FLAG_CHILD))
                    board.pop()
        if adjudicate and result.mate is not None:
            # A proof: the mover wins (mate > 0) or loses whatever is played from here.
            winner = side if result.mate > 0 else 1 - side
            break
        move = result.move
        if opponent is not None and side == opponent_side:
            move = opponent.search(board, SearchLimits(nodes=nodes)).move
        board.push(move)
        ply += 1
    else:
        outcome = board.outcome()
        assert outcome is not None
        winner = None if outcome.winner is None else int(outcome.winner)
    records = []
    for us, them, side, score, flags, at in seen:
        res = 0 if winner is None else (1 if winner == side else -1)
        records.append((us, them, board.playable, score, res, flags, at, 0))
    return records


def play_shard(job: tuple[int, argparse.Namespace]) -> tuple[int, int, int]:
    """Play one shard and write its file; return ``(shard, games, positions)``."""
    shard, args = job
    engine = _engine(args.nnue, args.hash)
    rows: list[tuple] = []
    first = shard * args.shard
    last = min(first + args.shard, args.games)
    for game in range(first, last):
        rng = random.Random(args.seed * 1_000_003 + game)
        board = balanced_opening(rng, engine, args)
        opponent, side = None, 0
        # Drawn after the opening, so that the games without an opponent stay the
        # games of a run without --opponents.
        if args.opponents and rng.random() < args.league_share:
            opponent = _engine(rng.choice(args.opponents), args.hash, opponent=True)
            side = rng.randrange(2)
        rows.extend(play_game(engine, board, args.nodes, args.adjudicate, opponent, side,
                              args.children, rng))
    records = np.array(rows, dtype=RECORD)
    write_positions(args.out / f"shard-{shard:05d}.bin", records)
    return shard, last - first, len(records)


_ENGINES: dict[tuple[str | None, bool], Engine] = {}


def _engine(network: str | None, hash_mb: int, opponent: bool = False) -> Engine:
    """One master per worker process and network, kept across shards (loading its
    kernels takes seconds); an opponent's is another master even on the same network,
    so that the two keep their own tables.

    Its hash table is cleared at every game and every opening it scores, so a small
    one (a few MB hold a game's worth of 1,000-node searches) saves the time a large
    one takes to clear; no 7x7 board has endgame tables, so none are probed."""
    engine = _ENGINES.get((network, opponent))
    if engine is None:
        engine = _ENGINES[network, opponent] = Engine("master", seed=0, hash_mb=hash_mb,
                                                      tables=NoTables())
        # main() has loaded the file once already: a failure here is not expected.
        # Without --nnue master plays with its hand-written evaluation (the recipe of
        # the first networks), although a network is its default; the shipped network
        # learned from games played with --nnue 1 (docs/nnue.md).
        master = engine._master_search()
        if network is None:
            master.use_network(False)
        elif not master.use_network(path=_network_path(network)):
            raise RuntimeError(f"cannot use the network {network!r}")
    return engine


def _network_path(network: str) -> Path | None:
    """``--nnue``'s file (None: the shipped network)."""
    return None if network == "1" else Path(network)


def _range(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        pair = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or N-M, not {text!r}") from None
    if not 0 <= pair[0] <= pair[1]:
        raise argparse.ArgumentTypeError(f"expected 0 <= N <= M, not {text!r}")
    return pair


def _networks(text: str) -> list[str]:
    names = text.split(",")
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected FILE or FILE,FILE,..., not {text!r}")
    return names


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the shard files (created)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--nodes", type=int, default=2000, help="master's nodes a move")
    parser.add_argument("--shard", type=int, default=20, help="games a file")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--random-plies", type=_range, default=(2, 8), metavar="N-M")
    parser.add_argument("--blocks-share", type=float, default=0.25)
    parser.add_argument("--max-blocks", type=int, default=8)
    parser.add_argument("--max-opening-score", type=int, default=0, metavar="CP",
                        help="draw openings again while master scores them beyond CP "
                             "(0: keep every opening)")
    parser.add_argument("--adjudicate", action="store_true",
                        help="end a game when master's search proves its result")
    parser.add_argument("--children", type=int, default=0, metavar="K",
                        help="also search and save up to K other moves' positions of each "
                             "position (flagged FLAG_CHILD; default 0)")
    parser.add_argument("--hash", type=int, default=4, metavar="MB",
                        help="master's hash table (cleared at every game)")
    parser.add_argument("--nnue", metavar="FILE",
                        help="master plays with this network (1: the shipped one)")
    parser.add_argument("--opponents", type=_networks, default=[], metavar="FILE,...",
                        help="networks that play one side of --league-share of the games "
                             "(1: the shipped one)")
    parser.add_argument("--league-share", type=float, default=0.5, metavar="P",
                        help="the share of games against --opponents (default 0.5)")
    args = parser.parse_args(argv)
    for option, network in [("--nnue", args.nnue)] + [("--opponents", n) for n in args.opponents]:
        if network is not None:
            try:
                load_network(_network_path(network))
            except NetworkFileError as exc:
                parser.error(f"{option}: {exc}")
    if args.children < 0:
        parser.error(f"--children {args.children}: expected 0 or more")
    if not 0 <= args.league_share <= 1:
        parser.error(f"--league-share {args.league_share}: expected 0 to 1")
    args.out.mkdir(parents=True, exist_ok=True)
    shards = -(-args.games // args.shard)
    todo = [s for s in range(shards) if not (args.out / f"shard-{s:05d}.bin").exists()]
    print(f"{shards - len(todo)} of {shards} shards already in {args.out}; "
          f"playing {len(todo)} with {args.workers} workers", file=sys.stderr)
    started = time.perf_counter()
    games = positions = 0
    jobs = [(s, args) for s in todo]
    with Pool(args.workers) as pool:
        for _, n_games, n_positions in pool.imap_unordered(play_shard, jobs):
            games += n_games
            positions += n_positions
            elapsed = time.perf_counter() - started
            print(f"\r{games} games, {positions} positions, {elapsed:.0f} s, "
                  f"{positions / elapsed:.1f} positions/s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
