"""Binomial lab (the "probability lab"): predict the bars, Inspect the exact Binomial(n, p),
and the guided panel reproducing the worked example (recovering A 1/10, B 3/5, C 3/10).

A thin view: the numbers come from lab/core/binomial.py and lab/teaching/worked_example.py,
the charts from lab/charts/residual.py.
"""

from __future__ import annotations

import streamlit as st

from lab.core.binomial import N_MAX, N_MIN
from lab.core.display import exact_text, markdown_escape
from lab.core.distributions import to_fraction
from lab.core.formatting import both_text, decimal_text, fraction_text
from lab.models.binomial_lab import BinomialLabModel, control_n, control_p
from lab.teaching.worked_example import (
    WORKED_EXAMPLE_SCENARIO,
    GuideState,
    at_worked_example,
    bar_names,
    check_products,
    display_values,
    guide_steps,
    lab_result,
    outcome_labels,
    prediction_distance,
    prediction_labels,
    worked_sum,
)
from lab.views.accessibility import announce, section, title
from lab.views.common import chart, figure, sync_query_params
from lab.views.presentation import url_reveal_allowed

S = st.session_state
CONTROL_WIDTH = 150  # px: lab success p and n side by side, also on a phone; Reset and Inspect follow
PREDICTION_WIDTH = 140  # px: two boxes a row beside the chart and on a phone, with room for the -/+ steppers


def push_widgets(model: BinomialLabModel) -> None:
    S["bl_p"], S["bl_n"] = model.lab_p, model.n
    for k, value in enumerate(model.preds):
        S[f"bl_pred_{k}"] = value


def on_reset() -> None:
    S["bl_model"].reset()
    push_widgets(S["bl_model"])


def on_inspect() -> None:
    model = S["bl_model"]
    model.inspected = (model.lab_p, model.n)


def on_sum() -> None:
    """Show the sum without typing the products (the student asked for it)."""
    S["bl_model"].summed = True


def on_products() -> None:
    """Check the typed Z·r(B) and Z·r(C) exactly; right, the sum follows."""
    model = S["bl_model"]
    worked, _steps = guide_state(model)
    check = check_products({t: S.get(f"bl_zr_{t}", "") for t in outcome_labels(1)}, worked)
    if check.right:
        model.products_typed = model.summed = True
    S["bl_products_feedback"] = check.messages


if "bl_model" not in S:
    S["bl_model"], S["bl_link_problems"] = BinomialLabModel.from_url(st.query_params, url_reveal_allowed())
    push_widgets(S["bl_model"])
model = S["bl_model"]
S.setdefault("bl_p", model.lab_p)
S.setdefault("bl_n", model.n)

title("Binomial lab")
st.markdown(  # outside the lab's fragment: text that never changes is not sent again on every change
    "Set **lab success p** and the number of trials **n**, enter your predicted bar heights, then "
    "**Inspect** the exact Binomial(n, lab success p) probabilities. *lab success p* is this lab's own "
    "parameter, the probability that one trial succeeds: it is not the target p of a scenario.\n\n"
    "With n = 1 the two bars are **B** (success) and **C** (failure). In the worked example "
    "(scenario bernoulli-residual) A has zero "
    "residual mass, so A is outside this two-outcome display. This is an exact Bernoulli picture of a "
    "stipulated conditional residual: it is not a rejection sampler and not a three-token model."
)
for problem in S.pop("bl_link_problems", []):
    st.warning(markdown_escape(str(problem)), icon=":material/link_off:")  # holds URL text: shown as typed


GUIDE_SHOWN = "bl_guide_shown"  # what the worked-example guide shows now (see guide_follows)
FULL_RUN = "bl_full_run"  # True while the whole page runs (the guide is drawn after the fragments)


def guide_state(model: BinomialLabModel):
    """The worked-example guide's content from the lab's state: the worked sum and the checklist's steps."""
    lab_p, n = model.lab_p, model.n
    exact = display_values(lab_result(lab_p, n))
    worked = worked_sum(dict(zip(outcome_labels(n), exact)) if n == 1 else {}, WORKED_EXAMPLE_SCENARIO)
    state = GuideState(
        model.clean_start,
        lab_p,
        n,
        n == 1 and any(model.preds),
        model.inspected == (lab_p, n),
        model.products_typed,
        model.summed,
    )
    return worked, guide_steps(state, worked.z)


def sum_ready(steps) -> bool:
    """The lab shows the worked example's bars: lab success p = 0.75, n = 1, inspected (steps 2 and 4)."""
    return steps[1].done and steps[3].done


def guide_key(model: BinomialLabModel, worked, steps) -> tuple:
    """Everything the guide panel shows, to compare: its steps, and the worked sum once it is shown."""
    return tuple(steps), model.summed, worked if steps[-1].done and sum_ready(steps) else None


def guide_follows(model: BinomialLabModel) -> None:
    """End of a fragment's own rerun: the guide panel is drawn outside the fragments (moving a bar does not redraw
    it), so when what it shows has changed (a step done or undone), the whole page runs once."""
    sync_query_params(model.to_url())
    if not S.get(FULL_RUN) and S.get(GUIDE_SHOWN) != guide_key(model, *guide_state(model)):
        st.rerun()


@st.fragment
def lab_body() -> None:
    """The controls, then the bars (a fragment of their own): changing lab success p or n reruns this part only,
    not the app's navigation and header; moving a predicted bar reruns only the bars."""
    model = S["bl_model"]

    # A control's state is checked before its widget is drawn: a crafted message can put any value there
    # (the string "abc" in lab success p made number_input raise TypeError); a refused value is put back.
    if control_p(S.get("bl_p"), -1.0) != S.get("bl_p"):
        S["bl_p"] = model.lab_p
    if control_n(S.get("bl_n"), -1) != S.get("bl_n") or isinstance(S.get("bl_n"), bool):
        S["bl_n"] = model.n
    # one wrapping row (a single layout block, not a block per column) that Inspect joins below, once the
    # controls' values are checked
    controls = st.container(horizontal=True, vertical_alignment="bottom")
    controls.number_input(
        "lab success p", min_value=0.0, max_value=1.0, step=0.01, format="%.2f", key="bl_p", width=CONTROL_WIDTH,
        help="The lab's own parameter: the probability that one trial succeeds (not a scenario's target p)",
    )
    controls.number_input(
        "n", min_value=N_MIN, max_value=N_MAX, step=1, key="bl_n", help="Number of trials, 1 to 26", width=CONTROL_WIDTH
    )
    controls.button("Reset", key="bl_reset", on_click=on_reset, help="Back to the defaults")

    # The controls' values, checked (a crafted message could send "abc"): a refused one keeps the last valid.
    lab_p, n = control_p(S["bl_p"], model.lab_p), control_n(S["bl_n"], model.n)
    if n != model.n:  # new outcomes: new, empty predictions (these widgets are not drawn yet)
        model.set_n(n)
        for k in range(n + 1):
            S[f"bl_pred_{k}"] = 0.0
    model.lab_p = lab_p
    if model.inspected is not None and model.inspected != (lab_p, n):
        model.inspected = None
        model.products_typed = model.summed = False  # the guide's products were for the bars inspected
        st.info("lab success p or n changed, so the bars are hidden again: predict, then Inspect.")
    controls.button("Inspect", key="bl_inspect", type="primary", on_click=on_inspect)
    bars_body()  # ends with guide_follows, in this fragment's reruns too


@st.fragment
def bars_body() -> None:
    """Your prediction beside the bars, and what Inspect shows: a fragment inside the lab's fragment, since the
    predicted bars are what a student moves most."""
    model = S["bl_model"]
    for k, value in enumerate(model.preds):  # checked before drawn, like the controls above
        if f"bl_pred_{k}" in S and control_p(S[f"bl_pred_{k}"], -1.0) != S[f"bl_pred_{k}"]:
            S[f"bl_pred_{k}"] = value
    lab_p, n = model.lab_p, model.n
    result = lab_result(lab_p, n)
    labels = bar_names(lab_p, n)  # r(B), r(C) at the worked example
    inspected = model.inspected == (lab_p, n)
    left, right = st.columns([3, 2], gap="large")
    with right:
        section("Your prediction")
        names = prediction_labels(n)
        # one wrapping row of fixed-width boxes (not a grid of columns: one layout block instead of one per row
        # and per column, redrawn on every change of a prediction)
        with st.container(horizontal=True, gap="small"):
            for k, name in enumerate(names):
                S.setdefault(f"bl_pred_{k}", 0.0)
                st.number_input(
                    name, min_value=0.0, max_value=1.0, step=0.01, format="%.2f", key=f"bl_pred_{k}",
                    width=PREDICTION_WIDTH,
                )
        model.preds = [control_p(S[f"bl_pred_{k}"], 0.0) for k in range(len(labels))]
        st.caption(f"Your bars add up to {both_text(sum(to_fraction(v) for v in model.preds))}.")
    exact = display_values(result)
    if labels != outcome_labels(n):
        x_title = "residual bar (B = success, C = failure)"
    else:
        x_title = "outcome (B = success, C = failure)" if n == 1 else "number of successes k"
    with left:
        shown = exact if inspected else None
        yours = ", ".join(f"{lab} {fraction_text(to_fraction(v))}" for lab, v in zip(labels, model.preds))
        alt = f"Bars of your predicted probabilities ({yours})" + (
            " beside the exact Binomial probabilities: "
            + "; ".join(f"{lab}: exact {exact_text(v)}" for lab, v in zip(labels, exact))
            if inspected
            else " (the exact bars are hidden until Inspect)"
        )
        chart(
            figure("binomial_bars", labels, [to_fraction(v) for v in model.preds], shown, x_title), "bl_chart", alt
        )

    if inspected:
        distance = prediction_distance(model.preds, exact)
        if at_worked_example(lab_p, n):  # B and C are r(B), r(C) here: a mean and an sd say nothing about r
            st.metric("distance from your bars (TV)", both_text(distance, 3))
        else:
            stats = st.columns(3)
            stats[0].metric("mean n·p", both_text(result.mean))
            stats[1].metric("sd √(n·p·(1−p))", decimal_text(result.sd, 4))
            stats[2].metric("distance from your bars (TV)", both_text(distance, 3))
        exact_list = ", ".join(f"{lab} {exact_text(v)}" for lab, v in zip(labels, exact))
        st.dataframe(
            {
                "outcome": list(labels),
                "your prediction": [fraction_text(to_fraction(v)) for v in model.preds],
                "exact": [exact_text(v) for v in exact],
                "exact (decimal)": [decimal_text(v) for v in exact],
            },
            hide_index=True,
            key="bl_table",
        )
    announce(
        "bl-inspect",
        f"Inspected: the exact bars are {exact_list}; "
        + ("" if at_worked_example(lab_p, n) else f"mean {both_text(result.mean)}, ")
        + f"distance from your bars {both_text(distance, 3)}."
        if inspected
        else "",
    )
    guide_follows(model)


def guide_panel() -> None:
    """Reproduce the worked example: a checklist that follows the lab, drawn after the fragments (it changes only
    when a step is done or undone, see guide_follows)."""
    model = S["bl_model"]
    worked, steps = guide_state(model)
    with st.container(border=True):
        section("Reproduce the worked example")
        st.caption(
            f"Scenario {WORKED_EXAMPLE_SCENARIO}: the rejection probability is Z = {both_text(worked.z)} "
            f"and the accepted masses min(p, q) are "
            + ", ".join(f"{row.token} {fraction_text(row.accepted)}" for row in worked.rows)
            + "."
        )
        st.markdown(
            "  \n".join(
                # ballot boxes as text (a screen reader says "ballot box with check"): Streamlit reads a markdown
                # icon by its font name ("check_box_outline_blank icon")
                ("☑" if step.done else "☐")
                + f" {number}. {step.text}"
                + (" — done" if step.done else f" — to do: {step.missing}")
                for number, step in enumerate(steps, start=1)
            )
        )
        ready = sum_ready(steps)
        if ready and not model.products_typed:
            # the products first, typed and checked exactly; the sum follows (or the button below shows it)
            with st.form("bl_products_form", border=False, enter_to_submit=True):
                boxes = st.container(horizontal=True, vertical_alignment="bottom")
                for token in outcome_labels(1):
                    boxes.text_input(
                        f"Z·r({token})",
                        key=f"bl_zr_{token}",
                        max_chars=40,
                        placeholder="a fraction or a decimal",
                        width=PREDICTION_WIDTH,
                    )
                boxes.form_submit_button("Check", on_click=on_products)
            for message in S.pop("bl_products_feedback", ()):
                st.error(markdown_escape(message))
        st.button(
            f"Multiply by Z = {fraction_text(worked.z)} and add",
            key="bl_sum",
            on_click=on_sum,
            disabled=not ready,  # not by its own press: that would drop keyboard focus to the page's body
            help="Shows the sum without typing the products",
        )
        if model.summed and ready:
            lines = []
            for row in worked.rows:
                shown_text = f"Z × {fraction_text(row.displayed)}" if row.in_display else "Z × 0 (outside the display)"
                lines.append(
                    f"- {row.token}: {fraction_text(row.accepted)} + {shown_text} = {fraction_text(row.accepted)} + "
                    f"{fraction_text(row.correction)} = **{fraction_text(row.total)}** "
                    f"(target p = {fraction_text(row.target)})"
                )
            st.markdown("\n".join(lines))
            verdict = "recovers" if worked.recovers_target else "does not recover"
            summed_text = (
                "The sum "
                + verdict
                + " the unconditional target: "
                + ", ".join(f"{row.token} {fraction_text(row.total)}" for row in worked.rows)
            )
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
                "Stacked bars per token: accepted min(p, q) plus Z times the displayed bar, reaching the target: "
                + "; ".join(
                    f"{r.token}: {fraction_text(r.accepted)} + {fraction_text(r.correction)} = {fraction_text(r.total)}"
                    for r in worked.rows
                ),
            )

    announce("bl-sum", f"{summed_text}." if model.summed and ready else "")
    S[GUIDE_SHOWN] = guide_key(model, worked, steps)


S[FULL_RUN] = True
try:
    lab_body()
    guide_panel()
finally:
    S[FULL_RUN] = False
