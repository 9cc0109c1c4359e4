"""Pitfalls: one card per mistake variant, predict first, then the exact law against the target (thin view)."""

import streamlit as st

from lab.core.blocks import MAX_OUTCOMES
from lab.core.distributions import LabInputError
from lab.core.drafts import RULES, best_acceptance, node_law
from lab.core.formatting import fraction_text, markdown_escape
from lab.core.markov import all_model_names, load_model
from lab.core.scenarios import scenario_names
from lab.core.variants import VARIANTS
from lab.models.pitfalls import PitfallsModel
from lab.teaching.draft_pitfalls import (
    DRAFT_CARDS,
    EXAMPLE_CANDIDATES,
    EXAMPLE_P,
    EXAMPLE_Q,
    EXAMPLE_TOKENS,
)
from lab.teaching.pitfalls import (
    CARDS,
    NO_GAIN,
    default_block_length,
    grade_prediction,
    harmless_scenarios,
    mistakes,
    single_step,
)
from lab.views.ui.accessibility import announce, section, subsection, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.page_state import controls_model, keep_last_valid

DEFAULTS = PitfallsModel()
CONTROL = {c.field: c for c in PitfallsModel.CONTROLS}  # each control's key, label and range, declared in the model
CHECK_YOUR_OWN = (
    "Check your own sampler for these mistakes on your own machine: `python -m lab check your_module:step` "
    "runs the same cases on your code and names the mistake it finds (docs/checking-a-sampler.md)."
)


def card_code(card, heading=section) -> None:
    """A card's title (a section's heading, or ``heading``), then its mistaken code beside the correct lines."""
    heading(card.title)
    left, right = st.columns(2)
    left.markdown("**What the mistaken code does**")
    left.code("\n".join(card.mistaken), language="python", wrap_lines=True)
    right.markdown("**The correct lines**")
    right.code("\n".join(card.correct), language="python", wrap_lines=True)


def listed(items, most: int = 40) -> str:
    """``items`` joined for a chart's text alternative; past ``most`` the rest are counted (the table has them)."""
    items = list(items)
    more = f"; and {len(items) - most} more in the table" if len(items) > most else ""
    return "; ".join(items[:most]) + more + "."


def reports_text(card) -> str:
    return "; ".join(f"{r.project} {r.reference}: {r.what}" for r in card.reports)


def exact_and_decimal(value) -> str:
    text = fraction_text(value)
    if len(text) > 24:
        return f"{float(value):.6g} (exact fraction {len(text)} characters)"
    return text if value.denominator == 1 else f"{text} ({float(value):.6g})"


def reset_block_length() -> None:
    """on_change of the model: back to its default K and L (one step for a scenario)."""
    try:
        k, length = default_block_length(load_model(st.session_state[CONTROL["model"].key]))
    except LabInputError:
        return
    st.session_state[CONTROL["block"].key] = k
    st.session_state[CONTROL["length"].key] = length


def intro() -> None:
    title("Pitfalls")
    st.caption(
        "Mistakes a speculative sampler can make, each run through the exact engine in exact fractions: a "
        "distance of 0 means exactly the target's law. A card cites a public report where a mistake of its "
        "kind was reported; the others are easy to make, with no report cited."
    )
    st.caption(CHECK_YOUR_OWN)


def choice_controls() -> None:
    """Scenario or model, K and L (a new model puts back its default K and L)."""
    model, block, length = CONTROL["model"], CONTROL["block"], CONTROL["length"]
    models = list(model.options())
    c1, c2, c3 = st.columns([2, 1, 1])
    c1.selectbox(
        model.label,
        models,
        index=models.index(DEFAULTS.model) if DEFAULTS.model in models else 0,
        key=model.key,
        on_change=reset_block_length,
    )
    st.session_state.setdefault(block.key, DEFAULTS.block)
    st.session_state.setdefault(length.key, DEFAULTS.length)
    c2.number_input(block.label, min_value=block.low, max_value=block.high, step=1, key=block.key)
    c3.number_input(
        length.label,
        min_value=length.low,
        max_value=length.high,
        step=1,
        key=length.key,
        help=f"The exact laws list every sequence of L tokens, at most {MAX_OUTCOMES:,}: "
        "L up to 4 with 8 tokens, 6 with 4 tokens, 7 with 3 tokens.",
    )


def laws_for_choice():
    """The exact laws of every variant for the checked controls: (report, refusal). A refused choice keeps the last
    valid report (None before the first)."""
    state = controls_model(PitfallsModel, "pit_state")  # the controls' values, checked
    report, refusal = keep_last_valid("pit_last_report", lambda: mistakes(state.model, state.block, state.length))
    if refusal is None:
        return report, ""
    refused = f"{refusal}. Showing the last valid choice."
    st.error(refused)
    return report, refused


def choice_caption(report) -> None:
    model = load_model(report.model)
    st.caption(
        f"**{markdown_escape(model.title)}** — {report.kind} · K = {report.block}, L = {report.length} · "
        f"outcomes: {len(report.outcomes)} {'tokens' if report.length == 1 else 'sequences'}."
        + (
            ""
            if report.stop is None
            else f" Each output ends with {markdown_escape(report.stop)} or is cut at L = {report.length} tokens "
            f"({markdown_escape(report.stop)} counted as one of them)."
        )
    )


def chosen_mistake() -> str:
    mistake = CONTROL["variant"]
    st.selectbox(
        mistake.label,
        list(mistake.options()),
        format_func=lambda name: f"{CARDS[name].title} ({name})",
        key=mistake.key,
    )
    variant = controls_model(PitfallsModel, "pit_state", quiet=True).variant  # with the mistake just chosen
    return variant


def mistake_card(report, variant: str) -> None:
    """The card: code, whether the model can show it, public reports (when it is harmless says why it is biased
    elsewhere: it is drawn after the reveal, revealed_law)."""
    card = CARDS[variant]
    card_code(card)
    if VARIANTS[variant].stop_only and report.stop is None:
        stopping = ", ".join(name for name in all_model_names() if load_model(name).stop is not None)
        st.caption(
            f"This {'scenario' if report.kind == 'step' else 'model'} has no stop token, so this mistake changes "
            f"nothing here: choose a model that stops ({stopping})."
        )
    reported = (
        reports_text(card) + "."
        if card.reports
        else "no report is cited for this one: it is a mistake that is easy to make, not one a project is known to "
        "have shipped."
    )
    st.markdown(f"**Reported publicly:** {reported}")


def predict_inputs(report, variant: str) -> tuple:
    """The two guesses and the Reveal button: (biased guess, gain guess, whether this choice is revealed)."""
    subsection("Predict first")
    choice = f"{report.model}::{report.block}::{report.length}::{variant}"
    reveal_key = f"pit_revealed::{choice}"
    guesses = st.container(horizontal=True, gap="medium")  # one element, not two columns
    guess_biased = guesses.radio(
        f"Is {variant} biased on this {'scenario' if report.kind == 'step' else 'model'}?",
        ["yes, biased", "no, exact"],
        index=None,
        key=f"pit_guess_biased::{choice}",
        horizontal=True,
    )
    guess_gain = guesses.selectbox(
        "Which outcome gains mass?",
        [NO_GAIN, *report.outcomes],
        index=None,
        placeholder="choose an outcome",
        key=f"pit_guess_gain::{choice}",
    )
    if st.button("Reveal the exact law", key="pit_reveal", type="primary"):
        st.session_state[reveal_key] = True
    return guess_biased, guess_gain, bool(st.session_state.get(reveal_key))


def revealed_law(report, variant: str, guess_biased, guess_gain) -> str:
    """The exact law beside the target, the distance and the grade; returns the sentence announced."""
    card, result = CARDS[variant], report.laws[variant]
    said = f"Revealed: {variant} is at TV distance {exact_and_decimal(result.tv_distance)} from the target."
    if guess_biased is not None and guess_gain is not None:
        grade = grade_prediction(result, guess_biased.startswith("yes"), guess_gain)
        (st.success if grade.score == 2 else st.warning)(markdown_escape(grade.message))
        said += f" Your guess: {grade.message}"
    else:
        st.caption("Revealed without a complete guess: not graded.")
    m1, m2 = st.columns(2)
    tv_text = fraction_text(result.tv_distance)
    if len(tv_text) <= 16:
        m1.metric("TV distance (exact)", tv_text)
    else:
        m1.markdown(f"TV distance (exact)  \n`{tv_text}`")
    m2.metric("TV distance (decimal)", f"{float(result.tv_distance):.6g}")
    chart(
        figure(
            "law_vs_target",
            report.outcomes,
            report.target,
            {f"{variant} law": result.law},
            f"{card.title}: output law against target",
        ),
        key="pit_law_chart",
        alt=f"Bars of the target law beside the exact output law of {variant}: "
        + listed(
            f"{o}: target {exact_and_decimal(t)}, {variant} {exact_and_decimal(v)}"
            for o, t, v in zip(report.outcomes, report.target, result.law)
        ),
    )
    st.dataframe(
        {
            "outcome": list(report.outcomes),
            "target": [exact_and_decimal(v) for v in report.target],
            f"{variant}": [exact_and_decimal(v) for v in result.law],
            "difference": [exact_and_decimal(v - t) for t, v in zip(report.target, result.law)],
        },
        hide_index=True,
        width="stretch",
    )
    exact_on = harmless_scenarios(variant)
    shipped = ", ".join(exact_on) if exact_on else "(none)"
    st.caption(f"{variant}: one step is exactly p on the shipped scenarios {shipped}.")
    st.markdown(f"**When it is harmless:** {card.harmless_when}")  # it explains the bias: only after the reveal
    return said


def every_variant_spoiler(report) -> None:
    """Every variant's distance on this choice, drawn only while its expander is open (opening it reruns): most
    students never open it, and every change of the choice would otherwise build its chart and table again."""
    every_variant = st.expander(
        "Every variant on this choice (spoils the predictions)", key="pit_every", on_change="rerun"
    )
    if every_variant.open:
        with every_variant:
            names = list(report.laws)
            chart(
                figure("tv_by_variant", names, [report.laws[n].tv_distance for n in names]),
                key="pit_tv_chart",
                alt="Horizontal bars: the exact total variation distance of every variant from the target: "
                + listed(f"{n} {exact_and_decimal(report.laws[n].tv_distance)}" for n in names),
            )
            st.dataframe(
                {
                    "variant": names,
                    "TV distance": [exact_and_decimal(report.laws[n].tv_distance) for n in names],
                    "gains most": [report.laws[n].biggest_gain or "—" for n in names],
                },
                hide_index=True,
                width="stretch",
            )


@st.fragment
def choice_section() -> None:
    """The choice (scenario or model, K, L, mistake) and everything it changes: a fragment, so a change reruns this
    section only (the single-step view and the numerics card below stay as they are)."""
    choice_controls()
    report, refused = laws_for_choice()
    if report is None:
        announce("pit", error=refused)
        return
    choice_caption(report)
    variant = chosen_mistake()
    mistake_card(report, variant)
    guess_biased, guess_gain, revealed = predict_inputs(report, variant)
    said = ""
    if revealed:
        said = revealed_law(report, variant, guess_biased, guess_gain)
    else:
        st.info("Make your guesses, then reveal: the law, the distance and the grade appear together.")
    announce("pit", said, error=refused)
    every_variant_spoiler(report)


def single_step_section() -> None:
    section("A single step through every mistake")
    st.caption(
        "For the one-step scenarios: each variant's one-step output law against p, so the worked example "
        "(bernoulli-residual) runs through every mistake. Open it after predicting."
    )
    every_step = st.expander(
        "Every variant, one step (spoils the predictions)",
        key="pit_every_step",
        on_change="rerun",
    )
    if every_step.open:
        with every_step:
            steps = scenario_names()
            chosen = st.session_state.get("pit_last_report")
            step_name = st.selectbox(
                "one-step scenario",
                steps,
                index=steps.index(chosen.model) if chosen is not None and chosen.model in steps else 0,
                key="pit_step_scenario",
            )
            laws = single_step(step_name)
            tokens = laws["correct"].tokens
            st.caption(
                "Each variant's one-step output law (accepted proposals plus corrections), exact, beside p. "
                "The worked example is bernoulli-residual."
            )
            table = {"variant": ["target p", *laws]}
            for i, token in enumerate(tokens):
                table[token] = [exact_and_decimal(laws["correct"].target[i])] + [
                    exact_and_decimal(v.law[i]) for v in laws.values()
                ]
            table["TV distance"] = ["—"] + [exact_and_decimal(v.tv_distance) for v in laws.values()]
            st.dataframe(table, hide_index=True, width="stretch")
            chart(
                figure(
                    "tv_by_variant",
                    list(laws),
                    [v.tv_distance for v in laws.values()],
                    "One step: distance from p, by variant",
                ),
                key="pit_step_tv_chart",
                alt="Horizontal bars: the exact total variation distance of each variant's one-step law from p: "
                + listed(f"{n} {exact_and_decimal(v.tv_distance)}" for n, v in laws.items()),
            )


def example_words() -> str:
    def row(values):
        return ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(EXAMPLE_TOKENS, values))

    return f"target p: {row(EXAMPLE_P)}; draft q: {row(EXAMPLE_Q)}"


def chosen_draft_mistake() -> str:
    names = list(DRAFT_CARDS)
    st.selectbox(
        "mistake with several candidates",
        names,
        format_func=lambda name: f"{DRAFT_CARDS[name].title} ({name})",
        key="pit_draft_variant",
    )
    chosen = st.session_state.get("pit_draft_variant")
    return chosen if chosen in DRAFT_CARDS else names[0]  # a crafted widget state falls back to the first card


def draft_reveal(name: str, rule: str, guess) -> str:
    """The exact law beside the target on the example, the distance, and the grade; returns what is announced."""
    card = DRAFT_CARDS[name]
    mistaken = node_law(EXAMPLE_P, EXAMPLE_Q, EXAMPLE_CANDIDATES, rule, name)
    correct = node_law(EXAMPLE_P, EXAMPLE_Q, EXAMPLE_CANDIDATES, rule)
    biased = mistaken.tv_distance > 0
    said = f"Revealed: {name} is at TV distance {exact_and_decimal(mistaken.tv_distance)} from the target."
    if guess is None:
        st.caption("Revealed without a guess: not graded.")
    else:
        right = guess.startswith("yes") == biased
        verdict = "Right" if right else "Not this time"
        message = f"{verdict}: it is {'biased' if biased else 'exact'} here."
        (st.success if right else st.warning)(message)
        said += " " + message
    st.dataframe(
        {
            "token": list(EXAMPLE_TOKENS),
            "target p": [exact_and_decimal(v) for v in EXAMPLE_P],
            f"{name} law": [exact_and_decimal(v) for v in mistaken.law],
            "difference": [exact_and_decimal(v - t) for t, v in zip(EXAMPLE_P, mistaken.law)],
        },
        hide_index=True,
        width="stretch",
    )
    st.markdown(
        f"TV distance from the target: **{exact_and_decimal(mistaken.tv_distance)}**. A candidate is kept with "
        f"probability {exact_and_decimal(mistaken.acceptance)} (the correct {rule} rule: "
        f"{exact_and_decimal(correct.acceptance)})."
    )
    st.markdown(f"**When it is harmless:** {card.harmless_when}")
    return said


def rules_table() -> None:
    """Each correct rule's acceptance on the example beside the best any verifier can do with its candidates."""
    rows = {"rule": [], "a candidate is kept": [], "best any verifier can do": []}
    for rule in RULES:
        rows["rule"].append(rule)
        rows["a candidate is kept"].append(exact_and_decimal(node_law(EXAMPLE_P, EXAMPLE_Q, 2, rule).acceptance))
        rows["best any verifier can do"].append(exact_and_decimal(best_acceptance(EXAMPLE_P, EXAMPLE_Q, 2, rule).value))
    st.dataframe(rows, hide_index=True, width="stretch")


@st.fragment
def several_candidates_section() -> None:
    """The mistakes of several drafts and token trees, on one worked example: predict, then reveal (a fragment)."""
    section("Several candidates and token trees")
    st.caption(
        "Many systems let the draft propose several candidates for the same position (K of them, drawn from q or "
        "taken as q's K most likely tokens), and a token tree repeats this at every depth. The candidates are "
        "tested one after another: a rejection leaves a residual, the next candidate is tested against it, and when "
        "every candidate is rejected the correction is one fresh draw from the last residual, over the whole "
        f"vocabulary. The example: {example_words()}, K = {EXAMPLE_CANDIDATES} candidates. "
        "`python -m lab mistakes MODEL --candidates K` (or `--tree 2,2`) runs every rule on your own numbers."
    )
    name = chosen_draft_mistake()
    card = DRAFT_CARDS[name]
    card_code(card, subsection)
    st.markdown(markdown_escape(card.description))
    reported = reports_text(card) + "." if card.reports else "none cited: a mistake that is easy to make."
    st.markdown(f"**Reported publicly:** {markdown_escape(reported)}")
    rule = card.rules[0]
    st.markdown("**Predict first**")
    guess = st.radio(
        f"Is {name} biased on the example ({rule} rule, K = {EXAMPLE_CANDIDATES})?",
        ["yes, biased", "no, exact"],
        index=None,
        key=f"pit_draft_guess::{name}",
        horizontal=True,
    )
    reveal_key = f"pit_draft_revealed::{name}"
    if st.button("Reveal the law on the example", key="pit_draft_reveal", type="primary"):
        st.session_state[reveal_key] = True
    said = ""
    if st.session_state.get(reveal_key):
        said = draft_reveal(name, rule, guess)
    else:
        st.info("Make your guess, then reveal: the law, the distance and the grade appear together.")
    announce("pit_draft", said)
    rules = st.expander(
        "The three rules on the example: how often a candidate is kept, and the best possible",
        key="pit_rules",
        on_change="rerun",
    )
    if not rules.open:  # drawn only while open (opening it reruns), as the spoilers above
        return
    with rules:
        st.caption(
            "No verifier whose output follows p can keep a candidate more often than the minimum, over token sets "
            "H, of p(H) + P(some candidate is outside H). On this example, drawing without replacement keeps more "
            "often than drawing with replacement (it never draws a rejected token again); the top-k rule reaches the "
            "best its fixed candidates allow."
        )
        rules_table()


def zero_over_zero_card() -> None:
    zero = CARDS["zero-over-zero"]
    card_code(zero)
    st.markdown("**Reported publicly:** " + reports_text(zero) + f".  \n**Harmless:** {zero.harmless_when}")
    # a short label: a page link is cut, not wrapped, on a phone
    st.page_link("lab/views/pages/numerics.py", label="Numerics: tiny Z and the Z = 0 branch")


def main() -> None:
    intro()
    choice_section()
    single_step_section()
    several_candidates_section()
    zero_over_zero_card()


main()
