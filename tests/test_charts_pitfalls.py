"""Chart builders of the Numerics and Pitfalls pages, without a browser."""

from fractions import Fraction as F

import pytest

from lab.charts.palette import COLORS
from lab.charts.pitfalls import error_vs_z, law_vs_target, processed_bars, tv_by_variant
from lab.teaching.numerics import tiny_z_family


def by_name(fig):
    return {trace.name: trace for trace in fig.data}


def test_error_chart_is_log_log_with_both_dtypes():
    fig = error_vs_z(tiny_z_family())
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    traces = by_name(fig)
    f64 = traces["float64 error of r"]
    # exact zeros cannot sit on a log axis: gaps 1e-10 and 1e-11 have float64 error exactly 0 and are left out
    assert len(f64.x) == 9 and all(y > 0 for y in f64.y)
    assert sorted(traces["float32 error of r"].x) == pytest.approx([1e-7, 1e-6])
    lost = traces["float32: float Z = 0, branch lost"]
    assert sorted(lost.x) == pytest.approx(sorted(10.0**-k for k in range(8, 17))) and set(lost.y) == {1.0}
    # the eps / Z guide: float64 eps = 2^-52 over Z, capped at 1
    guide64, guide32 = [t for t in fig.data if t.name == "eps / Z guides (float64, float32)"]
    assert guide64.y[-1] == pytest.approx(2**-52 / 1e-6)
    assert guide32.y[-1] == pytest.approx(2**-23 / 1e-6) and guide32.y[0] == 1.0


def test_error_chart_of_a_single_case_without_lost_branches():
    fig = error_vs_z(tiny_z_family([6]))
    names = {t.name for t in fig.data}
    assert "float32: float Z = 0, branch lost" not in names


def test_processed_bars_use_the_palette_and_label_every_bar():
    fig = processed_bars(("A", "B"), [0.75, 0.25], [0.5, 0.5], [0.4, 0.6])
    traces = by_name(fig)
    assert traces["processed target p'"].marker.color == COLORS["p"]
    assert traces["processed draft q'"].marker.color == COLORS["q"]
    assert traces["processed draft q'"].marker.pattern.shape  # colour never alone
    assert list(traces["unprocessed draft q"].y) == [0.4, 0.6]
    assert list(traces["processed target p'"].text) == ["0.75", "0.25"]


def test_law_vs_target_labels_exact_fractions():
    fig = law_vs_target(("A", "B", "C"), [F(1, 10), F(3, 5), F(3, 10)], {"law": [F(7, 50), F(27, 50), F(8, 25)]}, "t")
    traces = by_name(fig)
    assert list(traces["law"].text) == ["7/50", "27/50", "8/25"]
    assert list(traces["law"].y) == pytest.approx([0.14, 0.54, 0.32])
    assert list(traces["target p"].customdata) == ["1/10", "3/5", "3/10"]


def test_tv_by_variant_bars():
    fig = tv_by_variant(["correct", "epsilon-floor"], [F(0), F(2, 2005)])
    bar = fig.data[0]
    assert list(bar.y) == ["correct", "epsilon-floor"]
    assert list(bar.text) == ["0", "2/2005"]
    assert bar.x[1] == pytest.approx(2 / 2005)
