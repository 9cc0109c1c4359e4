"""A deliberately WRONG block sampler: it keeps testing the drafts after a rejection.

    python -m lab check examples/keep_testing.py:block      # expected verdict: FAIL (exit 1)

After the first rejection the replacement is committed, but the later drafts - made by the draft model
after the rejected token - are still tested, as if they followed the corrected prefix. Each one-step
rule is right, yet the law of the committed text is not the target's; the check fails every Markov
model (the two that stop too) and names the mistake: keep-testing-after-rejection.
"""

import numpy as np
from correct_numpy import draw, residual

EXPECTED_VERDICT = {
    "exit": 1,
    "fails": [
        "markov-ab-end-K2-L3",
        "markov-draft-misses-K2-L2",
        "markov-sentences-end-K2-L3",
        "markov-three-K2-L2",
        "markov-tiny-sentences-K2-L2",
    ],
    "identified_as": "keep-testing-after-rejection",
}


def block(target, draft, prefix, k, rng):
    stop = getattr(target, "stop", None)  # the stop token is handled right: the mistake is elsewhere
    drafts = []
    context = tuple(prefix)
    for _ in range(k):
        x = draw(draft(context), rng.random())
        drafts.append(x)
        context += (x,)
        if x == stop:
            break
    committed = []
    history = tuple(prefix)
    rejected = False
    for x in drafts:  # the mistake: no `break` after a rejection
        p, q = target(history), draft(history)
        if q[x] > 0 and rng.random() * q[x] < p[x] or q[x] == 0 and p[x] > 0:
            committed.append(x)
        else:
            r = residual(p, q)
            if r is None:  # a draft the row cannot produce, tested where p = q: this code falls back to p
                r = p
            committed.append(draw(r, rng.random()))
            rejected = True
        if committed[-1] == stop:
            return committed  # the output is complete
        history = tuple(prefix) + tuple(committed)
    if not rejected:
        committed.append(draw(target(history), rng.random()))
    return committed


block.backend = f"numpy {np.__version__}"
