"""the Binomial lab's Binomial(n, success p), exact for rational p and via scipy for floats.

With n = 1 it is the lab's two-outcome Bernoulli display: success is token B, failure token C
(A has zero residual mass in the worked example and is outside this display).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from lab.core.errors import LabInputError
from lab.core.numbers import NumberInputError, OutOfRangeError, parse_number, parse_whole_number

N_MIN, N_MAX = 1, 26
# Stated tolerance of the float path: each scipy.stats.binom pmf value lies within this relative
# distance of the exact pmf of the same float64 p (measured: about 1.1e-14 for n <= 26).
FLOAT_PMF_RTOL = 1e-12
SUCCESS_TOKEN, FAILURE_TOKEN = "B", "C"


class BinomialInputError(LabInputError):
    pass


def parse_success_probability(value) -> Fraction:
    """Read the lab's success p (``0.75`` or ``3/4``) exactly and check 0 <= p <= 1."""
    try:
        p = parse_number(value, "lab success p")
    except NumberInputError as exc:
        raise BinomialInputError(str(exc)) from None
    if not 0 <= p <= 1:
        raise BinomialInputError(f"lab success p = {p} is outside [0, 1]")
    return p


def check_trials(n) -> int:
    """A whole number of trials from 1 to 26, from an int or from text (``3``, ``3.0``, ``6/2``)."""
    if isinstance(n, np.integer):
        n = int(n)
    try:
        return parse_whole_number(n, "n", N_MIN, N_MAX, any_spelling=True)
    except OutOfRangeError as exc:
        raise BinomialInputError(f"n = {exc.problem} trials") from None
    except NumberInputError as exc:
        raise BinomialInputError(f"n = {exc.problem}") from None


@dataclass(frozen=True)
class BinomialResult:
    n: int
    p: Fraction | float
    pmf: tuple  # P(k successes) for k = 0 .. n; Fractions (exact) or floats
    exact: bool

    @property
    def mean(self):
        return self.n * self.p

    @property
    def variance(self):
        return self.n * self.p * (1 - self.p)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def outcomes(self) -> tuple[int, ...]:
        return tuple(range(self.n + 1))

    def bernoulli_bars(self) -> dict[str, Fraction | float]:
        """n = 1 only: the two-outcome display, success as B then failure as C."""
        if self.n != 1:
            raise BinomialInputError(f"the B/C display needs n = 1 (got n = {self.n})")
        return {SUCCESS_TOKEN: self.pmf[1], FAILURE_TOKEN: self.pmf[0]}


def binomial_exact(n: int, p) -> BinomialResult:
    n = check_trials(n)
    p = parse_success_probability(p)
    pmf = tuple(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))
    return BinomialResult(n, p, pmf, exact=True)


def binomial_float(n: int, p: float) -> BinomialResult:
    n = check_trials(n)
    p = float(p)
    if not (math.isfinite(p) and 0 <= p <= 1):
        raise BinomialInputError(f"lab success p = {p!r} is outside [0, 1]")
    pmf = stats.binom.pmf(np.arange(n + 1), n, p).astype(np.float64)
    return BinomialResult(n, p, tuple(float(v) for v in pmf), exact=False)


def binomial(n: int, p) -> BinomialResult:
    """Exact for Fractions, ints and strings; scipy float64 for floats."""
    if isinstance(p, float):
        return binomial_float(n, p)
    return binomial_exact(n, p)
