"""The one base every chart builds on: font sizes, the trace and layout specs, the axes, and the figure.

Chart modules (residual, sampling, pitfalls, classroom) only say what a figure shows; how a bar, a title, a
legend or an axis looks is decided here, and every colour comes from :mod:`lab.charts.palette`. Builders
compose plain dicts (a trace is ``{"type": "bar", ...}``, the layout one dict) and make the plotly figure once,
with :func:`figure`, one unvalidated constructor call: plotly's per-property objects and its update_layout path
are far slower (tests/test_charts_assembly.py checks the result equals the validated figure).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from lab.charts import palette
from lab.core.formatting import exact_text, short_label

# Plotly's validation of every property is off in production: the specs are this package's own constants and
# plain lists and floats made from the arguments. tests/test_charts_assembly.py builds every builder's figure
# with it on (a misspelt property raises there) and checks the result is the same.
VALIDATE = False

FONT_SIZE = 15  # axis titles and ticks
TITLE_SIZE = FONT_SIZE + 2
SMALL_TITLE_SIZE = FONT_SIZE + 1
LEGEND_SIZE = FONT_SIZE - 1
LABEL_SIZE = FONT_SIZE - 2  # the text on a bar
SMALL_LABEL_SIZE = FONT_SIZE - 3  # bar text and legends of the denser Numerics and Pitfalls charts

# Where a legend goes: above the plot (under a title pinned to the top) or under the plot.
LEGEND_ABOVE = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "traceorder": "normal"}


def legend_below(y: float) -> dict:
    """A horizontal legend under the plot, its top at ``y`` (in plot fractions, negative)."""
    return {"orientation": "h", "yanchor": "top", "y": y, "x": 0}


# Under the plot in container coordinates: it pushes the bottom margin, so a legend wrapping onto several
# rows on a phone never covers the title or the data.
LEGEND_AT_BOTTOM = {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0.0, "x": 0, "xanchor": "left"}


def figure(traces: Sequence[dict], layout: dict) -> go.Figure:
    """The chart's plotly figure from its trace dicts and its layout dict, in one constructor call."""
    return go.Figure(data=list(traces), layout=layout, _validate=VALIDATE)


def bar(
    name: str,
    x: Sequence,
    values: Sequence,
    *,
    role: str | None = None,
    color: str | None = None,
    pattern: str | None = None,
    label=short_label,
    hover=exact_text,
    hovertemplate: str | None = None,
    text: bool = True,
    inside: bool = False,
    label_size: int = LABEL_SIZE,
    opacity: float | None = None,
    **extra,
) -> dict:
    """A bar trace: a palette ``role``'s colour and pattern (or an explicit ``color`` and ``pattern``),
    a text label on every bar (``label(v)``; inside the bar in a readable colour when ``inside``, but none inside a
    patterned bar) and
    ``hover(v)`` as hover text. y values are plain floats. ``extra``: more trace properties (None ones left out)."""
    color = color or palette.COLORS[role]
    pattern = palette.PATTERNS[role] if pattern is None else pattern
    marker_extra = {} if opacity is None else {"opacity": opacity}
    text_color = palette.INSIDE_TEXT.get(role, palette.TEXT) if inside else palette.TEXT
    if inside and pattern:  # a label is never drawn on hatching (1:1 where it crosses a line): its value is in the
        text = False  # hover, the chart's text alternative and the table beside the chart
    trace = {
        "type": "bar",
        "name": name,
        "x": list(x),
        "y": [float(v) for v in values],
        "marker": palette.pattern_marker(color, pattern, **marker_extra),
        "textposition": "inside" if inside else "outside",
        "insidetextanchor": "middle",
        "textfont": {"size": label_size, "color": text_color},
        "cliponaxis": False,
        "customdata": [hover(v) for v in values],
        "hovertemplate": hovertemplate or f"{name}<br>%{{x}}: %{{customdata}}<extra></extra>",
        **{key: value for key, value in extra.items() if value is not None},
    }
    if text:
        trace["text"] = [label(v) for v in values]
    return trace


def line(
    name: str,
    x: Sequence,
    y: Sequence,
    color: str,
    *,
    hovertemplate: str,
    symbol: str | None = "circle",
    size: int = 9,
    width: float = 3,
    dash: str = "solid",
) -> dict:
    """A line series: ``color`` with its own dash and, unless ``symbol`` is None, markers of its own symbol
    (so two series never differ by colour alone)."""
    trace = {
        "type": "scatter",
        "name": name,
        "x": list(x),
        "y": [float(v) for v in y],
        "mode": "lines+markers" if symbol else "lines",
        "line": {"color": color, "width": width, "dash": dash},
        "hovertemplate": hovertemplate,
    }
    if symbol:
        trace["marker"] = {"symbol": symbol, "size": size, "color": color}
    return trace


def layout(
    title: str,
    *,
    height: int,
    margin: dict,
    legend: dict | None = None,
    legend_size: int = LEGEND_SIZE,
    title_size: int = TITLE_SIZE,
    pin_title: bool = False,
    **more,
) -> dict:
    """Title, size, fonts, legend and the white paper of a figure. ``pin_title`` pins the title to the
    top of the figure (the legend then sits between it and the plot). ``more`` is added as given."""
    title_layout = {"text": title, "font": {"size": title_size}}
    if pin_title:
        title_layout.update({"x": 0, "xanchor": "left", "y": 0.98, "yref": "container", "yanchor": "top"})
    settings = {
        "title": title_layout,
        "height": height,
        "margin": margin,
        "font": {"size": FONT_SIZE, "color": palette.TEXT},
        "plot_bgcolor": palette.PAPER,
        "paper_bgcolor": palette.PAPER,
        **more,
    }
    if legend is not None:
        settings["legend"] = {**legend, "font": {"size": legend_size}}
    return settings


def value_axes(
    x_title: str,
    y_title: str,
    y_max: float | None = None,
    *,
    headroom: float = 1.2,
    category: bool = False,
    y_floor: float = 1.0,
) -> dict:
    """The layout's ``xaxis`` and ``yaxis``. x: a titled axis with a line (a category axis when ``category``);
    y: a gridded value axis from 0, up to ``y_max`` with ``headroom`` above for the bar labels (``y_floor``
    when y_max is 0)."""
    xaxis = {"title": {"text": x_title}, "showline": True, "linecolor": palette.AXIS}
    if category:
        xaxis["type"] = "category"
    yaxis = {"title": {"text": y_title}, "gridcolor": palette.GRID, "zeroline": True, "zerolinecolor": palette.AXIS}
    if y_max is not None:
        yaxis["range"] = [0, (y_max if y_max > 0 else y_floor) * headroom]
    return {"xaxis": xaxis, "yaxis": yaxis}


def top(*series: Sequence, empty: float = 1.0) -> float:
    """The largest value of the series, or ``empty`` when there is none above 0 (all zero: nothing
    predicted yet, so show the 0..1 scale)."""
    values = [float(v) for s in series for v in s]
    best = max(values) if values else 0.0
    return best if best > 0 else empty
