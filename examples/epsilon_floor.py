"""A deliberately WRONG step sampler: an epsilon floor on the residual.

    python -m lab check examples/epsilon_floor.py:step      # expected verdict: FAIL (exit 1)

"Never divide by zero" is the intent: every token's missing mass is floored at 1e-3 before normalising,
so Z is never 0. But the floor gives mass to tokens with p <= q, even to tokens the target never
produces: the output law is no longer p. Every residual it returns gives mass where p <= q, so the check
fails each case where rejections happen (and names the residual as epsilon-floor's); where the target
has zeros a draw lands on a token of probability 0 (an immediate fail) and the counts name the mistake
too. At Z = 0 (equal distributions) no proposal is ever rejected, so the floor never shows there.
"""

import numpy as np
from correct_numpy import draw

EPSILON = 1e-3

# What `python -m lab check` reports with its default settings (the test suite checks it).
EXPECTED_VERDICT = {
    "exit": 1,
    "fails": [
        "bernoulli-residual",
        "disjoint-support",
        "draft-misses-support",
        "eight-words",
        "one-hot-draft",
        "partial-zeros",
        "pet-words",
        "processed-target",
    ],
    "identified_as": "epsilon-floor",
}


def residual(p, q):
    excess = np.maximum(p - q, EPSILON)  # the mistake: a "safe" floor instead of the no-rejection branch
    return excess / excess.sum()


def step(p, q, rng):
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x, None
    r = residual(p, q)
    return draw(r, rng.random()), r


step.backend = f"numpy {np.__version__}"
