"""Blocks: draft K tokens, verify left to right, correct at the first rejection, bonus if all pass.

Step through one sampled block (drafts, each test with its uniform, the first rejection and the
residual at that position, discarded drafts greyed out, the bonus token), then the exact law of the
first L tokens against the target's (distance 0 for the correct algorithm), and the speed-up
formulas. A model that stops (a stop token such as <end>): the law is over complete outputs (ending with
the stop token, or cut at L tokens), the block stops at the stop token and L cuts it short.
A thin view: controls -> BlocksModel and BlockSteps -> lab/core/blocks.py and lab/core/speedup.py -> the charts
of lab/charts/sampling.py. Controls live in the URL (bind="query-params").
"""

from __future__ import annotations

import streamlit as st

from lab.charts.palette import MUTED_ROW_CSS
from lab.core.blocks import MAX_BLOCK, MAX_LENGTH, MAX_OUTCOMES, BlockTrace
from lab.core.distributions import LabInputError
from lab.core.formatting import decimal_text, exact_text, markdown_escape
from lab.core.markov import START, MarkovModel, load_model
from lab.core.speedup import NO_BEST_GAMMA, acceptance_rate, best_gamma, speedup_curve
from lab.i18n import N_
from lab.models.blocks import SEARCH_SEEDS, BlocksModel, BlockSteps
from lab.teaching.pitfalls import VARIANT_WORDS
from lab.views.live_class.once_per_server import exact_comparison, law_table
from lab.views.ui.accessibility import announce, section, spoken, subsection, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.controls import Widgets
from lab.views.ui.language import decimal_comma, exact_and_decimal, number, say, texts
from lab.views.ui.page_state import (
    controls_model,
    drawn_outside,
    kept_in_session,
    loaded_or_said,
    push_to_widgets,
    redraw_page_if_changed,
    refuse_link_values,
    show_link_warnings,
    whole_page,
)

MAX_K = MAX_BLOCK
MAX_L = MAX_LENGTH
LIMITS = {"max_k": MAX_K, "max_l": MAX_L}  # the model's controls K and L go up to these
WIDGETS = Widgets(BlocksModel, bound=True, limits=LIMITS)  # each widget from its control, declared in the model
GAMMAS = list(range(0, 16))
LAW_CHART_ROWS = 40  # the law is drawn as bars up to this many outputs (the table lists every one)
MODEL_SHOWN = "bk_model_shown"  # the model the part after the block section describes (its acceptance rate)
SEARCH_NOTE = "bk_search_note"  # what the last "Find a block that ends at …" has to say (None: it found one)


def stop_markdown(markov: MarkovModel) -> str | None:
    """The stop token's name for a markdown line (None for a model that never stops)."""
    return None if markov.stop is None else markdown_escape(markov.stop_name)


def intro() -> None:
    _ = texts()
    title(_("Blocks of drafts"))
    st.markdown(_(
        "The draft proposes **K** tokens ahead. The target checks them left to right; the **first rejection** "
        "ends the block: a replacement is drawn from the residual at that position and every later draft is "
        "discarded. If all K pass, one **bonus** token comes from p."
    ))
    show_link_warnings("bk_link_problems")


def model_controls() -> None:
    """Model and algorithm, drawn above the block section and outside its fragment: choosing either runs the whole
    page (a new model changes the speed-up section too), and a change of K, L or the seed does not send them again."""
    _ = texts()
    first_row = st.columns([3, 3], vertical_alignment="bottom")
    models_help = _("Markov models (kind markov) first, then one-step scenarios repeated at every position")
    WIDGETS.selectbox(first_row[0], "model", help=models_help)
    variants_help = _("correct speculative sampling, or one of the named mistakes (see the Pitfalls page)")
    WIDGETS.selectbox(first_row[1], "variant", help=variants_help)


def block_controls() -> BlocksModel:
    """K, L and seed, read with the model and algorithm into the page model (a refused value keeps the last valid
    one)."""
    _ = texts()
    second_row = st.container(horizontal=True, vertical_alignment="bottom")  # one element, not three columns
    WIDGETS.number_input(second_row, "block")
    WIDGETS.number_input(
        second_row,
        "length",
        help=_("The exact law lists every sequence of L tokens the algorithm can produce, at most {limit}. With a "
               "model that stops, L is the maximum length: an output ends with the stop token or is cut at L tokens, "
               "the stop token counted as one of them.", limit=number(MAX_OUTCOMES, ",")),
    )
    WIDGETS.number_input(second_row, "seed")
    return controls_model(BlocksModel, "bk_state", **LIMITS)


def model_notes(state: BlocksModel, markov: MarkovModel) -> None:
    """The model's note, the mistake on show, and the rules of a model that stops."""
    _ = texts()
    variant = state.algorithm
    if markov.note:
        st.caption(markdown_escape(_("{title}. {note}", title=_(markov.title), note=_(markov.note))))
    if variant.name != "correct":
        st.warning(_("Mistake shown: {description}", description=_(VARIANT_WORDS[variant.name].description)),
                   icon=":material/bug_report:")
    stop_md = stop_markdown(markov)
    if stop_md is not None:
        st.info(
            _("This model stops. An output ends with **{stop}**, or is cut at L = {length} tokens ({stop} counted as "
              "one of them); the target and block decoding follow the same rules. The draft drafts nothing after a "
              "proposed {stop}; a kept or corrected {stop} ends the output: no bonus token, later drafts discarded; L "
              "cuts a block short.", stop=stop_md, length=state.length),
            icon=":material/stop_circle:",
        )
    elif variant.stop_only:
        st.caption(_("This model has no stop token, so this mistake changes nothing here: choose a model that stops."))


def on_next_seed(state: BlocksModel) -> None:
    push_to_widgets({WIDGETS.key("seed"): state.next_seed()})


def on_find_stop(state: BlocksModel, markov: MarkovModel) -> None:
    seed, note = state.seed_ending_at_stop(markov)
    if seed is not None:
        push_to_widgets({WIDGETS.key("seed"): seed})
    st.session_state[SEARCH_NOTE] = note


def block_buttons(state: BlocksModel, markov: MarkovModel, steps: BlockSteps, trace: BlockTrace) -> None:
    # The buttons never disable themselves (focus would fall to the page's body, WCAG 2.4.3): on a complete block
    # Step and Show all change nothing, and the live region below says the block is complete.
    _ = texts()
    buttons = st.container(horizontal=True)  # one row that wraps on a phone: one element, not four columns
    buttons.button(_("Step"), key="bk_step", type="primary", on_click=steps.step, args=(trace,), width="stretch")
    buttons.button(_("Show all"), key="bk_all", on_click=steps.show_all, args=(trace,), width="stretch")
    buttons.button(_("Restart"), key="bk_restart", on_click=steps.restart, width="stretch")
    buttons.button(_("New block (seed + 1)"), key="bk_next_seed", on_click=on_next_seed, args=(state,),
                   width="stretch")
    stop_md = stop_markdown(markov)
    if stop_md is not None:
        st.button(
            _("Find a block that ends at {stop}", stop=stop_md),
            key="bk_find_stop",
            on_click=on_find_stop,
            args=(state, markov),
            help=_("Tries the next seeds (at most {count}) until the block commits {stop}", count=SEARCH_SEEDS,
                   stop=stop_md),
        )
        if st.session_state.get(SEARCH_NOTE):
            st.caption(say(st.session_state[SEARCH_NOTE]))


def context_words(markov: MarkovModel, context: int) -> str:
    """Where a test stands, for a sentence: "start", or the token before it (escaped)."""
    _ = texts()
    return _("start") if context == START else markdown_escape(markov.vocab[context])


def describe(test, state: BlocksModel, markov: MarkovModel) -> str:
    """One test as a markdown line: the draft, p, q, the uniform and what happened (token names escaped)."""
    _ = texts()
    vocab, stop_md, variant = markov.vocab, stop_markdown(markov), state.algorithm
    values = {"number": test.position + 1, "token": markdown_escape(vocab[test.token])}
    if test.status == "discarded":
        return _("Draft {number}: **{token}** is discarded: it was drafted after a token the target rejected.",
                 **values)
    values |= {"context": context_words(markov, test.test_context), "p": exact_text(test.p), "q": exact_text(test.q),
               "keep": exact_text(test.accept_probability), "u": number(test.u, ".4f"),
               "bound": decimal_text(test.accept_probability, 4, decimal_comma=decimal_comma())}
    if test.status == "accepted":
        line = _("Draft {number}: **{token}** after {context}: p = {p}, q = {q}, kept with probability min(1, p/q) = "
                 "{keep}. Uniform u = {u} < {bound}: **kept**.", **values)
        if test.token == markov.stop:
            line += " " + (
                _("The mistake goes on after {stop}.", stop=stop_md)
                if variant.drafts_past_stop or variant.bonus_after_stop
                else _("{stop} ends the output: no bonus token, nothing after it.", stop=stop_md)
            )
        return line
    line = _("Draft {number}: **{token}** after {context}: p = {p}, q = {q}, kept with probability min(1, p/q) = "
             "{keep}. Uniform u = {u} ≥ {bound}: **rejected**; the replacement **{replacement}** is drawn from the "
             "residual at this position (u = {correction_u}).", **values,
             replacement=markdown_escape(vocab[test.replacement]), correction_u=number(test.correction_u, ".4f"))
    if test.replacement == markov.stop:
        line += " " + _("The replacement is {stop}: the output ends here.", stop=stop_md)
    return line


def outcome(test, vocab, shown: bool) -> str:
    """What the chart shows at a draft's position: its test's outcome once stepped to, else "not tested yet"."""
    _ = texts()
    if not shown:
        return _("not tested yet")
    if test.status == "rejected":
        return _("rejected, replaced by {token} from the residual", token=vocab[test.replacement])
    return _("kept") if test.status == "accepted" else _("discarded")


def trace_chart(markov: MarkovModel, steps: BlockSteps, trace: BlockTrace) -> None:
    """The block's drafts by position, each with its outcome once stepped to (and the committed tokens at the end)."""
    _ = texts()
    vocab, finished = markov.vocab, steps.finished(trace)
    tests_shown = len(steps.tests_shown(trace))
    trace_rows = [
        (str(t.position + 1), vocab[t.token], outcome(t, vocab, i < tests_shown)) for i, t in enumerate(trace.tests)
    ]
    if finished and trace.bonus is not None:
        trace_rows.append((_("bonus"), vocab[trace.bonus], _("drawn from p")))
    rows = "; ".join(f"{position} {drafted}: {result}" for position, drafted, result in trace_rows)
    chart(
        figure("block_trace", vocab, trace, steps.revealed),
        "bk_trace",
        _("One block, drafted tokens by position: {rows}; committed {tokens}", rows=rows,
          tokens=" ".join(vocab[t] for t in trace.committed))
        if finished
        else _("One block, drafted tokens by position: {rows}", rows=rows),
        table=((_("position"), _("drafted"), _("outcome")), trace_rows),
    )


def block_lines(state: BlocksModel, markov: MarkovModel, steps: BlockSteps, trace: BlockTrace) -> list[str]:
    """The block as markdown lines: the drafts, each test stepped to, and at the end what the block commits."""
    _ = texts()
    stop_md, room, length = stop_markdown(markov), state.room(markov), state.length
    token_md = [markdown_escape(name) for name in markov.vocab]
    drafted = len(trace.drafts)
    first = _.ngettext("The draft proposed {count} token from q: {tokens}.",
                       "The draft proposed {count} tokens from q: {tokens}.", drafted, count=drafted,
                       tokens=", ".join(f"**{token_md[t]}**" for t in trace.drafts))
    if stop_md is not None and drafted < state.block and trace.drafts[-1] == markov.stop:
        first += " " + _("It drafts nothing after {stop}.", stop=stop_md)
    if room is not None and drafted < state.block and room < state.block and trace.drafts[-1] != markov.stop:
        first += " " + _("L = {length} leaves room for {length} tokens only, so the block is cut to {drafted} drafts.",
                         length=length, drafted=drafted)
    lines = [first]
    lines += [describe(t, state, markov) for t in steps.tests_shown(trace)]
    if steps.finished(trace):
        if trace.bonus is not None:
            lines.append(_.ngettext(
                "All {count} drafts passed: one bonus token **{token}** is drawn from p (u = {u}).",
                "All {count} drafts passed: one bonus token **{token}** is drawn from p (u = {u}).", drafted,
                count=drafted, token=token_md[trace.bonus], u=number(trace.bonus_u, ".4f"),
            ))
        elif trace.rejection is None and trace.reached_length and not trace.ends_output:
            lines.append(_.ngettext(
                "All {count} drafts passed and the output has its L = {length} tokens: no bonus token.",
                "All {count} drafts passed and the output has its L = {length} tokens: no bonus token.", drafted,
                count=drafted, length=length,
            ))
        if trace.ends_output:
            ending = _("The output is complete: it ended at {stop}.", stop=stop_md)
        elif trace.reached_length:
            ending = _("The output is complete: it is cut at L = {length} tokens.", length=length)
        else:
            ending = _("The next block starts from this corrected prefix.")
        committed = " ".join(token_md[t] for t in trace.committed)
        lines.append(_.ngettext("The block commits {count} token: **{tokens}**.",
                                "The block commits {count} tokens: **{tokens}**.", len(trace.committed),
                                count=len(trace.committed), tokens=committed) + " " + ending)
    return lines


def residual_table(state: BlocksModel, markov: MarkovModel, steps: BlockSteps, trace: BlockTrace) -> None:
    """Once the first rejection is stepped to: p, q and the residual its replacement was drawn from."""
    _ = texts()
    rejected = next((t for t in steps.tests_shown(trace) if t.status == "rejected"), None)
    if rejected is None:
        return
    p_row, q_row = markov.p(rejected.test_context), markov.q(rejected.test_context)
    subsection(_("The residual at position {number} (after {context})", number=rejected.position + 1,
                 context=context_words(markov, rejected.test_context)))
    st.dataframe(
        {
            _("token"): list(markov.vocab),
            "p": [exact_text(v) for v in p_row],
            "q": [exact_text(v) for v in q_row],
            "max(0, p − q)": [exact_text(max(a - b, 0)) for a, b in zip(p_row, q_row)],
            _("drawn from"): [exact_text(v) for v in rejected.residual],
        },
        hide_index=True,
        key="bk_residual",
    )
    st.caption(
        _("The 'drawn from' column is r = max(0, p − q)/Z over the whole vocabulary.")
        if state.variant == "correct"
        else _("The 'drawn from' column is r = max(0, p − q)/Z over the whole vocabulary, as the {variant} mistake "
               "computes it.", variant=state.variant)
    )


def tests_table(markov: MarkovModel, steps: BlockSteps, trace: BlockTrace) -> None:
    """Every test of a complete block, the discarded drafts greyed out."""
    if not steps.finished(trace):
        return
    import pandas as pd  # streamlit's own dependency; the Styler greys out discarded drafts

    _ = texts()
    outcomes = {"accepted": _("kept"), "rejected": _("rejected"), "discarded": _("discarded")}
    frame = pd.DataFrame(
        {
            _("position"): [t.position + 1 for t in trace.tests],
            _("drafted"): [markov.vocab[t.token] for t in trace.tests],
            "q_draft(x)": [exact_text(t.draft_probability) for t in trace.tests],
            "min(1, p/q)": ["" if t.status == "discarded" else exact_text(t.accept_probability) for t in trace.tests],
            _("uniform u"): ["" if t.u is None else number(t.u, ".4f") for t in trace.tests],
            _("outcome"): [outcomes.get(t.status, t.status) for t in trace.tests],
        }
    )
    discarded = [t.status == "discarded" for t in trace.tests]
    styled = frame.style.apply(
        lambda row: [MUTED_ROW_CSS if discarded[row.name] else "" for _cell in row],
        axis=1,
    )
    st.dataframe(styled, hide_index=True, key="bk_tests")


def one_block(state: BlocksModel, markov: MarkovModel) -> None:
    """One sampled block, stepped through test by test; each step is announced."""
    _ = texts()
    section(_("Step through one block"))
    trace = state.trace(markov)
    steps = kept_in_session("bk_steps", BlockSteps)
    steps.follow(state.block_key(markov))
    block_buttons(state, markov, steps, trace)
    trace_chart(markov, steps, trace)
    lines = block_lines(state, markov, steps, trace)
    st.markdown("\n".join("- " + line for line in lines))  # one list, one element (not one per line)
    # what the last Step or Show all showed, said by a screen reader (the newest line: a test, or the block's end)
    finished = steps.finished(trace)
    output_complete = trace.ends_output or trace.reached_length  # the last line says the output is complete
    announce(
        "bk",
        spoken(lines[-1]) + (" " + _("The block is complete.") if finished and not output_complete else "")
        if steps.revealed
        else "",
    )
    residual_table(state, markov, steps, trace)
    tests_table(markov, steps, trace)


def exact_law(state: BlocksModel, markov: MarkovModel) -> None:
    """The exact law of the first L tokens (or of complete outputs) under block decoding against the target's."""
    _ = texts()
    length, stop_md = state.length, stop_markdown(markov)
    section(
        _("Exact law of the first {length} tokens", length=length)
        if stop_md is None
        else _("Exact law of complete outputs (at most {length} tokens)", length=length)
    )
    if stop_md is not None:
        st.caption(_(
            "Every output ends with {stop} or has L = {length} tokens (then it is cut there; {stop} counts as one of "
            "the L tokens). The same rules for the target and for block decoding.", stop=stop_md, length=length,
        ))
    try:
        comparison = exact_comparison(markov.name, state.block, length, state.variant)
    except LabInputError as exc:
        st.error(markdown_escape(say(exc)))
        return
    distance_columns = st.columns([1, 3])
    distance_columns[0].metric(
        _("total variation distance"),
        exact_text(comparison.distance),
        help=_(
            "Total variation distance: how far two distributions are, 0 (the same) to 1. Half the sum of "
            "|target − speculative| over all sequences, exact."
        ),
    )
    distance_columns[1].markdown(
        (
            _("Distance **0**: block decoding with K = {k} reproduces the target's law of {length} tokens exactly, "
              "sequence by sequence in fractions.", k=state.block, length=length)
            if stop_md is None
            else _("Distance **0**: block decoding with K = {k} reproduces the target's law of complete outputs of at "
                   "most {length} tokens exactly, sequence by sequence in fractions.", k=state.block, length=length)
        )
        if comparison.distance == 0
        else _("The {variant} mistake moves {distance} of probability away from the target.", variant=state.variant,
               distance=exact_and_decimal(comparison.distance))
    )
    first = _("sequence") if stop_md is None else _("output")
    headers = (first, _("target"), _("speculative"), _("target (decimal)"), _("difference"))
    table = law_table(markov.name, state.block, length, state.variant, headers, decimal_comma())
    if stop_md is not None and table.num_rows <= LAW_CHART_ROWS:
        rows = comparison.rows()
        outcomes = tuple(markov.sequence_text(seq) for seq, _t, _s in rows)
        values = "; ".join(_("{output}: {target} and {speculative}", output=o, target=exact_text(t),
                             speculative=exact_text(s)) for o, (_x, t, s) in zip(outcomes, rows))
        chart(
            figure(
                "law_vs_target",
                outcomes,
                tuple(t for _s, t, _x in rows),
                {N_("block decoding"): tuple(s for _x, _t, s in rows)},
                N_("Complete outputs: target against block decoding"),
                N_("target"),
            ),
            "bk_law_chart",
            _("Bars of the target's and block decoding's exact probability of each complete output: {values}",
              values=values),
        )
    st.dataframe(table, hide_index=True, key="bk_law", height=min(38 + 35 * table.num_rows, 420))


@st.fragment
def block_section() -> MarkovModel | None:
    """K, L and the seed, the block stepped through and the exact law: a fragment, so changing K, L or the seed
    reruns this section only (a whole run of the page cost about twice the minimal app's CPU per change). A new
    model changes the section below too: the whole page then runs once."""
    state = block_controls()
    markov = loaded_or_said(load_model, state.model)
    redraw_page_if_changed(MODEL_SHOWN, markov and markov.name)
    if markov is None:
        return None
    model_notes(state, markov)
    one_block(state, markov)
    exact_law(state, markov)
    return markov


def speedup_intro(markov: MarkovModel) -> None:
    _ = texts()
    section(_("What speculation buys"))
    start_alpha = acceptance_rate(markov.p(START), markov.q(START))
    st.markdown(_(
        "With acceptance rate **α** (each draft kept with probability α) and **K** drafts per block, a block "
        "commits (1 − α^(K+1))/(1 − α) tokens on average; if a draft run costs **c** target runs, the walltime "
        "improvement is (1 − α^(K+1))/((1 − α)(Kc + 1)) (Leviathan et al. 2023, eq. 1 and Theorem 3.8, where K "
        "is written γ). This model's acceptance rate at the first position is α = {alpha}.",
        alpha=exact_and_decimal(start_alpha),
    ))


@st.fragment
def speedup_section() -> None:
    """α and c, and what they change: a fragment, so moving them reruns this section only (the block and its
    exact law above stay as they are)."""
    _ = texts()
    sliders = st.container(horizontal=True, gap="medium")  # one element each row, not two or three columns
    WIDGETS.slider(sliders, "alpha")
    WIDGETS.slider(sliders, "cost")
    state = controls_model(BlocksModel, "bk_state", quiet=True, **LIMITS)  # with the sliders' values
    alpha, cost = float(state.alpha), float(state.cost)
    curve = speedup_curve(alpha, cost, GAMMAS)
    best = best_gamma(alpha, cost, max_gamma=GAMMAS[-1])
    metrics = st.container(horizontal=True, gap="medium")
    if best is None:
        metrics.metric(_("best K (0 to 15)"), _("none"))
        none = say(NO_BEST_GAMMA)
        st.caption(none[:1].upper() + none[1:] + ".")
        best_text = _("no best K: the improvement grows with K")
    else:
        metrics.metric(_("best K (0 to 15)"), str(best.gamma))
        metrics.metric(_("walltime improvement"), number(float(best.improvement), ".3f") + "×")
        metrics.metric(_("tokens per block at best K"), number(float(best.tokens_per_block), ".3f"))
        best_text = _("best K {k} with improvement {improvement}", k=best.gamma,
                      improvement=number(float(best.improvement), ".3f"))
    values = "; ".join(
        _("K = {k}: {tokens} tokens, {gain}×", k=k, tokens=number(tokens, ".4f"), gain=number(gain, ".4f"))
        for k, tokens, gain in curve
    )
    chart(
        figure("speedup_chart", curve, best.gamma if best else None, alpha, cost),
        "bk_speedup",
        _("Expected tokens per block and walltime improvement against K for α {alpha} and c {cost}; {best}. Values: "
          "{values}", alpha=number(alpha, ".2f"), cost=number(cost, ".2f"), best=best_text, values=values),
        table=(
            (_("drafts per block K"), _("expected tokens per block"), _("walltime improvement")),
            [(str(k), number(tokens, ".4f"), number(gain, ".4f") + "×") for k, tokens, gain in curve],
        ),
    )


def main() -> None:
    refuse_link_values(BlocksModel.from_url(st.query_params, **LIMITS)[1], "bk_link_problems")
    intro()
    with whole_page():
        model_controls()
        markov = block_section()
        drawn_outside(MODEL_SHOWN, markov and markov.name)
    if markov is None:
        return  # the model's file is broken: said in the section, and the rest of the page is not drawn
    speedup_intro(markov)
    speedup_section()


main()
