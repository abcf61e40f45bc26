"""Layer ranks: a bijection between each layer's pit counts and 0 .. layer_size - 1."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gameclub.awele.layers import layer_size, rank_pits, unrank_pits


@pytest.mark.parametrize("seeds", [0, 1, 2])
def test_ranks_of_a_small_layer_are_exactly_0_to_size(seeds):
    ranks = sorted(rank_pits(pits) for pits in itertools.product(range(seeds + 1), repeat=12)
                   if sum(pits) == seeds)
    assert ranks == list(range(layer_size(seeds)))


@given(st.lists(st.integers(0, 6), min_size=12, max_size=12))
def test_unrank_inverts_rank(pits):
    assert unrank_pits(rank_pits(pits), sum(pits)) == tuple(pits)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="twelve pit counts"):
        rank_pits((1, 2))
    with pytest.raises(ValueError, match="outside the layer"):
        unrank_pits(layer_size(5), 5)
