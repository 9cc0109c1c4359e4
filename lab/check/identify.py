"""Which named mistake fits observed counts best: the likelihood of the counts under each variant's exact law."""

from __future__ import annotations

import math
from fractions import Fraction

from lab.core.distance import total_variation
from lab.core.drafts import DRAFT_MISTAKES
from lab.core.formatting import fraction_text
from lab.core.sampling import chi_square_test
from lab.core.variants import VARIANTS
from lab.teaching.pitfalls import VARIANT_WORDS


def log_likelihood(counts: dict, law: dict) -> float:
    """sum count * log law over the observed outcomes; -inf when an observed outcome has probability 0."""
    total = 0.0
    for outcome, count in counts.items():
        if not count:
            continue
        mass = law.get(outcome, 0)
        if not mass:
            return -math.inf
        total += count * math.log(mass)
    return total


def residual_variants(r, p_row, q_row, tolerance: float = 1e-9) -> list[str]:
    """The named mistakes whose exact replacement law, after some rejectable token, equals the residual
    a sampler returned (within ``tolerance`` per token): which rule it computed, read off one residual."""
    names = []
    correct = VARIANTS["correct"].inverse_cdf_law(p_row, q_row, 0)
    for name, variant in VARIANTS.items():
        if name == "correct" or not variant.one_step_differs:
            continue
        for x in range(len(p_row)):
            if variant.draft(q_row)[x] and variant.accept_probability(p_row, q_row, x) < 1:
                law = variant.inverse_cdf_law(p_row, q_row, x)
                if law == correct:  # this mistake computes the right residual here: nothing to name
                    continue
                if all(abs(float(a) - float(b)) <= tolerance for a, b in zip(r, law)):
                    names.append(name)
                    break
    return names


def _title(name: str) -> str:
    """The named mistake's title: a one-draft rule's (the Pitfalls page's words) or a several-drafts one's."""
    if name in VARIANT_WORDS:
        return VARIANT_WORDS[name].title
    if name in DRAFT_MISTAKES:
        return DRAFT_MISTAKES[name].title
    if name.startswith("epsilon-floor "):  # a verifier's floored residuals (lab.check.candidates)
        return f"An epsilon floor on every residual, max(p - q, f) with f = {name.split()[-1]}"
    return "the correct rule" if name == "correct" else name


def best_variant(counts: dict, target: dict, laws: dict[str, dict], false_alarm: float) -> dict:
    """The variant whose exact law gives the counts the highest likelihood, with its bias (TV from the
    target, exact) and whether it fits the counts itself (its own chi-square p-value >= false_alarm).
    Variants with the same law on this case are listed together: the counts cannot tell them apart."""
    scored = {name: log_likelihood(counts, law) for name, law in laws.items()}
    best = max(scored, key=lambda n: (scored[n], n == "correct"))
    law = laws[best]
    same = [n for n in laws if n != best and laws[n] == law]
    others = [scored[n] for n in laws if laws[n] != law]
    margin = scored[best] - max(others) if others else None
    fit = chi_square_test(counts, law)
    bias = total_variation(target, law) if isinstance(next(iter(law.values()), 0), (int, Fraction)) else None
    return {
        "variant": best,
        "title": _title(best),
        "same_law_on_this_case": same,
        "bias_tv": None if bias is None else fraction_text(bias),
        "bias_tv_decimal": None if bias is None else float(bias),
        "log_likelihood": scored[best] if math.isfinite(scored[best]) else None,
        "log_likelihood_margin": margin if margin is None or math.isfinite(margin) else None,
        # a law with one possible outcome fits when every draw is that outcome (nothing else to test)
        "fits": not fit.impossible and (fit.p_value is None or fit.p_value >= false_alarm),
        "fit_p_value": fit.p_value,
        "log_likelihoods": {n: (v if math.isfinite(v) else None) for n, v in scored.items()},
    }
