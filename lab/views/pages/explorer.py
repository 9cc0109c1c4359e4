"""Residual explorer: pick or type p and q, predict r and Z, then reveal the exact residual.

A thin view: the token table, URL state and scoring live in lab/models/explorer.py, the residual
in lab/core/residual.py, the charts in lab/charts/residual.py.
"""

from __future__ import annotations

import streamlit as st

from lab.core.distributions import to_fraction
from lab.core.errors import Said, said, said_of
from lab.core.formatting import decimal_text, exact_text, fraction_text, markdown_escape
from lab.core.residual import residual_exact
from lab.core.scenarios import ScenarioError, load_scenario
from lab.models.explorer import (
    EDITOR,
    MAX_TOKENS,
    R_PREDICTION,
    SCENARIO,
    Z_PREDICTION,
    ExplorerInputError,
    ExplorerModel,
    TokenRow,
    reconstruction_rows,
    score_prediction,
    score_z_only,
    slider_columns,
    slider_value,
)
from lab.views.ui.accessibility import announce, section, title, wide_table_cue
from lab.views.ui.bar_predictor import bar_predictor
from lab.views.ui.charts import chart, figure
from lab.views.ui.charts import pq_chart as draw_pq_chart  # this page's pq_chart(result) draws with it
from lab.views.ui.controls import Widgets
from lab.views.ui.language import decimal_comma, exact_and_decimal, say, texts
from lab.views.ui.page_state import keep_valid, load_once, push_to_widgets, sync_query_params
from lab.views.ui.presentation import is_presenting, url_reveal_allowed

session = st.session_state  # this browser session's state
WIDGETS = Widgets(ExplorerModel, start=False)  # widgets from the model's controls (their values are put in first)


# --- state ------------------------------------------------------------------------------------
# session["ex_model"]: the page's ExplorerModel (lab/models/explorer.py), kept across page switches (widget
# keys are dropped when their page is not shown). Widgets ex_name_i / ex_p_i / ex_q_i / ex_r_i / ex_z
# mirror it; the link is written from it (ExplorerModel.to_url).


def model_widgets(model: ExplorerModel) -> dict:
    """The model as widget values: the scenario, the table's boxes, the prediction sliders, the editor toggle."""
    widgets = {SCENARIO.key: model.scenario}
    for i, row in enumerate(model.rows):
        widgets.update({f"ex_name_{i}": row.name, f"ex_p_{i}": row.p, f"ex_q_{i}": row.q})
    widgets.update({R_PREDICTION.widget_key(i): value for i, value in enumerate(model.preds)})
    widgets.update({Z_PREDICTION.key: model.z_pred, EDITOR.key: model.edit})
    return widgets


def push_widgets(model: ExplorerModel) -> None:
    """Write the model into the widget keys (allowed before the widgets exist or in a callback)."""
    push_to_widgets(model_widgets(model))


def restore_missing_widgets(model: ExplorerModel) -> None:
    if SCENARIO.key not in session:
        session[SCENARIO.key] = model.scenario
    for i, row in enumerate(model.rows):
        for field, value in (("name", row.name), ("p", row.p), ("q", row.q)):
            session.setdefault(f"ex_{field}_{i}", value)
    sliders = [(R_PREDICTION.widget_key(i), value) for i, value in enumerate(model.preds)]
    sliders.append((Z_PREDICTION.key, model.z_pred))
    for key, value in sliders:
        session.setdefault(key, value)
        keep_valid(key, lambda v: slider_value(v, None), value)  # a value a browser never sends: not for the slider
    session.setdefault(EDITOR.key, model.edit)


def on_scenario_change() -> None:
    """A new scenario from the list. The name is checked: a crafted message can send any text."""
    model = session["ex_model"]
    try:
        model.load_scenario(session[SCENARIO.key])
    except (ExplorerInputError, ScenarioError) as exc:
        session["ex_message"] = said("Not applied: {problem}. The scenario “{name}” stays on screen.",
                                     problem=said_of(exc), name=Said(load_scenario(model.scenario).title))
    push_widgets(model)


def on_reset() -> None:
    session["ex_model"].reset()
    push_widgets(session["ex_model"])
    session["ex_message"] = said("Reset: the scenario's p and q are back and the predictions are cleared.")


def typed_rows(model: ExplorerModel) -> list[TokenRow]:
    """The table as typed in the editor's boxes (widget states are text: a crafted message may send other types)."""
    return [
        TokenRow(
            str(session.get(f"ex_name_{i}", row.name)),
            str(session.get(f"ex_p_{i}", row.p)),
            str(session.get(f"ex_q_{i}", row.q)),
        )
        for i, row in enumerate(model.rows)
    ]


def on_table_submit(action: str) -> None:
    """One press of the editor's form: the whole table as typed, without the rows ticked "Remove", then
    ``action`` (:meth:`ExplorerModel.submit_table`); the boxes then show the model's table."""
    model = session["ex_model"]
    removed = {i for i in range(len(model.rows)) if session.get(f"ex_remove_{i}") is True}
    if problem := model.submit_table(typed_rows(model), removed, action, decimal_comma()):
        session["ex_table_problem"] = problem
    for i in range(MAX_TOKENS):
        session.pop(f"ex_remove_{i}", None)
    push_widgets(model)


def intro(link_problems) -> None:
    _ = texts()
    title(_("Residual explorer"))
    st.markdown(_(
        "Pick a scenario or type your own p (target) and q (draft). **Predict** the residual "
        "r = max(0, p − q) / Z and the rejection probability Z, then **Reveal** the exact answer."
    ))
    for problem in link_problems:
        st.warning(markdown_escape(say(problem.message)), icon=":material/link_off:")  # holds URL text: as typed


def scenario_choice(name: str) -> str:
    """A scenario as the list shows it: its title, in the page's language (its file name is for links)."""
    return texts()(load_scenario(name).title)


def scenario_row(model: ExplorerModel):
    """The scenario, Reset and the editor's toggle in one row; returns the place for the note under it (the
    scenario's question, or a word that p and q were edited), filled once the table is read."""
    _ = texts()
    names = SCENARIO.options()
    if session.get(SCENARIO.key) not in names:  # a value a browser never sends (a crafted message)
        session[SCENARIO.key] = model.scenario
    if not isinstance(session.get(EDITOR.key), bool):
        session[EDITOR.key] = model.edit
    top = st.container(horizontal=True, vertical_alignment="bottom")  # one layout block, not one per column
    titles = {name: scenario_choice(name) for name in names}  # made in this run, in its language
    WIDGETS.selectbox(top, "scenario", names, on_change=on_scenario_change, format_func=titles.__getitem__)
    top.button(_("Reset"), key="ex_reset", on_click=on_reset, help=_("Back to the scenario's p and q"))
    if message := session.pop("ex_message", None):
        st.info(markdown_escape(say(message)))  # may hold the text of a refused value
    note_slot = st.empty()
    model.edit = top.toggle(  # in the scenario's row: the answer after Reveal stays on a laptop's screen
        _.ngettext("Edit p and q ({count} token)", "Edit p and q ({count} tokens)", len(model.rows),
                   count=len(model.rows)),
        key=EDITOR.key,
        help=_("Type each token's name, p and q as fractions like 3/10 or decimals like 0.3; add or remove tokens"),
    )
    return note_slot


def table_editor(model: ExplorerModel) -> str:
    """The token table as a form: applied as a whole when a button is pressed (Enter presses Apply, its first
    button), so a half-typed table never shows an error; no character counters (a "3/40" reads like a
    probability). Returns a refused press, named ("" when none)."""
    _ = texts()
    with st.form("ex_table", border=False):
        for i in range(len(model.rows)):
            cols = st.columns([3, 3, 3, 2.6], vertical_alignment="bottom")
            cols[0].text_input(_("Token {number}", number=i + 1), key=f"ex_name_{i}")
            cols[1].text_input(_("p of token {number}", number=i + 1), key=f"ex_p_{i}")
            cols[2].text_input(_("q of token {number}", number=i + 1), key=f"ex_q_{i}")
            cols[3].checkbox(_("Remove token {number}", number=i + 1), key=f"ex_remove_{i}",
                             disabled=len(model.rows) <= 1)
        with st.container(horizontal=True):
            st.form_submit_button(
                _("Apply"),
                key="ex_apply",
                type="primary",
                on_click=on_table_submit,
                args=("apply",),
                help=_("Use the table as typed, without the rows ticked Remove (p and q must each sum to 1)"),
            )
            for column in ("p", "q"):
                st.form_submit_button(
                    _("Normalise {column}", column=column),
                    key=f"ex_normalise_{column}",
                    on_click=on_table_submit,
                    args=(f"normalise-{column}",),
                    help=_("Divide every value of {column} by their sum, exactly (1, 2, 1 becomes 1/4, 1/2, 1/4)",
                           column=column),
                )
            st.form_submit_button(
                _("Add token"),
                key="ex_add",
                on_click=on_table_submit,
                args=("add",),
                # never disabled by its own press (focus would drop to the page's body): at the limit it says why
                help=_("Up to {limit} tokens; a new token starts at p = q = 0", limit=MAX_TOKENS),
            )
    problem = session.pop("ex_table_problem", None)
    if problem:
        problem = say(problem)
        st.error(markdown_escape(problem), icon=":material/error:")  # holds typed text
    return problem or ""


def use_typed_table(model: ExplorerModel) -> str:
    """The table as typed becomes p and q when it parses; a refusal is named and returned."""
    refusal = say(model.use_typed_rows(typed_rows(model), decimal_comma()))
    if refusal:
        st.error(markdown_escape(refusal), icon=":material/error:")  # typed text: shown as typed
    for i, value in enumerate(model.preds):  # a token added: its slider starts at the model's value
        session.setdefault(R_PREDICTION.widget_key(i), value)
    return refusal


def scenario_note(model: ExplorerModel, note_slot) -> str:
    """The scenario's question under its row, or a word that p and q were edited; returns the scenario's teaching
    note, which states the answer, for after the reveal ("" for edited p and q)."""
    try:
        scenario_now = load_scenario(model.scenario)
    except ScenarioError as exc:  # a scenario file broken while the app runs
        note_slot.error(markdown_escape(str(exc)))
        return ""
    _ = texts()
    if (scenario_now.p, scenario_now.q) == model.valid:
        note_slot.caption(markdown_escape(_(scenario_now.question)))  # shown as written (Z * r is no emphasis)
        return _(scenario_now.explanation) if scenario_now.explanation else ""
    note_slot.caption(_("Your own p and q, edited from “{name}”: Reset brings the scenario back.",
                        name=markdown_escape(scenario_choice(model.scenario))))
    return ""


def revealed_text(result, model: ExplorerModel) -> str:
    """What the reveal shows, in one sentence for a screen reader."""
    _ = texts()
    values = {"alpha": exact_and_decimal(result.alpha), "z": exact_and_decimal(result.z),
              "yours": exact_and_decimal(to_fraction(model.z_pred))}
    if result.residual is None:
        return _("Revealed: α = {alpha}, Z = {z} (your Z {yours}). Z = 0: no rejection, so no residual.", **values)
    exact = ", ".join(f"{t} {fraction_text(v)}" for t, v in zip(result.tokens, result.residual))
    return _("Revealed: α = {alpha}, Z = {z} (your Z {yours}); the exact residual r: {exact}. Details below.",
             exact=exact, **values)


def write_url(model: ExplorerModel) -> None:
    sync_query_params(model.to_url())


@st.fragment
def prediction_panel(tokens: tuple[str, ...]) -> None:
    """The prediction sliders and Reveal. A fragment: before the reveal, moving a slider reruns only
    this panel (the table, the p/q chart stay as they are), so the page answers as fast as a tiny app.
    After the reveal the score below depends on the sliders, so a change reruns the whole page."""
    model = session["ex_model"]
    revealed = model.is_revealed
    _ = texts()
    section(_("Your prediction"))
    # a slider's value is checked like a link's (a crafted message could send text): a refused one keeps the last
    preds = [slider_value(session[R_PREDICTION.widget_key(i)], v) for i, v in enumerate(model.preds[: len(tokens)])]
    # the bars you draw, bound to the sliders below (a release moves the sliders; a slider moves its bar)
    bar_predictor(
        "ex_bars", [f"r({t})" for t in tokens], preds, [R_PREDICTION.widget_key(i) for i in range(len(tokens))],
        large=is_presenting(), sum_note=" " + _("(it should add up to 1)."),
    )
    # even rows: the sliders in a grid of equal columns (three a row for three tokens, two for four; a phone
    # stacks them one a row), never a wrapped row of two over one
    per_row = slider_columns(len(tokens))
    for start in range(0, len(tokens), per_row):
        cells = st.columns(per_row)
        for cell, i in zip(cells, range(start, min(start + per_row, len(tokens)))):
            label = _(R_PREDICTION.label, token=markdown_escape(tokens[i]))
            cell.slider(label, 0.0, 1.0, step=0.01, key=R_PREDICTION.widget_key(i), format="%.2f")
    preds = [slider_value(session[R_PREDICTION.widget_key(i)], v) for i, v in enumerate(model.preds[: len(tokens)])]
    # Z and Reveal in one row: the answer below stays on a laptop's screen
    with st.container(horizontal=True, vertical_alignment="bottom"):
        WIDGETS.slider(
            st, "z_pred", format="%.2f",
            help=_("Your guess of Z, the probability that the draft's proposal is rejected: "
                   "Z = Σ max(0, p − q) = 1 − α"),
        )
        # Never disabled by its own press: a button that disables itself drops keyboard focus to the page's
        # body. Pressed again after the reveal, it changes nothing.
        pressed = st.button(_("Reveal"), key="ex_reveal", type="primary")
    changed = model.set_predictions(preds, slider_value(session[Z_PREDICTION.key], model.z_pred))
    if pressed and not revealed:
        model.reveal()
        st.rerun()  # the whole page: the answer is drawn below this panel
    if revealed and changed:  # only on a rerun of this panel alone: a full run never changes them here
        st.rerun()
    write_url(model)


def exact_answer(result, model: ExplorerModel, score, explanation: str) -> None:
    """The answer's summary, drawn just under Reveal (where the eye is): α, Z, the scored Z and r, and the
    scenario's teaching note (it states the answer)."""
    _ = texts()
    section(_("The exact answer"))
    metrics = st.columns(2)  # two: the column beside the chart is half the page (your Z is in the line below)
    metrics[0].metric(_("α (acceptance probability)"), exact_and_decimal(result.alpha))
    metrics[1].metric(_("Z = 1 − α (rejection probability)"), exact_and_decimal(result.z))
    z_error = score_z_only(result, model.z_pred)
    st.markdown(_(
        "α = {alpha}, Z = {z} (your Z: {yours}, error {error}).", alpha=exact_and_decimal(result.alpha),
        z=exact_and_decimal(result.z), yours=exact_and_decimal(to_fraction(model.z_pred)),
        error=exact_and_decimal(z_error),
    ))
    if explanation:
        st.markdown(markdown_escape(explanation))
    if result.residual is None:
        st.info(
            _("Z = 0: p and q are identical, so every proposal is accepted. There is no rejection, so the "
              "residual r = 0/0 is never evaluated and no residual is drawn (your r is not scored: there is "
              "nothing to compare it with); min(p, q) alone is p."),
            icon=":material/check_circle:",
        )
        return
    if result.alpha == 0:
        st.info(
            _("Disjoint supports: α = 0 and Z = 1, so every proposal is rejected and the residual is the "
              "target itself, r = p (compare the r and p columns below)."),
            icon=":material/call_split:",
        )
    if score.is_exact:
        st.markdown(_("**Score**: total variation distance between your r and the exact r = {tv} (0 is perfect, 1 "
                      "is as far as possible). Your r is exact: every bar matches.", tv=exact_and_decimal(score.tv)))
    else:
        st.markdown(_("**Score**: total variation distance between your r and the exact r = {tv} (0 is perfect, 1 "
                      "is as far as possible). Largest error at token {token}.", tv=exact_and_decimal(score.tv),
                      token=markdown_escape(score.worst_token)))


def pq_chart(result) -> None:
    draw_pq_chart(result.tokens, result.p, result.q, "ex_pq_chart")


def score_details(tokens, score) -> None:
    """Your r beside the exact r, as a chart and a table with each token's error."""
    _ = texts()
    res_left, res_right = st.columns(2, gap="large")
    values = "; ".join(  # made before the sentence it goes in: the extractor skips a message inside another's call
        _("{token}: predicted {prediction}, exact {exact}", token=t, prediction=fraction_text(a),
          exact=fraction_text(b))
        for t, a, b in zip(tokens, score.prediction, score.truth)
    )
    with res_left:
        chart(
            figure("prediction_vs_residual", tokens, score.prediction, score.truth),
            key="ex_residual_chart",
            alt=_("Grouped bars of your predicted r and the exact residual r per token: {values}", values=values),
        )
    with res_right:
        wide_table_cue("score")
        st.dataframe(
            {
                _("token"): list(tokens),
                _("your r"): [fraction_text(v) for v in score.prediction],
                _("exact r"): [fraction_text(v) for v in score.truth],
                _("exact r (decimal)"): [decimal_text(v, decimal_comma=decimal_comma()) for v in score.truth],
                _("error"): [fraction_text(v) for v in score.errors],
            },
            hide_index=True,
            key="ex_score_table",
        )


def reconstruction(result) -> None:
    """The unconditional reconstruction token by token: accepted min(p, q) plus Z·r reaches p."""
    _ = texts()
    rows = reconstruction_rows(result)
    chart(
        figure("reconstruction_bars", result.tokens, result.accepted, result.correction, result.p),
        key="ex_reconstruction_chart",
        alt=_("Stacked bars per token: accepted min(p, q) plus correction Z times r, reaching the target p: {values}",
              values="; ".join(
                  f"{r['token']}: {fraction_text(r['accepted'])} + {fraction_text(r['correction'])} = "
                  f"{fraction_text(r['p'])}"
                  for r in rows
              )),
    )
    wide_table_cue("reconstruction")
    st.dataframe(
        {
            _("token"): [r["token"] for r in rows],
            "p": [exact_text(r["p"]) for r in rows],
            "q": [exact_text(r["q"]) for r in rows],
            _("accepted min(p, q)"): [exact_text(r["accepted"]) for r in rows],
            "r": ["—" if r["r"] is None else exact_text(r["r"]) for r in rows],
            "Z·r": [exact_text(r["correction"]) for r in rows],
            "min(p, q) + Z·r": [exact_text(r["total"]) for r in rows],
            _("= p?"): [_("yes") if r["total"] == r["p"] else _("NO") for r in rows],
        },
        hide_index=True,
        key="ex_reconstruction_table",
    )


def main() -> None:
    model, link_problems = load_once(
        "ex_model", lambda: ExplorerModel.from_url(st.query_params, url_reveal_allowed()), model_widgets
    )
    restore_missing_widgets(model)
    intro(link_problems)
    note_slot = scenario_row(model)
    refusal = table_editor(model) if model.edit else ""  # announced by the page's live region, at its end
    refusal = use_typed_table(model) or refusal
    explanation = scenario_note(model, note_slot)
    if hidden := model.hide_answer_if_changed():
        st.info(say(hidden))

    result = residual_exact(*model.valid)
    revealed = model.is_revealed
    score = score_prediction(result, model.preds, model.z_pred) if revealed and result.residual is not None else None
    left, right = st.columns(2, gap="large")
    with left:
        pq_chart(result)
    with right:
        prediction_panel(result.tokens)
        if revealed:
            exact_answer(result, model, score, explanation)
    if revealed:  # the reveal, token by token
        st.divider()
        if score is not None:
            score_details(result.tokens, score)
        reconstruction(result)
    announce("ex", revealed_text(result, model) if revealed else "", error=refusal)
    write_url(model)


main()
