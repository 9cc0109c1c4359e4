"""An epsilon floor, found in a returned residual, named, and sized.

A floored residual is r = max(p - q, f) / S on every token (S its sum): each token with p <= q gets the
same small mass f / S. Read off one returned residual: the tokens where the exact residual is 0 all hold
one value c > 0, and with E the excess of the tokens above the floor and m the count of the others,
c = f / (E + m f), so f = c E / (1 - m c). The law a sampler with that floor has is exact (the core's
one-step law of the epsilon-floor rule at floor f), and so are its bias in total variation and the
draws a chi-square (or one draw on a token of probability 0) needs to show it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lab.check.power import PowerTarget, noncentrality
from lab.core.distance import total_variation
from lab.core.sampling import step_law
from lab.core.variants import EpsilonFloor

FIT_RTOL = 1e-3  # a floor fits when it predicts every returned value within this (float32 sums included)

# floors seen in real code, named when the one found is one of them
KNOWN_FLOORS = {
    float(np.finfo(np.float32).tiny): "float32's smallest normal number, finfo(float32).tiny",
    float(np.finfo(np.float64).tiny): "float64's smallest normal number, finfo(float64).tiny",
    float(np.finfo(np.float32).eps): "float32's machine epsilon",
    float(np.finfo(np.float64).eps): "float64's machine epsilon",
    **{10.0**-k: f"1e-{k}" for k in range(1, 40)},
}


def _snap(value: float) -> tuple[float, str | None]:
    for known, name in KNOWN_FLOORS.items():
        if math.isclose(value, known, rel_tol=FIT_RTOL):
            return known, name
    return float(f"{value:.3g}"), None


def find_floor(r, excess: tuple[Fraction, ...]) -> tuple[float, str | None] | None:
    """(floor, its name if a known one) when ``r`` is max(excess, f) / S for one f > 0, else None.
    ``excess`` is the exact max(0, p - q) of the inputs the sampler was given."""
    values = np.asarray(r, dtype=np.float64)
    zero = [i for i, e in enumerate(excess) if e == 0]
    if not zero or not np.isfinite(values).all():
        return None
    c = float(values[zero[0]])
    if c <= 0 or any(not math.isclose(float(values[i]), c, rel_tol=FIT_RTOL) for i in zero):
        return None
    floats = [float(e) for e in excess]
    floor = 0.0  # first guess: only the tokens of excess 0 sit under the floor
    for _ in range(4):  # which tokens sit under the floor depends on the floor: settle it
        below = sum(1 for e in floats if e <= floor)
        if below * c >= 1:
            return None
        new_floor = c * sum(e for e in floats if e > floor) / (1 - below * c)
        if new_floor == floor:
            break
        floor = new_floor
    if floor <= 0:
        return None
    weights = np.maximum(np.asarray(floats), floor)
    predicted = weights / weights.sum()
    if not np.allclose(values, predicted, rtol=FIT_RTOL, atol=0):
        return None
    return _snap(floor)


def floor_bias(p: tuple[Fraction, ...], q: tuple[Fraction, ...], floor: float, target: PowerTarget) -> dict:
    """The exact output law of speculative sampling with the residual floored at ``floor`` (the core's
    epsilon-floor rule), its TV distance from p, and the draws that would show it with the stated power."""
    rule = EpsilonFloor()
    rule.floor = Fraction(floor)
    law = step_law(p, q, rule).total
    tv = total_variation(dict(enumerate(p)), dict(enumerate(law)))
    outside = sum((v for v, t in zip(law, p) if not t), Fraction(0))
    if outside:  # a draw on a token of probability 0 fails the case at once
        share = -math.log1p(-float(outside))
        draws = -math.log1p(-target.power) / share if share > 0 else None  # None: beyond a float
        how = f"one draw on a token of probability 0, which get {float(outside):.3g} of the mass"
    else:
        support = sum(1 for v in p if v)
        chi2 = float(sum((a - b) ** 2 / b for a, b in zip(law, p) if b))
        draws = noncentrality(max(support - 1, 1), target) / chi2 if chi2 > 0 else None
        how = "the chi-square of the counts"
    if draws is not None and not math.isfinite(draws):
        draws = None  # beyond a float: JSON says null, the text "more than 1e308"
    return {
        "floor": floor,
        "bias_tv": float(tv),
        "mass_on_tokens_of_probability_0": float(outside),
        "draws_to_show_it": draws,
        "shown_by": how,
    }


def count_text(n: float) -> str:
    """``4,600``, ``5.1 million``, ``4.6e+38``: a count of draws a person can read."""
    if n is None or not math.isfinite(n):
        return "more than 1e308"
    if n < 1e6:
        return f"{n:,.0f}"
    if n < 1e12:
        return f"{n / 1e6:,.2g} million" if n < 1e9 else f"{n / 1e9:,.2g} billion"
    return f"{n:.2g}"


def draws_text(n: float | None) -> str:
    return "more than 1e308 draws" if n is None else f"about {count_text(n)} draws"


def floor_text(found: tuple[float, str | None], bias: dict) -> str:
    floor, name = found
    named = f" ({name})" if name and not name.startswith("1e-") else ""
    return (
        f"an epsilon floor of {floor:.3g}{named}: r is proportional to max(p - q, {floor:.3g}) on every token, so "
        f"tokens with p <= q get mass; its bias on this case is TV {bias['bias_tv']:.3g} (exact, from the lab's "
        f"core), which {draws_text(bias['draws_to_show_it'])} would show: {bias['shown_by']}"
    )
