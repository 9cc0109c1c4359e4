"""Chart builders for the Numerics and Pitfalls pages: pure functions returning plotly figures.

Colours and fill patterns for p, q and r come from lab/charts/palette.py; other series (float64 vs
float32 errors, a mistaken output law) get a distinct dark colour plus their own marker symbol, dash
or pattern, so colour never carries meaning alone. Every bar has a text label.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go

from lab.charts import base, palette
from lab.charts.palette import COLORS, PATTERNS
from lab.core.formatting import fraction_text, plotly_text, short_label
from lab.i18n import N_
from lab.teaching.numerics import FLOAT32_EPS, FLOAT64_EPS, TinyZCase

HEIGHT = 400
LAW_PATTERN = "\\"
FLOAT64_COLOR = COLORS["correction"]  # the error plotted is the error of r
LEGEND = base.LEGEND_AT_BOTTOM


MIN_LABEL_SIZE = 10  # px


def _hover(value) -> str:
    if isinstance(value, Fraction | int):
        text = fraction_text(value)
        return text if len(text) <= 40 else f"{float(value):.12g}"
    return f"{float(value):.17g}"


def _bar(name: str, x, values, color: str, pattern: str) -> dict:
    return base.bar(name, x, values, color=color, pattern=pattern, hover=_hover, label_size=base.SMALL_LABEL_SIZE)


def _layout(title: str, y_max: float, x_title: str = "") -> dict:
    layout = {
        **base.layout(
            title,
            height=HEIGHT,
            margin={"l": 55, "r": 10, "t": 20, "b": 50},
            legend=LEGEND,
            legend_size=base.SMALL_LABEL_SIZE,
            barmode="group",
            bargap=0.2,
            # on a phone a bar label plotly would shrink below readable size is hidden instead: every value is
            # also in the table under the chart
            uniformtext={"minsize": MIN_LABEL_SIZE, "mode": "hide"},
        ),
        **base.value_axes(x_title, N_("probability"), max(y_max, 1e-9), category=True),
    }
    layout["xaxis"]["automargin"] = True
    return layout


# --- Numerics -------------------------------------------------------------------------------------------


def _error_points(cases: Sequence[TinyZCase], dtype: str) -> tuple[list[float], list[float], list[float]]:
    """(Z, error) pairs with a positive error, and the Z of the cases whose float Z was 0 (branch lost)."""
    xs, ys, lost = [], [], []
    for case in cases:
        result = case.float64 if dtype == "float64" else case.float32
        error = (case.float64_error if dtype == "float64" else case.float32_error).max_abs
        if result.residual is None:
            lost.append(float(case.exact_z))
        elif error is not None and error > 0:
            xs.append(float(case.exact_z))
            ys.append(error)
    return xs, ys, lost


def error_vs_z(cases: Sequence[TinyZCase]) -> go.Figure:
    """max |r_float - r_exact| against the exact Z, log-log, float64 and float32, with eps/Z guides.

    Cases where the float error is exactly 0 cannot sit on a log axis and are left out (the table
    lists them); cases where the float Z came out 0 (the rejection branch lost) are marked at
    error 1 with their own symbol.
    """
    traces = []
    zs = sorted(float(c.exact_z) for c in cases)
    for dtype, color, symbol, dash, eps in (
        ("float64", FLOAT64_COLOR, "circle", "solid", FLOAT64_EPS),
        ("float32", palette.FLOAT32, "square", "dash", FLOAT32_EPS),
    ):
        xs, ys, lost = _error_points(cases, dtype)
        traces.append(base.trace_name(
            {
                "type": "scatter",
                "name": "",
                "x": xs,
                "y": ys,
                "mode": "lines+markers",
                "line": {"color": color, "dash": dash, "width": 2.5},
                "marker": {"symbol": symbol, "size": 10, "color": color},
                "hovertemplate": "<br>Z = %{x:.1e}<br>max |r - r_exact| = %{y:.3e}<extra></extra>",
            },
            N_("{dtype} error of r"), dtype=dtype,
        ))
        if zs:
            traces.append(
                {
                    "type": "scatter",
                    "name": N_("eps / Z guides (float64, float32)"),
                    "legendgroup": "guides",
                    "showlegend": dtype == "float64",
                    "x": zs,
                    "y": [min(eps / z, 1.0) for z in zs],
                    "mode": "lines",
                    "line": {
                        "color": palette.GUIDE if dtype == "float64" else palette.LIGHT_GUIDE,
                        "dash": "dot" if dtype == "float64" else "dash",
                        "width": 2,
                    },
                    "hovertemplate": f"{dtype} eps / Z<br>Z = %{{x:.1e}}: %{{y:.2e}}<extra></extra>",
                }
            )
        if lost:
            traces.append(base.trace_name(
                {
                    "type": "scatter",
                    "name": "",
                    "x": lost,
                    "y": [1.0] * len(lost),
                    "mode": "markers",
                    "marker": {"symbol": "x", "size": 12, "color": color, "line": {"width": 1}},
                    "hovertemplate": "<br>Z = %{x:.1e}<extra></extra>",
                },
                N_("{dtype}: float Z = 0, branch lost"), dtype=dtype,
            ))
    layout = base.layout(
        N_("Error of r against the exact residual, by Z (log-log)"),
        height=HEIGHT + 120,
        margin={"l": 70, "r": 10, "t": 20, "b": 55},
        legend=LEGEND,
        legend_size=base.SMALL_LABEL_SIZE,
        xaxis={
            "title": {**base.axis_title(N_("exact Z (rejection probability)")), "standoff": 8},
            "type": "log",
            "automargin": True,
            "exponentformat": "power",
            "gridcolor": palette.GRID,
            "showline": True,
            "linecolor": palette.AXIS,
        },
        yaxis={
            "title": base.axis_title("max |r_float - r_exact|", 30),
            "automargin": True,
            "type": "log",
            "exponentformat": "power",
            "gridcolor": palette.GRID,
            "range": [-17, 0.5],
        },
    )
    return base.figure(traces, layout)


def processed_bars(tokens: Sequence[str], p, q, q_raw) -> go.Figure:
    """The processed target p' and draft q' (what is proposed from and checked), beside the draft's
    unprocessed softmax (what a mismatched check would use)."""
    traces = [
        _bar(N_("processed target p'"), tokens, p, COLORS["p"], PATTERNS["p"]),
        _bar(N_("processed draft q'"), tokens, q, COLORS["q"], PATTERNS["q"]),
        _bar(N_("unprocessed draft q"), tokens, q_raw, palette.GUIDE, "x"),
    ]
    top = max([float(v) for v in (*p, *q, *q_raw)] or [1.0])
    return base.figure(traces, _layout(N_("The distributions actually used"), top))


def law_vs_target(
    tokens: Sequence[str], target, laws: dict[str, Sequence], title: str, target_name: str = N_("target p")
):
    """A target beside one or more output laws (the first law in indigo, others in grey)."""
    tokens = [plotly_text(t) for t in tokens]  # outcome labels like "a <end>" show as typed
    traces = [_bar(target_name, tokens, target, COLORS["p"], PATTERNS["p"])]
    styles = [(palette.LAW, LAW_PATTERN), (palette.GUIDE, "x"), (palette.BLACK, "-")]
    for (name, values), (color, pattern) in zip(laws.items(), styles):
        traces.append(_bar(name, tokens, values, color, pattern))
    top = max([float(v) for v in target] + [float(v) for values in laws.values() for v in values] or [1.0])
    return base.figure(traces, _layout(title, top))


def tv_by_variant(names: Sequence[str], distances: Sequence, title: str = N_("Distance from the target, by variant")):
    """Horizontal bars of each variant's exact total variation distance (0 drawn as a labelled zero)."""
    values = [float(d) for d in distances]
    trace = {
        "type": "bar",
        "x": values,
        "y": list(names),
        "orientation": "h",
        "marker": palette.pattern_marker(palette.LAW, LAW_PATTERN),
        "text": [short_label(d) for d in distances],
        "textposition": "outside",
        "textfont": {"size": base.SMALL_LABEL_SIZE, "color": palette.TEXT},
        "cliponaxis": False,
        "customdata": [_hover(d) for d in distances],
        "hovertemplate": "%{y}: TV = %{customdata}<extra></extra>",
    }
    layout = base.layout(
        title,
        height=max(300, 42 * len(values) + 110),
        margin={"l": 10, "r": 60, "t": 20, "b": 50},
        showlegend=False,
        xaxis={
            "title": base.axis_title(N_("total variation distance (exact)")),
            "automargin": True,
            "range": [0, max(values + [1e-9]) * 1.3],
            "nticks": 4,  # a narrow plot (a phone) keeps its tick labels apart
            "gridcolor": palette.GRID,
            "zeroline": True,
            "zerolinecolor": palette.AXIS,
        },
        yaxis={
            "autorange": "reversed",
            "automargin": True,
            "tickmode": "array",
            "tickvals": list(names),
            "ticktext": [_name_lines(n) for n in names],  # long names on two or three lines: they fit at 320 px
        },
    )
    return base.figure([trace], layout)


def _name_lines(name: str, chars: int = 16) -> str:
    """A variant's name (``keep-testing-after-rejection``) broken after its hyphens into lines of about
    ``chars`` characters, for a tick label."""
    lines = [""]
    for part in name.replace("-", "-\n").split("\n"):
        if lines[-1] and len(lines[-1]) + len(part) > chars:
            lines.append("")
        lines[-1] += part
    return "<br>".join(lines)
