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


def test_convergence_guide_follows_one_over_sqrt_n_with_clean_ticks():
    ns = [100, 1_000, 10_000, 300_000]
    fig = charts_sampling.convergence(ns, [0.05, 0.02, 0.004, 0.001], own=(20_000, 0.003))
    traces = by_name(fig)
    # distance * sqrt(N): 0.5, 0.632, 0.4, 0.548; c is the upper middle one, 0.548 = 0.001 * sqrt(300000)
    c = 0.001 * 300_000**0.5
    assert list(traces["c / √N"].y) == pytest.approx([c / n**0.5 for n in ns])
    assert list(traces["your run"].x) == [20_000] and list(traces["your run"].y) == [0.003]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert list(fig.layout.xaxis.tickvals) == ns and list(fig.layout.xaxis.ticktext) == ["100", "1k", "10k", "300k"]
    y_ticks = list(fig.layout.yaxis.tickvals)  # 1, 2, 5 times powers of ten, nothing in between
    assert y_ticks == pytest.approx([0.001, 0.002, 0.005, 0.01, 0.02, 0.05])
    assert list(fig.layout.yaxis.ticktext) == ["0.001", "0.002", "0.005", "0.01", "0.02", "0.05"]


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
    assert [(p[0], p[2]) for p in points] == [
        ("accepted", 1),
        ("accepted", 0),
        ("accepted", 1),
        ("accepted", 0),
        ("bonus", 0),
    ]
    assert [p[3] for p in points if p[2] == 0] == [model.vocab[t] for t in trace.committed]  # kept drafts committed too
    assert points[-1][1] == 3  # the bonus sits after the K drafts
    assert "bonus" not in [p[0] for p in charts_sampling.block_points(model.vocab, trace, revealed=2)]


def test_speedup_chart_marks_the_best_gamma():
    curve = speedup_curve(0.8, 0.1, range(0, 8))
    fig = charts_sampling.speedup_chart(curve, best_gamma=5, alpha=0.8, c=0.1)
    traces = by_name(fig)
    assert traces["expected tokens per block"].y[5] == pytest.approx(3.68928)
    assert traces["walltime improvement (×)"].y[5] == pytest.approx(2.45952)  # 3.68928 / 1.5
    assert list(traces["best K = 5"].x) == [5]
