"""Sampling lab: run N speculative steps with a seed and watch the one-step identity hold as counts.

Predict first (the share of corrected steps, Z), then Run. Empirical bars converge to p; the
accepted-only counts follow N min(p, q) and the corrected-only counts N Z r; a chi-square test
compares the counts with p. A thin view: numbers from lab/core/sampling.py, charts from
lab/charts/sampling.py. Controls live in the URL (bind="query-params").
"""

from __future__ import annotations

import streamlit as st

from lab.core.display import exact_text, markdown_table
from lab.core.distributions import LabInputError
from lab.core.formatting import both_text, decimal_text
from lab.core.residual import residual_exact
from lab.core.sampling import CONVERGENCE_NS, CONVERGENCE_SEEDS, convergence_series, empirical_distance, simulate_steps
from lab.core.scenarios import load_scenario, scenario_names
from lab.models.sampling import MAX_SEED, MAX_STEPS, MIN_STEPS, SamplingModel
from lab.views.accessibility import announce, section, title
from lab.views.common import chart, controls_model, figure, refuse_link_values, show_link_warnings

S = st.session_state
DEFAULTS = SamplingModel()


@st.cache_resource(show_spinner=False, max_entries=64)
def scenario_convergence(name: str, p_text: str, q_text: str) -> tuple[list[int], list[float]]:
    """The 1/√N curve of a scenario: a fixed cost (the same runs whatever the reader's N and seed), computed
    once per scenario for the whole class (the cache's per-key lock keeps simultaneous first loads to one
    computation). The p and q texts are in the key so an edited scenario file is computed again."""
    scenario = load_scenario(name)
    return convergence_series(scenario.p, scenario.q)


refuse_link_values(SamplingModel.from_url(st.query_params)[1], "sl_link_problems")

title("Sampling lab")
st.markdown(
    "Each step proposes a token from the draft **q**, keeps it with probability min(1, p/q), and after a "
    "rejection draws a replacement from the residual **r** with fresh randomness. Run many steps: the "
    "tokens that come out follow the target **p**."
)
show_link_warnings("sl_link_problems")

names = scenario_names()
controls = st.columns([3, 2, 2], vertical_alignment="bottom")
controls[0].selectbox("Scenario", names, index=names.index(DEFAULTS.scenario), key="sl_scenario", bind="query-params")
controls[1].number_input(
    "Steps N",
    min_value=MIN_STEPS,
    max_value=MAX_STEPS,
    value=DEFAULTS.steps,
    step=1000,
    key="sl_steps",
    bind="query-params",
)
controls[2].number_input(
    "Seed",
    min_value=0,
    max_value=MAX_SEED,
    value=DEFAULTS.seed,
    step=1,
    key="sl_seed",
    bind="query-params",
    help="Any whole number",
)

model = controls_model(SamplingModel, "sl_model")
try:
    scenario = load_scenario(model.scenario)
except LabInputError as exc:  # a scenario file broken on disk: say so, keep the page alive
    st.error(str(exc))
    st.stop()
steps, seed = model.steps, model.seed
exact = residual_exact(scenario.p, scenario.q)
tokens = list(scenario.tokens)

st.caption(scenario.title)
st.markdown(  # a markdown table: text, not a data frame converted again on every change of a control
    markdown_table(
        ("token", "target p", "draft q"),
        zip(tokens, (exact_text(v) for v in scenario.p.values), (exact_text(v) for v in scenario.q.values)),
    )
)

section("Predict first")
st.slider(
    "Your guess: share of steps that end in a correction",
    min_value=0.0,
    max_value=1.0,
    value=0.0,
    step=0.01,
    key="sl_guess",
    bind="query-params",
    help="A step is corrected when its proposal is rejected. Guess before you run.",
)
params = (scenario.name, steps, seed)
if st.button(f"Run {steps:,} steps", key="sl_run", type="primary"):
    S["sl_result"] = {
        "params": params,
        "guess": float(model.guess),  # the slider existed before this run, so the model holds its value
        "sim": simulate_steps(scenario.p, scenario.q, steps, seed),
    }

result = S.get("sl_result")
fresh = result is not None and result["params"] == params
announce(  # before the results (the page stops early without them): drawn on every run
    "sl",
    f"Ran {result['sim'].steps:,} steps: corrected share {result['sim'].corrected_share:.4f}, "
    f"exact Z {both_text(exact.z)}; your guess {result['guess']:.2f}. Results below."
    if fresh
    else "",
)
if not fresh:
    if result is not None:
        st.info("The scenario, N or seed changed: predict, then Run again.")
    st.caption("The results appear after you run.")
    st.stop()

sim = result["sim"]
law = sim.law
n = sim.steps
fit = sim.fit()

metrics = st.columns(4)
metrics[0].metric("your guess", f"{result['guess']:.2f}")
metrics[1].metric("corrected share", f"{sim.corrected_share:.4f}", help=f"{int(sim.corrected.sum())} of {n} steps")
metrics[2].metric("exact Z", both_text(exact.z), help="Z = sum of max(0, p - q) = 1 - alpha")
metrics[3].metric(
    "chi-square p-value",
    "—" if fit.p_value is None else f"{fit.p_value:.3g}",
    help="Counts against N p; a small p-value (say below 0.001) would mean the counts do not follow p.",
)
miss = abs(result["guess"] - float(exact.z))
st.markdown(
    f"Your guess was {result['guess']:.2f}; the exact share is Z = {both_text(exact.z)}, "
    f"{'close' if miss <= 0.05 else 'off by ' + decimal_text(miss, 2)}. "
    + (
        "Z = 0: p and q are equal, so no step is ever rejected and the residual is never needed."
        if exact.z == 0
        else f"Observed: {sim.corrected_share:.4f} over {n:,} steps."
    )
)

total = [int(c) / n for c in sim.counts]
chart(
    figure("empirical_vs_target", tokens, scenario.p.values, sim.accepted / n, sim.corrected / n),
    "sl_empirical",
    "Target p beside the empirical frequencies after "
    f"{n} steps: "
    + "; ".join(f"{t}: p {exact_text(p)}, empirical {f:.4f}" for t, p, f in zip(tokens, scenario.p.values, total)),
)


def branch_chart(counts, branch_law, role: str, title: str, key: str, alt: str) -> list[float]:
    """One branch's observed counts against the expected N times its exact law; returns the expected counts."""
    expected = [n * float(v) for v in branch_law]
    chart(
        figure("branch_counts", tokens, counts, expected, role, title),
        key,
        f"{alt}: " + "; ".join(f"{t}: {int(o)} vs {e:.1f}" for t, o, e in zip(tokens, counts, expected)),
    )
    return expected


left, right = st.columns(2)
with left:
    expected_acc = branch_chart(
        sim.accepted,
        law.accepted,
        "accepted",
        "Accepted steps ≈ N·min(p, q)",
        "sl_accepted",
        "Accepted-only counts with expected N min(p, q)",
    )
with right:
    expected_cor = branch_chart(
        sim.corrected,
        law.corrected,
        "correction",
        "Corrected steps ≈ N·Z·r",
        "sl_corrected",
        "Corrected-only counts with expected N Z r",
    )

st.dataframe(
    {
        "token": tokens,
        "p": [exact_text(v) for v in scenario.p.values],
        "min(p, q)": [exact_text(v) for v in law.accepted],
        "Z·r": [exact_text(v) for v in law.corrected],
        "accepted": [int(v) for v in sim.accepted],
        "N·min(p, q)": [round(v, 1) for v in expected_acc],
        "corrected": [int(v) for v in sim.corrected],
        "N·Z·r": [round(v, 1) for v in expected_cor],
        "total": [int(v) for v in sim.counts],
        "N·p": [round(n * float(v), 1) for v in scenario.p.values],
    },
    hide_index=True,
    key="sl_table",
)
if fit.p_value is None:
    st.caption("Only one token can come out, so there is nothing for a chi-square test to compare.")
else:
    pooled = f" ({fit.pooled} rare tokens pooled)" if fit.pooled else ""
    st.caption(
        f"Chi-square against N·p: statistic {fit.statistic:.3f} on {fit.df} degrees of freedom{pooled}, "
        f"p-value {fit.p_value:.3g}. With a fixed seed the run is reproducible: share the link."
    )

ns, medians = scenario_convergence(scenario.name, *(str(d.values) for d in (scenario.p, scenario.q)))
own = (n, empirical_distance(sim.counts, sim.target))
chart(
    figure("convergence", tuple(ns), tuple(medians), own),
    "sl_convergence",
    f"Median total variation distance of the empirical frequencies from p over {len(CONVERGENCE_SEEDS)} seeded "
    "runs at each N, with a c/√N guide line: "
    + ", ".join(f"N = {m:,}: {d:.4f}" for m, d in zip(ns, medians))
    + f"; your run (N = {own[0]:,}, seed {seed}): {own[1]:.4f}",
    table=(
        ("steps N", f"median TV distance from p ({len(CONVERGENCE_SEEDS)} runs)"),
        [(f"{m:,}", f"{d:.4f}") for m, d in zip(ns, medians)],
    ),
)
st.caption(
    f"Each point is the median over {len(CONVERGENCE_SEEDS)} runs with seeds 1 to {len(CONVERGENCE_SEEDS)} at "
    f"N = {', '.join(f'{m:,}' for m in CONVERGENCE_NS)}: a hundred times more steps, a tenth of the distance. "
    "The diamond is your own run."
)
