"""Reference answers for the exercise tests, derived from the sampling procedure, not from lab's formulas."""

from fractions import Fraction as F

UNDEFINED = "undefined"


def sampler_law(p, q):
    """Independent derivation from the sampling procedure itself (not from min/max formulas):
    q proposes x, it is kept with probability min(1, p(x)/q(x)); the output law must be p, so the
    rejection branch has to supply p(x) - P(x proposed and kept). Returns (alpha, Z, Z*r, r or None)."""
    kept = [qx * min(F(1), px / qx) if qx else F(0) for px, qx in zip(p, q)]
    alpha = sum(kept, F(0))
    z = 1 - alpha
    supplied = [px - k for px, k in zip(p, kept)]
    r = [s / z for s in supplied] if z else None
    return alpha, z, supplied, r


def expected_answer(problem):
    alpha, z, supplied, r = sampler_law(problem.p.values, problem.q.values)
    if problem.kind == "alpha":
        return alpha
    if problem.kind == "z":
        return z
    if problem.kind == "branch":
        return "rejection" if z else "no-rejection"
    i = problem.p.tokens.index(problem.token)
    if problem.kind == "r":
        return UNDEFINED if r is None else r[i]
    if problem.kind == "second":
        # the second of two candidates from q must supply what the first left, r, as one draft supplies p:
        # kept with probability min(1, r(x)/q(x))
        return min(F(1), r[i] / problem.q.values[i])
    return supplied[i]
