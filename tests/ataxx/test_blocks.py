"""Tests of gameclub.ataxx.blocks (Blocs-Config), checked against the Pressibus text."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameclub.ataxx.blocks import (
    CODE_ORDER,
    TWIN,
    BlocsConfig,
    preferred_configs,
    random_valid,
)
from gameclub.ataxx.errors import InvalidBlocksError
from gameclub.ataxx.squares import iter_squares, parse_square, square, square_name

# The 7x7 board, top row = rank 7, left column = file a, as the specification's
# quadrant (row 1 = "(corner) d e 4", row 2 = "a g f 5", row 3 = "b c h 6",
# row 4 = "1 2 3 x") mirrored left-right and top-bottom. "." = corner.
DIAGRAM = [
    ".de4ed.",
    "agf5fga",
    "bch6hcb",
    "123x321",
    "bch6hcb",
    "agf5fga",
    ".de4ed.",
]


def reference_squares(code: str) -> set[str]:
    """Names of the block squares of ``code``, read off DIAGRAM."""
    cells = set() if code == "0" else set(code)
    names = set()
    for row, line in enumerate(DIAGRAM):
        for file, char in enumerate(line):
            if char in cells:
                names.add("abcdefg"[file] + str(7 - row))
    return names


def names(bb: int) -> set[str]:
    return {square_name(sq) for sq in iter_squares(bb)}


def bits(squares: set[str]) -> int:
    return sum(1 << parse_square(name) for name in squares)


def code_from_positions(mask: int) -> str:
    return "".join(c for i, c in enumerate(CODE_ORDER) if mask >> i & 1) or "0"


ALL_CODES = [code_from_positions(mask) for mask in range(1 << 15)]

codes = st.integers(min_value=0, max_value=(1 << 15) - 1).map(code_from_positions)


def reference_reachable_all(blocks: set[str]) -> bool:
    """Every empty square reachable from the corners by 1- or 2-steps onto empty squares."""
    empty = {(f, r) for f in range(7) for r in range(7)} - {
        ("abcdefg".index(n[0]), int(n[1]) - 1) for n in blocks
    }
    seen = {c for c in [(0, 0), (0, 6), (6, 0), (6, 6)] if c in empty}
    todo = deque(seen)
    while todo:
        f, r = todo.popleft()
        for df in range(-2, 3):
            for dr in range(-2, 3):
                nxt = (f + df, r + dr)
                if nxt in empty and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    return seen == empty


# --------------------------------------------------------------- geometry


def test_diagram_matches_quadrant_of_the_text() -> None:
    # The text's quadrant, row by row from the top: (corner) d e 4 / a g f 5 / b c h 6 / 1 2 3 x
    assert [line[:4] for line in DIAGRAM[:4]] == [".de4", "agf5", "bch6", "123x"]


@pytest.mark.parametrize("char", list(CODE_ORDER))
def test_each_character_names_its_squares(char: str) -> None:
    cfg = BlocsConfig.parse(char)
    assert names(cfg.squares()) == reference_squares(char)
    expected = 1 if char == "x" else 2 if char.isdigit() else 4
    assert cfg.block_count == expected == len(reference_squares(char))


def test_some_squares_by_name() -> None:
    assert names(BlocsConfig.parse("x").squares()) == {"d4"}
    assert names(BlocsConfig.parse("1").squares()) == {"a4", "g4"}
    assert names(BlocsConfig.parse("4").squares()) == {"d7", "d1"}
    assert names(BlocsConfig.parse("d").squares()) == {"b7", "f7", "b1", "f1"}
    assert names(BlocsConfig.parse("a").squares()) == {"a6", "g6", "a2", "g2"}


def test_example_3ghx_board() -> None:
    cfg = BlocsConfig.parse("3ghx")
    assert names(cfg.squares()) == {
        "c4", "e4", "b6", "f6", "b2", "f2", "c5", "e5", "c3", "e3", "d4",
    }  # fmt: skip
    assert cfg.block_count == 11


def test_empty_code() -> None:
    cfg = BlocsConfig.parse("0")
    assert cfg.code == "0" == str(cfg)
    assert cfg.squares() == 0
    assert cfg.block_count == 0
    assert cfg.cells == frozenset()
    assert BlocsConfig.from_squares(0) == cfg


# ------------------------------------------------------- the text's examples


@pytest.mark.parametrize(("code", "count"), [("3bhx", 11), ("2bg", 10), ("3ghx", 11)])
def test_block_counts_of_the_text(code: str, count: int) -> None:
    assert BlocsConfig.parse(code).block_count == count


# (preferred, other, weight of preferred, weight of other), as given by the text.
PREFERENCE_EXAMPLES = [
    ("bch", "efh", 2, 0),
    ("2fh", "5ch", 1, 1),
    ("5ac", "2df", 2, 1),
    ("15chx", "24fhx", 2, 1),
    ("afg", "cdg", 1, 1),
    ("156a", "234d", 2, 2),
    ("3h", "6h", 1, 0),
    ("2fg", "5cg", 1, 1),
    ("35chx", "26fhx", 2, 1),
]


@pytest.mark.parametrize(("good", "other", "w_good", "w_other"), PREFERENCE_EXAMPLES)
def test_preference_examples(good: str, other: str, w_good: int, w_other: int) -> None:
    g, o = BlocsConfig.parse(good), BlocsConfig.parse(other)
    assert g.twin() == o
    assert o.twin() == g
    assert (g.weight, o.weight) == (w_good, w_other)
    assert g.preferred() == g
    assert o.preferred() == g
    assert g.is_preferred
    assert not o.is_preferred


def test_twin_rewrite_example() -> None:
    # "35chx a pour jumelle 62fhx, soit 26fhx"
    assert BlocsConfig.parse("35chx").twin().code == "26fhx"
    assert BlocsConfig.parse("62fhx").code == "26fhx"
    assert BlocsConfig.parse("2fg").twin().code == "5cg"


def test_self_twins() -> None:
    for code in ["0", "g", "h", "x", "ghx", "14", "25", "36", "14cfgx", "ad", "be"]:
        cfg = BlocsConfig.parse(code)
        assert cfg.twin() == cfg, code
        assert cfg.preferred() == cfg, code
        assert cfg.is_preferred, code


def test_strategy_examples() -> None:
    assert BlocsConfig.parse("6bch").is_preferred
    assert BlocsConfig.parse("6bch").twin().code == "3efh"
    assert BlocsConfig.parse("6bch").is_valid
    assert BlocsConfig.parse("14cfgx").is_valid
    assert BlocsConfig.parse("3ghx").is_valid


FIRST_CONFIGS = {
    0: ["0"],
    1: ["x"],
    2: ["1", "2", "3"],
    3: ["1x", "2x", "3x"],
    4: ["12", "13", "14", "15", "16", "23", "25", "26", "36", "a", "b", "c", "g", "h"],
}


@pytest.mark.parametrize("n", sorted(FIRST_CONFIGS))
def test_first_configurations_of_the_text(n: int) -> None:
    assert [c.code for c in preferred_configs(n)] == FIRST_CONFIGS[n]


def test_listing_starts_with_the_texts_list() -> None:
    expected = [code for n in sorted(FIRST_CONFIGS) for code in FIRST_CONFIGS[n]]
    assert [c.code for c in preferred_configs()[: len(expected)]] == expected


# ------------------------------------------------------------ enumeration


def test_preferred_configs_is_one_per_twin_pair_in_listing_order() -> None:
    listing = preferred_configs()
    # 2**15 codes; the self-twins are the 2**9 codes using g, h, x and whole pairs.
    assert len(listing) == (2**15 + 2**9) // 2
    assert len(set(listing)) == len(listing)
    assert all(c.is_preferred for c in listing)
    pairs = {frozenset({BlocsConfig.parse(code), BlocsConfig.parse(code).twin()})
             for code in ALL_CODES}  # fmt: skip
    assert len(pairs) == len(listing)
    assert {frozenset({c, c.twin()}) for c in listing} == pairs

    def key(c: BlocsConfig) -> tuple[int, tuple[int, ...]]:
        return (c.block_count, tuple(sorted(CODE_ORDER.index(ch) for ch in c.cells)))

    assert listing == sorted(listing, key=key)


def test_preferred_configs_filters() -> None:
    listing = preferred_configs()
    for n in (0, 5, 12, 24, 25, 45):
        assert preferred_configs(n) == [c for c in listing if c.block_count == n]
    assert preferred_configs(45) == [BlocsConfig.parse(CODE_ORDER)]
    assert preferred_configs(46) == []
    valid = preferred_configs(valid_only=True)
    assert valid == [c for c in listing if c.is_valid]
    assert max(c.block_count for c in valid) == 24
    assert preferred_configs(24, valid_only=True) == [
        c for c in listing if c.block_count == 24 and c.is_valid
    ]
    assert BlocsConfig.parse("2356cfgh") not in valid


def test_preferred_configs_returns_a_fresh_list() -> None:
    first = preferred_configs(2)
    first.clear()
    assert [c.code for c in preferred_configs(2)] == ["1", "2", "3"]


def test_properties_of_every_code() -> None:
    for code in ALL_CODES:
        cfg = BlocsConfig.parse(code)
        assert cfg.code == code
        twin = cfg.twin()
        assert twin.twin() == cfg
        pref = cfg.preferred()
        assert pref in (cfg, twin)
        assert pref.preferred() == pref
        assert twin.preferred() == pref
        assert pref.weight >= min(cfg.weight, twin.weight)
        bb = cfg.squares()
        assert cfg.block_count == bb.bit_count()
        assert BlocsConfig.from_squares(bb) == cfg


# --------------------------------------------------------------- symmetry


def mirror_lr(sq: int) -> int:
    return square(6 - (sq & 7), sq >> 3)


def mirror_tb(sq: int) -> int:
    return square(sq & 7, 6 - (sq >> 3))


def transpose(sq: int) -> int:
    # The twin reflects the top-left quadrant in its diagonal a4-d7.
    return square(6 - (sq >> 3), 6 - (sq & 7))


def mapped(bb: int, f: Callable[[int], int]) -> int:
    return sum(1 << f(sq) for sq in iter_squares(bb))


@given(codes)
def test_squares_symmetric_and_twin_is_transpose(code: str) -> None:
    cfg = BlocsConfig.parse(code)
    bb = cfg.squares()
    assert mapped(bb, mirror_lr) == bb
    assert mapped(bb, mirror_tb) == bb
    assert mapped(bb, transpose) == cfg.twin().squares()
    assert names(bb) == reference_squares(code)


@given(codes, st.randoms(use_true_random=False))
def test_parse_accepts_any_order(code: str, rnd: random.Random) -> None:
    chars = list(code)
    rnd.shuffle(chars)
    cfg = BlocsConfig.parse("".join(chars))
    assert cfg.code == code
    assert str(cfg) == code
    assert repr(cfg) == f"BlocsConfig({code!r})"
    assert BlocsConfig(cfg.cells) == cfg
    assert hash(BlocsConfig.parse(code)) == hash(cfg)


@given(codes)
def test_twin_by_character_substitution(code: str) -> None:
    cfg = BlocsConfig.parse(code)
    swapped = "".join(TWIN[c] for c in code) if code != "0" else "0"
    assert cfg.twin() == BlocsConfig.parse(swapped)
    heavy = sum(1 for c in code if c in "123abc")
    assert cfg.weight == heavy
    assert cfg.block_count == sum(
        1 if c == "x" else 2 if c in "123456" else 4 for c in code if c != "0"
    )


@given(codes)
def test_preferred_rule(code: str) -> None:
    cfg = BlocsConfig.parse(code)
    twin = cfg.twin()
    order = "123abc"

    def heavy(c: BlocsConfig) -> list[int]:
        return sorted(order.index(ch) for ch in c.cells if ch in order)

    if cfg == twin:
        assert cfg.is_preferred
    elif cfg.weight != twin.weight:
        assert cfg.is_preferred == (cfg.weight > twin.weight)
    else:
        assert heavy(cfg) != heavy(twin)
        assert cfg.is_preferred == (heavy(cfg) < heavy(twin))


# ----------------------------------------------------------- from_squares


def test_from_squares_rejects_asymmetric_sets() -> None:
    with pytest.raises(InvalidBlocksError, match="b2") as info:
        BlocsConfig.from_squares(bits({"b2"}))
    assert "symmetric" in str(info.value)
    # Symmetric left-right but not top-bottom: f2's image f6 is missing.
    with pytest.raises(InvalidBlocksError, match=r"f6"):
        BlocsConfig.from_squares(bits({"b2", "f2", "b6"}))
    # Missing the left-right image on the middle row.
    with pytest.raises(InvalidBlocksError, match=r"c4.*e4"):
        BlocsConfig.from_squares(bits({"c4"}))
    # Centrally symmetric is not enough: both reflections are required.
    with pytest.raises(InvalidBlocksError, match="symmetric"):
        BlocsConfig.from_squares(bits({"b2", "f6"}))


def test_from_squares_rejects_off_board_and_corner_blocks() -> None:
    with pytest.raises(InvalidBlocksError, match=r"h1.*outside the 7x7"):
        BlocsConfig.from_squares(bits({"h1"}))
    with pytest.raises(InvalidBlocksError, match=r"a8.*outside"):
        BlocsConfig.from_squares(bits({"a8", "d4"}))
    with pytest.raises(InvalidBlocksError, match=r"corner a1"):
        BlocsConfig.from_squares(bits({"a1", "g1", "a7", "g7"}))
    with pytest.raises(InvalidBlocksError, match=r"corner g7"):
        BlocsConfig.from_squares(bits({"g7"}))
    with pytest.raises(InvalidBlocksError):
        BlocsConfig.from_squares(-1)
    with pytest.raises(InvalidBlocksError):
        BlocsConfig.from_squares(1 << 64)
    with pytest.raises(TypeError):
        BlocsConfig.from_squares("3ghx")  # type: ignore[arg-type]


def test_from_squares_example() -> None:
    cfg = BlocsConfig.from_squares(bits({"c4", "e4", "d4"}))
    assert cfg.code == "3x"


# ----------------------------------------------------------------- parse


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("", ["empty", "'0'"]),
        (" 3", ["whitespace", "position 1"]),
        ("3 g", ["whitespace", "position 2", "'3 g'"]),
        ("3g\n", ["whitespace", "position 3"]),
        ("3X", ["upper-case", "'X'", "position 2", "'x'"]),
        ("A", ["upper-case", "'A'", "position 1", "'a'"]),
        ("ghG", ["upper-case", "'G'", "position 3"]),
        ("aba", ["duplicate", "'a'", "position 3", "position 1"]),
        ("xx", ["duplicate", "'x'", "position 2"]),
        ("0a", ["'0'", "position 1", "alone"]),
        ("a0", ["'0'", "position 2", "alone"]),
        ("00", ["'0'", "alone"]),
        ("7", ["unknown", "'7'", "position 1"]),
        ("3i", ["unknown", "'i'", "position 2"]),
        ("ab-c", ["unknown", "'-'", "position 3"]),
        ("I", ["unknown", "'I'", "position 1"]),
    ],
)
def test_parse_errors(text: str, pieces: list[str]) -> None:
    with pytest.raises(InvalidBlocksError) as info:
        BlocsConfig.parse(text)
    message = str(info.value)
    for piece in pieces:
        assert piece in message, (piece, message)
    assert isinstance(info.value, ValueError)


def test_parse_rejects_non_strings() -> None:
    with pytest.raises(TypeError):
        BlocsConfig.parse(3)  # type: ignore[arg-type]


def test_constructor_rejects_unknown_cells() -> None:
    with pytest.raises(InvalidBlocksError, match="'i'"):
        BlocsConfig(frozenset({"a", "i"}))
    assert BlocsConfig(frozenset("hg3x")).code == "3ghx"


# -------------------------------------------------------------- validity


def test_empty_is_valid() -> None:
    assert BlocsConfig.parse("0").invalid_reason() is None
    assert BlocsConfig.parse("0").is_valid


def test_too_many_blocks() -> None:
    full = BlocsConfig.parse(CODE_ORDER)
    reason = full.invalid_reason()
    assert reason is not None
    assert "24" in reason and "45" in reason
    assert not full.is_valid
    over = BlocsConfig.parse("abcdefg")  # 28 blocks
    assert over.block_count == 28
    assert "24" in (over.invalid_reason() or "")
    just = BlocsConfig.parse("abcdef")  # 24 blocks, nothing walled off
    assert just.block_count == 24
    assert just.is_valid
    barely_over = BlocsConfig.parse("abcdefx")
    assert barely_over.block_count == 25
    assert "25" in (barely_over.invalid_reason() or "")


def test_walled_off_centre() -> None:
    # The rings at distance 1 (3, 6, h) and 2 (2, 5, c, f, g) around d4: 24 blocks.
    cfg = BlocsConfig.parse("2356cfgh")
    assert cfg.block_count == 24
    assert cfg.invalid_reason() == "square d4 cannot be reached from the starting corners"
    assert not cfg.is_valid
    # Open one gap in the outer ring and the centre becomes reachable again.
    assert BlocsConfig.parse("2356cfh").is_valid
    # Blocking the centre too removes the unreachable square but exceeds 24.
    assert "24" in (BlocsConfig.parse("2356cfghx").invalid_reason() or "")


def test_validity_matches_reference_for_every_preferred_config() -> None:
    for cfg in preferred_configs():
        blocks = names(cfg.squares())
        expected = len(blocks) <= 24 and reference_reachable_all(blocks)
        assert cfg.is_valid == expected, cfg.code
        assert cfg.twin().is_valid == cfg.is_valid, cfg.code


# ---------------------------------------------------------------- random


def test_random_valid_is_reproducible_and_in_range() -> None:
    a = [random_valid(random.Random(42), min_blocks=4, max_blocks=12) for _ in range(3)]
    assert a[0] == a[1] == a[2]
    rng = random.Random(1)
    seen = set()
    for _ in range(200):
        cfg = random_valid(rng, min_blocks=4, max_blocks=12)
        assert 4 <= cfg.block_count <= 12
        assert cfg.is_valid
        assert cfg.is_preferred
        seen.add(cfg)
    assert len(seen) > 50


def test_random_valid_defaults_and_non_preferred() -> None:
    rng = random.Random(5)
    draws = [random_valid(rng) for _ in range(100)]
    assert all(c.is_valid and c.is_preferred and c.block_count <= 24 for c in draws)
    draws = [random_valid(rng, preferred=False) for _ in range(200)]
    assert all(c.is_valid for c in draws)
    assert any(not c.is_preferred for c in draws)


def test_random_valid_exact_counts() -> None:
    rng = random.Random(3)
    assert random_valid(rng, min_blocks=0, max_blocks=0).code == "0"
    assert random_valid(rng, min_blocks=1, max_blocks=1).code == "x"
    assert {random_valid(rng, min_blocks=2, max_blocks=2).code for _ in range(60)} == {
        "1",
        "2",
        "3",
    }
    assert {
        random_valid(rng, min_blocks=2, max_blocks=2, preferred=False).code for _ in range(100)
    } == {"1", "2", "3", "4", "5", "6"}


def test_random_valid_bad_ranges() -> None:
    rng = random.Random(0)
    with pytest.raises(InvalidBlocksError, match="min_blocks"):
        random_valid(rng, min_blocks=5, max_blocks=4)
    with pytest.raises(InvalidBlocksError, match="min_blocks"):
        random_valid(rng, min_blocks=-1)
    with pytest.raises(InvalidBlocksError, match="no valid"):
        random_valid(rng, min_blocks=25, max_blocks=45)


def test_valid_config_of_names_what_is_wrong() -> None:
    from gameclub.ataxx.blocks import valid_config_of

    assert valid_config_of(BlocsConfig.parse("3ghx").squares()).code == "3ghx"
    with pytest.raises(InvalidBlocksError, match="7x7 board, not 5x5"):
        valid_config_of(BlocsConfig.parse("x").squares(), 5, 5)
    with pytest.raises(InvalidBlocksError, match="d4 cannot be reached"):
        valid_config_of(BlocsConfig.parse("2356cfgh").squares())
    with pytest.raises(InvalidBlocksError):
        valid_config_of(1 << parse_square("b6"))  # one block, no mirror copies
