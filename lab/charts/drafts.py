"""Charts of the Several drafts page: pure functions returning plotly figures (no Streamlit).

The stacked reconstruction shows, per token, the mass kept at candidate 1, 2, … and the correction's, reaching p;
each candidate's layer has the kept colour with its own fill pattern, so colour never carries meaning alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from lab.charts import base
from lab.charts.palette import COLORS, GUIDE, LAW
from lab.charts.residual import _bar, _layout, _top, target_marks
from lab.i18n import N_

STAGE_PATTERNS = ("", ".", "x", "+")  # kept at candidate 1, 2, 3, 4
RULE_STYLES = {  # rule -> (colour, marker symbol, dash): three different lines besides colour
    "with-replacement": (COLORS["p"], "circle", "solid"),
    "without-replacement": (COLORS["q"], "square", "dot"),
    "top-k": (COLORS["accepted"], "diamond", "dash"),
}


def stage_stack(tokens: Sequence[str], kept_by_position: Sequence[Sequence], corrected: Sequence, target: Sequence):
    """Stacked per token: kept at candidate 1, kept at candidate 2, …, then the correction, with p marked on top."""
    traces = []
    for i, kept in enumerate(kept_by_position):
        trace = base.trace_name(_bar("accepted", "", tokens, kept, inside=True), N_("kept at candidate {number}"),
                                number=i + 1)
        trace["marker"] = base.palette.pattern_marker(COLORS["accepted"], STAGE_PATTERNS[i % len(STAGE_PATTERNS)])
        if STAGE_PATTERNS[i % len(STAGE_PATTERNS)]:
            trace.pop("text", None)  # no label on hatching: the values are in the table beside the chart
        traces.append(trace)
    traces.append(_bar("correction", N_("correction"), tokens, corrected, inside=True))
    traces.append(target_marks(tokens, target))
    title = N_("Kept at each candidate, plus the correction, reaches p")
    return base.figure(traces, _layout(title, N_("token"), N_("probability"), _top(target), "stack"))


def acceptance_by_k(
    curves: Sequence[tuple[str, Sequence[tuple[int, float]]]], best: Sequence[tuple[int, float]], rule: str
):
    """How often a candidate is kept against K, one line per rule ((rule, points) pairs: hashable, so the figure is
    cached), and the best any verifier can do (α*) with the candidates of ``rule``."""
    traces = []
    for name, points in curves:
        color, symbol, dash = RULE_STYLES[name]
        traces.append(
            base.line(
                name,
                [k for k, _ in points],
                [v for _, v in points],
                color,
                symbol=symbol,
                dash=dash,
                hovertemplate=f"{name}<br>K = %{{x}}: %{{y:.4f}}<extra></extra>",
            )
        )
    if best:
        traces.append(
            base.line(
                N_("best possible"),
                [k for k, _ in best],
                [v for _, v in best],
                LAW,
                symbol="star",
                size=12,
                dash="longdash",
                hovertemplate=N_("best possible") + "<br>K = %{x}: %{y:.4f}<extra></extra>",
            )
        )
    title = N_("A candidate kept, against K, and the best possible")
    layout = _layout(title, N_("candidates K"), N_("P(a candidate is kept)"), 1.0)
    layout["xaxis"]["type"] = "linear"
    layout["xaxis"]["dtick"] = 1
    layout["yaxis"]["range"] = [0, 1.08]
    layout["yaxis"]["gridcolor"] = base.palette.GRID
    layout["shapes"] = [
        {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1, "line": {"color": GUIDE, "dash": "dot"}}
    ]
    return go.Figure(data=traces, layout=layout)
