"""Which named mistake fits observed counts best: the likelihood of the counts under each variant's exact law."""

from __future__ import annotations

import math
from fractions import Fraction

from lab.check.processing import PROCESSING_MISTAKES
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
    if name in PROCESSING_MISTAKES:
        return PROCESSING_MISTAKES[name]
    if name.startswith("epsilon-floor "):  # a verifier's floored residuals (lab.check.candidates)
        return f"An epsilon floor on every residual, max(p - q, f) with f = {name.split()[-1]}"
    return "the correct rule" if name == "correct" else name


NAME_FIT = 0.001  # a mistake is named only when its own law fits the counts: chi-square p >= this
NAME_MARGIN = 1000  # ... and the counts are this many times likelier under it than under any other law


def observed_distance(counts: dict, law: dict) -> float | None:
    """Total variation between the counts' frequencies and a law: how far the closest mistake is."""
    draws = sum(counts.values())
    if not draws:
        return None
    outcomes = set(law) | {k for k, c in counts.items() if c}
    return 0.5 * sum(abs(counts.get(k, 0) / draws - float(law.get(k, 0))) for k in outcomes)


def best_variant(counts: dict, target: dict, laws: dict[str, dict], false_alarm: float) -> dict:
    """The variant whose exact law gives the counts the highest likelihood, with its bias (TV from the
    target, exact), whether its law fits the counts itself (its own chi-square p >= NAME_FIT) and whether it
    is **named**: it fits, and the counts are at least NAME_MARGIN times likelier under it than under every
    variant with another law on this case (the runner-up is given). Otherwise the report calls the sampler
    biased and gives the closest known mistake with its distance from the counts.
    Variants with the same law on this case are listed together: the counts cannot tell them apart."""
    scored = {name: log_likelihood(counts, law) for name, law in laws.items()}
    best = max(scored, key=lambda n: (scored[n], n == "correct"))
    law = laws[best]
    same = [n for n in laws if n != best and laws[n] == law]
    others = {n: scored[n] for n in laws if laws[n] != law}
    runner_up = max(others, key=lambda n: (others[n], n == "correct")) if others else None
    margin = scored[best] - others[runner_up] if runner_up is not None else None
    fit = chi_square_test(counts, law)
    bias = total_variation(target, law) if isinstance(next(iter(law.values()), 0), (int, Fraction)) else None
    # a law with one possible outcome fits when every draw is that outcome (nothing else to test)
    fits = not fit.impossible and (fit.p_value is None or fit.p_value >= NAME_FIT)
    clear = margin is None or margin >= math.log(NAME_MARGIN)
    return {
        "variant": best,
        "title": _title(best),
        "same_law_on_this_case": same,
        "bias_tv": None if bias is None else fraction_text(bias),
        "bias_tv_decimal": None if bias is None else float(bias),
        "log_likelihood": scored[best] if math.isfinite(scored[best]) else None,
        "log_likelihood_margin": margin if margin is None or math.isfinite(margin) else None,
        "runner_up": runner_up,
        "fits": fits,
        "fit_p_value": fit.p_value,
        "named": fits and clear and best != "correct",
        "distance_from_counts_tv": observed_distance(counts, law),
        "naming_rule": {"fit_p_value_at_least": NAME_FIT, "likelihood_ratio_at_least": NAME_MARGIN},
        "log_likelihoods": {n: (v if math.isfinite(v) else None) for n, v in scored.items()},
    }


def ratio_text(margin: float | None) -> str:
    """A likelihood ratio e^margin as short text: "1.2e+12 times", "40 times", "infinitely"."""
    if margin is None:
        return "infinitely"
    if margin > 700:
        return f"about 10^{margin / math.log(10):,.0f} times"
    ratio = math.exp(margin)
    return f"{ratio:.2g} times" if ratio >= 100 else f"{ratio:.1f} times"


def fit_text(fit: dict) -> str:
    """The report's line about the mistake that fits best: named, or only the closest."""
    twins = fit["same_law_on_this_case"]
    same = f" (same law here: {', '.join(twins)})" if twins else ""
    p_value = fit["fit_p_value"]
    p_text = "every draw is its one possible outcome" if p_value is None else f"chi-square p = {p_value:.3g}"
    fits_text = f"({p_text})" if p_value is None else f"({p_text} >= {NAME_FIT:g})"
    runner = fit.get("runner_up")
    if fit.get("named"):
        against = (
            f"{ratio_text(fit['log_likelihood_margin'])} likelier under it than under the next known mistake "
            f"({runner})" if runner else "no other known mistake has another law here"
        )
        return (
            f"named mistake: {fit['variant']} - {fit['title']}{same}; its bias TV = {fit['bias_tv']} "
            f"({fit['bias_tv_decimal']:.4g}); its law fits the counts {fits_text} and they are "
            f"{against}"
        )
    why = []
    if not fit["fits"]:
        why.append(f"its law does not fit the counts ({p_text} < {NAME_FIT:g})")
    margin = fit.get("log_likelihood_margin")
    if runner and margin is not None and margin < math.log(NAME_MARGIN):
        rival = "the correct rule" if runner == "correct" else runner
        why.append(f"{rival} is nearly as likely (the counts favour {fit['variant']} only {ratio_text(margin)})")
    distance = fit.get("distance_from_counts_tv")
    far = f", at TV {distance:.3g} from the counts' frequencies" if distance is not None else ""
    return (
        f"biased; closest known mistake: {fit['variant']} - {fit['title']}{same}{far}; not named: "
        + "; ".join(why or ["the evidence is short of the naming rule"])
        + f" (a name needs chi-square p >= {NAME_FIT:g} and {NAME_MARGIN:,} times the likelihood of every other "
        "known mistake)"
    )


def agreement(results) -> dict | None:
    """One name for the sampler across its failing cases, or the disagreement: from each case's named mistake
    (with the mistakes of the same law there). None when no case names one."""
    named, unnamed = [], []
    for result in results:
        fit = result.data.get("best_variant")
        if fit and fit.get("named") and result.verdict == "fail":
            named.append((result.name, {fit["variant"], *fit["same_law_on_this_case"]}, fit["variant"]))
        elif fit and result.verdict == "fail":
            unnamed.append(result.name)
    if not named:
        closest: dict[str, list[str]] = {}
        for result in results:
            fit = result.data.get("best_variant")
            if fit and result.verdict == "fail" and fit["variant"] != "correct":
                closest.setdefault(fit["variant"], []).append(result.name)
        return {"agree": None, "closest_by_mistake": closest} if closest else None
    common = set.intersection(*(names for _, names, _ in named))
    if common:
        votes = [best for _, _, best in named if best in common]
        name = max(sorted(common), key=votes.count)
        return {"agree": True, "mistake": name, "cases": [case for case, _, _ in named], "unnamed": unnamed}
    by_name: dict[str, list[str]] = {}
    for case, _, best in named:
        by_name.setdefault(best, []).append(case)
    return {"agree": False, "by_mistake": by_name, "unnamed": unnamed}


def agreement_text(found: dict | None) -> str | None:
    if not found:
        return None
    if found["agree"] is None:
        parts = [f"{name} on {len(cases)} ({', '.join(cases)})" for name, cases in found["closest_by_mistake"].items()]
        one = len(found["closest_by_mistake"]) == 1
        return (
            "no known mistake is named on any case (biased, but the counts fit none closely enough); closest: "
            + "; ".join(parts) + ("" if one else ": the cases disagree, so the rule is likely none of them")
        )
    if found["agree"] and not found["unnamed"]:
        return f"named mistake across the failing cases that name one ({len(found['cases'])}): {found['mistake']}"
    if found["agree"]:
        return (
            f"{found['mistake']} is named on {', '.join(found['cases'])} only; {len(found['unnamed'])} other failing "
            f"case(s) fit no known mistake ({', '.join(found['unnamed'])}): the rule is likely none of them"
        )
    parts = [f"{name} on {', '.join(cases)}" for name, cases in found["by_mistake"].items()]
    return (
        "the cases name different mistakes: " + "; ".join(parts) + ". No one known mistake explains every case: "
        "the sampler's rule is likely none of them (or a mix)"
    )
