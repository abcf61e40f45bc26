"""UAI, the engine protocol of the Ataxx tools: our engine's side and a client for any engine.

The engine side (:class:`UaiServer`, the ``gameclub uai`` command) reads commands
from stdin and answers on stdout, as cuteataxx and python-ataxx expect::

    uai                       -> id name / id author / option ... / uaiok
    isready                   -> readyok (at any time, even while searching)
    setoption name Level value simple
    uainewgame
    position startpos moves g2 a1a3
    go btime 10000 wtime 10000 binc 100 winc 100   (btime: x's clock, as in libataxx)
                              -> info depth ... score cp ... pv ... / bestmove f3
    stop | quit | perft 4 | bench | d

The search runs in a thread, so ``isready`` and ``stop`` are answered while it
thinks. Nothing a client sends can crash the engine: a malformed or illegal
command is answered with ``info string`` and otherwise ignored.

The client side (:class:`UaiEngineProcess`) drives any UAI engine over pipes; the
match runner (:mod:`gameclub.match`) plays its games with it.

>>> parse_info("info depth 3 nodes 120 score cp -42 pv g2 a7").score_cp
-42
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import queue
import shlex
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any, NamedTuple, TextIO

from gameclub import __version__
from gameclub.ataxx.board import Board
from gameclub.ataxx.engine import LEVELS, Engine, SearchLimits, SearchResult
from gameclub.ataxx.errors import AtaxxError
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import RULESETS, RuleSet

ENGINE_NAME = f"gameclub {__version__}"
ENGINE_AUTHOR = "the gameclub authors"
#: the EvalFile value that means the network shipped in the package.
SHIPPED_EVAL_FILE = "<shipped>"

#: Positions of ``bench``: fixed, so that node counts and speeds compare across versions.
BENCH_FENS: tuple[str, ...] = (
    "x5o/7/7/7/7/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
    "5oo/7/1x5/7/2o2x1/7/7 x 0 3",
    "xx2oo1/7/7/3xx2/1xooox1/1xooo2/1x1o2x x 0 11",
    "xo5/xxx4/1xx4/2x1o2/1o5/1oo1x2/2xx3 x 1 15",
    "o5o/1oo4/o1oxx1x/2xxxx1/2ooxx1/2ooooo/3oooo x 0 19",
    "o2oo1o/o1xxx2/oxxxxx1/1xxxxxx/1xxooox/1xxxooo/o1xxooo x 0 31",
)
#: Nodes searched per ``bench`` position unless ``bench N`` says otherwise.
BENCH_NODES = 500_000

#: The integer parameters of ``go`` (times in milliseconds).
GO_INTEGER_PARAMETERS = (
    "wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes",
)


# -- info lines, shared by both sides ------------------------------------------------


@dataclass
class UaiInfo:
    """The fields of one ``info`` line (``None`` where the line does not give them)."""

    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    #: milliseconds, as on the wire.
    time: int | None = None
    nps: int | None = None
    score_cp: int | None = None
    #: moves (not plies) to a forced end; negative when the engine is losing.
    score_mate: int | None = None
    pv: list[str] = field(default_factory=list)
    string: str | None = None

    @property
    def has_score(self) -> bool:
        return self.score_cp is not None or self.score_mate is not None


def parse_info(line: str) -> UaiInfo:
    """Read an ``info`` line leniently: unknown or malformed fields are skipped.

    >>> parse_info("info depth 5 score mate -2 pv a1a3").score_mate
    -2
    """
    info = UaiInfo()
    words = line.split()
    index = 1 if words[:1] == ["info"] else 0
    while index < len(words):
        word = words[index]
        if word == "string":
            info.string = " ".join(words[index + 1:])
            break
        if word == "pv":
            info.pv = words[index + 1:]
            break
        if word == "score" and index + 2 < len(words):
            kind, value = words[index + 1], _int_or_none(words[index + 2])
            if kind == "cp":
                info.score_cp = value
            elif kind == "mate":
                info.score_mate = value
            index += 3
            continue
        if word in ("depth", "seldepth", "nodes", "time", "nps") and index + 1 < len(words):
            setattr(info, word, _int_or_none(words[index + 1]))
            index += 2
            continue
        index += 1
    return info


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def mate_in_moves(plies: int) -> int:
    """UAI ``score mate`` from a distance in plies: moves, negative when losing.

    >>> mate_in_moves(1), mate_in_moves(3), mate_in_moves(-2)
    (1, 2, -1)
    """
    if plies >= 0:
        return (plies + 1) // 2
    return -((-plies + 1) // 2)


def format_info(result: SearchResult) -> str:
    """The ``info`` line of a :class:`~gameclub.ataxx.engine.SearchResult`."""
    millis = max(0, round(result.time * 1000))
    nps = result.nodes * 1000 // millis if millis > 0 else 0
    score = (
        f"score mate {mate_in_moves(result.mate)}"
        if result.mate is not None
        else f"score cp {result.score}"
    )
    pv = " ".join(move.uci() for move in result.pv) or result.move.uci()
    return (
        f"info depth {result.depth} seldepth {max(result.seldepth, result.depth)} "
        f"nodes {result.nodes} {score} time {millis} nps {nps} pv {pv}"
    )


# -- the engine side ---------------------------------------------------------------


class _OptionError(ValueError):
    pass


class _SearchJob(NamedTuple):
    """One ``go`` for the search thread: :meth:`UaiServer._search`'s arguments."""

    engine: Engine
    board: Board
    limits: SearchLimits
    stop: threading.Event
    timer: threading.Timer | None


class UaiServer:
    """Our engine speaking UAI: feed it lines with :meth:`handle`, or :meth:`run` a stream.

    ``output`` receives the answers, one line each, flushed at once. The searches
    run in one thread of their own, started at the first ``go`` and ended by
    :meth:`shutdown`; everything else is answered in the caller's thread.
    """

    HASH_MIN, HASH_MAX = 1, 4096
    OVERHEAD_MAX = 5000

    def __init__(
        self,
        output: TextIO,
        *,
        level: str = "master",
        rules: str = "ataxx",
        hash_mb: int = 32,
        move_overhead_ms: int = 10,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
        if rules not in RULESETS:
            raise ValueError(f"unknown rule set {rules!r}; choose one of {', '.join(RULESETS)}")
        self._levels = LEVELS
        self._out = output
        self._out_lock = threading.Lock()
        self.level = level
        self.rules: RuleSet = RULESETS[rules]
        self.hash_mb = hash_mb
        self.move_overhead_ms = move_overhead_ms
        #: master evaluates 7x7 boards with its network (docs/nnue.md); false: with the
        #: hand-written terms.
        self.use_nnue = True
        #: the network's weights file; SHIPPED_EVAL_FILE: the one in the package.
        self.eval_file = SHIPPED_EVAL_FILE
        self.board = Board(rules=self.rules)
        self._engine: Engine | None = None
        # One search thread for the whole session, fed by ``go``: starting a thread per
        # move cost 1-2 ms on a busy machine, a tenth of a move at 1 s + 10 ms.
        self._jobs: queue.SimpleQueue[_SearchJob | None] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._searching = threading.Event()
        self._idle = threading.Event()  # no search queued or running
        self._idle.set()
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
            # The client went away; the read loop ends at the end of its input.
            pass

    def _say(self, text: str) -> None:
        self.send(f"info string {text}")

    # -- the loop ---------------------------------------------------------------------

    def run(self, input_stream: IO[str]) -> int:
        """Answer lines from ``input_stream`` until ``quit`` or its end; return an exit status."""
        try:
            while True:
                line = input_stream.readline()
                if not line:
                    break
                if not self.handle(line):
                    break
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()
        return 0

    def shutdown(self) -> None:
        """Stop a running search, wait for it (its ``bestmove`` is still sent) and end
        the search thread."""
        self._stop.set()
        self.wait()
        worker, self._worker = self._worker, None
        if worker is not None:
            self._jobs.put(None)
            worker.join()

    def wait(self) -> None:
        """Wait until a running search ends by itself."""
        self._idle.wait()

    def _work(self) -> None:
        """The search thread: run each ``go`` in turn until ``None`` arrives."""
        while (job := self._jobs.get()) is not None:
            try:
                self._search(*job)
            finally:
                self._idle.set()

    def handle(self, line: str) -> bool:
        """Answer one command line; return ``False`` after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "quit":
            return False
        handler: Callable[[list[str]], None] | None = {
            "uai": self._cmd_uai,
            "isready": self._cmd_isready,
            "setoption": self._cmd_setoption,
            "uainewgame": self._cmd_uainewgame,
            "position": self._cmd_position,
            "go": self._cmd_go,
            "stop": self._cmd_stop,
            "perft": self._cmd_perft,
            "bench": self._cmd_bench,
            "d": self._cmd_d,
            "debug": lambda args: None,
        }.get(command)
        if handler is None:
            self._say(
                f"unknown command {command!r}; known: uai, isready, setoption, uainewgame, "
                "position, go, stop, quit, perft, bench, d"
            )
            return True
        if command in ("setoption", "uainewgame", "position", "go", "perft", "bench"):
            if self._searching.is_set() and not self._stop.is_set():
                self._say(f"ignored {command!r}: still searching, send 'stop' first")
                return True
            self.wait()  # a stopped search ends at once: let it send its bestmove first
        try:
            handler(args)
        except Exception as exc:  # a bug must not end the session of the client
            traceback.print_exc(file=sys.stderr)
            self._say(f"error in {command!r}: {type(exc).__name__}: {exc}")
        return True

    # -- commands ---------------------------------------------------------------------

    def _cmd_uai(self, args: list[str]) -> None:
        levels = " ".join(f"var {level}" for level in self._levels)
        rules = " ".join(f"var {name}" for name in RULESETS)
        for line in (
            f"id name {ENGINE_NAME}",
            f"id author {ENGINE_AUTHOR}",
            f"option name Hash type spin default {self.hash_mb} "
            f"min {self.HASH_MIN} max {self.HASH_MAX}",
            "option name Threads type spin default 1 min 1 max 1",
            f"option name Level type combo default {self.level} {levels}",
            f"option name MoveOverhead type spin default {self.move_overhead_ms} "
            f"min 0 max {self.OVERHEAD_MAX}",
            f"option name Rules type combo default {self.rules.name} {rules}",
            "option name UseNNUE type check default true",
            f"option name EvalFile type string default {SHIPPED_EVAL_FILE}",
            "uaiok",
        ):
            self.send(line)

    def _cmd_isready(self, args: list[str]) -> None:
        if not self._searching.is_set() and self._engine is None:
            # Heavy set-up (tables, compiled kernels) belongs here, before any clock runs.
            engine = self._get_engine()
            if engine is not None:
                self._warm_up(engine)
        self.send("readyok")

    def _warm_up(self, engine: Engine) -> None:
        try:
            engine.search(Board(), SearchLimits(depth=1))
        except Exception:
            return  # the search itself says what is wrong when it is asked to play
        engine.new_game()

    def _cmd_setoption(self, args: list[str]) -> None:
        # setoption name <name words> [value <value words>]
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
                self.hash_mb = self._spin(name, value, self.HASH_MIN, self.HASH_MAX)
                self._engine = None
            elif key == "threads":
                self._spin(name, value, 1, 1)
            elif key == "moveoverhead":
                self.move_overhead_ms = self._spin(name, value, 0, self.OVERHEAD_MAX)
            elif key == "level":
                if value not in self._levels:
                    raise _OptionError(
                        f"bad value {value!r} for option Level; choose one of "
                        f"{', '.join(self._levels)}"
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
                self.rules = RULESETS[value]
                self.board = Board(rules=self.rules)
            elif key == "usennue":
                if value not in ("true", "false"):
                    raise _OptionError(
                        f"bad value {value!r} for option UseNNUE; expected true or false"
                    )
                if (value == "true") != self.use_nnue:
                    self.use_nnue = value == "true"
                    self._engine = None
            elif key == "evalfile":
                self._set_eval_file(value)
            else:
                raise _OptionError(
                    f"unknown option {name!r}; options are Hash, Threads, Level, "
                    "MoveOverhead, Rules, UseNNUE, EvalFile"
                )
        except _OptionError as exc:
            self._say(str(exc))

    def _set_eval_file(self, value: str) -> None:
        """Read the weights file now, so that a bad one is refused before any game."""
        from gameclub.ataxx.engine.nnue import NetworkFileError, load_network

        path = value.strip() or SHIPPED_EVAL_FILE
        if path != SHIPPED_EVAL_FILE:
            try:
                load_network(path)
            except NetworkFileError as exc:
                raise _OptionError(f"bad value for option EvalFile: {exc}; keeping "
                                   f"{self.eval_file}") from None
        if path != self.eval_file:
            self.eval_file = path
            self._engine = None

    @staticmethod
    def _spin(name: str, value: str, low: int, high: int) -> int:
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            raise _OptionError(
                f"bad value {value!r} for option {name}: expected an integer from {low} to {high}"
            )
        return number

    def _cmd_uainewgame(self, args: list[str]) -> None:
        if self._engine is not None:
            self._engine.new_game()
        self.board = Board(rules=self.rules)

    def _cmd_position(self, args: list[str]) -> None:
        usage = "expected 'position startpos|fen <FEN> [moves <move> ...]'"
        if not args:
            self._say(f"malformed position: {usage}")
            return
        if "moves" in args:
            cut = args.index("moves")
            setup, moves = args[:cut], args[cut + 1:]
        else:
            setup, moves = args, []
        try:
            if setup == ["startpos"]:
                board = Board(rules=self.rules)
            elif setup[:1] == ["fen"] and len(setup) > 1:
                board = Board(" ".join(setup[1:]), self.rules)
            else:
                self._say(f"malformed position: {usage}")
                return
        except AtaxxError as exc:
            self._say(f"position ignored: {exc}")
            return
        for index, text in enumerate(moves, start=1):
            try:
                board.push(Move.from_uci(text))
            except AtaxxError as exc:
                self._say(f"position ignored: move {index} ({text}): {exc}")
                return
        self.board = board

    def _cmd_go(self, args: list[str]) -> None:
        values: dict[str, int] = {}
        infinite = False
        index = 0
        while index < len(args):
            word = args[index]
            if word == "infinite":
                infinite = True
                index += 1
            elif word in GO_INTEGER_PARAMETERS or word == "simulations":
                text = args[index + 1] if index + 1 < len(args) else ""
                number = _int_or_none(text)
                minimum = 0 if word in ("wtime", "btime", "winc", "binc", "movetime") else 1
                if word in ("wtime", "btime") and number is not None:
                    number = max(number, 0)  # a client may send an overdrawn clock
                if number is None or number < minimum:
                    self._say(f"go: ignored {word} {text!r}: expected an integer >= {minimum}")
                elif word != "simulations":  # python-ataxx sends it beside nodes
                    values[word] = number
                known = (*GO_INTEGER_PARAMETERS, "simulations", "infinite")
                index += 2 if number is not None or text not in known else 1
            else:
                self._say(f"go: ignored unknown parameter {word!r}")
                index += 1
        overhead = self.move_overhead_ms

        def seconds(key: str, minimum: float = 0.0) -> float | None:
            if key not in values:
                return None
            return max(minimum, (values[key] - overhead) / 1000)

        # On the wire x is "black" (libataxx, cuteataxx, python-ataxx): btime is x's clock.
        # SearchLimits calls x's clock wtime, as gameclub calls x White.
        limits = SearchLimits(
            depth=values.get("depth"),
            nodes=values.get("nodes"),
            movetime=seconds("movetime", 0.001),
            wtime=seconds("btime"),
            btime=seconds("wtime"),
            winc=values.get("binc", 0) / 1000,
            binc=values.get("winc", 0) / 1000,
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
        board = self.board.copy()
        timer = None
        if limits.movetime is not None and not infinite:
            # A guard in case the search overruns its own time keeping.
            timer = threading.Timer(limits.movetime, self._stop.set)
            timer.daemon = True
            timer.start()
        self._idle.clear()
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="uai-search", daemon=True)
            self._worker.start()
        self._jobs.put(_SearchJob(engine, board, limits, self._stop, timer))

    def _get_engine(self) -> Engine | None:
        if self._engine is None:
            try:
                self._engine = Engine(self.level, hash_mb=self.hash_mb)
            except Exception as exc:
                self._say(f"cannot start level {self.level!r}: {exc}")
                return None
            if self.level == "master":
                # The network is master's default: a problem with its file is a warning
                # while master is made.
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    master = self._engine._master_search()
                    if self.use_nnue and self.eval_file != SHIPPED_EVAL_FILE:
                        master.use_network(path=self.eval_file)
                if not self.use_nnue:
                    master.use_network(False)
                # MoveOverhead is already off the clocks: master keeps back nothing more
                # (both together gave back 30 ms of a 50 ms movetime).
                master.time_rule = replace(master.time_rule, overhead=0.0)
                for warning in caught:
                    self._say(str(warning.message))
        return self._engine

    def _search(
        self,
        engine: Engine,
        board: Board,
        limits: SearchLimits,
        stop: threading.Event,
        timer: threading.Timer | None,
    ) -> None:
        last_line: list[str] = []

        def on_info(result: SearchResult) -> None:
            line = format_info(result)
            last_line[:] = [line]
            self.send(line)

        result: SearchResult | None = None
        try:
            result = engine.search(board, limits, info=on_info, stop=stop)
        except NotImplementedError as exc:
            self._say(f"level {self.level!r} cannot search: {exc}")
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self._say(f"search failed: {type(exc).__name__}: {exc}")
        if limits.infinite:
            stop.wait()  # UAI: an infinite search answers only after 'stop'
        if timer is not None:
            timer.cancel()
        with self._out_lock:
            if result is not None:
                line = format_info(result)
                if [line] != last_line:
                    self._write(line)
            self._searching.clear()
            self._write(f"bestmove {result.move.uci() if result is not None else '0000'}")

    def _cmd_stop(self, args: list[str]) -> None:
        self._stop.set()

    def _cmd_perft(self, args: list[str]) -> None:
        from gameclub.ataxx.perft import perft

        depth = _int_or_none(args[0]) if len(args) == 1 else None
        if depth is None or depth < 0:
            self._say("malformed perft: expected 'perft <depth>' with a depth of 0 or more")
            return
        nodes = 1
        started = time.perf_counter()
        for current in range(1, depth + 1):
            nodes = perft(self.board, current)
            millis = round((time.perf_counter() - started) * 1000)
            nps = nodes * 1000 // millis if millis else 0
            self.send(f"info depth {current} nodes {nodes} time {millis} nps {nps}")
        self.send(f"nodes {nodes}")

    def _cmd_bench(self, args: list[str]) -> None:
        if not args:
            per_position: int | None = BENCH_NODES
        else:
            per_position = _int_or_none(args[0]) if len(args) == 1 else None
        if per_position is None or per_position < 1:
            self._say("malformed bench: expected 'bench [nodes per position]'")
            return
        engine = self._get_engine()
        if engine is None:
            return
        total_nodes = 0
        total_time = 0.0
        for index, fen in enumerate(BENCH_FENS, start=1):
            board = Board(fen)
            engine.new_game()
            started = time.perf_counter()
            try:
                result = engine.search(board, SearchLimits(nodes=per_position))
            except NotImplementedError as exc:
                self._say(f"level {self.level!r} cannot search: {exc}")
                return
            total_time += time.perf_counter() - started
            total_nodes += result.nodes
            self._say(
                f"bench {index}/{len(BENCH_FENS)} {fen} nodes {result.nodes} "
                f"bestmove {result.move.uci()}"
            )
        millis = max(1, round(total_time * 1000))
        nps = total_nodes * 1000 // millis
        self.send(f"Total time (ms) : {millis}")
        self.send(f"Nodes searched  : {total_nodes}")
        self.send(f"Nodes/second    : {nps}")
        self.send(f"{total_nodes} nodes {nps} nps")

    def _cmd_d(self, args: list[str]) -> None:
        board = self.board
        files = "abcdefgh"[: board.width]
        lines = [
            f"{rank} {row}"
            for rank, row in zip(range(board.height, 0, -1), str(board).splitlines(), strict=True)
        ]
        lines += [
            "  " + " ".join(files),
            f"Fen: {board.fen()}",
            f"Side to move: {board.turn.char}",
            f"Rules: {board.rules.name}",
            f"Key: {board.zobrist_hash():016x}",
        ]
        outcome = board.outcome()
        if outcome is not None:
            lines.append(f"Game over: {outcome.result()} ({outcome.termination.value})")
        with self._out_lock:  # in one piece, even beside a search's info lines
            for line in lines:
                self._write(line)


# -- the client side ---------------------------------------------------------------


class UaiError(Exception):
    """A UAI engine misbehaved: it did not start, died, or did not answer in time."""


class EngineTerminatedError(UaiError):
    """The engine process ended (crashed or quit) while we expected an answer."""


class EngineTimeoutError(UaiError):
    """The engine did not answer in time."""


@dataclass
class GoResult:
    """What an engine answered to ``go``."""

    bestmove: str
    #: seconds from sending ``go`` to reading ``bestmove``.
    elapsed: float
    #: the last ``info`` line that carried a score, if any.
    info: UaiInfo | None = None
    #: every ``info string`` the engine sent during the search.
    strings: list[str] = field(default_factory=list)


@dataclass
class UaiOption:
    """An ``option`` the engine declared."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: list[str] = field(default_factory=list)


def parse_option(line: str) -> UaiOption | None:
    """Read an ``option name ... type ...`` line; ``None`` when malformed."""
    words = line.split()
    if words[:2] != ["option", "name"] or "type" not in words:
        return None
    keys = {"type", "default", "min", "max", "var"}
    name_end = words.index("type")
    option = UaiOption(" ".join(words[2:name_end]), "")
    index = name_end
    while index < len(words):
        key = words[index]
        end = index + 1
        while end < len(words) and words[end] not in keys:
            end += 1
        value = " ".join(words[index + 1:end])
        if key == "type":
            option.type = value
        elif key == "default":
            option.default = value
        elif key in ("min", "max"):
            setattr(option, key, _int_or_none(value))
        elif key == "var":
            option.vars.append(value)
        index = end
    return option


class UaiEngineProcess:
    """A UAI engine in a subprocess, driven synchronously with timeouts.

    ``command`` is an argument list or a shell-like string. Times given to
    :meth:`go` are in seconds (sent as milliseconds). Every method that waits
    raises :class:`EngineTimeoutError` or :class:`EngineTerminatedError` instead
    of hanging.

    >>> with UaiEngineProcess([sys.executable, "-m", "gameclub.uai"]) as engine:  # doctest: +SKIP
    ...     engine.uai(); engine.setoption("Level", "simple"); engine.position("startpos")
    ...     engine.go(depth=1).bestmove
    'f2'
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        stderr_lines: int = 20,
    ) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.command:
            raise UaiError("empty engine command")
        self.name = name or self.command[-1]
        self.id_name: str | None = None
        self.id_author: str | None = None
        self.options: dict[str, UaiOption] = {}
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
                cwd=cwd,
            )
        except OSError as exc:
            raise UaiError(f"cannot start engine {shlex.join(self.command)!r}: {exc}") from None
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    # -- plumbing ---------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        with contextlib.suppress(ValueError, OSError):
            for line in stream:
                self._lines.put((time.perf_counter(), line.rstrip("\r\n")))
        self._lines.put((time.perf_counter(), None))

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        with contextlib.suppress(ValueError, OSError):
            for line in stream:
                self.stderr_tail.append(line.rstrip("\r\n"))

    @property
    def is_alive(self) -> bool:
        return self.process.poll() is None

    def _died(self) -> EngineTerminatedError:
        code = self.process.poll()
        if code is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.process.wait(timeout=1)
        self._stderr_reader.join(timeout=1)
        detail = f" (last stderr: {self.stderr_tail[-1]})" if self.stderr_tail else ""
        status = f"exit code {code}" if code is not None else "closed its output"
        return EngineTerminatedError(f"engine {self.name} terminated: {status}{detail}")

    def send(self, line: str) -> None:
        """Send one command line."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died() from None

    def read_line(self, timeout: float | None) -> tuple[float, str]:
        """The next output line and the time it was read; wait at most ``timeout`` seconds."""
        try:
            stamp, line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise EngineTimeoutError(
                f"engine {self.name} did not answer within {timeout:.3g} s"
            ) from None
        if line is None:
            self._lines.put((stamp, None))  # stays at the end for later readers
            raise self._died()
        return stamp, line

    def _wait_for(self, word: str, timeout: float | None) -> list[str]:
        deadline = None if timeout is None else time.perf_counter() + timeout
        seen = []
        while True:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            _, line = self.read_line(left)
            seen.append(line)
            if line.split()[:1] == [word]:
                return seen

    # -- the protocol -----------------------------------------------------------------

    def uai(self, timeout: float | None = 30.0) -> None:
        """The handshake: learn the engine's name and options."""
        self.send("uai")
        for line in self._wait_for("uaiok", timeout):
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.id_name = " ".join(words[2:])
            elif words[:2] == ["id", "author"]:
                self.id_author = " ".join(words[2:])
            elif words[:1] == ["option"]:
                option = parse_option(line)
                if option is not None:
                    self.options[option.name.lower()] = option

    def isready(self, timeout: float | None = 30.0) -> None:
        self.send("isready")
        self._wait_for("readyok", timeout)

    def setoption(self, name: str, value: object = None) -> None:
        self.send(f"setoption name {name}" + ("" if value is None else f" value {value}"))

    def uainewgame(self) -> None:
        self.send("uainewgame")

    def position(self, fen: str = "startpos", moves: Iterable[str | Move] = ()) -> None:
        """Set the position: ``"startpos"`` or a FEN, then the moves played from it."""
        text = [str(move) for move in moves]
        setup = "startpos" if fen == "startpos" else f"fen {fen}"
        self.send(f"position {setup}" + (f" moves {' '.join(text)}" if text else ""))

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
        """Search and wait for ``bestmove``; times in seconds; ``timeout`` bounds the wait."""
        parts = ["go"]
        for key, seconds in (("wtime", wtime), ("btime", btime), ("winc", winc), ("binc", binc),
                             ("movetime", movetime)):
            if seconds is not None:
                parts.append(f"{key} {max(0, round(seconds * 1000))}")
        for key, count in (("movestogo", movestogo), ("depth", depth), ("nodes", nodes)):
            if count is not None:
                parts.append(f"{key} {count}")
        if infinite:
            parts.append("infinite")
        started = time.perf_counter()
        self.send(" ".join(parts))
        return self._read_bestmove(started, timeout)

    def _read_bestmove(self, started: float, timeout: float | None) -> GoResult:
        deadline = None if timeout is None else started + timeout
        scored: UaiInfo | None = None
        strings: list[str] = []
        while True:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            stamp, line = self.read_line(left)
            words = line.split()
            if words[:1] == ["info"]:
                info = parse_info(line)
                if info.string is not None:
                    strings.append(info.string)
                elif info.has_score:
                    scored = info
            elif words[:1] == ["bestmove"]:
                move = words[1] if len(words) > 1 else ""
                return GoResult(move, stamp - started, scored, strings)

    def stop(self, timeout: float | None = 10.0) -> GoResult:
        """Stop an infinite search and read its ``bestmove``."""
        started = time.perf_counter()
        self.send("stop")
        return self._read_bestmove(started, timeout)

    def perft(self, depth: int, timeout: float | None = 60.0) -> int:
        self.send(f"perft {depth}")
        last = self._wait_for("nodes", timeout)[-1]
        count = _int_or_none(last.split()[1]) if len(last.split()) > 1 else None
        if count is None:
            raise UaiError(f"engine {self.name} answered perft with {last!r}")
        return count

    def quit(self, timeout: float = 2.0) -> int | None:
        """Ask the engine to quit; kill it if it does not within ``timeout``; the exit code."""
        if self.is_alive:
            with contextlib.suppress(UaiError):
                self.send("quit")
            try:
                return self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        return self.kill()

    def kill(self) -> int | None:
        if self.is_alive:
            self.process.kill()
        code = self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        return code

    def __enter__(self) -> UaiEngineProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.quit()


# -- the command line --------------------------------------------------------------


def add_uai_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``uai`` subcommand (``func`` runs it) on an argparse subparsers object."""
    parser = subparsers.add_parser(
        "uai",
        help="run the engine as a UAI engine on stdin/stdout",
        description=(
            "Speak UAI on stdin/stdout (for cuteataxx, python-ataxx and other Ataxx tools). "
            "With COMMANDs, run them in order and exit, e.g. 'gameclub uai bench'."
        ),
    )
    _add_uai_arguments(parser, LEVELS)
    parser.set_defaults(func=run_uai)
    return parser


def _add_uai_arguments(parser: argparse.ArgumentParser, levels: Sequence[str]) -> None:
    parser.add_argument(
        "--level", choices=levels, default="master", help="initial Level option (default master)"
    )
    parser.add_argument(
        "--rules", choices=list(RULESETS), default="ataxx", help="initial Rules option"
    )
    parser.add_argument(
        "commands", nargs="*", metavar="COMMAND",
        help="UAI lines to run before exiting, e.g. 'bench' or 'perft 5'",
    )


def run_uai(args: argparse.Namespace) -> int:
    """Run the engine for parsed ``uai`` arguments."""
    server = UaiServer(sys.stdout, level=args.level, rules=args.rules)
    if args.commands:
        for command in args.commands:
            if not server.handle(command):
                break
            server.wait()
        server.shutdown()
        return 0
    return server.run(sys.stdin)


def main_uai(argv: Sequence[str] | None = None) -> int:
    """``python -m gameclub.uai [--level L] [COMMAND ...]``."""
    parser = argparse.ArgumentParser(prog="gameclub uai", description="Ataxx UAI engine")
    _add_uai_arguments(parser, LEVELS)
    return run_uai(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main_uai())
