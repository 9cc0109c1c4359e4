"""Speculative sampling, one step at a time and a million at once, checked against the exact law.

One step (speculative sampling): propose x ~ q; keep it with probability min(1, p(x)/q(x)); on
rejection draw the replacement from r = max(0, p - q)/Z with *fresh* randomness. Each of the three
kinds of draw has its own numpy stream (:func:`make_streams` spawns them from one seed with
``SeedSequence.spawn``), so the correction never reuses a proposal or acceptance uniform.

- one step with everything it drew is the first test of a block of one draft (:func:`lab.core.blocks.run_block`);
- :func:`simulate_steps`: N steps vectorised, counts split into accepted and corrected; every
  variant of :mod:`lab.core.variants` runs through the same code;
- :func:`step_law`: the exact one-step law of a variant, split the same way (for the correct
  algorithm: accepted = min(p, q), corrected = Z * r, total = p);
- :func:`chi_square_test`: Monte Carlo counts against an exact law with ``scipy.stats.chisquare``.

Arithmetic of the simulator: float64 CDFs rounded from exact partial sums (last entry exactly 1),
inverse-CDF draws by ``searchsorted(..., side="right")`` so zero-mass tokens are never drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from lab.core.distance import total_variation
from lab.core.distributions import Distribution, LabInputError, check_same_tokens
from lab.core.variants import CORRECT, Row, Variant, get_variant

STREAM_NAMES = ("proposal", "acceptance", "correction")
CHUNK = 1 << 16  # steps per vectorised chunk (keeps the working arrays in cache)
FAST_VOCABULARY = 16  # threshold counting up to this many tokens
MAX_STEPS = 100_000_000
BOUNDED_STEPS = 1_000_000  # well within one interaction's 1 s budget: the Sampling lab and the CLI by default
MIN_EXPECTED = 5.0  # chi-square: categories expecting fewer counts are pooled


class SamplingInputError(LabInputError):
    """A step count or seed the simulator cannot use."""


@dataclass(frozen=True)
class Streams:
    """Independent generators for the three kinds of draw."""

    proposal: np.random.Generator
    acceptance: np.random.Generator
    correction: np.random.Generator


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SamplingInputError(f"the seed must be a whole number >= 0 (got {seed!r})")
    return int(seed)


def check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise SamplingInputError(f"the number of steps must be a whole number >= 1 (got {steps!r})")
    if steps > MAX_STEPS:
        raise SamplingInputError(f"{steps} steps is above the lab's limit of {MAX_STEPS}")
    return int(steps)


def make_streams(seed: int) -> Streams:
    """Three independent PCG64 streams spawned from ``SeedSequence(seed)``."""
    children = np.random.SeedSequence(check_seed(seed)).spawn(len(STREAM_NAMES))
    return Streams(*(np.random.Generator(np.random.PCG64(child)) for child in children))


def float_cdf(row) -> np.ndarray:
    """float64 CDF from exact masses (each entry the rounding of an exact partial sum, last exactly 1)."""
    total = Fraction(0)
    out = np.empty(len(row), dtype=np.float64)
    for i, mass in enumerate(row):
        total += Fraction(mass)
        out[i] = float(total)
    return out


def _rows(p, q) -> tuple[tuple[str, ...] | None, Row, Row]:
    if isinstance(p, Distribution):
        q = check_same_tokens(p, q)
        return p.tokens, p.values, q.values
    return None, tuple(Fraction(v) for v in p), tuple(Fraction(v) for v in q)


# --- exact one-step law -----------------------------------------------------------------------


@dataclass(frozen=True)
class StepLaw:
    """Exact one-step output law split by branch: accepted[y] + corrected[y] = total[y]."""

    accepted: Row
    corrected: Row

    @property
    def total(self) -> Row:
        return tuple(a + c for a, c in zip(self.accepted, self.corrected))

    @property
    def corrected_share(self) -> Fraction:
        """Probability that a step ends in a correction (Z for the correct algorithm)."""
        return sum(self.corrected, Fraction(0))


def step_law(p, q, variant: Variant | str = CORRECT) -> StepLaw:
    variant = get_variant(variant)
    _, p_row, q_row = _rows(p, q)
    proposal = variant.draft(q_row)
    size = len(p_row)
    accepted = [Fraction(0)] * size
    corrected = [Fraction(0)] * size
    for x, mass in enumerate(proposal):
        if not mass:
            continue
        keep = variant.accept_probability(p_row, q_row, x)
        accepted[x] += mass * keep
        if keep < 1:
            for y, share in enumerate(variant.correction(p_row, q_row, x)):
                corrected[y] += mass * (1 - keep) * share
    return StepLaw(tuple(accepted), tuple(corrected))


# --- vectorised simulation --------------------------------------------------------------------


@dataclass(frozen=True)
class StepSimulation:
    tokens: tuple[str, ...] | None
    steps: int
    seed: int
    variant: Variant
    accepted: np.ndarray  # int64 counts of steps that kept the proposal, per token
    corrected: np.ndarray  # int64 counts of steps ending in a replacement, per token
    law: StepLaw  # the variant's exact law (the target p for the correct algorithm)
    target: Row

    @property
    def counts(self) -> np.ndarray:
        return self.accepted + self.corrected

    @property
    def corrected_share(self) -> float:
        return float(self.corrected.sum()) / self.steps

    def fit(self, against: str = "target") -> ChiSquareResult:
        """Chi-square of the total counts against the target p (``"target"``) or the variant's own law."""
        expected = self.target if against == "target" else self.law.total
        return chi_square_test(dict(enumerate(self.counts.tolist())), dict(enumerate(expected)))


def simulate_steps(
    p, q, steps: int, seed: int, variant: Variant | str = CORRECT, force_general: bool = False
) -> StepSimulation:
    """Run ``steps`` independent speculative steps at once; counts split into accepted and corrected.

    Per step: one proposal uniform; one acceptance uniform if the proposal can be rejected
    (p(x) < q(x); a proposal with min(1, p/q) = 1 passes whatever the uniform, so none is drawn);
    one correction uniform after a rejection. Each kind comes from its own stream.
    ``reuse-uniform`` inverts the CDF at the acceptance uniform instead.

    Two counting paths consume the streams identically and give identical counts: for small
    vocabularies with one correction law, tokens are counted by comparing uniforms with the CDF
    thresholds (no per-step token array); otherwise proposals are materialised and binned.
    ``force_general`` selects the general path (tests compare the two).
    """
    variant = get_variant(variant)
    steps = check_steps(steps)
    streams = make_streams(seed)
    tokens, p_row, q_row = _rows(p, q)
    size = len(p_row)
    proposal_cdf = float_cdf(variant.draft(q_row))
    keep = np.array([float(variant.accept_probability(p_row, q_row, x)) for x in range(size)])
    laws = {}
    for x in range(size):
        if keep[x] < 1:
            law = variant.inverse_cdf_law(p_row, q_row, x)
            laws[x] = float_cdf(law)
    same_law = len({tuple(c) for c in laws.values()}) <= 1 and not variant.reuses_acceptance_uniform
    if same_law and size <= FAST_VOCABULARY and not force_general:
        accepted, corrected = _count_by_thresholds(streams, steps, proposal_cdf, keep, laws, size)
    else:
        accepted, corrected = _count_general(streams, steps, proposal_cdf, keep, laws, size, variant, same_law)
    return StepSimulation(tokens, steps, check_seed(seed), variant, accepted, corrected, step_law(p, q, variant), p_row)


def _count_general(streams, steps, proposal_cdf, keep, laws, size, variant, same_law):
    accepted = np.zeros(size, dtype=np.int64)
    corrected = np.zeros(size, dtype=np.int64)
    testing = [t for t in range(size) if keep[t] < 1]
    done = 0
    while done < steps:
        n = min(CHUNK, steps - done)
        done += n
        x = np.searchsorted(proposal_cdf, streams.proposal.random(n), side="right")
        kept = np.ones(n, dtype=bool)
        u = np.zeros(n)
        for t in testing:  # acceptance uniforms: token by token, in step order within a token
            where = np.flatnonzero(x == t)
            if where.size:
                u[where] = streams.acceptance.random(where.size)
                kept[where] = u[where] < keep[t]
        # one bincount splits proposals into kept (first `size` bins) and rejected (last `size` bins)
        both = np.bincount(x + size * (~kept), minlength=2 * size)
        accepted += both[:size]
        m = int(both[size:].sum())
        if not m:
            continue
        if same_law:  # one law for every rejected token (all but zero-out-rejected and reuse-uniform)
            law_cdf = next(iter(laws.values()))
            y = np.searchsorted(law_cdf, streams.correction.random(m), side="right")
            corrected += np.bincount(y, minlength=size)
            continue
        rejected = ~kept
        xr = x[rejected]
        w = u[rejected] if variant.reuses_acceptance_uniform else streams.correction.random(m)
        for token, law_cdf in laws.items():
            mask = xr == token
            if mask.any():
                corrected += np.bincount(np.searchsorted(law_cdf, w[mask], side="right"), minlength=size)
    return accepted, corrected


def _interval_counts(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """How many uniforms fall in each token's CDF interval [C(t-1), C(t)) (searchsorted side='right')."""
    below = [np.count_nonzero(u < c) for c in cdf[:-1]]
    below.append(u.size)
    return np.diff(np.array(below, dtype=np.int64), prepend=0)


def _count_by_thresholds(streams, steps, proposal_cdf, keep, laws, size):
    accepted = np.zeros(size, dtype=np.int64)
    corrected = np.zeros(size, dtype=np.int64)
    testing = [(t, keep[t]) for t in range(size) if keep[t] < 1]  # tokens that can be rejected
    law_cdf = next(iter(laws.values())) if laws else None
    u_buf = np.empty(CHUNK)
    done = 0
    while done < steps:
        n = min(CHUNK, steps - done)
        done += n
        proposed = _interval_counts(proposal_cdf, streams.proposal.random(n, out=u_buf[:n]))
        m = 0
        for t, threshold in testing:
            k = int(proposed[t])
            if k:  # each of the k proposals of t gets its own acceptance uniform
                rejected = k - np.count_nonzero(streams.acceptance.random(k, out=u_buf[:k]) < threshold)
                proposed[t] -= rejected
                m += rejected
        accepted += proposed
        if m:
            corrected += _interval_counts(law_cdf, streams.correction.random(m, out=u_buf[:m]))
    return accepted, corrected


# --- goodness of fit --------------------------------------------------------------------------


@dataclass(frozen=True)
class ChiSquareResult:
    statistic: float
    df: int
    p_value: float | None  # None when there is nothing to test (a single category)
    bins: int  # categories after pooling
    pooled: int  # categories merged into the pooled bin because they expected < 5 counts
    impossible: int  # counts observed in categories the law gives probability 0

    @property
    def reason(self) -> str | None:
        """Why there is no finite statistic or no p-value (None when both are numbers)."""
        if self.impossible:
            return f"{self.impossible} counts in outcomes of probability 0: the statistic is infinite, the p-value 0"
        if self.p_value is None:
            return "a single outcome: nothing to test"
        return None

    def as_json(self) -> dict:
        """Valid JSON: an infinite statistic is ``null``, with ``reason`` saying why (null otherwise)."""
        return {
            "statistic": self.statistic if math.isfinite(self.statistic) else None,
            "df": self.df,
            "p_value": self.p_value,
            "pooled_categories": self.pooled,
            "impossible_counts": self.impossible,
            "reason": self.reason,
        }


def chi_square_test(observed: Mapping, law: Mapping) -> ChiSquareResult:
    """Pearson chi-square of counts against an exact law (``scipy.stats.chisquare``).

    Categories expecting fewer than 5 counts are pooled (smallest first) until the pool expects at
    least 5. A count in a category of probability 0 is impossible under the law: the statistic is
    infinite and the p-value 0.
    """
    n = sum(observed.values())
    impossible = sum(c for k, c in observed.items() if not law.get(k))
    if impossible:
        return ChiSquareResult(float("inf"), max(len(law) - 1, 0), 0.0, len(law), 0, impossible)
    cats = sorted((float(prob) * n, observed.get(k, 0)) for k, prob in law.items() if prob)
    pool_exp = pool_obs = 0.0
    pooled = 0
    while cats and (cats[0][0] < MIN_EXPECTED or (pooled and pool_exp < MIN_EXPECTED)):
        e, o = cats.pop(0)
        pool_exp += e
        pool_obs += o
        pooled += 1
    if pooled:
        if pool_exp < MIN_EXPECTED and cats:  # still small: merge the pool into the smallest bin left
            e, o = cats.pop(0)
            pool_exp += e
            pool_obs += o
            pooled += 1
        cats.append((pool_exp, pool_obs))
    if len(cats) < 2:
        return ChiSquareResult(0.0, 0, None, len(cats), pooled, 0)
    expected = np.array([e for e, _ in cats])
    obs = np.array([o for _, o in cats], dtype=np.float64)
    expected *= obs.sum() / expected.sum()  # remove float rounding of the total before scipy's check
    result = stats.chisquare(obs, expected)
    return ChiSquareResult(float(result.statistic), len(cats) - 1, float(result.pvalue), len(cats), pooled, 0)


# --- convergence ------------------------------------------------------------------------------


def empirical_distance(counts, target) -> float:
    """Total variation distance between empirical frequencies and an exact law (float)."""
    n = float(sum(int(c) for c in counts))
    return float(total_variation([int(c) / n for c in counts], [float(t) for t in target]))


# The 1/sqrt(N) chart: half-decade steps of N and an odd number of seeds (a median of runs, so one unlucky run
# cannot make the curve rise). About 4.9 million steps in all: computed once per scenario and cached by the page.
CONVERGENCE_NS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000)
CONVERGENCE_SEEDS = tuple(range(1, 32))


def convergence_series(
    p, q, variant: Variant | str = CORRECT, ns=CONVERGENCE_NS, seeds=CONVERGENCE_SEEDS
) -> tuple[list[int], list[float]]:
    """The median over ``seeds`` of the distance of the empirical frequencies from the target, for each N of
    ``ns`` (independent runs), to show the 1/sqrt(N) shrinkage. Its cost is fixed (sum(ns) * len(seeds)
    steps), whatever a page's own N and seed are."""
    ns = [check_steps(n) for n in ns]
    _, p_row, _ = _rows(p, q)
    medians = []
    for n in ns:
        distances = [empirical_distance(simulate_steps(p, q, n, seed, variant).counts, p_row) for seed in seeds]
        medians.append(float(np.median(distances)))
    return ns, medians
