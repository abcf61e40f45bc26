"""The networks: incremental accumulators, tuple inputs, the weights file, master with them,
and training.

The incremental update is checked against a full recomputation after every move of
random games (blocks and small boards included), and the tuple network's kernel
against a plain Python reading of its inputs; the search's own use of either (the
accumulators built only when a node below is evaluated) against a plain Python
maximum over one and two plies of positions evaluated from scratch. Weights whose int16 accumulators
could overflow are refused, and training clips them so that they cannot. Training
tests need the ``[train]`` extra (PyTorch) and are skipped without it.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import warnings
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameclub.ataxx import ATAXX, Board
from gameclub.ataxx.bitboard import make_move, move_codes
from gameclub.ataxx.blocks import random_valid
from gameclub.ataxx.engine import Engine, SearchLimits, nnue
from gameclub.ataxx.engine.nnue import (
    N_INPUTS,
    N_TUPLE_INPUTS,
    QA,
    QB,
    Network,
    NetworkFileError,
    evaluate_kernel,
    evaluate_position,
    evaluate_tuples_kernel,
    load_network,
    refresh,
    update_kernel,
)
from gameclub.ataxx.engine.nnue_data import (
    FLAG_CHILD,
    FLAG_MATE,
    RECORD,
    SCORE_CLIP,
    PositionFileError,
    read_many,
    read_positions,
    write_positions,
)
from gameclub.ataxx.engine.search import OPT_LATE_FUTILITY_DEPTH, OPT_QUIET_JUMPS, OPT_STATIC_CUT
from gameclub.ataxx.engine.tables import NoTables
from gameclub.ataxx.engine.terminal import to_kernel_move
from gameclub.ataxx.fen import format_fen

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def random_network(seed: int, hidden: int = 16) -> Network:
    rng = np.random.default_rng(seed)
    return Network.from_arrays(rng.integers(-300, 300, (N_INPUTS, hidden)),
                               rng.integers(-300, 300, hidden),
                               rng.integers(-2000, 2000, 2 * hidden),
                               int(rng.integers(-9999, 9999)), 400)


def random_tuple_network(seed: int, hidden: int = 16, buckets: int = 1) -> Network:
    rng = np.random.default_rng(seed)
    return Network.from_arrays(rng.integers(-200, 200, (N_TUPLE_INPUTS, hidden)),
                               rng.integers(-300, 300, hidden),
                               rng.integers(-2000, 2000, (buckets, hidden)),
                               rng.integers(-9999, 9999, buckets), 400)


def bucketed_tuple_network(seed: int, hidden: int = 16) -> Network:
    """A tuple network with 8 output buckets."""
    return random_tuple_network(seed, hidden, buckets=8)


def full_eval(net: Network, board: Board) -> int:
    """The network's evaluation of ``board`` computed from scratch by its kernel."""
    if net.tuples:
        return int(evaluate_tuples_kernel(
            np.uint64(board.pieces(board.turn)), np.uint64(board.pieces(board.turn.other)),
            net.rows, net.base(board.playable), net.w2, net.b2, np.int64(net.scale)))
    return int(evaluate_position(np.uint64(board.pieces(board.turn)),
                                 np.uint64(board.pieces(board.turn.other)),
                                 np.uint64(board.playable), int(board.turn), net.w1, net.b1,
                                 net.w2, net.b2, np.int64(net.scale)))


def fresh_acc(net: Network, board: Board) -> np.ndarray:
    acc = np.empty((2, net.hidden), dtype=np.int16)
    refresh(np.uint64(board.pieces(board.turn)), np.uint64(board.pieces(board.turn.other)),
            np.uint64(board.playable), int(board.turn), net.w1, net.b1, acc)
    return acc


def start_board(rng: random.Random, sizes: tuple[int, ...] = (5, 6, 7, 7, 7)) -> Board:
    size = rng.choice(sizes)
    x = 1 << (size - 1) * 8 | 1 << (size - 1)
    o = 1 << (size - 1) * 8 + size - 1 | 1
    blocks = random_valid(rng, max_blocks=8).squares() if size == 7 and rng.random() < 0.5 else 0
    return Board(format_fen(size, size, x, o, blocks, rng.randrange(2), 0, 1), rules=ATAXX)


def random_position(rng: random.Random, sizes: tuple[int, ...] = (5, 6, 7, 7, 7)) -> Board | None:
    """A start (see :func:`start_board`) and up to 29 random plies; ``None`` when the game
    is over there or the side to move has no move."""
    board = start_board(rng, sizes)
    for _ply in range(rng.randrange(0, 30)):
        if board.outcome() is not None or not board.legal_moves:
            break
        board.push(rng.choice(board.legal_moves))
    if board.outcome() is not None or not board.legal_moves:
        return None
    return board


def random_positions(rng: random.Random, count: int,
                     sizes: tuple[int, ...] = (7,)) -> Iterator[Board]:
    """``count`` boards of :func:`random_position` (those where play goes on)."""
    made = 0
    while made < count:
        board = random_position(rng, sizes)
        if board is not None:
            made += 1
            yield board


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_incremental_update_equals_full_recomputation_after_every_move(seed: int) -> None:
    rng = random.Random(seed)
    net = random_network(seed % 7)
    for _game in range(5):
        board = start_board(rng)
        acc = fresh_acc(net, board)
        while board.outcome() is None:
            move = rng.choice(board.legal_moves)  # a pass when it is the only move
            child = np.empty_like(acc)
            update_kernel(acc, child, np.uint64(board.pieces(board.turn.other)), int(board.turn),
                          to_kernel_move(move), net.rows, net.flip)
            board.push(move)
            np.testing.assert_array_equal(child, fresh_acc(net, board), err_msg=board.fen())
            assert int(evaluate_kernel(child, int(board.turn), net.w2, net.b2,
                                       np.int64(net.scale))) == full_eval(net, board)
            acc = child


def tuple_reference(net: Network, board: Board) -> int:
    """The tuple network's evaluation read off the module docstring, square by square."""
    mine, theirs = board.pieces(board.turn), board.pieces(board.turn.other)

    def digit(rank: int, file: int) -> int:
        bit = 1 << rank * 8 + file
        return 1 if mine & bit else 2 if theirs & bit else 0

    acc = net.b1.astype(np.int64).copy()
    for rank in range(6):
        for file in range(6):
            state = (digit(rank, file) + 3 * digit(rank, file + 1) + 9 * digit(rank + 1, file)
                     + 27 * digit(rank + 1, file + 1))
            acc += net.w1[81 * (rank * 6 + file) + state]
    for sq in range(64):
        if not board.playable >> sq & 1:
            acc += net.w1[2916 + sq]
    hidden = np.clip(acc, 0, QA)
    # The output layer of the bucket of its number of pieces: B equal ranges of 0..49.
    pieces = bin(board.pieces(board.turn) | board.pieces(board.turn.other)).count("1")
    bucket = min(net.buckets - 1, pieces * net.buckets // 50)
    total = (int((hidden * hidden * net.w2[bucket].astype(np.int64)).sum()) // QA
             + int(net.b2[bucket]))
    return max(-20000, min(20000, total * net.scale // (QA * QB)))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_the_tuple_kernel_reads_its_inputs_as_documented(seed: int) -> None:
    rng = random.Random(seed)
    net = random_tuple_network(seed % 5, buckets=(1, 2, 8, 50)[seed % 4])
    for board in random_positions(rng, 10):  # Blocs-Config boards among them
        assert full_eval(net, board) == tuple_reference(net, board), board.fen()


@pytest.mark.parametrize("make", [random_network, random_tuple_network])
def test_a_flip_changes_the_evaluation_and_the_perspectives_are_symmetric(make) -> None:
    net = make(3)
    board = Board("x5o/7/7/7/7/7/o5x x 0 1")
    mirrored = Board("o5x/7/7/7/7/7/x5o o 0 1")
    # The same position seen by the other colour: the network is colour-blind.
    assert full_eval(net, board) == full_eval(net, mirrored)
    board.push(board.legal_moves[0])
    assert full_eval(net, board) != full_eval(net, mirrored)


@pytest.fixture(scope="module")
def master() -> Engine:
    engine = Engine("master", seed=1, hash_mb=4)
    engine.new_game()
    return engine


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
def test_depth_one_search_with_the_network_is_the_best_child_evaluated_from_scratch(
        master: Engine, tmp_path: Path, rng: random.Random, make) -> None:
    net = make(11, hidden=24)
    path = tmp_path / "net.bin"
    path.write_bytes(net.to_bytes())
    search = master._master_search()
    assert search.use_network(path=path)
    try:
        for _ in range(20):
            board = random_position(rng, sizes=(7,))
            if board is None:
                continue
            expected = -10**9
            for move in board.legal_moves:
                child = board.copy()
                child.push(move)
                if child.outcome() is not None:
                    break
                expected = max(expected, -full_eval(net, child))
            else:
                result = search.search(board, SearchLimits(depth=1))
                assert result.score == expected, board.fen()
    finally:
        search.use_network()  # master's default: the shipped network


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
def test_depth_two_search_with_the_network_is_the_two_ply_maximum_from_scratch(
        master: Engine, tmp_path: Path, rng: random.Random, make) -> None:
    # The search builds the accumulators of the first ply only when a leaf below needs
    # them, two updates at once: its scores must still be those of the positions.
    net = make(13, hidden=24)
    path = tmp_path / "net.bin"
    path.write_bytes(net.to_bytes())
    search = master._master_search()
    assert search.use_network(path=path)
    # Without the pruning that skips replies (the static cut-off, quiet jumps, late
    # futility), the search's value is the plain two-ply maximum.
    saved = search.options.copy()
    search.options[OPT_STATIC_CUT] = search.options[OPT_QUIET_JUMPS] = 0
    search.options[OPT_LATE_FUTILITY_DEPTH] = 0
    checked = 0
    try:
        while checked < 6:
            board = random_position(rng, sizes=(7,))
            if board is None:
                continue
            best = -10**9
            for move in board.legal_moves:
                child = board.copy()
                child.push(move)
                if child.outcome() is not None:
                    break
                reply_best = -10**9
                for reply in child.legal_moves:
                    grandchild = child.copy()
                    grandchild.push(reply)
                    if grandchild.outcome() is not None:
                        break
                    reply_best = max(reply_best, -full_eval(net, grandchild))
                else:
                    best = max(best, -reply_best)
                    continue
                break
            else:
                master.new_game()
                result = search.search(board, SearchLimits(depth=2))
                assert result.score == best, board.fen()
                checked += 1
    finally:
        search.use_network()  # master's default: the shipped network
        search.options[:] = saved


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
def test_deeper_searches_with_the_network_play_legal_moves(master: Engine, tmp_path: Path,
                                                         rng: random.Random, make) -> None:
    path = tmp_path / "net.bin"
    path.write_bytes(make(5).to_bytes())
    search = master._master_search()
    assert search.use_network(path=path)
    try:
        board = start_board(rng, sizes=(7,))
        for _ in range(12):
            if board.outcome() is not None:
                break
            result = search.search(board, SearchLimits(nodes=3000))
            assert board.is_legal(result.move)
            board.push(result.move)
    finally:
        search.use_network()  # master's default: the shipped network


def test_master_evaluates_with_the_shipped_network_on_7x7_boards_only(rng: random.Random) -> None:
    # On the default network a 7x7 search scores differently from the hand-written one;
    # on the sizes it was not trained on, master's scores are the hand-written ones.
    default = Engine("master", seed=1, hash_mb=4)._master_search()
    assert default.network is not None
    hand_written = Engine("master", seed=1, hash_mb=4)._master_search()
    hand_written.use_network(False)
    differ = {5: 0, 6: 0, 7: 0}
    for _ in range(12):
        for size in differ:
            board = random_position(rng, sizes=(size,))
            if board is None:
                continue
            scores = []
            for search in (default, hand_written):
                search.new_game()
                scores.append(search.search(board, SearchLimits(depth=2)).score)
            differ[size] += scores[0] != scores[1]
    assert differ[5] == differ[6] == 0
    assert differ[7] > 0


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
def test_weights_file_round_trip(tmp_path: Path, make) -> None:
    net = make(2)
    path = tmp_path / "net.bin"
    path.write_bytes(net.to_bytes())
    loaded = load_network(path)
    assert loaded.tuples == (make is not random_network)
    assert loaded.buckets == (8 if make is bucketed_tuple_network else 1)
    # One output layer is written as version 1, buckets as version 2.
    assert path.read_bytes()[8] == (2 if make is bucketed_tuple_network else 1)
    for name in ("w1", "b1", "w2", "b2", "flip"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(net, name))
    assert loaded.scale == net.scale


def test_output_buckets_are_for_tuple_networks_and_a_bad_count_is_refused(
        tmp_path: Path) -> None:
    square = random_network(2)
    with pytest.raises(ValueError, match="buckets are for tuple networks"):
        Network.from_arrays(square.w1, square.b1, np.tile(square.w2, (2, 1)),
                            np.zeros(2, dtype=np.int64), square.scale)
    tuples = bucketed_tuple_network(2)
    with pytest.raises(ValueError, match="one bias per layer"):
        Network.from_arrays(tuples.w1, tuples.b1, tuples.w2, tuples.b2[:3], tuples.scale)
    data = bytearray(tuples.to_bytes())
    data[32:36] = (51).to_bytes(4, "little")  # the bucket count of a version-2 header
    path = tmp_path / "net.bin"
    path.write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match="51 output buckets"):
        load_network(path)
    data[32:36] = (7).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match="7 output buckets.*truncated"):
        load_network(path)


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
@pytest.mark.parametrize(("damage", "message"), [
    (lambda b: b[:20], "shorter than the header"),
    (lambda b: b"GCAXNNUF" + b[8:], "not a network file"),
    (lambda b: b[:8] + (3).to_bytes(4, "little") + b[12:], "format version 3"),
    (lambda b: b[:-2], "truncated"),
    (lambda b: b[:-3] + bytes([b[-3] ^ 1]) + b[-2:], "checksum mismatch"),
    (lambda b: b[:12] + (193).to_bytes(4, "little") + b[16:], "inputs 193"),
])
def test_a_damaged_weights_file_is_refused_with_a_clear_error(tmp_path: Path, damage,
                                                              message: str, make) -> None:
    path = tmp_path / "net.bin"
    path.write_bytes(damage(make(2).to_bytes()))
    with pytest.raises(NetworkFileError, match=message):
        load_network(path)


def test_weights_whose_accumulators_could_overflow_int16_are_refused(tmp_path: Path) -> None:
    net = random_network(2)
    big = net.w1.astype(np.int64)
    big[:64, 3] = 600  # 64 squares of 600 each: up to 38,400 in one accumulator
    with pytest.raises(ValueError, match="beyond int16"):
        Network.from_arrays(big, net.b1, net.w2, net.b2, net.scale)
    # The same weights in a file (written by hand: to_bytes needs a Network).
    header = bytearray(net.to_bytes()[:36])
    payload = (big.astype("<i2").tobytes() + net.b1.astype("<i2").tobytes()
               + net.w2.astype("<i2").tobytes() + net.b2.astype("<i4").tobytes())
    header[32:36] = np.array([zlib.crc32(payload)], "<u4").tobytes()
    path = tmp_path / "net.bin"
    path.write_bytes(bytes(header) + payload)
    with pytest.raises(NetworkFileError, match="beyond int16"):
        load_network(path)


def test_tuple_weights_whose_accumulators_could_overflow_int16_are_refused() -> None:
    net = random_tuple_network(2)
    big = net.w1.astype(np.int64)
    # One state of each 2x2 square at 900: 36 of them reach 32,400, with the bias more.
    big[81 * np.arange(36) + 40, 0] = 900
    bias = net.b1.copy()
    bias[0] = 400
    with pytest.raises(ValueError, match="beyond int16"):
        Network.from_arrays(big, bias, net.w2, net.b2, net.scale)
    # 35 of them and the bias fit: one row per 2x2 square counts, not all 81.
    big[81 * 35 + 40, 0] = 0
    big[2916:, 0] = 0
    fits = Network.from_arrays(big, bias, net.w2, net.b2, net.scale)
    assert fits.tuples


def test_the_shipped_network_loads_and_rates_a_big_material_lead_as_good() -> None:
    net = load_network()
    ahead = Board("xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/o6 x 0 1")
    assert full_eval(net, ahead) > 300
    assert full_eval(net, Board("xxxxxxx/xxxxxxx/xxxxxxx/7/7/7/o6 o 0 1")) < -300


def test_a_missing_weights_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NetworkFileError, match="no such file"):
        load_network(tmp_path / "absent.bin")


def test_master_falls_back_to_the_hand_written_evaluation_with_a_warning(
        master: Engine, tmp_path: Path) -> None:
    path = tmp_path / "net.bin"
    path.write_bytes(b"GCAXNNUE" + bytes(100))
    search = master._master_search()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not search.use_network(path=path)
    assert any("hand-written evaluation" in str(w.message) for w in caught)
    assert search.network is None
    board = Board()
    assert board.is_legal(search.search(board, SearchLimits(depth=3)).move)


def test_master_without_its_shipped_weights_file_warns_and_plays_hand_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nnue, "SHIPPED", "absent-network.bin")
    nnue.shipped_network.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="absent-network.bin: missing from the package; "
                                                "master keeps its hand-written evaluation"):
            engine = Engine("master", seed=1, hash_mb=4)
            search = engine._master_search()
        assert search.network is None
        board = Board()
        assert board.is_legal(engine.search(board, SearchLimits(depth=2)).move)
    finally:
        nnue.shipped_network.cache_clear()


def test_positions_file_round_trip_and_errors(tmp_path: Path) -> None:
    records = np.zeros(3, dtype=RECORD)
    records["us"] = [1, 2, 3]
    records["score"] = [-5, 0, 3000]
    records["result"] = [-1, 0, 1]
    path = tmp_path / "p.bin"
    write_positions(path, records)
    np.testing.assert_array_equal(read_positions(path), records)
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(PositionFileError, match="truncated"):
        read_positions(path)
    path.write_bytes(b"NOTPOSIT" + bytes(8))
    with pytest.raises(PositionFileError, match="not a positions file"):
        read_positions(path)


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_selfplay_generator_writes_resumable_shards(tmp_path: Path) -> None:
    selfplay = _script("nnue_selfplay")
    out = tmp_path / "data"
    selfplay.main([str(out), "--games", "2", "--shard", "1", "--nodes", "200", "--workers", "1"])
    files = sorted(out.glob("*.bin"))
    assert [f.name for f in files] == ["shard-00000.bin", "shard-00001.bin"]
    first = files[0].read_bytes()
    records = read_positions(files[0])
    assert len(records) > 0
    assert set(np.unique(records["result"])) <= {-1, 0, 1}
    # Results agree along a game: the side to move alternates, and so does the result sign.
    files[1].unlink()
    selfplay.main([str(out), "--games", "2", "--shard", "1", "--nodes", "200", "--workers", "1"])
    assert files[0].read_bytes() == first
    assert files[1].exists()


def test_selfplay_generator_labels_with_the_network_when_asked(tmp_path: Path) -> None:
    selfplay = _script("nnue_selfplay")
    out, plain = tmp_path / "data", tmp_path / "plain"
    common = ["--games", "3", "--shard", "1", "--nodes", "300", "--workers", "1", "--seed", "5"]
    selfplay.main([str(out), *common, "--nnue", "1"])
    # Without --nnue the data is labelled by the hand-written evaluation (the recipe of
    # the shipped network), although master's default is the network.
    selfplay.main([str(plain), *common])
    differ = 0
    for game in range(3):
        # A shard's first record is its game's first searched position: the same opening
        # searched by master with the shipped network gives the same score, and without
        # it the plain run's (proven scores are stored clipped).
        board = selfplay.opening(random.Random(5 * 1_000_003 + game), 0.25, 8, (2, 8))
        assert len(board.legal_moves) > 1
        scores = {}
        for network in (True, False):
            # The generator's master: a 4 MB table (its --hash) and no endgame tables.
            engine = Engine("master", seed=0, hash_mb=4, tables=NoTables())
            engine._master_search().use_network(network)
            engine.new_game()
            score = engine.search(board, SearchLimits(nodes=300)).score
            scores[network] = max(-SCORE_CLIP, min(SCORE_CLIP, score))
        name = f"shard-{game:05d}.bin"
        assert read_positions(out / name)["score"][0] == scores[True]
        assert read_positions(plain / name)["score"][0] == scores[False]
        differ += scores[True] != scores[False]
    # The two evaluations can agree on one position by chance, not on all three.
    assert differ > 0
    with pytest.raises(SystemExit):
        selfplay.main([str(out), "--games", "1", "--nnue", str(tmp_path / "missing.bin")])


def test_selfplay_generator_balances_openings_and_adjudicates_proofs(tmp_path: Path) -> None:
    selfplay = _script("nnue_selfplay")
    common = ["--games", "4", "--shard", "1", "--nodes", "300", "--workers", "1",
              "--seed", "9", "--random-plies", "10-16"]
    plain, judged, balanced = tmp_path / "plain", tmp_path / "judged", tmp_path / "balanced"
    selfplay.main([str(plain), *common])
    selfplay.main([str(judged), *common, "--adjudicate"])
    selfplay.main([str(balanced), *common, "--max-opening-score", "40"])
    proofs = 0
    for game in range(4):
        name = f"shard-{game:05d}.bin"
        full, cut = read_positions(plain / name), read_positions(judged / name)
        # The same game up to the first proof, which is its last record, then no more.
        assert 0 < len(cut) <= len(full)
        for field in ("us", "them", "score", "flags", "ply"):
            np.testing.assert_array_equal(cut[field], full[field][:len(cut)])
        if len(cut) < len(full):
            proofs += 1
            assert cut["flags"][-1] & FLAG_MATE
            assert not (cut["flags"][:-1] & FLAG_MATE).any()
            # The proof's side wins, and every record says so from its mover's view.
            assert cut["result"][-1] == np.sign(cut["score"][-1])
            np.testing.assert_array_equal(cut["result"], full["result"][:len(cut)])
        # Each balanced game's first searched position is the opening master scored
        # within 40 centipawns (the same search again, from a new game).
        assert abs(int(read_positions(balanced / name)["score"][0])) <= 40
    assert proofs > 0
    # Lopsided openings were drawn again: not every game starts where the plain one did.
    firsts = [(read_positions(d / f"shard-{g:05d}.bin")["us"][0]) for d in (plain, balanced)
              for g in range(4)]
    assert firsts[:4] != firsts[4:]


def test_selfplay_generator_plays_a_share_of_games_against_opponents(tmp_path: Path) -> None:
    selfplay = _script("nnue_selfplay")
    rival = tmp_path / "rival.bin"
    rival.write_bytes(random_tuple_network(3).to_bytes())
    common = ["--games", "2", "--shard", "1", "--nodes", "300", "--workers", "1",
              "--seed", "7", "--random-plies", "10-16", "--nnue", "1"]
    league, plain, none = tmp_path / "league", tmp_path / "plain", tmp_path / "none"
    selfplay.main([str(league), *common, "--opponents", str(rival), "--league-share", "1"])
    selfplay.main([str(plain), *common])
    selfplay.main([str(none), *common, "--opponents", str(rival), "--league-share", "0"])
    overruled = 0
    for game in range(2):
        name = f"shard-{game:05d}.bin"
        # No game against an opponent: the games of a run without --opponents.
        assert (none / name).read_bytes() == (plain / name).read_bytes()
        # The game again by hand: the rival plays its side, drawn after the opening, and
        # master with the shipped network searches every position for the record.
        rng = random.Random(7 * 1_000_003 + game)
        board = selfplay.opening(rng, 0.25, 8, (10, 16))
        assert rng.random() < 1 and rng.choice([str(rival)]) == str(rival)
        side = rng.randrange(2)
        labeller = Engine("master", seed=0, hash_mb=4, tables=NoTables())
        labeller._master_search().use_network(True)
        opponent = Engine("master", seed=0, hash_mb=4, tables=NoTables())
        assert opponent._master_search().use_network(path=rival)
        labeller.new_game()
        opponent.new_game()
        scores, sides = [], []
        while board.outcome() is None:
            result = labeller.search(board, SearchLimits(nodes=300))
            if len(board.legal_moves) > 1:
                scores.append(max(-SCORE_CLIP, min(SCORE_CLIP, result.score)))
                sides.append(int(board.turn))
            move = result.move
            if int(board.turn) == side:
                move = opponent.search(board, SearchLimits(nodes=300)).move
                overruled += move != result.move
            board.push(move)
        records = read_positions(league / name)
        assert records["score"].tolist() == scores
        # Both sides' positions are kept, the rival's too.
        assert set(sides) == {0, 1}
        winner = board.outcome().winner
        expected = [0 if winner is None else (1 if int(winner) == s else -1) for s in sides]
        assert records["result"].tolist() == expected
    # The rival's random weights disagree with master's choice somewhere in two games.
    assert overruled > 0
    with pytest.raises(SystemExit):
        selfplay.main([str(league), *common, "--opponents", str(tmp_path / "missing.bin")])
    with pytest.raises(SystemExit):
        selfplay.main([str(league), *common, "--opponents", str(rival), "--league-share", "2"])


try:
    import torch
except ImportError:  # the [train] extra is optional
    torch = None
needs_torch = pytest.mark.skipif(
    torch is None, reason="PyTorch is not installed: pip install -e '.[train]'")


@needs_torch
def test_integer_network_matches_the_float_one_within_the_quantisation_error(
        rng: random.Random) -> None:
    train = _script("nnue_train")
    torch.manual_seed(4)
    model = train.NnueModel(32)
    with torch.no_grad():
        model.ft.weight.uniform_(-0.3, 0.3)
        model.ft.bias.uniform_(0, 0.5)
        model.out.weight.uniform_(-1, 1)
    model.clip_()
    net = model.export()
    # The float network and its integer copy differ by the rounding of each weight: bound
    # that difference exactly for each position (|clamp(a)^2 - clamp(b)^2| <= 2 |a - b|
    # on [0, 1]), plus 2 cp for the integer divisions.
    w1, b1 = model.ft.weight.detach().numpy().T, model.ft.bias.detach().numpy()
    w2, b2 = model.out.weight.detach().numpy().reshape(-1), float(model.out.bias.detach()[0])
    dw1, db1 = net.w1 / QA - w1, net.b1 / QA - b1
    q2 = net.w2[0] / QB
    diffs: list[float] = []
    spread: list[float] = []
    for _ in range(200):
        board = start_board(rng)
        for _ply in range(rng.randrange(0, 40)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        us = np.array([board.pieces(board.turn)], dtype=np.uint64)
        them = np.array([board.pieces(board.turn.other)], dtype=np.uint64)
        playable = np.array([board.playable], dtype=np.uint64)
        stm, other = (x.astype(np.float64)[0] for x in train.inputs(us, them, playable))
        with torch.no_grad():
            expected = float(model(torch.from_numpy(stm[None].astype(np.float32)),
                                   torch.from_numpy(other[None].astype(np.float32)))[0])
        acc_error = np.concatenate([np.abs(stm @ dw1 + db1), np.abs(other @ dw1 + db1)])
        h = np.clip(np.concatenate([stm @ w1 + b1, other @ w1 + b1]), 0, 1) ** 2
        bound = train.SCALE * (np.abs(q2) @ (2 * acc_error) + h @ np.abs(q2 - w2)
                               + abs(net.b2[0] / (QA * QB) - b2)) + 2
        assert abs(full_eval(net, board) - expected) <= bound, (board.fen(), expected, bound)
        diffs.append(abs(full_eval(net, board) - expected))
        spread.append(abs(expected))
    # The worst-case bound adds every rounding with the same sign; on average the
    # difference is smaller (the always-on inputs, such as the squares outside 7x7,
    # shift every position alike) and small against the evaluations themselves.
    assert np.mean(diffs) < 0.025 * np.mean(spread), (np.mean(diffs), np.mean(spread))


@needs_torch
@pytest.mark.parametrize("buckets", [1, 8])
def test_the_integer_tuple_network_matches_the_float_one(rng: random.Random,
                                                         buckets: int) -> None:
    train = _script("nnue_train")
    torch.manual_seed(5)
    model = train.TupleModel(32, buckets)
    with torch.no_grad():
        model.tuples.weight.uniform_(-0.05, 0.15)
        model.blocked.weight.uniform_(-0.1, 0.1)
        model.blocked.bias.uniform_(0, 0.3)
        model.out.weight.uniform_(-1, 1)
    model.clip_()
    net = model.export()
    assert net.tuples and net.buckets == buckets
    diffs: list[float] = []
    spread: list[float] = []
    while len(diffs) < 150:
        board = random_position(rng, sizes=(7,))
        if board is None:
            continue
        us = train.bits(np.array([board.pieces(board.turn)], dtype=np.uint64))
        them = train.bits(np.array([board.pieces(board.turn.other)], dtype=np.uint64))
        blocked = 1 - train.bits(np.array([board.playable], dtype=np.uint64))
        pieces = torch.tensor([int(us.sum()) + int(them.sum())])
        with torch.no_grad():
            expected = float(model(torch.from_numpy(train.tuple_indices(us, them)),
                                   torch.from_numpy(blocked.astype(np.float32)), pieces)[0])
        diffs.append(abs(full_eval(net, board) - expected))
        spread.append(abs(expected))
    # Rounding each weight to 1/255 moves the output a little against its spread.
    assert np.mean(diffs) < 0.025 * np.mean(spread), (np.mean(diffs), np.mean(spread))


@needs_torch
@pytest.mark.parametrize("inputs", ["piece-square", "tuples", "tuples --buckets 4"])
def test_training_runs_end_to_end_on_a_tiny_data_set(tmp_path: Path, inputs: str) -> None:
    selfplay = _script("nnue_selfplay")
    train = _script("nnue_train")
    data = tmp_path / "data"
    selfplay.main([str(data), "--games", "4", "--shard", "2", "--nodes", "200",
                   "--workers", "1"])
    kind, *options = inputs.split()  # the network's kind, and its output buckets
    out = tmp_path / "net.bin"
    train.main([str(data), "--out", str(out), "--inputs", kind, *options, "--hidden", "8",
                "--epochs", "2", "--batch", "64", "--holdout", "0.5"])
    net = load_network(out)
    assert net.hidden == 8
    assert net.tuples == (kind == "tuples")
    assert net.buckets == (4 if options else 1)
    search = Engine("master", seed=2, hash_mb=2)._master_search()
    assert search.use_network(path=out)
    board = Board()
    assert board.is_legal(search.search(board, SearchLimits(nodes=2000)).move)
    # A further round starts from that network; one of another size is refused.
    again = tmp_path / "again.bin"
    train.main([str(data), "--out", str(again), "--inputs", kind, *options, "--hidden", "8",
                "--epochs", "1", "--batch", "64", "--holdout", "0.5", "--init", str(out)])
    assert load_network(again).hidden == 8
    with pytest.raises(SystemExit, match="hidden units"):
        train.main([str(data), "--out", str(again), "--inputs", kind, *options, "--hidden", "4",
                    "--init", str(out)])
    if options:
        # Other buckets start from the old ones that cover their numbers of pieces: 8
        # from 4 lie each within one, so the new network scores every position as the old.
        train.main([str(data), "--out", str(again), "--inputs", kind, "--buckets", "8",
                    "--hidden", "8", "--epochs", "0", "--calibrate", "0", "--holdout", "0.5",
                    "--init", str(out)])
        finer = load_network(again)
        assert finer.buckets == 8
        for board in random_positions(random.Random(3), 200):
            assert full_eval(finer, board) == full_eval(net, board)
        np.testing.assert_array_equal(train.bucket_sources(8, 16), np.arange(16) // 2)
        np.testing.assert_array_equal(train.bucket_sources(4, 2), [0, 2])
        np.testing.assert_array_equal(train.bucket_sources(1, 3), [0, 0, 0])
    else:
        with pytest.raises(SystemExit, match="buckets"):
            train.main([str(data), "--out", str(again), "--inputs", "piece-square",
                        "--buckets", "2", "--hidden", "8"])


@needs_torch
def test_logistic_k_recovers_the_scale_results_were_drawn_with() -> None:
    train = _script("nnue_train")
    gen = np.random.default_rng(7)
    cp = gen.uniform(-800, 800, 200_000)
    # Results drawn so that sigmoid(cp / 150) is the expected score, with draws where
    # the game is open: a draw with probability q = min(p, 1 - p) / 5, a win p - q / 2.
    p = 1 / (1 + np.exp(-cp / 150))
    q = np.minimum(p, 1 - p) / 5
    u = gen.random(cp.size)
    result = np.where(u < p - q / 2, 1.0, np.where(u < p + q / 2, 0.5, 0.0))
    assert train.logistic_k(cp, result) == pytest.approx(150, rel=0.03)
    # Twice the scores: twice the K, to rounding.
    assert train.logistic_k(2 * cp, result) == pytest.approx(
        2 * train.logistic_k(cp, result), rel=1e-6)
    # Scores that say the opposite of the results predict nothing: no finite K.
    assert train.logistic_k(-cp, result) == float("inf")


@needs_torch
def test_training_calibrates_the_exported_scale_on_the_held_out_positions(
        tmp_path: Path) -> None:
    # --epochs 0 exports the --init network again, its weights unchanged and its SCALE
    # set so that its own scores of the held-out files predict their results as
    # sigmoid(cp / K) with the K asked for.
    selfplay = _script("nnue_selfplay")
    train = _script("nnue_train")
    data = tmp_path / "data"
    selfplay.main([str(data), "--games", "8", "--shard", "2", "--nodes", "300",
                   "--workers", "1", "--random-plies", "2-6"])
    shipped = load_network()
    for target in (150.0, 400.0):
        out = tmp_path / f"cal{target:.0f}.bin"
        train.main([str(data), "--out", str(out), "--inputs", "tuples", "--hidden",
                    str(shipped.hidden), "--epochs", "0", "--holdout", "0.5", "--init", "1",
                    "--calibrate", str(target)])
        net = load_network(out)
        for name in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(getattr(net, name), getattr(shipped, name))
        held = read_many(sorted(data.glob("*.bin"))[2:])
        held = held[held["flags"] == 0]
        cp = np.array([evaluate_tuples_kernel(r["us"], r["them"], net.rows,
                                              net.base(int(r["playable"])), net.w2,
                                              net.b2, np.int64(net.scale))
                       for r in held], dtype=np.float64)
        # The integer evaluation rounds down to whole centipawns: a fraction of a percent.
        assert train.logistic_k(cp, (held["result"] + 1) / 2) == pytest.approx(target, rel=0.01)
    # The scale moved with the target, and nothing else did.
    assert load_network(tmp_path / "cal400.bin").scale == pytest.approx(
        load_network(tmp_path / "cal150.bin").scale * 400 / 150, rel=0.01)
    # A refinement of a calibrated network starts from its scores, scale included.
    model = train.TupleModel(shipped.hidden, shipped.buckets)
    model.load_(load_network(tmp_path / "cal400.bin"))
    assert model.export().scale == load_network(tmp_path / "cal400.bin").scale
    with pytest.raises(SystemExit, match="--init"):
        train.main([str(data), "--out", str(tmp_path / "x.bin"), "--epochs", "0"])


@needs_torch
def test_training_clips_the_first_layer_so_that_no_accumulator_leaves_int16() -> None:
    train = _script("nnue_train")
    model = train.NnueModel(8)
    with torch.no_grad():
        model.ft.weight.fill_(5.0)  # far beyond what an int16 accumulator can sum
        model.ft.bias.fill_(-5.0)
    model.clip_()
    net = model.export()  # from_arrays refuses a network that could overflow
    assert net.w1.max() * 65 <= 32767
    # A full board: every one of the 64 squares (the 15 outside 7x7 are "not
    # playable") adds the clipped weight, and the bias subtracts one.
    board = Board("xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxo o 0 1")
    top = int(net.w1.max())
    np.testing.assert_array_equal(fresh_acc(net, board), np.full((2, 8), 63 * top))


@needs_torch
def test_training_clips_the_tuple_rows_so_that_no_accumulator_leaves_int16() -> None:
    train = _script("nnue_train")
    model = train.TupleModel(8)
    with torch.no_grad():
        model.tuples.weight.fill_(5.0)
        model.blocked.weight.fill_(5.0)
        model.blocked.bias.fill_(5.0)
    model.clip_()
    net = model.export()  # from_arrays refuses a network that could overflow
    # Every square outside 7x7 not playable, and a 2x2 square's row each: all at the clip.
    board = Board("xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxo o 0 1")
    top = int(net.w1.max())
    assert (1 + 36 + 64) * top <= 32767
    expected = net.base(board.playable).astype(np.int64) + 36 * top
    np.testing.assert_array_equal(expected, np.full(8, (1 + 36 + 15) * top))


@needs_torch
@pytest.mark.parametrize("hidden,tuples,buckets", [(16, False, 1), (16, True, 1),
                                                   (16, True, 8)])
def test_a_network_loaded_into_the_float_model_exports_as_itself(hidden: int, tuples: bool,
                                                                 buckets: int) -> None:
    # --init unquantises a network into the float model: exported again, every weight
    # rounds back to what it was.
    train = _script("nnue_train")
    gen = np.random.default_rng(hidden + tuples + buckets)
    inputs = N_TUPLE_INPUTS if tuples else N_INPUTS
    outputs = hidden if tuples else 2 * hidden
    net = Network.from_arrays(gen.integers(-60, 60, (inputs, hidden)),
                              gen.integers(-200, 200, hidden),
                              gen.integers(-127 * QB // 2, 127 * QB // 2, (buckets, outputs)),
                              gen.integers(-10 ** 6, 10 ** 6, buckets), train.SCALE)
    model = train.TupleModel(hidden, buckets) if tuples else train.NnueModel(hidden)
    model.load_(net)
    again = model.export()
    for name in ("w1", "b1", "w2", "b2"):
        np.testing.assert_array_equal(getattr(again, name), getattr(net, name), err_msg=name)


@needs_torch
def test_one_output_layer_loaded_into_buckets_scores_every_position_as_before(
        rng: random.Random) -> None:
    # --init with --buckets: every bucket starts as the network's one output layer.
    train = _script("nnue_train")
    single = random_tuple_network(6, hidden=8)
    model = train.TupleModel(8, buckets=5)
    model.load_(single)
    bucketed = model.export()
    assert bucketed.buckets == 5
    for board in random_positions(rng, 20):
        assert full_eval(bucketed, board) == full_eval(single, board), board.fen()


@needs_torch
@pytest.mark.parametrize("tuples", [False, True])
def test_a_network_widened_into_a_larger_model_scores_every_position_as_before(
        tuples: bool, rng: random.Random) -> None:
    # --init with a larger --hidden: the narrow network's weights go to the first units,
    # the new units get random inputs and no output, so that they can learn while the
    # widened network scores as the narrow one.
    train = _script("nnue_train")
    narrow = random_tuple_network(5, hidden=8) if tuples else random_network(5, hidden=8)
    model = train.TupleModel(24) if tuples else train.NnueModel(24)
    model.load_(narrow)
    wide = model.export()
    assert wide.hidden == 24
    assert np.count_nonzero(wide.w1[:, 8:]) > 0  # the new units' inputs are random, not zero
    for board in random_positions(rng, 40):
        assert full_eval(wide, board) == full_eval(narrow, board), board.fen()


def _played_positions(seed: int, games: int = 6) -> tuple[np.ndarray, list[Board]]:
    """Positions of a few random games on random boards, as records and as Boards."""
    rng = random.Random(seed)
    boards: list[Board] = []
    for _ in range(games):
        blocks = 0
        if rng.random() < 0.5:
            blocks = random_valid(rng, min_blocks=1, max_blocks=6).squares()
        board = Board(format_fen(7, 7, 1 << 48 | 1 << 6, 1 << 54 | 1, blocks, 0, 0, 1), rules=ATAXX)
        while board.outcome() is None and len(board.move_stack) < 60:
            if len(board.legal_moves) > 1:
                boards.append(board.copy())
            board.push(rng.choice(board.legal_moves))
    records = np.zeros(len(boards), dtype=RECORD)
    records["us"] = [b.pieces(b.turn) for b in boards]
    records["them"] = [b.pieces(b.turn.other) for b in boards]
    records["playable"] = [b.playable for b in boards]
    return records, boards


@pytest.mark.parametrize("make", [random_network, random_tuple_network, bucketed_tuple_network])
def test_agreement_scores_each_position_and_child_as_the_network_does(make) -> None:
    agreement = _script("nnue_agreement")
    net = make(3)
    records, boards = _played_positions(8)
    parent, child, owner = agreement.scores(net, records)
    assert list(parent) == [full_eval(net, b) for b in boards]
    for i, board in enumerate(boards):
        expected = []
        for move in board.legal_moves:
            board.push(move)
            expected.append(-full_eval(net, board))
            board.pop()
        assert sorted(child[owner == i]) == sorted(expected)


def test_agreement_of_a_network_with_itself_and_with_another() -> None:
    agreement = _script("nnue_agreement")
    records, _ = _played_positions(9)
    reference = agreement.scores(random_tuple_network(4), records)
    same = agreement.agreement(reference, reference)
    assert same["whole"] == pytest.approx(1) and same["siblings"] == pytest.approx(1)
    assert same["best"] == 1 and same["regret"] == 0 and same["rms"] == 0
    other = agreement.agreement(reference, agreement.scores(random_tuple_network(5), records))
    assert other["best"] < 1 and other["regret"] > 0 and other["siblings"] < 0.9
    # The best child is the first of the highest scores of its position.
    best = agreement.best_children(np.array([3, 7, 7, 1, 2]), np.array([0, 0, 0, 2, 2]), 3)
    assert list(best) == [1, -1, 4]


def test_agreement_command_prints_figures_and_names_bad_input(tmp_path: Path, capsys) -> None:
    agreement = _script("nnue_agreement")
    records, _ = _played_positions(10, games=2)
    data = tmp_path / "positions.bin"
    write_positions(data, records)
    ref, other = tmp_path / "ref.bin", tmp_path / "other.bin"
    ref.write_bytes(random_tuple_network(6).to_bytes())
    other.write_bytes(random_network(7).to_bytes())
    agreement.main([str(ref), str(data), str(ref), str(other)])
    out = capsys.readouterr().out
    assert f"{ref}: whole 1.000" in out and "best 1.000  regret 0.0 cp" in out
    assert f"{other}: whole " in out
    with pytest.raises(SystemExit):
        agreement.main([str(ref), str(data), str(tmp_path / "missing.bin")])
    assert "missing.bin" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        agreement.main([str(ref), str(ref), str(other)])
    assert "not a positions file" in capsys.readouterr().err


def test_average_of_networks_is_their_weightwise_mean(tmp_path: Path, capsys) -> None:
    average = _script("nnue_average")
    nets = [bucketed_tuple_network(seed) for seed in (11, 12, 13)]
    files = []
    for i, net in enumerate(nets):
        files.append(tmp_path / f"net{i}.bin")
        files[-1].write_bytes(net.to_bytes())
    out = tmp_path / "soup.bin"
    assert average.main([*map(str, files), "--out", str(out)]) == 0
    assert "the mean of 3 networks" in capsys.readouterr().out
    soup = load_network(out)
    for name in ("w1", "b1", "w2", "b2"):
        stack = np.stack([getattr(net, name).astype(np.float64) for net in nets])
        got = getattr(soup, name).astype(np.float64)
        # Within half a step of the float mean, so within the members' range.
        assert np.abs(got - stack.mean(axis=0)).max() <= 0.5
        assert (got >= stack.min(axis=0)).all() and (got <= stack.max(axis=0)).all()
    # A network averaged with itself is itself, byte for byte.
    again = tmp_path / "again.bin"
    assert average.main([str(files[0]), str(files[0]), "--out", str(again)]) == 0
    assert again.read_bytes() == files[0].read_bytes()


def test_average_refuses_networks_of_different_shapes(tmp_path: Path, capsys) -> None:
    average = _script("nnue_average")
    a, b, out = tmp_path / "a.bin", tmp_path / "b.bin", tmp_path / "soup.bin"
    a.write_bytes(random_tuple_network(1).to_bytes())
    b.write_bytes(bucketed_tuple_network(2).to_bytes())
    assert average.main([str(a), str(b), "--out", str(out)]) == 2
    assert "only networks of one shape average" in capsys.readouterr().err
    assert average.main([str(a), str(tmp_path / "missing.bin"), "--out", str(out)]) == 2
    assert "missing.bin: no such file" in capsys.readouterr().err
    assert not out.exists()


def test_selfplay_generator_searches_children_off_the_games_path(tmp_path: Path) -> None:
    selfplay = _script("nnue_selfplay")
    out = tmp_path / "data"
    args = [str(out), "--games", "2", "--shard", "1", "--nodes", "200", "--workers", "1",
            "--seed", "4", "--random-plies", "2-6", "--children", "2"]
    selfplay.main(args)
    children = 0
    for path in sorted(out.glob("*.bin")):
        records = read_positions(path)
        played = np.flatnonzero((records["flags"] & FLAG_CHILD) == 0)
        for i in np.flatnonzero(records["flags"] & FLAG_CHILD):
            parent = records[played[played < i][-1]]
            child = records[i]
            children += 1
            # One move after its parent, the other side to move, the game's result.
            assert child["ply"] == parent["ply"] + 1
            assert child["result"] == -parent["result"]
            assert child["playable"] == parent["playable"]
            empty = parent["playable"] & ~(parent["us"] | parent["them"])
            after = {tuple(int(b) for b in make_move(parent["us"], parent["them"], m))
                     for m in move_codes(parent["us"], empty)}
            assert (int(child["them"]), int(child["us"])) in after
            # Not the move the game played (the next record of the game, if it is one).
            following = played[played > i]
            if len(following) and records["ply"][following[0]] == child["ply"]:
                assert (records["us"][following[0]], records["them"][following[0]]) != (
                    child["us"], child["them"])
        # At most two children a position.
        owners = np.searchsorted(played, np.flatnonzero(records["flags"] & FLAG_CHILD))
        assert np.bincount(owners).max(initial=0) <= 2
    assert children > 10
    # Deterministic: the same command writes the same shards again.
    first = sorted((p.name, p.read_bytes()) for p in out.glob("*.bin"))
    for p in out.glob("*.bin"):
        p.unlink()
    selfplay.main(args)
    assert sorted((p.name, p.read_bytes()) for p in out.glob("*.bin")) == first
    with pytest.raises(SystemExit):
        selfplay.main([*args, "--children", "-1"])


@needs_torch
def test_training_reads_only_the_score_of_positions_off_the_games_path() -> None:
    train = _script("nnue_train")
    records = np.zeros(4, dtype=RECORD)
    records["us"], records["them"] = 1 << 48 | 1 << 6, 1 << 54 | 1
    records["playable"] = (1 << 64) - 1
    records["score"] = [120, 120, -300, -300]
    records["result"] = [-1, -1, 1, 1]
    records["flags"] = [0, FLAG_CHILD, 0, FLAG_CHILD]
    data = train.Dataset(records, tuples=True)
    _, target = data.batch(np.arange(4), 200.0, 1.0, None)
    # With wdl 1 a played position learns its result, a child its score alone.
    np.testing.assert_allclose(target.numpy(), [0, 1 / (1 + np.exp(-0.6)), 1,
                                                1 / (1 + np.exp(1.5))], rtol=1e-6)
    # The calibration reads the results of played positions only: children whose
    # (borrowed) results contradict their scores change nothing.
    model = train.TupleModel(16)
    rng = np.random.default_rng(3)
    played = np.zeros(400, dtype=RECORD)
    played["us"] = rng.integers(0, 1 << 49, 400, dtype=np.uint64) & np.uint64((1 << 49) - 1)
    played["them"] = rng.integers(0, 1 << 49, 400, dtype=np.uint64) & ~played["us"] & np.uint64(
        (1 << 49) - 1)
    played["playable"] = (1 << 49) - 1
    played["result"] = rng.choice([-1, 1], 400)
    with torch.no_grad():
        cp = model(*train.Dataset(played, tuples=True).batch(np.arange(400), 200.0, 0.0,
                                                             None)[0])
    # Results that follow the model's scores, so that the calibration has a finite K.
    played["result"] = np.where(cp.numpy() + rng.normal(0, 30, 400) > 0, 1, -1)
    alone = train.calibrated_scale(model, train.Dataset(played, tuples=True), 240.0, 64)
    contrary = played.copy()
    contrary["flags"] = FLAG_CHILD
    contrary["result"] = -played["result"]
    both = train.calibrated_scale(model, train.Dataset(np.concatenate([played, contrary]),
                                                       tuples=True), 240.0, 64)
    assert alone == both and alone[0] is not None
