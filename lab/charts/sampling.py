"""Chart builders for the Sampling lab and Blocks pages: pure functions returning plotly figures.

Colours and fill patterns come from lab/charts/palette.py (p, q, accepted, correction, prediction); every
bar carries a text label, lines carry distinct dashes and marker symbols, so colour never carries
meaning alone. Inputs are plain numbers (Fractions or floats); y values are float lists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from lab.charts import base, palette
from lab.charts.palette import COLORS
from lab.core.formatting import exact_text, plotly_text
from lab.i18n import N_

HEIGHT = 420


def _hover(value) -> str:
    if isinstance(value, Fraction | int):
        return exact_text(value)
    return f"{float(value):.6g}"


def _bar(role: str, name: str, x, values, offsetgroup: str, base_values=None, text=True, inside=False) -> dict:
    return base.bar(
        name,
        x,
        values,
        role=role,
        hover=_hover,
        text=text,
        inside=inside,
        base=[float(b) for b in base_values] if base_values is not None else None,
        offsetgroup=offsetgroup,
    )


def _layout(title: str, x_title: str, y_title: str, y_max: float | None = None) -> dict:
    return {
        **base.layout(
            title,
            height=HEIGHT,
            margin={"l": 60, "r": 10, "t": 20, "b": 110},
            legend=base.legend_below(-0.28),
            barmode="group",
            bargap=0.25,
        ),
        **base.value_axes(x_title, y_title, y_max),
    }


def empirical_vs_target(tokens: Sequence[str], target: Sequence, accepted_share: Sequence, corrected_share: Sequence):
    """Target p beside the empirical frequencies, each split into accepted (bottom) and corrected (top)."""
    total = [float(a) + float(c) for a, c in zip(accepted_share, corrected_share)]
    corrected = _bar(
        "correction", N_("empirical: corrected"), tokens, corrected_share, "sim", accepted_share, text=False
    )
    # the empirical total above each stacked bar
    corrected.update(text=[f"{t:.3f}" for t in total], textposition="outside")
    corrected["textfont"] = {**corrected["textfont"], "color": palette.TEXT}
    traces = [
        _bar("p", N_("target p"), tokens, target, "p"),
        _bar("accepted", N_("empirical: accepted"), tokens, accepted_share, "sim", text=False),
        corrected,
    ]
    top = max([float(v) for v in target] + total + [0.0])
    layout = _layout(N_("Empirical frequencies converge to p"), N_("token"), N_("share of steps"), top)
    return base.figure(traces, layout)


def branch_counts(tokens: Sequence[str], observed: Sequence[int], expected: Sequence, role: str, title: str):
    """Observed counts of one branch (accepted or corrected) with the exact expected counts as markers."""
    traces = [
        _bar(role, N_("observed"), tokens, [int(v) for v in observed], role, inside=True),
        {
            "type": "scatter",
            "name": N_("expected"),
            "x": list(tokens),
            "y": [float(v) for v in expected],
            "mode": "markers",
            "marker": {
                "symbol": "diamond",
                "size": 13,
                "color": palette.EXPECTED,
                "line": {"color": palette.PAPER, "width": 1},
            },
            "customdata": [f"{float(v):.1f}" for v in expected],
            "hovertemplate": N_("expected") + "<br>%{x}: %{customdata}<extra></extra>",
        },
    ]
    top = max([float(v) for v in observed] + [float(v) for v in expected] + [0.0])
    return base.figure(traces, _layout(title, N_("token"), N_("steps"), top))


def _count_text(n: int) -> str:
    """A tick label for a number of steps: 100, 300, 1k, 30k, 1M."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n:,}"


def _one_two_five(low: float, high: float) -> list[float]:
    """1, 2 and 5 times powers of ten from ``low`` to ``high`` (clean log-axis ticks)."""
    powers = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    return [m * 10.0**k for k in powers for m in (1, 2, 5) if low <= m * 10.0**k <= high]


def convergence(ns: Sequence[int], distances: Sequence[float], own: tuple[int, float] | None = None):
    """The median distance of the empirical frequencies from p against N (log-log), with the c/sqrt(N) guide
    through them (c the median of distance * sqrt(N)); ``own`` is the reader's run, a point of its own. Ticks
    only at the N values and at 1, 2, 5 times powers of ten: no crowd of minor ticks."""
    ns = [int(n) for n in ns]
    shown = [float(d) for d in distances]
    scaled = sorted(d * n**0.5 for n, d in zip(ns, shown) if d > 0)
    c = scaled[len(scaled) // 2] if scaled else None
    guide = [c / n**0.5 for n in ns] if c else []
    traces = [
        base.line(
            N_("median distance over seeded runs"),
            ns,
            shown,
            COLORS["p"],
            hovertemplate=N_("median distance over seeded runs") + "<br>N = %{x:,}: %{y:.4f}<extra></extra>",
        ),
        {
            "type": "scatter",
            "name": "c / √N",
            "x": ns,
            "y": guide,
            "mode": "lines",
            "line": {"color": COLORS["prediction"], "width": 2, "dash": "dash"},
            "hoverinfo": "skip",
        },
    ]
    if own is not None and own[1] > 0:  # a log axis cannot show 0
        traces.append(
            {
                "type": "scatter",
                "name": N_("your run"),
                "x": [int(own[0])],
                "y": [float(own[1])],
                "mode": "markers",
                "marker": {"symbol": "diamond", "size": 13, "color": COLORS["correction"]},
                "hovertemplate": N_("your run") + "<br>N = %{x:,}: %{y:.4f}<extra></extra>",
            }
        )
    layout = _layout(N_("Distance from p shrinks like 1/√N"), N_("steps N (log scale)"), N_("total variation distance"),
                     None)
    own = own if own is not None and own[1] > 0 else None
    all_n = ns + ([int(own[0])] if own else [])
    layout["xaxis"].update(
        type="log", tickmode="array", tickvals=ns, ticktext=[_count_text(n) for n in ns], minor={"showgrid": False}
    )
    positive = [v for v in shown + guide + ([float(own[1])] if own else []) if v > 0]
    if positive:
        low, high = min(positive) / 1.5, max(positive) * 1.5
        ticks = _one_two_five(low, high)
        layout["yaxis"].update(
            type="log",
            tickmode="array",
            tickvals=ticks,
            ticktext=[f"{t:g}" for t in ticks],
            range=[math.log10(low), math.log10(high)],
            minor={"showgrid": False},
        )
    layout["xaxis"]["range"] = [math.log10(min(all_n) / 1.5), math.log10(max(all_n) * 1.5)]
    layout["margin"] = {**layout["margin"], "l": 90}  # room for "0.005" beside the axis title
    layout["yaxis"]["automargin"] = True
    return base.figure(traces, layout)


BLOCK_STATUSES = {
    # status: (legend name, colour, marker symbol)
    "drafted": (N_("drafted, not tested yet"), COLORS["q"], "square-open"),
    "accepted": (N_("kept"), COLORS["accepted"], "square"),
    "rejected": (N_("rejected"), palette.REJECTED, "x"),
    "replacement": (N_("replacement from r"), COLORS["correction"], "diamond"),
    "discarded": (N_("discarded"), palette.MUTED, "square-open-dot"),
    "bonus": (N_("bonus from p"), COLORS["p"], "star"),
}


def block_points(vocab: Sequence[str], trace, revealed: int | None = None) -> list[tuple[str, int, int, str]]:
    """(status, position, row, token) for every box of the block drawing; row 1 drafts, row 0 commits (every
    committed token in order, as the trace's ``committed``: kept drafts, replacements, the bonus).

    ``revealed`` limits what is drawn to the first events (0: drafts only; i: i tests shown;
    len(tests) + 1 or None: everything, with the bonus)."""
    tests = trace.tests
    shown_tests = len(tests) if revealed is None else max(0, min(revealed, len(tests)))
    points = []
    for i, test in enumerate(tests):
        token = vocab[test.token]
        if i >= shown_tests:
            points.append(("drafted", i + 1, 1, token))
            continue
        points.append((test.status, i + 1, 1, token))
        if test.status == "accepted":  # a kept draft is committed too: the bottom row is the whole block's output
            points.append(("accepted", i + 1, 0, token))
        if test.status == "rejected" and test.replacement is not None:
            points.append(("replacement", i + 1, 0, vocab[test.replacement]))
    if (revealed is None or revealed > len(tests)) and trace.bonus is not None:
        points.append(("bonus", len(tests) + 1, 0, vocab[trace.bonus]))
    return points


def block_trace(vocab: Sequence[str], trace, revealed: int | None = None):
    """One block as boxes: drafts on the top row (kept, rejected, discarded or not yet tested), what the block
    commits on the bottom row (the kept drafts again, the replacement or the bonus token). Status by colour,
    symbol and legend name."""
    points = block_points(vocab, trace, revealed)
    traces = []
    for status, (name, color, symbol) in BLOCK_STATUSES.items():
        mine = [pt for pt in points if pt[0] == status]
        if not mine:
            continue
        traces.append(
            {
                "type": "scatter",
                "name": name,
                "x": [pt[1] for pt in mine],
                "y": [pt[2] for pt in mine],
                "mode": "markers+text",
                "text": [plotly_text(pt[3]) for pt in mine],  # a name like <end> shows as typed
                "textposition": "top center",
                "textfont": {"size": base.SMALL_TITLE_SIZE, "color": palette.TEXT},
                "marker": {"size": 26, "color": color, "symbol": symbol, "line": {"width": 2, "color": color}},
                "hovertemplate": f"{name}<br>%{{text}} (%{{x}})<extra></extra>",
                "cliponaxis": False,
            }
        )
    n_tests = len(trace.tests)
    layout = base.layout(
        N_("One block"),
        height=330,
        margin={"l": 80, "r": 20, "t": 15, "b": 100},
        legend=base.legend_below(-0.2),
        showlegend=True,
        xaxis={
            "tickmode": "array",
            "tickvals": list(range(1, n_tests + 2)),
            "ticktext": [str(i) for i in range(1, n_tests + 1)] + [N_("bonus")],
            "range": [0.4, n_tests + 1.6],
            "showgrid": False,
        },
        yaxis={
            "tickmode": "array",
            "tickvals": [0, 1],
            "ticktext": [N_("committed"), N_("drafted")],
            "range": [-0.5, 1.8],
            "showgrid": False,
            "automargin": True,
        },
    )
    return base.figure(traces, layout)


def speedup_chart(curve: Sequence[tuple[int, float, float]], best_gamma: int | None = None, alpha=None, c=None):
    """Expected tokens per block and walltime improvement against K, the drafts per block (γ in the paper);
    rows from lab.core.speedup.speedup_curve."""
    gammas = [row[0] for row in curve]
    traces = [
        base.line(
            N_("expected tokens per block"),
            gammas,
            [row[1] for row in curve],
            COLORS["p"],
            size=8,
            hovertemplate=N_("expected tokens per block") + "<br>K = %{x}: %{y:.4f}<extra></extra>",
        ),
        base.line(
            N_("walltime improvement (×)"),
            gammas,
            [row[2] for row in curve],
            COLORS["correction"],
            symbol="diamond",
            dash="dash",
            hovertemplate=N_("walltime improvement (×)") + "<br>K = %{x}: %{y:.4f}×<extra></extra>",
        ),
    ]
    if best_gamma is not None and best_gamma in gammas:
        row = curve[gammas.index(best_gamma)]
        best = {
            "type": "scatter",
            "name": "",
            "x": [best_gamma],
            "y": [row[2]],
            # no text beside the star: between the two close curves it sat on a line; the metrics above the
            # chart state the best K and its improvement
            "mode": "markers",
            "marker": {"symbol": "star", "size": 18, "color": COLORS["prediction"]},
            "hovertemplate": "<br>%{y:.3f}×<extra></extra>",
        }
        traces.append(base.trace_name(best, N_("best K = {k}"), k=best_gamma))
    top = max([row[1] for row in curve] + [row[2] for row in curve] + [1.0])
    y_title = N_("tokens per block / improvement factor")
    layout = _layout(N_("Speed-up against the drafts per block K"), N_("drafts per block K"), y_title, top)
    if alpha is not None and c is not None:
        layout["meta"]["subtitle"] = f"α = {float(alpha):.2f}, c = {float(c):.2f}"
    layout["xaxis"]["dtick"] = 3
    if gammas:
        layout["xaxis"]["range"] = [min(gammas) - 0.5, max(gammas) + 0.5]
    return base.figure(traces, layout)
