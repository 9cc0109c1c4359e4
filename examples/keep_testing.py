"""A deliberately WRONG block sampler: it keeps testing the drafts after a rejection.

    python -m lab check examples/keep_testing.py:block      # expected verdict: FAIL (exit 1)

After the first rejection the replacement is committed, but the later drafts - made by the draft model
after the rejected token - are still tested, as if they followed the corrected prefix. Each one-step
rule is right, yet the law of the committed text is not the target's; the check fails every Markov
model and names the mistake: keep-testing-after-rejection.
"""

import numpy as np
from correct_numpy import draw, residual

EXPECTED_VERDICT = {
    "exit": 1,
    "fails": ["markov-draft-misses-K2-L2", "markov-three-K2-L2", "markov-tiny-sentences-K2-L2"],
    "identified_as": "keep-testing-after-rejection",
}


def block(target, draft, prefix, k, rng):
    drafts = []
    context = tuple(prefix)
    for _ in range(k):
        x = draw(draft(context), rng.random())
        drafts.append(x)
        context += (x,)
    committed = []
    history = tuple(prefix)
    rejected = False
    for x in drafts:  # the mistake: no `break` after a rejection
        p, q = target(history), draft(history)
        if q[x] > 0 and rng.random() * q[x] < p[x] or q[x] == 0 and p[x] > 0:
            committed.append(x)
        else:
            committed.append(draw(residual(p, q), rng.random()))
            rejected = True
        history = tuple(prefix) + tuple(committed)
    if not rejected:
        committed.append(draw(target(history), rng.random()))
    return committed


block.backend = f"numpy {np.__version__}"
