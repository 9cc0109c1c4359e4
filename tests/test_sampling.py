"""One speculative step and the vectorised simulator against exact laws; chi-square by hand."""

from fractions import Fraction as F

import numpy as np
import pytest
from scipy import stats

from lab.core.blocks import run_block
from lab.core.markov import START, model_from_scenario
from lab.core.sampling import (
    CONVERGENCE_SEEDS,
    SamplingInputError,
    chi_square_test,
    convergence_series,
    make_streams,
    simulate_steps,
    step_law,
)
from lab.core.scenarios import load_scenario, scenario_names
from lab.core.variants import VARIANT_NAMES

SCENARIOS = [load_scenario(name) for name in scenario_names()]
IDS = [s.name for s in SCENARIOS]


def hand_split(p, q):
    """min(p, q) and Z * r = max(0, p - q), straight from the definitions."""
    return tuple(min(a, b) for a, b in zip(p, q)), tuple(max(F(0), a - b) for a, b in zip(p, q))


def test_streams_are_reproducible_and_independent():
    a, b = make_streams(7), make_streams(7)
    draws = [s.random(5) for s in (a.proposal, a.acceptance, a.correction)]
    again = [s.random(5) for s in (b.proposal, b.acceptance, b.correction)]
    for x, y in zip(draws, again):
        assert np.array_equal(x, y)
    assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_step_law_splits_into_min_and_z_times_r(scenario):
    law = step_law(scenario.p, scenario.q)
    accepted, corrected = hand_split(scenario.p.values, scenario.q.values)
    assert law.accepted == accepted
    assert law.corrected == corrected
    assert law.total == scenario.p.values


def test_worked_example_by_hand():
    scenario = load_scenario("bernoulli-residual")
    law = step_law(scenario.p, scenario.q)
    assert law.accepted == (F(1, 10), F(3, 10), F(1, 5))
    assert law.corrected == (F(0), F(3, 10), F(1, 10))  # Z r = 2/5 * (0, 3/4, 1/4)
    assert law.corrected_share == F(2, 5)


def one_step(scenario, streams):
    """One speculative step of a one-step scenario, as the lab takes it: the first test of a block of
    K = 1 drafts (run_block), with the committed token."""
    trace = run_block(model_from_scenario(scenario), 1, START, streams)
    return trace.tests[0], trace.committed[0]


def test_speculative_step_rules():
    scenario = load_scenario("bernoulli-residual")
    streams = make_streams(3)
    seen = set()
    for _ in range(300):
        out, token = one_step(scenario, streams)
        accepted = out.status == "accepted"
        if accepted:
            assert token == out.token and out.u < out.accept_probability
            assert out.residual is None
        else:
            assert out.token == 0  # only A has p < q
            assert out.u >= out.accept_probability == F(1, 5)
            assert out.residual == (F(0), F(3, 4), F(1, 4)) and token in (1, 2) and token == out.replacement
            assert out.correction_u is not None and out.correction_u != out.u  # a fresh uniform
        seen.add(accepted)
    assert seen == {True, False}


def test_speculative_step_equal_and_disjoint():
    equal = load_scenario("equal-distributions")
    disjoint = load_scenario("disjoint-support")
    streams = make_streams(1)
    for _ in range(100):
        assert one_step(equal, streams)[0].status == "accepted"  # Z = 0: never rejects
        out, token = one_step(disjoint, streams)
        assert out.status == "rejected" and disjoint.p.values[token] > 0  # alpha = 0, r = p


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_simulation_matches_the_exact_split(scenario):
    n = 200_000
    sim = simulate_steps(scenario.p, scenario.q, n, seed=99)
    accepted, corrected = hand_split(scenario.p.values, scenario.q.values)
    assert sim.counts.sum() == n
    for count, mass in [*zip(sim.accepted, accepted), *zip(sim.corrected, corrected)]:
        # binomial counts: a 6 sigma band; exactly 0 where the mass is 0
        assert abs(count - n * float(mass)) <= 6 * np.sqrt(n * float(mass) * (1 - float(mass)))
    # Fixed seed: a fixed p-value, bound far below it.
    fit = sim.fit()
    assert fit.impossible == 0
    assert fit.p_value is None or fit.p_value > 1e-4


@pytest.mark.parametrize("name", ["bernoulli-residual", "eight-words", "draft-misses-support", "one-hot-draft"])
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_threshold_and_general_counting_paths_agree(name, variant):
    scenario = load_scenario(name)
    a = simulate_steps(scenario.p, scenario.q, 70_001, seed=5, variant=variant)
    b = simulate_steps(scenario.p, scenario.q, 70_001, seed=5, variant=variant, force_general=True)
    assert np.array_equal(a.accepted, b.accepted) and np.array_equal(a.corrected, b.corrected)


def test_corrected_share_converges_to_z():
    scenario = load_scenario("bernoulli-residual")
    sim = simulate_steps(scenario.p, scenario.q, 1_000_000, seed=1)
    # Z = 2/5; sd of the share = sqrt(0.24 / 1e6) = 0.00049: the band is 10 sigma wide
    assert abs(sim.corrected_share - 0.4) < 0.005


def test_chi_square_by_hand():
    result = chi_square_test({0: 60, 1: 40}, {0: F(1, 2), 1: F(1, 2)})
    assert result.statistic == pytest.approx(4.0)  # (10^2 + 10^2) / 50
    assert result.df == 1
    assert result.p_value == pytest.approx(stats.chi2.sf(4.0, 1))
    assert chi_square_test({0: 50, 1: 50}, {0: F(1, 2), 1: F(1, 2)}).p_value == pytest.approx(1.0)


def test_chi_square_impossible_outcome_and_pooling():
    impossible = chi_square_test({0: 99, 1: 1}, {0: F(1)})
    assert impossible.p_value == 0.0 and impossible.impossible == 1
    # expected 98, 1, 1 (n = 100): the two small bins pool to 2 < 5, then merge with 98: nothing to test
    pooled = chi_square_test({0: 98, 1: 1, 2: 1}, {0: F(98, 100), 1: F(1, 100), 2: F(1, 100)})
    assert pooled.p_value is None and pooled.pooled == 3
    # expected 90, 5, 3, 2: 3 and 2 pool into one bin of 5
    pooled = chi_square_test({0: 90, 1: 5, 2: 3, 3: 2}, {0: F(9, 10), 1: F(1, 20), 2: F(3, 100), 3: F(1, 50)})
    assert pooled.pooled == 2 and pooled.df == 2 and pooled.statistic == pytest.approx(0.0)


def test_bad_inputs():
    scenario = load_scenario("bernoulli-residual")
    with pytest.raises(SamplingInputError, match="steps"):
        simulate_steps(scenario.p, scenario.q, 0, seed=1)
    with pytest.raises(SamplingInputError, match="seed"):
        simulate_steps(scenario.p, scenario.q, 10, seed=-3)


@pytest.mark.parametrize("name", scenario_names())
def test_the_convergence_curve_falls_like_one_over_sqrt_n(name):
    """The median over 31 seeded runs at 8 half-decade N: it falls at every step (the old three single
    runs rose from 10^3 to 10^4), and distance * sqrt(N) stays within a factor 2 of its median: the 1/sqrt(N)
    law the chart's guide line draws. Fixed seeds: the same numbers on every run."""
    scenario = load_scenario(name)
    ns, medians = convergence_series(scenario.p, scenario.q)
    assert ns == [100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000] and len(CONVERGENCE_SEEDS) == 31
    assert all(a > b for a, b in zip(medians, medians[1:])), medians
    scaled = sorted(d * n**0.5 for n, d in zip(ns, medians))
    middle = scaled[len(scaled) // 2]
    assert middle / 2 < scaled[0] and scaled[-1] < middle * 2
