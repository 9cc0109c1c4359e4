"""Each Start-here chapter's interactive, drawn by the lesson page (lab.views.lesson.start_here): what is on screen
before the prediction is revealed (never its answer) and after it. Every number comes from lab.teaching.lesson."""

from __future__ import annotations

import re
import secrets
from fractions import Fraction

import streamlit as st

from lab.core.distance import total_variation
from lab.core.formatting import exact_text, fraction_text, markdown_table
from lab.core.scenarios import load_scenario
from lab.i18n import N_
from lab.models.explorer import slider_value
from lab.models.lesson import ChapterWork
from lab.teaching import lesson
from lab.teaching.lesson import Chapter
from lab.views.ui import language
from lab.views.ui.bar_predictor import bar_predictor
from lab.views.ui.charts import chart, figure, pq_chart

# the names and titles the chapters give their charts (translated by lab.views.ui.charts.figure)
KEPT_NAME, KEPT_TITLE = N_("kept min(p, q)"), N_("What kept proposals give")
MISTAKE_NAMES = {"greedy-draft": N_("greedy draft"), "resample-from-p": N_("resample from p")}
MISTAKES_TITLE = N_("Two mistakes' output law")
CASE_LABELS = {"equal-distributions": N_("Equal"), "disjoint-support": N_("Disjoint"),
               "draft-misses-support": N_("Draft misses")}


def decimal_text_of(value) -> str:
    """A distance with three decimals, as the page's language writes it (0,012 with a decimal comma)."""
    text = f"{float(value):.3f}"
    return text.replace(".", ",") if language.decimal_comma() else text


def plain(markdown_line: str) -> str:
    """A chapter's markdown line as a screen reader's text (no bold marks, links as their words)."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown_line).replace("**", "").replace("*", "")


def _pq(name: str, key: str) -> None:
    scenario = load_scenario(name)
    pq_chart(scenario.tokens, scenario.p.values, scenario.q.values, key)


def _reconstruction(name: str, key: str) -> None:
    _ = language.texts()
    result = lesson.example(name)
    tokens = result.tokens
    chart(
        figure("reconstruction_bars", tokens, result.accepted, result.correction, result.p),
        key=key,
        alt=_("Stacked bars per token: kept min(p, q) plus correction Z times r, reaching the target p: {values}",
              values="; ".join(
                  f"{t}: {fraction_text(a)} + {fraction_text(c)} = {fraction_text(p)}"
                  for t, a, c, p in zip(tokens, result.accepted, result.correction, result.p)
              )),
        table=(
            (_("token"), _("kept min(p, q)"), _("correction Z·r"), _("sum"), _("target p")),
            [(t, exact_text(a), exact_text(c), exact_text(a + c), exact_text(p))
             for t, a, c, p in zip(tokens, result.accepted, result.correction, result.p)],
        ),
    )


def _edge_case() -> str:
    _ = language.texts()
    if st.session_state.get("ls_4_case") not in CASE_LABELS:  # a crafted message could put anything there
        st.session_state["ls_4_case"] = lesson.EDGE_CASES[0]
    return st.radio(_("Case"), lesson.EDGE_CASES, key="ls_4_case", format_func=lambda case: _(CASE_LABELS[case]),
                    horizontal=True)


def before(item: Chapter, work: ChapterWork) -> None:
    """What the chapter shows before its prediction (p and q, or the edge case chosen)."""
    kind = item.interactive
    if kind in ("kept", "residual", "mistakes", "step"):
        _pq(lesson.EXAMPLE, f"ls_{item.number}_pq")
    elif kind == "edges":
        _pq(_edge_case(), "ls_4_pq")
    elif kind == "worked":
        _pq(lesson.WORKED_EXAMPLE, "ls_5_pq")
    elif kind == "block":
        _ = language.texts()
        _stepper("ls_7", lambda seed: lesson.block_story(seed, words=_), _("Step through one block"))


def after(item: Chapter, work: ChapterWork) -> None:
    """The chapter's interactive once its prediction is revealed (the worked example's sum once its question, which
    asks for a term of it, is answered)."""
    kind = item.interactive
    if kind == "step":
        _ = language.texts()
        _stepper("ls_1", lambda seed: lesson.step_story(seed, words=_), _("Now watch single steps"))
    elif kind == "kept":
        _kept_chart()
    elif kind == "residual":
        _reconstruction(lesson.EXAMPLE, "ls_3_rec")
    elif kind == "edges":
        _reconstruction(st.session_state.get("ls_4_case", lesson.EDGE_CASES[0]), "ls_4_rec")
    elif kind == "worked" and work.solution_shown:
        _reconstruction(lesson.WORKED_EXAMPLE, "ls_5_rec")
    elif kind == "run":
        _run()
    elif kind == "mistakes":
        _mistakes_chart()


def _stepper(prefix: str, story, heading: str) -> None:
    """Step / New draw / Reset through a seeded story, one line per Step (as the Blocks page does)."""
    _ = language.texts()
    seed_key, shown_key = f"{prefix}_seed", f"{prefix}_shown"
    seed = st.session_state.setdefault(seed_key, 1)
    lines = story(seed)
    shown = st.session_state.get(shown_key, 0)
    shown = shown if isinstance(shown, int) and 0 <= shown <= len(lines) else 0
    st.markdown(f"**{heading}**")
    with st.container(horizontal=True):
        # never disabled at the end: a button that disables itself drops keyboard focus to the page's body
        if st.button(_("Step"), key=f"{prefix}_step", type="primary"):
            shown = min(shown + 1, len(lines))
        if st.button(_("New draw"), key=f"{prefix}_new", help=_("Draw new random numbers and start again")):
            st.session_state[seed_key] = secrets.randbelow(10**6) + 2
            shown, lines = 0, story(st.session_state[seed_key])
        if st.button(_("Reset"), key=f"{prefix}_reset", help=_("Back to the first step of this draw")):
            shown = 0
    st.session_state[shown_key] = shown
    if not shown:
        st.caption(_("Press Step to draw the first number."))
    elif shown == len(lines):
        st.caption(_("That is the whole draw: New draw for another."))
    for line in lines[:shown]:
        st.markdown("- " + line)


def _kept_chart() -> None:
    _ = language.texts()
    result = lesson.example()
    tokens = result.tokens
    values = "; ".join(  # made before the sentence it goes in: the extractor skips a message inside another's call
        _("{t}: p {p}, kept {kept}", t=t, p=fraction_text(p), kept=fraction_text(a))
        for t, p, a in zip(tokens, result.p, result.accepted)
    )
    chart(
        figure("law_vs_target", tokens, result.p, {KEPT_NAME: result.accepted}, KEPT_TITLE),
        key="ls_2_kept",
        alt=_("Bars of target p and kept mass min(p, q) per token: {values}", values=values),
    )


def _run() -> None:
    _ = language.texts()
    result = lesson.example()
    tokens = result.tokens
    steps = lesson.count_text(lesson.RUN_STEPS, _)
    seed = st.session_state.setdefault("ls_6_seed", 1)
    if st.button(_("Run again"), key="ls_6_again", help=_("{steps} new steps with new random numbers", steps=steps)):
        seed = st.session_state["ls_6_seed"] = secrets.randbelow(10**6) + 2
    outcome = lesson.run(seed)
    spec, direct = outcome.counts(outcome.speculative, tokens), outcome.counts(outcome.direct, tokens)
    st.markdown("**" + _("The first words of each run") + "**")
    st.markdown(
        markdown_table(
            (_("run"), _("first 12 words")),
            [
                (_("speculative"), " ".join(outcome.speculative[:12])),
                (_("straight from the target"), " ".join(outcome.direct[:12])),
            ],
        )
    )
    share = [[Fraction(c, lesson.RUN_STEPS) for c in counts] for counts in (spec, direct)]
    tv = [total_variation(s, result.p) for s in share]
    st.markdown(_(
        "**Counts of {steps} words.** Total variation distance of the shares from p: speculative {speculative}, "
        "straight from the target {direct} (0 would be a perfect match).",
        steps=steps, speculative=decimal_text_of(tv[0]), direct=decimal_text_of(tv[1]),
    ))
    st.markdown(
        markdown_table(
            (_("word"), _("speculative"), _("straight from the target"),
             _("expected ({steps} × p)", steps=steps)),
            [(t, str(a), str(b), fraction_text(lesson.RUN_STEPS * p)) for t, a, b, p in zip(tokens, spec, direct,
                                                                                            result.p)],
        )
    )


def _mistakes_chart() -> None:
    _ = language.texts()
    result = lesson.example()
    laws = lesson.mistake_laws()
    tokens = result.tokens
    chart(
        figure("law_vs_target", tokens, result.p, {MISTAKE_NAMES[k]: v for k, v in laws.items()}, MISTAKES_TITLE),
        key="ls_8_laws",
        alt=_("Bars of target p and each mistaken rule's output law per token: {values}", values="; ".join(
            f"{t}: p {fraction_text(p)}, "
            + ", ".join(f"{_(MISTAKE_NAMES[k])} {fraction_text(v[i])}" for k, v in laws.items())
            for i, (t, p) in enumerate(zip(tokens, result.p))
        )),
    )


def bar_prediction(item: Chapter, keys: list[str], work: ChapterWork) -> list[str]:
    """Chapter 5: the bars r(B), r(C) drawn (or set on their sliders); the predictions as texts."""
    for key, saved in zip(keys, work.predictions):
        st.session_state.setdefault(key, slider_value(saved, 0.0))
    for key in keys:  # a crafted message could put anything in a slider's state
        st.session_state[key] = slider_value(st.session_state.get(key, 0.0), 0.0)
    labels = [ask.label for ask in item.asks]
    values = [st.session_state[key] for key in keys]
    _ = language.texts()
    bar_predictor("ls_5_bars", labels, values, keys, disabled=work.revealed,
                  sum_note=" " + _("(a residual adds up to 1)."))
    cols = st.columns(len(keys))
    for col, label, key in zip(cols, labels, keys):
        col.slider(label, 0.0, 1.0, step=0.01, key=key, format="%.2f", disabled=work.revealed)
    return [f"{st.session_state[key]:.2f}" for key in keys]


def graded_table(item: Chapter, predictions: list[str]) -> None:
    """Each predicted box beside its exact value."""
    _ = language.texts()
    rows = []
    for i, ask in enumerate(item.asks):
        typed = predictions[i] if i < len(predictions) else ""
        grade = ask.grade(typed)
        verdict = _("right") if grade else ("—" if grade is None else _("off"))
        rows.append((ask.label, typed or "—", fraction_text(ask.answer), verdict))
    st.markdown(markdown_table((_("asked"), _("your prediction"), _("exact"), _("verdict")), rows))
