"""Blocks: draft K tokens, verify left to right, correct at the first rejection, bonus if all pass.

Step through one sampled block (drafts, each test with its uniform, the first rejection and the
residual at that position, discarded drafts greyed out, the bonus token), then the exact law of the
first L tokens against the target's (distance 0 for the correct algorithm), and the speed-up
formulas. A model that stops (a stop token such as <end>): the law is over complete outputs (ending with
the stop token, or cut at L tokens), the block stops at the stop token and L cuts it short.
A thin view: numbers from lab/core/blocks.py and lab/core/speedup.py, charts from
lab/charts/sampling.py. Controls live in the URL (bind="query-params").
"""

from __future__ import annotations

import streamlit as st

from lab.charts.palette import MUTED_ROW_CSS
from lab.core.blocks import MAX_BLOCK, MAX_LENGTH, MAX_OUTCOMES, run_block
from lab.core.distributions import LabInputError
from lab.core.formatting import decimal_text, exact_text, markdown_escape, with_decimal
from lab.core.markov import START, all_model_names, load_model
from lab.core.sampling import make_streams
from lab.core.speedup import NO_BEST_GAMMA, acceptance_rate, best_gamma, speedup_curve
from lab.core.variants import VARIANT_NAMES, VARIANTS
from lab.models.blocks import BlocksModel
from lab.views.accessibility import announce, section, spoken, subsection, title
from lab.views.common import chart, figure
from lab.views.once_per_server import exact_comparison
from lab.views.page_state import controls_model, refuse_link_values, show_link_warnings

session = st.session_state  # this browser session's state
DEFAULTS = BlocksModel()


DEFAULT_MODEL = "markov-three"
MAX_K = MAX_BLOCK
MAX_L = MAX_LENGTH
MAX_SEED = 2**32 - 1
GAMMAS = list(range(0, 16))
SEARCH_SEEDS = 500  # "a block that ends at the stop token": seeds tried at most, one block each (bounded work)
LAW_CHART_ROWS = 40  # the law is drawn as bars up to this many outputs (the table lists every one)

refuse_link_values(BlocksModel.from_url(st.query_params, max_k=MAX_K, max_l=MAX_L)[1], "bk_link_problems")
title("Blocks of drafts")
st.markdown(
    "The draft proposes **K** tokens ahead. The target checks them left to right; the **first rejection** "
    "ends the block: a replacement is drawn from the residual at that position and every later draft is "
    "discarded. If all K pass, one **bonus** token comes from p."
)
show_link_warnings("bk_link_problems")

names = all_model_names()
row1 = st.columns([3, 3], vertical_alignment="bottom")
row1[0].selectbox(
    "Model",
    names,
    index=names.index(DEFAULT_MODEL),
    key="bk_model",
    bind="query-params",
    help="Markov models (kind markov) first, then one-step scenarios repeated at every position",
)
row1[1].selectbox(
    "Algorithm",
    VARIANT_NAMES,
    index=0,
    key="bk_variant",
    bind="query-params",
    help="correct speculative sampling, or one of the named mistakes (see the Pitfalls page)",
)
row2 = st.columns(3, vertical_alignment="bottom")
row2[0].number_input(
    "Drafts per block K", min_value=1, max_value=MAX_K, value=DEFAULTS.block, step=1, key="bk_k", bind="query-params"
)
row2[1].number_input(
    "Tokens in the law L",
    min_value=1,
    max_value=MAX_L,
    value=3,
    step=1,
    key="bk_l",
    bind="query-params",
    help=f"The exact law lists every sequence of L tokens the algorithm can produce, at most {MAX_OUTCOMES:,}. "
    "With a model that stops, L is the maximum length: an output ends with the stop token or is cut at L "
    "tokens, the stop token counted as one of them.",
)
row2[2].number_input(
    "Seed", min_value=0, max_value=MAX_SEED, value=DEFAULTS.seed, step=1, key="bk_seed", bind="query-params"
)

state = controls_model(BlocksModel, "bk_state", max_k=MAX_K, max_l=MAX_L)
try:
    model = load_model(state.model)
except LabInputError as exc:
    st.error(str(exc))
    st.stop()
variant = VARIANTS[state.variant]
block, length, seed = state.block, state.length, state.seed
vocab = model.vocab
if model.note:
    st.caption(f"{model.title}. {model.note}")
if variant.name != "correct":
    st.warning(f"Mistake shown: {variant.description}", icon=":material/bug_report:")
stop = model.stop
stop_md = None if stop is None else markdown_escape(model.stop_name)
if stop is not None:
    st.info(
        f"This model stops. An output ends with **{stop_md}**, or is cut at L = {length} tokens "
        f"({stop_md} counted as one of them); the target and block decoding follow the same rules. "
        f"The draft drafts nothing after a proposed {stop_md}; a kept or corrected {stop_md} ends the output: "
        "no bonus token, later drafts discarded; L cuts a block short.",
        icon=":material/stop_circle:",
    )
elif variant.stop_only:
    st.caption("This model has no stop token, so this mistake changes nothing here: choose a model that stops.")

# --- one block, step by step --------------------------------------------------------------------
section("Step through one block")
room = None if stop is None else length  # a model that stops: the output holds at most L tokens
trace = run_block(model, block, START, make_streams(seed), variant, room=room)
trace_key = (model.name, block, seed, variant.name, room)
if session.get("bk_trace_key") != trace_key:
    session["bk_trace_key"] = trace_key
    session["bk_revealed"] = 0


def on_step() -> None:
    session["bk_revealed"] = trace.next_reveal(session["bk_revealed"])


def on_show_all() -> None:
    session["bk_revealed"] = len(trace.tests) + 1


def on_restart() -> None:
    session["bk_revealed"] = 0


def on_next_seed() -> None:
    session["bk_seed"] = min(seed + 1, MAX_SEED)


def on_find_stop() -> None:
    """The next seed whose block ends at the stop token (at most SEARCH_SEEDS blocks are tried)."""
    for candidate in range(seed + 1, min(seed + SEARCH_SEEDS, MAX_SEED) + 1):
        if run_block(model, block, START, make_streams(candidate), variant, room=room).ends_output:
            session["bk_seed"] = candidate
            session["bk_search_note"] = None
            return
    session["bk_search_note"] = f"No block of the next {SEARCH_SEEDS} seeds ends at the stop token with these settings."


revealed = session["bk_revealed"]
finished = revealed > len(trace.tests)
buttons = st.columns(4)
# The buttons never disable themselves (focus would fall to the page's body, WCAG 2.4.3): on a complete block
# Step and Show all change nothing, and the live region below says the block is complete.
buttons[0].button("Step", key="bk_step", type="primary", on_click=on_step, width="stretch")
buttons[1].button("Show all", key="bk_all", on_click=on_show_all, width="stretch")
buttons[2].button("Restart", key="bk_restart", on_click=on_restart, width="stretch")
buttons[3].button("New block (seed + 1)", key="bk_next_seed", on_click=on_next_seed, width="stretch")
if stop is not None:
    st.button(
        f"Find a block that ends at {stop_md}",
        key="bk_find_stop",
        on_click=on_find_stop,
        help=f"Tries the next seeds (at most {SEARCH_SEEDS}) until the block commits {stop_md}",
    )
    if session.get("bk_search_note"):
        st.caption(session["bk_search_note"])


def token(i: int) -> str:
    return vocab[i]


def md(i: int) -> str:
    """A token name for a markdown line (escaped: a name like '.' or '*' shows as typed)."""
    return markdown_escape(vocab[i])


def describe(test) -> str:
    history = markdown_escape(model.context_label(test.test_context))
    head = f"Draft {test.position + 1}: **{md(test.token)}**"
    if test.status == "discarded":
        return f"{head} is discarded: it was drafted after a token the target rejected."
    keep = (
        f"after {history}: p = {exact_text(test.p)}, q = {exact_text(test.q)}, "
        f"kept with probability min(1, p/q) = {exact_text(test.accept_probability)}"
    )
    if test.status == "accepted":
        line = f"{head} {keep}. Uniform u = {test.u:.4f} < {decimal_text(test.accept_probability, 4)}: **kept**."
        if test.token == stop:
            line += (
                f" The mistake goes on after {stop_md}."
                if variant.drafts_past_stop or variant.bonus_after_stop
                else f" {stop_md} ends the output: no bonus token, nothing after it."
            )
        return line
    line = (
        f"{head} {keep}. Uniform u = {test.u:.4f} ≥ {decimal_text(test.accept_probability, 4)}: **rejected**; "
        f"the replacement **{md(test.replacement)}** is drawn from the residual at this position "
        f"(u = {test.correction_u:.4f})."
    )
    if test.replacement == stop:
        line += f" The replacement is {stop_md}: the output ends here."
    return line


def outcome(test, shown: bool) -> str:
    """What the chart shows at a draft's position: its test's outcome once stepped to, else "not tested yet"."""
    if not shown:
        return "not tested yet"
    if test.status == "rejected":
        return f"rejected, replaced by {token(test.replacement)} from the residual"
    return "kept" if test.status == "accepted" else "discarded"


steps_shown = len(trace.tests) if finished else min(revealed, len(trace.tests))
trace_rows = [
    (str(t.position + 1), token(t.token), outcome(t, i < steps_shown)) for i, t in enumerate(trace.tests)
]
if finished and trace.bonus is not None:
    trace_rows.append(("bonus", token(trace.bonus), "drawn from p"))
chart(
    figure("block_trace", vocab, trace, revealed),
    "bk_trace",
    "One block, drafted tokens by position: "
    + "; ".join(f"{position} {drafted}: {result}" for position, drafted, result in trace_rows)
    + ("; committed " + " ".join(map(token, trace.committed)) if finished else ""),
    table=(("position", "drafted", "outcome"), trace_rows),
)
drafted = len(trace.drafts)
lines = [
    f"The draft proposed {drafted} token{'s' if drafted != 1 else ''} from q: "
    + ", ".join(f"**{md(t)}**" for t in trace.drafts)
    + "."
    + (
        f" It drafts nothing after {stop_md}."
        if stop is not None and drafted < block and trace.drafts[-1] == stop
        else ""
    )
    + (
        f" L = {length} leaves room for {length} tokens only, so the block is cut to {drafted} drafts."
        if room is not None and drafted < block and room < block and trace.drafts[-1] != stop
        else ""
    )
]
shown = trace.tests[: min(revealed, len(trace.tests))] if not finished else trace.tests
lines += [describe(t) for t in shown]
if finished:
    if trace.bonus is not None:
        lines.append(
            f"All {drafted} drafts passed: one bonus token **{md(trace.bonus)}** is drawn from p "
            f"(u = {trace.bonus_u:.4f})."
        )
    elif trace.rejection is None and trace.reached_length and not trace.ends_output:
        lines.append(f"All {drafted} drafts passed and the output has its L = {length} tokens: no bonus token.")
    if trace.ends_output:
        ending = f"The output is complete: it ended at {stop_md}."
    elif trace.reached_length:
        ending = f"The output is complete: it is cut at L = {length} tokens."
    else:
        ending = "The next block starts from this corrected prefix."
    lines.append(
        f"The block commits {len(trace.committed)} token(s): **{' '.join(map(md, trace.committed))}**. " + ending
    )
for line in lines:
    st.markdown("- " + line)
# what the last Step or Show all showed, said by a screen reader (the newest line: a test, or the block's end)
announce(
    "bk",
    spoken(lines[-1]) + (" The block is complete." if finished and "complete" not in lines[-1] else "")
    if revealed
    else "",
)

rejected = next((t for t in shown if t.status == "rejected"), None)
if rejected is not None:
    history = model.context_label(rejected.test_context)
    p_row, q_row = model.p(rejected.test_context), model.q(rejected.test_context)
    subsection(f"The residual at position {rejected.position + 1} (after {markdown_escape(history)})")
    st.dataframe(
        {
            "token": list(vocab),
            "p": [exact_text(v) for v in p_row],
            "q": [exact_text(v) for v in q_row],
            "max(0, p − q)": [exact_text(max(a - b, 0)) for a, b in zip(p_row, q_row)],
            "drawn from": [exact_text(v) for v in rejected.residual],
        },
        hide_index=True,
        key="bk_residual",
    )
    st.caption(
        "The 'drawn from' column is r = max(0, p − q)/Z over the whole vocabulary"
        + ("" if variant.name == "correct" else f", as the {variant.name} mistake computes it")
        + "."
    )

table = {
    "position": [t.position + 1 for t in trace.tests],
    "drafted": [token(t.token) for t in trace.tests],
    "q_draft(x)": [exact_text(t.draft_probability) for t in trace.tests],
    "min(1, p/q)": ["" if t.status == "discarded" else exact_text(t.accept_probability) for t in trace.tests],
    "uniform u": ["" if t.u is None else f"{t.u:.4f}" for t in trace.tests],
    "outcome": [t.status for t in trace.tests],
}
if finished:
    import pandas as pd  # streamlit's own dependency; the Styler greys out discarded drafts

    frame = pd.DataFrame(table)
    styled = frame.style.apply(
        lambda row: [MUTED_ROW_CSS if row["outcome"] == "discarded" else "" for _ in row],
        axis=1,
    )
    st.dataframe(styled, hide_index=True, key="bk_tests")

# --- exact law ------------------------------------------------------------------------------------
section(
    f"Exact law of the first {length} tokens"
    if stop is None
    else f"Exact law of complete outputs (at most {length} tokens)"
)
if stop is not None:
    st.caption(
        f"Every output ends with {stop_md} or has L = {length} tokens (then it is cut there; {stop_md} counts as one "
        "of the L tokens). The same rules for the target and for block decoding."
    )
try:
    comparison = exact_comparison(model.name, block, length, variant.name)
except LabInputError as exc:
    st.error(str(exc))
else:
    cols = st.columns([1, 3])
    cols[0].metric(
        "total variation distance",
        exact_text(comparison.distance),
        help="Half the sum of |target − speculative| over all sequences, exact.",
    )
    cols[1].markdown(
        (
            "Distance **0**: block decoding with K = "
            f"{block} reproduces the target's law of "
            + (f"{length} tokens" if stop is None else f"complete outputs of at most {length} tokens")
            + " exactly, sequence by sequence in fractions."
        )
        if comparison.distance == 0
        else f"The {variant.name} mistake moves {with_decimal(comparison.distance)} of probability away from the "
        "target."
    )
    rows = comparison.rows()
    if stop is not None and len(rows) <= LAW_CHART_ROWS:
        outcomes = tuple(model.sequence_text(seq) for seq, _, _ in rows)
        chart(
            figure(
                "law_vs_target",
                outcomes,
                tuple(t for _, t, _ in rows),
                {"block decoding": tuple(s for _, _, s in rows)},
                "Complete outputs: target against block decoding",
                "target",
            ),
            "bk_law_chart",
            "Bars of the target's and block decoding's exact probability of each complete output: "
            + "; ".join(f"{o}: {exact_text(t)} and {exact_text(s)}" for o, (_, t, s) in zip(outcomes, rows)),
        )
    st.dataframe(
        {
            ("sequence" if stop is None else "output"): [model.sequence_text(seq) for seq, _, _ in rows],
            "target": [exact_text(t) for _, t, _ in rows],
            "speculative": [exact_text(s) for _, _, s in rows],
            "target (decimal)": [decimal_text(t) for _, t, _ in rows],
            "difference": [exact_text(s - t) for _, t, s in rows],
        },
        hide_index=True,
        key="bk_law",
        height=min(38 + 35 * len(rows), 420),
    )

# --- speed-up -------------------------------------------------------------------------------------
section("What speculation buys")
start_alpha = acceptance_rate(model.p(START), model.q(START))
st.markdown(
    "With acceptance rate **α** (each draft kept with probability α) and **K** drafts per block, a block "
    "commits (1 − α^(K+1))/(1 − α) tokens on average; if a draft run costs **c** target runs, the walltime "
    "improvement is (1 − α^(K+1))/((1 − α)(Kc + 1)) (Leviathan et al. 2023, eq. 1 and Theorem 3.8, where K "
    "is written γ). "
    f"This model's acceptance rate at the first position is α = {with_decimal(start_alpha)}."
)
@st.fragment
def speedup_section() -> None:
    """α and c, and what they change: a fragment, so moving them reruns this section only (the block and its
    exact law above stay as they are)."""
    sp = st.columns(2)
    sp[0].slider("acceptance rate α", 0.0, 1.0, 0.8, 0.01, key="bk_alpha", bind="query-params")
    sp[1].slider("cost ratio c (draft / target)", 0.0, 1.0, 0.1, 0.01, key="bk_c", bind="query-params")
    state = controls_model(BlocksModel, "bk_state", quiet=True, max_k=MAX_K, max_l=MAX_L)  # with the sliders' values
    alpha, c = float(state.alpha), float(state.cost)
    curve = speedup_curve(alpha, c, GAMMAS)
    best = best_gamma(alpha, c, max_gamma=GAMMAS[-1])
    m = st.columns(3)
    if best is None:
        m[0].metric("best K (0 to 15)", "none")
        st.caption(NO_BEST_GAMMA[0].upper() + NO_BEST_GAMMA[1:] + ".")
        best_text = "no best K: the improvement grows with K"
    else:
        m[0].metric("best K (0 to 15)", str(best.gamma))
        m[1].metric("walltime improvement", f"{float(best.improvement):.3f}×")
        m[2].metric("tokens per block at best K", f"{float(best.tokens_per_block):.3f}")
        best_text = f"best K {best.gamma} with improvement {float(best.improvement):.3f}"
    chart(
        figure("speedup_chart", curve, best.gamma if best else None, alpha, c),
        "bk_speedup",
        f"Expected tokens per block and walltime improvement against K for α {alpha:.2f} and c {c:.2f}; "
        + best_text
        + ". Values: "
        + "; ".join(f"K = {k}: {tokens:.4f} tokens, {gain:.4f}×" for k, tokens, gain in curve),
        table=(
            ("drafts per block K", "expected tokens per block", "walltime improvement"),
            [(str(k), f"{tokens:.4f}", f"{gain:.4f}×") for k, tokens, gain in curve],
        ),
    )


speedup_section()
