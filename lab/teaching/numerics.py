"""The numerics of a tiny Z: the residual exactly, in float64 and in float32, side by side.

Normalising by Z divides by a small number, so any rounding in p - q is magnified by 1/Z. This
module builds a family of cases whose exact residual is known (Fractions), runs the same
expression in float64 (:func:`lab.core.residual.residual_float`, the lab's pinned float path) and in
float32, and reports the error of r against the exact value.

It also checks the branch: Z = 0 is the no-rejection branch (nothing to normalise). A float
computation that reports Z > 0 where the exact Z is 0, or an acceptance test that can reject
while the residual sum is 0, is reported as a numerical inconsistency, never patched with a floor.
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lab.core.distributions import LabInputError
from lab.core.errors import said
from lab.core.formatting import fraction_text
from lab.core.numbers import NumberInputError, parse_whole_number, shown
from lab.core.residual import (
    FLOAT64_EPS,
    RECONSTRUCTION_RTOL,
    ResidualResult,
    branch_inconsistency,
    exact_z_and_residual,
    residual_float,
    residual_rtol,
)
from lab.i18n import N_

FLOAT32_EPS = float(np.finfo(np.float32).eps)  # 2**-23

# The tiny-Z family: q is fixed, p = q + gap * DIRECTION, so the exact Z is the gap and the exact
# residual is (3/4, 1/4, 0) for every gap (DIRECTION sums to 0; its positive part sums to 1).
FAMILY_TOKENS = ("A", "B", "C")
FAMILY_Q = (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6))
FAMILY_DIRECTION = (Fraction(3, 4), Fraction(1, 4), Fraction(-1))
FAMILY_RESIDUAL = (Fraction(3, 4), Fraction(1, 4), Fraction(0))
DEFAULT_EXPONENTS = tuple(range(6, 17))  # gaps 1e-6 down to 1e-16
EXPONENT_MIN, EXPONENT_MAX = 1, 30


class NumericsInputError(LabInputError):
    pass


def backend_report() -> dict[str, str]:
    """What the float paths ran on: printed on the page and in the CLI's JSON."""
    return {
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine() or "unknown",
        "byteorder": sys.byteorder,
        "float64": f"IEEE 754 binary64 (numpy.float64), eps = 2^-52 = {FLOAT64_EPS:.3e}",
        "float32": f"IEEE 754 binary32 (numpy.float32), eps = 2^-23 = {FLOAT32_EPS:.3e}",
        "exact": N_("fractions.Fraction (exact rational arithmetic, the reference)"),
    }


def stated_tolerances(vocabulary_size: int = len(FAMILY_TOKENS)) -> dict[str, str]:
    """The float64 path's stated tolerances, which are not part of the identity min + Z r = p."""
    return {
        "reconstruction_rtol": f"{RECONSTRUCTION_RTOL:.3e}",
        "reconstruction": said("|min(p,q) + Z*r - p| <= 4 eps p per token (float64 path)"),
        "residual_rtol": f"{residual_rtol(vocabulary_size):.3e}",
        "residual": said(
            "|r_float64 - r_exact(float64 inputs)| <= (n + 3) eps r per token, n = {n}: against the exact residual "
            "of the SAME rounded inputs, not of the exact p and q", n=vocabulary_size,
        ),
        "identity": said("min(p,q) + Z*r = p holds exactly, with no tolerance, on the exact path"),
    }


# --- float32 rounding and the float32 computation ---------------------------------------------------


def to_float32(value: Fraction) -> np.float32:
    """The float32 nearest to an exact value (correctly rounded, no double rounding via float64)."""
    value = Fraction(value)
    guess = np.float32(float(value))
    best, best_error = guess, abs(Fraction(float(guess)) - value)
    for direction in (-np.inf, np.inf):
        neighbour = np.nextafter(guess, np.float32(direction), dtype=np.float32)
        error = abs(Fraction(float(neighbour)) - value)
        if error < best_error or (error == best_error and int(neighbour.view(np.uint32)) % 2 == 0):
            best, best_error = neighbour, error
    return np.float32(best)


def inputs_exact_z(result: ResidualResult) -> Fraction:
    """The exact Z of a float computation's own rounded inputs (each float converted exactly). It can
    differ from the exact Z of the intended values: rounding p and q may close a tiny gap or open one."""
    z, _ = exact_z_and_residual(
        tuple(Fraction(float(v)) for v in result.p), tuple(Fraction(float(v)) for v in result.q)
    )
    return z


def _z_text(z: Fraction) -> str:
    return "0" if z == 0 else f"{fraction_text(z)} ({float(z):.3g})"


# the findings' short names: the same for every case with that finding (the Numerics page groups them)
LOST_BY_INPUTS = said("rejection lost: rounding the inputs closed the gap")
LOST_IN_ARITHMETIC = said("rejection lost in the arithmetic")
MADE_BY_INPUTS = said("rejection made by rounding the inputs")
ALPHA_NOT_ONE = said("Z = 0 but α is not 1")
REJECTS_WITH_Z_ZERO = said("the test rejects while Z = 0")


def float_branch_check(result: ResidualResult, exact_z: Fraction) -> str | None:
    """The branch checks of the spec, on one float computation (None when consistent).

    ``exact_z`` is the exact Z of the intended, unrounded values. Each message says which exact Z it
    means, and gives the exact Z of the rounded float inputs too where that one differs: a branch lost
    or made by rounding the inputs is a different finding from one lost in the arithmetic. Adds
    :func:`lab.core.residual.branch_inconsistency` (Z = 0 with alpha != 1) and the acceptance-test check:
    rejection is possible (rejection probability > 0) while the residual sum is 0.
    """
    return "; ".join(message for _, message in branch_findings(result, exact_z)) or None


def branch_findings(result: ResidualResult, exact_z: Fraction) -> list[tuple[str, str]]:
    """The findings of :func:`float_branch_check` as (short name, full message) pairs, most important first:
    the short name is the same for every case with that finding (a table groups them), the message has the
    case's numbers."""
    dtype = result.arithmetic
    rounded_z = inputs_exact_z(result)
    found_all = []
    if exact_z > 0 and result.z == 0:  # the most important finding first: a reachable rejection vanished
        if rounded_z == 0:
            found_all.append(
                (
                    LOST_BY_INPUTS,
                    said("float Z = 0 but the exact Z of the intended values is {z} > 0: rounding the inputs to "
                         "{dtype} already closed the gap (the exact Z of the rounded {dtype} inputs is 0 too), so the "
                         "rejection is lost to rounding before any arithmetic", z=_z_text(exact_z), dtype=dtype),
                )
            )
        else:
            found_all.append(
                (
                    LOST_IN_ARITHMETIC,
                    said("float Z = 0 but the exact Z is {z} for the intended values and {rounded} for the rounded "
                         "{dtype} inputs: rejection lost to rounding in the arithmetic", z=_z_text(exact_z),
                         rounded=_z_text(rounded_z), dtype=dtype),
                )
            )
    if exact_z == 0 and result.z > 0:
        values = {"z": f"{result.z:.3g}", "dtype": dtype, "rounded": _z_text(rounded_z)}
        found_all.append(
            (
                MADE_BY_INPUTS,
                said("float Z = {z} > 0 but the exact Z of the intended values is 0 (rejection that cannot happen); "
                     "the exact Z of the rounded {dtype} inputs is {rounded} (equal to the float Z): the rounding of "
                     "the inputs made it", **values)
                if rounded_z == Fraction(result.z)
                else said("float Z = {z} > 0 but the exact Z of the intended values is 0 (rejection that cannot "
                          "happen); the exact Z of the rounded {dtype} inputs is {rounded}: the rounding of the inputs "
                          "made it", **values),
            )
        )
    found = branch_inconsistency(result.z, result.alpha)
    if found:
        found_all.append((ALPHA_NOT_ONE, found))
    if result.z == 0 and result.rejection_probability > 0:
        found_all.append(
            (
                REJECTS_WITH_Z_ZERO,
                said("the acceptance test rejects with probability {probability} but the residual sum Z is 0: "
                     "rejection with nothing to normalise (0/0)", probability=f"{result.rejection_probability:.3g}"),
            )
        )
    return found_all


# --- errors against the exact residual ----------------------------------------------------------------


@dataclass(frozen=True)
class ResidualError:
    max_abs: float | None  # max over tokens of |r_float - r_exact|; None when a branch has no r
    relative: float | None  # max over tokens with r_exact > 0 of |r_float - r_exact| / r_exact


def residual_error(floating: np.ndarray | None, exact: tuple[Fraction, ...] | None) -> ResidualError:
    """Error measured exactly (each float converted to its exact value), then rounded for display."""
    if floating is None or exact is None:
        return ResidualError(None, None)
    diffs = [abs(Fraction(float(f)) - e) for f, e in zip(floating, exact)]
    relative = [d / e for d, e in zip(diffs, exact) if e > 0]
    return ResidualError(float(max(diffs)), float(max(relative)) if relative else None)


# --- the tiny-Z family --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TinyZCase:
    exponent: int
    gap: Fraction  # 10**-exponent, the exact Z
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    exact_z: Fraction
    exact_residual: tuple[Fraction, ...] | None
    float64: ResidualResult
    float32: ResidualResult
    float64_error: ResidualError
    float32_error: ResidualError
    float64_inconsistency: str | None
    float32_inconsistency: str | None
    # float64 against the exact residual of its own rounded inputs: the stated tolerance's domain
    float64_arithmetic_error: float | None
    float64_within_tolerance: bool | None

    @property
    def float64_inputs_z(self) -> Fraction:
        """The exact Z of the rounded float64 inputs (``exact_z`` is that of the intended values)."""
        return inputs_exact_z(self.float64)

    @property
    def float32_inputs_z(self) -> Fraction:
        """The exact Z of the rounded float32 inputs: 0 from gap 1e-8 on, where rounding closes the gap."""
        return inputs_exact_z(self.float32)

    @property
    def gap_text(self) -> str:
        return f"1e-{self.exponent}"

    def findings(self, dtype: str) -> list[tuple[str, str]]:
        """The branch findings of the ``float64`` or ``float32`` computation (short name, message)."""
        return branch_findings(self.float64 if dtype == "float64" else self.float32, self.exact_z)


def family_case(exponent: int) -> TinyZCase:
    if isinstance(exponent, bool) or not isinstance(exponent, int) or not EXPONENT_MIN <= exponent <= EXPONENT_MAX:
        raise NumericsInputError(
            f"gap exponent {exponent!r} must be a whole number from {EXPONENT_MIN} to {EXPONENT_MAX}"
        )
    gap = Fraction(1, 10**exponent)
    q = FAMILY_Q
    p = tuple(b + gap * d for b, d in zip(q, FAMILY_DIRECTION))
    z, r = exact_z_and_residual(p, q)

    p64 = np.array([float(v) for v in p], dtype=np.float64)
    q64 = np.array([float(v) for v in q], dtype=np.float64)
    f64 = residual_float(p64, q64, FAMILY_TOKENS)  # the lab's pinned float64 path
    p32 = np.array([to_float32(v) for v in p], dtype=np.float32)
    q32 = np.array([to_float32(v) for v in q], dtype=np.float32)
    # the same expression in float32 (the rounded inputs' sums are off by float32's precision: no check)
    f32 = residual_float(p32, q32, FAMILY_TOKENS, dtype=np.float32, check=False)

    # The exact residual of the rounded float64 inputs: what the stated tolerance is measured against.
    _, r_of_rounded = exact_z_and_residual(
        tuple(Fraction(float(v)) for v in p64), tuple(Fraction(float(v)) for v in q64)
    )
    arithmetic_error = within = None
    if r_of_rounded is not None and f64.residual is not None:
        rtol = Fraction(residual_rtol(len(p)))
        diffs = [abs(Fraction(float(f)) - e) for f, e in zip(f64.residual, r_of_rounded)]
        arithmetic_error = float(max(diffs))
        within = all(d <= rtol * e for d, e in zip(diffs, r_of_rounded))

    return TinyZCase(
        exponent=exponent,
        gap=gap,
        p=p,
        q=q,
        exact_z=z,
        exact_residual=r,
        float64=f64,
        float32=f32,
        float64_error=residual_error(f64.residual, r),
        float32_error=residual_error(f32.residual, r),
        float64_inconsistency=float_branch_check(f64, z),
        float32_inconsistency=float_branch_check(f32, z),
        float64_arithmetic_error=arithmetic_error,
        float64_within_tolerance=within,
    )


def parse_exponents(text: str | None) -> tuple[int, ...]:
    """``6-16`` or ``6,8,10`` (or None for the default family)."""
    if text is None:
        return DEFAULT_EXPONENTS
    raw = text.strip()
    if not raw:
        raise NumericsInputError("the gap exponents are empty (write 6-16 or 6,8,10)")
    if raw.count(",") >= 100:
        items = raw.count(",") + 1
        raise NumericsInputError(f"the gap exponents list has {items:,} items: at most 100 (write 6-16 or 6,8,10)")
    exponents: list[int] = []
    for part in raw.split(","):
        part = part.strip()
        bounds = part.split("-") if "-" in part else [part]
        try:  # through lab.core.numbers: digits only, limits checked on the text
            values = [parse_whole_number(b, "gap exponent", -(10**9), 10**9) for b in bounds]
        except NumberInputError:
            raise NumericsInputError(
                f"gap exponent {shown(part)} is not a whole number (write 6-16 or 6,8,10)"
            ) from None
        for v in values:  # before a range is built from them
            if not EXPONENT_MIN <= v <= EXPONENT_MAX:
                raise NumericsInputError(f"gap exponent {v} is outside {EXPONENT_MIN} to {EXPONENT_MAX}")
        if len(values) == 2 and values[0] <= values[1]:
            values = list(range(values[0], values[1] + 1))
        elif len(values) != 1:
            raise NumericsInputError(f"gap exponent range {part!r} must be LOW-HIGH with LOW <= HIGH")
        for v in values:
            if not EXPONENT_MIN <= v <= EXPONENT_MAX:
                raise NumericsInputError(f"gap exponent {v} is outside {EXPONENT_MIN} to {EXPONENT_MAX}")
        exponents.extend(values)
    return tuple(dict.fromkeys(exponents))


def tiny_z_family(exponents=DEFAULT_EXPONENTS) -> list[TinyZCase]:
    return [family_case(e) for e in exponents]


# --- branch cases: Z = 0 exactly, and float paths that disagree with it ------------------------------


@dataclass(frozen=True)
class BranchCase:
    name: str
    description: str
    tokens: tuple[str, ...]
    exact_p: tuple[Fraction, ...]
    exact_q: tuple[Fraction, ...]
    float_p: np.ndarray  # float64 values as a program would hold them
    float_q: np.ndarray
    exact_z: Fraction
    result: ResidualResult
    inconsistency: str | None

    @property
    def exact_branch(self) -> str:
        return "rejection" if self.exact_z > 0 else "no-rejection"

    @property
    def float_branch(self) -> str:
        return "rejection" if self.result.z > 0 else "no-rejection"


def _branch_case(name, description, exact_p, exact_q, float_p, float_q) -> BranchCase:
    exact_p = tuple(Fraction(v) for v in exact_p)
    exact_q = tuple(Fraction(v) for v in exact_q)
    z, _ = exact_z_and_residual(exact_p, exact_q)
    # no check: a float that rounded differently is the point of these cases
    result = residual_float(float_p, float_q, check=False)
    return BranchCase(
        name,
        description,
        ("A", "B", "C"),
        exact_p,
        exact_q,
        result.p,
        result.q,
        z,
        result,
        float_branch_check(result, z),
    )


def branch_cases() -> list[BranchCase]:
    """Three float64 cases of the same exact law p = q = (1/10, 1/5, 7/10), exact Z = 0."""
    law = ("1/10", "1/5", "7/10")
    typed = np.array([0.1, 0.2, 0.7])
    scaled = np.array([1.0, 2.0, 7.0]) * 0.1  # 7 * 0.1 = 0.7000000000000001 in float64
    return [
        _branch_case(
            "same-floats",
            said("p and q are the same float64 values: Z = 0, the no-rejection branch; r is never computed."),
            law,
            law,
            typed,
            typed,
        ),
        _branch_case(
            "p-rounded-up",
            said("p computed as (1, 2, 7) * 0.1, q typed as (0.1, 0.2, 0.7): the float Z is one rounding error, a "
                 "rejection branch that cannot happen exactly."),
            law,
            law,
            scaled,
            typed,
        ),
        _branch_case(
            "q-rounded-up",
            said("q computed as (1, 2, 7) * 0.1, p typed: the acceptance test can reject C, yet the residual sum is 0 "
                 "- rejection with nothing to normalise."),
            law,
            law,
            typed,
            scaled,
        ),
    ]


# --- JSON ------------------------------------------------------------------------------------------------


def _floats(values) -> list[float] | None:
    return None if values is None else [float(v) for v in values]


def _fractions(values) -> list[str] | None:
    return None if values is None else [fraction_text(v) for v in values]


def tiny_z_json(cases: list[TinyZCase]) -> dict:
    rows = []
    for case in cases:
        rows.append(
            {
                "gap": case.gap_text,
                "exact_z": fraction_text(case.exact_z),  # of the intended (unrounded) values
                "float64_inputs_exact_z": fraction_text(case.float64_inputs_z),  # of the rounded float64 inputs
                "float32_inputs_exact_z": fraction_text(case.float32_inputs_z),
                "exact_r": _fractions(case.exact_residual),
                "float64_z": case.float64.z,
                "float64_r": _floats(case.float64.residual),
                "float32_z": case.float32.z,
                "float32_r": _floats(case.float32.residual),
                "float64_error": {"max_abs": case.float64_error.max_abs, "relative": case.float64_error.relative},
                "float32_error": {"max_abs": case.float32_error.max_abs, "relative": case.float32_error.relative},
                "float64_inconsistency": case.float64_inconsistency,
                "float32_inconsistency": case.float32_inconsistency,
                "float64_arithmetic_error": case.float64_arithmetic_error,
                "float64_within_stated_tolerance": case.float64_within_tolerance,
            }
        )
    return {
        "tokens": list(FAMILY_TOKENS),
        "q": _fractions(FAMILY_Q),
        "p": "q + gap * (3/4, 1/4, -1)",
        "exact_residual": _fractions(FAMILY_RESIDUAL),
        "cases": rows,
        "backend": backend_report(),
        "stated_tolerances": stated_tolerances(),
    }


def branch_json(cases: list[BranchCase]) -> list[dict]:
    return [
        {
            "name": c.name,
            "description": c.description,
            "exact_p": _fractions(c.exact_p),
            "exact_q": _fractions(c.exact_q),
            "float_p": _floats(c.float_p),
            "float_q": _floats(c.float_q),
            "exact_z": fraction_text(c.exact_z),  # of the intended (unrounded) values
            "float_inputs_exact_z": fraction_text(inputs_exact_z(c.result)),  # of the float64 inputs as held
            "exact_branch": c.exact_branch,
            "float_z": c.result.z,
            "float_rejection_probability": c.result.rejection_probability,
            "float_branch": c.float_branch,
            "inconsistency": c.inconsistency,
        }
        for c in cases
    ]
