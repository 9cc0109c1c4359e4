"""The residual r = max(0, p - q) / Z: hand-worked cases, exact identities, then the float64 path.

The exact identities (Fractions) are tested with no tolerance at all. The float path is tested in
its own section, against the exact residual of the very same float64 inputs, within the
tolerances lab/core/residual.py states (RECONSTRUCTION_RTOL, residual_rtol(n)).
"""

import sys
from dataclasses import dataclass
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab import residual
from lab.core.distributions import (
    Distribution,
    NegativeValueError,
    NonFiniteValueError,
    SumError,
    TokenMismatchError,
    parse_spec,
)
from lab.core.residual import (
    NO_REJECTION,
    RECONSTRUCTION_RTOL,
    REJECTION,
    ResidualResult,
    branch_inconsistency,
    residual_exact,
    residual_float,
    residual_rtol,
)

# =================================================================================================
# Exact path: small cases worked out by hand
# =================================================================================================


def test_worked_example():
    # p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5)
    # min = (1/10, 3/10, 1/5)              -> alpha = 1/10 + 3/10 + 2/10 = 3/5
    # max(0, p - q) = (0, 3/10, 1/10)       -> Z = 4/10 = 2/5 = 1 - alpha
    # r = (0, (3/10)/(2/5), (1/10)/(2/5)) = (0, 3/4, 1/4)
    # Z*r = (0, 3/10, 1/10); min + Z*r = (1/10, 6/10, 3/10) = p
    result = residual("A=1/10,B=3/5,C=3/10", "A=1/2,B=3/10,C=1/5")
    assert result.exact and result.arithmetic == "exact"
    assert result.tokens == ("A", "B", "C")
    assert result.accepted == (F(1, 10), F(3, 10), F(1, 5))
    assert result.alpha == F(3, 5)
    assert result.z == F(2, 5)
    assert result.branch == REJECTION == "rejection"
    assert result.residual == (F(0), F(3, 4), F(1, 4))
    assert result.correction == (F(0), F(3, 10), F(1, 10))
    assert result.reconstruction == (F(1, 10), F(3, 5), F(3, 10))
    assert result.one_minus_alpha == F(2, 5)
    assert result.inconsistency is None


def test_equal_distributions_take_the_no_rejection_branch():
    # p = q = (1/2, 1/3, 1/6): min = p, alpha = 1, every max(0, p - q) = 0, Z = 0.
    # r would be 0/0: it is not defined, reported as None, and nothing is divided.
    result = residual("A=1/2,B=1/3,C=1/6", "A=1/2,B=1/3,C=1/6")
    assert result.alpha == 1
    assert result.z == 0
    assert result.branch == NO_REJECTION == "no-rejection"
    assert result.residual is None
    assert result.correction == (0, 0, 0)
    assert result.reconstruction == (F(1, 2), F(1, 3), F(1, 6))


def test_disjoint_support():
    # p = (1/2, 1/2, 0, 0), q = (0, 0, 1/4, 3/4): min = 0 everywhere, alpha = 0;
    # max(0, p - q) = (1/2, 1/2, 0, 0), Z = 1, so r = p: every proposal is rejected.
    result = residual("A=1/2,B=1/2,C=0,D=0", "A=0,B=0,C=1/4,D=3/4")
    assert result.alpha == 0
    assert result.z == 1
    assert result.residual == (F(1, 2), F(1, 2), 0, 0)
    assert result.reconstruction == (F(1, 2), F(1, 2), 0, 0)


def test_partial_zeros():
    # p = (1/3, 0, 2/3), q = (0, 1/2, 1/2): A is never proposed, B is never wanted.
    # min = (0, 0, 1/2), alpha = 1/2; max(0, p - q) = (1/3, 0, 1/6), Z = 1/2
    # r = ((1/3)/(1/2), 0, (1/6)/(1/2)) = (2/3, 0, 1/3); Z*r = (1/3, 0, 1/6)
    result = residual("A=1/3,B=0,C=2/3", "A=0,B=1/2,C=1/2")
    assert result.accepted == (0, 0, F(1, 2))
    assert result.alpha == F(1, 2)
    assert result.z == F(1, 2)
    assert result.residual == (F(2, 3), 0, F(1, 3))
    assert result.correction == (F(1, 3), 0, F(1, 6))
    assert result.reconstruction == (F(1, 3), 0, F(2, 3))


def test_near_equality_tiny_z():
    # d = 1/10^9; p = (1/4 + 3d, 1/4 + d, 1/4 - 4d, 1/4), q uniform 1/4.
    # max(0, p - q) = (3d, d, 0, 0), Z = 4d = 1/250000000, alpha = 1 - 4d
    # r = (3d/4d, d/4d, 0, 0) = (3/4, 1/4, 0, 0): an ordinary distribution despite the tiny Z.
    d = F(1, 10**9)
    p = Distribution(("A", "B", "C", "D"), (F(1, 4) + 3 * d, F(1, 4) + d, F(1, 4) - 4 * d, F(1, 4)))
    q = Distribution(("A", "B", "C", "D"), (F(1, 4),) * 4)
    result = residual(p, q)
    assert result.z == F(1, 250_000_000)
    assert result.alpha == F(249_999_999, 250_000_000)
    assert result.residual == (F(3, 4), F(1, 4), 0, 0)
    assert result.reconstruction == p.values


def test_near_equality_from_decimals():
    # p = (0.5000000000001, 0.4999999999999), q = (1/2, 1/2): Z = 10^-13 exactly, r = (1, 0)
    result = residual("A=0.5000000000001,B=0.4999999999999", "A=1/2,B=1/2")
    assert result.z == F(1, 10**13)
    assert result.residual == (1, 0)


def test_one_hot_target():
    # p = (0, 1, 0), q = (1/5, 1/2, 3/10): min = (0, 1/2, 0), alpha = 1/2;
    # max(0, p - q) = (0, 1/2, 0), Z = 1/2, r = (0, 1, 0): a rejection always corrects to B.
    result = residual("A=0,B=1,C=0", "A=1/5,B=1/2,C=3/10")
    assert result.accepted == (0, F(1, 2), 0)
    assert result.alpha == F(1, 2)
    assert result.z == F(1, 2)
    assert result.residual == (0, 1, 0)


def test_one_hot_draft():
    # p = (1/2, 1/3, 1/6), q = (0, 1, 0): min = (0, 1/3, 0), alpha = 1/3;
    # max(0, p - q) = (1/2, 0, 1/6), Z = 2/3, r = ((1/2)/(2/3), 0, (1/6)/(2/3)) = (3/4, 0, 1/4):
    # p with the proposed token B removed and renormalised (true only for a one-hot draft).
    result = residual("A=1/2,B=1/3,C=1/6", "A=0,B=1,C=0")
    assert result.alpha == F(1, 3)
    assert result.z == F(2, 3)
    assert result.residual == (F(3, 4), 0, F(1, 4))


def test_both_one_hot():
    # same token: Z = 0; different tokens: disjoint, alpha = 0, Z = 1, r = p = (1, 0)
    assert residual("A=1,B=0", "A=1,B=0").residual is None
    result = residual("A=1,B=0", "A=0,B=1")
    assert (result.alpha, result.z, result.residual) == (0, 1, (1, 0))


def test_residual_lives_on_the_whole_target_vocabulary():
    # The draft proposed B; the residual is not "p without B" nor a law over {B}:
    # p = (1/2, 1/4, 1/4), q = (1/4, 1/2, 1/4): max(0, p - q) = (1/4, 0, 0), Z = 1/4, r = (1, 0, 0)
    result = residual("A=1/2,B=1/4,C=1/4", "A=1/4,B=1/2,C=1/4")
    assert result.tokens == ("A", "B", "C")
    assert result.residual == (1, 0, 0)  # not (2/3, 0, 1/3), which "drop B and renormalise" would give


# --- the entry point: inputs it accepts --------------------------------------------------------


def test_q_is_aligned_to_p_token_order():
    # q written in another order: C=1/5, A=1/2, B=3/10 is the worked example's draft
    result = residual("A=1/10,B=3/5,C=3/10", "C=1/5,A=1/2,B=3/10")
    assert result.q == (F(1, 2), F(3, 10), F(1, 5))
    assert result.residual == (0, F(3, 4), F(1, 4))


def test_inputs_as_dicts_sequences_and_distributions():
    expected = (0, F(3, 4), F(1, 4))
    assert residual({"A": "1/10", "B": "3/5", "C": "3/10"}, {"A": "1/2", "B": "3/10", "C": "1/5"}).residual == expected
    seq = residual(["1/10", "3/5", "3/10"], [F(1, 2), F(3, 10), F(1, 5)], tokens=["A", "B", "C"])
    assert seq.residual == expected and seq.tokens == ("A", "B", "C")
    anonymous = residual(["1/10", "3/5", "3/10"], ["1/2", "3/10", "1/5"])
    assert anonymous.tokens == ("#0", "#1", "#2") and anonymous.labels == anonymous.tokens
    p, q = parse_spec("A=1/10,B=3/5,C=3/10"), parse_spec("A=1/2,B=3/10,C=1/5")
    assert residual_exact(p, q).residual == expected


def test_entry_point_errors():
    with pytest.raises(TokenMismatchError, match="'B' is in p but not in q"):
        residual("A=1/2,B=1/2", "A=1/2,C=1/2")
    with pytest.raises(TokenMismatchError):
        residual(["1/2", "1/2"], ["1/2", "1/2"], tokens=["A"])
    with pytest.raises(NegativeValueError, match="'B'"):
        residual("A=3/2,B=-1/2", "A=1/2,B=1/2")
    with pytest.raises(SumError):
        residual("A=1/2,B=1/3", "A=1/2,B=1/2")


# =================================================================================================
# Exact path: properties over random rational p and q (hypothesis)
# =================================================================================================


@st.composite
def rational_pairs(draw):
    """Random positive integer weights (zeros included) divided by their sum; sometimes q = p."""
    n = draw(st.integers(1, 8))
    weights = st.lists(st.integers(0, 12), min_size=n, max_size=n).filter(lambda w: sum(w) > 0)
    wp = draw(weights)
    how = draw(st.sampled_from(["independent", "same", "scaled"]))
    if how == "independent":
        wq = draw(weights)
    elif how == "same":
        wq = list(wp)
    else:  # other weights, same distribution after dividing by the sum
        k = draw(st.integers(2, 5))
        wq = [k * w for w in wp]
    tokens = tuple(f"t{i}" for i in range(n))
    p = Distribution(tokens, tuple(F(w, sum(wp)) for w in wp))
    q = Distribution(tokens, tuple(F(w, sum(wq)) for w in wq))
    return p, q


@given(rational_pairs())
@settings(max_examples=300, deadline=None)
def test_exact_identities(pair):
    p, q = pair
    result = residual_exact(p, q)
    assert result.z == 1 - result.alpha
    assert (result.z == 0) == (p.values == q.values)
    assert (result.residual is None) == (result.z == 0)
    assert result.branch == (NO_REJECTION if result.z == 0 else REJECTION)
    # min + Z*r == p exactly, token by token (Fractions: no tolerance)
    assert result.reconstruction == p.values
    if result.residual is not None:
        assert all(r >= 0 for r in result.residual)
        assert sum(result.residual) == 1
        assert len(result.residual) == len(p.tokens)  # over the whole vocabulary
        # r(x) > 0 exactly where the target wants more than the draft proposes
        assert [r > 0 for r in result.residual] == [a > b for a, b in zip(p.values, q.values)]


@given(rational_pairs())
@settings(max_examples=200, deadline=None)
def test_enumerated_output_law_is_the_target(pair):
    """Enumerate one step of speculative sampling: draw x ~ q, keep it with probability
    min(1, p(x)/q(x)), otherwise draw y ~ r afresh. The law of the output token must be p."""
    p, q = pair
    result = residual_exact(p, q)
    n = len(p.tokens)
    law = [F(0)] * n
    for x in range(n):
        if q.values[x] == 0:
            continue  # never proposed
        keep = min(F(1), p.values[x] / q.values[x])
        law[x] += q.values[x] * keep
        reject = q.values[x] * (1 - keep)
        if reject:
            assert result.residual is not None  # a reachable rejection always has a residual
            for y in range(n):
                law[y] += reject * result.residual[y]
    assert tuple(law) == p.values


# =================================================================================================
# Float64 path, within its stated tolerances (apart from the exact identities above)
# =================================================================================================


def exact_reference(p: np.ndarray, q: np.ndarray):
    """The exact residual of the very float64 inputs (each float converted with Fraction(float))."""
    pe = [F(x) for x in p.tolist()]
    qe = [F(x) for x in q.tolist()]
    excess = [a - b if a > b else F(0) for a, b in zip(pe, qe)]
    z = sum(excess, F(0))
    return pe, z, ([e / z for e in excess] if z > 0 else None)


def assert_within_stated_tolerances(result, p: np.ndarray, q: np.ndarray):
    n = p.size
    pe, z, r_exact = exact_reference(p, q)
    assert result.accepted.dtype == np.float64
    assert np.array_equal(result.accepted, np.minimum(p, q))  # min is exact in floating point
    assert (result.z > 0) == (z > 0)  # the branch of the same inputs
    if r_exact is None:
        assert result.residual is None
    else:
        assert result.residual.dtype == np.float64
        rtol = F(residual_rtol(n))
        for rf, re in zip(result.residual.tolist(), r_exact):
            assert abs(F(rf) - re) <= rtol * re  # r_exact == 0 forces r_float == 0 exactly
    recon_rtol = F(RECONSTRUCTION_RTOL)
    for value, target in zip(result.reconstruction.tolist(), pe):
        assert abs(F(value) - target) <= recon_rtol * target


@st.composite
def float_pairs(draw):
    n = draw(st.integers(1, 40))
    weights = st.lists(st.integers(0, 1000), min_size=n, max_size=n).filter(lambda w: sum(w) > 0)
    wp = np.array(draw(weights), dtype=np.float64)
    wq = np.array(draw(weights), dtype=np.float64) if draw(st.booleans()) else 3 * wp
    return wp / wp.sum(), wq / wq.sum()


@given(float_pairs())
@settings(max_examples=200, deadline=None)
def test_float_path_against_exact_within_stated_tolerance(pair):
    p, q = pair
    result = residual_float(p, q)
    assert not result.exact and result.arithmetic == "float64"
    assert_within_stated_tolerances(result, p, q)
    # reported exactly when the no-rejection branch meets an alpha that is not 1
    assert (result.inconsistency is not None) == (result.z == 0 and result.alpha != 1)


def test_float_worked_example():
    p = np.array([0.1, 0.6, 0.3])
    q = np.array([0.5, 0.3, 0.2])
    result = residual(p, q, tokens=["A", "B", "C"])
    assert result.tokens == ("A", "B", "C")
    assert result.branch == REJECTION and result.inconsistency is None
    assert_within_stated_tolerances(result, p, q)
    # and close to the hand values (0, 3/4, 1/4), Z = 2/5, up to the rounding of 0.1, 0.6, ...
    assert result.residual == pytest.approx([0, 0.75, 0.25], abs=1e-15)
    assert result.z == pytest.approx(0.4, abs=1e-15)
    assert result.one_minus_alpha == pytest.approx(0.4, abs=1e-15)


def test_float_path_pins_float64_and_keeps_the_processed_inputs():
    p = np.array([0.25, 0.75], dtype=np.float64)
    q = np.array([0.5, 0.5], dtype=np.float64)
    result = residual_float(p, q)
    assert result.p is p and result.q is q  # the very arrays used for proposing and checking
    as32 = residual_float(p.astype(np.float32), q.astype(np.float32))
    assert as32.p.dtype == as32.residual.dtype == np.float64
    from_lists = residual_float([0.25, 0.75], [0.5, 0.5])
    assert from_lists.residual.tolist() == [0.0, 1.0]  # 0.25/0.25 exactly
    assert from_lists.labels == ("#0", "#1")


def test_float_no_rejection_branch():
    result = residual_float(np.array([0.5, 0.5]), np.array([0.5, 0.5]), tokens=["A", "B"])
    assert result.z == 0 and result.alpha == 1
    assert result.residual is None and result.branch == NO_REJECTION
    assert result.inconsistency is None
    assert result.correction.tolist() == [0, 0]
    assert result.reconstruction.tolist() == [0.5, 0.5]


def test_float_mixed_with_distribution():
    p = parse_spec("A=1/4,B=3/4")
    result = residual(p, np.array([0.5, 0.5]))
    assert result.tokens == ("A", "B")
    assert result.residual.tolist() == [0.0, 1.0]


@pytest.mark.parametrize(
    "p, q, error, fragment",
    [
        ([0.5, 0.5], [np.nan, 1.0], NonFiniteValueError, "q: token 'A'"),
        ([0.5, 0.5], [-np.inf, 1.0], NonFiniteValueError, "q: token 'A'"),
        ([0.5, 0.5], [0.0, np.inf], NonFiniteValueError, "q: token 'B'"),
        ([np.inf, 0.0], [0.5, 0.5], NonFiniteValueError, "p: token 'A'"),
        ([np.nan, 0.5], [0.5, 0.5], NonFiniteValueError, "p: token 'A'"),
        ([1.5, -0.5], [0.5, 0.5], NegativeValueError, "p: token 'B'"),
        ([0.5, 0.5], [1.5, -0.5], NegativeValueError, "q: token 'B'"),
        ([0.5, 0.6], [0.5, 0.5], SumError, "p: "),
        ([0.5, 0.5], [0.5, 0.4], SumError, "q: "),
        ([0.5, 0.5], [1.0], TokenMismatchError, "2 tokens but q has 1"),
    ],
)
def test_float_bad_inputs_name_the_token(p, q, error, fragment):
    with pytest.raises(error, match=fragment.replace("(", r"\(")):
        residual_float(np.array(p), np.array(q), tokens=("A", "B"))


def test_float_token_names_must_match_the_vocabulary():
    with pytest.raises(TokenMismatchError, match="3 token names for 2"):
        residual_float(np.array([0.5, 0.5]), np.array([0.5, 0.5]), tokens=("A", "B", "C"))


# --- inconsistency reporting --------------------------------------------------------------------


def test_z_zero_with_alpha_not_one_is_reported_not_hidden():
    # the floats 0.7, 0.2, 0.1 sum to 0.9999999999999999 in float64, left to right (within the
    # 1e-9 input tolerance): p == q elementwise, so Z = 0 exactly, but alpha = sum(min) != 1.
    p = np.array([0.7, 0.2, 0.1])
    assert float(p.sum()) == 0.9999999999999999
    result = residual_float(p, p.copy())
    assert result.z == 0 and result.residual is None and result.branch == NO_REJECTION
    assert result.alpha != 1
    assert result.inconsistency is not None
    assert "alpha" in result.inconsistency and "not 1" in result.inconsistency


def test_branch_inconsistency_cases():
    # (the comparisons with an exact Z of intended values moved to tests/test_numerics.py, with the numerics)
    assert "alpha" in branch_inconsistency(0.0, 0.9999999999999999)
    assert branch_inconsistency(0.0, 1.0) is None
    assert branch_inconsistency(0.25, 0.75) is None


# =================================================================================================
# The float64 path against the exact reference on the same distributions (a test helper: the pages and
# the command line show one path at a time)
# =================================================================================================


@dataclass(frozen=True)
class FloatComparison:
    exact: ResidualResult
    floating: ResidualResult
    branch_agrees: bool
    max_abs_error: float | None  # max |r_float - r_exact|; None when neither has a residual
    error_relative_to_z: float | None  # that error divided by the exact z

    @property
    def inconsistency(self) -> str | None:
        if not self.branch_agrees:
            return f"float branch {self.floating.branch!r} disagrees with exact branch {self.exact.branch!r}"
        return self.floating.inconsistency


def compare_float_to_exact(p, q) -> FloatComparison:
    """Run both paths on the same distributions (float64 rounding of the exact values)."""
    exact = residual(p, q, exact=True)
    floating = residual(p, q, exact=False)
    agrees = exact.branch == floating.branch
    max_abs = rel = None
    if exact.residual is not None and floating.residual is not None:
        reference = np.array([float(r) for r in exact.residual])
        max_abs = float(np.max(np.abs(floating.residual - reference)))
        rel = max_abs / float(exact.z)
    return FloatComparison(exact, floating, agrees, max_abs, rel)


def test_compare_float_to_exact_worked_example():
    p, q = parse_spec("A=1/10,B=3/5,C=3/10"), parse_spec("A=1/2,B=3/10,C=1/5")
    comparison = compare_float_to_exact(p, q)
    assert comparison.branch_agrees and comparison.inconsistency is None
    assert comparison.exact.residual == (0, F(3, 4), F(1, 4))
    # independent: the float r against (0, 3/4, 1/4), measured exactly
    errors = [abs(F(rf) - re) for rf, re in zip(comparison.floating.residual.tolist(), (0, F(3, 4), F(1, 4)))]
    assert comparison.max_abs_error == pytest.approx(float(max(errors)), rel=1e-12, abs=1e-300)
    assert comparison.max_abs_error <= 4 * np.finfo(np.float64).eps
    assert comparison.error_relative_to_z == pytest.approx(comparison.max_abs_error / 0.4, rel=1e-15)


def test_compare_float_to_exact_dyadic_values_are_exact():
    # halves and quarters are exact in binary: the float path reproduces r = p exactly
    comparison = compare_float_to_exact(parse_spec("A=1/2,B=1/2,C=0,D=0"), parse_spec("A=0,B=0,C=1/4,D=3/4"))
    assert comparison.max_abs_error == 0.0 and comparison.error_relative_to_z == 0.0


def test_compare_float_to_exact_no_rejection():
    same = parse_spec("A=1/2,B=1/3,C=1/6")
    comparison = compare_float_to_exact(same, same)
    assert comparison.branch_agrees
    assert comparison.max_abs_error is None and comparison.error_relative_to_z is None


def test_compare_float_to_exact_tiny_z_magnifies_input_rounding():
    # near-equality: p = (0.333334, 0.3333335, 0.3333325), q = 1/3 each.
    # Exactly: Z = 1/1500000 + 1/6000000 = 1/1200000 and r = (4/5, 1/5, 0).
    # Rounding p and q to float64 moves each p - q by up to ~1e-16, and dividing by Z ~ 8.3e-7
    # magnifies that to ~1e-10 in r: far above float64 eps, yet bounded by 8 eps / Z.
    p, q = parse_spec("A=0.333334,B=0.3333335,C=0.3333325"), parse_spec("A=1/3,B=1/3,C=1/3")
    comparison = compare_float_to_exact(p, q)
    assert comparison.exact.z == F(1, 1_200_000)
    assert comparison.exact.residual == (F(4, 5), F(1, 5), 0)
    assert comparison.branch_agrees
    eps = float(np.finfo(np.float64).eps)
    assert 0 < comparison.max_abs_error <= 8 * eps * 1_200_000
    # independently: the exact residual of the rounded inputs against the exact (4/5, 1/5, 0)
    _, _, r_rounded = exact_reference(p.as_array(), q.as_array())
    input_error = max(abs(a - b) for a, b in zip(r_rounded, (F(4, 5), F(1, 5), 0)))
    assert abs(comparison.max_abs_error - float(input_error)) <= residual_rtol(3)
    assert comparison.error_relative_to_z == pytest.approx(comparison.max_abs_error * 1_200_000, rel=1e-12)


def test_compare_reports_a_rejection_lost_to_rounding():
    # p = (1/2 + 10^-30, 1/2 - 10^-30): exact Z = 10^-30 > 0, but both round to 0.5 in float64
    p = Distribution(("A", "B"), (F(1, 2) + F(1, 10**30), F(1, 2) - F(1, 10**30)))
    q = parse_spec("A=1/2,B=1/2")
    comparison = compare_float_to_exact(p, q)
    assert comparison.exact.z == F(1, 10**30) and comparison.floating.z == 0
    assert not comparison.branch_agrees
    assert comparison.max_abs_error is None
    assert "disagrees" in comparison.inconsistency


# --- a large vocabulary ------------------------------------------------------------------------

VOCABULARY = 128_256


@pytest.fixture(scope="module")
def large_pair():
    rng = np.random.default_rng(2026)
    return rng.dirichlet(np.ones(VOCABULARY)), rng.dirichlet(np.ones(VOCABULARY))


def test_large_vocabulary_is_correct(large_pair):
    p, q = large_pair
    result = residual(p, q)
    assert result.residual.shape == (VOCABULARY,)
    assert result.inconsistency is None and result.branch == REJECTION
    assert_within_stated_tolerances(result, p, q)


def test_large_vocabulary_runs_no_python_loop(large_pair):
    """Count Python line events while the float path runs: a loop over the vocabulary would
    produce at least one per token; vectorised code produces a few dozen in all."""
    p, q = large_pair
    events = 0

    def tracer(frame, event, arg):
        nonlocal events
        events += 1
        return tracer

    sys.settrace(tracer)
    try:
        result = residual(p, q)
        _ = result.reconstruction  # the derived vectors too
    finally:
        sys.settrace(None)
    assert events < 2_000 < VOCABULARY


def test_rejection_probability_is_z_exactly():
    # worked example: the test rejects q(A) - min = 1/2 - 1/10 = 2/5 and nothing else; Z = 2/5
    result = residual("A=1/10,B=3/5,C=3/10", "A=1/2,B=3/10,C=1/5")
    assert result.rejection_probability == F(2, 5) == result.z


def test_forced_float_path_aligns_two_distributions_by_token():
    # q written C, A, B: aligned to p's A, B, C before the float path, so Z = 2/5 and r = (0, 3/4, 1/4)
    p = parse_spec("A=1/10,B=3/5,C=3/10")
    q = parse_spec("C=1/5,A=1/2,B=3/10")
    result = residual(p, q, exact=False)
    assert not result.exact and result.tokens == ("A", "B", "C")
    assert result.residual.tolist() == pytest.approx([0.0, 0.75, 0.25], abs=1e-15)
    assert residual(p, q, exact=True).residual == (0, F(3, 4), F(1, 4))
