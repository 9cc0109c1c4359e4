"""Several drafts: K candidates for one position, each tested against the residual the last rejection left.

Predict (by drawing the bars) the target the second candidate is tested against, p₂, and how often some candidate
is kept; Reveal shows the chain p₁ → p₂ → … → the correction, each candidate's kept mass stacked with the
correction into p, how the acceptance grows with K against the best any verifier can do; then one token tree,
drafted from a seed and verified step by step, and the exact law of L tokens under trees. A thin view: controls ->
SeveralDraftsModel -> lab/core/drafts.py -> lab/charts/drafts.py. Controls live in the URL (bind="query-params").
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import streamlit as st

from lab.core.distance import total_variation
from lab.core.drafts import RULES, DraftsInputError, acceptance_by_candidates, node_law
from lab.core.formatting import exact_text, fraction_text, markdown_escape, markdown_table
from lab.core.markov import MarkovModel, load_model
from lab.i18n import N_
from lab.i18n import texts as catalog_texts
from lab.models.explorer import slider_value
from lab.models.several_drafts import MAX_K, MAX_SEED, SeveralDraftsModel, TreeSteps, law_of_trees
from lab.views.ui.accessibility import announce, section, subsection, title
from lab.views.ui.bar_predictor import bar_predictor
from lab.views.ui.charts import chart, figure, pq_chart
from lab.views.ui.controls import Widgets
from lab.views.ui.language import (
    decimal_comma,
    exact_and_decimal,
    isolated,
    keep_lists_in_language,
    number,
    page_code,
    say,
    texts,
)
from lab.views.ui.page_state import (
    controls_model,
    keep_last_valid,
    kept_in_session,
    loaded_or_said,
    push_to_widgets,
    refuse_link_values,
    show_link_warnings,
)

WIDGETS = Widgets(SeveralDraftsModel, bound=True)
REVEALED = "sd_revealed"  # the node (SeveralDraftsModel.node_key) whose law is revealed
ACCEPTANCE_KEY = "sd_pred_acc"
RIGHT_WITHIN = Fraction(1, 20)  # a prediction within 0.05 (in total variation, or of the acceptance) counts as right


def intro() -> None:
    _ = texts()
    title(_("Several drafts"))
    st.markdown(_(
        "Many systems let the draft propose several **candidates** for the same position and test them one after "
        "another. The first candidate is tested as one draft is: kept with probability min(1, p/q). If it is "
        "rejected, the next candidate is tested the same way, but against a new target, **p₂**. Which one? Predict it "
        "below, then Reveal: the chain of targets p₁ = p → p₂ → … shows what each rejection leaves, down to the "
        "correction, the one fresh draw made when every candidate is rejected."
    ))
    show_link_warnings("sd_link_problems")


def node_controls() -> SeveralDraftsModel:
    _ = texts()
    separator = ";" if decimal_comma() else ","  # a decimal-comma language separates a list's entries with ";"
    keep_lists_in_language((WIDGETS.key("p_text"), WIDGETS.key("q_text")), "sd_lists_comma")
    first = st.container(horizontal=True, vertical_alignment="bottom")
    WIDGETS.selectbox(first, "scenario", help=_("Or type your own p and q below (both boxes), e.g. {example}",
                                                example=separator.join(("A=1/10", "B=3/5", "C=3/10"))))
    WIDGETS.number_input(first, "candidates", help=_("1 to {limit} candidates tested in order", limit=MAX_K))
    WIDGETS.selectbox(
        first,
        "rule",
        help=_("with-replacement: independent draws from q; without-replacement: a drawn token is not drawn again; "
               "top-k: q's K most likely tokens, each tested as a one-hot draft"),
    )
    typed = st.container(horizontal=True)
    WIDGETS.text_input(typed, "p_text", placeholder=separator.join(("A=1/10", "B=3/5", "C=3/10")))
    WIDGETS.text_input(typed, "q_text", placeholder=separator.join(("A=1/2", "B=3/10", "C=1/5")))
    return controls_model(SeveralDraftsModel, "sd_state", decimal_comma=decimal_comma())


def node_rows(state: SeveralDraftsModel):
    """The node's p and q (the last valid ones when the typed text is refused, with the refusal said)."""
    _ = texts()
    comma = decimal_comma()
    rows, refusal = keep_last_valid("sd_last_rows", lambda: state.distributions(comma))
    if refusal is not None:
        st.error(markdown_escape(_("{problem}. The last valid p and q stay on screen.", problem=say(refusal))))
    return rows, "" if refusal is None else say(refusal)


def prediction(tokens: tuple[str, ...], state: SeveralDraftsModel, revealed: bool) -> tuple[list[float] | None, float]:
    """The bars for p₂ (none with one candidate) and the predicted acceptance, each validated."""
    _ = texts()
    subsection(_("Predict first"))
    keys = [f"sd_pred_{i}" for i in range(len(tokens))]
    bars = None
    if state.candidates >= 2:
        st.markdown(_(
            "Draw **p₂**: the target the second candidate is tested against after the first is rejected (if the "
            "first can never be rejected, leave every bar at 0)."
        ))
        for key in keys:  # a crafted message could put anything in a slider's state
            st.session_state[key] = slider_value(st.session_state.get(key, 0.0), 0.0)
        labels = [f"p₂({t})" for t in tokens]
        bar_predictor(
            "sd_bars", labels, [st.session_state[k] for k in keys], keys, disabled=revealed,
            sum_note=" " + _("(a distribution adds up to 1)."),
        )  # fmt: skip
        if not revealed:  # after the reveal the bars above show the prediction (a greyed slider is hard to read)
            sliders = st.container(horizontal=True, gap="small")
            for label, key in zip(labels, keys):
                sliders.slider(label, 0.0, 1.0, step=0.01, key=key, format="%.2f", width=160)
        bars = [st.session_state[k] for k in keys]
    st.session_state[ACCEPTANCE_KEY] = slider_value(st.session_state.get(ACCEPTANCE_KEY, 0.0), 0.0)
    st.number_input(
        _("Your prediction: the probability that some candidate is kept"),
        min_value=0.0, max_value=1.0, step=0.01, key=ACCEPTANCE_KEY, disabled=revealed,
    )  # fmt: skip
    return bars, float(st.session_state[ACCEPTANCE_KEY])


def stage_table(tokens, law) -> str:
    """Each stage: where it is reached and the target it tests against; then the correction."""
    _ = texts()
    rows = []
    for stage in sorted(law.stages, key=lambda s: s.position):
        what = _("correction") if stage.position > law.candidates else _("candidate {number}", number=stage.position)
        rows.append((what, fraction_text(stage.reach), *(fraction_text(v) for v in stage.p)))
    return markdown_table((_("stage"), _("reached"), *(f"pᵢ({t})" for t in tokens)), rows)


def reveal(tokens, p, q, state: SeveralDraftsModel, bars, acceptance_guess: float) -> str:
    """The exact chain, the reconstruction, the grade; returns what the live region says."""
    _ = texts()
    try:
        law = node_law(p, q, state.candidates, state.rule)
    except DraftsInputError as exc:
        st.error(markdown_escape(say(exc)))
        return say(exc)
    second = next((s.p for s in law.stages if s.position == 2), None)
    said = []
    if bars is not None:
        if second is None:
            right = not any(bars)
            exact = _("no second test: the first candidate is never rejected")
        else:
            right = total_variation([Fraction(b).limit_denominator(100) for b in bars], second) <= RIGHT_WITHIN
            exact = isolated("p₂ = (" + ", ".join(f"{t} {fraction_text(v)}" for t, v in zip(tokens, second)) + ")")
        said.append(_("Right: {exact}.", exact=exact) if right else _("Not quite: {exact}.", exact=exact))
    acc_right = abs(Fraction(acceptance_guess).limit_denominator(100) - law.acceptance) <= RIGHT_WITHIN
    values = {"acceptance": exact_and_decimal(law.acceptance), "guess": number(acceptance_guess, ".2f")}
    said.append(
        _("Right: a candidate is kept with probability {acceptance} (you said {guess}).", **values)
        if acc_right
        else _("Not quite: a candidate is kept with probability {acceptance} (you said {guess}).", **values)
    )
    right_all = acc_right and (bars is None or right)
    (st.success if right_all else st.warning)(markdown_escape(" ".join(said)))
    st.markdown(_(
        "**The chain of targets.** Each candidate is tested against the residual the last rejection left "
        "(reached: the probability that the verification gets to that stage):"
    ))
    st.markdown(stage_table(tokens, law))
    kept_rows = [
        (t, *(fraction_text(row[i]) for row in law.kept_by_position), fraction_text(law.corrected[i]),
         fraction_text(law.law[i]))
        for i, t in enumerate(tokens)
    ]  # fmt: skip
    header = (_("token"), *(_("kept at candidate {number}", number=k + 1) for k in range(law.candidates)),
              _("correction"), _("total"))
    chart(
        figure("stage_stack", tokens, law.kept_by_position, law.corrected, p),
        "sd_stack",
        _("Stacked bars per token: the mass kept at each candidate, then the correction, reaching p. {values}.",
          values="; ".join(f"{row[0]}: " + ", ".join(f"{h} {v}" for h, v in zip(header[1:], row[1:]))
                           for row in kept_rows)),
    )
    st.markdown(markdown_table(header, kept_rows))
    same = tuple(law.law) == tuple(p)
    st.markdown(
        _("Kept at each candidate plus the correction gives **p exactly**, token by token.")
        if same
        else _("The total differs from p: this rule is not the target's law.")
    )
    more_candidates(p, q, state, law.acceptance)
    return _("Revealed. {said}", said=" ".join(said))


def more_candidates(p, q, state: SeveralDraftsModel, acceptance) -> None:
    """The acceptance against K for each rule, α* for the chosen rule's candidates, and how far the rule is."""
    _ = texts()
    subsection(_("More candidates, less gain"))
    curves, best, chosen = {}, [], {}
    for rule in RULES:
        try:
            rows = acceptance_by_candidates(p, q, rule, MAX_K)
        except DraftsInputError:
            continue
        curves[rule] = [(r.candidates, float(r.acceptance)) for r in rows]
        if rule == state.rule:
            best = [(r.candidates, float(r.best)) for r in rows if r.best is not None]
            chosen = {r.candidates: r for r in rows}
    row = chosen.get(state.candidates) if state.rule in curves else None
    if row is not None and row.best is not None:
        gap = row.best - acceptance
        values = {"k": state.candidates, "rule": state.rule, "acceptance": exact_and_decimal(acceptance),
                  "best": exact_and_decimal(row.best)}
        st.markdown(
            _("With K = {k}, the {rule} rule keeps a candidate with probability {acceptance}; no verifier whose output "
              "follows p can keep one more often than {best} with the same candidates: this rule reaches it.",
              **values)
            if gap == 0
            else _("With K = {k}, the {rule} rule keeps a candidate with probability {acceptance}; no verifier whose "
                   "output follows p can keep one more often than {best} with the same candidates, {gap} more.",
                   **values, gap=exact_and_decimal(gap))
        )
    values = "; ".join(
        f"{rule}: " + ", ".join(f"K = {k}: {number(v, '.4f')}" for k, v in points) for rule, points in curves.items()
    )
    best_text = ", ".join(f"K = {k}: {number(v, '.4f')}" for k, v in best)
    chart(
        figure("acceptance_by_k", tuple((r, tuple(points)) for r, points in curves.items()), tuple(best), state.rule),
        "sd_more",
        _("Lines of the probability that a candidate is kept against K. {values}. Best possible ({rule}): {best}.",
          values=values, rule=state.rule, best=best_text),
        table=(
            (_("rule"), *(f"K = {k}" for k in range(1, MAX_K + 1))),
            [(rule, *(number(v, ".4f") for _k, v in points)) for rule, points in curves.items()]
            + [(_("best possible ({rule})", rule=state.rule), *(number(v, ".4f") for _k, v in best))],
        ),
    )


def on_reveal(key: tuple) -> None:
    st.session_state[REVEALED] = key


def node_section() -> None:
    _ = texts()
    section(_("One position, several candidates"))
    state = node_controls()
    rows, refusal = node_rows(state)
    if rows is None:
        announce("sd", error=refusal)
        return
    p, q = rows
    tokens = p.tokens
    pq_chart(tokens, p.values, q.values, key="sd_pq")
    predict_and_reveal(tokens, p.values, q.values, state, refusal)


@st.fragment
def predict_and_reveal(tokens: tuple[str, ...], p, q, state: SeveralDraftsModel, refusal: str) -> None:
    """The prediction, Reveal and what it shows. A fragment: moving a bar or a slider, or Reveal, reruns this part
    only (the controls, the p / q chart and the token tree stay as they are)."""
    _ = texts()
    key = state.node_key()
    revealed = st.session_state.get(REVEALED) == key
    bars, acceptance_guess = prediction(tokens, state, revealed)
    st.button(_("Reveal"), key="sd_reveal", type="primary", on_click=on_reveal, args=(key,))
    said = ""
    if revealed:
        said = reveal(tokens, p, q, state, bars, acceptance_guess)
    else:
        st.info(_("Make your predictions, then Reveal: the chain of targets, the stacked reconstruction and the "
                  "grade."))
    announce("sd", said, error=refusal)


# --- a token tree, stepped through -----------------------------------------------------------------------------


def tree_controls() -> SeveralDraftsModel:
    row = st.container(horizontal=True, vertical_alignment="bottom")
    WIDGETS.selectbox(row, "tree_model")
    WIDGETS.selectbox(row, "widths")
    WIDGETS.number_input(row, "seed")
    WIDGETS.number_input(row, "length")
    return controls_model(SeveralDraftsModel, "sd_state", quiet=True, decimal_comma=decimal_comma())


def tree_lines(markov: MarkovModel, node, tests: dict, depth: int = 0) -> list[str]:
    """The drafted tree as nested list lines: each candidate with its test once stepped to."""
    _ = texts()
    lines = []
    for child in node.children:
        name = markdown_escape(markov.vocab[child.token])
        test = tests.get((depth + 1, id(child)))
        if test is None:
            status = _("not tested")
        else:
            values = {"keep": exact_text(test.keep), "u": number(test.u, ".3f")}
            status = (_("tested: kept with probability {keep}, u = {u}: **kept**", **values) if test.kept
                      else _("tested: kept with probability {keep}, u = {u}: rejected", **values))
        lines.append("  " * depth + f"- {name} ({status})")
        lines.extend(tree_lines(markov, child, tests, depth + 1))
    return lines


def shown_tests(trace, shown: int) -> dict:
    """The tests shown so far, by (depth, the node object tested): the verification walks the tree in order."""
    out = {}
    node = trace.root
    for test in trace.tests[:shown]:
        for child in node.children:
            if child.token == test.candidate and (test.depth, id(child)) not in out:
                out[(test.depth, id(child))] = test
                if test.kept:
                    node = child
                break
    return out


def on_new_tree(state: SeveralDraftsModel) -> None:
    push_to_widgets({WIDGETS.key("seed"): min(state.seed + 1, MAX_SEED)})


ENDINGS = {  # how a tree's block ended: said after its committed tokens
    "correction": N_("every child of a node was rejected: the last token is the correction, drawn from the residual"),
    "bonus": N_("a leaf was kept: the last token is the bonus, drawn from the target"),
    "stop": N_("the stop token was committed: the output ends"),
}


def tree_section() -> None:
    _ = texts()
    section(_("A token tree, step by step"))
    st.markdown(_(
        "A **token tree** drafts candidates at every depth: the widths say how many children each node gets. "
        "The root's children are tested first, as above; the kept child's own children are tested next, against "
        "the target after that token. When every child of a node is rejected, the correction ends the block; a "
        "kept leaf earns one bonus token from the target."
    ))
    state = tree_controls()
    markov = loaded_or_said(load_model, state.tree_model)
    if markov is None:
        return
    try:
        trace = state.trace(markov)
    except DraftsInputError as exc:
        st.error(markdown_escape(_("{problem}. Choose another rule, model or widths.", problem=say(exc))))
        announce("sd_tree", error=say(exc))
        return
    steps = kept_in_session("sd_steps", TreeSteps)
    steps.follow((*state.tree_key(), state.rule))
    buttons = st.container(horizontal=True)
    buttons.button(_("Step"), key="sd_step", type="primary", on_click=steps.step, args=(trace,))
    buttons.button(_("Show all"), key="sd_all", on_click=steps.show_all, args=(trace,))
    buttons.button(_("Reset"), key="sd_reset", on_click=steps.reset)
    buttons.button(_("New tree (seed + 1)"), key="sd_new", on_click=on_new_tree, args=(state,))
    tests = shown_tests(trace, steps.shown)
    st.markdown(_("**Drafted tree** (widths {widths}, rule {rule}, seed {seed}):", widths=state.widths,
                  rule=state.rule, seed=state.seed))
    st.markdown("\n".join(tree_lines(markov, trace.root, tests)))
    said = _.ngettext("{shown} of {count} test shown.", "{shown} of {count} tests shown.", len(trace.tests),
                      shown=min(steps.shown, len(trace.tests)), count=len(trace.tests))
    if steps.finished(trace):
        words = " ".join(markdown_escape(markov.vocab[t]) for t in trace.committed)
        line = _("Committed: **{words}** ({ending}).", words=words, ending=_(ENDINGS[trace.ending]))
        st.markdown(line)
        said += " " + line.replace("**", "")
    announce("sd_tree", said)
    tree_law_part(state, markov)


def tree_law_part(state: SeveralDraftsModel, markov: MarkovModel) -> None:
    _ = texts()
    subsection(_("The exact law under trees"))
    texts_, refusal = keep_last_valid(
        "sd_last_tree_law", lambda: tree_law_texts(markov, state.tree, state.length, state.rule, page_code())
    )
    if refusal is not None:
        st.error(markdown_escape(_("{problem}. The last valid law stays on screen.", problem=say(refusal))))
    if texts_ is None:
        return
    for text in texts_:
        st.markdown(text)


@lru_cache(maxsize=256)
def tree_law_texts(markov: MarkovModel, widths: tuple[int, ...], length: int, rule: str, code: str) -> tuple[str, str]:
    """The law's sentence and its table in language ``code``, made once per setting (every prediction or Step runs
    the page again)."""
    _ = catalog_texts(code)
    result = law_of_trees(markov, widths, length, rule)
    rows = [(markov.sequence_text(seq), fraction_text(t), fraction_text(s)) for seq, t, s in result.rows()]
    values = {"length": result.length, "widths": ",".join(map(str, result.widths)), "rule": result.rule,
              "distance": fraction_text(result.distance)}
    return (
        _("Every output of at most L = {length} tokens under trees of widths {widths} ({rule}), beside the target's "
          "own probability: total variation distance **{distance}** (the same law, exactly).", **values)
        if result.distance == 0
        else _("Every output of at most L = {length} tokens under trees of widths {widths} ({rule}), beside the "
               "target's own probability: total variation distance **{distance}**.", **values),
        markdown_table((_("output"), _("target"), _("trees")), rows),
    )


def main() -> None:
    refuse_link_values(SeveralDraftsModel.from_url(st.query_params, decimal_comma=decimal_comma())[1],
                       "sd_link_problems")
    intro()
    node_section()
    with st.container(key="sd-tree"):  # its own part: the tree is no prediction (tests read the node's part apart)
        tree_section()


main()
