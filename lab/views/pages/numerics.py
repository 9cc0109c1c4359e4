"""Numerics: a tiny Z magnifies rounding; the Z = 0 branch; processed distributions (thin view)."""

import streamlit as st

from lab.core.formatting import fraction_text, markdown_escape, markdown_table, sci_text, vector_text
from lab.models.numerics import NumericsModel
from lab.teaching.numerics import (
    FAMILY_Q,
    FAMILY_RESIDUAL,
    FAMILY_TOKENS,
    backend_report,
    branch_cases,
    stated_tolerances,
)
from lab.views.live_class.once_per_server import tiny_z_cases
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.controls import Widgets
from lab.views.ui.page_state import controls_model, keep_last_valid

WIDGETS = Widgets(NumericsModel)  # each widget from its control, declared in the model (no link state)


def sci(value) -> str:
    return sci_text(value, missing="—")


def vector(values, digits: int = 10) -> str:
    return vector_text(values, digits, missing="—")


def intro() -> None:
    title("Numerics")
    st.caption(
        "Normalising by Z divides by a small number, so rounding in p − q is magnified by 1/Z. "
        "Exact results (fractions.Fraction) are labelled exact; float results say which dtype."
    )


def processed_intro() -> None:
    section("Processed distributions: check with what you proposed from")
    st.markdown(
        "Logits → temperature → top-k → top-p give the processed target p′ and draft q′. The draft proposes "
        "from q′; the check must use p′ and q′. The `unprocessed-draft` mistake checks with the draft's "
        "unprocessed softmax q instead. float64 throughout (softmax is not rational)."
    )


def processing_controls() -> None:
    with st.container(horizontal=True):  # one wrapping row per group of controls, not a block per column
        WIDGETS.text_input(st, "target_logits")
        WIDGETS.text_input(st, "draft_logits")
    with st.container(horizontal=True):
        WIDGETS.number_input(st, "temperature", step=0.1)
        WIDGETS.number_input(st, "top_k")
        WIDGETS.slider(st, "top_p", step=0.05)


def processed_step():
    """The processed step for the checked controls; a refused logit text or setting is named, and the last valid
    step (None before the first) stays on screen."""
    state = controls_model(NumericsModel, "numerics_state", quiet=True)
    step, refusal = keep_last_valid("numerics_last_step", state.processed_step)
    refused = "" if refusal is None else f"{refusal}. Showing the last valid logits."
    if refused:
        st.error(markdown_escape(refused))  # holds typed text: shown as typed
    announce("num", error=refused)
    return step


def processed_chart(step) -> None:
    st.caption(f"Processing: {step.processing.describe()}.")
    chart(
        figure("processed_bars", step.tokens, tuple(step.p), tuple(step.q), tuple(step.q_raw)),
        key="numerics_processed_chart",
        alt="Bars of the processed target p′, the processed draft q′ and the unprocessed draft q, per token: "
        + "; ".join(
            f"{t}: p′ {a:.6g}, q′ {b:.6g}, q {c:.6g}" for t, a, b, c in zip(step.tokens, step.p, step.q, step.q_raw)
        ),
    )


def processed_table(step) -> str:
    """The p′/q′ table, and the residual's line (returned: the next chart draws it with its title, one element), or
    the Z = 0 branch said in a box."""
    res = step.residual
    r_cells = [f"{v:.6g}" for v in res.residual] if res.residual is not None else ["—"] * len(step.tokens)
    st.markdown(  # a markdown table: built as text, not converted to a data frame on every change
        markdown_table(
            ("token", "p′ (target, processed)", "q′ (draft, processed)", "q (draft, unprocessed)", "r from p′, q′"),
            zip(
                step.tokens,
                (f"{v:.6g}" for v in step.p),
                (f"{v:.6g}" for v in step.q),
                (f"{v:.6g}" for v in step.q_raw),
                r_cells,
            ),
        )
    )
    if res.residual is None:
        st.info("Z = 0 for the processed p′ and q′: the no-rejection branch, r is not defined.")
        return ""
    return f"float64: α = {res.alpha:.6g}, Z = {res.z:.6g} (from the processed p′ and q′)."


def check_laws(step, intro: str = "") -> None:
    """Each check's output law against the processed target, and its distance from it (``intro``: markdown drawn
    above the chart's title, in the same element)."""
    laws = {}  # plain tuples, so that the figure is cached like the others (a class tries the same settings)
    if step.correct_law is not None:
        laws["propose q′, check q′ (correct)"] = tuple(step.correct_law)
    if step.mismatch_law is not None:
        laws["propose q′, check q (unprocessed-draft)"] = tuple(step.mismatch_law)
    chart(
        figure(
            "law_vs_target", step.tokens, tuple(step.p), laws, "Output law against the processed target p′", "target p′"
        ),
        key="numerics_mismatch_chart",
        intro=intro,
        alt="Bars of the processed target p′ beside the output law of each check: "
        + "; ".join(
            f"{t}: target p′ {step.p[i]:.6g}" + "".join(f", {name} {law[i]:.6g}" for name, law in laws.items())
            for i, t in enumerate(step.tokens)
        ),
        table=(
            ("token", "target p′", *laws),
            [(t, f"{step.p[i]:.6g}", *(f"{law[i]:.6g}" for law in laws.values())) for i, t in enumerate(step.tokens)],
        ),
    )
    with st.container(horizontal=True):
        correct_tv = f"{step.correct_tv:.3g}" if step.correct_tv is not None else "—"
        st.metric("TV distance, correct check (float64)", correct_tv)
        if step.mismatch_tv is not None:
            st.metric("TV distance, unprocessed-draft check (float64)", f"{step.mismatch_tv:.6g}")
        else:
            st.warning(f"unprocessed-draft: {step.mismatch_problem}")


@st.fragment
def processed_section() -> None:
    """The logits and the processing controls, and what they change: a fragment, so a change reruns this
    section only (the tables above and below stay as they are)."""
    processing_controls()
    step = processed_step()
    if step is None:
        return
    processed_chart(step)
    check_laws(step, intro=processed_table(step))


def tiny_z_intro() -> None:
    section("Tiny Z: the residual exactly, in float64 and in float32")
    q_text = ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(FAMILY_TOKENS, FAMILY_Q))
    r_text = ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(FAMILY_TOKENS, FAMILY_RESIDUAL))
    st.markdown(
        f"Draft q = ({q_text}); target p = q + gap · (3/4, 1/4, −1). **Exact:** Z = gap and r = ({r_text}) "
        "for every gap."
    )


def error_tables(cases) -> None:
    """The error of r per gap for each dtype, side by side (a phone stacks them), and the residuals value by value.
    Markdown tables: their cells wrap, so no column is cut off at 1280 px or on a phone."""
    for column, dtype in zip(st.columns(2), ("float64", "float32")):  # side by side; a phone stacks them
        column.markdown(
            f"**{dtype}**\n\n"
            + markdown_table(
                ("gap = exact Z", f"{dtype} Z", "max |error| of r", "relative error"),
                (
                    (
                        c.gap_text,
                        sci(getattr(c, dtype).z) if getattr(c, dtype).z else "0 (branch lost)",
                        sci(getattr(c, f"{dtype}_error").max_abs),
                        sci(getattr(c, f"{dtype}_error").relative),
                    )
                    for c in cases
                ),
            )
        )
    with st.expander("The residuals value by value"):
        st.markdown(
            markdown_table(
                ("gap", "exact r", "float64 r", "float32 r"),
                (
                    (
                        c.gap_text,
                        "(" + ", ".join(fraction_text(v) for v in c.exact_residual) + ")",
                        vector(c.float64.residual),
                        vector(c.float32.residual, 8),
                    )
                    for c in cases
                ),
            )
        )


def error_chart(cases) -> None:
    chart(
        figure("error_vs_z", cases),
        key="numerics_error_chart",
        alt=(
            "Log-log chart of the maximum error of r against the exact Z, for float64 and float32, "
            "with eps/Z guide lines; float32 loses the rejection branch (float Z = 0) from Z = 1e-8 down. Values: "
            + "; ".join(
                f"Z = {c.gap_text}: float64 {sci(c.float64_error.max_abs)}, float32 "
                + (sci(c.float32_error.max_abs) if c.float32.z else "branch lost")
                for c in cases
            )
        ),
    )
    zero_error = [c.gap_text for c in cases if c.float64_error.max_abs == 0]
    if zero_error:
        st.caption(
            "float64 error exactly 0 (rounding happened to cancel; not drawn on the log axis) at gap "
            + ", ".join(zero_error)
            + "."
        )


def flagged_findings(cases) -> None:
    """Every numerical inconsistency the cases show, in one table, each finding explained once below it."""
    flagged = [(c, dtype, c.findings(dtype)) for c in cases for dtype in ("float64", "float32") if c.findings(dtype)]
    if flagged:
        heading = f"Numerical inconsistencies flagged ({len(flagged)}): investigate, never floor"
        with st.expander(heading, expanded=True):
            st.markdown(
                markdown_table(
                    ("gap = exact Z", "dtype", "float Z", "exact Z of the rounded inputs", "finding"),
                    (
                        (
                            c.gap_text,
                            dtype,
                            sci(getattr(c, dtype).z),
                            sci(float(getattr(c, f"{dtype}_inputs_z"))),
                            "; ".join(name for name, _ in found),
                        )
                        for c, dtype, found in flagged
                    ),
                )
            )
            explained = {}
            for c, dtype, found in flagged:
                for name, message in found:
                    explained.setdefault(name, f"first at gap {c.gap_text} in {dtype}: {message}")
            for name, text in explained.items():
                st.markdown(markdown_escape(f"{name} — {text}."))


def tolerance_note(cases) -> None:
    within = [c.float64_within_tolerance for c in cases if c.float64_within_tolerance is not None]
    if within:
        st.caption(
            f"float64 within its stated tolerance against the exact residual of its own rounded inputs in "
            f"{sum(within)} of {len(within)} cases above: the large errors in the table come from rounding p and q "
            "before the subtraction (magnified by 1/Z), not from the residual arithmetic."
        )


@st.fragment
def tiny_z_section() -> None:
    """The gap slider and what it changes: a fragment, so moving it reruns this section only."""
    WIDGETS.slider(st, "gaps", step=1)
    low, high = controls_model(NumericsModel, "numerics_state").gaps
    cases = tiny_z_cases(low, high)
    error_tables(cases)
    error_chart(cases)
    flagged_findings(cases)
    tolerance_note(cases)


def branch_section() -> None:
    section("The branch: Z = 0 means no rejection")
    st.markdown(
        "Exact p = q = (1/10, 1/5, 7/10), so the exact Z is 0: every proposal is kept and r is never "
        "computed (no 0/0, no floor). The same law held as different float64 values:"
    )
    branches = branch_cases()
    st.markdown(  # a markdown table: its cells wrap (17-digit floats would cut a data frame's columns off)
        markdown_table(
            ("case", "float p", "float q", "float Z", "float branch"),
            (
                (b.name, vector(b.float_p, 17), vector(b.float_q, 17), f"{b.result.z:.3g}", b.float_branch)
                for b in branches
            ),
        )
    )
    for b in branches:
        if b.inconsistency:
            st.warning(f"**{b.name}** — numerical inconsistency: {b.inconsistency}. {b.description}")
        else:
            st.success(f"**{b.name}** — consistent: {b.description}")


def backend_section() -> None:
    section("dtype, backend and the stated tolerance")
    with st.expander("Build details: numpy, Python, machine and byte order"):
        backend = backend_report()
        st.markdown(markdown_table(("item", "value"), backend.items()))
    tol = stated_tolerances()
    st.markdown(
        f"**Identity (exact, no tolerance):** `{tol['identity']}`.  \n"
        f"**Stated float64 tolerance (implementation testing only):** residual_rtol = {tol['residual_rtol']}: "
        f"`{tol['residual']}`; reconstruction_rtol = {tol['reconstruction_rtol']}: `{tol['reconstruction']}`."
    )


def main() -> None:
    intro()
    processed_intro()
    processed_section()
    tiny_z_intro()
    tiny_z_section()
    branch_section()
    backend_section()


main()
