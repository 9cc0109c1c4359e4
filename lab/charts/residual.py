"""Chart builders for the lab pages: pure functions returning plotly figures (no Streamlit).

Every bar takes its colour and fill pattern from lab/charts/palette.py (p, q, accepted, correction,
prediction), carries a text label (the exact fraction when short, otherwise a 3-digit decimal) and
an exact hover text. y values are plain float lists, so a figure's data can be read back directly.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from lab.charts import base
from lab.charts.palette import AXIS, COLORS, PAPER, TEXT
from lab.core.formatting import exact_text, plotly_text, short_label
from lab.i18n import N_

HEIGHT = 420


def _bar(role: str, name: str, x: Sequence[str], values: Sequence, text: bool = True, inside: bool = False) -> dict:
    return base.bar(
        name,
        [plotly_text(v) for v in x],
        values,
        role=role,
        text=text,
        inside=inside,
        hovertemplate=f"{name}<br>%{{x}}: %{{customdata}} (%{{y:.4g}})<extra></extra>",
    )


def _layout(title: str, x_title: str, y_title: str, y_max: float, barmode: str = "group") -> dict:
    # the legend above the plot (two legend lines fit at phone width); the title is drawn by the page
    return {
        **base.layout(
            title,
            height=HEIGHT,
            margin={"l": 60, "r": 10, "t": 30, "b": 55},
            legend=base.LEGEND_ABOVE,
            barmode=barmode,
            bargap=0.2,
            bargroupgap=0.12,  # a gap inside each pair: neighbouring labels ("1/10" "1/10") never touch at 390 px
        ),
        **base.value_axes(x_title, y_title, y_max, headroom=1.18, category=True),
    }


_top = base.top


def pq_bars(tokens: Sequence[str], p: Sequence, q: Sequence, fit: bool = False, upright: bool = False) -> go.Figure:
    """Target p and draft q side by side per token. ``fit``: no height of its own, as tall as its element (the page's
    CSS makes it shorter on a phone, so the bars to draw under it are on the same screen). ``upright``: the labels
    on end above their bars, at their full size (many tokens on a phone: side by side plotly would shrink them to a
    few pixels)."""
    traces = [_bar("p", N_("target p"), tokens, p), _bar("q", N_("draft q"), tokens, q)]
    layout = _layout(N_("Target p and draft q"), N_("token"), N_("probability"), _top(p, q))
    if upright:
        for trace in traces:
            trace.update(textangle=-90, constraintext="none")
        layout["yaxis"]["range"] = [0, _top(p, q) * 1.45]  # room above the tallest bar for its label on end
    if fit:
        del layout["height"]
    return base.figure(traces, layout)


UPRIGHT_LABELS = 4  # a projected p / q chart of more tokens has its labels on end
PROJECTED_LABELS = 12  # and of more than this, no labels: a bar is narrower than a label on end


def pq_bars_projected(
    tokens: Sequence[str], p: Sequence, q: Sequence, text_size: int, height: int | None = None
) -> go.Figure:
    """Target p and draft q for a projected screen: the same bars, labels and patterns as :func:`pq_bars`, every
    text (ticks, legend, exact bar labels) at ``text_size`` px, no title (the page says what is asked); ``height``
    None: as tall as its element (the projector view sizes it in window units). Above UPRIGHT_LABELS tokens the
    labels stand on end above their bars: side by side they would collide in a projector's column."""
    upright = len(tokens) > UPRIGHT_LABELS
    labelled = len(tokens) <= PROJECTED_LABELS  # more: bars without labels (the phones and the alt text hold them)
    traces = [
        # constraintext none: plotly would otherwise shrink a label wider than its bar below text_size
        {
            **_bar(role, name, tokens, values, text=labelled), "textfont": {"size": text_size, "color": TEXT},
            "constraintext": "none", **({"textangle": -90} if upright else {}),
        }  # fmt: skip
        for role, name, values in (("p", "target p", p), ("q", "draft q", q))
    ]
    names = [t if len(t) <= 8 else t[:7] + "…" for t in tokens]  # the alt text has them whole
    on_end = len(tokens) > 8
    bottom = 14 + round(0.62 * text_size * max(len(n) for n in names)) if on_end else 14 + text_size  # room for a "g"
    layout = {
        # the legend in one line above the bars: beside them it took a third of a projector column's width, and
        # neighbouring exact labels ("3/10", "3/10") collided at 1280x720
        "margin": {"l": 8, "r": 8, "t": 16 + 2 * text_size, "b": bottom},
        "font": {"size": text_size, "color": TEXT},
        "legend": {
            "orientation": "h",
            "x": 0,
            "y": 1.0,
            "yanchor": "bottom",
            "font": {"size": text_size},
        },
        "plot_bgcolor": PAPER,
        "paper_bgcolor": PAPER,
        "barmode": "group",
        "bargap": 0.08,  # wide bars: an exact label at projector size fits above its own bar
        # names cut to 8 characters, on end past 8 tokens: they never collide
        "xaxis": {
            "type": "category", "showline": True, "linecolor": AXIS, "tickfont": {"size": text_size},
            "tickvals": [plotly_text(t) for t in tokens], "ticktext": [plotly_text(n) for n in names],
            **({"tickangle": -90} if on_end else {}),
        },  # fmt: skip
        # no value axis: every bar carries its exact value, and a tick at 1/4 or 3/4 could read as an answer
        # room above the tallest bar for its label (standing, a label is as tall as it is long)
        "yaxis": {"range": [0, _top(p, q) * (2.2 if upright else 1.45)], "visible": False},
    }
    if height:
        layout["height"] = height
    return base.figure(traces, layout)


def _prediction_beside_exact(
    labels: Sequence[str], prediction: Sequence, exact: Sequence | None, exact_name: str, titles: tuple[str, str],
    x_title: str, y_title: str,
) -> go.Figure:
    """The student's predicted bars and, once revealed, the exact bars beside them (``titles``: revealed,
    hidden). More than 12 bars carry no text labels (they would collide; the page's table has the values)."""
    few = len(labels) <= 12
    traces = [_bar("prediction", N_("your prediction"), labels, prediction, text=few)]
    if exact is not None:
        traces.append(_bar("residual", exact_name, labels, exact, text=few))
    title = titles[0] if exact is not None else titles[1]
    return base.figure(traces, _layout(title, x_title, y_title, _top(prediction, exact or [])))


def prediction_vs_residual(
    tokens: Sequence[str], prediction: Sequence, residual: Sequence | None, symbol: str = "r"
) -> go.Figure:
    """The student's predicted r beside the exact residual (residual None: prediction alone). ``symbol``: what the
    bars are called (p₂, the second candidate's target, is the residual the first rejection left)."""
    if symbol == "r":
        exact, titles = N_("exact residual r"), (N_("Predicted r beside the exact residual r"), N_("Your predicted r"))
    else:
        exact = f"exact {symbol} (the residual r)"
        titles = (f"Predicted {symbol} beside the {exact}", f"Your predicted {symbol}")
    return _prediction_beside_exact(tokens, prediction, residual, exact, titles, N_("token"),
                                    N_("probability given rejection"))


def target_marks(tokens: Sequence[str], target: Sequence) -> dict:
    """p marked on top of each token's stack (a short line with its value): a stack that reaches it adds up to p."""
    return {
        "type": "scatter",
        "name": N_("target p"),
        "x": [plotly_text(t) for t in tokens],
        "y": [float(v) for v in target],
        "mode": "markers+text",
        "marker": {"symbol": "line-ew", "size": 34, "line": {"width": 3, "color": COLORS["p"]}},
        "text": [f"p = {short_label(v)}" for v in target],
        "textposition": "top center",
        "textfont": {"size": base.LABEL_SIZE, "color": COLORS["p"]},
        "customdata": [exact_text(v) for v in target],
        "hovertemplate": N_("target p") + "<br>%{x}: %{customdata}<extra></extra>",
        "cliponaxis": False,
    }


def _reconstruction(
    tokens: Sequence[str], accepted: Sequence, correction: Sequence, target: Sequence
) -> tuple[list[dict], dict]:
    traces = [
        _bar("accepted", N_("accepted min(p, q)"), tokens, accepted, inside=True),
        _bar("correction", N_("correction Z·r"), tokens, correction, inside=True),
        target_marks(tokens, target),
    ]
    return traces, _layout(N_("min(p, q) + Z·r reaches p"), N_("token"), N_("unconditional probability"),
                           _top(target), "stack")


def reconstruction_bars(tokens: Sequence[str], accepted: Sequence, correction: Sequence, target: Sequence) -> go.Figure:
    """Stacked per token: accepted min(p, q) then correction Z*r, with p marked on top of each stack."""
    return base.figure(*_reconstruction(tokens, accepted, correction, target))


def binomial_bars(labels: Sequence[str], prediction: Sequence, exact: Sequence | None, x_title: str) -> go.Figure:
    """The student's predicted bars, and after Reveal the exact Binomial bars beside them."""
    titles = (N_("Exact bars beside your prediction"), N_("Your prediction (exact bars hidden)"))
    return _prediction_beside_exact(labels, prediction, exact, N_("exact probability"), titles, x_title,
                                    N_("probability"))


def worked_example_stack(tokens: Sequence[str], accepted: Sequence, correction: Sequence, target: Sequence):
    """The worked example's recovery: accepted min(p, q) plus Z times the lab's displayed bar, reaching p."""
    traces, layout = _reconstruction(tokens, accepted, correction, target)
    layout["meta"]["title"] = N_("min(p, q) + Z × (displayed B/C) recovers p")
    traces[1]["name"] = N_("Z × displayed bar")  # the hover text keeps naming the correction Z·r
    return base.figure(traces, layout)
