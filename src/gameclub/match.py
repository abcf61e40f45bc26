"""Engine matches: two UAI engines play openings with both colours; W-L-D, Elo and SPRT.

>>> round(elo_from_score(0.75), 1)
190.8
>>> sprt_bounds(0.05, 0.05)[1] > 2.94
True

Engines are ``builtin:LEVEL`` (our engine, run as ``python -m gameclub.uai`` with
the ``Level`` option) or ``uai:COMMAND`` (any UAI engine). Every engine runs in
its own subprocess and is driven through :class:`~gameclub.uai.UaiEngineProcess`;
the runner owns the clock, so an engine that overruns its time loses on time, and
one that crashes, hangs or plays an illegal move loses the game while the match
goes on. See ``docs/match.md`` for the statistics.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import math
import os
import queue
import random
import re
import shlex
import shutil
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from gameclub.ataxx.board import Board, Color
from gameclub.ataxx.errors import AtaxxError
from gameclub.ataxx.move import Move
from gameclub.ataxx.rules import RULESETS, RuleSet
from gameclub.uai import (
    EngineTerminatedError,
    EngineTimeoutError,
    GoResult,
    UaiEngineProcess,
    UaiError,
)

#: Openings shipped with the package, played when no file is given.
DEFAULT_OPENINGS = "ataxx-openings-4ply.txt"
#: A mate score counts as this many centipawns for resign adjudication.
MATE_CP = 30_000
#: The 97.5 % quantile of the normal distribution, for 95 % intervals.
Z95 = 1.959963984540054


class MatchError(Exception):
    """The match cannot be played as asked (unknown engine, bad openings, ...)."""


# -- statistics ------------------------------------------------------------------


def elo_from_score(score: float) -> float:
    """Logistic Elo difference of an expected score: ``-400 log10(1/score - 1)``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of an Elo difference (the inverse of :func:`elo_from_score`)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference with its 95 % interval, from one engine's W-L-D."""

    elo: float
    lower: float
    upper: float
    score: float
    #: likelihood of superiority: the probability that the engine is stronger.
    los: float

    def describe(self) -> str:
        if math.isinf(self.elo):
            interval = "no finite estimate: every game went the same way"
        else:
            interval = f"95% interval {_signed(self.lower)} to {_signed(self.upper)}"
        return f"Elo difference: {_signed(self.elo)} ({interval}), LOS {100 * self.los:.1f} %"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def elo_estimate(wins: int, losses: int, draws: int) -> EloEstimate:
    """Elo and its 95 % interval from the trinomial variance of the per-game results.

    The mean score is ``s = (W + D/2) / N``; the variance of one game's result is
    ``(W (1-s)^2 + D (1/2-s)^2 + L s^2) / N``; the interval is
    ``s +- 1.96 sqrt(var / N)`` mapped through :func:`elo_from_score`.
    """
    games = wins + losses + draws
    decisive = wins + losses
    los = 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive))) if decisive else 0.5
    if games == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5, los)
    score = (wins + 0.5 * draws) / games
    variance = (
        wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2
    ) / games
    margin = Z95 * math.sqrt(variance / games)
    return EloEstimate(
        elo_from_score(score),
        elo_from_score(score - margin),
        elo_from_score(score + margin),
        score,
        los,
    )


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR bounds ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins: int, losses: int, draws: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``), logistic Elo.

    The GSPRT approximation of fishtest: with the per-game score's sample mean
    ``mu`` and variance ``var`` (counts of zero replaced by 1e-3),
    ``LLR = N (s1 - s0) (2 mu - s0 - s1) / (2 var)`` where ``s = score_from_elo(elo)``.
    """
    if wins + losses + draws == 0:
        return 0.0
    counts = [max(1e-3, float(c)) for c in (losses, draws, wins)]
    total = sum(counts)
    mu = (0.5 * counts[1] + counts[2]) / total
    var = (counts[0] * mu**2 + counts[1] * (0.5 - mu) ** 2 + counts[2] * (1.0 - mu) ** 2) / total
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return total * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo1`` against ``elo0``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise MatchError(f"SPRT needs elo0 < elo1, not {self.elo0} and {self.elo1}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise MatchError(f"SPRT {name} must be between 0 and 0.5, not {value}")

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, wins: int, losses: int, draws: int) -> float:
        return sprt_llr(wins, losses, draws, self.elo0, self.elo1)

    def verdict(self, wins: int, losses: int, draws: int) -> str | None:
        """``"H1"`` (elo1 accepted), ``"H0"`` (elo0 accepted) or ``None`` (go on).

        No verdict before the match has both a win and a loss: until then the
        variance is a guess (the regularised zero count), and the LLR is huge on
        the strength of a single game. (cutechess also waits for a draw; draws are
        rare in Ataxx.)
        """
        if wins == 0 or losses == 0:
            return None
        llr = self.llr(wins, losses, draws)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


# -- settings ------------------------------------------------------------------------


def builtin_command() -> list[str]:
    """The command line of our own UAI engine (its level is set by the ``Level`` option)."""
    return [sys.executable, "-m", "gameclub.uai"]


@dataclass(frozen=True)
class EngineSpec:
    """An engine of the match: a display name, a command line and UAI options."""

    name: str
    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    #: the level when this is one of our built-in levels.
    level: str | None = None

    @classmethod
    def parse(
        cls, text: str, *, name: str | None = None, options: Sequence[str] = ()
    ) -> EngineSpec:
        """Read ``builtin:LEVEL`` or ``uai:COMMAND``; options are ``NAME=VALUE`` strings."""
        from gameclub.ataxx.engine import LEVELS

        pairs = []
        for item in options:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise MatchError(f"engine option {item!r} is not NAME=VALUE")
            pairs.append((key.strip(), value.strip()))
        kind, sep, rest = text.partition(":")
        if sep and kind == "builtin":
            if rest not in LEVELS:
                raise MatchError(
                    f"unknown built-in level {rest!r} in {text!r}; choose one of "
                    f"{', '.join('builtin:' + level for level in LEVELS)}"
                )
            return cls(
                name or rest, tuple(builtin_command()), (("Level", rest), *pairs), level=rest
            )
        if sep and kind == "uai":
            try:
                argv = shlex.split(rest)
            except ValueError as exc:
                raise MatchError(f"cannot read the engine command {rest!r}: {exc}") from None
            if not argv:
                raise MatchError(f"engine {text!r} has an empty command")
            if shutil.which(argv[0]) is None:
                raise MatchError(f"engine {text!r}: {argv[0]!r} is not an executable file")
            return cls(name or _command_name(argv), tuple(argv), tuple(pairs))
        raise MatchError(
            f"unknown engine {text!r}: write builtin:LEVEL (LEVEL one of {', '.join(LEVELS)}) "
            "or uai:COMMAND"
        )


def _command_name(argv: Sequence[str]) -> str:
    first = os.path.basename(argv[0])
    if first.startswith("python") and len(argv) > 1:
        return os.path.basename(argv[-1]).removesuffix(".py")
    return first


@dataclass(frozen=True)
class TimeControl:
    """How long engines think; every given limit is sent with each ``go``.

    ``base``/``increment`` (seconds) make a clock per side, refilled with ``base``
    every ``moves`` moves when ``moves`` is set; ``movetime`` is seconds per move.
    """

    base: float | None = None
    increment: float = 0.0
    moves: int | None = None
    movetime: float | None = None
    depth: int | None = None
    nodes: int | None = None

    @classmethod
    def parse_tc(cls, text: str) -> TimeControl:
        """``BASE+INC``, ``BASE`` or ``MOVES/BASE+INC`` in seconds, optionally ``tc=...``."""
        match = re.fullmatch(
            r"(?:tc=)?(?:(\d+)/)?(\d+(?:\.\d*)?)(?:\+(\d+(?:\.\d*)?))?", text, re.ASCII
        )
        if not match:
            raise MatchError(
                f"bad time control {text!r}: expected BASE+INC in seconds (like 1+0.01), "
                "BASE, or MOVES/BASE+INC"
            )
        moves = int(match.group(1)) if match.group(1) else None
        base, increment = float(match.group(2)), float(match.group(3) or 0)
        if base <= 0 or (moves is not None and moves < 1):
            raise MatchError(f"bad time control {text!r}: the base time must be positive")
        return cls(base=base, increment=increment, moves=moves)

    def __post_init__(self) -> None:
        if all(v is None for v in (self.base, self.movetime, self.depth, self.nodes)):
            raise MatchError("a time control needs a clock, a movetime, a depth or a node count")
        for name in ("movetime", "depth", "nodes"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise MatchError(f"{name} must be positive, not {value}")

    def describe(self) -> str:
        """The PGN ``TimeControl`` tag (``1+0.01``, ``40/60``, ``movetime=0.1``, ``depth=3``)."""
        parts = []
        if self.base is not None:
            clock = f"{self.base:g}" + (f"+{self.increment:g}" if self.increment else "")
            parts.append(f"{self.moves}/{clock}" if self.moves else clock)
        if self.movetime is not None:
            parts.append(f"movetime={self.movetime:g}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        return " ".join(parts)


@dataclass(frozen=True)
class Adjudication:
    """When the runner ends a game early.

    ``resign_score``/``resign_moves``: a side whose own score is at or below
    ``-resign_score`` centipawns for ``resign_moves`` moves in a row loses.
    ``draw_plies``: a game still going after that many plies is a draw.
    """

    resign_score: int | None = None
    resign_moves: int = 3
    draw_plies: int | None = None


@dataclass
class MatchConfig:
    """Everything a match needs; :func:`run_match` plays it."""

    engine1: EngineSpec
    engine2: EngineSpec
    time_control: TimeControl
    #: opening FENs; ``None``: the 40 openings shipped with gameclub.
    openings: list[str] | None = None
    #: number of games; ``None``: each opening twice.
    games: int | None = None
    concurrency: int = 1
    rules: RuleSet = field(default_factory=lambda: RULESETS["ataxx"])
    adjudication: Adjudication = field(default_factory=Adjudication)
    sprt: Sprt | None = None
    pgn_path: str | Path | None = None
    #: seconds an engine may go past its time before it loses on time.
    time_margin: float = 0.05
    #: seconds to wait for a move when no clock or movetime bounds it.
    move_timeout: float = 60.0
    #: seconds for an engine to start and answer ``uai`` / ``isready`` (a first run of
    #: ``builtin:master`` compiles its kernels before ``readyok``: about 22 s here).
    startup_timeout: float = 120.0
    event: str = "gameclub match"
    shuffle_openings: bool = False
    seed: int | None = None


def load_openings(path: str | Path | None = None, rules: RuleSet | None = None) -> list[str]:
    """The FENs of an openings file (one a line, ``#`` comments); the shipped file by default."""
    rules = rules or RULESETS["ataxx"]
    if path is None:
        text = importlib.resources.files("gameclub").joinpath("data", DEFAULT_OPENINGS).read_text()
        where = DEFAULT_OPENINGS
    else:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise MatchError(f"cannot read the openings file {str(path)!r}: {exc}") from None
        where = str(path)
    fens = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            board = Board(line, rules)
        except AtaxxError as exc:
            raise MatchError(f"{where}, line {number}: {exc}") from None
        if board.is_game_over():
            raise MatchError(f"{where}, line {number}: the game is already over in {line!r}")
        fens.append(line)
    if not fens:
        raise MatchError(f"{where} holds no openings")
    return fens


# -- results -------------------------------------------------------------------------


@dataclass
class GameResult:
    """One finished game."""

    number: int
    opening: str
    x_name: str
    o_name: str
    #: the colour engine 1 played.
    engine1_color: Color
    #: ``1-0`` (x won), ``0-1`` or ``1/2-1/2``.
    result: str
    #: the PGN ``Termination`` value: normal, adjudication, time forfeit, abandoned,
    #: rules infraction.
    termination: str
    reason: str
    #: the moves played (Ataxx or Awele :class:`Move` values).
    moves: list[Any]
    pgn: str

    @property
    def engine1_points(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        x_won = self.result == "1-0"
        return 1.0 if x_won == (self.engine1_color is Color.X) else 0.0


@dataclass
class MatchResult:
    """The outcome of a match, counted from engine 1's side."""

    engine1: str
    engine2: str
    games: list[GameResult] = field(default_factory=list)
    sprt: Sprt | None = None
    #: ``"H0"``, ``"H1"`` or ``None`` when the SPRT did not end the match.
    sprt_verdict: str | None = None

    @property
    def wins(self) -> int:
        return sum(1 for g in self.games if g.engine1_points == 1.0)

    @property
    def losses(self) -> int:
        return sum(1 for g in self.games if g.engine1_points == 0.0)

    @property
    def draws(self) -> int:
        return sum(1 for g in self.games if g.engine1_points == 0.5)

    @property
    def elo(self) -> EloEstimate:
        return elo_estimate(self.wins, self.losses, self.draws)

    @property
    def llr(self) -> float | None:
        return None if self.sprt is None else self.sprt.llr(self.wins, self.losses, self.draws)

    def score_line(self) -> str:
        n = len(self.games)
        points = self.wins + 0.5 * self.draws
        ratio = points / n if n else 0.0
        return (
            f"Score of {self.engine1} vs {self.engine2}: {self.wins} - {self.losses} - "
            f"{self.draws} [{ratio:.3f}] {n}"
        )

    def summary(self) -> list[str]:
        lines = [self.score_line(), self.elo.describe()]
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no verdict yet"}
            lines.append(
                f"SPRT (elo0 {self.sprt.elo0:g}, elo1 {self.sprt.elo1:g}, alpha "
                f"{self.sprt.alpha:g}, beta {self.sprt.beta:g}): LLR {self.llr:.2f} "
                f"[{lower:.2f}, {upper:.2f}] - {verdict[self.sprt_verdict]}"
            )
        return lines


# -- playing -------------------------------------------------------------------------


class _Seat:
    """One engine as one worker runs it: started on demand, restarted after a failure."""

    def __init__(self, spec: EngineSpec, rules: RuleSet, startup_timeout: float) -> None:
        self.spec = spec
        self.rules = rules
        self.startup_timeout = startup_timeout
        self.process: UaiEngineProcess | None = None
        self.fresh = False

    def launch(self) -> None:
        """Start the process if it is not running (without waiting for it to boot)."""
        if self.process is not None and not self.process.is_alive:
            self.discard()
        if self.process is None:
            self.process = UaiEngineProcess(self.spec.command, name=self.spec.name)
            self.fresh = True

    def ready(self) -> UaiEngineProcess:
        """The engine, set up for a new game; raises :class:`UaiError`."""
        self.launch()
        process = self.process
        assert process is not None
        try:
            if self.fresh:
                process.uai(self.startup_timeout)
                for name, value in self.spec.options:
                    process.setoption(name, value)
                if self.spec.level is not None and self.rules.name != "ataxx":
                    process.setoption("Rules", self.rules.name)
                self.fresh = False
            process.uainewgame()
            process.isready(self.startup_timeout)
        except UaiError:
            self.discard()
            raise
        return process

    def discard(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process = None

    def ask_to_quit(self) -> None:
        if self.process is not None and self.process.is_alive:
            with contextlib.suppress(UaiError):
                self.process.send("quit")

    def close(self) -> None:
        if self.process is not None:
            self.process.quit()
            self.process = None


@dataclass(frozen=True)
class _Job:
    number: int
    opening: str
    engine1_color: Color


class _Ended(Exception):
    """A game ends before its natural end: who won, why."""

    def __init__(self, winner: Color | None, termination: str, reason: str) -> None:
        super().__init__(reason)
        self.winner = winner
        self.termination = termination
        self.reason = reason


class _Match:
    #: how the progress lines name the first and the second player.
    side_labels = ("x", "o")

    def __init__(self, config: MatchConfig, openings: list[str], out: TextIO) -> None:
        self.config = config
        self.openings = openings
        self.out = out
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.jobs: queue.Queue[_Job] = queue.Queue()
        self.total = config.games if config.games is not None else 2 * len(openings)
        names = (config.engine1.name, config.engine2.name)
        if names[0] == names[1]:
            names = (names[0] + "#1", names[1] + "#2")
        self.names = names
        self.result = MatchResult(names[0], names[1], sprt=config.sprt)
        self.errors: list[BaseException] = []
        for number in range(self.total):
            opening = openings[(number // 2) % len(openings)]
            color = Color.X if number % 2 == 0 else Color.O
            self.jobs.put(_Job(number + 1, opening, color))

    # -- workers ----------------------------------------------------------------------

    def seats(self) -> tuple[_Seat, _Seat]:
        return (
            _Seat(self.config.engine1, self.config.rules, self.config.startup_timeout),
            _Seat(self.config.engine2, self.config.rules, self.config.startup_timeout),
        )

    def worker(self) -> None:
        seats = self.seats()
        try:
            while not self.stop.is_set():
                try:
                    job = self.jobs.get_nowait()
                except queue.Empty:
                    break
                game = self.play(job, seats)
                if game is not None:
                    self.record(game)
        except BaseException as exc:
            with self.lock:
                self.errors.append(exc)
            self.stop.set()
        finally:
            for seat in seats:  # both at once: an interpreter can take a while to exit
                seat.ask_to_quit()
            for seat in seats:
                seat.close()

    def play(self, job: _Job, seats: Any) -> GameResult | None:
        config = self.config
        board = Board(job.opening, config.rules)
        by_color = {
            job.engine1_color: (seats[0], self.names[0]),
            job.engine1_color.other: (seats[1], self.names[1]),
        }
        processes: dict[Color, UaiEngineProcess] = {}
        failures: dict[Color, str] = {}
        for color, (seat, name) in by_color.items():
            try:
                seat.launch()  # both boot side by side
            except UaiError as exc:
                failures[color] = f"{name} failed to start: {exc}"
        for color, (seat, name) in by_color.items():
            if color in failures:
                continue
            try:
                processes[color] = seat.ready()
            except UaiError as exc:
                failures[color] = f"{name} failed to start: {exc}"
        if len(failures) == 2:
            raise MatchError("neither engine could start: " + "; ".join(failures.values()))
        try:
            if failures:
                color, reason = next(iter(failures.items()))
                raise _Ended(color.other, "abandoned", reason)
            self._moves(board, processes, by_color)
            outcome = board.outcome()
            if outcome is None:  # the match was stopped
                return None
            result = outcome.result()
            termination, reason = "normal", outcome.termination.value
        except _Ended as ended:
            result = (
                "1/2-1/2" if ended.winner is None else "1-0" if ended.winner is Color.X else "0-1"
            )
            termination, reason = ended.termination, ended.reason
            if termination in ("abandoned", "time forfeit"):
                # The loser may be dead or still thinking: it starts afresh next game.
                by_color[Color.X if result == "0-1" else Color.O][0].discard()
        x_name, o_name = by_color[Color.X][1], by_color[Color.O][1]
        pgn = self._pgn(board, job, x_name, o_name, result, termination, reason)
        return GameResult(
            job.number, job.opening, x_name, o_name, job.engine1_color, result, termination,
            reason, list(board.move_stack), pgn,
        )

    def _moves(
        self,
        board: Board,
        processes: dict[Color, UaiEngineProcess],
        by_color: dict[Color, tuple[_Seat, str]],
    ) -> None:
        """Play until the game ends, the match stops, or :class:`_Ended` says why not."""
        config, tc = self.config, self.config.time_control
        adjudication = config.adjudication
        start_fen = board.fen()
        clock = {Color.X: tc.base, Color.O: tc.base}
        moves_made = {Color.X: 0, Color.O: 0}
        low_scores = {Color.X: 0, Color.O: 0}
        margin = config.time_margin
        while board.outcome() is None:
            if self.stop.is_set():
                return
            if adjudication.draw_plies is not None and len(board.move_stack) >= (
                adjudication.draw_plies
            ):
                raise _Ended(None, "adjudication", f"draw after {len(board.move_stack)} plies")
            side = board.turn
            name = by_color[side][1]
            engine = processes[side]
            movestogo = None
            if tc.moves is not None:
                done = moves_made[side] % tc.moves
                movestogo = tc.moves - done
            if tc.base is not None:
                timeout = max(0.0, clock[side] or 0.0) + margin
            elif tc.movetime is not None:
                timeout = tc.movetime + margin
            else:
                timeout = config.move_timeout
            try:
                engine.position(start_fen, board.move_stack)
                answer = engine.go(
                    btime=clock[Color.X],
                    wtime=clock[Color.O],
                    binc=tc.increment if tc.base is not None else None,
                    winc=tc.increment if tc.base is not None else None,
                    movestogo=movestogo,
                    movetime=tc.movetime,
                    depth=tc.depth,
                    nodes=tc.nodes,
                    timeout=timeout,
                )
            except EngineTimeoutError:
                if tc.base is None and tc.movetime is None:
                    why = f"{name} did not answer within {timeout:g} s"
                else:
                    why = f"{name} lost on time"
                raise _Ended(side.other, "time forfeit", why) from None
            except EngineTerminatedError as exc:
                raise _Ended(side.other, "abandoned", f"{name} crashed: {exc}") from None
            except UaiError as exc:
                raise _Ended(side.other, "abandoned", f"{name}: {exc}") from None
            # The clock is ours, not the engine's: it loses once it has overrun.
            if tc.base is not None:
                left = (clock[side] or 0.0) - answer.elapsed
                if left < -margin:
                    raise _Ended(
                        side.other, "time forfeit",
                        f"{name} lost on time ({answer.elapsed:.3f} s used, "
                        f"{clock[side]:.3f} s left)",
                    )
                left += tc.increment
                moves_made[side] += 1
                if tc.moves is not None and moves_made[side] % tc.moves == 0:
                    left += tc.base
                clock[side] = left
            elif tc.movetime is not None and answer.elapsed > tc.movetime + margin:
                raise _Ended(
                    side.other, "time forfeit",
                    f"{name} lost on time ({answer.elapsed:.3f} s for a movetime of "
                    f"{tc.movetime:g} s)",
                )
            self._push(board, answer, side, name)
            if adjudication.resign_score is not None:
                score = _score_cp(answer)
                if score is not None and score <= -adjudication.resign_score:
                    low_scores[side] += 1
                else:
                    low_scores[side] = 0
                if low_scores[side] >= adjudication.resign_moves:
                    raise _Ended(
                        side.other, "adjudication",
                        f"{name} resigns: score {score} cp or less for "
                        f"{adjudication.resign_moves} moves",
                    )

    @staticmethod
    def _push(board: Board, answer: GoResult, side: Color, name: str) -> None:
        said = f" ({'; '.join(answer.strings)})" if answer.strings else ""
        try:
            board.push(Move.from_uci(answer.bestmove))
        except AtaxxError as exc:
            raise _Ended(
                side.other, "rules infraction",
                f"{name} played an illegal move {answer.bestmove!r}: {exc}{said}",
            ) from None

    def _pgn(
        self, board: Board, job: _Job, x_name: str, o_name: str, result: str,
        termination: str, reason: str,
    ) -> str:
        from gameclub.ataxx.notation import GameRecord

        # As in libataxx and cuteataxx, Black is x (the first player), White is o.
        headers = {
            "Event": self.config.event,
            "Site": "gameclub",
            "Round": str(job.number),
            "Black": x_name,
            "White": o_name,
            "TimeControl": self.config.time_control.describe(),
            "PlyCount": str(len(board.move_stack)),
            "Termination": termination,
            "TerminationDetails": reason,
        }
        record = GameRecord.from_board(board, headers)
        record.result = result
        record.headers["Result"] = result
        return record.to_pgn()

    # -- bookkeeping ------------------------------------------------------------------

    def record(self, game: GameResult) -> None:
        with self.lock:
            result = self.result
            result.games.append(game)
            if self.config.pgn_path is not None:
                with open(self.config.pgn_path, "a", encoding="utf-8") as pgn:
                    pgn.write(game.pgn + "\n")
            done = len(result.games)
            width = 20
            filled = width * done // self.total
            bar = "#" * filled + "-" * (width - filled)
            self._print(
                f"[{bar}] {done:>{len(str(self.total))}}/{self.total}  game {game.number}: "
                f"{game.x_name} ({self.side_labels[0]}) vs {game.o_name} ({self.side_labels[1]}) "
                f"{game.result} {{{game.reason}}}"
            )
            self._print(result.score_line())
            if result.sprt is not None and result.sprt_verdict is None:
                verdict = result.sprt.verdict(result.wins, result.losses, result.draws)
                if verdict is not None:
                    result.sprt_verdict = verdict
                    self._print(f"SPRT: {verdict} accepted after {done} games, stopping")
                    self.stop.set()

    def _print(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()


def run_match(config: MatchConfig, *, out: TextIO | None = None) -> MatchResult:
    """Play the match; progress and the final summary go to ``out`` (stdout by default)."""
    out = out if out is not None else sys.stdout
    openings = list(config.openings) if config.openings is not None else load_openings(
        None, config.rules
    )
    for fen in openings:
        try:
            Board(fen, config.rules)
        except AtaxxError as exc:
            raise MatchError(f"opening {fen!r}: {exc}") from None
    return _run(_Match, config, openings, out)


def _run(kind: type[_Match], config: MatchConfig, openings: list[str],
         out: TextIO | None) -> MatchResult:
    out = out if out is not None else sys.stdout
    if config.shuffle_openings:
        random.Random(config.seed).shuffle(openings)
    if config.games is not None and config.games < 1:
        raise MatchError(f"the number of games must be positive, not {config.games}")
    if config.concurrency < 1:
        raise MatchError(f"concurrency must be positive, not {config.concurrency}")
    match = kind(config, openings, out)
    workers = [
        threading.Thread(target=match.worker, name=f"match-worker-{index}", daemon=True)
        for index in range(min(config.concurrency, match.total))
    ]
    match._print(
        f"Match {match.names[0]} vs {match.names[1]}: {match.total} games, "
        f"{len(openings)} openings, {config.time_control.describe()}, "
        f"concurrency {len(workers)}"
    )
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            while worker.is_alive():
                worker.join(timeout=0.5)
    except KeyboardInterrupt:
        match.stop.set()
        match._print("Interrupted: finishing the games in progress is skipped")
        for worker in workers:
            worker.join()
    if match.errors:
        error = match.errors[0]
        if isinstance(error, MatchError):
            raise error
        raise MatchError(f"the match failed: {type(error).__name__}: {error}") from error
    match.result.games.sort(key=lambda game: game.number)
    match._print("Finished match")
    for line in match.result.summary():
        match._print(line)
    return match.result


def _score_cp(answer: GoResult) -> int | None:
    info = answer.info
    if info is None:
        return None
    if info.score_mate is not None:
        return MATE_CP if info.score_mate > 0 else -MATE_CP
    return info.score_cp


# -- Awele -------------------------------------------------------------------------
#
# The same runner plays Awele: engines speak UCI for Oware (gameclub.awele_uci,
# Aalina's protocol), South plays first (``1-0``: South won), and an opening is
# a few moves from the start, played for both engines before they take over.


#: Plies of the default Awele openings: every 2-move start, 36 under every rule set.
AWELE_OPENING_PLIES = 2


def awele_builtin_command() -> list[str]:
    """The command line of our Awele engine (its level is set by the ``Level`` option)."""
    return [sys.executable, "-m", "gameclub.awele_uci"]


def parse_awele_engine(
    text: str, *, name: str | None = None, options: Sequence[str] = ()
) -> EngineSpec:
    """Read ``builtin:LEVEL`` (our Awele levels) or ``uci:COMMAND`` (any UCI-for-Oware engine)."""
    from gameclub.awele.engine import LEVELS as AWELE_LEVELS

    pairs = []
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise MatchError(f"engine option {item!r} is not NAME=VALUE")
        pairs.append((key.strip(), value.strip()))
    kind, sep, rest = text.partition(":")
    if sep and kind == "builtin":
        if rest not in AWELE_LEVELS:
            raise MatchError(
                f"unknown built-in Awele level {rest!r} in {text!r}; choose one of "
                f"{', '.join('builtin:' + level for level in AWELE_LEVELS)}"
            )
        return EngineSpec(name or rest, tuple(awele_builtin_command()), (("Level", rest), *pairs),
                          level=rest)
    if sep and kind == "uci":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise MatchError(f"cannot read the engine command {rest!r}: {exc}") from None
        if not argv:
            raise MatchError(f"engine {text!r} has an empty command")
        if shutil.which(argv[0]) is None:
            raise MatchError(f"engine {text!r}: {argv[0]!r} is not an executable file")
        return EngineSpec(name or _command_name(argv), tuple(argv), tuple(pairs))
    raise MatchError(
        f"unknown Awele engine {text!r}: write builtin:LEVEL (LEVEL one of "
        f"{', '.join(AWELE_LEVELS)}) or uci:COMMAND"
    )


def awele_openings(rules: Any, plies: int = AWELE_OPENING_PLIES) -> list[str]:
    """Every sequence of ``plies`` legal moves from the start, as letters (``"Fb"``)."""
    from gameclub.awele.board import Board as AweleBoard

    if plies < 0:
        raise MatchError(f"opening plies must be 0 or more, not {plies}")
    found: list[str] = []

    def walk(board: AweleBoard, prefix: str) -> None:
        if len(prefix) == plies:
            found.append(prefix)
            return
        if board.is_game_over():
            return
        for move in board.legal_moves:
            board.push(move)
            walk(board, prefix + move.text)
            board.pop()

    walk(AweleBoard(rules=rules), "")
    return found


@dataclass
class AweleMatchConfig(MatchConfig):
    """An Awele match: ``openings`` are move letters from the start (``None``: every 2-move one)."""

    awele_rules: Any = None

    def __post_init__(self) -> None:
        if self.awele_rules is None:
            from gameclub.awele.rules import RULESETS as AWELE_RULESETS

            self.awele_rules = AWELE_RULESETS["oware"]


class _AweleSeat(_Seat):
    def launch(self) -> None:
        from gameclub.awele_uci import AweleUciProcess

        if self.process is not None and not self.process.is_alive:
            self.discard()
        if self.process is None:
            self.process = AweleUciProcess(self.spec.command, name=self.spec.name)
            self.fresh = True


class _AweleMatch(_Match):
    side_labels = ("South", "North")
    config: AweleMatchConfig

    def seats(self) -> tuple[_Seat, _Seat]:
        rules = self.config.awele_rules
        return (
            _AweleSeat(self.config.engine1, rules, self.config.startup_timeout),
            _AweleSeat(self.config.engine2, rules, self.config.startup_timeout),
        )

    def play(self, job: _Job, seats: Any) -> GameResult | None:
        from gameclub.awele.board import Board as AweleBoard

        board = AweleBoard(rules=self.config.awele_rules)
        for letter in job.opening:
            board.push(letter)
        # Color.X is the first player: South.
        by_color = {
            job.engine1_color: (seats[0], self.names[0]),
            job.engine1_color.other: (seats[1], self.names[1]),
        }
        processes: dict[Color, UaiEngineProcess] = {}
        failures: dict[Color, str] = {}
        for color, (seat, name) in by_color.items():
            try:
                seat.launch()
            except UaiError as exc:
                failures[color] = f"{name} failed to start: {exc}"
        for color, (seat, name) in by_color.items():
            if color in failures:
                continue
            try:
                processes[color] = seat.ready()
            except UaiError as exc:
                failures[color] = f"{name} failed to start: {exc}"
        if len(failures) == 2:
            raise MatchError("neither engine could start: " + "; ".join(failures.values()))
        try:
            if failures:
                color, reason = next(iter(failures.items()))
                raise _Ended(color.other, "abandoned", reason)
            self._awele_moves(board, processes, by_color)
            outcome = board.outcome()
            if outcome is None:  # the match was stopped
                return None
            winner = outcome.winner
            result = "1/2-1/2" if winner is None else "1-0" if int(winner) == 0 else "0-1"
            termination = "normal"
            reason = f"{outcome.termination.value}, {outcome.score[0]}-{outcome.score[1]}"
        except _Ended as ended:
            result = (
                "1/2-1/2" if ended.winner is None else "1-0" if ended.winner is Color.X else "0-1"
            )
            termination, reason = ended.termination, ended.reason
            if termination in ("abandoned", "time forfeit"):
                by_color[Color.X if result == "0-1" else Color.O][0].discard()
        south, north = by_color[Color.X][1], by_color[Color.O][1]
        pgn = self._awele_record(board, job, south, north, result, termination, reason)
        return GameResult(
            job.number, job.opening, south, north, job.engine1_color, result, termination,
            reason, list(board.move_stack), pgn,
        )

    def _awele_moves(self, board: Any, processes: dict[Color, UaiEngineProcess],
                     by_color: dict[Color, tuple[_Seat, str]]) -> None:
        from gameclub.awele.errors import AweleError

        config, tc = self.config, self.config.time_control
        clock = {Color.X: tc.base, Color.O: tc.base}
        moves_made = {Color.X: 0, Color.O: 0}
        margin = config.time_margin
        draw_plies = config.adjudication.draw_plies
        while board.outcome() is None:
            if self.stop.is_set():
                return
            if draw_plies is not None and len(board.move_stack) >= draw_plies:
                raise _Ended(None, "adjudication", f"draw after {len(board.move_stack)} plies")
            side = Color.X if int(board.turn) == 0 else Color.O
            name = by_color[side][1]
            engine = processes[side]
            movestogo = None
            if tc.moves is not None:
                movestogo = tc.moves - moves_made[side] % tc.moves
            if tc.base is not None:
                timeout = max(0.0, clock[side] or 0.0) + margin
            elif tc.movetime is not None:
                timeout = tc.movetime + margin
            else:
                timeout = config.move_timeout
            try:
                engine.position("startpos", board.move_stack)
                answer = engine.go(
                    wtime=clock[Color.X], btime=clock[Color.O],
                    winc=tc.increment if tc.base is not None else None,
                    binc=tc.increment if tc.base is not None else None,
                    movestogo=movestogo, movetime=tc.movetime, depth=tc.depth, nodes=tc.nodes,
                    timeout=timeout,
                )
            except EngineTimeoutError:
                if tc.base is None and tc.movetime is None:
                    why = f"{name} did not answer within {timeout:g} s"
                else:
                    why = f"{name} lost on time"
                raise _Ended(side.other, "time forfeit", why) from None
            except EngineTerminatedError as exc:
                raise _Ended(side.other, "abandoned", f"{name} crashed: {exc}") from None
            except UaiError as exc:
                raise _Ended(side.other, "abandoned", f"{name}: {exc}") from None
            if tc.base is not None:
                left = (clock[side] or 0.0) - answer.elapsed
                if left < -margin:
                    raise _Ended(
                        side.other, "time forfeit",
                        f"{name} lost on time ({answer.elapsed:.3f} s used, "
                        f"{clock[side]:.3f} s left)",
                    )
                left += tc.increment
                moves_made[side] += 1
                if tc.moves is not None and moves_made[side] % tc.moves == 0:
                    left += tc.base
                clock[side] = left
            elif tc.movetime is not None and answer.elapsed > tc.movetime + margin:
                raise _Ended(
                    side.other, "time forfeit",
                    f"{name} lost on time ({answer.elapsed:.3f} s for a movetime of "
                    f"{tc.movetime:g} s)",
                )
            said = f" ({'; '.join(answer.strings)})" if answer.strings else ""
            try:
                board.push(answer.bestmove)
            except AweleError as exc:
                raise _Ended(
                    side.other, "rules infraction",
                    f"{name} played an illegal move {answer.bestmove!r}: {exc}{said}",
                ) from None

    def _awele_record(self, board: Any, job: _Job, south: str, north: str, result: str,
                      termination: str, reason: str) -> str:
        """The game in OGN (Aualé's notation): its ``Result`` is the final score, or ``*``
        for a game ended by a forfeit; ``MatchResult`` is the runner's ``1-0``/``0-1``."""
        from gameclub.awele.ogn import write_ogn

        return write_ogn(board, {
            "Event": self.config.event,
            "Site": "gameclub",
            "Round": str(job.number),
            "South": south,
            "North": north,
            "Opening": job.opening or "-",
            "TimeControl": self.config.time_control.describe(),
            "Termination": termination,
            "TerminationDetails": reason,
            "MatchResult": result,
        })


def run_awele_match(config: AweleMatchConfig, *, out: TextIO | None = None) -> MatchResult:
    """Play an Awele match; progress and the final summary go to ``out`` (stdout by default)."""
    from gameclub.awele.board import Board as AweleBoard
    from gameclub.awele.errors import AweleError

    openings = (list(config.openings) if config.openings is not None
                else awele_openings(config.awele_rules))
    for opening in openings:
        board = AweleBoard(rules=config.awele_rules)
        try:
            for letter in opening:
                board.push(letter)
        except AweleError as exc:
            raise MatchError(f"opening {opening!r}: {exc}") from None
        if board.is_game_over():
            raise MatchError(f"opening {opening!r}: the game is already over")
    return _run(_AweleMatch, config, openings, out)


# -- the command line ----------------------------------------------------------------


def add_match_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``match`` subcommand (``func`` runs it) on an argparse subparsers object."""
    parser = subparsers.add_parser(
        "match",
        help="play a match between two engines",
        description=(
            "Play a match between two engines: builtin:LEVEL (random, simple, hard, expert, "
            "master) or uai:COMMAND (any UAI engine, e.g. uai:\"/path/engine --flag\"). "
            "Each opening is played twice with colours swapped."
        ),
    )
    _add_match_arguments(parser)
    parser.set_defaults(func=run_match_command)
    return parser


def _add_match_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("engine1", help="builtin:LEVEL or uai:COMMAND")
    parser.add_argument("engine2", help="builtin:LEVEL or uai:COMMAND")
    parser.add_argument("--games", type=int, help="number of games (default: each opening twice)")
    parser.add_argument(
        "--openings", metavar="FILE",
        help="file of opening FENs, one a line (default: the 40 shipped 4-ply openings)",
    )
    parser.add_argument("--shuffle", action="store_true", help="play the openings in random order")
    parser.add_argument("--seed", type=int, help="seed for --shuffle")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once")
    parser.add_argument(
        "--tc", metavar="BASE+INC",
        help="clock per side in seconds, e.g. 1+0.01 or 40/60+0 (default 10+0.1 when no "
        "other limit is given)",
    )
    parser.add_argument("--movetime", type=float, metavar="SECONDS", help="time per move")
    parser.add_argument("--depth", type=int, help="search depth per move")
    parser.add_argument("--nodes", type=int, help="nodes per move")
    parser.add_argument(
        "--timemargin", type=float, default=50, metavar="MS",
        help="milliseconds an engine may overrun its time before it loses (default 50)",
    )
    parser.add_argument(
        "--timeout", type=float, default=60, metavar="SECONDS",
        help="wait this long for a move that no clock bounds (default 60)",
    )
    parser.add_argument("--rules", choices=list(RULESETS), default="ataxx", help="rule set")
    parser.add_argument(
        "--resign-score", type=int, metavar="CP",
        help="adjudicate a loss when a side's own score is <= -CP ...",
    )
    parser.add_argument(
        "--resign-moves", type=int, default=3, metavar="N",
        help="... for N moves in a row (default 3)",
    )
    parser.add_argument(
        "--draw-plies", type=int, metavar="N", help="adjudicate a draw after N plies"
    )
    parser.add_argument(
        "--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
        help="run an SPRT of ELO1 against ELO0 and stop at its verdict",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT alpha (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT beta (default 0.05)")
    parser.add_argument("--pgn", metavar="FILE", help="append the games to this PGN file")
    parser.add_argument("--event", default="gameclub match", help="PGN Event tag")
    parser.add_argument("--name1", help="display name of engine 1")
    parser.add_argument("--name2", help="display name of engine 2")
    parser.add_argument(
        "--option1", action="append", default=[], metavar="NAME=VALUE",
        help="UAI option for engine 1 (repeatable)",
    )
    parser.add_argument(
        "--option2", action="append", default=[], metavar="NAME=VALUE",
        help="UAI option for engine 2 (repeatable)",
    )


def config_from_args(args: argparse.Namespace) -> MatchConfig:
    """A :class:`MatchConfig` from parsed ``match`` arguments."""
    rules = RULESETS[args.rules]
    if args.tc is not None:
        clock = TimeControl.parse_tc(args.tc)
    elif args.movetime is None and args.depth is None and args.nodes is None:
        clock = TimeControl.parse_tc("10+0.1")
    else:
        clock = None
    time_control = TimeControl(
        base=clock.base if clock else None,
        increment=clock.increment if clock else 0.0,
        moves=clock.moves if clock else None,
        movetime=args.movetime,
        depth=args.depth,
        nodes=args.nodes,
    )
    if args.resign_moves < 1:
        raise MatchError(f"--resign-moves must be positive, not {args.resign_moves}")
    if args.draw_plies is not None and args.draw_plies < 1:
        raise MatchError(f"--draw-plies must be positive, not {args.draw_plies}")
    return MatchConfig(
        engine1=EngineSpec.parse(args.engine1, name=args.name1, options=args.option1),
        engine2=EngineSpec.parse(args.engine2, name=args.name2, options=args.option2),
        time_control=time_control,
        openings=load_openings(args.openings, rules),
        games=args.games,
        concurrency=args.concurrency,
        rules=rules,
        adjudication=Adjudication(args.resign_score, args.resign_moves, args.draw_plies),
        sprt=Sprt(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None,
        pgn_path=args.pgn,
        time_margin=args.timemargin / 1000,
        move_timeout=args.timeout,
        event=args.event,
        shuffle_openings=args.shuffle,
        seed=args.seed,
    )


def run_match_command(args: argparse.Namespace) -> int:
    """Run a match for parsed ``match`` arguments; errors are printed, exit status 2."""
    try:
        run_match(config_from_args(args))
    except MatchError as exc:
        print(f"gameclub match: error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_awele_match_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``gameclub awele match``."""
    from gameclub.awele.rules import RULESETS as AWELE_RULESETS

    parser.add_argument("engine1", help="builtin:LEVEL (random, greedy, master) or uci:COMMAND")
    parser.add_argument("engine2", help="builtin:LEVEL or uci:COMMAND")
    parser.add_argument("--games", type=int, help="number of games (default: each opening twice)")
    parser.add_argument(
        "--opening-plies", type=int, default=AWELE_OPENING_PLIES, metavar="N",
        help=f"openings: every sequence of N moves from the start (default "
        f"{AWELE_OPENING_PLIES}: 36 openings)",
    )
    parser.add_argument("--shuffle", action="store_true", help="play the openings in random order")
    parser.add_argument("--seed", type=int, help="seed for --shuffle")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once")
    parser.add_argument("--tc", metavar="BASE+INC",
                        help="clock per side in seconds, e.g. 60+1 (Aalina ignores clocks: "
                        "give it --movetime)")
    parser.add_argument("--movetime", type=float, metavar="SECONDS",
                        help="time per move (default 1 when no other limit is given)")
    parser.add_argument("--depth", type=int, help="search depth per move")
    parser.add_argument("--nodes", type=int, help="nodes per move")
    parser.add_argument("--timemargin", type=float, default=100, metavar="MS",
                        help="milliseconds an engine may overrun its time before it loses "
                        "(default 100)")
    parser.add_argument("--timeout", type=float, default=60, metavar="SECONDS",
                        help="wait this long for a move that no clock bounds (default 60)")
    parser.add_argument("--rules", choices=list(AWELE_RULESETS), default="oware",
                        help="rule set (default oware: abapa, Aalina's)")
    parser.add_argument("--draw-plies", type=int, metavar="N",
                        help="adjudicate a draw after N plies")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                        help="run an SPRT of ELO1 against ELO0 and stop at its verdict")
    parser.add_argument("--pgn", metavar="FILE", help="append the games to this file")
    parser.add_argument("--event", default="gameclub awele match", help="Event tag")
    parser.add_argument("--name1", help="display name of engine 1")
    parser.add_argument("--name2", help="display name of engine 2")
    parser.add_argument("--option1", action="append", default=[], metavar="NAME=VALUE",
                        help="engine option for engine 1 (repeatable), e.g. OwnBook=false")
    parser.add_argument("--option2", action="append", default=[], metavar="NAME=VALUE",
                        help="engine option for engine 2 (repeatable)")


def run_awele_match_command(args: argparse.Namespace) -> int:
    """Run ``gameclub awele match``; errors are printed, exit status 2."""
    from gameclub.awele.rules import RULESETS as AWELE_RULESETS

    try:
        rules = AWELE_RULESETS[args.rules]
        clock = TimeControl.parse_tc(args.tc) if args.tc is not None else None
        movetime = args.movetime
        if clock is None and movetime is None and args.depth is None and args.nodes is None:
            movetime = 1.0
        if args.draw_plies is not None and args.draw_plies < 1:
            raise MatchError(f"--draw-plies must be positive, not {args.draw_plies}")
        config = AweleMatchConfig(
            engine1=parse_awele_engine(args.engine1, name=args.name1, options=args.option1),
            engine2=parse_awele_engine(args.engine2, name=args.name2, options=args.option2),
            time_control=TimeControl(
                base=clock.base if clock else None,
                increment=clock.increment if clock else 0.0,
                moves=clock.moves if clock else None,
                movetime=movetime, depth=args.depth, nodes=args.nodes,
            ),
            openings=awele_openings(rules, args.opening_plies),
            games=args.games,
            concurrency=args.concurrency,
            adjudication=Adjudication(draw_plies=args.draw_plies),
            sprt=Sprt(args.sprt[0], args.sprt[1]) if args.sprt else None,
            pgn_path=args.pgn,
            time_margin=args.timemargin / 1000,
            move_timeout=args.timeout,
            event=args.event,
            shuffle_openings=args.shuffle,
            seed=args.seed,
            awele_rules=rules,
        )
        run_awele_match(config)
    except MatchError as exc:
        print(f"gameclub awele match: error: {exc}", file=sys.stderr)
        return 2
    return 0


def main_match(argv: Sequence[str] | None = None) -> int:
    """``python -m gameclub.match ENGINE1 ENGINE2 [options]``."""
    parser = argparse.ArgumentParser(prog="gameclub match", description="Ataxx engine match")
    _add_match_arguments(parser)
    return run_match_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main_match())
