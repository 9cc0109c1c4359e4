"""An enumerator of several drafts written apart from lab/core/drafts.py: it walks every ordered tuple of
candidates the way a verifier runs (draw, test, update), with plain lists of Fractions, no stages, no memo.

``reference_node(p, q, k, rule, variant)`` returns (law, acceptance); ``reference_best(p, q, k, rule)`` returns
α* by trying every token set H against the law of candidate tuples; ``reference_tree(model, widths, length)``
unrolls tree blocks recursively into the law of the first ``length`` tokens.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

ZERO, ONE = Fraction(0), Fraction(1)


def _norm(values):
    s = sum(values)
    return [v / s for v in values]


def _pos_part(p, q):
    return [max(a - b, ZERO) for a, b in zip(p, q)]


def _topk(q, k):
    order = list(range(len(q)))
    order.sort(key=lambda i: (-q[i], i))
    return order[:k]


def _tuples(q, k, rule):
    """Every ordered tuple of candidates with its probability."""
    n = len(q)
    if rule == "top-k":
        yield tuple(_topk(q, k)), ONE
        return
    for combo in itertools.product(range(n), repeat=k):
        if rule == "without-replacement" and len(set(combo)) < k:
            continue
        prob, left = ONE, ONE
        removed = set()
        for x in combo:
            if rule == "without-replacement":
                prob *= q[x] / left if left else ZERO
                left -= q[x]
                removed.add(x)
            else:
                prob *= q[x]
        if prob:
            yield combo, prob


def reference_node(p, q, k, rule, variant="correct"):
    """Walk each candidate tuple: test in order, keep or update, then correct."""
    n = len(p)
    law = [ZERO] * n
    accepted = ZERO
    for combo, prob in _tuples(q, k, rule):
        out, acc = _walk(list(p), list(q), combo, rule, variant)
        for y in range(n):
            law[y] += prob * out[y]
        accepted += prob * acc
    return law, accepted


def _walk(p, q, combo, rule, variant):
    """The output law given the candidates ``combo`` (the coins integrated out), and P(some kept)."""
    n = len(p)
    if variant in ("threshold-acc", "threshold-single"):
        return _coin_walk(p, combo, variant)
    if variant == "typical-acceptance":
        h = -sum(float(v) * math.log(float(v)) for v in p if v)
        limit = min(0.09, 0.3 * math.exp(-h))
        for c in combo:
            if float(p[c]) > limit:
                return [ONE if i == c else ZERO for i in range(n)], ONE
        return list(p), ZERO
    out = [ZERO] * n
    live = ONE  # probability that every candidate so far was rejected
    cur_p, cur_q = list(p), list(q)
    rejected = []
    last_draft = None
    for c in combo:
        if rule == "top-k":
            draft = [ONE if i == c else ZERO for i in range(n)]
        elif rule == "without-replacement":
            draft = cur_q
        else:
            draft = q
        if variant == "skip-duplicates" and c in rejected:
            continue
        test_p = p if variant == "no-update" else cur_p
        test_q = draft
        if variant in ("stale-draft", "top-k-with-q"):
            test_q = q
        keep = ONE if test_q[c] == 0 else min(ONE, test_p[c] / test_q[c])
        out[c] += live * keep
        live *= 1 - keep
        if live == 0:
            return out, sum(out)
        rejected.append(c)
        last_draft = draft
        cur_p = _norm(_pos_part(test_p, test_q))
        left = [ZERO if i == c else v for i, v in enumerate(cur_q)]
        if rule == "without-replacement" and any(left):  # nothing left only after the last candidate
            cur_q = _norm(left)
    kept = sum(out)
    if variant == "no-update":
        final = _norm(_pos_part(p, q))
    elif variant == "correction-from-candidates":
        on = [v if i in combo else ZERO for i, v in enumerate(p)]
        final = _norm(on) if any(on) else cur_p
    elif variant == "last-residual-only":
        part = _pos_part(p, last_draft)
        final = _norm(part) if any(part) else cur_p
    else:
        final = cur_p
    for y in range(n):
        out[y] += live * final[y]
    return out, kept


def _coin_walk(p, combo, variant):
    """SGLang's one coin: split [0, 1] at every breakpoint and ask each piece which sibling it keeps."""
    n = len(p)
    theta_acc = Fraction(1, 2) if variant == "threshold-acc" else ONE
    theta_single = Fraction(1, 2) if variant == "threshold-single" else ONE
    sums = list(itertools.accumulate(p[c] for c in combo))
    cuts = sorted({ZERO, ONE, *(min(ONE, s / theta_acc) for s in sums)})
    out = [ZERO] * n
    kept = ZERO
    rest = (
        _norm([ZERO if i in combo else v for i, v in enumerate(p)])
        if any(v for i, v in enumerate(p) if i not in combo)
        else None
    )
    for lo, hi in zip(cuts, cuts[1:]):
        u = (lo + hi) / 2
        for c, s in zip(combo, sums):
            if u <= s / theta_acc or p[c] >= theta_single:
                out[c] += hi - lo
                kept += hi - lo
                break
        else:
            for y in range(n):
                out[y] += (hi - lo) * rest[y]
    return out, kept


def reference_best(p, q, k, rule):
    """min over every token set H of p(H) + P(some candidate is not in H)."""
    n = len(p)
    tuples = list(_tuples(q, k, rule))
    best = None
    for size in range(n + 1):
        for h in itertools.combinations(range(n), size):
            hs = set(h)
            outside = sum((prob for combo, prob in tuples if not set(combo) <= hs), ZERO)
            value = sum((p[i] for i in h), ZERO) + outside
            best = value if best is None or value < best else best
    return best


def reference_tree(model, widths, length, rule):
    """The law of the first ``length`` tokens, unrolling tree blocks (correct rule): each node's output law by
    :func:`reference_node`, split into kept and corrected by re-walking with the correction removed."""
    from lab.core.markov import START

    def node_parts(t, width):
        p, q = model.p(t), model.q(t)
        n = len(p)
        kept = [ZERO] * n
        total = [ZERO] * n
        for combo, prob in _tuples(q, width, rule):
            out, _ = _walk(list(p), list(q), combo, rule, "correct")
            only_kept, _ = _kept_only(list(p), list(q), combo, rule)
            for y in range(n):
                total[y] += prob * out[y]
                kept[y] += prob * only_kept[y]
        return kept, [a - b for a, b in zip(total, kept)]

    law: dict[tuple[int, ...], Fraction] = {}

    def grow(prefix, prob, t, depth):
        if len(prefix) == length or (prefix and prefix[-1] == model.stop):
            law[prefix] = law.get(prefix, ZERO) + prob
            return
        if depth == len(widths):
            for y, v in enumerate(model.p(t)):
                if v:
                    grow(prefix + (y,), prob * v, y, 0)
            return
        kept, corrected = node_parts(t, widths[depth])
        for y in range(len(kept)):
            if kept[y]:
                grow(prefix + (y,), prob * kept[y], y, depth + 1)
            if corrected[y]:
                grow(prefix + (y,), prob * corrected[y], y, 0)

    grow((), ONE, START, 0)
    return {k: v for k, v in law.items() if v}


def _kept_only(p, q, combo, rule):
    """The kept part of :func:`_walk` (correct rule): the mass each candidate is kept with."""
    n = len(p)
    out = [ZERO] * n
    live = ONE
    cur_p, cur_q = list(p), list(q)
    for c in combo:
        draft = (
            [ONE if i == c else ZERO for i in range(n)]
            if rule == "top-k"
            else (cur_q if rule == "without-replacement" else q)
        )
        keep = ONE if draft[c] == 0 else min(ONE, cur_p[c] / draft[c])
        out[c] += live * keep
        live *= 1 - keep
        if live == 0:
            break
        cur_p = _norm(_pos_part(cur_p, draft))
        left = [ZERO if i == c else v for i, v in enumerate(cur_q)]
        if rule == "without-replacement" and any(left):
            cur_q = _norm(left)
    return out, sum(out)
