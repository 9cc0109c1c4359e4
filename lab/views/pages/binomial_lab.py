"""Binomial lab: predict the bars, Reveal the exact Binomial(n, p), and the guided panel reproducing the worked
example (recovering A 1/10, B 3/5, C 3/10).

A thin view: controls -> BinomialLabModel -> lab/core/binomial.py and lab/teaching/worked_example.py -> the charts
of lab/charts/residual.py.
"""

from __future__ import annotations

import streamlit as st

from lab.core.distributions import to_fraction
from lab.core.formatting import decimal_text, exact_text, fraction_text, markdown_escape
from lab.core.scenarios import load_scenario
from lab.i18n import N_
from lab.models.binomial_lab import LAB_P, BinomialLabModel, N, read_n, read_probability
from lab.teaching.worked_example import (
    WORKED_EXAMPLE_SCENARIO,
    at_worked_example,
    bar_names,
    display_values,
    lab_result,
    outcome_labels,
    prediction_bars,
    prediction_distance,
    prediction_labels,
)
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.bar_predictor import bar_predictor
from lab.views.ui.charts import chart, figure
from lab.views.ui.controls import Widgets
from lab.views.ui.language import decimal_comma, exact_and_decimal, say, texts
from lab.views.ui.page_state import (
    drawn_outside,
    keep_valid,
    load_once,
    push_to_widgets,
    redraw_page_if_changed,
    sync_query_params,
    whole_page,
)
from lab.views.ui.presentation import is_presenting, url_reveal_allowed

WIDGETS = Widgets(BinomialLabModel, start=False)  # lab success p and n from their controls (values put in first)
CONTROL_WIDTH = 150  # px: lab success p and n side by side, also on a phone; Reset and Reveal follow
PREDICTION_WIDTH = 140  # px: two boxes a row beside the chart and on a phone, with room for the -/+ steppers
GUIDE_SHOWN = "bl_guide_shown"  # what the worked-example guide panel shows (drawn outside the fragments)


def the_model() -> BinomialLabModel:
    return st.session_state["bl_model"]


def prediction_widgets(model: BinomialLabModel) -> dict:
    return {f"bl_pred_{k}": value for k, value in enumerate(model.preds)}


def model_widgets(model: BinomialLabModel) -> dict:
    return {LAB_P.key: model.lab_p, N.key: model.n, **prediction_widgets(model)}


def model_from_link() -> tuple:
    return BinomialLabModel.from_url(st.query_params, url_reveal_allowed())


def on_reset() -> None:
    the_model().reset()
    push_to_widgets(model_widgets(the_model()))


def on_products() -> None:
    typed = {t: st.session_state.get(f"bl_zr_{t}", "") for t in outcome_labels(1)}
    st.session_state["bl_products_feedback"] = the_model().type_products(typed)


def intro() -> None:
    _ = texts()
    title(_("Binomial lab"))
    st.markdown(_(  # outside the lab's fragment: text that never changes is not sent again on every change
        "Set **lab success p** and the number of trials **n**, draw your predicted bars (or type their heights), then "
        "**Reveal** the exact Binomial(n, lab success p) probabilities. *lab success p* is this lab's own "
        "parameter, the probability that one trial succeeds: it is not the target p of a scenario.\n\n"
        "With n = 1 the two bars are **B** (success) and **C** (failure). In the worked example "
        "(the scenario “The worked example: three tokens”) A has zero "
        "residual mass, so A is outside this two-outcome display. The two bars are the residual r itself, drawn as "
        "a coin: this lab does not run speculative sampling itself."
    ))


def follow_the_guide(model: BinomialLabModel) -> None:
    """End of a fragment: the link follows the lab, and the guide panel (outside the fragments) is redrawn when a
    step was done or undone."""
    sync_query_params(model.to_url())
    redraw_page_if_changed(GUIDE_SHOWN, model.guide_shown())


@st.fragment
def lab_controls() -> None:
    """lab success p, n, Reset and Reveal, then the bars: changing a control reruns this part only."""
    model = the_model()
    _ = texts()
    keep_valid(LAB_P.key, read_probability, model.lab_p)
    keep_valid(N.key, read_n, model.n)
    controls = st.container(horizontal=True, vertical_alignment="bottom")  # one wrapping row
    WIDGETS.number_input(
        controls, "lab_p", step=0.01, format="%.2f", width=CONTROL_WIDTH,
        help=_("The lab's own parameter: the probability that one trial succeeds (not a scenario's target p)"),
    )  # fmt: skip
    WIDGETS.number_input(controls, "n", help=_("Number of trials, 1 to 26"), width=CONTROL_WIDTH)
    controls.button(_("Reset"), key="bl_reset", on_click=on_reset, help=_("Back to the defaults"))
    old_n = model.n
    lab_p = read_probability(st.session_state[LAB_P.key])
    n = read_n(st.session_state[N.key])
    message = model.set_controls(model.lab_p if lab_p is None else lab_p, model.n if n is None else n)
    if model.n != old_n:  # new outcomes: their widgets, not drawn yet, start empty
        push_to_widgets(prediction_widgets(model))
    if message:
        st.info(say(message))
    controls.button(_("Reveal"), key="bl_reveal", type="primary", on_click=model.reveal)
    section(_("Your prediction"))  # outside the bars' fragment: a moved bar does not send the heading again
    bars()


def prediction_inputs(model: BinomialLabModel) -> None:
    """The typed boxes, for exact values; bound to the same state as the bars (the predictor writes into them)."""
    _ = texts()
    st.markdown(_("**Exact values**"))
    with st.container(horizontal=True, gap="small"):  # one wrapping row of fixed-width boxes
        for k, name in enumerate(prediction_labels(model.n)):
            st.number_input(
                say(name), min_value=0.0, max_value=1.0, step=0.01, format="%.2f", key=f"bl_pred_{k}",
                width=PREDICTION_WIDTH,
            )


def bars_chart(model: BinomialLabModel, labels, exact) -> None:
    _ = texts()
    if labels != outcome_labels(model.n):
        x_title = N_("residual bar (B = success, C = failure)")
    else:
        x_title = N_("outcome (B = success, C = failure)") if model.n == 1 else N_("number of successes k")
    yours = ", ".join(f"{lab} {fraction_text(to_fraction(v))}" for lab, v in zip(labels, model.preds))
    if model.is_revealed:
        bars = "; ".join(_("{bar}: exact {value}", bar=lab, value=exact_text(v)) for lab, v in zip(labels, exact))
        alt = _("Bars of your predicted probabilities ({yours}) beside the exact Binomial probabilities: {exact}",
                yours=yours, exact=bars)
    else:
        alt = _("Bars of your predicted probabilities ({yours}) (the exact bars are hidden until Reveal)",
                yours=yours)
    shown = exact if model.is_revealed else None
    chart(figure("binomial_bars", labels, [to_fraction(v) for v in model.preds], shown, x_title), "bl_chart", alt)


def revealed_values(model: BinomialLabModel, result, labels, exact) -> str:
    """What Reveal shows under the chart; returns the sentence announced."""
    _ = texts()
    distance = prediction_distance(model.preds, exact)
    worked_example = at_worked_example(model.lab_p, model.n)
    if worked_example:  # B and C are r(B), r(C) here: a mean and an sd say nothing about r
        st.metric(_("distance from your bars (TV)"), exact_and_decimal(distance, 3))
    else:
        stats = st.columns(3)
        stats[0].metric(_("mean n·p"), exact_and_decimal(result.mean))
        stats[1].metric(_("sd √(n·p·(1−p))"), decimal_text(result.sd, 4, decimal_comma()))
        stats[2].metric(_("distance from your bars (TV)"), exact_and_decimal(distance, 3))
    st.dataframe(
        {
            _("outcome"): list(labels),
            _("your prediction"): [fraction_text(to_fraction(v)) for v in model.preds],
            _("exact"): [exact_text(v) for v in exact],
            _("exact (decimal)"): [decimal_text(v, decimal_comma=decimal_comma()) for v in exact],
        },
        hide_index=True,
        key="bl_table",
    )
    exact_list = ", ".join(f"{lab} {exact_text(v)}" for lab, v in zip(labels, exact))
    if worked_example:
        return _("Revealed: the exact bars are {exact}; distance from your bars {distance}.", exact=exact_list,
                 distance=exact_and_decimal(distance, 3))
    return _("Revealed: the exact bars are {exact}; mean {mean}, distance from your bars {distance}.",
             exact=exact_list, mean=exact_and_decimal(result.mean), distance=exact_and_decimal(distance, 3))


@st.fragment
def bars() -> None:
    """Your prediction: the bars you draw and the boxes for exact values, then what Reveal shows. A fragment inside
    the controls' fragment, since the predicted bars are what a student moves most."""
    model = the_model()
    for key, value in prediction_widgets(model).items():
        st.session_state.setdefault(key, value)
        keep_valid(key, read_probability, value)
    result = lab_result(model.lab_p, model.n)
    labels = bar_names(model.lab_p, model.n)  # r(B), r(C) at the worked example
    exact = display_values(result)
    boxes = list(prediction_widgets(model))
    model.set_predictions([st.session_state[key] for key in boxes])
    left, right = st.columns([3, 2], gap="large")
    with left:
        # the bars' names as the boxes say them (P(3), not 3); r(B), r(C) at the worked example
        names = prediction_bars(model.n)
        bar_predictor(
            "bl_bars", names if labels == outcome_labels(model.n) else labels, model.preds, boxes,
            large=is_presenting(), short_labels=labels if model.n > 1 else (),
        )
    with right:
        prediction_inputs(model)
    if model.is_revealed:  # the exact bars beside yours, only after Reveal
        bars_chart(model, labels, exact)
    announce("bl-reveal", revealed_values(model, result, labels, exact) if model.is_revealed else "")
    follow_the_guide(model)


def guide_steps_text(steps) -> str:
    # ballot boxes as text (a screen reader says "ballot box with check"), not icons read by their font name
    _ = texts()
    return "  \n".join(
        _("☑ {number}. {step} — done", number=number, step=say(step.text)) if step.done
        else _("☐ {number}. {step} — to do: {missing}", number=number, step=say(step.text), missing=say(step.missing))
        for number, step in enumerate(steps, start=1)
    )


def products_form() -> None:
    """The products first, typed and checked exactly; the sum follows (or the button below shows it)."""
    _ = texts()
    with st.form("bl_products_form", border=False, enter_to_submit=True):
        boxes = st.container(horizontal=True, vertical_alignment="bottom")
        for token in outcome_labels(1):
            boxes.text_input(
                f"Z·r({token})", key=f"bl_zr_{token}", max_chars=40, placeholder=_("fraction or decimal"),
                width=PREDICTION_WIDTH,
            )
        boxes.form_submit_button(_("Check"), key="bl_products_check", on_click=on_products)
    for message in st.session_state.pop("bl_products_feedback", ()):
        st.error(markdown_escape(say(message)))


def worked_sum_shown(worked) -> str:
    """The sum min(p, q) + Z·r per token and its stacked chart; returns the sentence announced."""
    _ = texts()
    lines = []
    for row in worked.rows:
        shown_text = f"Z × {fraction_text(row.displayed)}" if row.in_display else _("Z × 0 (outside the display)")
        lines.append("- " + _(
            "{token}: {accepted} + {shown} = {accepted} + {correction} = **{total}** (target p = {target})",
            token=row.token, accepted=fraction_text(row.accepted), shown=shown_text,
            correction=fraction_text(row.correction), total=fraction_text(row.total), target=fraction_text(row.target),
        ))
    st.markdown("\n".join(lines))
    totals = ", ".join(f"{row.token} {fraction_text(row.total)}" for row in worked.rows)
    if worked.recovers_target:
        summed_text = _("The sum recovers the unconditional target: {totals}", totals=totals)
    else:
        summed_text = _("The sum does not recover the unconditional target: {totals}", totals=totals)
    st.success(summed_text, icon=":material/task_alt:")
    chart(
        figure(
            "worked_example_stack",
            worked.tokens,
            [r.accepted for r in worked.rows],
            [r.correction for r in worked.rows],
            [r.target for r in worked.rows],
        ),
        "bl_worked_chart",
        _("Stacked bars per token: accepted min(p, q) plus Z times the displayed bar, reaching the target: {values}",
          values="; ".join(
              f"{r.token}: {fraction_text(r.accepted)} + {fraction_text(r.correction)} = {fraction_text(r.total)}"
              for r in worked.rows
          )),
    )
    return summed_text


def guide_panel() -> None:
    """Reproduce the worked example: a checklist that follows the lab, drawn after the fragments (it changes only
    when a step is done or undone, see follow_the_guide)."""
    model = the_model()
    worked, steps = model.guide()
    ready = model.sum_ready(steps)
    summed_text = ""
    _ = texts()
    with st.container(border=True):
        section(_("Reproduce the worked example"))
        st.caption(_(
            "Scenario “{name}”: the rejection probability is Z = {z} and the accepted masses min(p, q) are {masses}.",
            name=_(load_scenario(WORKED_EXAMPLE_SCENARIO).title), z=exact_and_decimal(worked.z),
            masses=", ".join(f"{row.token} {fraction_text(row.accepted)}" for row in worked.rows),
        ))
        st.markdown(guide_steps_text(steps))
        if ready and not model.products_typed:
            products_form()
        st.button(
            _("Multiply by Z = {z} and add", z=fraction_text(worked.z)),
            key="bl_sum",
            on_click=model.show_sum,
            disabled=not ready,  # not by its own press: that would drop keyboard focus to the page's body
            help=_("Shows the sum without typing the products"),
        )
        if model.summed and ready:
            summed_text = worked_sum_shown(worked)
    announce("bl-sum", f"{summed_text}." if summed_text else "")
    drawn_outside(GUIDE_SHOWN, model.guide_shown())


def main() -> None:
    model, link_problems = load_once("bl_model", model_from_link, model_widgets)
    st.session_state.setdefault(LAB_P.key, model.lab_p)
    st.session_state.setdefault(N.key, model.n)
    intro()
    for problem in link_problems:
        st.warning(markdown_escape(say(problem.message)), icon=":material/link_off:")  # holds URL text: as typed
    with whole_page():
        lab_controls()
        guide_panel()


main()
