"""The live class's chart: the class's predictions per bar as a strip with a box, the class mean marked,
and (after the reveal) the exact answer drawn over it. Plain lists in, a plotly figure out."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go

from lab.charts import base
from lab.charts.palette import BOX_FILL, CORRECTION, GRID, PAPER, PREDICTION, TARGET
from lab.core.formatting import fraction_text
from lab.i18n import N_

WORDS_UP_TO = 4  # more fields: labels without "mean " and "exact "
MEAN_LABELS_UP_TO = 6  # more fields: no label for the means (their lines stay)
EXACT_LABELS_UP_TO = 9  # more fields: no label for the exact answer (its diamonds stay), the names on end
TICK_CHARS = 6


def _bare(field: str) -> str:
    """A field's token ("word01" for r(word01); Z as it is), cut to TICK_CHARS: a crowded chart's tick."""
    name = field[field.index("(") + 1 : -1] if field.endswith(")") and "(" in field else field
    return name if len(name) <= TICK_CHARS else name[: TICK_CHARS - 1] + "…"


def class_predictions_figure(
    fields: Sequence[str],
    values: Sequence[Sequence[float]],
    means: Sequence[float | None],
    exact: Sequence[Fraction] | None = None,
    height: int | None = 420,
    text_size: int | None = None,
    legend: bool = True,
) -> go.Figure:
    """One strip (every prediction as a dot, jittered) with a box per field; the class mean as a solid blue
    line across the box; ``exact`` (only after the reveal) as a dashed purple line across the box and a
    diamond labelled with the fraction beside it. Category i sits at x = i (ticks carry the field names).
    ``text_size``: every text of the chart (ticks, legend, labels) in px, for a projector (default: the page's
    sizes). ``legend=False``: no legend (two charts side by side on the projector, whose page says once what the
    marks mean) and labels without their words ("0.45", "3/4"), so that labels of neighbouring boxes do not
    collide at half a projector's width; the same above WORDS_UP_TO fields, and above MEAN_LABELS_UP_TO the means'
    labels go (the lines stay; the chart's text equivalent says the means): neighbouring labels never collide."""
    n = len(fields)
    words = legend and n <= WORDS_UP_TO  # labels with their words: "mean 0.45", "exact 3/4"
    mean_labels = n <= MEAN_LABELS_UP_TO
    crowded = n > EXACT_LABELS_UP_TO  # the exact answer's labels go too (its diamonds stay; the page says the values)
    tick_size, mean_size, exact_size = (text_size,) * 3 if text_size else (15, 14, 15)
    dot_size = 14 if text_size else 9
    traces = []
    half = 0.18  # half the width of a box, in category units (category i sits at x = i)
    for i, column in enumerate(values):
        traces.append(
            {
                "type": "box",
                "x": [i] * len(column),
                "y": list(column),
                "name": N_("predictions"),
                "legendgroup": "predictions",
                "showlegend": i == 0,
                "boxpoints": "all",
                "jitter": 0.6,
                "pointpos": 0,
                "width": 2 * half,
                # a projected chart (text_size) is read from the back of a hall: dots of 14 px, not 9
                "marker": {
                    "color": PREDICTION,
                    "size": dot_size,
                    "opacity": 0.75,
                    "line": {"color": PAPER, "width": 1},
                },
                "line": {"color": PREDICTION, "width": 1.5},
                "fillcolor": BOX_FILL,
                "hoverinfo": "y",
            }
        )

    def segments(points):  # a horizontal segment across each box, as one line trace with gaps
        xs, ys = [], []
        for i, y in points:
            xs += [i - half - 0.04, i + half + 0.04, None]
            ys += [y, y, None]
        return xs, ys

    shown = [(i, m) for i, m in enumerate(means) if m is not None]
    if shown:
        xs, ys = segments(shown)
        traces.append(
            {
                "type": "scatter",
                "x": xs,
                "y": ys,
                "mode": "lines",
                "name": N_("class mean"),
                "line": {"color": TARGET, "width": 4},
                "hoverinfo": "skip",
            }
        )
        traces += [
            {
                "type": "scatter",
                "x": [i - half - 0.06 for i, _ in shown],
                "y": [m for _, m in shown],
                "mode": "text",
                "text": [f"mean {m:.2f}" if words else f"{m:.2f}" for _, m in shown],
                # a label's words in the page's language (lab.charts.base.localized): the template and its values
                **({"meta": {"text": {"template": N_("mean {value}"), "values": [f"{m:.2f}" for _, m in shown]}}}
                   if words else {}),
                "textposition": "middle left",
                "textfont": {"color": TARGET, "size": mean_size},
                "showlegend": False,
                "hoverinfo": "skip",
            }
        ][:mean_labels]
    if exact is not None:
        xs, ys = segments([(i, float(v)) for i, v in enumerate(exact)])
        traces.append(
            {
                "type": "scatter",
                "x": xs,
                "y": ys,
                "mode": "lines",
                "name": N_("exact answer"),
                "legendgroup": "exact",
                "line": {"color": CORRECTION, "width": 3, "dash": "dash"},
                "hoverinfo": "skip",
            }
        )
        traces.append(
            {
                "type": "scatter",
                "x": [i + half + 0.08 for i in range(len(exact))],
                "y": [float(v) for v in exact],
                "mode": "markers" if crowded else "markers+text",
                "name": N_("exact answer"),
                "legendgroup": "exact",
                "showlegend": False,
                "marker": {"symbol": "diamond", "size": 16, "color": CORRECTION, "line": {"color": PAPER, "width": 2}},
                "text": [f"exact {fraction_text(v)}" if words else fraction_text(v) for v in exact],
                **({"meta": {"text": {"template": N_("exact {value}"), "values": [fraction_text(v) for v in exact]}}}
                   if words else {}),
                "textposition": "middle right",
                "textfont": {"color": CORRECTION, "size": exact_size},
                "hoverinfo": "skip",
            }
        )
    ticks = [_bare(f) for f in fields] if crowded else list(fields)  # crowded: "word01" for r(word01), cut
    layout = {
        "margin": {
            "l": 50 + 6 * (tick_size - 15),
            "r": 20,
            "t": (30 + 2 * (tick_size - 15)) if legend else 12,
            # crowded: room under the axis for the longest name on end (a character is about 0.6 of the text size)
            "b": 12 + round(0.62 * tick_size * max(len(t) for t in ticks)) if crowded else 40 + tick_size - 15,
        },
        # ticks in fifths: ticks at 0.25 and 0.75 would read as answers on a class screen before the reveal
        "yaxis": {
            "range": [-0.03, 1.03],
            "automargin": True,  # the title's words in another script (Arabic is taller) never cover the ticks
            # side by side (no legend) the charts are short: no axis title, ticks at 0, 0.5 and 1 (never at 1/4)
            "title": {"text": N_("predicted value") if legend and not crowded else "", "font": {"size": tick_size},
                      "standoff": 8},
            # on a projector (text_size) the chart may be a quarter of a 720-line window: ticks at 0, 0.5 and 1 only
            # crowded (names on end under a short plot): 0 and 1 only
            "dtick": 1 if crowded and text_size else 0.2 if legend and not text_size else 0.5,
            "gridcolor": GRID,
            "tickfont": {"size": tick_size},
        },
        "xaxis": {
            "tickmode": "array",
            "tickvals": list(range(n)),
            # crowded: each name on end, cut to TICK_CHARS (the full names are in the text equivalent)
            "ticktext": ticks,
            **({"tickangle": -90} if crowded else {}),
            # room left of the first box for its mean's label, right of the last for the exact answer's
            "range": [-1.1, n + 0.3] if words else [-0.75 if mean_labels else -0.5, n - 0.15],
            "showgrid": False,
            "zeroline": False,
            "tickfont": {"size": tick_size},
        },
        "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0, "font": {"size": tick_size}},
        "showlegend": legend,
        "plot_bgcolor": PAPER,
        "paper_bgcolor": PAPER,
        "boxmode": "overlay",
    }
    if height:  # None: as tall as the chart's element (the projector sizes it to the window)
        layout["height"] = height
    return base.figure(traces, layout)
