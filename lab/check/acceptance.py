"""How often a one-step sampler keeps its draft, against the most a lossless rule can keep.

A sampler that says whether it kept the draft — ``(token, None)`` when kept and ``(token, residual)`` when
not, or ``(token, kept)`` with a bool — is counted: kept / calls, beside the exact Σ min(p, q). No rule whose
output follows p can keep more often than Σ min(p, q) = 1 - TV(p, q) (a kept draft is a token both laws
produce: the coupling bound), and speculative sampling's min(1, p/q) keeps exactly that. A rule that passes
the law test but keeps significantly less (a sample-and-match rule keeps Σ p·q) is correct but wasteful: each
draft it throws away is a token the target must produce alone.
"""

from __future__ import annotations

from fractions import Fraction

from scipy.stats import binomtest

from lab.core.formatting import fraction_text


def optimum(p, q) -> Fraction:
    """Σ min(p, q), exact: the largest keep rate of any rule whose output law is p."""
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))


def acceptance(kept: int, calls: int, p, q, false_alarm: float) -> tuple[dict, list[str]]:
    """(data, notes) for ``kept`` drafts kept in ``calls`` calls that said whether they kept theirs."""
    best = optimum(p, q)
    data = {
        "calls_counted": calls,
        "kept": kept,
        "rate": kept / calls,
        "optimum": fraction_text(best),
        "optimum_decimal": float(best),
    }
    if best in (0, 1):  # every draft rejected (disjoint laws) or kept (equal laws): any other count is certain
        p_value = 1.0 if kept == calls * best else 0.0
    else:
        p_value = float(binomtest(kept, calls, float(best)).pvalue)
    data["p_value"] = p_value
    data["wasteful"] = kept < calls * best and p_value < false_alarm
    data["above_optimum"] = kept > calls * best and p_value < false_alarm
    notes = []
    rate, shown = data["rate"], f"{float(best):.4g}"
    if data["wasteful"]:
        notes.append(
            f"correct but wasteful: it kept {rate:.4f} of its drafts ({kept:,} of {calls:,}) where "
            f"Σ min(p, q) = {fraction_text(best)} ({shown}) is the most a rule with the target's law keeps "
            f"(binomial p = {p_value:.3g}); speculative sampling's min(1, p/q) keeps exactly that. Each draft "
            "thrown away is a token the target must produce alone"
        )
    elif data["above_optimum"]:
        notes.append(
            f"it says it kept {rate:.4f} of its drafts ({kept:,} of {calls:,}), more than Σ min(p, q) = {shown}, "
            f"which no rule with the target's law exceeds (binomial p = {p_value:.3g}): its kept flags are "
            "not what it did"
        )
    return data, notes
