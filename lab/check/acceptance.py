"""How often a one-step sampler keeps its draft, against the most a lossless rule can keep.

A sampler that says whether it kept the draft — ``(token, None)`` when kept and ``(token, residual)`` when
not, or ``(token, kept)`` with a bool — is counted: kept / calls, beside the exact Σ min(p, q). No rule whose
output follows p can keep more often than Σ min(p, q) = 1 - TV(p, q) (a kept draft is a token both laws
produce: the coupling bound), and speculative sampling's min(1, p/q) keeps exactly that. A rule that passes
the law test but keeps significantly less (a sample-and-match rule keeps Σ p·q) is correct but wasteful: each
draft it throws away is a token the target must produce alone.
"""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import binomtest, norm

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


# --- blocks ------------------------------------------------------------------------------------------------
#
# A block sampler does not say which drafts it kept, but how many tokens a block commits says it: 1 + the drafts
# kept (+ the bonus). Every output's first block starts from the same place (the start of the text, no draft
# yet), so the first blocks' lengths are independent draws of one law, which the exact chain gives for
# speculative sampling's token-by-token rule. Unlike one step, that rule is not the most a lossless rule can
# commit (block verification, Sun et al. 2024, commits more from the same drafts): a sampler committing
# significantly fewer is wasteful against it, one committing more is said so without blame.


def first_block_law(model, block: int) -> dict[int, Fraction]:
    """The exact law of the number of tokens speculative sampling's first block commits (1 to K + 1), from the
    block engine's chain (:func:`lab.core.blocks.block_chain`): moves until the block ends (a fresh block or the
    end of the output)."""
    from lab.core.blocks import block_chain
    from lab.core.markov import START
    from lab.core.variants import DONE, FRESH

    chain = block_chain(model, block)
    ended = (tuple(FRESH), tuple(DONE))
    fresh = next(h for (_, h) in chain.moves if h == tuple(FRESH))
    memo: dict = {}

    def lengths(t: int, hidden) -> dict[int, Fraction]:
        key = (t, hidden)
        if key not in memo:
            out: dict[int, Fraction] = {}
            for y, after, weight in chain.moves[key]:
                mass = Fraction(weight, chain.scale)
                tails = {0: Fraction(1)} if after in ended else lengths(y, after)
                for n, m in tails.items():
                    out[n + 1] = out.get(n + 1, Fraction(0)) + mass * m
            memo[key] = out
        return memo[key]

    return dict(sorted(lengths(START, fresh).items()))


def block_acceptance(lengths: dict[int, int], law: dict[int, Fraction], false_alarm: float) -> tuple[dict, list[str]]:
    """(data, notes) for the observed first-block lengths (length -> count) against the rule's exact law: a
    one-sided z-test of the mean, with the law's exact variance."""
    blocks = sum(lengths.values())
    mean = sum(n * c for n, c in lengths.items()) / blocks
    expected = sum((n * m for n, m in law.items()), Fraction(0))
    variance = float(sum((m * (n - expected) ** 2 for n, m in law.items()), Fraction(0)))
    if variance:
        z = (mean - float(expected)) / math.sqrt(variance / blocks)
    else:  # one possible length: any other mean is certain
        z = 0.0 if mean == expected else math.copysign(math.inf, mean - expected)
    low, high = float(norm.cdf(z)), float(norm.sf(z))
    data = {
        "first_blocks": blocks,
        "mean_tokens": mean,
        "lengths": {str(n): c for n, c in sorted(lengths.items())},
        "speculative_mean": fraction_text(expected),
        "speculative_mean_decimal": float(expected),
        "speculative_law": {str(n): fraction_text(m) for n, m in law.items()},
        "p_value_fewer": low,
        "wasteful": low < false_alarm,
        "more": high < false_alarm,
    }
    notes = []
    if data["wasteful"]:
        notes.append(
            f"correct but wasteful: its first blocks commit {mean:.4f} tokens on average ({blocks:,} blocks) where "
            f"speculative sampling's rule commits {fraction_text(expected)} ({float(expected):.4g}) from the same "
            f"drafts (one-sided p = {low:.3g}); each draft thrown away is a token the target must produce alone"
        )
    elif data["more"]:
        notes.append(
            f"its first blocks commit {mean:.4f} tokens on average ({blocks:,} blocks), more than speculative "
            f"sampling's token-by-token rule ({float(expected):.4g}); a lossless rule can (block verification "
            "judges the drafts together)"
        )
    return data, notes
