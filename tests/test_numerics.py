"""Tiny-Z numerics: exact reference, float64 and float32 side by side, branch checks."""

from fractions import Fraction as F

import numpy as np
import pytest

from lab.core.residual import residual_float
from lab.teaching.numerics import (
    FLOAT32_EPS,
    FLOAT64_EPS,
    NumericsInputError,
    backend_report,
    branch_cases,
    branch_json,
    family_case,
    float_branch_check,
    parse_exponents,
    stated_tolerances,
    tiny_z_family,
    to_float32,
)


def test_family_exact_values_by_hand():
    # q = (1/2, 1/3, 1/6), p = q + g (3/4, 1/4, -1): p - q = g (3/4, 1/4, -1), so max(0, p - q) = g (3/4, 1/4, 0),
    # Z = g and r = (3/4, 1/4, 0) for every gap g.
    case = family_case(6)
    g = F(1, 10**6)
    assert case.p == (F(1, 2) + 3 * g / 4, F(1, 3) + g / 4, F(1, 6) - g)
    assert sum(case.p) == 1
    assert case.exact_z == g
    assert case.exact_residual == (F(3, 4), F(1, 4), F(0))


def test_default_family_is_1e6_down_to_1e16():
    cases = tiny_z_family()
    assert [c.gap_text for c in cases] == [f"1e-{k}" for k in range(6, 17)]
    assert [c.exact_z for c in cases] == [F(1, 10**k) for k in range(6, 17)]


def test_float32_error_exceeds_float64_error_where_both_have_a_residual():
    # float32 keeps 24 bits: rounding p and q costs ~2^-25 each, magnified by 1/Z; float64 keeps 53.
    for k in (6, 7):
        case = family_case(k)
        assert case.float32.residual is not None and case.float64.residual is not None
        assert case.float32_error.max_abs > 1000 * case.float64_error.max_abs
        assert case.float32_error.max_abs > 1e-3  # percent-level error at Z = 1e-6 already


def test_float32_loses_the_rejection_branch_from_1e8_and_it_is_flagged():
    # float32 spacing near 1/2 is 2^-24 ~ 6e-8 (half: 3e-8) and near 1/3 it is 2^-25 (half: 1.5e-8). With gap 1e-8
    # p(A) - q(A) = 7.5e-9 and p(B) - q(B) = 2.5e-9 are below half a spacing: float32 p(A) = q(A), p(B) = q(B),
    # so its Z is 0 although the exact Z is 1e-8 > 0. That is flagged, never patched.
    for k in range(8, 17):
        case = family_case(k)
        assert case.exact_z > 0
        assert case.float32.z == 0 and case.float32.residual is None
        assert "rejection is lost to rounding" in case.float32_inconsistency
        # float32 p(A) = q(A) and p(B) = q(B) (above), p(C) < q(C): the rounded inputs' exact Z is 0 as well
        assert "exact Z of the rounded float32 inputs is 0 too" in case.float32_inconsistency
        assert case.float32_error.max_abs is None


def test_float64_error_grows_as_z_shrinks_within_the_magnification_bound():
    # Each input rounds by at most eps/2 * value <= eps/4 (values <= 1/2); p - q is then exact (Sterbenz), so each
    # excess is off by <= eps/2 and Z by <= 3 eps/2: |r_float - r| <= (eps/2 + 3 eps/2) / Z = 2 eps / Z.
    cases = tiny_z_family()
    for case in cases:
        assert case.float64_error.max_abs <= 2 * FLOAT64_EPS / float(case.exact_z)
        assert case.float64_inconsistency is None
    by_gap = {c.exponent: c for c in cases}
    assert by_gap[16].float64_error.max_abs > 1e9 * by_gap[6].float64_error.max_abs
    assert by_gap[16].float64_error.max_abs > 0.01  # r is off in the second decimal at Z = 1e-16


def test_float32_error_within_its_own_magnification_bound():
    for k in (6, 7):
        case = family_case(k)
        assert case.float32_error.max_abs <= 2 * FLOAT32_EPS / float(case.exact_z)


def test_float64_arithmetic_stays_within_the_stated_tolerance():
    # The stated tolerance compares with the exact residual of the SAME rounded inputs: the big errors above
    # come from rounding p and q, not from the residual arithmetic.
    for case in tiny_z_family():
        assert case.float64_within_tolerance is True


def test_float64_column_is_the_labs_pinned_float_path():
    case = family_case(9)
    lab = residual_float(case.float64.p, case.float64.q)
    assert np.array_equal(lab.residual, case.float64.residual)
    assert lab.z == case.float64.z


def test_relative_error_by_hand_on_a_simple_vector():
    # r_float = (0.5, 0.5) against r_exact = (3/4, 1/4): max |diff| = 1/4; relative = max(1/3, 1) = 1.
    from lab.teaching.numerics import residual_error

    err = residual_error(np.array([0.5, 0.5]), (F(3, 4), F(1, 4)))
    assert err.max_abs == 0.25
    assert err.relative == 1.0


def test_branch_cases():
    # 7 * 0.1 rounds to 0.7000000000000001 while 0.7 is typed: the same exact law (7/10), two floats.
    assert 7.0 * 0.1 == 0.7000000000000001 != 0.7
    cases = {c.name: c for c in branch_cases()}
    same = cases["same-floats"]
    assert same.exact_z == 0 and same.result.z == 0 and same.result.residual is None
    assert same.inconsistency is None and same.float_branch == "no-rejection"
    up = cases["p-rounded-up"]
    assert up.exact_z == 0 and up.result.z == pytest.approx(2**-53, rel=0.5) and up.float_branch == "rejection"
    assert "exact Z of the intended values is 0" in up.inconsistency
    # the exact Z of the float64 inputs themselves: 0.7000000000000001 - 0.7 is one spacing at 0.7, 2^-53,
    # which is the float Z too: the rejection comes from rounding the inputs, not from the arithmetic
    assert F(0.7000000000000001) - F(0.7) == F(1, 2**53)
    assert up.result.z == 2**-53
    assert f"rounded float64 inputs is 1/{2**53} (1.11e-16) (equal to the float Z)" in up.inconsistency
    down = cases["q-rounded-up"]
    assert down.result.z == 0 and down.result.rejection_probability > 0
    assert "residual sum Z is 0" in down.inconsistency


def test_float_branch_check_zero_z_with_alpha_one_is_consistent():
    result = residual_float(np.array([0.25, 0.75]), np.array([0.25, 0.75]), check=False)
    assert float_branch_check(result, F(0)) is None


def test_the_float32_column_runs_the_same_residual_in_float32():
    # p = (3/4, 1/4), q = (1/2, 1/2), all exact in float32: Z = 1/4, r = (1, 0); the test keeps B with
    # ratio 1/2 (exact), so it rejects 1/2 * (1 - 1/2) = 1/4
    result = residual_float(np.array([0.75, 0.25]), np.array([0.5, 0.5]), ("A", "B"), dtype=np.float32)
    assert result.arithmetic == "float32" and result.residual.dtype == np.float32
    assert result.z == 0.25 and result.residual.tolist() == [1.0, 0.0]
    assert result.rejection_probability == 0.25
    case = family_case(7)
    assert case.float32.arithmetic == "float32" and case.float64.arithmetic == "float64"


def test_to_float32_is_correctly_rounded():
    for value in (F(1, 3), F(1, 2) + F(3, 4 * 10**7), F(1, 6) - F(1, 10**7)):
        f = to_float32(value)
        assert isinstance(f, np.float32)
        up = np.nextafter(f, np.float32(np.inf), dtype=np.float32)
        down = np.nextafter(f, np.float32(-np.inf), dtype=np.float32)
        error = abs(F(float(f)) - value)
        assert error <= abs(F(float(up)) - value) and error <= abs(F(float(down)) - value)


def test_parse_exponents():
    assert parse_exponents(None) == tuple(range(6, 17))
    assert parse_exponents("6-8") == (6, 7, 8)
    assert parse_exponents("6, 10,6") == (6, 10)
    for bad in ("", "x", "8-6", "40", "0", "1-2-3"):
        with pytest.raises(NumericsInputError):
            parse_exponents(bad)
    with pytest.raises(NumericsInputError):
        family_case(31)


def test_backend_and_tolerances_are_reported():
    report = backend_report()
    assert report["numpy"] == np.__version__
    assert "binary64" in report["float64"] and "binary32" in report["float32"]
    tol = stated_tolerances(3)
    assert float(tol["residual_rtol"]) == pytest.approx(6 * FLOAT64_EPS, rel=1e-3)
    assert "no tolerance" in tol["identity"]


def test_float64_loses_the_branch_below_its_precision_and_says_so_first():
    # gap 1e-17: p(A) - q(A) = 7.5e-18 is below half a float64 spacing at 1/2 (2^-54 ~ 5.6e-17) and
    # p(B) - q(B) = 2.5e-18 below half the spacing at 1/3 (2^-55 ~ 2.8e-17): float64 p(A) = q(A), p(B) = q(B), Z = 0.
    case = family_case(17)
    assert case.exact_z == F(1, 10**17) and case.float64.z == 0 and case.float64.residual is None
    assert case.float64_inconsistency.startswith("float Z = 0 but the exact Z of the intended values is 1/")
    assert "the exact Z of the rounded float64 inputs is 0 too" in case.float64_inconsistency


def test_float32_at_1e8_rejects_with_a_zero_residual_sum():
    # float32 p(C) = fl32(1/6 - 1e-8) < fl32(1/6) = q(C): the acceptance test can reject C, yet Z = 0.
    case = family_case(8)
    assert case.float32.rejection_probability > 0 and case.float32.z == 0
    assert "residual sum Z is 0" in case.float32_inconsistency


def test_branch_messages_name_which_exact_z_they_mean():
    # float Z > 0 where the intended values have exact Z 0, and float Z = 0 where they have exact Z 1/4
    rejecting = residual_float(np.array([0.75, 0.25]), np.array([0.5, 0.5]), check=False)  # Z = 1/4
    message = float_branch_check(rejecting, F(0))
    assert "exact Z of the intended values is 0" in message
    assert "exact Z of the rounded float64 inputs is 1/4 (0.25) (equal to the float Z)" in message
    equal = residual_float(np.array([0.5, 0.5]), np.array([0.5, 0.5]), check=False)  # Z = 0
    message = float_branch_check(equal, F(1, 4))
    assert message.startswith("float Z = 0 but the exact Z of the intended values is 1/4 (0.25) > 0")
    assert "rounded float64 inputs is 0 too" in message
    assert float_branch_check(rejecting, F(1, 4)) is None and float_branch_check(equal, F(0)) is None


def test_both_exact_zs_are_reported_where_they_differ():
    from lab.teaching.numerics import tiny_z_json

    # gap 1e-8: the intended Z is 1e-8; rounding to float32 closes the gap (argument above), so the rounded
    # float32 inputs' exact Z is 0; float64 keeps the gap up to its own rounding (a positive Z near 1e-8)
    case = family_case(8)
    assert case.exact_z == F(1, 10**8) and case.float32_inputs_z == 0
    assert 0 < case.float64_inputs_z and abs(case.float64_inputs_z - case.exact_z) < F(1, 10**15)
    row = tiny_z_json([case])["cases"][0]
    assert row["exact_z"] == "1/100000000" and row["float32_inputs_exact_z"] == "0"
    # p-rounded-up: intended Z 0, the float64 inputs' Z one spacing at 0.7, 2^-53
    up = {c["name"]: c for c in branch_json(branch_cases())}["p-rounded-up"]
    assert up["exact_z"] == "0" and up["float_inputs_exact_z"] == f"1/{2**53}"
