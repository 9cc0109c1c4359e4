"""lab/core/algorithm.py, the algorithm on one screen, draws from the laws the exact engine computes: one step gives
the target p, one block gives the exact block law (and so the target's law of the first L tokens). Fixed seeds;
each comparison is a chi-square test against the exact law (a correct sampler fails one with probability 1e-4)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import numpy as np
from scipy.stats import chisquare

from lab.core.algorithm import speculative_block, speculative_step
from lab.core.blocks import speculative_law, target_law
from lab.core.markov import START, load_model

SIGNIFICANCE = 1e-4


def _agrees(counts: Counter, law: dict) -> bool:
    outcomes = [o for o in law if law[o]]
    observed = np.array([counts.get(o, 0) for o in outcomes], dtype=float)
    assert observed.sum() == sum(counts.values())  # nothing drawn outside the law's support
    expected = np.array([float(law[o]) for o in outcomes]) * observed.sum()
    return chisquare(observed, expected).pvalue > SIGNIFICANCE


def test_a_step_is_distributed_as_the_target():
    p = np.array([0.1, 0.6, 0.3])  # the worked example: r = (0, 3/4, 1/4), Z = 2/5
    q = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(20261205)
    counts = Counter(speculative_step(p, q, rng) for _ in range(40_000))
    assert _agrees(counts, {0: F(1, 10), 1: F(3, 5), 2: F(3, 10)})


def test_the_edge_cases_of_a_step():
    rng = np.random.default_rng(7)
    same = np.array([0.25, 0.75])
    assert _agrees(Counter(speculative_step(same, same, rng) for _ in range(4_000)), {0: F(1, 4), 1: F(3, 4)})
    # disjoint supports: every proposal is rejected and r = p
    p, q = np.array([0.0, 0.4, 0.6]), np.array([1.0, 0.0, 0.0])
    assert _agrees(Counter(speculative_step(p, q, rng) for _ in range(4_000)), {1: F(2, 5), 2: F(3, 5)})


def test_a_block_gives_the_exact_block_law_which_is_the_targets():
    model = load_model("markov-three")
    block, length = 2, 3

    def row(table, context):
        return np.array([float(v) for v in table(context[-1] if context else START)])

    rng = np.random.default_rng(12)
    counts = Counter()
    for _ in range(8_000):
        tokens: list[int] = []
        while len(tokens) < length:
            tokens += speculative_block(tokens, lambda c: row(model.p, c), lambda c: row(model.q, c), block, rng)
        counts[tuple(tokens[:length])] += 1
    law = speculative_law(model, block, length)
    assert law == target_law(model, length)  # the exact engine: the block law is the target's
    assert _agrees(counts, law)
