"""Correct multi-candidate verifiers and a tree sampler in numpy, in the shapes ``python -m lab check`` calls.

    python -m lab check examples/multi_draft_numpy.py:with_replacement      # every case passes (exit 0)
    python -m lab check examples/multi_draft_numpy.py:without_replacement   # every case passes (exit 0)
    python -m lab check examples/multi_draft_numpy.py:top_k                 # every case passes (exit 0)
    python -m lab check examples/multi_draft_numpy.py:tree                  # a token tree of widths (2, 2): passes

A verifier ``verify(p, q, candidates, rng)`` gets the target p and the draft q over the whole vocabulary, the K
candidates the check drew by ``verify.rule``, and a ``numpy.random.Generator``. It tests them in order, each
against the residual the last rejection left, and returns ``(token, kept_index)``: the kept candidate's index, or
None when every candidate was rejected and the token is the correction, one fresh draw from the last residual.

A tree sampler is a block sampler ``block(target, draft, prefix, k, rng)`` that declares ``block.tree``, its
widths by depth: here each depth's children are drafted by a rule and verified by the same functions, the kept
child's own children next, until a rejection (the correction ends the block) or a kept leaf (one bonus token).
"""

import numpy as np
from correct_numpy import draw


def _rejected(target, draft):
    """The next target after a rejection, max(0, target − draft) / Z; Z = 0 means the rejection came from
    rounding (a candidate with target ≥ draft is always kept): say so, never divide 0 by 0."""
    excess = np.maximum(target - draft, 0)
    z = excess.sum()
    if z == 0:
        raise FloatingPointError("rejected while Z = 0")
    return excess / z


def with_replacement(p, q, candidates, rng):
    """SpecInfer's rule: K independent draws from q; candidate i is kept with probability min(1, pᵢ(x)/q(x))."""
    target = p
    for i, x in enumerate(candidates):
        if rng.random() * q[x] < target[x]:  # u < pᵢ(x)/q(x), without dividing
            return int(x), i
        target = _rejected(target, q)
    return draw(target, rng.random()), None


with_replacement.rule = "with-replacement"


def without_replacement(p, q, candidates, rng):
    """K distinct draws, each from q without the earlier candidates: each is tested with the draft that proposed it,
    which then loses the rejected token."""
    target, proposer = p, q
    for i, x in enumerate(candidates):
        if rng.random() * proposer[x] < target[x]:
            return int(x), i
        target = _rejected(target, proposer)
        if i + 1 < len(candidates):
            proposer = proposer.copy()
            proposer[x] = 0
            proposer = proposer / proposer.sum()
    return draw(target, rng.random()), None


without_replacement.rule = "without-replacement"


def top_k(p, q, candidates, rng):
    """EAGLE-2/3's rule: q's K most likely tokens, each a one-hot draft (chosen, not drawn): kept with
    probability pᵢ(c); on rejection pᵢ₊₁ is pᵢ without c, renormalised."""
    target = p
    for i, c in enumerate(candidates):
        if rng.random() < target[c]:
            return int(c), i
        target = target.copy()
        target[c] = 0
        total = target.sum()
        if total == 0:
            raise FloatingPointError("rejected a candidate of probability 1")
        target = target / total
    return draw(target, rng.random()), None


top_k.rule = "top-k"


def draft_candidates(q, count, rule, rng):
    """``count`` candidates from the draft q by ``rule`` (what the check does for a verifier)."""
    if rule == "top-k":
        return np.argsort(-q, kind="stable")[:count]
    if rule == "with-replacement":
        return np.array([draw(q, rng.random()) for _ in range(count)])
    left, out = q.copy(), []
    for _ in range(count):
        x = draw(left, rng.random())
        out.append(x)
        left[x] = 0
    return np.array(out)


def tree_sampler(verify, widths, name):
    """A tree sampler of ``widths`` (children per depth) verifying each node with ``verify`` (and its rule)."""

    def block(target, draft, prefix, k, rng):
        """One block: at each depth draft the children of the last kept token and verify them; a rejection of every
        child ends the block with the correction, a kept stop token ends the output, a kept leaf earns a bonus
        token drawn from the target."""
        context, committed = list(prefix), []
        for width in widths:
            p, q = target(context), draft(context)
            token, kept = verify(p, q, draft_candidates(q, width, verify.rule, rng), rng)
            committed.append(token)
            if kept is None or token == target.stop:
                return committed
            context.append(token)
        committed.append(draw(target(context), rng.random()))  # the bonus token
        return committed

    block.tree, block.rule = tuple(widths), verify.rule
    block.__name__ = block.__qualname__ = name
    block.backend = f"numpy {np.__version__}"
    return block


tree = tree_sampler(top_k, (2, 2), "tree")  # EAGLE-2/3's shape: top-k children, two levels

EXPECTED_VERDICT = {"exit": 0}
