"""The one base every chart builds on: font sizes, the trace and layout specs, the axes, and the figure.

Chart modules (residual, sampling, pitfalls, classroom) only say what a figure shows; how a bar, a title, a
legend or an axis looks is decided here, and every colour comes from :mod:`lab.charts.palette`. Builders
compose plain dicts (a trace is ``{"type": "bar", ...}``, the layout one dict) and make the plotly figure once,
with :func:`figure`, one unvalidated constructor call: plotly's per-property objects and its update_layout path
are far slower (tests/test_charts_assembly.py checks the result equals the validated figure).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import plotly.graph_objects as go

from lab.charts import palette
from lab.core.formatting import exact_text, short_label

# Plotly's validation of every property is off in production: the specs are this package's own constants and
# plain lists and floats made from the arguments. tests/test_charts_assembly.py builds every builder's figure
# with it on (a misspelt property raises there) and checks the result is the same.
VALIDATE = False

FONT_SIZE = 15  # axis titles and ticks
SMALL_TITLE_SIZE = FONT_SIZE + 1  # the larger text of a chart: a marker's name
LEGEND_SIZE = FONT_SIZE - 1
LABEL_SIZE = FONT_SIZE - 2  # the text on a bar
SMALL_LABEL_SIZE = FONT_SIZE - 3  # bar text and legends of the denser Numerics and Pitfalls charts

# Where a legend goes: above the plot or under the plot.
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
    subtitle: str = "",
    **more,
) -> dict:
    """Size, fonts, legend and the white paper of a figure. ``title`` (and a ``subtitle`` line) is not drawn by
    plotly: it is kept in the layout's ``meta`` and the page draws it as text above the chart
    (lab.views.ui.charts.chart), where it wraps at any width (plotly never wraps a title, so a long one was cut off
    on a 320 px screen; WCAG 1.4.10). ``more`` is added as given."""
    settings = {
        "meta": {"title": title, "subtitle": subtitle},
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


def title_of(layout: dict) -> tuple[str, str]:
    """The (title, subtitle) a figure's layout dict asks the page to draw above it ("" when it has none)."""
    meta = layout.get("meta")
    if not isinstance(meta, dict):
        return "", ""
    return str(meta.get("title") or ""), str(meta.get("subtitle") or "")


AXIS_TITLE_CHARS = 22  # longer axis titles take two lines: plotly never wraps one, and a 320 px screen fits ~28


def axis_title(text: str, chars: int = AXIS_TITLE_CHARS) -> dict:
    """An axis title, on two lines (broken at the space nearest its middle) when it is longer than ``chars``."""
    if len(text) > chars and "<br>" not in text and " " in text:
        middle = len(text) / 2
        cut = min((i for i, ch in enumerate(text) if ch == " "), key=lambda i: abs(i - middle))
        text = f"{text[:cut]}<br>{text[cut + 1:]}"
    return {"text": text}


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
    xaxis = {"title": axis_title(x_title), "showline": True, "linecolor": palette.AXIS, "automargin": True}
    if category:
        xaxis["type"] = "category"
    yaxis = {
        "title": axis_title(y_title, 30),
        "automargin": True,
        "gridcolor": palette.GRID,
        "zeroline": True,
        "zerolinecolor": palette.AXIS,
    }
    if y_max is not None:
        yaxis["range"] = [0, (y_max if y_max > 0 else y_floor) * headroom]
    return {"xaxis": xaxis, "yaxis": yaxis}


def top(*series: Sequence, empty: float = 1.0) -> float:
    """The largest value of the series, or ``empty`` when there is none above 0 (all zero: nothing
    predicted yet, so show the 0..1 scale)."""
    values = [float(v) for s in series for v in s]
    best = max(values) if values else 0.0
    return best if best > 0 else empty


def trace_name(trace: dict, template: str, **values) -> dict:
    """``trace`` named by ``template`` (marked for the catalogs) filled with ``values``: "kept at candidate 2". The
    template rides in the trace's ``meta`` so that :func:`localized` says the name in another language."""
    name, old = template.format(**values), trace.get("name") or ""
    named = {**trace, "name": name, "meta": {"name": template, "values": values}}
    hover = trace.get("hovertemplate")
    if isinstance(hover, str) and hover.startswith(old + "<br>"):
        named["hovertemplate"] = name + hover[len(old):]
    return named


_DECIMAL = re.compile(r"^-?\d+\.\d+$")  # 0.501, not 3/10 nor 1e-06
_DECIMAL_MARK = re.compile(r"(?<=\d)\.(?=\d)")  # the point of 0.5 inside a text


def localized(spec: dict, words, separators: str = "", rtl: bool = False) -> dict:
    """A figure's dict with its words in another language: ``words`` (gettext's ``_``) applied to the title and
    subtitle, the axis titles (wrapped again) and their named ticks ("bonus"), each trace's name and the name that
    opens its hover text. Only whole messages of the catalog change (a number or a token is never one); the data are
    shared, not copied. ``separators``: plotly's decimal and thousands marks for the ticks and hover numbers (",."
    writes 0,5), and for decimals written as text (a bar's label, a subtitle's α = 0,50). ``rtl``: a right-to-left
    script, whose rotated y-axis title plotly places as far right as its tall glyphs reach (over the ticks): it stands
    off by the title's size more."""
    out = dict(spec)
    layout = dict(out.get("layout") or {})
    if separators:
        layout["separators"] = separators
    meta = layout.get("meta")
    if isinstance(meta, dict):
        layout["meta"] = {k: words(v) if k in ("title", "subtitle") and v else v for k, v in meta.items()}
        if separators.startswith(",") and isinstance(layout["meta"].get("subtitle"), str):  # α = 0,50
            layout["meta"]["subtitle"] = _DECIMAL_MARK.sub(",", layout["meta"]["subtitle"])
    for axis in ("xaxis", "yaxis"):
        settings = layout.get(axis)
        ticks = (settings or {}).get("ticktext")
        if isinstance(ticks, list | tuple) and any(isinstance(t, str) and not t.isdigit() for t in ticks):
            settings = layout[axis] = {**settings, "ticktext": [words(t) if isinstance(t, str) else t for t in ticks]}
        title = (settings or {}).get("title")
        if isinstance(title, dict) and title.get("text"):
            text = words(title["text"].replace("<br>", " "))
            title = {**title, **axis_title(text, 30 if axis == "yaxis" else AXIS_TITLE_CHARS)}
            if rtl and axis == "yaxis" and "standoff" in title:  # (plotly's own standoff is measured: kept)
                size = (title.get("font") or {}).get("size") or 15
                title["standoff"] += round(1.6 * size)
            layout[axis] = {**settings, "title": title}
    out["layout"] = layout
    traces = []
    for trace in out.get("data") or []:
        name = trace.get("name")
        meta = trace.get("meta")
        if isinstance(name, str) and name:
            # a name made from a template (trace_name): the template through the catalog, then its values
            named = isinstance(meta, dict) and isinstance(meta.get("name"), str)
            said = words(meta["name"], **(meta.get("values") or {})) if named else words(name)
            trace = {**trace, "name": said}
            hover = trace.get("hovertemplate")
            if isinstance(hover, str) and hover.startswith(name + "<br>"):
                trace["hovertemplate"] = said + hover[len(name):]
        texts = meta.get("text") if isinstance(meta, dict) else None
        if isinstance(texts, dict) and isinstance(texts.get("template"), str):  # labels made from a template
            comma = separators.startswith(",")
            trace = {**trace, "text": [words(texts["template"], value=_DECIMAL_MARK.sub(",", v) if comma else v)
                                       for v in texts.get("values") or ()]}
        elif separators.startswith(","):  # decimals written as text (a bar's label, a hover value): 0,501
            for key in ("text", "customdata"):
                values = trace.get(key)
                if isinstance(values, list | tuple) and any(isinstance(v, str) and _DECIMAL.match(v) for v in values):
                    trace = {**trace, key: [v.replace(".", ",") if isinstance(v, str) and _DECIMAL.match(v) else v
                                            for v in values]}
        traces.append(trace)
    out["data"] = traces
    return out
