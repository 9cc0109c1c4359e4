"""the Binomial lab's Binomial(n, success p): exact pmf by hand, float path within its tolerance."""

import math
from fractions import Fraction as F

import numpy as np
import pytest

from lab.core.binomial import (
    FAILURE_TOKEN,
    FLOAT_PMF_RTOL,
    N_MAX,
    N_MIN,
    SUCCESS_TOKEN,
    BinomialInputError,
    binomial,
    binomial_exact,
    binomial_float,
    check_trials,
    parse_success_probability,
)
from lab.core.distributions import LabInputError
from lab.core.residual import residual_exact
from lab.core.scenarios import load_scenario


def test_n1_is_the_seed_bernoulli_display():
    # n = 1, p = 3/4: P(0 successes) = 1/4, P(1 success) = 3/4; success is B, failure is C
    result = binomial_exact(1, "0.75")
    assert result.exact and result.p == F(3, 4)
    assert result.pmf == (F(1, 4), F(3, 4))
    assert (SUCCESS_TOKEN, FAILURE_TOKEN) == ("B", "C")
    assert result.bernoulli_bars() == {"B": F(3, 4), "C": F(1, 4)}
    assert list(result.bernoulli_bars()) == ["B", "C"]


def test_seed_residual_b_c_bars_are_the_n1_lab():
    # the worked example's residual r = (A 0, B 3/4, C 1/4) restricted to B and C is Bernoulli(3/4)
    scenario = load_scenario("bernoulli-residual")
    r = dict(zip(scenario.tokens, residual_exact(scenario.p, scenario.q).residual))
    bars = binomial_exact(1, "3/4").bernoulli_bars()
    assert r["A"] == 0
    assert bars == {"B": r["B"], "C": r["C"]}


@pytest.mark.parametrize(
    "n, p, expected",
    [
        # (1/4)^2 = 1/16; 2 * 3/4 * 1/4 = 6/16 = 3/8; (3/4)^2 = 9/16
        (2, "3/4", (F(1, 16), F(3, 8), F(9, 16))),
        # (2/3)^3 = 8/27; 3 * 1/3 * 4/9 = 4/9; 3 * 1/9 * 2/3 = 2/9; (1/3)^3 = 1/27
        (3, "1/3", (F(8, 27), F(4, 9), F(2, 9), F(1, 27))),
        # C(3, k) / 8
        (3, "0.5", (F(1, 8), F(3, 8), F(3, 8), F(1, 8))),
        # certain failure / certain success
        (3, "0", (1, 0, 0, 0)),
        (2, "1", (0, 0, 1)),
    ],
)
def test_exact_pmf_by_hand(n, p, expected):
    assert binomial_exact(n, p).pmf == expected


def test_n26_middle_term():
    # P(13 of 26 | p = 1/2) = C(26, 13) / 2^26 = 10400600 / 67108864
    result = binomial_exact(26, "1/2")
    assert len(result.pmf) == 27 and result.outcomes == tuple(range(27))
    assert result.pmf[13] == F(10_400_600, 2**26)
    assert result.pmf[0] == result.pmf[26] == F(1, 2**26)


@pytest.mark.parametrize("n", range(N_MIN, N_MAX + 1))
def test_exact_pmf_sums_to_one(n):
    assert sum(binomial_exact(n, "2/7").pmf) == 1  # (p + (1 - p))^n = 1


def test_mean_and_sd():
    # n = 3, p = 3/4: mean 9/4, variance 3 * 3/4 * 1/4 = 9/16, sd 3/4
    result = binomial_exact(3, "3/4")
    assert result.mean == F(9, 4)
    assert result.variance == F(9, 16)
    assert result.sd == 0.75
    # n = 2, p = 1/2: mean 1, variance 1/2, sd sqrt(1/2)
    half = binomial_exact(2, "1/2")
    assert (half.mean, half.variance) == (1, F(1, 2))
    assert half.sd == pytest.approx(math.sqrt(0.5), rel=1e-15)
    floating = binomial_float(1, 0.75)
    assert floating.mean == 0.75
    assert floating.sd == pytest.approx(math.sqrt(3 / 16), rel=1e-15)


@pytest.mark.parametrize("p", [0.75, 0.1, 0.5, 0.999, 0.01, 1e-9])
def test_float_pmf_against_exact_within_stated_tolerance(p):
    for n in range(N_MIN, N_MAX + 1):
        floating = binomial_float(n, p)
        assert not floating.exact and isinstance(floating.pmf[0], float)
        exact = binomial_exact(n, F(p))  # the exact pmf of the same float64 p
        for value, reference in zip(floating.pmf, exact.pmf):
            assert abs(F(value) - reference) <= F(FLOAT_PMF_RTOL) * reference
        assert math.fsum(floating.pmf) == pytest.approx(1, abs=1e-12)


def test_dispatch():
    assert not binomial(1, 0.75).exact
    assert binomial(1, "3/4").exact and binomial(1, F(3, 4)).exact
    assert binomial(1, 1).pmf == (0, 1)


@pytest.mark.parametrize("n, expected", [(1, 1), (26, 26), ("26", 26), (" 5 ", 5), ("6/2", 3), (np.int64(4), 4)])
def test_trials_accepted(n, expected):
    assert check_trials(n) == expected


@pytest.mark.parametrize("n", [0, 27, -1, 100, "0", "27", "2.5", "abc", "", "nan", "1/0", "1e9999999", True, 2.5])
def test_trials_rejected(n):
    with pytest.raises(BinomialInputError) as info:
        check_trials(n)
    assert "n = " in str(info.value)
    assert isinstance(info.value, LabInputError)


@pytest.mark.parametrize("p", ["-0.1", "1.5", "5/4", "-1/4", "nan", "inf", "abc", "1/0", "", 1.5, -0.25])
def test_success_probability_rejected(p):
    with pytest.raises(BinomialInputError, match="lab success p"):
        parse_success_probability(p)
    with pytest.raises(BinomialInputError):
        binomial(1, p)


def test_float_path_rejects_bad_p():
    for p in (float("nan"), float("inf"), -0.1, 1.1):
        with pytest.raises(BinomialInputError):
            binomial_float(1, p)


def test_bernoulli_bars_need_n1():
    with pytest.raises(BinomialInputError, match="n = 1"):
        binomial_exact(2, "1/2").bernoulli_bars()
