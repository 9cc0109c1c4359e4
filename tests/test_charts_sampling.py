"""Chart builders of the Sampling lab and Blocks pages, without a browser."""

from fractions import Fraction as F

import pytest

from lab.charts import sampling as charts_sampling
from lab.charts.palette import COLORS
from lab.core.blocks import run_block
from lab.core.markov import START, load_model
from lab.core.sampling import make_streams
from lab.core.speedup import speedup_curve


def by_name(fig):
    return {trace.name: trace for trace in fig.data}


def test_empirical_vs_target_stacks_corrected_on_accepted():
    fig = charts_sampling.empirical_vs_target(["A", "B"], [F(1, 4), F(3, 4)], [0.25, 0.5], [0.0, 0.25])
    traces = by_name(fig)
    assert list(traces["target p"].y) == [0.25, 0.75]
    assert list(traces["empirical: corrected"].base) == [0.25, 0.5]  # stacked on the accepted share
    assert list(traces["empirical: corrected"].text) == ["0.250", "0.750"]  # totals above the stack
    assert traces["target p"].marker.color == COLORS["p"]
    assert traces["empirical: accepted"].marker.color == COLORS["accepted"]
    assert traces["empirical: corrected"].marker.pattern.shape == "/"  # pattern, not colour alone


def test_branch_counts_observed_and_expected():
    fig = charts_sampling.branch_counts(["A", "B"], [3, 7], [2.5, 7.5], "correction", "t")
    traces = by_name(fig)
    assert list(traces["observed"].y) == [3.0, 7.0]
    assert list(traces["expected"].y) == [2.5, 7.5]
    assert traces["expected"].marker.symbol == "diamond"


def test_convergence_guide_follows_one_over_sqrt_n():
    fig = charts_sampling.convergence([100, 10_000], [0.02, 0.003])
    guide = by_name(fig)["∝ 1/√N"]
    assert list(guide.y) == pytest.approx([0.02, 0.002])  # 100 times more steps: a tenth
    assert fig.layout.xaxis.type == "log"


def test_block_points_follow_the_trace():
    model = load_model("markov-three")
    for seed in range(30):
        trace = run_block(model, 3, START, make_streams(seed))
        if trace.rejection == 0:
            break
    else:
        pytest.fail("no seed with an immediate rejection")
    drafts_only = charts_sampling.block_points(model.vocab, trace, revealed=0)
    assert [p[0] for p in drafts_only] == ["drafted"] * 3
    full = charts_sampling.block_points(model.vocab, trace)
    statuses = [p[0] for p in full]
    assert statuses == ["rejected", "replacement", "discarded", "discarded"]
    assert full[1][3] == model.vocab[trace.committed[0]] and full[1][2] == 0  # bottom row: committed
    fig = charts_sampling.block_trace(model.vocab, trace)
    assert {t.name for t in fig.data} == {"rejected", "replacement from r", "discarded"}


def test_block_points_bonus_only_when_all_pass():
    model = load_model("equal-distributions")  # Z = 0: every draft passes
    trace = run_block(model, 2, START, make_streams(1))
    points = charts_sampling.block_points(model.vocab, trace)
    assert [p[0] for p in points] == ["accepted", "accepted", "bonus"]
    assert points[-1][1] == 3  # the bonus sits after the K drafts
    assert "bonus" not in [p[0] for p in charts_sampling.block_points(model.vocab, trace, revealed=2)]


def test_speedup_chart_marks_the_best_gamma():
    curve = speedup_curve(0.8, 0.1, range(0, 8))
    fig = charts_sampling.speedup_chart(curve, best_gamma=5, alpha=0.8, c=0.1)
    traces = by_name(fig)
    assert traces["expected tokens per block"].y[5] == pytest.approx(3.68928)
    assert traces["walltime improvement (×)"].y[5] == pytest.approx(2.45952)  # 3.68928 / 1.5
    assert list(traces["best γ = 5"].x) == [5]
