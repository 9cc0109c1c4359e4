"""Multi-candidate verifiers with one mistake each: ``python -m lab check`` fails them and names the mistake.

    python -m lab check examples/multi_draft_mistakes.py:no_update     # fails; named no-update

Each function is a correct verifier of examples/multi_draft_numpy.py with one line changed, the way the mistake
was written or argued (docs/several-drafts.md has each mistake's story). ``EXPECTED_VERDICTS`` says, per function,
the exit status and the name the check gives; ``eager_residual`` forms every residual before it is needed, so it
divides 0 by 0 where a middle stage has Z = 0, and fails there by that.
"""

import math

import numpy as np
from correct_numpy import draw
from multi_draft_numpy import _rejected, tree_sampler

THRESHOLD = 0.5  # SGLang's threshold_acc / threshold_single set below 1
TYPICAL_EPSILON, TYPICAL_DELTA = 0.09, 0.3  # Medusa's defaults


def no_update(p, q, candidates, rng):
    """Every candidate tested against p itself: the residual is never updated between candidates."""
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < p[x]:
            return int(x), i
    return draw(_rejected(p, q), rng.random()), None


no_update.rule = "with-replacement"


def skip_duplicates(p, q, candidates, rng):
    """A candidate equal to one already rejected is skipped (with replacement it must be tested again)."""
    target, seen = p, set()
    for i, x in enumerate(candidates):
        if int(x) in seen:
            continue
        seen.add(int(x))
        if rng.random() * q[x] < target[x]:
            return int(x), i
        target = _rejected(target, q)
    return draw(target, rng.random()), None


skip_duplicates.rule = "with-replacement"


def correction_from_candidates(p, q, candidates, rng):
    """All rejected: the replacement comes from p on the candidates only, not from the last residual."""
    target = p
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < target[x]:
            return int(x), i
        target = _rejected(target, q)
    on = np.zeros_like(p)
    on[candidates] = p[candidates]
    return draw(on if on.sum() else target, rng.random()), None


correction_from_candidates.rule = "with-replacement"


def last_residual_only(p, q, candidates, rng):
    """All rejected: the replacement comes from max(0, p − q)/Z of the original p, forgetting the earlier residuals."""
    target = p
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < target[x]:
            return int(x), i
        target = _rejected(target, q)
    return draw(_rejected(p, q), rng.random()), None


last_residual_only.rule = "with-replacement"


def stale_draft(p, q, candidates, rng):
    """Drawn without replacement, but tested (and residuals formed) with the original q."""
    target = p
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < target[x]:
            return int(x), i
        target = _rejected(target, q)
    return draw(target, rng.random()), None


stale_draft.rule = "without-replacement"


def top_k_with_q(p, q, candidates, rng):
    """q's top-k tokens tested with min(1, p/q) and residuals max(0, p − q), as if they had been drawn from q: the
    code of stale_draft, a mistake again for chosen candidates (each is a one-hot draft)."""
    return stale_draft(p, q, candidates, rng)


top_k_with_q.rule = "top-k"


def threshold_acc(p, q, candidates, rng):
    """SGLang's one coin per node: sibling j is kept when coin <= (p(c1) + ... + p(cj)) / threshold_acc, here 1/2."""
    coin, taken = rng.random(), 0.0
    for i, c in enumerate(candidates):
        taken += p[c]
        if coin <= taken / THRESHOLD:
            return int(c), i
    rest = p.copy()
    rest[candidates] = 0
    return draw(rest, rng.random()), None


threshold_acc.rule = "top-k"


def threshold_single(p, q, candidates, rng):
    """SGLang's second threshold: a sibling whose target probability is at least threshold_single (1/2) is kept."""
    coin, taken = rng.random(), 0.0
    for i, c in enumerate(candidates):
        taken += p[c]
        if p[c] >= THRESHOLD or coin <= taken:
            return int(c), i
    rest = p.copy()
    rest[candidates] = 0
    return draw(rest, rng.random()), None


threshold_single.rule = "top-k"


def typical_acceptance(p, q, candidates, rng):
    """Medusa: a candidate is kept when p(x) > min(epsilon, delta · exp(−H(p))); else the output is drawn from p."""
    entropy = -sum(float(v) * math.log(float(v)) for v in p if v > 0)
    bar = min(TYPICAL_EPSILON, TYPICAL_DELTA * math.exp(-entropy))
    for i, c in enumerate(candidates):
        if p[c] > bar:
            return int(c), i
    return draw(p, rng.random()), None


typical_acceptance.rule = "top-k"


def floored(p, q, candidates, rng):
    """Every residual floored: max(target − q, 1e-3) normalised, so tokens the target never gives get mass."""
    target = p
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < target[x]:
            return int(x), i
        excess = np.maximum(target - q, 1e-3)
        target = excess / excess.sum()
    return draw(target, rng.random()), None


floored.rule = "with-replacement"


def eager_residual(p, q, candidates, rng):
    """Correct law, but every residual is formed before it is needed: where a stage has Z = 0 (the draft left
    equals the target left, so its candidate is always kept) it divides 0 by 0, a NaN the rule never uses."""
    targets, proposers = [p], [q]
    for i, x in enumerate(candidates):
        excess = np.maximum(targets[i] - proposers[i], 0)
        targets.append(excess / excess.sum())  # 0/0 where Z = 0
        if i + 1 < len(candidates):
            proposer = proposers[i].copy()
            proposer[x] = 0
            proposers.append(proposer / proposer.sum())
    for i, x in enumerate(candidates):
        if rng.random() * proposers[i][x] < targets[i][x]:
            return int(x), i
    return draw(targets[-1], rng.random()), None


eager_residual.rule = "without-replacement"

# a token tree of widths (2, 2) whose nodes test q's top-k tokens with q: fails on the Markov models, named
tree_top_k_with_q = tree_sampler(top_k_with_q, (2, 2), "tree_top_k_with_q")

EXPECTED_VERDICTS = {
    name: {"exit": 1, "identified_as": name.replace("_", "-")}
    for name in (
        "no_update",
        "skip_duplicates",
        "correction_from_candidates",
        "last_residual_only",
        "stale_draft",
        "top_k_with_q",
        "threshold_acc",
        "threshold_single",
        "typical_acceptance",
    )
} | {
    "tree_top_k_with_q": {"exit": 1, "identified_as": "top-k-with-q"},
    "floored": {"exit": 1, "identified_as": "epsilon-floor 1e-3"},
    "eager_residual": {"exit": 1, "fails_with_0/0": ["zero-in-the-middle-K2", "zero-in-the-middle-K3"]},
}

# Each mistake is a bias of TV 0.05 or more where it shows: the check looks for that (TV 0.01 by default, 25 times
# the draws; --tv overrides this).
for _verifier in (no_update, skip_duplicates, correction_from_candidates, last_residual_only, stale_draft,
                  top_k_with_q, threshold_acc, threshold_single, typical_acceptance, floored, eager_residual,
                  tree_top_k_with_q):
    _verifier.tv = 0.05
