"""Numerics: a tiny Z magnifies rounding; the Z = 0 branch; processed distributions (thin view)."""

import streamlit as st

from lab.core.formatting import fraction_text, markdown_escape, markdown_table
from lab.i18n import N_
from lab.models.numerics import NumericsModel
from lab.teaching.exercises import BRANCH_NAMES
from lab.teaching.numerics import (
    FAMILY_Q,
    FAMILY_RESIDUAL,
    FAMILY_TOKENS,
    backend_report,
    branch_cases,
    branch_findings,
    stated_tolerances,
)
from lab.views.live_class.once_per_server import tiny_z_cases
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.controls import Widgets
from lab.views.ui.language import decimal_comma, keep_lists_in_language, list_text_in, number, say, texts
from lab.views.ui.page_state import controls_model, keep_last_valid

WIDGETS = Widgets(NumericsModel)  # each widget from its control, declared in the model (no link state)
DEFAULTS = NumericsModel()


def sci(value) -> str:
    """``1.234e-05`` (``1,234e-05`` in a decimal-comma language); — for no value."""
    return "—" if value is None else number(value, ".3e")


def vector(values, digits: int = 10) -> str:
    """``(0.75, 0.25)``; in a decimal-comma language ``(0,75; 0,25)``; — for no vector."""
    if values is None:
        return "—"
    return "(" + ("; " if decimal_comma() else ", ").join(number(float(v), f".{digits}g") for v in values) + ")"


def intro() -> None:
    _ = texts()
    title(_("Numerics"))
    st.caption(_(
        "Normalising by Z divides by a small number, so rounding in p − q is magnified by 1/Z. "
        "Exact results (fractions.Fraction) are labelled exact; float results say which dtype."
    ))


def processed_intro() -> None:
    _ = texts()
    section(_("Processed distributions: check with what you proposed from"))
    st.markdown(_(
        "Logits → temperature → top-k → top-p give the processed target p′ and draft q′. The draft proposes "
        "from q′; the check must use p′ and q′. The `unprocessed-draft` mistake checks with the draft's "
        "unprocessed softmax q instead. float64 throughout (softmax is not rational)."
    ))


LOGITS = ("target_logits", "draft_logits")


def processing_controls() -> None:
    _ = texts()
    keys = tuple(WIDGETS.key(field) for field in LOGITS)
    for field, key in zip(LOGITS, keys):  # the first value, written the page's language's way (A=2; C=0,5)
        if key not in st.session_state:
            st.session_state[key] = list_text_in(getattr(DEFAULTS, field), True) if decimal_comma() \
                else getattr(DEFAULTS, field)
    keep_lists_in_language(keys, "numerics_logits_comma")
    with st.container(horizontal=True):  # one wrapping row per group of controls, not a block per column
        for field, key in zip(LOGITS, keys):
            st.text_input(_(WIDGETS.control[field].label), key=key)
    with st.container(horizontal=True):
        WIDGETS.number_input(st, "temperature", step=0.1)
        WIDGETS.number_input(st, "top_k")
        WIDGETS.slider(st, "top_p", step=0.05)


def processed_step():
    """The processed step for the checked controls; a refused logit text or setting is named, and the last valid
    step (None before the first) stays on screen."""
    _ = texts()
    state = controls_model(NumericsModel, "numerics_state", quiet=True)
    comma = decimal_comma()
    step, refusal = keep_last_valid("numerics_last_step", lambda: state.processed_step(comma))
    refused = "" if refusal is None else _("{problem}. Showing the last valid logits.", problem=say(refusal))
    if refused:
        st.error(markdown_escape(refused))  # holds typed text: shown as typed
    announce("num", error=refused)
    return step


def g(value, digits: int = 6) -> str:
    """A float64 value in ``digits`` significant digits, as the page's language writes it."""
    return number(value, f".{digits}g")


def processed_chart(step) -> None:
    _ = texts()
    st.caption(_("Processing: {settings}.", settings=", ".join(say(part) for part in step.processing.described())))
    values = "; ".join(
        _("{token}: p′ {p}, q′ {q}, q {raw}", token=t, p=g(a), q=g(b), raw=g(c))
        for t, a, b, c in zip(step.tokens, step.p, step.q, step.q_raw)
    )
    chart(
        figure("processed_bars", step.tokens, tuple(step.p), tuple(step.q), tuple(step.q_raw)),
        key="numerics_processed_chart",
        alt=_("Bars of the processed target p′, the processed draft q′ and the unprocessed draft q, per token: "
              "{values}", values=values),
    )


def processed_table(step) -> str:
    """The p′/q′ table, and the residual's line (returned: the next chart draws it with its title, one element), or
    the Z = 0 branch said in a box."""
    _ = texts()
    res = step.residual
    r_cells = [g(v) for v in res.residual] if res.residual is not None else ["—"] * len(step.tokens)
    st.markdown(  # a markdown table: built as text, not converted to a data frame on every change
        markdown_table(
            (_("token"), _("p′ (target, processed)"), _("q′ (draft, processed)"), _("q (draft, unprocessed)"),
             _("r from p′, q′")),
            zip(step.tokens, (g(v) for v in step.p), (g(v) for v in step.q), (g(v) for v in step.q_raw), r_cells),
        )
    )
    if res.residual is None:
        st.info(_("Z = 0 for the processed p′ and q′: the no-rejection branch, r is not defined."))
        return ""
    return _("float64: α = {alpha}, Z = {z} (from the processed p′ and q′).", alpha=g(res.alpha), z=g(res.z))


CORRECT_CHECK = N_("propose q′, check q′ (correct)")
MISMATCHED_CHECK = N_("propose q′, check q (unprocessed-draft)")


def check_laws(step, intro: str = "") -> None:
    """Each check's output law against the processed target, and its distance from it (``intro``: markdown drawn
    above the chart's title, in the same element)."""
    _ = texts()
    laws = {}  # plain tuples, so that the figure is cached like the others (a class tries the same settings)
    if step.correct_law is not None:
        laws[CORRECT_CHECK] = tuple(step.correct_law)
    if step.mismatch_law is not None:
        laws[MISMATCHED_CHECK] = tuple(step.mismatch_law)
    values = "; ".join(
        _("{token}: target p′ {p}", token=t, p=g(step.p[i]))
        + "".join(f", {_(name)} {g(law[i])}" for name, law in laws.items())
        for i, t in enumerate(step.tokens)
    )
    chart(
        figure(
            "law_vs_target", step.tokens, tuple(step.p), laws, N_("Output law against the processed target p′"),
            N_("target p′"),
        ),
        key="numerics_mismatch_chart",
        intro=intro,
        alt=_("Bars of the processed target p′ beside the output law of each check: {values}", values=values),
        table=(
            (_("token"), _("target p′"), *(_(name) for name in laws)),
            [(t, g(step.p[i]), *(g(law[i]) for law in laws.values())) for i, t in enumerate(step.tokens)],
        ),
    )
    with st.container(horizontal=True):
        correct_tv = g(step.correct_tv, 3) if step.correct_tv is not None else "—"
        st.metric(_("TV distance, correct check (float64)"), correct_tv)
        if step.mismatch_tv is not None:
            st.metric(_("TV distance, unprocessed-draft check (float64)"), g(step.mismatch_tv))
        else:
            st.warning(_("unprocessed-draft: {problem}", problem=say(step.mismatch_problem)))


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
    _ = texts()
    section(_("Tiny Z: the residual exactly, in float64 and in float32"))
    q_text = ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(FAMILY_TOKENS, FAMILY_Q))
    r_text = ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(FAMILY_TOKENS, FAMILY_RESIDUAL))
    st.markdown(_(
        "Draft q = ({q}); target p = q + gap · (3/4, 1/4, −1). **Exact:** Z = gap and r = ({r}) for every gap.",
        q=q_text, r=r_text,
    ))


def error_tables(cases) -> None:
    """The error of r per gap for each dtype, side by side (a phone stacks them), and the residuals value by value.
    Markdown tables: their cells wrap, so no column is cut off at 1280 px or on a phone."""
    _ = texts()
    for column, dtype in zip(st.columns(2), ("float64", "float32")):  # side by side; a phone stacks them
        column.markdown(
            f"**{dtype}**\n\n"
            + markdown_table(
                (_("gap = exact Z"), _("{dtype} Z", dtype=dtype), _("max |error| of r"), _("relative error")),
                (
                    (
                        c.gap_text,
                        sci(getattr(c, dtype).z) if getattr(c, dtype).z else _("0 (branch lost)"),
                        sci(getattr(c, f"{dtype}_error").max_abs),
                        sci(getattr(c, f"{dtype}_error").relative),
                    )
                    for c in cases
                ),
            )
        )
    with st.expander(_("The residuals value by value")):
        st.markdown(
            markdown_table(
                (_("gap"), _("exact r"), _("float64 r"), _("float32 r")),
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
    _ = texts()
    values = "; ".join(
        _("Z = {z}: float64 {float64}, float32 {float32}", z=c.gap_text, float64=sci(c.float64_error.max_abs),
          float32=sci(c.float32_error.max_abs) if c.float32.z else _("branch lost"))
        for c in cases
    )
    chart(
        figure("error_vs_z", cases),
        key="numerics_error_chart",
        alt=_("Log-log chart of the maximum error of r against the exact Z, for float64 and float32, with eps/Z guide "
              "lines; float32 loses the rejection branch (float Z = 0) from Z = 1e-8 down. Values: {values}",
              values=values),
    )
    zero_error = [c.gap_text for c in cases if c.float64_error.max_abs == 0]
    if zero_error:
        st.caption(_(
            "float64 error exactly 0 (rounding happened to cancel; not drawn on the log axis) at gap {gaps}.",
            gaps=", ".join(zero_error),
        ))


def flagged_findings(cases) -> None:
    """Every numerical inconsistency the cases show, in one table, each finding explained once below it."""
    _ = texts()
    flagged = [(c, dtype, c.findings(dtype)) for c in cases for dtype in ("float64", "float32") if c.findings(dtype)]
    if flagged:
        heading = _("Numerical inconsistencies flagged ({count}): investigate, never floor", count=len(flagged))
        with st.expander(heading, expanded=True):
            st.markdown(
                markdown_table(
                    (_("gap = exact Z"), _("dtype"), _("float Z"), _("exact Z of the rounded inputs"), _("finding")),
                    (
                        (
                            c.gap_text,
                            dtype,
                            sci(getattr(c, dtype).z),
                            sci(float(getattr(c, f"{dtype}_inputs_z"))),
                            "; ".join(say(name) for name, _message in found),
                        )
                        for c, dtype, found in flagged
                    ),
                )
            )
            explained = {}
            for c, dtype, found in flagged:
                for name, message in found:
                    explained.setdefault(name, _("first at gap {gap} in {dtype}: {message}", gap=c.gap_text,
                                                 dtype=dtype, message=say(message)))
            for name, text in explained.items():
                st.markdown(markdown_escape(f"{say(name)} — {text}."))


def tolerance_note(cases) -> None:
    _ = texts()
    within = [c.float64_within_tolerance for c in cases if c.float64_within_tolerance is not None]
    if within:
        st.caption(_(
            "float64 within its stated tolerance against the exact residual of its own rounded inputs in {count} of "
            "{total} cases above: the large errors in the table come from rounding p and q before the subtraction "
            "(magnified by 1/Z), not from the residual arithmetic.", count=sum(within), total=len(within),
        ))


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
    _ = texts()
    section(_("The branch: Z = 0 means no rejection"))
    st.markdown(_(
        "Exact p = q = (1/10, 1/5, 7/10), so the exact Z is 0: every proposal is kept and r is never "
        "computed (no 0/0, no floor). The same law held as different float64 values:"
    ))
    branches = branch_cases()
    st.markdown(  # a markdown table: its cells wrap (17-digit floats would cut a data frame's columns off)
        markdown_table(
            (_("case"), _("float p"), _("float q"), _("float Z"), _("float branch")),
            (
                (b.name, vector(b.float_p, 17), vector(b.float_q, 17), g(b.result.z, 3),
                 _(BRANCH_NAMES[b.float_branch]))
                for b in branches
            ),
        )
    )
    for b in branches:
        if b.inconsistency:
            found = "; ".join(say(message) for _name, message in branch_findings(b.result, b.exact_z))
            st.warning(_("**{name}** — numerical inconsistency: {problem}. {description}", name=b.name,
                         problem=found, description=say(b.description)))
        else:
            st.success(_("**{name}** — consistent: {description}", name=b.name, description=say(b.description)))


BACKEND_ITEMS = {"machine": N_("machine"), "byteorder": N_("byte order"), "exact": N_("exact")}


def backend_section() -> None:
    _ = texts()
    section(_("dtype, backend and the stated tolerance"))
    with st.expander(_("Build details: numpy, Python, machine and byte order")):
        backend = backend_report()
        st.markdown(markdown_table((_("item"), _("value")), (
            (_(BACKEND_ITEMS[item]) if item in BACKEND_ITEMS else item, _(value) if item == "exact" else value)
            for item, value in backend.items()
        )))
    tol = stated_tolerances()
    st.markdown(_(
        "**Identity (exact, no tolerance):** `{identity}`.  \n**Stated float64 tolerance (implementation testing "
        "only):** residual_rtol = {residual_rtol}: `{residual}`; reconstruction_rtol = {reconstruction_rtol}: "
        "`{reconstruction}`.", identity=say(tol["identity"]), residual_rtol=tol["residual_rtol"],
        residual=say(tol["residual"]), reconstruction_rtol=tol["reconstruction_rtol"],
        reconstruction=say(tol["reconstruction"]),
    ))


def main() -> None:
    intro()
    processed_intro()
    processed_section()
    tiny_z_intro()
    tiny_z_section()
    branch_section()
    backend_section()


main()
