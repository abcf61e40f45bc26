"""Layers and ranks of Awele positions: the indexing an endgame database needs.

A position's *layer* is the number of seeds on the board (captures only ever
lower it), and within a layer of ``n`` seeds the twelve pit counts are ranked
``0 .. layer_size(n) - 1`` by the combinatorial number system (stars and bars:
the 11 bars between the pits form an 11-subset of ``n + 11`` places, ranked
in colexicographic order). The side to move is not in the rank: a database
stores positions with the mover's row first (rotate the pits by six for North).

>>> rank_pits((4,) * 12), layer_size(48)
(104717030892, 279871768995)
>>> unrank_pits(104717030892, 48) == (4,) * 12
True
"""

from __future__ import annotations

from math import comb

PITS = 12


def layer_size(seeds: int) -> int:
    """How many ways ``seeds`` seeds lie in twelve pits."""
    return comb(seeds + PITS - 1, PITS - 1)


def rank_pits(pits: tuple[int, ...] | list[int]) -> int:
    """The rank of these twelve pit counts within their layer."""
    if len(pits) != PITS or min(pits) < 0:
        raise ValueError(f"twelve pit counts of 0 or more are needed, not {pits!r}")
    rank = 0
    bar = -1
    for k in range(PITS - 1):
        bar += pits[k] + 1
        rank += comb(bar, k + 1)
    return rank


def unrank_pits(rank: int, seeds: int) -> tuple[int, ...]:
    """The twelve pit counts of rank ``rank`` in the layer of ``seeds`` seeds."""
    if not 0 <= rank < layer_size(seeds):
        raise ValueError(f"rank {rank} is outside the layer of {seeds} seeds")
    bars = []
    place = seeds + PITS - 2
    for k in range(PITS - 1, 0, -1):
        while comb(place, k) > rank:
            place -= 1
        bars.append(place)
        rank -= comb(place, k)
        place -= 1
    bars.reverse()
    pits = []
    previous = -1
    for bar in bars:
        pits.append(bar - previous - 1)
        previous = bar
    pits.append(seeds + PITS - 2 - previous)
    return tuple(pits)
