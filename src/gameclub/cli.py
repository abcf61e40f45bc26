"""The ``gameclub`` command: play, perft, the exact solver, Blocs-Config, the UAI engine,
matches, endgame tables and the club; ``gameclub awele ...`` for Awele.

Every subcommand turns bad input into a one-line error on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from gameclub import __version__
from gameclub.ataxx.errors import AtaxxError

EXIT_USAGE = 2


class CliError(Exception):
    """A user error to print on one line (exit status 2)."""


# -- perft ---------------------------------------------------------------------------


def _cmd_perft(args: argparse.Namespace) -> int:
    from gameclub.ataxx.board import Board
    from gameclub.ataxx.perft import perft
    from gameclub.ataxx.rules import RuleSet

    if args.depth < 0:
        raise CliError(f"depth must be 0 or more, not {args.depth}")
    rules = RuleSet.from_name(args.rules)
    board = Board(None if args.fen == "startpos" else args.fen, rules)
    perft(board, 1)  # load the compiled kernel before timing
    for depth in range(1 if args.depth > 0 else 0, args.depth + 1):
        started = time.perf_counter()
        nodes = perft(board, depth)
        elapsed = time.perf_counter() - started
        nps = int(nodes / elapsed) if elapsed > 0 else 0
        print(f"depth {depth} nodes {nodes} time {elapsed:.3f} nps {nps}", flush=True)
    return 0


# -- solve ---------------------------------------------------------------------------

_RESULT_WORDS = {1: "win", 0: "draw", -1: "loss"}


def _cmd_solve(args: argparse.Namespace) -> int:
    import threading

    from gameclub.ataxx.board import Board
    from gameclub.ataxx.engine.endgame import Bounds, solve
    from gameclub.ataxx.rules import RuleSet
    from gameclub.tt import TranspositionTable

    if args.time <= 0:
        raise CliError(f"time must be above 0 seconds, not {args.time}")
    if not 1 <= args.hash <= 4096:
        raise CliError(f"hash must be 1 to 4096 MB, not {args.hash}")
    board = Board(args.fen, RuleSet.from_name(args.rules))
    solve(Board("xxx/xxo/oo1 x 0 1"))  # load the compiled kernel before timing
    stop = threading.Event()
    timer = threading.Timer(args.time, stop.set)
    timer.daemon = True
    started = time.perf_counter()
    proven = Bounds()

    def progress(bounds: Bounds) -> None:
        nonlocal proven
        proven = bounds
        if args.progress:
            print(f"{time.perf_counter() - started:9.3f} s {bounds.nodes:>13,} nodes  "
                  f"{bounds.describe()}", file=sys.stderr, flush=True)

    timer.start()
    try:
        found = solve(board, stop=stop, tt=TranspositionTable(args.hash), margin=not args.wld,
                      progress=progress)
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - started
    if found is None:
        if args.json:
            lower, upper = (None if end is None else
                            {"result": _RESULT_WORDS[end[0]], "margin": end[1]}
                            for end in proven.decoded())
            print(json.dumps({"solved": False, "time": round(elapsed, 3),
                              "proven": proven.describe(), "lower": lower, "upper": upper}))
        else:
            print(f"not solved within {args.time:g} s; proven so far: {proven.describe()}")
        return 1
    summary = {
        "solved": True,
        "result": _RESULT_WORDS[found.result],
        # Without the margin search the margin is only a bound (see --wld).
        "margin": found.margin if found.margin_exact else None,
        "move": found.move.uci() if found.move else None,
        "pv": [move.uci() for move in found.pv],
        "nodes": found.nodes,
        "time": round(elapsed, 3),
        "exact": found.exact,
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    margin = "" if summary["margin"] is None else f" margin {found.margin:+d}"
    line = f"result {summary['result']}{margin} move {summary['move'] or '-'}"
    if summary["pv"]:
        line += f" pv {' '.join(summary['pv'])}"  # type: ignore[arg-type]
    print(f"{line} nodes {found.nodes} time {elapsed:.3f}")
    if not found.exact:
        print("note: a line reached the solver's depth cap; the value is not proven exact")
    return 0


# -- blocks --------------------------------------------------------------------------


def blocks_summary(code: str) -> dict[str, object]:
    """What ``gameclub blocks show`` prints, as a dict (the ``--json`` keys)."""
    from gameclub.ataxx.blocks import BlocsConfig
    from gameclub.ataxx.rules import ATAXX

    config = BlocsConfig.parse(code)
    reason = config.invalid_reason()
    return {
        "code": code,
        "canonical": config.code,
        "preferred": config.preferred().code,
        "twin": config.twin().code,
        "weight": config.weight,
        "blocks": config.block_count,
        "valid": reason is None,
        "reason": reason,
        "fen": ATAXX.replace(blocks=config.squares()).start_fen(),
    }


def _cmd_blocks_show(args: argparse.Namespace) -> int:
    summary = blocks_summary(args.code)
    if args.json:
        print(json.dumps(summary))
        return 0
    from gameclub.ataxx.board import Board

    print(f"code       {summary['canonical']}")
    print(f"preferred  {summary['preferred']}")
    print(f"twin       {summary['twin']}")
    print(f"weight     {summary['weight']}")
    print(f"blocks     {summary['blocks']}")
    print(f"valid      {'yes' if summary['valid'] else 'no: ' + str(summary['reason'])}")
    print(f"fen        {summary['fen']}")
    print()
    print(render_board(Board(str(summary["fen"])), color=False))
    return 0


def _cmd_blocks_list(args: argparse.Namespace) -> int:
    from gameclub.ataxx.blocks import preferred_configs

    if args.n is not None and not 0 <= args.n <= 49:
        raise CliError(f"a block count is between 0 and 49, not {args.n}")
    for config in preferred_configs(args.n, valid_only=args.valid):
        print(config.code if args.n is not None else f"{config.block_count:2d} {config.code}")
    return 0


# -- play ----------------------------------------------------------------------------

_RESET = "\033[0m"
_STYLES = {
    "x": "\033[1;31m",  # red: the first player, as in the 1997 rules
    "o": "\033[1;34m",
    "#": "\033[90m",
    "clone": "\033[42m",
    "jump": "\033[43m",
    "last": "\033[4m",
}


def render_board(
    board: object,
    *,
    color: bool = True,
    clones: int = 0,
    jumps: int = 0,
    last: int = 0,
) -> str:
    """The board as text with file letters and rank numbers; hints shown in colour."""
    from gameclub.ataxx.board import Board

    assert isinstance(board, Board)
    lines = []
    for rank in range(board.height - 1, -1, -1):
        cells = []
        for file in range(board.width):
            sq = rank * 8 + file
            bit = 1 << sq
            piece = board.piece_at(sq)
            char = piece.char if piece is not None else "#" if board.is_block(sq) else "."
            if not color:
                if clones & bit:
                    char = "+"
                elif jumps & bit:
                    char = "*"
                cells.append(char)
                continue
            style = _STYLES.get(char, "")
            if clones & bit:
                style += _STYLES["clone"]
            elif jumps & bit:
                style += _STYLES["jump"]
            if last & bit:
                style += _STYLES["last"]
            cells.append(f"{style}{char}{_RESET}" if style else char)
        lines.append(f"{rank + 1} " + " ".join(cells))
    lines.append("  " + " ".join("abcdefgh"[: board.width]))
    return "\n".join(lines)


_PLAY_HELP = """\
Type a move as UAI text: a clone 'f2' (the destination), a jump 'g1e3' (from, to), or
'0000' to pass when you have no move. Other commands:
  SQUARE ?      show the destinations of the piece on SQUARE (green: clone, yellow: jump)
  moves         list the legal moves
  undo          take back the last move (and the computer's reply)
  save FILE     write the game as a PGN record
  load FILE     load a PGN record and continue from its last position
  fen           print the position's FEN
  help          this text
  quit          leave"""


def _cmd_play(args: argparse.Namespace) -> int:
    from gameclub.ataxx.board import Board, Color
    from gameclub.ataxx.engine import LEVELS, Engine
    from gameclub.ataxx.notation import GameRecord
    from gameclub.ataxx.rules import RuleSet
    from gameclub.ataxx.squares import parse_square

    rules = RuleSet.from_name(args.rules)
    if args.blocks:
        rules = rules.with_blocks(args.blocks)
    board = Board(args.fen, rules)
    if args.opponent != "human" and args.opponent not in LEVELS:
        raise CliError(f"unknown opponent {args.opponent!r}; choose human or {', '.join(LEVELS)}")
    engine = Engine(args.opponent, seed=args.seed) if args.opponent != "human" else None
    human = Color.X if args.side == "x" else Color.O
    out: TextIO = sys.stdout
    use_color = args.color if args.color is not None else out.isatty()
    clones = jumps = 0

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"gameclub {__version__}: Ataxx, rules {rules.name} ({rules.describe()}). "
        "Type 'help' for commands.")
    while True:
        last = 0
        if board.move_stack and board.move_stack[-1].to_square is not None:
            last = 1 << board.move_stack[-1].to_square
        say()
        say(render_board(board, color=use_color, clones=clones, jumps=jumps, last=last))
        clones = jumps = 0
        say(f"x {board.count(Color.X)}  o {board.count(Color.O)}   "
            f"{board.turn.char} to move")
        outcome = board.outcome()
        if outcome is not None:
            winner = outcome.winner.char + " wins" if outcome.winner is not None else "draw"
            say(f"Game over: {winner} ({outcome.termination.value}), "
                f"{outcome.score[0]}-{outcome.score[1]}. Result {outcome.result()}")
        elif engine is not None and board.turn is not human:
            move = engine.search(board).move
            say(f"{args.opponent} plays {move.uci()}")
            board.push(move)
            continue
        try:
            line = input("> ").strip()
        except EOFError:
            say()
            return 0
        if not line:
            continue
        words = line.split()
        command = words[0]
        try:
            if command in ("quit", "exit"):
                return 0
            if command == "help":
                say(_PLAY_HELP)
            elif command == "fen":
                say(board.fen())
            elif command == "moves":
                say(" ".join(m.uci() for m in board.legal_moves) or "(none: the game is over)")
            elif command == "undo":
                if not board.move_stack:
                    say("Nothing to undo.")
                    continue
                board.pop()
                if engine is not None and board.move_stack and board.turn is not human:
                    board.pop()
            elif command == "save" and len(words) == 2:
                with open(words[1], "w", encoding="utf-8") as fh:
                    fh.write(GameRecord.from_board(board).to_pgn())
                say(f"Saved to {words[1]}.")
            elif command == "load" and len(words) == 2:
                with open(words[1], encoding="utf-8") as fh:
                    record = GameRecord.from_pgn(fh.read())
                board = record.board()
                say(f"Loaded {len(record.moves)} moves from {words[1]}.")
            elif len(words) == 2 and words[1] == "?":
                sq = parse_square(command)
                if board.piece_at(sq) is not board.turn:
                    say(f"There is no {board.turn.char} piece on {command}.")
                    continue
                clones, jumps = board.destinations(sq)
            elif len(words) == 1:
                board.push_uci(command)
            else:
                say(f"Unknown command {line!r}; type 'help'.")
        except (ValueError, OSError) as exc:
            say(f"Error: {exc}")


# -- serve ---------------------------------------------------------------------------


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        from gameclub.server.app import serve
    except ImportError as exc:  # the server extra is not installed
        raise CliError(
            f"the club needs the server extra (pip install 'gameclub[server]'): {exc}"
        ) from None
    serve(
        host=args.host, port=args.port, database_url=args.database_url, redis_url=args.redis_url
    )
    return 0


# -- cluster -------------------------------------------------------------------------


def _cmd_cluster(args: argparse.Namespace) -> int:
    from gameclub.cluster import Cluster, run

    if not 1 <= args.nodes <= 64:
        raise CliError(f"nodes must be 1 to 64, not {args.nodes}")
    if not 1 <= args.port <= 65535:
        raise CliError(f"port must be 1 to 65535, not {args.port}")
    cluster = Cluster(
        nodes=args.nodes, port=args.port, host=args.host, database_url=args.database_url,
        redis_url=args.redis_url, balance=args.balance, pinning=args.pinning,
    )
    try:
        return run(cluster)
    except (RuntimeError, OSError) as exc:
        raise CliError(str(exc)) from None


# -- awele ---------------------------------------------------------------------------


def _awele_board(position: str, rules_name: str) -> object:
    from gameclub.awele.board import Board
    from gameclub.awele.position import START_POSITION
    from gameclub.awele.rules import RuleSet

    rules = RuleSet.from_name(rules_name)
    return Board(START_POSITION if position == "startpos" else position, rules)


def _cmd_awele_perft(args: argparse.Namespace) -> int:
    from gameclub.awele.board import Board
    from gameclub.awele.perft import perft

    if args.depth < 0:
        raise CliError(f"depth must be 0 or more, not {args.depth}")
    board = _awele_board(args.position, args.rules)
    assert isinstance(board, Board)
    perft(board, 1)  # load the compiled kernel before timing
    for depth in range(1 if args.depth > 0 else 0, args.depth + 1):
        started = time.perf_counter()
        nodes = perft(board, depth)
        elapsed = time.perf_counter() - started
        nps = int(nodes / elapsed) if elapsed > 0 else 0
        print(f"depth {depth} nodes {nodes} time {elapsed:.3f} nps {nps}", flush=True)
    return 0


def _cmd_awele_solve(args: argparse.Namespace) -> int:
    from gameclub.awele.board import Board
    from gameclub.awele.solver import solve

    board = _awele_board(args.position, args.rules)
    assert isinstance(board, Board)
    started = time.perf_counter()
    found = solve(board, max_seeds=args.max_seeds)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps(found.as_json()))
        return 0
    moves = " ".join(f"{move.text}:{value:+d}" for move, value in found.moves.items())
    best = found.best.text if found.best is not None else "-"
    print(f"value {found.value:+d} best {best} moves {moves or '-'} "
          f"positions {found.positions} time {elapsed:.3f}")
    return 0


def add_awele_parser(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """The ``gameclub awele`` group; returns its subparsers so that more actions
    (``play``) can be added beside ``perft`` and ``solve``."""
    p = sub.add_parser("awele", help="Awele (Oware, Awari): perft, solving, play, the engine, "
                       "matches",
                       description="Awele under the rule sets awele (source 001), awari "
                       "(Romein and Bal) and oware (abapa, as OpenSpiel). POSITION is "
                       "Aalina's text, e.g. 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S, or 'startpos'.")
    awele = p.add_subparsers(dest="awele_command", metavar="ACTION")
    awele.required = True

    q = awele.add_parser("perft", help="count move-tree leaves (checks move generation)")
    q.add_argument("position", metavar="POSITION", help="a position or 'startpos'")
    q.add_argument("depth", metavar="DEPTH", type=int, help="deepest ply to count")
    q.add_argument("--rules", default="awele", help="awele, awari or oware (default: awele)")
    q.set_defaults(func=_cmd_awele_perft)

    q = awele.add_parser(
        "solve",
        help="exact value of a small position: best capture margin, best move, each move",
        description="The side to move's best margin over the seeds on the board (his future "
        "captures minus his opponent's, as Romein and Bal define it), a best move and every "
        "legal move's value from the same side's view. Stores are ignored and play goes on "
        "past 25 seeds: that end changes margins, never the winner. A repetition shares the "
        "seeds left equally (worth 0). Every position reachable is solved: practical up to "
        "about 12 seeds on the board. Rule sets: awele, awari (not oware, whose repetition "
        "end depends on the game's history).",
    )
    q.add_argument("position", metavar="POSITION", help="the position")
    q.add_argument("--rules", default="awele", help="awele or awari (default: awele)")
    q.add_argument("--json", action="store_true",
                   help="print one JSON object: value, best, moves (letter -> value)")
    q.add_argument("--max-seeds", type=int, default=12, metavar="N",
                   help="refuse positions with more than N seeds on the board (default 12; "
                   "memory roughly doubles with each seed)")
    q.set_defaults(func=_cmd_awele_solve)
    return awele


# -- the parser ----------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gameclub",
        description="Play, study and solve Ataxx (and Awele: gameclub awele --help): rules, "
        "engines, matches and the club.",
    )
    parser.add_argument("--version", action="version", version=f"gameclub {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("perft", help="count move-tree leaves (checks move generation)")
    p.add_argument("fen", metavar="FEN", help="a FEN or 'startpos'")
    p.add_argument("depth", metavar="DEPTH", type=int, help="deepest ply to count")
    p.add_argument("--rules", default="ataxx", help="rule set (default: ataxx)")
    p.set_defaults(func=_cmd_perft)

    p = sub.add_parser(
        "solve",
        help="the exact value of a position: win/draw/loss, final margin, a best move",
        description="Solve a position exactly under its rule set: win, draw or loss for the "
        "side to move, the final piece margin with best play, a best move and the line. "
        "Practical up to about 5-8 empty squares. Exit status 1 when the time runs out.",
    )
    p.add_argument("fen", metavar="FEN", help="the position")
    p.add_argument("--rules", default="ataxx", help="ataxx, pressibus or site-2005")
    p.add_argument("--wld", action="store_true",
                   help="win/draw/loss only (faster; the margin is not searched)")
    p.add_argument("--time", type=float, default=60.0, metavar="SECONDS",
                   help="give up after this long (default 60)")
    p.add_argument("--hash", type=int, default=64, metavar="MB",
                   help="transposition table size (default 64)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true",
                   help="print on stderr what is proven as the solve goes (e.g. "
                   "'at least a draw'); what is proven is also printed when the time runs out")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("blocks", help="Blocs-Config codes of 7x7 block layouts")
    blocks = p.add_subparsers(dest="blocks_command", metavar="ACTION")
    blocks.required = True
    q = blocks.add_parser("show", help="describe one code: canonical form, twin, weight, validity")
    q.add_argument("code", metavar="CODE", help="a Blocs-Config code such as 3ghx, or 0")
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.set_defaults(func=_cmd_blocks_show)
    q = blocks.add_parser("list", help="the preferred configurations, by block count")
    q.add_argument("n", metavar="N", nargs="?", type=int, help="only those with N blocks")
    q.add_argument("--valid", action="store_true", help="only valid configurations")
    q.set_defaults(func=_cmd_blocks_list)

    p = sub.add_parser("play", help="play a game in the terminal")
    p.add_argument("--rules", default="ataxx", help="ataxx, pressibus or site-2005")
    p.add_argument("--blocks", metavar="CODE", help="a Blocs-Config code for the blocks")
    p.add_argument("--fen", help="start from this position instead")
    p.add_argument(
        "--opponent", default="simple",
        help="human, or a computer level: random, simple, hard, expert, master (default simple)",
    )
    p.add_argument("--side", choices=("x", "o"), default="x", help="your side (x moves first)")
    p.add_argument("--seed", type=int, help="seed for the computer's random choices")
    p.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                   help="coloured board (default: when writing to a terminal)")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("serve", help="run the club (http://127.0.0.1:8000)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--database-url", default=None,
                   help="SQLAlchemy URL (default: SQLite under ./var, or $GAMECLUB_DATABASE_URL)")
    p.add_argument("--redis-url", default=None,
                   help="Redis URL (or $GAMECLUB_REDIS_URL): run as one node of a club of several"
                        " sharing this Redis and the database (PostgreSQL); without it, one"
                        " process, no Redis")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser(
        "cluster",
        help="run several club nodes behind HAProxy on this machine (docs/cluster.md)",
        description="Start NODES club nodes on free loopback ports, all on one database and "
        "Redis, and HAProxy in front of them on HOST:PORT; Ctrl-C stops everything. "
        "Nothing is restarted: a node that exits leaves the rotation.",
    )
    p.add_argument("--nodes", type=int, default=3, help="number of nodes (default 3)")
    p.add_argument("--host", default="127.0.0.1", help="the proxy's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="the proxy's port (default 8000)")
    p.add_argument("--database-url", required=True,
                   help="the database all nodes share (postgresql://...; not SQLite)")
    p.add_argument("--redis-url", required=True, help="the Redis all nodes share (redis://...)")
    p.add_argument("--balance", choices=("leastconn", "roundrobin"), default="leastconn",
                   help="HAProxy's balancing of new connections (default leastconn)")
    p.add_argument("--pinning", action="store_true",
                   help="let a gc_node=<nodeN> cookie pick the node (tests, benchmarks)")
    p.set_defaults(func=_cmd_cluster)

    from gameclub.match import add_match_parser
    from gameclub.tablebase.cli import add_tablebase_parser
    from gameclub.uai import add_uai_parser

    add_uai_parser(sub)
    add_match_parser(sub)
    _add_awele_engine_actions(add_awele_parser(sub))
    add_tablebase_parser(sub)
    return parser


def _add_awele_engine_actions(awele: argparse._SubParsersAction) -> None:
    """``gameclub awele play``, ``engine`` and ``match``, beside ``perft`` and ``solve``."""
    from gameclub.awele_play import add_play_arguments, run_play
    from gameclub.awele_uci import add_engine_arguments, run_engine
    from gameclub.match import add_awele_match_arguments, run_awele_match_command

    q = awele.add_parser("play", help="play a game in the terminal against a level")
    add_play_arguments(q)
    q.set_defaults(func=run_play)
    q = awele.add_parser(
        "engine",
        help="run the engine on stdin/stdout, speaking UCI for Oware (Aalina's protocol)",
        description="Speak UCI for Oware on stdin/stdout (the protocol of Aalina and Aualé). "
        "With COMMANDs, run them in order and exit, e.g. "
        "gameclub awele engine 'position startpos moves Fb' 'go depth 10'.",
    )
    add_engine_arguments(q)
    q.set_defaults(func=run_engine)
    q = awele.add_parser(
        "match",
        help="play a match between two Awele engines",
        description="Play a match between two Awele engines: builtin:LEVEL (random, greedy, "
        "master) or uci:COMMAND (any engine speaking UCI for Oware, e.g. Aalina). Each "
        "opening is played twice with colours swapped.",
    )
    add_awele_match_arguments(q)
    q.set_defaults(func=run_awele_match_command)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (CliError, AtaxxError, ValueError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        command = args.command
        if command == "awele":
            command = f"awele {args.awele_command}"
        print(f"gameclub {command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
