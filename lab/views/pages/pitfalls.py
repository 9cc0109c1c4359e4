"""Pitfalls: one card per mistake variant, predict first, then the exact law against the target (thin view)."""

import streamlit as st

from lab.core.blocks import MAX_OUTCOMES
from lab.core.distributions import LabInputError
from lab.core.drafts import RULES, best_acceptance, node_law
from lab.core.errors import Said
from lab.core.formatting import fraction_text, markdown_escape
from lab.core.markov import all_model_names, load_model
from lab.core.scenarios import scenario_names
from lab.core.variants import VARIANTS
from lab.i18n import N_
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
from lab.views.ui.language import isolated, number, say, texts
from lab.views.ui.page_state import controls_model, keep_last_valid

DEFAULTS = PitfallsModel()
CONTROL = {c.field: c for c in PitfallsModel.CONTROLS}  # each control's key, label and range, declared in the model
KINDS = {"step": N_("one-step scenario"), "markov": N_("Markov model")}
GUESSES = {"yes, biased": N_("yes, biased"), "no, exact": N_("no, exact")}  # a guess's value: its English words


def card_code(card, heading=section) -> None:
    """A card's title (a section's heading, or ``heading``), then its mistaken code beside the correct lines."""
    _ = texts()
    heading(say(card.title) if isinstance(card.title, Said) else _(card.title))
    left, right = st.columns(2)
    left.markdown(_("**What the mistaken code does**"))
    left.code("\n".join(card.mistaken), language="python", wrap_lines=True)
    right.markdown(_("**The correct lines**"))
    right.code("\n".join(card.correct), language="python", wrap_lines=True)


def listed(items, most: int = 40) -> str:
    """``items`` joined for a chart's text alternative; past ``most`` the rest are counted (the table has them)."""
    _ = texts()
    items = list(items)
    if len(items) <= most:
        return "; ".join(items) + "."
    return _("{items}; and {count} more in the table.", items="; ".join(items[:most]), count=len(items) - most)


def reports_text(card) -> str:
    _ = texts()
    return "; ".join(f"{r.project} {r.reference}: {_(r.what)}" for r in card.reports)


def exact_and_decimal(value) -> str:
    _ = texts()
    text = fraction_text(value)
    if len(text) > 24:
        return _("{value} (exact fraction {count} characters)", value=number(float(value), ".6g"), count=len(text))
    return text if value.denominator == 1 else isolated(f"{text} ({number(float(value), '.6g')})")


def card_title(name: str) -> str:
    """A mistake's title in the page's language, with its name (as the Algorithm lists and the link write it)."""
    return f"{texts()(CARDS[name].title)} ({name})"


def reset_block_length() -> None:
    """on_change of the model: back to its default K and L (one step for a scenario)."""
    try:
        k, length = default_block_length(load_model(st.session_state[CONTROL["model"].key]))
    except LabInputError:
        return
    st.session_state[CONTROL["block"].key] = k
    st.session_state[CONTROL["length"].key] = length


def intro() -> None:
    _ = texts()
    title(_("Pitfalls"))
    st.caption(_(
        "Mistakes a speculative sampler can make, each run through the exact engine in exact fractions: a "
        "distance of 0 means exactly the target's law. A card cites a public report where a mistake of its "
        "kind was reported; the others are easy to make, with no report cited."
    ))
    st.caption(_(
        "Check your own sampler for these mistakes on your own machine: `{command}` runs the same cases on your "
        "code and names the mistake it finds ({doc}).", command="python -m lab check your_module:step",
        doc="docs/checking-a-sampler.md",
    ))


def choice_controls() -> None:
    """Scenario or model, K and L (a new model puts back its default K and L)."""
    _ = texts()
    model, block, length = CONTROL["model"], CONTROL["block"], CONTROL["length"]
    models = list(model.options())
    c1, c2, c3 = st.columns([2, 1, 1])
    c1.selectbox(
        _(model.label),
        models,
        index=models.index(DEFAULTS.model) if DEFAULTS.model in models else 0,
        key=model.key,
        on_change=reset_block_length,
    )
    st.session_state.setdefault(block.key, DEFAULTS.block)
    st.session_state.setdefault(length.key, DEFAULTS.length)
    c2.number_input(_(block.label), min_value=block.low, max_value=block.high, step=1, key=block.key)
    c3.number_input(
        _(length.label),
        min_value=length.low,
        max_value=length.high,
        step=1,
        key=length.key,
        help=_("The exact laws list every sequence of L tokens, at most {limit}: L up to 4 with 8 tokens, 6 with 4 "
               "tokens, 7 with 3 tokens.", limit=number(MAX_OUTCOMES, ",")),
    )


def laws_for_choice():
    """The exact laws of every variant for the checked controls: (report, refusal). A refused choice keeps the last
    valid report (None before the first)."""
    state = controls_model(PitfallsModel, "pit_state")  # the controls' values, checked
    report, refusal = keep_last_valid("pit_last_report", lambda: mistakes(state.model, state.block, state.length))
    if refusal is None:
        return report, ""
    _ = texts()
    refused = _("{problem}. Showing the last valid choice.", problem=say(refusal))
    st.error(markdown_escape(refused))
    return report, refused


def choice_caption(report) -> None:
    _ = texts()
    model = load_model(report.model)
    values = {"title": markdown_escape(_(model.title)), "kind": _(KINDS.get(report.kind, report.kind)),
              "k": report.block, "length": report.length, "count": len(report.outcomes)}
    caption = (_("**{title}** — {kind} · K = {k}, L = {length} · outcomes: {count} tokens.", **values)
               if report.length == 1
               else _("**{title}** — {kind} · K = {k}, L = {length} · outcomes: {count} sequences.", **values))
    if report.stop is not None:
        caption += " " + _("Each output ends with {stop} or is cut at L = {length} tokens ({stop} counted as one of "
                           "them).", stop=markdown_escape(report.stop), length=report.length)
    st.caption(caption)


def chosen_mistake() -> str:
    mistake = CONTROL["variant"]
    names = list(mistake.options())
    titles = {name: card_title(name) for name in names if name in CARDS}  # in this run's language (a format_func
    # may be called outside the run, where no language is known)
    st.selectbox(
        texts()(mistake.label),
        names,
        format_func=lambda name: titles.get(name, str(name)),
        key=mistake.key,
    )
    variant = controls_model(PitfallsModel, "pit_state", quiet=True).variant  # with the mistake just chosen
    return variant


def mistake_card(report, variant: str) -> None:
    """The card: code, whether the model can show it, public reports (when it is harmless says why it is biased
    elsewhere: it is drawn after the reveal, revealed_law)."""
    _ = texts()
    card = CARDS[variant]
    card_code(card)
    if VARIANTS[variant].stop_only and report.stop is None:
        stopping = ", ".join(name for name in all_model_names() if load_model(name).stop is not None)
        st.caption(
            _("This scenario has no stop token, so this mistake changes nothing here: choose a model that stops "
              "({models}).", models=stopping) if report.kind == "step"
            else _("This model has no stop token, so this mistake changes nothing here: choose a model that stops "
                   "({models}).", models=stopping)
        )
    reported = (
        reports_text(card) + "."
        if card.reports
        else _("no report is cited for this one: it is a mistake that is easy to make, not one a project is known "
               "to have shipped.")
    )
    st.markdown(_("**Reported publicly:** {reports}", reports=reported))


def predict_inputs(report, variant: str) -> tuple:
    """The two guesses and the Reveal button: (biased guess, gain guess, whether this choice is revealed)."""
    _ = texts()
    subsection(_("Predict first"))
    choice = f"{report.model}::{report.block}::{report.length}::{variant}"
    reveal_key = f"pit_revealed::{choice}"
    guesses = st.container(horizontal=True, gap="medium")  # one element, not two columns
    guess_biased = guesses.radio(
        _("Is {variant} biased on this scenario?", variant=variant) if report.kind == "step"
        else _("Is {variant} biased on this model?", variant=variant),
        list(GUESSES),
        format_func=lambda guess: _(GUESSES[guess]) if guess in GUESSES else str(guess),
        index=None,
        key=f"pit_guess_biased::{choice}",
        horizontal=True,
    )
    guess_gain = guesses.selectbox(
        _("Which outcome gains mass?"),
        [NO_GAIN, *report.outcomes],
        format_func=lambda outcome: _(NO_GAIN) if outcome == NO_GAIN else str(outcome),
        index=None,
        placeholder=_("choose an outcome"),
        key=f"pit_guess_gain::{choice}",
    )
    if st.button(_("Reveal the exact law"), key="pit_reveal", type="primary"):
        st.session_state[reveal_key] = True
    return guess_biased, guess_gain, bool(st.session_state.get(reveal_key))


def revealed_law(report, variant: str, guess_biased, guess_gain) -> str:
    """The exact law beside the target, the distance and the grade; returns the sentence announced."""
    _ = texts()
    card, result = CARDS[variant], report.laws[variant]
    said = _("Revealed: {variant} is at TV distance {distance} from the target.", variant=variant,
             distance=exact_and_decimal(result.tv_distance))
    if guess_biased is not None and guess_gain is not None:
        grade = grade_prediction(result, guess_biased.startswith("yes"), guess_gain)
        (st.success if grade.score == 2 else st.warning)(markdown_escape(say(grade.message)))
        said += " " + _("Your guess: {grade}", grade=say(grade.message))
    else:
        st.caption(_("Revealed without a complete guess: not graded."))
    m1, m2 = st.columns(2)
    tv_text = fraction_text(result.tv_distance)
    if len(tv_text) <= 16:
        m1.metric(_("TV distance (exact)"), tv_text)
    else:
        m1.markdown(f"{_('TV distance (exact)')}  \n`{tv_text}`")
    m2.metric(_("TV distance (decimal)"), number(float(result.tv_distance), ".6g"))
    values = [_("{outcome}: target {target}, {variant} {value}", outcome=o, target=exact_and_decimal(t),
                variant=variant, value=exact_and_decimal(v))
              for o, t, v in zip(report.outcomes, report.target, result.law)]
    chart(
        figure(
            "law_vs_target",
            report.outcomes,
            report.target,
            {_("{variant} law", variant=variant): result.law},
            _("{title}: output law against target", title=_(card.title)),
            _("target p"),
        ),
        key="pit_law_chart",
        alt=_("Bars of the target law beside the exact output law of {variant}: {values}", variant=variant,
              values=listed(values)),
    )
    st.dataframe(
        {
            _("outcome"): list(report.outcomes),
            _("target"): [exact_and_decimal(v) for v in report.target],
            f"{variant}": [exact_and_decimal(v) for v in result.law],
            _("difference"): [exact_and_decimal(v - t) for t, v in zip(report.target, result.law)],
        },
        hide_index=True,
        width="stretch",
    )
    exact_on = harmless_scenarios(variant)
    shipped = ", ".join(exact_on) if exact_on else _("(none)")
    st.caption(_("{variant}: one step is exactly p on the shipped scenarios {scenarios}.", variant=variant,
                 scenarios=shipped))
    # it explains the bias: only after the reveal
    st.markdown(_("**When it is harmless:** {when}", when=_(card.harmless_when)))
    return said


def every_variant_spoiler(report) -> None:
    """Every variant's distance on this choice, drawn only while its expander is open (opening it reruns): most
    students never open it, and every change of the choice would otherwise build its chart and table again."""
    _ = texts()
    every_variant = st.expander(
        _("Every variant on this choice (spoils the predictions)"), key="pit_every", on_change="rerun"
    )
    if every_variant.open:
        with every_variant:
            names = list(report.laws)
            chart(
                figure("tv_by_variant", names, [report.laws[n].tv_distance for n in names]),
                key="pit_tv_chart",
                alt=_("Horizontal bars: the exact total variation distance of every variant from the target: {values}",
                      values=listed(f"{n} {exact_and_decimal(report.laws[n].tv_distance)}" for n in names)),
            )
            st.dataframe(
                {
                    _("variant"): names,
                    _("TV distance"): [exact_and_decimal(report.laws[n].tv_distance) for n in names],
                    _("gains most"): [report.laws[n].biggest_gain or "—" for n in names],
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
        _ = texts()
        st.info(_("Make your guesses, then reveal: the law, the distance and the grade appear together."))
    announce("pit", said, error=refused)
    every_variant_spoiler(report)


def single_step_section() -> None:
    _ = texts()
    section(_("A single step through every mistake"))
    st.caption(_(
        "For the one-step scenarios: each variant's one-step output law against p, so the worked example "
        "({scenario}) runs through every mistake. Open it after predicting.", scenario="bernoulli-residual",
    ))
    every_step = st.expander(
        _("Every variant, one step (spoils the predictions)"),
        key="pit_every_step",
        on_change="rerun",
    )
    if every_step.open:
        with every_step:
            steps = scenario_names()
            chosen = st.session_state.get("pit_last_report")
            step_name = st.selectbox(
                _("one-step scenario"),
                steps,
                index=steps.index(chosen.model) if chosen is not None and chosen.model in steps else 0,
                key="pit_step_scenario",
            )
            laws = single_step(step_name)
            tokens = laws["correct"].tokens
            st.caption(_(
                "Each variant's one-step output law (accepted proposals plus corrections), exact, beside p. "
                "The worked example is {scenario}.", scenario="bernoulli-residual",
            ))
            table = {_("variant"): [_("target p"), *laws]}
            for i, token in enumerate(tokens):
                table[token] = [exact_and_decimal(laws["correct"].target[i])] + [
                    exact_and_decimal(v.law[i]) for v in laws.values()
                ]
            table[_("TV distance")] = ["—"] + [exact_and_decimal(v.tv_distance) for v in laws.values()]
            st.dataframe(table, hide_index=True, width="stretch")
            chart(
                figure(
                    "tv_by_variant",
                    list(laws),
                    [v.tv_distance for v in laws.values()],
                    N_("One step: distance from p, by variant"),
                ),
                key="pit_step_tv_chart",
                alt=_("Horizontal bars: the exact total variation distance of each variant's one-step law from p: "
                      "{values}", values=listed(f"{n} {exact_and_decimal(v.tv_distance)}" for n, v in laws.items())),
            )


def example_words() -> str:
    def row(values):
        return ", ".join(f"{t} = {fraction_text(v)}" for t, v in zip(EXAMPLE_TOKENS, values))

    _ = texts()
    return _("target p: {p}; draft q: {q}", p=row(EXAMPLE_P), q=row(EXAMPLE_Q))


def chosen_draft_mistake() -> str:
    _ = texts()
    names = list(DRAFT_CARDS)
    titles = {name: f"{say(DRAFT_CARDS[name].title)} ({name})" for name in names}  # in this run's language
    st.selectbox(
        _("mistake with several candidates"),
        names,
        format_func=lambda name: titles.get(name, str(name)),
        key="pit_draft_variant",
    )
    chosen = st.session_state.get("pit_draft_variant")
    return chosen if chosen in DRAFT_CARDS else names[0]  # a crafted widget state falls back to the first card


def draft_reveal(name: str, rule: str, guess) -> str:
    """The exact law beside the target on the example, the distance, and the grade; returns what is announced."""
    _ = texts()
    card = DRAFT_CARDS[name]
    mistaken = node_law(EXAMPLE_P, EXAMPLE_Q, EXAMPLE_CANDIDATES, rule, name)
    correct = node_law(EXAMPLE_P, EXAMPLE_Q, EXAMPLE_CANDIDATES, rule)
    biased = mistaken.tv_distance > 0
    said = _("Revealed: {variant} is at TV distance {distance} from the target.", variant=name,
             distance=exact_and_decimal(mistaken.tv_distance))
    if guess is None:
        st.caption(_("Revealed without a guess: not graded."))
    else:
        right = guess.startswith("yes") == biased
        if right:
            message = _("Right: it is biased here.") if biased else _("Right: it is exact here.")
        else:
            message = _("Not this time: it is biased here.") if biased else _("Not this time: it is exact here.")
        (st.success if right else st.warning)(message)
        said += " " + message
    st.dataframe(
        {
            _("token"): list(EXAMPLE_TOKENS),
            _("target p"): [exact_and_decimal(v) for v in EXAMPLE_P],
            _("{variant} law", variant=name): [exact_and_decimal(v) for v in mistaken.law],
            _("difference"): [exact_and_decimal(v - t) for t, v in zip(EXAMPLE_P, mistaken.law)],
        },
        hide_index=True,
        width="stretch",
    )
    st.markdown(_(
        "TV distance from the target: **{distance}**. A candidate is kept with probability {acceptance} (the "
        "correct {rule} rule: {correct}).", distance=exact_and_decimal(mistaken.tv_distance),
        acceptance=exact_and_decimal(mistaken.acceptance), rule=rule, correct=exact_and_decimal(correct.acceptance),
    ))
    st.markdown(_("**When it is harmless:** {when}", when=_(card.harmless_when)))
    return said


def rules_table() -> None:
    """Each correct rule's acceptance on the example beside the best any verifier can do with its candidates."""
    _ = texts()
    rows = {
        _("rule"): list(RULES),
        _("a candidate is kept"): [exact_and_decimal(node_law(EXAMPLE_P, EXAMPLE_Q, 2, rule).acceptance)
                                   for rule in RULES],
        _("best any verifier can do"): [exact_and_decimal(best_acceptance(EXAMPLE_P, EXAMPLE_Q, 2, rule).value)
                                        for rule in RULES],
    }
    st.dataframe(rows, hide_index=True, width="stretch")


@st.fragment
def several_candidates_section() -> None:
    """The mistakes of several drafts and token trees, on one worked example: predict, then reveal (a fragment)."""
    _ = texts()
    section(_("Several candidates and token trees"))
    st.caption(_(
        "Many systems let the draft propose several candidates for the same position (K of them, drawn from q or "
        "taken as q's K most likely tokens), and a token tree repeats this at every depth. The candidates are "
        "tested one after another: a rejection leaves a residual, the next candidate is tested against it, and when "
        "every candidate is rejected the correction is one fresh draw from the last residual, over the whole "
        "vocabulary. The example: {example}, K = {k} candidates. `{command}` (or `--tree 2,2`) runs every rule on "
        "your own numbers.", example=example_words(), k=EXAMPLE_CANDIDATES,
        command="python -m lab mistakes MODEL --candidates K",
    ))
    name = chosen_draft_mistake()
    card = DRAFT_CARDS[name]
    card_code(card, subsection)
    st.markdown(markdown_escape(say(card.description)))
    reported = reports_text(card) + "." if card.reports else _("none cited: a mistake that is easy to make.")
    st.markdown(_("**Reported publicly:** {reports}", reports=markdown_escape(reported)))
    rule = card.rules[0]
    st.markdown(_("**Predict first**"))
    guess = st.radio(
        _("Is {variant} biased on the example ({rule} rule, K = {k})?", variant=name, rule=rule,
          k=EXAMPLE_CANDIDATES),
        list(GUESSES),
        format_func=lambda guess: _(GUESSES[guess]) if guess in GUESSES else str(guess),
        index=None,
        key=f"pit_draft_guess::{name}",
        horizontal=True,
    )
    reveal_key = f"pit_draft_revealed::{name}"
    if st.button(_("Reveal the law on the example"), key="pit_draft_reveal", type="primary"):
        st.session_state[reveal_key] = True
    said = ""
    if st.session_state.get(reveal_key):
        said = draft_reveal(name, rule, guess)
    else:
        st.info(_("Make your guess, then reveal: the law, the distance and the grade appear together."))
    announce("pit_draft", said)
    rules = st.expander(
        _("The three rules on the example: how often a candidate is kept, and the best possible"),
        key="pit_rules",
        on_change="rerun",
    )
    if not rules.open:  # drawn only while open (opening it reruns), as the spoilers above
        return
    with rules:
        st.caption(_(
            "No verifier whose output follows p can keep a candidate more often than the minimum, over token sets "
            "H, of p(H) + P(some candidate is outside H). On this example, drawing without replacement keeps more "
            "often than drawing with replacement (it never draws a rejected token again); the top-k rule reaches the "
            "best its fixed candidates allow."
        ))
        rules_table()


def zero_over_zero_card() -> None:
    _ = texts()
    zero = CARDS["zero-over-zero"]
    card_code(zero)
    st.markdown(_("**Reported publicly:** {reports}", reports=reports_text(zero) + ".") + "  \n"
                + _("**Harmless:** {when}", when=_(zero.harmless_when)))
    # a short label: a page link is cut, not wrapped, on a phone
    st.page_link("lab/views/pages/numerics.py", label=_("Numerics: tiny Z and the Z = 0 branch"))


def main() -> None:
    intro()
    choice_section()
    single_step_section()
    several_candidates_section()
    zero_over_zero_card()


main()
