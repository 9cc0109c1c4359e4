"""Sampling lab: run N speculative steps with a seed and watch the one-step identity hold as counts.

Predict first (the share of corrected steps, Z), then Run. Empirical bars converge to p; the
accepted-only counts follow N min(p, q) and the corrected-only counts N Z r; a chi-square test
compares the counts with p. A thin view: numbers from lab/core/sampling.py, charts from
lab/charts/sampling.py. Controls live in the URL (bind="query-params").
"""

from __future__ import annotations

import streamlit as st

from lab.core.compare import WHY_TEXTS_DIFFER
from lab.core.distributions import LabInputError
from lab.core.formatting import exact_text, markdown_escape, markdown_table
from lab.core.markov import MarkovModel, load_model
from lab.core.residual import ResidualResult, residual_exact
from lab.core.sampling import CONVERGENCE_NS, CONVERGENCE_SEEDS, convergence_series, empirical_distance
from lab.core.scenarios import Scenario, load_scenario
from lab.i18n import N_
from lab.models.sampling import CompareModel, SamplingModel, StepsRun
from lab.teaching.exercises import TEXTS_MATCH_CHOICES, TEXTS_MATCH_QUESTION, grade_texts_match
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.controls import Widgets
from lab.views.ui.language import exact_and_decimal, isolated, number, say, texts
from lab.views.ui.page_state import controls_model, loaded_or_said, refuse_link_values, show_link_warnings

STEPS = Widgets(SamplingModel, bound=True)  # each widget from its control, declared in the model
COMPARE = Widgets(CompareModel, bound=True)
COMPARE_CHART_ROWS = 40  # the comparison is drawn as bars up to this many outputs (the table lists every one)
STEPS_RUN = "sl_result"  # the last press of Run (a StepsRun)
COMPARE_RUN = "sl_cmp_result"  # the last press of "Run both samplers" (a CompareRun)


@st.cache_resource(show_spinner=False, max_entries=64)
def scenario_convergence(name: str, p_text: str, q_text: str) -> tuple[list[int], list[float]]:
    """The 1/√N curve of a scenario: a fixed cost (the same runs whatever the reader's N and seed), computed
    once per scenario for the whole class (the cache's per-key lock keeps simultaneous first loads to one
    computation). The p and q texts are in the key so an edited scenario file is computed again."""
    scenario = load_scenario(name)
    return convergence_series(scenario.p, scenario.q)


def intro() -> None:
    _ = texts()
    title(_("Sampling lab"))
    st.markdown(_(
        "Each step proposes a token from the draft **q**, keeps it with probability min(1, p/q), and after a "
        "rejection draws a replacement from the residual **r** with fresh randomness. Run many steps: the "
        "tokens that come out follow the target **p**."
    ))
    show_link_warnings("sl_link_problems")


def step_controls() -> SamplingModel:
    """Scenario, N and seed, read into the page model (a refused value keeps the last valid one)."""
    _ = texts()
    controls = st.columns([3, 2, 2], vertical_alignment="bottom")
    # listed by file name: a widget bound to the link writes the name it shows there (a title would be the language's)
    STEPS.selectbox(controls[0], "scenario")
    STEPS.number_input(controls[1], "steps", step=1000)
    STEPS.number_input(controls[2], "seed", help=_("Any whole number"))
    return controls_model(SamplingModel, "sl_model")


def scenario_table(scenario: Scenario) -> None:
    _ = texts()
    st.caption(markdown_escape(_(scenario.title)))
    st.markdown(  # a markdown table: text, not a data frame converted again on every change of a control
        markdown_table(
            (_("token"), _("target p"), _("draft q")),
            zip(
                scenario.tokens,
                (exact_text(v) for v in scenario.p.values),
                (exact_text(v) for v in scenario.q.values),
            ),
        )
    )


def predict_and_run(model: SamplingModel, scenario: Scenario) -> None:
    """The guess, then Run: a press keeps the run with the guess made before it."""
    _ = texts()
    section(_("Predict first"))
    STEPS.slider(st, "guess", help=_("A step is corrected when its proposal is rejected. Guess before you run."))
    if st.button(_.ngettext("Run {count} step", "Run {count} steps", model.steps, count=number(model.steps, ",")),
                 key="sl_run", type="primary"):
        st.session_state[STEPS_RUN] = model.run(scenario)  # the slider existed before this run: the model has it


def branch_chart(tokens, steps: int, counts, branch_law, role: str, chart_title: str, key: str, alt: str) -> list:
    """One branch's observed counts against the expected N times its exact law; returns the expected counts.
    ``chart_title``: marked for the catalogs, in English (the figure says it in the page's language)."""
    _ = texts()
    expected = [steps * float(v) for v in branch_law]
    values = "; ".join(
        _("{token}: {observed} vs {expected}", token=t, observed=int(o), expected=number(e, ".1f"))
        for t, o, e in zip(tokens, counts, expected)
    )
    chart(
        figure("branch_counts", tokens, counts, expected, role, chart_title),
        key,
        _("{description}: {values}", description=alt, values=values),
    )
    return expected


def p_value_text(fit) -> str:
    return "—" if fit.p_value is None else number(fit.p_value, ".3g")


def run_metrics(run: StepsRun, exact: ResidualResult, fit) -> None:
    """The guess beside the observed share and the exact Z, and the chi-square p-value."""
    _ = texts()
    simulation = run.simulation
    metrics = st.columns(4)
    metrics[0].metric(_("your guess"), number(run.guess, ".2f"))
    metrics[1].metric(
        _("corrected share"),
        number(simulation.corrected_share, ".4f"),
        help=_("{corrected} of {steps} steps", corrected=number(int(simulation.corrected.sum()), ","),
               steps=number(simulation.steps, ",")),
    )
    metrics[2].metric(
        _("exact Z"),
        exact_and_decimal(exact.z),
        help=_("The probability that a step rejects its proposal: Z = Σ max(0, p − q) = 1 − α"),
    )
    metrics[3].metric(
        _("chi-square p-value"),
        p_value_text(fit),
        help=_(
            "The chi-square test's p-value (a probability, not the target p): how likely counts this far from "
            "N·p are if the sampler does follow p. Below {threshold} would mean they do not.",
            threshold=number(0.001),
        ),
    )
    miss = run.guess_miss(exact.z)
    values = {"guess": number(run.guess, ".2f"), "z": isolated("Z = " + exact_and_decimal(exact.z))}
    verdict = (
        _("Your guess was {guess}; the exact share is {z}: close.", **values)
        if miss is None
        else _("Your guess was {guess}; the exact share is {z}: off by {miss}.", **values,
               miss=number(round(miss, 3), "g"))
    )
    st.markdown(verdict + " " + (
        _("Z = 0: p and q are equal, so no step is ever rejected and the residual is never needed.")
        if exact.z == 0
        else _.ngettext("Observed: {share} over {steps} step.", "Observed: {share} over {steps} steps.",
                        simulation.steps, share=number(simulation.corrected_share, ".4f"),
                        steps=number(simulation.steps, ","))
    ))


def counts_charts(run: StepsRun, scenario: Scenario, fit) -> None:
    """Empirical frequencies against p, each branch against its exact law, and every count in a table."""
    _ = texts()
    simulation, law, tokens = run.simulation, run.simulation.law, list(scenario.tokens)
    n = simulation.steps
    total = [int(c) / n for c in simulation.counts]
    values = "; ".join(
        _("{token}: p {p}, empirical {share} (accepted {accepted}, corrected {corrected})", token=t,
          p=exact_text(p), share=number(f, ".4f"), accepted=number(a / n, ".4f"), corrected=number(c / n, ".4f"))
        for t, p, f, a, c in zip(tokens, scenario.p.values, total, simulation.accepted, simulation.corrected)
    )
    chart(
        figure("empirical_vs_target", tokens, scenario.p.values, simulation.accepted / n, simulation.corrected / n),
        "sl_empirical",
        _("Target p beside the empirical frequencies after {steps} steps: {values}", steps=number(n, ","),
          values=values),
    )
    left, right = st.columns(2)
    with left:
        expected_accepted = branch_chart(
            tokens,
            n,
            simulation.accepted,
            law.accepted,
            "accepted",
            N_("Accepted steps ≈ N·min(p, q)"),
            "sl_accepted",
            _("Accepted-only counts with expected N min(p, q)"),
        )
    with right:
        expected_corrected = branch_chart(
            tokens,
            n,
            simulation.corrected,
            law.corrected,
            "correction",
            N_("Corrected steps ≈ N·Z·r"),
            "sl_corrected",
            _("Corrected-only counts with expected N Z r"),
        )
    st.dataframe(
        {
            _("token"): tokens,
            "p": [exact_text(v) for v in scenario.p.values],
            "min(p, q)": [exact_text(v) for v in law.accepted],
            "Z·r": [exact_text(v) for v in law.corrected],
            _("accepted"): [int(v) for v in simulation.accepted],
            "N·min(p, q)": [number(v, ".1f") for v in expected_accepted],
            _("corrected"): [int(v) for v in simulation.corrected],
            "N·Z·r": [number(v, ".1f") for v in expected_corrected],
            _("total"): [int(v) for v in simulation.counts],
            "N·p": [number(n * float(v), ".1f") for v in scenario.p.values],
        },
        hide_index=True,
        key="sl_table",
    )
    if fit.p_value is None:
        st.caption(_("Only one token can come out, so there is nothing for a chi-square test to compare."))
    else:
        pooled = _.ngettext("{count} rare token pooled", "{count} rare tokens pooled", fit.pooled, count=fit.pooled)
        st.caption(chi_square_sentence(fit, _("Chi-square against N·p"), pooled) + " "
                   + _("With a fixed seed the run is reproducible: share the link."))


def chi_square_sentence(fit, against: str, pooled: str) -> str:
    """"Chi-square against …: statistic …, p-value …." in the page's language; ``pooled``: the words for the rare
    outcomes pooled into one (said only when some were)."""
    _ = texts()
    values = {"against": against, "statistic": number(fit.statistic, ".3f"), "df": fit.df,
              "p_value": number(fit.p_value, ".3g")}
    if fit.pooled:
        return _.ngettext(
            "{against}: statistic {statistic} on {df} degree of freedom ({pooled}), p-value {p_value}.",
            "{against}: statistic {statistic} on {df} degrees of freedom ({pooled}), p-value {p_value}.",
            fit.df, pooled=pooled, **values,
        )
    return _.ngettext(
        "{against}: statistic {statistic} on {df} degree of freedom, p-value {p_value}.",
        "{against}: statistic {statistic} on {df} degrees of freedom, p-value {p_value}.",
        fit.df, **values,
    )


def convergence_chart(run: StepsRun, scenario: Scenario) -> None:
    """The scenario's median distance from p against N, with the reader's own run on it."""
    _ = texts()
    simulation = run.simulation
    ns, medians = scenario_convergence(scenario.name, *(str(d.values) for d in (scenario.p, scenario.q)))
    own = (simulation.steps, empirical_distance(simulation.counts, simulation.target))
    runs = len(CONVERGENCE_SEEDS)
    chart(
        figure("convergence", tuple(ns), tuple(medians), own),
        "sl_convergence",
        _("Median total variation distance of the empirical frequencies from p over {runs} seeded runs at each N, "
          "with a c/√N guide line: {values}; your run (N = {steps}, seed {seed}): {distance}", runs=runs,
          values=", ".join(f"N = {number(m, ',')}: {number(d, '.4f')}" for m, d in zip(ns, medians)),
          steps=number(own[0], ","), seed=simulation.seed, distance=number(own[1], ".4f")),
        table=(
            (_("steps N"), _("median TV distance from p ({runs} runs)", runs=runs)),
            [(number(m, ","), number(d, ".4f")) for m, d in zip(ns, medians)],
        ),
    )
    st.caption(_(
        "Each point is the median over {runs} runs with seeds 1 to {runs} at N = {ns}: a hundred times more steps, "
        "a tenth of the distance. The diamond is your own run.",
        runs=runs, ns=", ".join(number(m, ",") for m in CONVERGENCE_NS),
    ))


def one_step_results(model: SamplingModel, scenario: Scenario) -> None:
    """The run's results, once Run was pressed for the scenario, N and seed on screen (announced on every run)."""
    _ = texts()
    exact = residual_exact(scenario.p, scenario.q)
    run, changed = model.results(scenario, st.session_state.get(STEPS_RUN))
    announce(  # before the results (the page stops early without them): drawn on every run
        "sl",
        _("Ran {steps} steps: corrected share {share}, exact Z {z}; your guess {guess}. Results below.",
          steps=number(run.simulation.steps, ","), share=number(run.simulation.corrected_share, ".4f"),
          z=exact_and_decimal(exact.z), guess=number(run.guess, ".2f"))
        if run is not None
        else "",
    )
    if run is None:
        if changed:
            st.info(_(changed))
        st.caption(_("The results appear after you run."))
        return
    fit = run.simulation.fit()  # the counts against N·p
    run_metrics(run, exact, fit)
    counts_charts(run, scenario, fit)
    convergence_chart(run, scenario)


@st.fragment
def one_step_section() -> bool:
    """Scenario, N, seed, the guess, Run and the results: a fragment, so changing one of them reruns this section
    only (a whole run of the page cost 2.6x the minimal app's CPU per change). False: the scenario's file is broken
    (a full run then draws nothing after this section)."""
    model = step_controls()
    scenario = loaded_or_said(load_scenario, model.scenario)
    if scenario is None:
        return False
    scenario_table(scenario)
    predict_and_run(model, scenario)
    one_step_results(model, scenario)
    return True


def compare_intro() -> None:
    _ = texts()
    section(_("Different text, same law"))
    st.markdown(_(
        "Ordinary sampling draws every token from **p**. Speculative sampling drafts blocks of K tokens from **q**, "
        "tests them and corrects the first rejection. Both start here from the **same seed**: compare the texts "
        "they write, and how often each output comes out against the exact law."
    ))


def compare_controls() -> CompareModel:
    """Model, K, L and outputs per sampler, read into the section's model."""
    _ = texts()
    controls = st.columns([3, 2, 2, 2], vertical_alignment="bottom")
    COMPARE.selectbox(controls[0], "model", help=_("A Markov model; those with a stop token end their outputs there"))
    COMPARE.number_input(controls[1], "block")
    COMPARE.number_input(
        controls[2],
        "length",
        help=_("An output ends with the model's stop token or is cut at L tokens, the stop token counted as one of "
               "them"),
    )
    COMPARE.number_input(controls[3], "outputs", step=500)
    return controls_model(CompareModel, "sl_cmp_state")


def compare_caption(compare: CompareModel, markov: MarkovModel) -> None:
    _ = texts()
    name = markdown_escape(_(markov.title))
    if markov.stop is not None:
        st.caption(_(
            "{model}. An output ends with {stop} or is cut at L = {length} tokens ({stop} counted as one of them), "
            "for both samplers.", model=name, stop=markdown_escape(markov.stop_name), length=compare.length,
        ))
    else:
        st.caption(_("{model}. This model never stops: each output has L = {length} tokens.", model=name,
                     length=compare.length))


def compare_predict_and_run(compare: CompareModel, markov: MarkovModel, seed: int) -> bool:
    """The prediction, then Run both samplers; False after saying the run was refused."""
    _ = texts()
    choice = st.radio(
        _(TEXTS_MATCH_QUESTION),
        list(TEXTS_MATCH_CHOICES),
        format_func=lambda key: _(TEXTS_MATCH_CHOICES[key]) if key in TEXTS_MATCH_CHOICES else str(key),
        index=None,
        key=compare.guess_key(seed),
    )
    if st.button(
        _.ngettext("Run both samplers ({count} output each, seed {seed})",
                   "Run both samplers ({count} outputs each, seed {seed})", compare.outputs,
                   count=number(compare.outputs, ","), seed=seed),
        key="sl_cmp_run", type="primary",
    ):
        try:
            st.session_state[COMPARE_RUN] = compare.run(markov, seed, choice)
        except LabInputError as exc:
            st.error(markdown_escape(say(exc)))
            announce("sl_cmp", error=say(exc))
            return False
    return True


def compare_texts(result, markov: MarkovModel) -> None:
    """The first outputs of both samplers side by side, and how many runs wrote identical texts."""
    _ = texts()
    text = markov.sequence_text
    st.markdown(
        markdown_table(
            (_("run"), _("ordinary sampling"), _("speculative sampling"), _("same text")),
            (
                (str(i + 1), text(o), text(s), _("yes") if o == s else _("no"))  # markdown_table escapes every cell
                for i, (o, s) in enumerate(zip(result.ordinary_first, result.speculative_first))
            ),
        )
    )
    metrics = st.columns(3)
    metrics[0].metric(
        _("identical texts"),
        number(result.identical_share, ".1%"),
        help=_("{identical} of {runs} runs: the i-th outputs of both samplers are the same text",
               identical=number(result.identical, ","), runs=number(result.sequences, ",")),
    )
    for column, label, fit in (
        (metrics[1], _("ordinary: chi-square p-value"), result.fit_ordinary),
        (metrics[2], _("speculative: chi-square p-value"), result.fit_speculative),
    ):
        column.metric(
            label,
            p_value_text(fit),
            help=_(
                "The chi-square test's p-value (a probability, not the target p): counts against N times the "
                "exact law; below {threshold} would mean they do not fit it.", threshold=number(0.001),
            ),
        )
    st.markdown(_("**Why:** {why}", why=say(WHY_TEXTS_DIFFER)))


def compare_laws(result, markov: MarkovModel) -> None:
    """Both samplers' frequencies against the exact law: bars for a short law, the fits, every output on demand."""
    _ = texts()
    text = markov.sequence_text
    outputs = sorted(result.law)
    exact = tuple(result.law[k] for k in outputs)
    ordinary = tuple(result.ordinary_counts.get(k, 0) / result.sequences for k in outputs)
    speculative = tuple(result.speculative_counts.get(k, 0) / result.sequences for k in outputs)
    labels = tuple(text(k) for k in outputs)
    if len(outputs) <= COMPARE_CHART_ROWS:
        values = "; ".join(
            _("{output}: exact {exact}, ordinary {ordinary}, speculative {speculative}", output=o,
              exact=exact_text(e), ordinary=number(a, ".4f"), speculative=number(b, ".4f"))
            for o, e, a, b in zip(labels, exact, ordinary, speculative)
        )
        chart(
            figure(
                "law_vs_target",
                labels,
                exact,
                {N_("ordinary (empirical)"): ordinary, N_("speculative (empirical)"): speculative},
                N_("Both samplers against the exact law"),
                N_("exact law"),
            ),
            "sl_cmp_chart",
            _("Bars of the exact law and both samplers' empirical frequencies for each output: {values}",
              values=values),
        )
    for fit, only_one, against in (
        (result.fit_ordinary, N_("Ordinary: only one output is possible, nothing for a chi-square test to compare."),
         N_("Ordinary sampling against the exact law")),
        (result.fit_speculative,
         N_("Speculative: only one output is possible, nothing for a chi-square test to compare."),
         N_("Speculative sampling against the exact law")),
    ):
        if fit.p_value is None:
            st.caption(_(only_one))
        else:
            pooled = _.ngettext("{count} rare output pooled", "{count} rare outputs pooled", fit.pooled,
                                count=fit.pooled)
            st.caption(chi_square_sentence(fit, _(against), pooled))
    # drawn only while open (opening it reruns): up to 4,096 rows that most students never open
    every = st.expander(_("Every output: exact law and both samplers' counts"), key="sl_cmp_every",
                        on_change="rerun")
    if every.open:
        rows = (
            (label, exact_text(e), number(result.ordinary_counts.get(k, 0), ","),
             number(result.speculative_counts.get(k, 0), ","))
            for label, e, k in zip(labels, exact, outputs)
        )
        every.markdown(markdown_table((_("output"), _("exact law"), _("ordinary"), _("speculative")), rows))


@st.fragment
def compare_section() -> None:
    """The comparison's controls, prediction and results: a fragment, so its changes rerun this section only."""
    _ = texts()
    compare = compare_controls()
    seed = controls_model(SamplingModel, "sl_model", quiet=True).seed
    try:
        markov = load_model(compare.model)
    except LabInputError as exc:
        st.error(markdown_escape(say(exc)))
        announce("sl_cmp", error=say(exc))  # this section's live regions are drawn on every run of the fragment
        return
    compare_caption(compare, markov)
    if not compare_predict_and_run(compare, markov, seed):
        return
    run = compare.results(seed, st.session_state.get(COMPARE_RUN))
    if run is None:
        st.caption(_("Predict, then run: the texts and the counts appear after the run."))
        announce("sl_cmp")
        return
    result = run.comparison
    grade = grade_texts_match(run.guess, result.identical, result.sequences, result.distance)
    message = say(grade.message)
    announce(
        "sl_cmp",
        _("Ran both samplers: {share} of the runs wrote identical texts. {grade} Results below.",
          share=number(result.identical_share, ".1%"), grade=message),
    )
    (st.success if grade.correct else st.info if not grade.counted else st.warning)(markdown_escape(message))
    compare_texts(result, markov)
    compare_laws(result, markov)


def main() -> None:
    refuse_link_values(
        SamplingModel.from_url(st.query_params)[1] + CompareModel.from_url(st.query_params)[1], "sl_link_problems"
    )
    intro()
    if not one_step_section():
        return  # the scenario's file is broken: said in the section, and the rest of the page is not drawn
    compare_intro()
    compare_section()


main()
