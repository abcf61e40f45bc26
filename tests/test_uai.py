"""The UAI engine through a real subprocess: our own client and python-ataxx's."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from gameclub.ataxx import Board
from gameclub.ataxx.engine import LEVELS, Engine, SearchLimits
from gameclub.uai import (
    EngineTerminatedError,
    UaiEngineProcess,
    UaiServer,
    mate_in_moves,
    parse_info,
    parse_option,
)

#: The engine as users start it: ``python -m gameclub uai`` (the ``gameclub uai`` command).
ENGINE = [sys.executable, "-m", "gameclub", "uai"]
START_PERFT = {1: 16, 2: 256, 3: 6460, 4: 155888}


def searchable_levels() -> list[str]:
    """The levels whose search works in this build (asked of the engine itself)."""
    levels = []
    for level in LEVELS:
        try:
            Engine(level, seed=0).search(Board(), SearchLimits(depth=1))
        except NotImplementedError:
            continue
        levels.append(level)
    return levels


SEARCHABLE = searchable_levels()
STRONGEST = SEARCHABLE[-1]


def test_random_and_simple_levels_search() -> None:
    assert {"random", "simple"} <= set(SEARCHABLE)


def read_until(
    engine: UaiEngineProcess, done: Callable[[str], bool], timeout: float = 60.0
) -> list[str]:
    """Lines up to and including the first one for which ``done`` holds."""
    deadline = time.monotonic() + timeout
    lines = []
    while True:
        _, line = engine.read_line(max(0.0, deadline - time.monotonic()))
        lines.append(line)
        if done(line):
            return lines


def ask(engine: UaiEngineProcess, command: str) -> list[str]:
    """Send ``command`` then ``isready``: the lines answered before ``readyok``."""
    engine.send(command)
    engine.send("isready")
    return read_until(engine, lambda line: line == "readyok")[:-1]


def depth_two_score(engine: UaiEngineProcess, board: Board) -> int | None:
    """The score the engine reports for ``board`` at depth 2, from a new game."""
    engine.uainewgame()
    engine.position(board.fen())
    info = engine.go(depth=2).info
    assert info is not None
    return info.score_cp


def board_fen(engine: UaiEngineProcess) -> str:
    lines = ask(engine, "d")
    return next(line for line in lines if line.startswith("Fen: "))[5:]


def is_info_line(line: str) -> bool:
    words = line.split()
    if words[:1] != ["info"] or "string" in words:
        return False
    for key in ("depth", "seldepth", "nodes", "time", "nps", "pv"):
        if key not in words:
            return False
    index = words.index("score")
    return words[index + 1] in ("cp", "mate") and words[index + 2].lstrip("-").isdigit()


class _Engines:
    """Engine processes shared by the tests of this module (each start costs seconds)."""

    def __init__(self) -> None:
        self.running: dict[str, UaiEngineProcess] = {}

    def get(self, level: str) -> UaiEngineProcess:
        process = self.running.get(level)
        if process is None or not process.is_alive:
            process = UaiEngineProcess([*ENGINE, "--level", level], name=level)
            process.uai()
            self.running[level] = process
        # A clean slate: no search, start position, default rules, nothing left to read.
        for command in ("stop", "uainewgame", "setoption name Rules value ataxx",
                        f"setoption name Level value {level}", "position startpos"):
            process.send(command)
        process.isready()
        return process

    def close(self) -> None:
        for process in self.running.values():
            process.quit()


@pytest.fixture(scope="module")
def engines() -> Iterator[_Engines]:
    shared = _Engines()
    yield shared
    shared.close()


@pytest.fixture
def engine(engines: _Engines) -> UaiEngineProcess:
    return engines.get("simple")


@pytest.fixture
def strongest(engines: _Engines) -> UaiEngineProcess:
    return engines.get(STRONGEST)


# -- the dialogue ----------------------------------------------------------------------


def test_handshake() -> None:
    process = UaiEngineProcess(ENGINE)
    process.send("uai")
    lines = read_until(process, lambda line: line == "uaiok")
    assert lines[0].startswith("id name gameclub")
    assert lines[1].startswith("id author ")
    options = {o.name: o for o in map(parse_option, lines) if o is not None}
    assert set(options) == {"Hash", "Threads", "Level", "MoveOverhead", "Rules", "UseNNUE",
                            "EvalFile"}
    assert options["EvalFile"].type == "string"
    assert options["EvalFile"].default == "<shipped>"
    assert options["UseNNUE"].type == "check"
    assert options["UseNNUE"].default == "true"
    assert options["Level"].type == "combo"
    assert options["Level"].vars == list(LEVELS)
    assert options["Rules"].vars == ["ataxx", "pressibus", "site-2005"]
    assert options["Hash"].type == "spin" and options["Hash"].min == 1
    process.send("isready")
    assert read_until(process, lambda line: line == "readyok") == ["readyok"]
    process.send("quit")
    assert process.process.wait(timeout=30) == 0


def test_isready_is_answered_during_a_search(strongest: UaiEngineProcess) -> None:
    strongest.position("startpos")
    strongest.send("go infinite")
    strongest.send("isready")
    before_ready = read_until(strongest, lambda line: line == "readyok")
    assert not any(line.startswith("bestmove") for line in before_ready)
    answer = strongest.stop()
    assert Board().is_legal(Board().legal_moves[0].from_uci(answer.bestmove))
    # Still in order afterwards.
    strongest.isready()


def test_position_with_moves(engine: UaiEngineProcess) -> None:
    engine.position("startpos", ["g2", "a1a3", "f3"])
    expected = Board()
    for move in ("g2", "a1a3", "f3"):
        expected.push_uci(move)
    assert board_fen(engine) == expected.fen()
    fen = "x5o/7/7/7/7/7/o5x o 0 1"
    engine.position(fen, ["b1"])
    board = Board(fen)
    board.push_uci("b1")
    assert board_fen(engine) == board.fen()


@pytest.mark.parametrize(
    "command",
    [
        "position startpos moves g2 g2",  # occupied
        "position startpos moves g2 a1a4",  # not a move
        "position startpos moves 0000",  # passing with moves available
        "position fen x5o/7/7/7/7/7/o5x q 0 1",  # bad FEN
        "position fen",
        "position",
        "position somewhere",
    ],
)
def test_a_bad_position_is_reported_and_changes_nothing(
    engine: UaiEngineProcess, command: str
) -> None:
    engine.position("startpos", ["g2"])
    before = board_fen(engine)
    lines = ask(engine, command)
    assert len(lines) == 1 and lines[0].startswith("info string ")
    assert board_fen(engine) == before


def test_illegal_move_message_names_the_move(engine: UaiEngineProcess) -> None:
    lines = ask(engine, "position startpos moves g2 g7e5 b2")
    assert lines == [
        "info string position ignored: move 3 (b2): illegal move b2: no x piece next to b2"
    ]


@pytest.mark.parametrize(
    "go",
    [
        "go depth 2",
        "go nodes 300",
        "go movetime 50",
        "go wtime 2000 btime 2000 winc 10 binc 10",
        "go wtime 2000 btime 1500 winc 0 binc 0 movestogo 20",
        "go nodes 100 simulations 100",  # as python-ataxx sends it
    ],
)
def test_go_with_each_limit(strongest: UaiEngineProcess, go: str) -> None:
    strongest.position("startpos", ["g2"])
    strongest.send(go)
    lines = read_until(strongest, lambda line: line.startswith("bestmove"))
    assert not any("info string" in line for line in lines), lines
    infos = [line for line in lines if line.startswith("info")]
    assert infos and all(is_info_line(line) for line in infos), infos
    board = Board()
    board.push_uci("g2")
    move = lines[-1].split()[1]
    assert move in {m.uci() for m in board.legal_moves}
    # The principal variation starts with the best move in the last info line.
    assert parse_info(infos[-1]).pv[0] == move


def test_infinite_search_waits_for_stop(engine: UaiEngineProcess) -> None:
    engine.position("startpos")
    engine.send("go infinite")
    # The simple level finds its move at once, but an infinite search answers on stop only.
    engine.isready()
    engine.send("isready")
    lines = read_until(engine, lambda line: line == "readyok")
    assert not any(line.startswith("bestmove") for line in lines)
    # Commands that change the position are refused while searching. The search's own
    # info lines may arrive in between: they are not part of the answer.
    answer_lines = [line for line in ask(engine, "position startpos moves g2")
                    if not is_info_line(line)]
    assert answer_lines == [
        "info string ignored 'position': still searching, send 'stop' first"
    ]
    answer = engine.stop()
    assert answer.bestmove in {m.uci() for m in Board().legal_moves}
    assert engine.go(depth=1).bestmove in {m.uci() for m in Board().legal_moves}


def test_stop_without_a_search_is_harmless(engine: UaiEngineProcess) -> None:
    assert ask(engine, "stop") == []


def test_go_when_the_game_is_over(engine: UaiEngineProcess) -> None:
    engine.position("7/7/7/7/7/7/x6 o 0 1")
    answer = engine.go(depth=1)
    assert answer.bestmove == "0000"
    assert answer.strings == ["no move to search: the game is over (no pieces)"]


def test_forced_pass(engine: UaiEngineProcess) -> None:
    fen = "ooooooo/ooooooo/ooooooo/ooooooo/ooooooo/ooooo2/xxoo3 x 0 1"
    assert Board(fen).legal_moves[0].uci() == "0000"
    engine.position(fen)
    assert engine.go(depth=1).bestmove == "0000"


def test_perft_matches_the_known_counts(engine: UaiEngineProcess) -> None:
    engine.position("startpos")
    lines = ask(engine, "perft 4")
    counts = {parse_info(line).depth: parse_info(line).nodes for line in lines[:-1]}
    assert counts == START_PERFT
    assert lines[-1] == "nodes 155888"
    assert engine.perft(3) == 6460


def test_perft_follows_the_position(engine: UaiEngineProcess) -> None:
    fen = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"
    engine.position(fen)
    from gameclub.ataxx.perft import perft

    assert engine.perft(3) == perft(Board(fen), 3)


def test_d_prints_the_board_and_fen(engine: UaiEngineProcess) -> None:
    engine.position("startpos", ["g2"])
    lines = ask(engine, "d")
    assert lines[:9] == [
        "7 x . . . . . o",
        "6 . . . . . . .",
        "5 . . . . . . .",
        "4 . . . . . . .",
        "3 . . . . . . .",
        "2 . . . . . . x",
        "1 o . . . . . x",
        "  a b c d e f g",
        "Fen: x5o/7/7/7/7/6x/o5x o 0 1",
    ]
    assert "Side to move: o" in lines
    assert "Rules: ataxx" in lines


def test_use_nnue_option_switches_master_between_network_and_hand_written_terms(
        strongest: UaiEngineProcess) -> None:
    # The scores a fresh master reports at depth 2 in each mode, searched in this process.
    board = Board("x5o/7/2x4/7/7/7/o5x o 0 2")
    master = Engine("master")._master_search()
    with_network = master.search(board, SearchLimits(depth=2)).score
    master.use_network(False)
    master.new_game()
    hand_written = master.search(board, SearchLimits(depth=2)).score
    assert with_network != hand_written

    # The network is the default; no info string means the shipped weights file loaded.
    assert depth_two_score(strongest, board) == with_network
    assert ask(strongest, "setoption name UseNNUE value false") == []
    try:
        assert depth_two_score(strongest, board) == hand_written
    finally:
        assert ask(strongest, "setoption name UseNNUE value true") == []
    assert depth_two_score(strongest, board) == with_network


def test_eval_file_option_plays_another_network_and_refuses_a_bad_file(
        strongest: UaiEngineProcess, tmp_path: Path) -> None:
    from gameclub.ataxx.engine.nnue import N_TUPLE_INPUTS, Network

    rng = np.random.default_rng(8)
    net = Network.from_arrays(rng.integers(-200, 200, (N_TUPLE_INPUTS, 16)),
                              rng.integers(-300, 300, 16), rng.integers(-2000, 2000, 16), 77, 400)
    path = tmp_path / "tuples.bin"
    path.write_bytes(net.to_bytes())
    board = Board("x5o/7/2x4/7/7/7/o5x o 0 2")
    master = Engine("master")._master_search()
    shipped = master.search(board, SearchLimits(depth=2)).score
    assert master.use_network(path=path)
    master.new_game()
    other = master.search(board, SearchLimits(depth=2)).score
    assert other != shipped

    assert ask(strongest, f"setoption name EvalFile value {path}") == []
    try:
        assert depth_two_score(strongest, board) == other
        damaged = tmp_path / "damaged.bin"
        damaged.write_bytes(path.read_bytes()[:-2])
        answer = ask(strongest, f"setoption name EvalFile value {damaged}")
        assert len(answer) == 1 and "bad value for option EvalFile" in answer[0]
        assert "truncated" in answer[0]
        assert depth_two_score(strongest, board) == other  # the network in use stays
    finally:
        assert ask(strongest, "setoption name EvalFile value <shipped>") == []
    assert depth_two_score(strongest, board) == shipped


def test_rules_option(engine: UaiEngineProcess) -> None:
    assert ask(engine, "setoption name Rules value site-2005") == []
    assert board_fen(engine) == "x6/7/7/7/7/7/6o x 0 1"
    assert "Rules: site-2005" in ask(engine, "d")
    engine.position("startpos", ["b6"])
    assert board_fen(engine) == "x6/1x5/7/7/7/7/6o o 0 1"


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("hello", "unknown command 'hello'"),
        ("setoption", "malformed setoption"),
        ("setoption Hash 16", "malformed setoption"),
        ("setoption name Colour value red", "unknown option 'Colour'"),
        ("setoption name Hash value lots", "bad value 'lots' for option Hash"),
        ("setoption name Hash value 0", "bad value '0' for option Hash"),
        ("setoption name Threads value 4", "bad value '4' for option Threads"),
        ("setoption name Level value grandmaster", "bad value 'grandmaster' for option Level"),
        ("setoption name Rules value chess", "bad value 'chess' for option Rules"),
        ("setoption name UseNNUE value yes", "bad value 'yes' for option UseNNUE"),
        ("setoption name MoveOverhead value -5", "bad value '-5' for option MoveOverhead"),
        ("perft", "malformed perft"),
        ("perft deep", "malformed perft"),
        ("perft -1", "malformed perft"),
        ("bench lots", "malformed bench"),
    ],
)
def test_malformed_lines_get_a_clear_message(
    engine: UaiEngineProcess, command: str, message: str
) -> None:
    lines = ask(engine, command)
    assert len(lines) == 1 and lines[0].startswith("info string " + message), lines
    assert engine.is_alive


def test_go_with_bad_parameters_still_answers(engine: UaiEngineProcess) -> None:
    engine.position("startpos")
    engine.send("go depth x nodes -3 sideways")
    lines = read_until(engine, lambda line: line.startswith("bestmove"))
    strings = [line for line in lines if line.startswith("info string")]
    assert strings == [
        "info string go: ignored depth 'x': expected an integer >= 1",
        "info string go: ignored nodes '-3': expected an integer >= 1",
        "info string go: ignored unknown parameter 'sideways'",
    ]
    assert lines[-1].split()[1] in {m.uci() for m in Board().legal_moves}


def test_empty_lines_and_whitespace_are_ignored(engine: UaiEngineProcess) -> None:
    assert ask(engine, "") == []
    assert ask(engine, "   \t ") == []
    assert ask(engine, "  position   startpos   moves   g2  ") == []
    assert board_fen(engine) == "x5o/7/7/7/7/6x/o5x o 0 1"


def test_end_of_input_ends_the_engine() -> None:
    done = subprocess.run(
        ENGINE, input="uai\nisready\n", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.splitlines()[-2:] == ["uaiok", "readyok"]


def test_commands_on_the_command_line() -> None:
    done = subprocess.run(
        [*ENGINE, "--level", "simple", "bench 100", "perft 2"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    bench = [line for line in lines if line.startswith("info string bench ")]
    assert len(bench) == 8
    total = next(line for line in lines if line.endswith(" nps") and "nodes" in line)
    nodes = int(total.split()[0])
    assert nodes == sum(int(line.split(" nodes ")[1].split()[0]) for line in bench)
    assert lines[-1] == "nodes 256"


def test_unknown_level_on_the_command_line() -> None:
    done = subprocess.run(
        [*ENGINE, "--level", "grandmaster"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "invalid choice: 'grandmaster'" in done.stderr


# -- the client ------------------------------------------------------------------------


def test_client_reports_a_dead_engine() -> None:
    process = UaiEngineProcess([sys.executable, "-c", "import sys; sys.exit(7)"], name="dead")
    with pytest.raises(EngineTerminatedError, match="exit code 7"):
        process.uai(timeout=30)
    process.kill()


def test_parse_info_and_mate_scores() -> None:
    info = parse_info("info depth 7 seldepth 9 nodes 1234 score mate -3 time 5 nps 246800 pv a1 b2")
    assert (info.depth, info.seldepth, info.nodes, info.time, info.nps) == (7, 9, 1234, 5, 246800)
    assert (info.score_cp, info.score_mate, info.pv) == (None, -3, ["a1", "b2"])
    assert parse_info("info string hello world").string == "hello world"
    assert [mate_in_moves(p) for p in (1, 2, 3, -1, -2, -4)] == [1, 1, 2, -1, -1, -2]


# -- python-ataxx's client ---------------------------------------------------------------


# python-ataxx opens its pipes in binary mode with bufsize=1, which Python warns about.
@pytest.mark.filterwarnings("ignore:line buffering:RuntimeWarning")
def test_python_ataxx_client_plays_our_engine() -> None:
    # Imported by name: mypy would take tests/ataxx for the python-ataxx package.
    ataxx = importlib.import_module("ataxx")
    importlib.import_module("ataxx.uai")

    client = ataxx.uai.Engine(ENGINE)
    try:
        client.uai()
        assert client.name is not None and client.name.startswith("gameclub")
        client.setoption("Level", "simple")
        client.isready()
        client.uainewgame()
        board = ataxx.Board()
        ours = Board()
        for ply in range(6):
            client.position(board.get_fen())
            if ply % 2:
                bestmove, _ = client.go(depth=2)
            else:
                bestmove, _ = client.go(nodes=200)
            move = ataxx.Move.from_san(bestmove)
            assert board.is_legal(move), bestmove
            board.makemove(move)
            ours.push_uci(bestmove)
            assert ours.fen() == board.get_fen()
    finally:
        client.quit()


def test_one_search_thread_serves_every_go() -> None:
    def search_threads() -> int:
        return sum(t.name == "uai-search" for t in threading.enumerate())

    before = search_threads()
    out = io.StringIO()
    server = UaiServer(out, level="simple")
    for moves in ("", " moves g2", " moves g2 a1"):
        server.handle("position startpos" + moves)
        server.handle("go depth 1")
        server.wait()
        assert search_threads() == before + 1
    server.shutdown()
    assert search_threads() == before
    assert sum(line.startswith("bestmove ") for line in out.getvalue().splitlines()) == 3
