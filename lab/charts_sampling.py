"""Chart builders for the Sampling lab and Blocks pages: pure functions returning plotly figures.

Colours and fill patterns come from lab/palette.py (p, q, accepted, correction, prediction); every
bar carries a text label, lines carry distinct dashes and marker symbols, so colour never carries
meaning alone. Inputs are plain numbers (Fractions or floats); y values are float lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go

from lab.display import exact_text, short_label
from lab.palette import COLORS, PATTERNS

FONT_SIZE = 15
HEIGHT = 380
EXPECTED_COLOR = "#222222"  # expected-count markers: near black, with a diamond symbol
DISCARDED_COLOR = "#767676"  # greyed-out discarded drafts: 4.5:1 on white
REJECTED_COLOR = COLORS["q"]  # a rejected draft is the draft's token: vermillion, crossed out


def _marker(role: str) -> dict:
    marker = {"color": COLORS[role], "line": {"color": COLORS[role], "width": 1.5}}
    if PATTERNS[role]:
        marker["pattern"] = {
            "shape": PATTERNS[role],
            "fillmode": "overlay",
            "fgcolor": "#ffffff",
            "size": 8,
            "solidity": 0.3,
        }
    return marker


def _label(value) -> str:
    if isinstance(value, Fraction | int):
        return short_label(value)
    return f"{float(value):.3g}"


def _hover(value) -> str:
    if isinstance(value, Fraction | int):
        return exact_text(value)
    return f"{float(value):.6g}"


def _bar(role: str, name: str, x, values, offsetgroup: str, base=None, text=True) -> go.Bar:
    return go.Bar(
        name=name,
        x=list(x),
        y=[float(v) for v in values],
        base=[float(b) for b in base] if base is not None else None,
        offsetgroup=offsetgroup,
        marker=_marker(role),
        text=[_label(v) for v in values] if text else None,
        textposition="outside" if base is None else "inside",
        textfont={"size": FONT_SIZE - 2, "color": "#ffffff" if base is not None else "#222222"},
        cliponaxis=False,
        customdata=[_hover(v) for v in values],
        hovertemplate=f"{name}<br>%{{x}}: %{{customdata}}<extra></extra>",
    )


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, y_max: float | None = None) -> go.Figure:
    fig.update_layout(
        title={"text": title, "font": {"size": FONT_SIZE + 2}},
        barmode="group",
        height=HEIGHT,
        margin={"l": 60, "r": 10, "t": 90, "b": 55},
        font={"size": FONT_SIZE, "color": "#222222"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "font": {"size": FONT_SIZE - 1}},
        plot_bgcolor="#ffffff",
        paper_bgcolor="#ffffff",
        bargap=0.25,
    )
    fig.update_xaxes(title={"text": x_title}, showline=True, linecolor="#444444")
    yaxis = {"title": {"text": y_title}, "gridcolor": "#dddddd", "zeroline": True, "zerolinecolor": "#444444"}
    if y_max is not None:
        yaxis["range"] = [0, (y_max if y_max > 0 else 1.0) * 1.2]
    fig.update_yaxes(**yaxis)
    return fig


def empirical_vs_target(tokens: Sequence[str], target: Sequence, accepted_share: Sequence, corrected_share: Sequence):
    """Target p beside the empirical frequencies, each split into accepted (bottom) and corrected (top)."""
    total = [float(a) + float(c) for a, c in zip(accepted_share, corrected_share)]
    fig = go.Figure(
        [
            _bar("p", "target p", tokens, target, "p"),
            _bar("accepted", "empirical: accepted", tokens, accepted_share, "sim", text=False),
            _bar("correction", "empirical: corrected", tokens, corrected_share, "sim", base=accepted_share, text=False),
        ]
    )
    fig.add_trace(
        go.Scatter(
            name="empirical total",
            x=list(tokens),
            y=total,
            mode="text",
            text=[f"{t:.3f}" for t in total],
            textposition="top center",
            textfont={"size": FONT_SIZE - 2, "color": "#222222"},
            showlegend=False,
            hoverinfo="skip",
        )
    )
    fig.update_layout(scattermode="group")
    top = max([float(v) for v in target] + total + [0.0])
    return _layout(fig, "Empirical frequencies converge to p", "token", "share of steps", top)


def branch_counts(tokens: Sequence[str], observed: Sequence[int], expected: Sequence, role: str, title: str):
    """Observed counts of one branch (accepted or corrected) with the exact expected counts as markers."""
    fig = go.Figure(
        [
            _bar(role, "observed", tokens, [int(v) for v in observed], role),
            go.Scatter(
                name="expected",
                x=list(tokens),
                y=[float(v) for v in expected],
                mode="markers",
                marker={
                    "symbol": "diamond",
                    "size": 13,
                    "color": EXPECTED_COLOR,
                    "line": {"color": "#ffffff", "width": 1},
                },
                customdata=[f"{float(v):.1f}" for v in expected],
                hovertemplate="expected<br>%{x}: %{customdata}<extra></extra>",
            ),
        ]
    )
    top = max([float(v) for v in observed] + [float(v) for v in expected] + [0.0])
    return _layout(fig, title, "token", "steps", top)


def convergence(ns: Sequence[int], distances: Sequence[float]):
    """Distance of the empirical frequencies from p against N (log-log), with the 1/sqrt(N) guide."""
    ns = [int(n) for n in ns]
    guide = [distances[0] * (ns[0] / n) ** 0.5 for n in ns] if ns else []
    fig = go.Figure(
        [
            go.Scatter(
                name="total variation from p",
                x=ns,
                y=[float(d) for d in distances],
                mode="lines+markers",
                line={"color": COLORS["p"], "width": 3},
                marker={"symbol": "circle", "size": 9},
                hovertemplate="N = %{x}<br>distance %{y:.4f}<extra></extra>",
            ),
            go.Scatter(
                name="∝ 1/√N",
                x=ns,
                y=guide,
                mode="lines",
                line={"color": COLORS["prediction"], "width": 2, "dash": "dash"},
                hoverinfo="skip",
            ),
        ]
    )
    _layout(fig, "Distance from p shrinks like 1/√N", "steps N (log scale)", "total variation distance")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def block_trace(vocab: Sequence[str], trace, revealed: int | None = None):
    """One block as a row of boxes: drafts (with their test), the replacement or the bonus token.

    ``revealed`` limits what is drawn to the first events (0: drafts only; i: i tests shown;
    None: everything). Accepted drafts are green, a rejected draft vermillion and crossed out, the
    replacement purple, discarded drafts grey, the bonus blue; each box names its status in text.
    """
    tests = trace.tests
    n_tests = len(tests)
    shown_tests = n_tests if revealed is None else max(0, min(revealed, n_tests))
    xs, ys, texts, colors, symbols, hovers = [], [], [], [], [], []

    def box(x, y, text, color, symbol, hover):
        xs.append(x)
        ys.append(y)
        texts.append(text)
        colors.append(color)
        symbols.append(symbol)
        hovers.append(hover)

    for i, test in enumerate(tests):
        token = vocab[test.token]
        if i >= shown_tests:
            box(i + 1, 1, f"{token}<br>drafted", COLORS["q"], "square-open", f"draft {i + 1}: {token} (not tested yet)")
        elif test.status == "accepted":
            box(
                i + 1,
                1,
                f"{token}<br>kept",
                COLORS["accepted"],
                "square",
                f"draft {i + 1}: {token} kept, u = {test.u:.3f}",
            )
        elif test.status == "rejected":
            box(
                i + 1,
                1,
                f"{token}<br>rejected",
                REJECTED_COLOR,
                "x",
                f"draft {i + 1}: {token} rejected, u = {test.u:.3f}",
            )
            if test.replacement is not None:
                rep = vocab[test.replacement]
                box(i + 1, 0, f"{rep}<br>from r", COLORS["correction"], "diamond", f"replacement {rep} drawn from r")
        else:
            box(i + 1, 1, f"{token}<br>discarded", DISCARDED_COLOR, "square-open", f"draft {i + 1}: {token} discarded")
    finished = revealed is None or revealed > n_tests
    if finished and trace.bonus is not None:
        bonus = vocab[trace.bonus]
        box(n_tests + 1, 0, f"{bonus}<br>bonus", COLORS["p"], "star", f"bonus token {bonus} drawn from p")
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers+text",
            text=texts,
            textposition="top center",
            textfont={"size": FONT_SIZE, "color": "#222222"},
            marker={"size": 30, "color": colors, "symbol": symbols, "line": {"width": 2, "color": colors}},
            customdata=hovers,
            hovertemplate="%{customdata}<extra></extra>",
            showlegend=False,
            cliponaxis=False,
        )
    )
    fig.update_layout(
        title={
            "text": "One block: drafts (top row), correction or bonus (bottom row)",
            "font": {"size": FONT_SIZE + 1},
        },
        height=300,
        margin={"l": 90, "r": 20, "t": 60, "b": 45},
        font={"size": FONT_SIZE, "color": "#222222"},
        plot_bgcolor="#ffffff",
        paper_bgcolor="#ffffff",
    )
    fig.update_xaxes(
        title={"text": "position in the block"},
        tickmode="array",
        tickvals=list(range(1, n_tests + 2)),
        ticktext=[str(i) for i in range(1, n_tests + 1)] + ["bonus"],
        range=[0.4, n_tests + 1.6],
        showgrid=False,
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=[0, 1],
        ticktext=["committed<br>by r or p", "drafted"],
        range=[-0.6, 1.9],
        showgrid=False,
    )
    return fig


def speedup_chart(curve: Sequence[tuple[int, float, float]], best_gamma: int | None = None, alpha=None, c=None):
    """Expected tokens per block and walltime improvement against gamma (rows from lab.speedup.speedup_curve)."""
    gammas = [row[0] for row in curve]
    fig = go.Figure(
        [
            go.Scatter(
                name="expected tokens per block",
                x=gammas,
                y=[row[1] for row in curve],
                mode="lines+markers",
                line={"color": COLORS["p"], "width": 3},
                marker={"symbol": "circle", "size": 8},
                hovertemplate="γ = %{x}<br>tokens per block %{y:.4f}<extra></extra>",
            ),
            go.Scatter(
                name="walltime improvement (×)",
                x=gammas,
                y=[row[2] for row in curve],
                mode="lines+markers",
                line={"color": COLORS["correction"], "width": 3, "dash": "dash"},
                marker={"symbol": "diamond", "size": 9},
                hovertemplate="γ = %{x}<br>improvement %{y:.4f}×<extra></extra>",
            ),
        ]
    )
    if best_gamma is not None and best_gamma in gammas:
        row = curve[gammas.index(best_gamma)]
        fig.add_trace(
            go.Scatter(
                name=f"best γ = {best_gamma}",
                x=[best_gamma],
                y=[row[2]],
                mode="markers+text",
                text=[f"best γ = {best_gamma}: {row[2]:.3f}×"],
                textposition="top center",
                marker={"symbol": "star", "size": 18, "color": COLORS["prediction"]},
                hoverinfo="skip",
            )
        )
    title = "Speed-up against the number of drafts γ"
    if alpha is not None and c is not None:
        title += f" (α = {float(alpha):.2f}, c = {float(c):.2f})"
    top = max([row[1] for row in curve] + [row[2] for row in curve] + [1.0])
    _layout(fig, title, "drafts per block γ", "tokens per block / improvement factor", top)
    fig.update_xaxes(dtick=1 if len(gammas) <= 16 else 2)
    return fig
