"""Checking a residual the sampler returned, against the exact residual of the inputs it was given.

The reference is exact: the float inputs converted to Fractions (after rounding them to the dtype the
residual came back in, when the sampler computed in a narrower one), their exact Z and r. The stated
tolerance is the float path's, not part of the identity: per token
|r_float(x) - r_exact(x)| <= (n + 3) eps r_exact(x) (one rounding in p - q, n - 1 in the sum, one in the
division, eps of the residual's dtype; see lab.core.residual). A token the exact residual gives 0 must
get exactly 0 (max(0, .) is exact: a floor or a leak shows here), and a residual returned while the
exact Z of the inputs is 0 is a rejection with nothing to normalise.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lab.check.floor import find_floor
from lab.core.residual import exact_z_and_residual

FLOAT_KINDS = {"float16", "float32", "float64"}


def listed(items, limit: int = 8) -> str:
    """``a, b, c`` or ``a, ..., h and 12 more``: long lists of tokens stay one short line."""
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def residual_tolerance(dtype: str, size: int) -> float:
    """The stated per-token relative tolerance of a residual computed in ``dtype`` over ``size`` tokens."""
    return (size + 3) * float(np.finfo(np.dtype(dtype)).eps)


def reference_inputs(p: np.ndarray, q: np.ndarray, dtype: str) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The inputs as a computation in ``dtype`` holds them (numpy casts round correctly), exactly."""
    cast_p = p.astype(dtype) if p.dtype != np.dtype(dtype) else p
    cast_q = q.astype(dtype) if q.dtype != np.dtype(dtype) else q
    return tuple(Fraction(float(v)) for v in cast_p), tuple(Fraction(float(v)) for v in cast_q)


def check_residual(r, p: np.ndarray, q: np.ndarray, tokens: tuple[str, ...], intended: tuple | None = None) -> dict:
    """Every check of one returned residual; ``problems`` is empty when it passes.

    ``intended`` is the exact residual of the unrounded case values (None on Z = 0): its error is
    reported beside the tolerance's, to show what rounding the inputs costs apart from the arithmetic."""
    problems: list[str] = []
    r = np.asarray(r)
    out: dict = {"dtype": r.dtype.name, "problems": problems}
    size = len(tokens)
    if r.shape != (size,):
        problems.append(
            f"the residual has shape {r.shape} for a vocabulary of {size} tokens: it must cover the target's "
            "whole vocabulary"
        )
        return out
    if r.dtype.name not in FLOAT_KINDS:
        problems.append(f"the residual has dtype {r.dtype.name}, not a float dtype")
        return out
    if not np.isfinite(r).all():
        bad = [tokens[i] for i in np.flatnonzero(~np.isfinite(r))]
        problems.append(f"the residual holds NaN or infinity at {listed(bad)} (a 0/0 or x/0)")
        return out
    dtype = r.dtype.name
    ref_p, ref_q = reference_inputs(p, q, dtype)
    z, exact = exact_z_and_residual(ref_p, ref_q)
    rtol = residual_tolerance(dtype, size)
    out.update({"compared_with": f"the exact residual of the inputs as {dtype} values", "rtol": rtol})
    if exact is None:  # formed but (so far as the output shows) not used: a note, not a failure
        out["notes"] = [
            f"a residual was formed although Z = 0 exactly for the {dtype} inputs (nothing to normalise, no "
            "rejection can happen): harmless while it is never used; a NaN or a 0/0 in it would fail the case"
        ]
        return out
    values = [Fraction(float(v)) for v in r]
    negative = [tokens[i] for i, v in enumerate(values) if v < 0]
    if negative:
        problems.append(f"negative residual probability at {listed(negative)}")
    leaked = [f"{tokens[i]} ({float(v):.3g})" for i, (v, e) in enumerate(zip(values, exact)) if e == 0 and v != 0]
    if leaked:
        problems.append("the residual gives mass to tokens with p <= q, where r is exactly 0: " + listed(leaked))
        found = find_floor(r, tuple(max(a - b, Fraction(0)) for a, b in zip(ref_p, ref_q)))
        if found:
            out["floor"] = {"floor": found[0], "known_as": found[1]}
    total_error = abs(sum(values, Fraction(0)) - 1)
    out["sum_error"] = float(total_error)
    if total_error > Fraction(rtol):
        problems.append(f"the residual sums to 1 {'+' if sum(values) > 1 else '-'} {float(total_error):.3g}, "
                        f"beyond the stated tolerance {rtol:.3g}")
    errors = [abs(v - e) / e for v, e in zip(values, exact) if e > 0]
    worst = float(max(errors)) if errors else 0.0
    out["max_relative_error"] = worst
    if worst > rtol and not leaked:
        far = [tokens[i] for i, (v, e) in enumerate(zip(values, exact)) if e > 0 and abs(v - e) > Fraction(rtol) * e]
        problems.append(
            f"the residual differs from the exact residual of its inputs by up to {worst:.3g} (relative) at "
            f"{listed(far)}: beyond the stated tolerance {rtol:.3g}"
        )
    if intended is not None:
        out["max_abs_error_vs_intended_values"] = float(max(abs(v - e) for v, e in zip(values, intended)))
    return out
