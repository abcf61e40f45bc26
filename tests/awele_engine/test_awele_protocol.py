"""UCI for Oware both ways: our engine as a process, the client, and the match runner.

The misbehaving engines are tiny scripts written here; the runner must give
their games to the opponent and play on.
"""

from __future__ import annotations

import io
import re
import sys
import textwrap
from pathlib import Path

import pytest

from gameclub.awele import RULESETS, Board
from gameclub.awele.engine.evaluate import SEED
from gameclub.awele.engine.exact import EXACT_SEEDS
from gameclub.awele.engine.search import KNOWN
from gameclub.awele.ogn import read_ogn
from gameclub.awele.solver import solve
from gameclub.awele_uci import AweleUciProcess, AweleUciServer, moves_text, parse_moves
from gameclub.match import (
    AweleMatchConfig,
    EngineSpec,
    MatchError,
    TimeControl,
    awele_openings,
    parse_awele_engine,
    run_awele_match,
)
from gameclub.uai import EngineTimeoutError

OUR_ENGINE = [sys.executable, "-m", "gameclub.awele_uci"]


def served(*lines: str, **options: str) -> list[str]:
    """What our engine answers to ``lines``, run in this process."""
    out = io.StringIO()
    server = AweleUciServer(out, **options)
    for line in lines:
        server.handle(line)
        server.wait()
    server.shutdown()
    return out.getvalue().splitlines()


def test_moves_are_letters_side_by_side() -> None:
    moves = parse_moves("FbAe")
    assert moves_text(moves) == "FbAe"
    assert parse_moves("F b") == moves[:2]
    with pytest.raises(ValueError, match="pit letter"):
        parse_moves("Fx")


def test_handshake_names_the_options() -> None:
    lines = served("uci")
    assert lines[0].startswith("id name gameclub-awele")
    assert any(line.startswith("option name Level type combo default master") for line in lines)
    assert any("option name Rules type combo default oware" in line for line in lines)
    assert lines[-1] == "uciok"


def test_go_answers_a_legal_move_from_a_position_text() -> None:
    position = "1-1-3-0-0-1-2-0-0-0-1-0-21-18-S"
    lines = served(f"position fen {position} moves F", "go depth 3", level="greedy")
    bestmove = lines[-1].split()
    assert bestmove[0] == "bestmove"
    board = Board(position, RULESETS["oware"])
    board.push("F")
    assert bestmove[1] in {m.text for m in board.legal_moves}


def test_bad_commands_are_answered_and_change_nothing() -> None:
    lines = served(
        "position startpos moves Fb",
        "position fen 4-4-4-4-4-4-4-4-4-4-4-4-0-0-X",
        "position startpos moves FF",
        "setoption name Level value grandmaster",
        "setoption name Rules value chess",
        "frobnicate",
        "d",
    )
    strings = [line for line in lines if line.startswith("info string")]
    assert len(strings) == 5, strings
    assert "side" in strings[0].lower() or "position" in strings[0].lower()
    assert "illegal move F" in strings[1]
    assert "Level" in strings[2] and "Rules" in strings[3]
    assert "unknown command 'frobnicate'" in strings[4]
    # The position is still the one after F b.
    assert "Position: 5-4-4-4-4-0-5-0-6-6-5-5-0-0-S" in lines


def test_a_finished_game_gets_bestmove_0000() -> None:
    lines = served("position fen 0-0-0-0-0-0-1-0-0-0-0-0-25-22-N", "go movetime 50")
    assert lines[-1] == "bestmove 0000"


def test_our_engine_as_a_process() -> None:
    with AweleUciProcess(OUR_ENGINE, name="ours") as engine:
        engine.uci(timeout=120)
        assert engine.id_name is not None and engine.id_name.startswith("gameclub-awele")
        assert {"level", "rules", "hash"} <= set(engine.options)
        engine.setoption("Level", "master")
        engine.setoption("ExactSeeds", "10")  # a table built in a second, not the default's
        engine.ucinewgame()
        engine.isready(timeout=300)
        board = Board(rules=RULESETS["oware"])
        for _ in range(6):
            engine.position("startpos", board.move_stack)
            answer = engine.go(movetime=0.2, timeout=2.0)
            assert answer.info is not None and answer.info.score_cp is not None
            board.push(answer.bestmove)
            assert answer.elapsed < 0.2 + 0.3


def test_an_infinite_search_answers_after_stop() -> None:
    with AweleUciProcess(OUR_ENGINE, name="ours") as engine:
        engine.uci(timeout=120)
        engine.setoption("Level", "master")
        engine.setoption("ExactSeeds", "10")
        engine.isready(timeout=300)
        engine.position("startpos")
        with pytest.raises(EngineTimeoutError):
            engine.go(infinite=True, timeout=0.5)
        answer = engine.stop(timeout=5)
        assert answer.bestmove in {m.text for m in Board().legal_moves}


# -- the match runner ----------------------------------------------------------------

#: A scripted engine for the failure cases; its behaviour is its first argument.
FAKE_ENGINE = textwrap.dedent(
    """
    import sys

    mode = sys.argv[1]
    if mode == "exit-at-start":
        sys.exit(3)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name fake-" + mode)
            print("uciok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "go":
            if mode == "crash":
                sys.stderr.write("fake engine: boom\\n")
                sys.exit(1)
            if mode == "hang":
                continue
            if mode == "illegal":
                print("bestmove Z", flush=True)
        elif words[0] == "quit":
            break
    """
)


@pytest.fixture(scope="module")
def fake_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engines") / "fake_awele_engine.py"
    path.write_text(FAKE_ENGINE)
    return path


def fake(path: Path, mode: str) -> EngineSpec:
    return parse_awele_engine(f'uci:"{sys.executable}" "{path}" {mode}', name=f"fake-{mode}")


def test_engine_specs() -> None:
    spec = parse_awele_engine("builtin:greedy")
    assert spec.level == "greedy" and ("Level", "greedy") in spec.options
    for text, message in (("builtin:simple", "unknown built-in Awele level"),
                          ("uai:foo", "unknown Awele engine"),
                          ("uci:/no/such/engine", "not an executable")):
        with pytest.raises(MatchError, match=message):
            parse_awele_engine(text)


def test_openings_are_every_start_of_n_moves() -> None:
    openings = awele_openings(RULESETS["oware"], 2)
    assert len(openings) == 36 == len(set(openings))
    assert all(len(o) == 2 and o[0].isupper() and o[1].islower() for o in openings)
    with pytest.raises(MatchError):
        run_awele_match(AweleMatchConfig(
            engine1=parse_awele_engine("builtin:random"),
            engine2=parse_awele_engine("builtin:random"),
            time_control=TimeControl(depth=1), openings=["FF"], games=1,
        ), out=io.StringIO())


def test_a_short_match_between_builtin_levels(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    out = io.StringIO()
    rules = RULESETS["awele"]
    result = run_awele_match(
        AweleMatchConfig(
            engine1=parse_awele_engine("builtin:greedy"),
            engine2=parse_awele_engine("builtin:random"),
            time_control=TimeControl(depth=1),
            openings=["A", "Fa"],
            games=4,
            awele_rules=rules,
            pgn_path=pgn,
        ),
        out=out,
    )
    assert [g.opening for g in result.games] == ["A", "A", "Fa", "Fa"]
    assert [g.x_name for g in result.games] == ["greedy", "random", "greedy", "random"]
    for game in result.games:
        assert game.termination == "normal"
        board = Board(rules=rules)
        for move in game.moves:
            board.push(move)
        outcome = board.outcome()
        assert outcome is not None
        expected = ("1/2-1/2" if outcome.winner is None
                    else "1-0" if int(outcome.winner) == 0 else "0-1")
        assert game.result == expected
        assert game.moves[:len(game.opening)] == parse_moves(game.opening)
    assert result.wins + result.losses + result.draws == 4
    text = out.getvalue()
    assert "greedy (South) vs random (North)" in text and "Finished match" in text
    # The records are OGN, which Aualé reads; our reader replays them.
    records = ["[Variant " + r for r in pgn.read_text().split("[Variant ")[1:]]
    assert len(records) == 4
    by_round = {int(game.tags["Round"]): game for game in map(read_ogn, records)}
    for game in result.games:
        record = by_round[game.number]
        assert record.board.move_stack == game.moves
        assert record.tags["MatchResult"] == game.result
        assert record.tags["Variant"] == "awele"


@pytest.mark.parametrize(
    ("mode", "time_control", "termination", "reason"),
    [
        ("crash", TimeControl(depth=1), "abandoned", "fake-crash crashed: .*fake engine: boom"),
        ("exit-at-start", TimeControl(depth=1), "abandoned", "fake-exit-at-start failed to start"),
        ("illegal", TimeControl(depth=1), "rules infraction", "illegal move 'Z'"),
        ("hang", TimeControl(movetime=0.1), "time forfeit", "fake-hang lost on time"),
        ("hang", TimeControl(base=0.3), "time forfeit", "fake-hang lost on time"),
        ("hang", TimeControl(depth=3), "time forfeit", "fake-hang did not answer within"),
    ],
)
def test_a_failing_engine_loses_and_the_match_goes_on(
    fake_engine: Path, mode: str, time_control: TimeControl, termination: str, reason: str
) -> None:
    result = run_awele_match(
        AweleMatchConfig(
            engine1=fake(fake_engine, mode),
            engine2=parse_awele_engine("builtin:random"),
            time_control=time_control,
            openings=["A"],
            games=2,
            move_timeout=0.5,
        ),
        out=io.StringIO(),
    )
    assert (result.wins, result.losses, result.draws) == (0, 2, 0)
    for game in result.games:
        assert game.termination == termination
        assert re.search(reason, game.reason), game.reason


def test_our_engine_plays_itself_through_the_runner() -> None:
    result = run_awele_match(
        AweleMatchConfig(
            engine1=parse_awele_engine("builtin:master", options=["ExactSeeds=10"]),
            engine2=parse_awele_engine("builtin:greedy"),
            time_control=TimeControl(movetime=0.05),
            openings=["Cc"],
            games=2,
            time_margin=0.2,
            startup_timeout=300,
        ),
        out=io.StringIO(),
    )
    assert len(result.games) == 2
    assert all(game.termination == "normal" for game in result.games), [
        g.reason for g in result.games]


def test_exact_seeds_option() -> None:
    # 6 seeds under awari: with ExactSeeds 6 every reply is scored exactly, so the
    # score of one ply is the solver's value plus the stores (and the known-win bonus).
    position = "1-0-2-0-0-0-0-1-0-0-2-0-18-24-S"
    lines = served("uci", "setoption name Rules value awari", "setoption name ExactSeeds value 6",
                   f"position fen {position}", "go depth 1",
                   "setoption name ExactSeeds value 17")
    assert any(line.startswith(f"option name ExactSeeds type spin default {EXACT_SEEDS} min -1 "
                               "max 16")
               for line in lines)
    final = 18 - 24 + solve(Board(position, RULESETS["awari"])).value
    scores = [line.split()[line.split().index("cp") + 1] for line in lines if " cp " in line]
    known = KNOWN if final > 0 else -KNOWN if final < 0 else 0
    assert scores == [str(SEED * final + known)]
    assert lines[-1].startswith("info string bad value '17' for option ExactSeeds")
