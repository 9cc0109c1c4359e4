"""The correction ("residual") distribution of speculative sampling, exact and float64.

Accepted proposals give each token min(p, q); rejection happens with probability
Z = sum max(0, p - q) = 1 - alpha; on rejection a fresh draw from r = max(0, p - q) / Z replaces
the proposal, so min(p, q) + Z * r = p token by token. When Z = 0 there is no rejection branch and
r is not defined: it is reported as None, never computed as 0/0 and never floored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from lab.core.distributions import (
    Distribution,
    TokenMismatchError,
    check_float,
    check_same_tokens,
    from_pairs,
    parse_spec,
)
from lab.core.errors import said

FLOAT_DTYPE = np.float64
FLOAT64_EPS = float(np.finfo(np.float64).eps)  # 2**-52

# Stated tolerances of the float path (the exact identities hold with no tolerance at all):
# - reconstruction: |(min(p,q) + Z*r)(x) - p(x)| <= RECONSTRUCTION_RTOL * p(x) for every token,
#   because min is exact and Z*(d/Z) carries at most three roundings of d <= p;
# - residual: |r_float(x) - r_exact(x)| <= residual_rtol(n) * r_exact(x), where r_exact is the exact
#   residual of the same float64 inputs: one rounding in p - q, at most n - 1 in the sum, one in /.
# Both hold for values in float64's normal range (>= 2**-1022); a subnormal value's roundings are
# bounded in absolute terms instead (at most 2**-1075 each).
RECONSTRUCTION_RTOL = 4 * FLOAT64_EPS


def residual_rtol(vocabulary_size: int) -> float:
    return (vocabulary_size + 3) * FLOAT64_EPS


REJECTION = "rejection"
NO_REJECTION = "no-rejection"


@dataclass(frozen=True)
class ResidualResult:
    """Everything one residual computation shows, on either arithmetic path.

    Exact results hold tuples of Fractions; float results hold float64 numpy arrays (and
    ``tokens`` may be None for an anonymous vocabulary, labelled by index).
    """

    tokens: tuple[str, ...] | None
    p: Sequence
    q: Sequence
    accepted: Sequence  # min(p, q): the mass each token gets from kept proposals
    alpha: Fraction | float  # acceptance probability, sum of accepted
    z: Fraction | float  # rejection probability, sum max(0, p - q)
    residual: Sequence | None  # r = max(0, p - q) / z, None on the no-rejection branch
    exact: bool
    inconsistency: str | None = None  # float path only: branch disagreeing with the arithmetic

    @property
    def branch(self) -> str:
        return REJECTION if self.z > 0 else NO_REJECTION

    @property
    def arithmetic(self) -> str:
        """``exact``, or the float dtype the path ran in (``float64``, or ``float32`` on the Numerics page)."""
        return "exact" if self.exact else np.asarray(self.p).dtype.name

    @cached_property
    def rejection_probability(self):
        """What the acceptance test rejects: sum_x q(x) (1 - min(1, p(x)/q(x))), in the result's own
        arithmetic. Exactly it equals Z; a float path can disagree (the test rejects while Z = 0)."""
        if self.exact:
            return sum((b - min(a, b) for a, b in zip(self.p, self.q)), Fraction(0))
        one = self.q.dtype.type(1)
        with np.errstate(all="ignore"):
            return float((self.q * (one - acceptance_ratio(self.p, self.q))).sum(dtype=self.q.dtype))

    @property
    def one_minus_alpha(self):
        """1 - alpha, reported beside z as a consistency figure (equal to z on the exact path)."""
        return 1 - self.alpha

    @cached_property
    def correction(self):
        """Z * r per token: the mass each token gets through the rejection branch."""
        if self.residual is None:
            return tuple(Fraction(0) for _ in self.p) if self.exact else np.zeros_like(self.p)
        if self.exact:
            return tuple(self.z * r for r in self.residual)
        return self.z * self.residual

    @cached_property
    def reconstruction(self):
        """min(p, q) + Z * r: equals p exactly on the exact path."""
        if self.exact:
            return tuple(a + c for a, c in zip(self.accepted, self.correction))
        return self.accepted + self.correction

    @property
    def labels(self) -> tuple[str, ...]:
        if self.tokens is not None:
            return self.tokens
        return tuple(f"#{i}" for i in range(len(self.p)))


def exact_z_and_residual(p_values: Sequence[Fraction], q_values: Sequence[Fraction]):
    """Z = sum max(0, p - q) and r = max(0, p - q) / Z over whole rows of exact values.

    The one place the rule lives for every exact caller (explorer, Markov rows, numerics): r is None
    when Z == 0, so 0/0 is never evaluated and no floor is added.
    """
    excess = tuple(max(Fraction(0), a - b) for a, b in zip(p_values, q_values))
    z = sum(excess, Fraction(0))
    return z, (tuple(e / z for e in excess) if z > 0 else None)


def residual_exact(p: Distribution, q: Distribution) -> ResidualResult:
    """Exact residual of two validated distributions (q is aligned to p's token order)."""
    q = check_same_tokens(p, q)
    accepted = tuple(min(a, b) for a, b in zip(p.values, q.values))
    alpha = sum(accepted, Fraction(0))
    z, residual = exact_z_and_residual(p.values, q.values)
    return ResidualResult(p.tokens, p.values, q.values, accepted, alpha, z, residual, exact=True)


def branch_inconsistency(z: float, alpha: float) -> str | None:
    """Describe a float result on the no-rejection branch whose alpha is not 1, or None.

    For float inputs, p - q > 0 exactly when p > q (gradual underflow), so a float Z > 0 always matches
    the exact Z of the same float inputs; what can disagree is Z = 0 with alpha != 1. (Comparisons with
    the exact Z of intended, unrounded values live with the numerics, which has those values.) Such a
    case is reported for investigation, never patched with a floor.
    """
    if z == 0 and alpha != 1:
        return said(
            "Z = 0 (no-rejection branch) but alpha = {alpha} is not 1: the inputs are not normalised to float "
            "precision", alpha=f"{alpha:.17g}",
        )
    return None


def acceptance_ratio(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The acceptance test's keep probability min(1, p(x)/q(x)) per token, in the arrays' dtype; a token
    the checking q gives 0 is kept when p(x) > 0 (ratio infinite) and rejected when p(x) = 0."""
    one = q.dtype.type(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q > 0, p / np.where(q > 0, q, one), np.where(p > 0, one, q.dtype.type(0)))
    return np.minimum(one, ratio)


def residual_float(p, q, tokens: Sequence[str] | None = None, dtype=FLOAT_DTYPE, check: bool = True) -> ResidualResult:
    """The float residual, vectorised over the vocabulary (no Python loop): float64, the lab's pinned
    path, unless ``dtype`` says otherwise (the Numerics page runs the same expression in float32).

    Validation uses reductions only: alpha + z doubles as sum(p) because
    min(p, q) + max(0, p - q) = p. ``check=False`` skips it, for inputs that are valid by
    construction but rounded to a coarser dtype (their sums are off by more than float64's tolerance).
    """
    p = np.asarray(p, dtype=dtype)
    q = np.asarray(q, dtype=dtype)
    if p.shape != q.shape:
        raise TokenMismatchError(f"p has {p.size} tokens but q has {q.size}")
    if tokens is not None:
        tokens = tuple(tokens)
        if len(tokens) != p.size:
            raise TokenMismatchError(f"{len(tokens)} token names for {p.size} probabilities")
    with np.errstate(all="ignore"):  # invalid inputs are diagnosed below, by token
        accepted = np.minimum(p, q)
        excess = p - q
        np.maximum(excess, excess.dtype.type(0), out=excess)
        alpha = float(accepted.sum(dtype=p.dtype))  # summed in the path's own dtype
        z = float(excess.sum(dtype=p.dtype))
    if check:
        total = alpha + z  # = sum(p) up to rounding, for finite q; otherwise p is summed on its own
        check_float(p, tokens, "p", total=total if np.isfinite(total) else None)
        check_float(q, tokens, "q")
    residual = None
    if z > 0:
        excess /= excess.dtype.type(z)  # in place: excess becomes r (z is exact in its own dtype)
        residual = excess
    inconsistency = branch_inconsistency(z, alpha)
    return ResidualResult(tokens, p, q, accepted, alpha, z, residual, exact=False, inconsistency=inconsistency)


def _as_distribution(value, name: str, tokens: Sequence[str] | None) -> Distribution:
    if isinstance(value, Distribution):
        return value
    if isinstance(value, str):
        return parse_spec(value, name=name)
    if isinstance(value, dict):
        return from_pairs(value.items(), name=name)
    values = list(value)
    names = list(tokens) if tokens is not None else [f"#{i}" for i in range(len(values))]
    if len(names) != len(values):
        raise TokenMismatchError(f"{len(names)} token names for {len(values)} values", None, name)
    return from_pairs(zip(names, values), name=name)


def residual(p, q, tokens: Sequence[str] | None = None, exact: bool | None = None) -> ResidualResult:
    """The residual of target p against draft q: the one dispatch every caller goes through.

    ``exact=None`` picks the path from the inputs: numpy arrays take the float64 path; Distributions,
    ``token=value`` specs, dicts and sequences of exact values (Fractions, ints, strings) the exact one.
    ``exact=True`` / ``False`` forces a path (the command line's ``--exact``). On the float path two
    Distributions are aligned by token name first, as on the exact path.
    """
    floating = exact is False or (exact is None and (isinstance(p, np.ndarray) or isinstance(q, np.ndarray)))
    if not floating:
        return residual_exact(_as_distribution(p, "p", tokens), _as_distribution(q, "q", tokens))
    if not isinstance(p, np.ndarray):
        p = _as_distribution(p, "p", tokens)
    if not isinstance(q, np.ndarray):
        q = _as_distribution(q, "q", tokens)
    if isinstance(p, Distribution) and isinstance(q, Distribution):
        q = check_same_tokens(p, q)
    if isinstance(p, Distribution):
        tokens, p = p.tokens if tokens is None else tokens, p.as_array()
    if isinstance(q, Distribution):
        q = q.as_array()
    return residual_float(p, q, tokens)
