"""The match runner: statistics against hand-computed values, and short real matches."""

from __future__ import annotations

import importlib
import io
import math
import re
import sys
import textwrap
from pathlib import Path

import pytest

from gameclub.ataxx import Board
from gameclub.ataxx.notation import GameRecord
from gameclub.match import (
    Adjudication,
    EngineSpec,
    MatchConfig,
    MatchError,
    MatchResult,
    Sprt,
    TimeControl,
    elo_estimate,
    elo_from_score,
    load_openings,
    main_match,
    run_match,
    score_from_elo,
    sprt_bounds,
    sprt_llr,
)

# -- statistics ----------------------------------------------------------------------
# Hand computation for W=60, L=40, D=100 (N=200):
#   s = (60 + 50) / 200 = 0.55
#   var = (60 * 0.45^2 + 100 * 0.05^2 + 40 * 0.55^2) / 200 = (12.15 + 0.25 + 12.1) / 200 = 0.1225
#   Elo = -400 log10(1/0.55 - 1) = -400 log10(0.818181...) = 34.860
#   margin = 1.959964 * sqrt(0.1225 / 200) = 1.959964 * 0.0247487 = 0.0485066
#   lower = Elo(0.5014934) = 1.0377, upper = Elo(0.5985066) = 69.356
#   LOS = (1 + erf(20 / sqrt(200))) / 2 = (1 + erf(1.41421)) / 2 = 0.97725
#   SPRT elo0=0, elo1=10: s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)) = 0.5143872
#   LLR = 200 * 0.0143872 * (1.1 - 0.5 - 0.5143872) / (2 * 0.1225) = 1.00549


def test_elo_from_score() -> None:
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)  # -400 log10(1/3)
    assert elo_from_score(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.6)) == pytest.approx(0.6)


def test_elo_interval_from_trinomial_variance() -> None:
    estimate = elo_estimate(60, 40, 100)
    assert estimate.score == pytest.approx(0.55)
    assert estimate.elo == pytest.approx(34.860, abs=1e-3)
    assert estimate.lower == pytest.approx(1.0377, abs=1e-3)
    assert estimate.upper == pytest.approx(69.356, abs=1e-3)
    assert estimate.los == pytest.approx(0.97725, abs=1e-5)


def test_elo_of_even_and_one_sided_results() -> None:
    even = elo_estimate(10, 10, 0)
    assert even.elo == 0.0 and even.lower == pytest.approx(-even.upper)
    assert even.los == 0.5
    assert elo_estimate(5, 0, 0).elo == math.inf
    assert "no finite estimate" in elo_estimate(5, 0, 0).describe()
    assert elo_estimate(0, 0, 0).los == 0.5


def test_sprt_llr_and_bounds() -> None:
    assert sprt_llr(60, 40, 100, 0.0, 10.0) == pytest.approx(1.00549, abs=1e-4)
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.94444, abs=1e-5)
    assert upper == pytest.approx(2.94444, abs=1e-5)
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    # A score exactly between s0 and s1 is evidence for neither hypothesis.
    assert sprt_llr(0, 0, 0, 0.0, 5.0) == 0.0
    assert sprt_llr(50, 50, 0, -10.0, 10.0) == pytest.approx(0.0, abs=1e-12)


def test_sprt_with_a_zero_count_uses_the_regularised_counts() -> None:
    # Counts of zero become 1e-3: N = 10.002, mu = 0.99985003, var = 1.24952514e-4.
    # LLR = 10.002 * 0.0143872 * (2 * 0.99985003 - 1.0143872) / (2 * 1.24952514e-4) = 567.364
    assert sprt_llr(10, 0, 0, 0.0, 10.0) == pytest.approx(567.364, abs=1e-2)


def test_sprt_verdicts() -> None:
    sprt = Sprt(0.0, 10.0)
    assert sprt.verdict(60, 40, 100) is None
    assert sprt.verdict(600, 400, 1000) == "H1"  # LLR 10.05
    assert sprt.verdict(400, 600, 1000) == "H0"
    # No verdict without both a win and a loss, however large the LLR.
    assert sprt.llr(10, 0, 0) > 500 and sprt.verdict(10, 0, 0) is None
    assert sprt.verdict(0, 10, 10) is None
    # W=8, L=1 (D regularised to 1e-3), elo1=400: N = 9.001, mu = 8.0005 / 9.001,
    # var = 0.098771, LLR = 9.001 * 0.409091 * 0.368601 / (2 * 0.098771) = 6.871 >= 2.944.
    assert Sprt(0.0, 400.0).llr(8, 1, 0) == pytest.approx(6.871, abs=1e-3)
    assert Sprt(0.0, 400.0).verdict(8, 1, 0) == "H1"
    with pytest.raises(MatchError, match="elo0 < elo1"):
        Sprt(5.0, 0.0)
    with pytest.raises(MatchError, match="alpha"):
        Sprt(0.0, 5.0, alpha=0.7)


# -- settings ------------------------------------------------------------------------


def test_engine_specs() -> None:
    simple = EngineSpec.parse("builtin:simple")
    assert simple.name == "simple" and simple.level == "simple"
    assert ("Level", "simple") in simple.options
    spec = EngineSpec.parse(f'uai:"{sys.executable}" -m gameclub.uai', options=["Hash=32"])
    assert spec.command == (sys.executable, "-m", "gameclub.uai")
    assert spec.options == (("Hash", "32"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("builtin:grandmaster", "unknown built-in level 'grandmaster'"),
        ("simple", "unknown engine 'simple': write builtin:LEVEL"),
        ("stockfish:/bin/sf", "unknown engine"),
        ("uai:", "empty command"),
        ("uai:/no/such/engine --fast", "'/no/such/engine' is not an executable file"),
        ('uai:"unclosed', "cannot read the engine command"),
    ],
)
def test_unknown_engines_get_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(MatchError, match=message):
        EngineSpec.parse(text)


def test_time_controls() -> None:
    assert TimeControl.parse_tc("1+0.01") == TimeControl(base=1.0, increment=0.01)
    assert TimeControl.parse_tc("tc=10") == TimeControl(base=10.0)
    assert TimeControl.parse_tc("40/60+0.5") == TimeControl(base=60.0, increment=0.5, moves=40)
    assert TimeControl.parse_tc("40/60+0.5").describe() == "40/60+0.5"
    assert TimeControl(movetime=0.1, depth=3).describe() == "movetime=0.1 depth=3"
    for bad in ("fast", "1+", "+1", "0+1", "1+0.01+2", "٣+١", "３", "40/６0"):
        with pytest.raises(MatchError, match="time control"):
            TimeControl.parse_tc(bad)
    with pytest.raises(MatchError, match="needs a clock"):
        TimeControl()


def test_shipped_openings() -> None:
    openings = load_openings()
    assert len(openings) == 40
    assert all(not Board(fen).is_game_over() for fen in openings)


def test_bad_openings_file(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("# comment\nx5o/7/7/7/7/7/o5x x 0 1\nnot a fen\n")
    with pytest.raises(MatchError, match="line 3"):
        load_openings(path)
    with pytest.raises(MatchError, match="cannot read"):
        load_openings(tmp_path / "missing.txt")


# -- matches -------------------------------------------------------------------------

#: A scripted UAI engine for the failure cases; its behaviour is its first argument.
FAKE_ENGINE = textwrap.dedent(
    """
    import sys

    mode = sys.argv[1]
    # pessimist: plays the first legal move and reports -500 cp, or +500 when a start
    # position is given and the game did not start from it.
    only_from = sys.argv[2] if len(sys.argv) > 2 else None
    start = None
    if mode == "exit-at-start":
        sys.exit(3)
    if mode == "pessimist":  # the only one that needs the rules (they take a while to load)
        from gameclub.ataxx import Board

        board = Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uai":
            print("id name fake-" + mode)
            print("uaiok", flush=True)
        elif words[0] == "isready":
            print("readyok", flush=True)
        elif words[0] == "position" and mode == "pessimist":
            cut = words.index("moves") if "moves" in words else len(words)
            start = " ".join(words[2:cut]) if words[1] == "fen" else None
            board = Board(start) if start else Board()
            for move in words[cut + 1:]:
                board.push_uci(move)
        elif words[0] == "go":
            if mode == "crash":
                sys.stderr.write("fake engine: boom\\n")
                sys.exit(1)
            if mode == "hang":
                continue
            if mode == "illegal":
                print("bestmove a1a1", flush=True)
                continue
            move = board.legal_moves[0].uci()
            score = -500 if only_from is None or start == only_from else 500
            print(f"info depth 1 score cp {score} pv {move}")
            print("bestmove " + move, flush=True)
        elif words[0] == "quit":
            break
    """
)


@pytest.fixture(scope="module")
def fake_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engines") / "fake_engine.py"
    path.write_text(FAKE_ENGINE)
    return path


def fake(path: Path, mode: str, only_from: str = "", name: str = "") -> EngineSpec:
    extra = f' "{only_from}"' if only_from else ""
    return EngineSpec.parse(
        f'uai:"{sys.executable}" "{path}" {mode}{extra}', name=name or f"fake-{mode}"
    )


OPENINGS = load_openings()[:2]


def recount(result: MatchResult) -> tuple[int, int, int]:
    """Engine 1's W-L-D counted again from the games' colours and results."""
    wins = losses = draws = 0
    for game in result.games:
        if game.result == "1/2-1/2":
            draws += 1
        elif (game.result == "1-0") == (game.x_name == result.engine1):
            wins += 1
        else:
            losses += 1
    return wins, losses, draws


def test_short_match_between_builtin_levels(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    out = io.StringIO()
    result = run_match(
        MatchConfig(
            engine1=EngineSpec.parse("builtin:simple"),
            engine2=EngineSpec.parse("builtin:random"),
            time_control=TimeControl(depth=1),
            openings=OPENINGS,
            games=4,
            concurrency=2,
            pgn_path=pgn,
        ),
        out=out,
    )
    assert [g.number for g in result.games] == [1, 2, 3, 4]
    # Each opening twice, colours swapped.
    assert [g.opening for g in result.games] == [OPENINGS[0]] * 2 + [OPENINGS[1]] * 2
    assert [g.x_name for g in result.games] == ["simple", "random", "simple", "random"]
    assert (result.wins, result.losses, result.draws) == recount(result)
    assert result.wins + result.losses + result.draws == 4
    for game in result.games:
        assert game.termination == "normal"
        board = Board(game.opening)
        for move in game.moves:
            board.push(move)
        outcome = board.outcome()
        assert outcome is not None and outcome.result() == game.result
    text = out.getvalue()
    assert text.count("Score of simple vs random:") == 5
    assert "[####################] 4/4" in text
    assert text.splitlines()[-3:-1] == ["Finished match", result.score_line()]
    assert "Elo difference:" in text

    # The PGN file reads back with our reader and with python-ataxx's.
    records = list(GameRecord.read_all(pgn.read_text()))
    assert sorted(int(r.headers["Round"]) for r in records) == [1, 2, 3, 4]
    by_round = {int(r.headers["Round"]): r for r in records}
    for game in result.games:
        record = by_round[game.number]
        assert record.moves == game.moves
        assert record.result == game.result
        # As in libataxx and cuteataxx, Black is x and White is o.
        assert (record.headers["Black"], record.headers["White"]) == (game.x_name, game.o_name)

    # Our movetext is one line per game, which python-ataxx's reader needs.
    ataxx_pgn = importlib.import_module("ataxx.pgn")  # by name: tests/ataxx shadows it for mypy
    parsed = list(ataxx_pgn.GameIterator(str(pgn)))
    assert len(parsed) == 4
    for theirs in parsed:
        game = result.games[int(theirs.headers["Round"]) - 1]
        assert [str(node.move) for node in theirs.main_line()] == [m.uci() for m in game.moves]
        assert theirs.headers["Result"] == game.result


@pytest.mark.parametrize(
    ("mode", "time_control", "termination", "reason"),
    [
        ("crash", TimeControl(depth=1), "abandoned", "fake-crash crashed: .*fake engine: boom"),
        ("exit-at-start", TimeControl(depth=1), "abandoned", "fake-exit-at-start failed to start"),
        ("illegal", TimeControl(depth=1), "rules infraction", "illegal move 'a1a1'"),
        ("hang", TimeControl(base=0.3), "time forfeit", "fake-hang lost on time"),
        ("hang", TimeControl(movetime=0.1), "time forfeit", "fake-hang lost on time"),
        ("hang", TimeControl(nodes=100), "time forfeit", "fake-hang did not answer within"),
    ],
)
def test_a_failing_engine_loses_and_the_match_goes_on(
    fake_engine: Path, mode: str, time_control: TimeControl, termination: str, reason: str
) -> None:
    result = run_match(
        MatchConfig(
            engine1=fake(fake_engine, mode),
            engine2=EngineSpec.parse("builtin:random"),
            time_control=time_control,
            openings=OPENINGS[:1],
            games=2,
            move_timeout=0.5,
        ),
        out=io.StringIO(),
    )
    assert (result.wins, result.losses, result.draws) == (0, 2, 0)
    for game in result.games:
        assert game.termination == termination
        assert pytest.approx(game.engine1_points) == 0.0
        assert re.search(reason, game.reason), game.reason


def test_resign_adjudication(fake_engine: Path) -> None:
    # The pessimist reports -500 cp after each of its moves: it resigns after its second.
    resigned = run_match(
        MatchConfig(
            engine1=EngineSpec.parse("builtin:random"),
            engine2=fake(fake_engine, "pessimist"),
            time_control=TimeControl(depth=1),
            openings=OPENINGS[:1],
            games=2,
            adjudication=Adjudication(resign_score=400, resign_moves=2),
        ),
        out=io.StringIO(),
    )
    assert (resigned.wins, resigned.losses, resigned.draws) == (2, 0, 0)
    for game in resigned.games:
        assert game.termination == "adjudication"
        assert "fake-pessimist resigns" in game.reason
        assert len(game.moves) in (3, 4)  # the pessimist's second move ends it



def test_sprt_stops_the_match_early(fake_engine: Path) -> None:
    # Each side resigns in the games from "its" opening: engine 1 wins the eight games
    # from A (no verdict yet: no loss), loses game 9 from B, and W=8 L=1 accepts H1.
    a, b = OPENINGS
    out = io.StringIO()
    result = run_match(
        MatchConfig(
            engine1=fake(fake_engine, "pessimist", only_from=b, name="one"),
            engine2=fake(fake_engine, "pessimist", only_from=a, name="two"),
            time_control=TimeControl(depth=1),
            openings=[a, a, a, a, b],
            games=20,
            adjudication=Adjudication(resign_score=400, resign_moves=1),
            sprt=Sprt(0.0, 400.0),
        ),
        out=out,
    )
    assert (result.wins, result.losses, result.draws) == (8, 1, 0)
    assert result.sprt_verdict == "H1"
    assert len(result.games) == 9
    assert result.llr == pytest.approx(6.871, abs=1e-3)
    assert "SPRT: H1 accepted after 9 games, stopping" in out.getvalue()
    assert out.getvalue().splitlines()[-1].endswith("H1 accepted")


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("\n".join(OPENINGS[:1]) + "\n")
    pgn = tmp_path / "out.pgn"
    status = main_match([
        "builtin:simple", "builtin:simple", "--depth", "1", "--openings", str(openings),
        "--pgn", str(pgn), "--draw-plies", "2",
    ])
    assert status == 0
    out = capsys.readouterr().out
    # Draw adjudication after two plies.
    assert out.count("{draw after 2 plies}") == 2
    assert "Score of simple#1 vs simple#2: 0 - 0 - 2 [0.500] 2" in out
    assert len(list(GameRecord.read_all(pgn.read_text()))) == 2

    assert main_match(["builtin:simple", "uai:/no/such/engine"]) == 2
    err = capsys.readouterr().err
    assert "error: engine 'uai:/no/such/engine': '/no/such/engine' is not an executable" in err
