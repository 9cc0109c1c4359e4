"""A deliberately WRONG step sampler: the residual over the draft's top candidates only.

    python -m lab check examples/candidates_only.py:step    # expected verdict: FAIL (exit 1)

Tree-style speculative decoders hold a few candidate tokens; this sampler renormalises the missing mass
max(0, p - q) over the draft's two most likely tokens instead of over the target's whole vocabulary.
Tokens outside the candidates can then only be produced by being proposed and kept, so their mass
falls short of p; the check fails those cases and names the mistake: candidates-only.
"""

import numpy as np
from correct_numpy import draw

CANDIDATES = 2

EXPECTED_VERDICT = {
    "exit": 1,
    "fails": [
        "bernoulli-residual",
        "draft-misses-support",
        "eight-words",
        "one-hot-draft",
        "partial-zeros",
        "pet-words",
        "processed-target",
    ],
    "identified_as": "candidates-only",
}


def residual(p, q):
    top = np.argsort(-q, kind="stable")[:CANDIDATES]  # the draft's favourites (ties: vocabulary order)
    top = top[q[top] > 0]
    weights = np.zeros_like(p)
    weights[top] = np.maximum(p[top] - q[top], 0)  # the mistake: only the candidates get the missing mass
    if weights.sum() == 0:  # no missing mass on the candidates: pick among them by p
        weights[top] = p[top]
    if weights.sum() == 0:
        weights = np.array(p)
    return weights / weights.sum()


def step(p, q, rng):
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x, None
    r = residual(p, q)
    return draw(r, rng.random()), r


step.backend = f"numpy {np.__version__}"
