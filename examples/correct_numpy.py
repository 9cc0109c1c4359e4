"""A correct speculative sampler in numpy, in the shape ``python -m lab check`` calls.

    python -m lab check examples/correct_numpy.py:step     # expected verdict: every case passes (exit 0)
    python -m lab check examples/correct_numpy.py:block    # the block sampler: every case passes (exit 0)

The check hands ``step`` the target p and the draft q as numpy float arrays over the whole vocabulary
(read-only: the p and q used for proposing must be the ones checked) and a ``numpy.random.Generator``;
it counts the returned token indices against the exact law. Returning ``(token, residual)`` instead
(``residual`` None when the proposal was kept) lets the check test the residual too.

A PyTorch (or JAX) sampler plugs in the same way: convert at the boundary, e.g.

    def step(p, q, rng):
        p_t = torch.from_numpy(p).to(device, dtype)      # numpy -> torch, once, at the boundary
        q_t = torch.from_numpy(q).to(device, dtype)
        token, r_t = my_torch_sampler(p_t, q_t, generator)  # your code, unchanged
        return int(token), (None if r_t is None else r_t.cpu().numpy())   # torch -> numpy for the check
    step.backend = f"torch {torch.__version__} {device}"   # stated in the report
    step.dtype = "float32"

(seed a ``torch.Generator`` from ``rng.integers(2**63)`` so the check's fixed seeds stay in charge).
"""

import numpy as np


def draw(weights, u):
    """Inverse CDF of nonnegative weights at u in [0, 1): tokens of zero weight are never drawn."""
    cdf = np.cumsum(weights)
    i = int(cdf.searchsorted(u * cdf[-1], side="right"))
    if i == len(cdf):  # u * total rounded up to the total: the last token with positive weight
        i = int(np.flatnonzero(weights)[-1])
    return i


def residual(p, q):
    """r = max(0, p - q) / Z over the whole vocabulary, or None when Z = 0 (no rejection branch:
    0/0 is never evaluated and no floor is added)."""
    excess = np.maximum(p - q, 0)
    z = excess.sum()
    if z == 0:
        return None
    return excess / z


def step(p, q, rng):
    """One speculative step: propose from q, keep with probability min(1, p/q), else a fresh draw from r."""
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:  # u < p(x)/q(x), without dividing
        return x, None
    r = residual(p, q)
    if r is None:  # rounding made the test reject although Z = 0: investigate, never floor
        raise FloatingPointError("rejected while Z = 0")
    return draw(r, rng.random()), r


step.residual = residual  # optional: lets the check run the residual alone on tiny-Z inputs
step.backend = f"numpy {np.__version__}"


def block(target, draft, prefix, k, rng):
    """One block: k drafts from q, tested left to right; the first rejection ends the block.

    ``target.stop`` is the stop token's index (None: the model never stops): nothing is drafted after a
    proposed stop token, and a kept or corrected stop token ends the output (no bonus token)."""
    stop = getattr(target, "stop", None)
    drafts = []
    context = tuple(prefix)
    for _ in range(k):  # the draft runs ahead on its own tokens
        x = draw(draft(context), rng.random())
        drafts.append(x)
        context += (x,)
        if x == stop:
            break
    committed = []
    history = tuple(prefix)
    for x in drafts:
        p, q = target(history), draft(history)
        if rng.random() * q[x] < p[x]:
            committed.append(x)
            history += (x,)
            if x == stop:
                return committed  # the output is complete
            continue
        r = residual(p, q)
        if r is None:
            raise FloatingPointError("rejected while Z = 0")
        committed.append(draw(r, rng.random()))
        return committed  # later drafts assumed the rejected token: discarded
    committed.append(draw(target(history), rng.random()))  # every draft kept: a bonus token from p
    return committed


block.backend = step.backend
