"""UCI for Oware, the engine protocol of Aalina (Aualé's engine): our engine's side and a client.

Aalina speaks an adapted UCI over stdin/stdout. The exchange, as its sources
(``UCIService`` and ``OwareBoard`` of joansalasoler/oware) read it::

    uci                          -> id name ... / option name ... / uciok
    isready                      -> readyok
    setoption name OwnBook value false
    ucinewgame
    position startpos moves FbAe      (moves are pit letters written together)
    position fen 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S moves F
    go movetime 1000             -> info depth 9 score cp 35 pv AbEbDcB / bestmove A ponder b
    stop | quit

Positions are Aalina's text (12 pits from South's ``A``, the two stores, the
side to move); moves are letters, ``A``-``F`` South's pits and ``a``-``f``
North's. ``go`` takes ``movetime``, ``depth`` and ``infinite``; Aalina ignores
clocks, but our engine also reads ``wtime``/``btime`` (South's and North's clock,
``w`` being the first player as in chess), ``winc``/``binc``, ``movestogo`` and
``nodes``. A finished game is answered ``bestmove 0000``.

Our engine's side (:class:`AweleUciServer`, ``gameclub awele engine``) adds
the options ``Level``, ``Rules`` (default ``oware``, Aalina's rules) and
``ExactSeeds`` (master's exact endgame scores, -1 off), and ``d`` (show the
board). Nothing a client sends can crash it: a malformed or illegal command is
answered with ``info string`` and otherwise ignored.

The client side (:class:`AweleUciProcess`) drives any such engine over pipes,
with a timeout on every wait; the match runner plays its Awele games with it.
"""

from __future__ import annotations

import argparse
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, TextIO

from gameclub import __version__
from gameclub.awele.board import Board
from gameclub.awele.engine import LEVELS, Engine, SearchLimits, SearchResult
from gameclub.awele.engine.exact import EXACT_SEEDS
from gameclub.awele.errors import AweleError
from gameclub.awele.move import Move
from gameclub.awele.rules import RULESETS, RuleSet
from gameclub.uai import GoResult, UaiEngineProcess, UaiError

ENGINE_NAME = f"gameclub-awele {__version__}"
ENGINE_AUTHOR = "the gameclub authors"
#: The rule set an engine plays until told otherwise: Aalina's (abapa).
DEFAULT_RULES = "oware"
#: The integer parameters of ``go`` (times in milliseconds).
GO_INTEGER_PARAMETERS = (
    "wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes",
)


def moves_text(moves: Iterable[Move | str]) -> str:
    """Moves as Aalina writes them: letters side by side (``"FbAe"``)."""
    return "".join(m.text if isinstance(m, Move) else str(m) for m in moves)


def parse_moves(text: str) -> list[Move]:
    """Letters side by side, or separated by spaces; :class:`AweleError` on a bad one."""
    return [Move.from_text(letter) for letter in text.replace(" ", "")]


def format_info(result: SearchResult) -> str:
    """The ``info`` line of a search result (``score cp``: hundredths of a seed)."""
    millis = max(0, round(result.time * 1000))
    nps = result.nodes * 1000 // millis if millis > 0 else 0
    pv = moves_text(result.pv) or result.move.text
    return (
        f"info depth {result.depth} seldepth {max(result.seldepth, result.depth)} "
        f"nodes {result.nodes} score cp {result.score} time {millis} nps {nps} pv {pv}"
    )


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


class _OptionError(ValueError):
    pass


class AweleUciServer:
    """Our engine speaking UCI for Oware: :meth:`handle` one line, or :meth:`run` a stream.

    The search runs in a thread, so ``isready`` and ``stop`` are answered while
    it thinks.
    """

    HASH_MIN, HASH_MAX = 1, 4096
    #: seeds at or below which master scores exactly (-1: never); 16 holds 61 MB.
    EXACT_MIN, EXACT_MAX = -1, 16

    def __init__(self, output: TextIO, *, level: str = "master", rules: str = DEFAULT_RULES,
                 hash_mb: int = 32, move_overhead_ms: int = 30) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
        if rules not in RULESETS:
            raise ValueError(f"unknown rule set {rules!r}; choose one of {', '.join(RULESETS)}")
        self._out = output
        self._out_lock = threading.Lock()
        self.level = level
        self.rules: RuleSet = RULESETS[rules]
        self.hash_mb = hash_mb
        self.exact_seeds = EXACT_SEEDS
        self.move_overhead_ms = move_overhead_ms
        self.board = Board(rules=self.rules)
        self._engine: Engine | None = None
        self._thread: threading.Thread | None = None
        self._searching = threading.Event()
        self._stop = threading.Event()

    # -- output -----------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._out_lock:
            self._write(line)

    def _write(self, line: str) -> None:
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (BrokenPipeError, ValueError):
            pass  # the client went away; the read loop ends at the end of its input

    def _say(self, text: str) -> None:
        self.send(f"info string {text}")

    # -- the loop ---------------------------------------------------------------------

    def run(self, input_stream: IO[str]) -> int:
        """Answer lines from ``input_stream`` until ``quit`` or its end; return an exit status."""
        try:
            while True:
                line = input_stream.readline()
                if not line or not self.handle(line):
                    break
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()
        return 0

    def shutdown(self) -> None:
        """Stop a running search and wait for its thread (its ``bestmove`` is still sent)."""
        self._stop.set()
        self.wait()

    def wait(self) -> None:
        thread = self._thread
        if thread is not None:
            thread.join()
        self._thread = None

    def handle(self, line: str) -> bool:
        """Answer one command line; return ``False`` after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "quit":
            return False
        handler: Callable[[list[str]], None] | None = {
            "uci": self._cmd_uci,
            "isready": self._cmd_isready,
            "setoption": self._cmd_setoption,
            "ucinewgame": self._cmd_ucinewgame,
            "position": self._cmd_position,
            "go": self._cmd_go,
            "stop": self._cmd_stop,
            "ponderhit": lambda args: None,
            "debug": lambda args: None,
            "d": self._cmd_d,
        }.get(command)
        if handler is None:
            self._say(
                f"unknown command {command!r}; known: uci, isready, setoption, ucinewgame, "
                "position, go, stop, quit, d"
            )
            return True
        if command in ("setoption", "ucinewgame", "position", "go"):
            if self._searching.is_set() and not self._stop.is_set():
                self._say(f"ignored {command!r}: still searching, send 'stop' first")
                return True
            self.wait()
        try:
            handler(args)
        except Exception as exc:  # a bug must not end the client's session
            traceback.print_exc(file=sys.stderr)
            self._say(f"error in {command!r}: {type(exc).__name__}: {exc}")
        return True

    # -- commands ---------------------------------------------------------------------

    def _cmd_uci(self, args: list[str]) -> None:
        levels = " ".join(f"var {level}" for level in LEVELS)
        rules = " ".join(f"var {name}" for name in RULESETS)
        for line in (
            f"id name {ENGINE_NAME}",
            f"id author {ENGINE_AUTHOR}",
            f"option name Hash type spin default {self.hash_mb} "
            f"min {self.HASH_MIN} max {self.HASH_MAX}",
            f"option name Level type combo default {self.level} {levels}",
            f"option name Rules type combo default {self.rules.name} {rules}",
            f"option name ExactSeeds type spin default {self.exact_seeds} "
            f"min {self.EXACT_MIN} max {self.EXACT_MAX}",
            "option name OwnBook type check default false",
            "uciok",
        ):
            self.send(line)

    def _cmd_isready(self, args: list[str]) -> None:
        if not self._searching.is_set() and self._engine is None:
            self._get_engine()  # loads the kernel before any clock runs
        self.send("readyok")

    def _cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name" or len(args) < 2:
            self._say("malformed setoption: expected 'setoption name <name> [value <value>]'")
            return
        rest = args[1:]
        if "value" in rest:
            cut = rest.index("value")
            name, value = " ".join(rest[:cut]), " ".join(rest[cut + 1:])
        else:
            name, value = " ".join(rest), ""
        key = name.lower()
        try:
            if key == "hash":
                number = _int_or_none(value)
                if number is None or not self.HASH_MIN <= number <= self.HASH_MAX:
                    raise _OptionError(
                        f"bad value {value!r} for option Hash: expected an integer from "
                        f"{self.HASH_MIN} to {self.HASH_MAX}"
                    )
                self.hash_mb = number
                self._engine = None
            elif key == "level":
                if value not in LEVELS:
                    raise _OptionError(
                        f"bad value {value!r} for option Level; choose one of {', '.join(LEVELS)}"
                    )
                if value != self.level:
                    self.level = value
                    self._engine = None
            elif key == "rules":
                if value not in RULESETS:
                    raise _OptionError(
                        f"bad value {value!r} for option Rules; choose one of "
                        f"{', '.join(RULESETS)}"
                    )
                if RULESETS[value] is not self.rules:
                    self._engine = None  # its exact endgame table is the old rules'
                self.rules = RULESETS[value]
                self.board = Board(rules=self.rules)
            elif key == "exactseeds":
                number = _int_or_none(value)
                if number is None or not self.EXACT_MIN <= number <= self.EXACT_MAX:
                    raise _OptionError(
                        f"bad value {value!r} for option ExactSeeds: expected an integer from "
                        f"{self.EXACT_MIN} (none) to {self.EXACT_MAX}"
                    )
                if number != self.exact_seeds:
                    self.exact_seeds = number
                    self._engine = None
            elif key == "ownbook":
                if value not in ("true", "false"):
                    raise _OptionError(f"bad value {value!r} for option OwnBook: true or false")
                # We have no opening book: both values play the same.
            else:
                raise _OptionError(
                    f"unknown option {name!r}; options are Hash, Level, Rules, ExactSeeds, "
                    "OwnBook"
                )
        except _OptionError as exc:
            self._say(str(exc))

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        if self._engine is not None:
            self._engine.new_game()
        self.board = Board(rules=self.rules)

    def _cmd_position(self, args: list[str]) -> None:
        usage = "expected 'position startpos|fen <position> [moves <letters>]'"
        if "moves" in args:
            cut = args.index("moves")
            setup, moves = args[:cut], args[cut + 1:]
        else:
            setup, moves = args, []
        try:
            if setup == ["startpos"]:
                board = Board(rules=self.rules)
            elif setup[:1] == ["fen"] and len(setup) == 2:
                board = Board(setup[1], self.rules)
            else:
                self._say(f"malformed position: {usage}")
                return
        except AweleError as exc:
            self._say(f"position ignored: {exc}")
            return
        try:
            played = parse_moves("".join(moves))
        except AweleError as exc:
            self._say(f"position ignored: {exc}")
            return
        for index, move in enumerate(played, start=1):
            try:
                board.push(move)
            except AweleError as exc:
                self._say(f"position ignored: move {index} ({move.text}): {exc}")
                return
        self.board = board

    def _cmd_go(self, args: list[str]) -> None:
        values: dict[str, int] = {}
        infinite = False
        index = 0
        while index < len(args):
            word = args[index]
            if word in ("infinite", "ponder"):
                infinite = True
                index += 1
            elif word in GO_INTEGER_PARAMETERS:
                text = args[index + 1] if index + 1 < len(args) else ""
                number = _int_or_none(text)
                if word in ("wtime", "btime") and number is not None:
                    number = max(number, 0)  # a client may send an overdrawn clock
                minimum = 0 if word in ("wtime", "btime", "winc", "binc", "movetime") else 1
                if number is None or number < minimum:
                    self._say(f"go: ignored {word} {text!r}: expected an integer >= {minimum}")
                else:
                    values[word] = number
                index += 2 if number is not None else 1
            else:
                self._say(f"go: ignored unknown parameter {word!r}")
                index += 1
        overhead = self.move_overhead_ms
        south = self.board.turn == 0
        clock = values.get("wtime" if south else "btime")
        limits = SearchLimits(
            depth=values.get("depth"),
            nodes=values.get("nodes"),
            movetime=(max(1, values["movetime"] - overhead) / 1000
                      if "movetime" in values else None),
            time=max(0, clock - overhead) / 1000 if clock is not None else None,
            increment=values.get("winc" if south else "binc", 0) / 1000,
            movestogo=values.get("movestogo"),
            infinite=infinite,
        )
        outcome = self.board.outcome()
        if outcome is not None:
            self._say(f"no move to search: the game is over ({outcome.termination.value})")
            self.send("bestmove 0000")
            return
        engine = self._get_engine()
        if engine is None:
            self.send("bestmove 0000")
            return
        self._stop = threading.Event()
        self._searching.set()
        self._thread = threading.Thread(
            target=self._search, args=(engine, self.board.copy(), limits, self._stop),
            daemon=True,
        )
        self._thread.start()

    def _get_engine(self) -> Engine | None:
        if self._engine is None:
            try:
                engine = Engine(self.level, hash_mb=self.hash_mb, exact_seeds=self.exact_seeds)
                # Load every module and kernel a move needs now, not on the first clock.
                engine.search(Board(rules=self.rules), SearchLimits(depth=1))
                engine.new_game()
                self._engine = engine
            except Exception as exc:
                self._say(f"cannot start level {self.level!r}: {exc}")
                return None
        return self._engine

    def _search(self, engine: Engine, board: Board, limits: SearchLimits,
                stop: threading.Event) -> None:
        result: SearchResult | None = None
        try:
            result = engine.search(board, limits, info=lambda r: self.send(format_info(r)),
                                   stop=stop)
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self._say(f"search failed: {type(exc).__name__}: {exc}")
        if limits.infinite:
            stop.wait()  # an infinite search answers only after 'stop'
        with self._out_lock:
            self._searching.clear()
            self._write(f"bestmove {result.move.text if result is not None else '0000'}")

    def _cmd_stop(self, args: list[str]) -> None:
        self._stop.set()

    def _cmd_d(self, args: list[str]) -> None:
        lines = [
            *str(self.board).splitlines(),
            f"Position: {self.board.position()}",
            f"Rules: {self.rules.name}",
        ]
        outcome = self.board.outcome()
        if outcome is not None:
            lines.append(f"Game over: {outcome.result()} ({outcome.termination.value})")
        with self._out_lock:
            for line in lines:
                self._write(line)


# -- the client side ---------------------------------------------------------------


class AweleUciProcess(UaiEngineProcess):
    """An engine speaking UCI for Oware in a subprocess (Aalina, or ours), with timeouts.

    The pipes, the timeouts and the errors are those of
    :class:`gameclub.uai.UaiEngineProcess` (:class:`~gameclub.uai.EngineTimeoutError`,
    :class:`~gameclub.uai.EngineTerminatedError`); the words are UCI's.
    """

    def uci(self, timeout: float | None = 30.0) -> None:
        """The handshake: learn the engine's name and options."""
        from gameclub.uai import parse_option

        self.send("uci")
        for line in self._wait_for("uciok", timeout):
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.id_name = " ".join(words[2:])
            elif words[:2] == ["id", "author"]:
                self.id_author = " ".join(words[2:])
            elif words[:1] == ["option"]:
                option = parse_option(line)
                if option is not None:
                    self.options[option.name.lower()] = option

    def uai(self, timeout: float | None = 30.0) -> None:
        self.uci(timeout)

    def ucinewgame(self) -> None:
        self.send("ucinewgame")

    def uainewgame(self) -> None:
        self.ucinewgame()

    def position(self, fen: str = "startpos", moves: Iterable[Any] = ()) -> None:
        """Set the position (``"startpos"`` or a position text) and the moves played from it."""
        text = moves_text(moves)
        setup = "startpos" if fen == "startpos" else f"fen {fen}"
        self.send(f"position {setup}" + (f" moves {text}" if text else ""))

    def go(
        self,
        *,
        wtime: float | None = None,
        btime: float | None = None,
        winc: float | None = None,
        binc: float | None = None,
        movestogo: int | None = None,
        movetime: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        infinite: bool = False,
        timeout: float | None = None,
    ) -> GoResult:
        """Search and wait for ``bestmove``; times in seconds (``wtime``: South's clock)."""
        return super().go(wtime=wtime, btime=btime, winc=winc, binc=binc, movestogo=movestogo,
                          movetime=movetime, depth=depth, nodes=nodes, infinite=infinite,
                          timeout=timeout)


__all__ = [
    "AweleUciProcess",
    "AweleUciServer",
    "UaiError",
    "format_info",
    "moves_text",
    "parse_moves",
]


# -- the command line --------------------------------------------------------------


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--level", choices=LEVELS, default="master", help="initial Level option (default master)"
    )
    parser.add_argument(
        "--rules", choices=list(RULESETS), default=DEFAULT_RULES,
        help=f"initial Rules option (default {DEFAULT_RULES}, Aalina's)",
    )
    parser.add_argument(
        "commands", nargs="*", metavar="COMMAND",
        help="protocol lines to run before exiting, e.g. 'position startpos' 'go depth 8'",
    )


def run_engine(args: argparse.Namespace) -> int:
    """Run our engine on stdin/stdout for parsed ``awele engine`` arguments."""
    server = AweleUciServer(sys.stdout, level=args.level, rules=args.rules)
    if args.commands:
        for command in args.commands:
            if not server.handle(command):
                break
            server.wait()
        server.shutdown()
        return 0
    return server.run(sys.stdin)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gameclub.awele_uci [--level L] [--rules R] [COMMAND ...]``."""
    parser = argparse.ArgumentParser(
        prog="gameclub awele engine", description="Awele engine speaking UCI for Oware"
    )
    add_engine_arguments(parser)
    return run_engine(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
