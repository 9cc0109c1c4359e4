"""Charts of the Exercises page: pure functions returning plotly figures (palette colours and patterns)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from lab.charts.palette import role_marker
from lab.core.formatting import fraction_text


def _bar(role: str, name: str, tokens: Sequence[str], values: Sequence, exact: bool = True) -> go.Bar:
    return go.Bar(
        name=name,
        x=list(tokens),
        y=[float(v) for v in values],
        text=[fraction_text(v) if exact else f"{float(v):.2f}" for v in values],
        textposition="outside",
        cliponaxis=False,
        marker=role_marker(role),
        hovertemplate="%{x}: %{y:.4f}<extra>" + name + "</extra>",
    )


def _layout(fig: go.Figure, title: str, y_title: str, top: float) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        barmode="group",
        height=320,
        margin={"l": 50, "r": 10, "t": 60, "b": 40},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 1, "xanchor": "right"},
        plot_bgcolor="#ffffff",
        paper_bgcolor="#ffffff",
        font={"size": 14, "color": "#222222"},
        yaxis={"title": y_title, "range": [0, max(top, 0.05) * 1.2], "gridcolor": "#dddddd", "zeroline": True},
        xaxis={"title": "token", "type": "category"},
    )
    return fig


def pq_figure(tokens: Sequence[str], p: Sequence, q: Sequence) -> go.Figure:
    """Target p and draft q side by side, exact labels on the bars."""
    fig = go.Figure([_bar("p", "target p", tokens, p), _bar("q", "draft q", tokens, q)])
    return _layout(fig, "Target p and draft q", "probability", max(float(v) for v in [*p, *q]))


def prediction_figure(tokens: Sequence[str], prediction: Sequence, truth: Sequence) -> go.Figure:
    """The student's predicted residual beside the exact residual r."""
    fig = go.Figure(
        [
            _bar("prediction", "your prediction", tokens, prediction, exact=False),
            _bar("residual", "residual r", tokens, truth),
        ]
    )
    return _layout(fig, "Your bars and the residual r", "r(x)", max(float(v) for v in [*prediction, *truth]))
