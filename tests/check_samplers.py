"""Small samplers the check's tests run: each does one thing wrong (or right) on purpose."""

import numpy as np


def draw(weights, u):
    cdf = np.cumsum(weights)
    i = int(cdf.searchsorted(u * cdf[-1], side="right"))
    return min(i, int(np.flatnonzero(weights)[-1]))


def nan_at_zero(p, q, rng):
    """Right law, but the residual is formed before the branch: 0/0 (numpy invalid value) when Z = 0."""
    excess = np.maximum(p - q, 0)
    r = excess / excess.sum()  # evaluated even when Z = 0
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x
    return draw(r, rng.random())


def nan_residual_returned(p, q, rng):
    """Returns its residual even when the proposal was kept, silencing numpy: a NaN reaches the output."""
    excess = np.maximum(p - q, 0)
    with np.errstate(invalid="ignore"):
        r = excess / excess.sum()
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x, r
    return draw(r, rng.random()), r


def raises_at_zero(p, q, rng):
    """Python floats: dividing by Z = 0 raises ZeroDivisionError."""
    z = float(sum(max(a - b, 0.0) for a, b in zip(p, q)))
    scale = 1.0 / z
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x
    return draw(np.maximum(p - q, 0) * scale, rng.random())


def one_minus_alpha(p, q, rng):
    """Normalises the residual by 1 - sum(min(p, q)) instead of sum(max(0, p - q)): equal exactly, but
    the subtraction cancels catastrophically when Z is tiny."""
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x, None
    r = residual_one_minus_alpha(p, q)
    return draw(r, rng.random()), r


def residual_one_minus_alpha(p, q):
    z = 1.0 - np.minimum(p, q).sum(dtype=p.dtype)
    if z <= 0:
        return None
    return np.maximum(p - q, 0) / p.dtype.type(z)


one_minus_alpha.residual = residual_one_minus_alpha


def returns_float(p, q, rng):
    return 0.0


def returns_out_of_range(p, q, rng):
    return len(p)


def mutates_inputs(p, q, rng):
    q[0] = 1.0  # the arrays are read-only: numpy raises ValueError
    return 0


def slow(p, q, rng):
    import time

    time.sleep(0.002)
    return draw(p, rng.random())


def hangs(p, q, rng):
    while True:  # never returns: only the alarm past the time limit ends it
        pass


def target_sampler(p, q, rng):
    """Samples p directly: the right law with no speculation at all (passes every law case)."""
    return draw(p, rng.random())


def make_biased(tv: float):
    """On equal-distributions (p = (1/2, 1/3, 1/6)): the worst-case alternative at TV = tv, moving tv from
    B and C (half of p's mass, proportionally) to A; everywhere else the target itself."""

    def biased(p, q, rng):
        u = rng.random()
        a = float(p[0])
        if abs(a - 0.5) < 1e-12 and abs(float(p[1]) - 1 / 3) < 1e-12:
            if u < a + tv:
                return 0
            return 1 if (u - a - tv) < (1 - a - tv) * 2 / 3 else 2
        return draw(p, u)

    return biased


def nan_block(target, draft, prefix, k, rng):
    """A block sampler forming 0/0 on the rows where p = q (after d in markov-draft-misses)."""
    p, q = target(prefix), draft(prefix)
    excess = np.maximum(p - q, 0)
    r = excess / excess.sum()
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return [x]
    return [draw(r, rng.random())]


def commits_nothing(target, draft, prefix, k, rng):
    return []


def floored(floor: float, dtype=np.float32):
    """vLLM's residual: clamp(p - q, min=floor) / sum on every token, always formed (also at Z = 0, where
    it is never used), computed in ``dtype``; returns the residual it used on a rejection."""

    def residual(p, q):
        excess = np.maximum(np.asarray(p, dtype) - np.asarray(q, dtype), dtype(floor))
        return excess / excess.sum()

    def step(p, q, rng):
        r = residual(p, q)  # formed on every call, as vLLM does, and masked when the draft is kept
        x = draw(q, rng.random())
        if rng.random() * q[x] < p[x]:
            return x, None
        return draw(r, rng.random()), r

    step.residual = residual
    return step


tiny_floor = floored(float(np.finfo(np.float32).tiny))
milli_floor = floored(1e-3, np.float64)


def keeps_on_less_or_equal(p, q, rng):
    """Keeps the draft on u <= p/q: right for every u > 0, but at u = 0 it keeps a token with p = 0."""
    x = draw(q, rng.random())
    if rng.random() <= p[x] / q[x]:
        return x
    excess = np.maximum(p - q, 0)
    return draw(excess / excess.sum(), rng.random())


def keeps_on_less_or_equal_flagged(p, q, rng):
    """u <= p/q as above, but says what it did: (token, None) when kept, (token, residual) when not."""
    x = draw(q, rng.random())
    if rng.random() <= p[x] / q[x]:
        return x, None
    excess = np.maximum(p - q, 0)
    r = excess / excess.sum()
    return draw(r, rng.random()), r


def softmaxed_residual(p, q, rng):
    """transformers PR #28508's mistake: the residual softmaxed (every token gets mass, those with p = 0
    too), kept on u < p/q; a token alone comes back."""
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x
    excess = np.maximum(p - q, 0)
    r = np.exp(excess) / np.exp(excess).sum()
    return draw(r, rng.random())


def sample_and_match(p, q, rng):
    """Right law, wasteful: draw x from q and y from p, keep the draft when they match, return y either way
    (mlx-swift-lm #459's sample-and-match). It keeps Σ p·q of its drafts, not Σ min(p, q)."""
    x = draw(q, rng.random())
    y = draw(p, rng.random())
    return y, bool(x == y)


def claims_every_draft_kept(p, q, rng):
    """The right rule, with a wrong kept flag: says True on every call."""
    x = draw(q, rng.random())
    if rng.random() * q[x] < p[x]:
        return x, True
    excess = np.maximum(p - q, 0)
    return draw(excess / excess.sum(), rng.random()), True


def _processed(raw, processing):
    """Temperature, then top-k, then top-p (drop the tokens whose ascending cumulative mass is <= 1 - top_p),
    in float64, as generate() applies its warpers."""
    with np.errstate(divide="ignore"):
        logits = np.log(raw) / processing["temperature"]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    probs[order[processing["top_k"]:]] = 0
    probs /= probs.sum()
    ascending = np.argsort(probs, kind="stable")
    ascending = ascending[probs[ascending] > 0]
    cumulative = np.cumsum(probs[ascending])
    drop = ascending[:-1][cumulative[:-1] <= 1 - processing["top_p"] + 1e-12]
    probs[drop] = 0
    return probs / probs.sum()


def raw_draft_q(p_raw, q_raw, rng, processing):
    """transformers #47932's mistake: drafts drawn from the processed q, but the acceptance test and the
    residual read the draft's raw q (before temperature, top-k, top-p)."""
    p, q = _processed(p_raw, processing), _processed(q_raw, processing)
    x = draw(q, rng.random())
    if rng.random() * q_raw[x] < p[x]:
        return x, None
    excess = np.maximum(p - q_raw, 0)
    r = excess / excess.sum()
    return draw(r, rng.random()), r


raw_draft_q.processing = True


def _processed_block(target, draft, prefix, k, rng, processing, raw_test: bool):
    """One block on raw rows: the drafts come from the processed q, each is tested against the processed p; with
    ``raw_test`` the test and the residual read the draft's raw q instead (#47932 in a block)."""
    stop = getattr(target, "stop", None)
    drafts, rows, context = [], [], tuple(prefix)
    for _ in range(k):
        raw = draft(context)
        q = _processed(raw, processing)
        x = draw(q, rng.random())
        drafts.append(x)
        rows.append(raw if raw_test else q)
        context += (x,)
        if x == stop:
            break
    committed, history = [], tuple(prefix)
    for x, q in zip(drafts, rows):
        p = _processed(target(history), processing)
        if rng.random() * q[x] < p[x]:
            committed.append(x)
            history += (x,)
            if x == stop:
                return committed
            continue
        excess = np.maximum(p - q, 0)
        committed.append(draw(excess / excess.sum(), rng.random()))
        return committed
    committed.append(draw(_processed(target(history), processing), rng.random()))
    return committed


def processed_block(target, draft, prefix, k, rng, processing):
    return _processed_block(target, draft, prefix, k, rng, processing, raw_test=False)


def raw_draft_q_block(target, draft, prefix, k, rng, processing):
    return _processed_block(target, draft, prefix, k, rng, processing, raw_test=True)


def unprocessed_block(target, draft, prefix, k, rng, processing):
    """Takes the processing and ignores it: the raw target's law."""
    return _processed_block(target, draft, prefix, k, rng, {"temperature": 1.0, "top_k": len(target(())),
                                                            "top_p": 1.0}, raw_test=False)


def _processed_loop(target, draft, prefix, max_new, rng, processing, raw_test: bool):
    """A whole-generation loop of processed blocks (K = 2) until max_new tokens or the stop token."""
    out = list(prefix)
    stop = getattr(target, "stop", None)
    while len(out) < max_new and not (out and out[-1] == stop):
        out += _processed_block(target, draft, tuple(out), 2, rng, processing, raw_test)
    return out


def processed_generate(target, draft, prefix, max_new, rng, processing):
    return _processed_loop(target, draft, prefix, max_new, rng, processing, raw_test=False)


def raw_draft_q_generate(target, draft, prefix, max_new, rng, processing):
    return _processed_loop(target, draft, prefix, max_new, rng, processing, raw_test=True)


for _sampler in (processed_block, raw_draft_q_block, unprocessed_block, processed_generate, raw_draft_q_generate):
    _sampler.processing = True


def sample_and_match_block(target, draft, prefix, k, rng):
    """Blocks by sample-and-match (mlx-swift-lm #459 in blocks): at each position the target draws its own token y;
    the draft's x is kept only when y == x, else y is committed and the block ends. The law is the target's (every
    committed token is the target's own draw), but it keeps a draft with probability Σ p·q, not Σ min(p, q)."""
    stop = getattr(target, "stop", None)
    drafts, context = [], tuple(prefix)
    for _ in range(k):
        x = draw(draft(context), rng.random())
        drafts.append(x)
        context += (x,)
        if x == stop:
            break
    committed, history = [], tuple(prefix)
    for x in drafts:
        y = draw(target(history), rng.random())
        committed.append(y)
        if y != x or y == stop:
            return committed
        history += (y,)
    committed.append(draw(target(history), rng.random()))
    return committed
