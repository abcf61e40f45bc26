"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system"), with lichess's parameters.

A rating period holds one game here, as on lichess: after every rated game
both players are updated against the other's rating before the game.

>>> r = Rating(1500, 200, 0.06)
>>> new = update(r, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                  (Rating(1700, 300), 0.0)], tau=0.5)
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)

(The paper, rounding its intermediate values, prints 1464.06, 151.52, 0.05999.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: lichess: new players start at 1500 with deviation 500 and volatility 0.09, tau 0.75.
DEFAULT_RATING = 1500.0
DEFAULT_RD = 500.0
DEFAULT_VOLATILITY = 0.09
TAU = 0.75
#: A rating whose deviation is at least this is provisional and shown with "?".
PROVISIONAL_RD = 110.0
#: Deviation bounds kept by the club (lichess keeps the same).
MIN_RD = 45.0
MAX_RD = 500.0

_SCALE = 173.7178
_EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.rd >= PROVISIONAL_RD

    def text(self) -> str:
        """The rating as people see it: ``"1612"``, or ``"1500?"`` while provisional."""
        return f"{round(self.rating)}{'?' if self.provisional else ''}"


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: solve for the new volatility with the Illinois algorithm."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]], *, tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period of ``results`` (opponent, score 1/0.5/0).

    With no results only the deviation grows (step 6 of the paper).
    """
    mu = (player.rating - DEFAULT_RATING) / _SCALE
    phi = player.rd / _SCALE
    sigma = player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, phi_star * _SCALE, sigma)
    v_inverse = 0.0
    score_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - DEFAULT_RATING) / _SCALE
        g_j = _g(opponent.rd / _SCALE)
        e_j = _expected(mu, mu_j, g_j)
        v_inverse += g_j * g_j * e_j * (1.0 - e_j)
        score_sum += g_j * (score - e_j)
    v = 1.0 / v_inverse
    delta = v * score_sum
    sigma_new = _new_volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * score_sum
    return Rating(mu_new * _SCALE + DEFAULT_RATING, phi_new * _SCALE, sigma_new)


def rate_game(x: Rating, o: Rating, x_score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game; ``x_score`` is 1, 0.5 or 0.

    The club keeps deviations within [45, 500], as lichess does.
    """
    new_x = update(x, [(o, x_score)])
    new_o = update(o, [(x, 1.0 - x_score)])
    return _clamped(new_x), _clamped(new_o)


def _clamped(rating: Rating) -> Rating:
    return Rating(rating.rating, min(MAX_RD, max(MIN_RD, rating.rd)), rating.volatility)
