"""Start here: the lesson that teaches speculative sampling's residual from zero, chapter by chapter (no Streamlit).

Each :class:`Chapter` is one screen: a few paragraphs, one prediction the student makes before anything shows the
answer (:class:`Ask`, revealed exactly), one interactive the page draws (``interactive`` names it), and one check
yourself :class:`Question` with feedback that names a known mistake without giving the value away. Every number
comes from the core (lab.core.residual, lab.core.sampling, lab.core.speedup), computed from the shipped scenarios;
tests/test_lesson.py checks them against hand-derived fractions.

The running example is the scenario ``pet-words``: the next word after "My pet is a", over cat, dog and fish.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from dataclasses import field as dataclass_field  # Question has a field named field
from fractions import Fraction
from functools import lru_cache

from babel.numbers import format_decimal

from lab.core.distributions import Distribution
from lab.core.formatting import fraction_text
from lab.core.formatting import with_decimal as decimal_and_fraction
from lab.core.residual import ResidualResult, residual_exact
from lab.core.sampling import step_law
from lab.core.scenarios import load_scenario
from lab.core.speedup import expected_tokens
from lab.i18n import SOURCE, Texts, texts
from lab.teaching.exercises import UNDEFINED, UNDEFINED_WORDS, parse_answer
from lab.teaching.mistakes import ALPHA, CORRECTION, NUMBER_WITHOUT_REJECTION, Field, R, diagnose, feedback

EXAMPLE = "pet-words"
WORKED_EXAMPLE = "bernoulli-residual"
EDGE_CASES = ("equal-distributions", "disjoint-support", "draft-misses-support")
DECIMAL_TOLERANCE = Fraction(1, 200)  # a decimal counts within 0.005, as in Exercises
RUN_STEPS = 1000  # chapter 6's run
BLOCK_DRAFTS = 3  # chapter 7's K
MISTAKE_RULES = ("greedy-draft", "resample-from-p")  # chapter 8's two cards (lab.teaching.pitfalls)


@lru_cache(maxsize=8)
def example(name: str = EXAMPLE) -> ResidualResult:
    scenario = load_scenario(name)
    return residual_exact(scenario.p, scenario.q)


def _dist(tokens: tuple[str, ...], values: tuple[str, ...]) -> Distribution:
    return Distribution(tokens, tuple(Fraction(v) for v in values))


# --- predictions ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ask:
    """One box of a chapter's prediction: ``label`` (e.g. "r(cat)") and its exact ``answer``."""

    label: str
    answer: Fraction
    tolerance: Fraction = DECIMAL_TOLERANCE  # how far a typed value may be and still count

    def grade(self, text: str | None) -> bool | None:
        """True (right), False (wrong) or None (empty or unreadable: not graded)."""
        parsed = parse_answer(text or "")
        if parsed.form not in ("fraction", "decimal"):
            return None
        if parsed.form == "fraction" and self.tolerance == DECIMAL_TOLERANCE:
            return parsed.value == self.answer
        return abs(parsed.value - self.answer) <= self.tolerance


# --- check-yourself questions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    correct: bool
    counted: bool  # False: unreadable, it does not use a try
    message: str


@dataclass(frozen=True)
class Question:
    """A check-yourself question. ``known``: (wrong value, sentence naming the mistake, never a value); a value
    the shared mistakes module knows is diagnosed there (``field``: what is asked, ``pair``: of which p and q)."""

    prompt: str
    answer: Fraction | str  # a Fraction or UNDEFINED
    solution: str  # the worked answer, shown once right or after two tries
    known: tuple[tuple[Fraction, str], ...] = ()
    pair: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None  # tokens, p, q
    field: Field | None = None
    words: Texts | None = dataclass_field(default=None, compare=False)  # the language of the verdicts (None: English)

    def check(self, text: str) -> Verdict:
        _ = self.words or texts(SOURCE)
        shown = " ".join(str(text).split())[:40]
        if self.answer == UNDEFINED and shown.lower().rstrip(".") == _("undefined").lower():
            text = UNDEFINED  # the word in the page's language
        parsed = parse_answer(text)
        if parsed.form == "invalid":
            return Verdict(False, False, _("Type a fraction like 3/4 or a decimal like 0.75, or the word "
                                           "“undefined”.") if self.answer == UNDEFINED else
                           _("Type a fraction like 3/4 or a decimal like 0.75."))
        if self.answer == UNDEFINED:
            if parsed.form == "word" and parsed.value in UNDEFINED_WORDS:
                return Verdict(True, True, _("Right: {solution}", solution=self.solution))
            return Verdict(False, True, _("Not yet. {hint}", hint=feedback(NUMBER_WITHOUT_REJECTION,
                                                                            self.field.token, _)))
        if parsed.form == "word":
            return Verdict(False, True, _("{answer} is a word: this quantity has a value here, a number.",
                                          answer=shown))
        value = parsed.value
        if value == self.answer or (parsed.form == "decimal" and abs(value - self.answer) <= DECIMAL_TOLERANCE):
            return Verdict(True, True, _("Right: {solution}", solution=self.solution))
        if parsed.form == "fraction" and abs(value - self.answer) <= DECIMAL_TOLERANCE:
            return Verdict(False, True, _("Close, but {answer} is not exact: give the exact fraction (or a "
                                          "decimal).", answer=shown))
        tolerance = DECIMAL_TOLERANCE if parsed.form == "decimal" else Fraction(0)
        hint = self.diagnosis(value, tolerance) or _("Read the chapter's rule again, then try once more.")
        return Verdict(False, True, _("Not yet. {hint}", hint=hint))

    def diagnosis(self, value: Fraction, tolerance: Fraction) -> str | None:
        """The sentence of the known mistake ``value`` matches, or None."""
        for wrong, sentence in self.known:
            if abs(value - wrong) <= tolerance:
                return sentence
        if self.pair is not None and self.field is not None:
            tokens, p, q = self.pair
            mistake = diagnose(residual_exact(_dist(tokens, p), _dist(tokens, q)), self.field, value, tolerance)
            if mistake is not None:
                return feedback(mistake, self.field.token, self.words)
        return None


# --- chapters ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chapter:
    number: int
    title: str
    text: tuple[str, ...]  # markdown paragraphs, before the prediction (they never state its answer)
    predict: str  # what to predict, one sentence
    asks: tuple[Ask, ...]
    revealed: tuple[str, ...]  # markdown paragraphs after Reveal
    interactive: str  # which interactive the page draws: step, kept, residual, edges, worked, run, block, mistakes
    question: Question
    tool: tuple[str, str]  # (url path, what the student can do there)
    terms: tuple[str, ...] = field(default_factory=tuple)  # glossary words this chapter introduces
    name: str = ""  # "Chapter 3: The missing mass", in the chapter's language


def _sup(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _pairs(tokens, values) -> str:
    return ", ".join(f"{t} {fraction_text(v)}" for t, v in zip(tokens, values))


def kept_probabilities(result: ResidualResult) -> tuple[Fraction, ...]:
    """min(1, p(x)/q(x)) per token (1 where q(x) = 0: such a token is never proposed)."""
    return tuple(min(Fraction(1), a / b) if b else Fraction(1) for a, b in zip(result.p, result.q))


def count_text(n: int, _: Texts) -> str:
    """A whole number as the language groups its digits (1,000; 1.000; 1 000)."""
    return format_decimal(n, locale=_.language.locale if _.language else "en")


def _chapters(_: Texts) -> tuple[Chapter, ...]:
    """The eight chapters in the language of ``_`` (lab.i18n): the maths, the numbers and the example's words
    (“My pet is a”, cat, dog, fish: the model's own text) are the same in every language."""
    pet = example()
    t = pet.tokens
    worked = example(WORKED_EXAMPLE)
    keep = kept_probabilities(pet)
    edges = [example(name) for name in EDGE_CASES]
    mistaken = mistake_laws()
    alpha = pet.alpha
    all_kept = alpha**BLOCK_DRAFTS
    per_block = expected_tokens(alpha, BLOCK_DRAFTS)
    fish = t.index("fish")
    cat = t.index("cat")
    steps = count_text(RUN_STEPS, _)
    comma = bool(_.language and _.language.decimal_comma)

    def with_decimal(value) -> str:  # "5/8 (0.625)", with a decimal comma where the language writes one
        return decimal_and_fraction(value, decimal_comma=comma)

    case_names = (_("equal"), _("disjoint"), _("draft misses"))
    chapters = (
        Chapter(
            1,
            _("One token, one guess"),
            (
                _("A language model writes text one [token](glossary#token) (a word or a piece of a word) at a "
                  "time: for the next token it gives a probability to every token of its vocabulary, and one is "
                  "drawn. The large [target](glossary#target) model's probabilities are called p, the small "
                  "[draft](glossary#draft) model's q."),
                _("Here the text so far is “My pet is a”. The target says p = ({p}); the draft says q = ({q}).",
                  p=_pairs(t, pet.p), q=_pairs(t, pet.q)),
                _("The rule for one token: the draft [proposes](glossary#proposal) a token x, drawn from q. A fresh "
                  "uniform number u between 0 and 1 is drawn, and the guess is [kept](glossary#kept) if "
                  "u < p(x)/q(x). Otherwise it is [rejected](glossary#rejected), and a fresh draw from the "
                  "[residual](glossary#residual) r replaces it (chapter 3 says what r is)."),
            ),
            _("For each word: if the draft proposes it, with what probability is it kept? (When p(x)/q(x) is above "
              "1, the guess is always kept: write 1.)"),
            tuple(Ask(_("{word} kept", word=w), k) for w, k in zip(t, keep)),
            (
                _("A proposal is kept with probability **min(1, p(x)/q(x))**: {values}. Where the draft is too shy "
                  "(q(x) ≤ p(x)) its guess is always kept; where it is too eager (q(x) > p(x)) only the share "
                  "p(x)/q(x) of its guesses survives.",
                  values=", ".join(f"{w}: {fraction_text(k)}" for w, k in zip(t, keep))),
                _("Now watch single steps: **Step** draws each number in turn."),
            ),
            "step",
            Question(
                _("A draft proposes a token x with q(x) = 1/2, and the target gives it p(x) = 1/5. With what "
                  "probability is the guess kept?"),
                Fraction(2, 5),
                _("min(1, p(x)/q(x)) = min(1, (1/5)/(1/2)) = 2/5."),
                (
                    (Fraction(5, 2), _("That is q(x)/p(x), upside down: the target's probability goes on top, "
                                       "p(x)/q(x), and the result is capped at 1.")),
                    (Fraction(1, 5), _("That is p(x) alone: the test divides it by the draft's q(x).")),
                    (Fraction(1, 2), _("That is the draft's q(x): the test compares the target's p(x) with it.")),
                    (Fraction(3, 10), _("That is q(x) − p(x): the test is a ratio, p(x)/q(x), not a difference.")),
                ),
                words=_,
            ),
            ("blocks", _("the Blocks page steps through whole blocks of guesses")),
            ("token", "target", "draft", "proposal", "kept", "rejected"),
        ),
        Chapter(
            2,
            _("Why kept proposals give min(p, q)"),
            (
                _("A step outputs x by keeping a proposal of x with probability q(x) · min(1, p(x)/q(x)): the draft "
                  "must propose x, and then the target must keep it. Work out that product for each word."),
                _("Summed over the words, the kept probabilities give **α** (alpha), the "
                  "[acceptance probability](glossary#alpha): how often a step keeps its guess."),
            ),
            _("Predict the probability that a step proposes and keeps each word, and α."),
            (*(Ask(_("kept {word}", word=w), m) for w, m in zip(t, pet.accepted)), Ask("α", alpha)),
            (
                _("q(x) · min(1, p(x)/q(x)) = min(q(x), p(x)): **kept proposals give min(p, q)**, token by token: "
                  "{values}. So α = Σ min(p, q) = {alpha}.", values=_pairs(t, pet.accepted),
                  alpha=with_decimal(alpha)),
                _("Where the draft is too shy, the kept part min(p, q) = q falls short of p: that gap is what the "
                  "next chapter fills."),
            ),
            "kept",
            Question(
                _("Two tokens A and B: the target is p = (3/4, 1/4), the draft q = (1/2, 1/2). What is α?"),
                Fraction(3, 4),
                _("α = min(3/4, 1/2) + min(1/4, 1/2) = 1/2 + 1/4 = 3/4."),
                ((Fraction(5, 4), _("That adds the larger of p and q on each token: a kept proposal gives the "
                                    "smaller, min(p, q).")),),
                (("A", "B"), ("3/4", "1/4"), ("1/2", "1/2")),
                Field(ALPHA),
                words=_,
            ),
            ("explorer", _("the Residual explorer shows min(p, q) for any p and q you type")),
            ("alpha",),
        ),
        Chapter(
            3,
            _("The missing mass"),
            (
                _("Kept proposals give min(p, q); the target wants p. What is missing on each token is "
                  "p − min(p, q) = **max(0, p − q)**: nothing where the draft is too eager, the gap where it is too "
                  "shy."),
                _("A step rejects its guess with probability **Z** = Σ max(0, p − q) = 1 − α ([Z](glossary#z)). On "
                  "a rejection a fresh draw from the **residual** r = max(0, p − q) / Z replaces the guess, so the "
                  "rejections add Z · r = max(0, p − q): exactly the missing mass."),
            ),
            _("Predict Z for “My pet is a”, and the residual r of each word."),
            (Ask("Z", pet.z), *(Ask(f"r({w})", v) for w, v in zip(t, pet.residual))),
            (
                _("The missing mass is max(0, p − q) = ({missing}), so Z = {z} and r = ({r}).",
                  missing=_pairs(t, pet.correction), z=with_decimal(pet.z), r=_pairs(t, pet.residual)),
                _("Stack the two parts: kept min(p, q) + rejected Z · r gives p on every word (the chart). The "
                  "output follows the target **exactly**."),
            ),
            "residual",
            Question(
                _("Three tokens A, B, C: the target is p = (2/5, 2/5, 1/5), the draft q = (1/5, 1/5, 3/5). What is "
                  "r(A)?"),
                Fraction(1, 2),
                _("max(0, p − q) = (1/5, 1/5, 0), Z = 2/5, so r(A) = (1/5)/(2/5) = 1/2."),
                (),
                (("A", "B", "C"), ("2/5", "2/5", "1/5"), ("1/5", "1/5", "3/5")),
                Field(R, "A"),
                words=_,
            ),
            ("explorer", _("the Residual explorer asks the same for any p and q, and shipped scenarios")),
            ("residual", "z", "reconstruction"),
        ),
        Chapter(
            4,
            _("The edge cases"),
            (
                _("Three cases test the rule. **Equal**: the draft is the target. **Disjoint**: the draft only "
                  "proposes tokens the target never writes. **Draft misses**: the draft never proposes two tokens "
                  "the target needs. Choose a case to see its p and q."),
            ),
            _("Predict the rejection probability Z of each case."),
            tuple(Ask(_("Z: {case}", case=label), r.z) for label, r in zip(case_names, edges)),
            (
                _("**Equal**: Z = 0. No guess is ever rejected, so r = max(0, p − q)/Z would be 0/0: it is never "
                  "computed, and no tiny number (an “epsilon”) is added to make the division work. There is simply "
                  "no correction."),
                _("**Disjoint**: α = 0 and Z = 1: every guess is rejected and r = p. Still exact; the draft just "
                  "saves no time."),
                _("**Draft misses**: Z = {z}. Only the correction can write C and D, and it writes them exactly as "
                  "often as the target does.", z=with_decimal(edges[2].z)),
            ),
            "edges",
            Question(
                _("The target and the draft are the same, p = q = (1/2, 1/2) over A and B. What is r(A)? (Type a "
                  "number, or “undefined” if it has none.)"),
                UNDEFINED,
                _("Z = 0, so no rejection happens and r = 0/0 is never evaluated: r is undefined."),
                (),
                (("A", "B"), ("1/2", "1/2"), ("1/2", "1/2")),
                Field(R, "A"),
                words=_,
            ),
            ("explorer", _("the Residual explorer has these three as scenarios")),
            ("epsilon",),
        ),
        Chapter(
            5,
            _("The worked example"),
            (
                _("Three tokens A, B, C: the target is p = ({p}), the draft q = ({q}). A gets nothing from the "
                  "correction, because the draft proposes A more than the target wants it.",
                  p=_pairs(worked.tokens, worked.p), q=_pairs(worked.tokens, worked.q)),
                _("So r lives on B and C alone: it is a coin with two sides, B (“success”) and C (“failure”)."),
            ),
            _("Draw the bars of r(B) and r(C) (drag a bar, or use the sliders under them)."),
            tuple(Ask(f"r({w})", worked.residual[i]) for i, w in enumerate(worked.tokens) if w != "A"),
            (
                _("r(B) = {rb} and r(C) = {rc}: the [Binomial lab](binomial-lab?lab_p=0.75&n=1) with success "
                  "probability 0.75 and one trial draws the same bars.",
                  rb=fraction_text(worked.residual[1]), rc=fraction_text(worked.residual[2])),
                _("Now multiply by Z = {z} to get each correction Z · r (the question below), add the kept "
                  "min(p, q) = ({kept}), and p comes back. The chart of the whole sum opens once you have answered.",
                  z=with_decimal(worked.z), kept=_pairs(worked.tokens, worked.accepted)),
            ),
            "worked",
            Question(
                _("In this example, what is the correction term Z · r(B)?"),
                worked.correction[1],
                _("Z · r(B) = 2/5 · 3/4 = 3/10 (and min(p(B), q(B)) + 3/10 = 3/10 + 3/10 = 3/5 = p(B))."),
                (),
                (worked.tokens, tuple(map(str, worked.p)), tuple(map(str, worked.q))),
                Field(CORRECTION, "B"),
                words=_,
            ),
            ("binomial-lab", _("the Binomial lab reproduces the B/C bars step by step")),
        ),
        Chapter(
            6,
            _("Many steps"),
            (
                _("One step is random; many steps show the law. The **law** of a sampler is the probability of "
                  "each output, its [distribution](glossary#law)."),
                _("Once you have predicted, {steps} speculative steps run for “My pet is a”, and beside them "
                  "{steps} draws straight from the target; **Run again** draws new random numbers.", steps=steps),
            ),
            _("Of {steps} speculative steps, how many do you expect to output fish?", steps=steps),
            (Ask(_("expected fish"), RUN_STEPS * pet.p[fish], Fraction(5)),),
            (
                _("Expected: {steps} × p(fish) = {expected}: the speculative steps follow the target's law, however "
                  "often the draft proposes fish.", steps=steps, expected=fraction_text(RUN_STEPS * pet.p[fish])),
                _("**Different text, same law**: the two runs write different words one by one (they use different "
                  "random numbers), but their counts approach p alike. Compare the two rows of counts below; the "
                  "[total variation distance](glossary#tv) measures how far counts are from p."),
            ),
            "run",
            Question(
                _("In one speculative step for “My pet is a”, what is the probability that the output is cat?"),
                pet.p[cat],
                _("The output follows the target: p(cat) = 1/2 (kept 1/4 + Z · r(cat) = 3/8 · 2/3 = 1/4)."),
                (
                    (pet.accepted[cat], _("That is only what kept proposals give cat, min(p(cat), q(cat)) (also the "
                                          "draft's q(cat)): rejections add Z · r(cat).")),
                    (alpha, _("That is α, how often a guess is kept, for every word together.")),
                ),
                words=_,
            ),
            ("sampling", _("the Sampling lab runs up to a million steps and tests the counts")),
            ("law", "tv"),
        ),
        Chapter(
            7,
            _("Blocks of drafts"),
            (
                _("In practice the draft guesses K tokens in a row (a [block](glossary#block), here K = {k}), and "
                  "the target checks all of them at once, in order. The first rejection ends the block: that guess "
                  "is replaced by a draw from the residual, and the later guesses are thrown away (they were "
                  "written after a token that is no longer there). If every guess is kept, the target adds one "
                  "token of its own, a bonus.", k=BLOCK_DRAFTS),
                _("To keep the numbers small, both models give the same p and q as before at every position, so "
                  "each guess is kept with probability α = {alpha}.", alpha=with_decimal(alpha)),
            ),
            _("Predict the probability that all {k} guesses of a block are kept.", k=BLOCK_DRAFTS),
            (Ask(_("all kept"), all_kept),),
            (
                _("α{k} = {all_kept}. A block adds on average (1 − α{k_plus_one}) / (1 − α) = {per_block} tokens for "
                  "one check by the target, where sampling from the target alone adds one: that is what "
                  "speculation buys, when the draft is cheap.", k=_sup(BLOCK_DRAFTS),
                  all_kept=with_decimal(all_kept), k_plus_one=_sup(BLOCK_DRAFTS + 1),
                  per_block=with_decimal(per_block)),
            ),
            "block",
            Question(
                _("A block of K = {k} guesses: the target keeps the first and rejects the second. How many tokens "
                  "does the block add?", k=BLOCK_DRAFTS),
                Fraction(2),
                _("2: the kept first guess, then the correction drawn in place of the second; the third is thrown "
                  "away."),
                (
                    (Fraction(1), _("The first guess was kept before the rejection, and it stays.")),
                    (Fraction(3), _("The first rejection ends the block: the third guess is never tested, and the "
                                    "rejected one is replaced, not added.")),
                    (Fraction(4), _("The bonus token comes only when every guess was kept.")),
                ),
                words=_,
            ),
            ("blocks", _("the Blocks page steps through blocks of a small language model")),
            ("block",),
        ),
        Chapter(
            8,
            _("Mistakes real code made"),
            (
                _("Two changes that look harmless. **Greedy draft**: the draft always proposes its most likely word "
                  "(fish), but the test still uses q(fish) as if the draft had drawn it at random; this shipped in "
                  "the transformers library (its issue #32867). **Resample from p**: on a rejection, draw the "
                  "replacement from the target p instead of the residual, the slip most often made when the rule "
                  "is written from memory."),
            ),
            _("With each mistake, predict the probability that the output is fish (the target wants 1/4)."),
            (
                Ask(_("P(fish), greedy draft"), mistaken["greedy-draft"][fish]),
                Ask(_("P(fish), resample from p"), mistaken["resample-from-p"][fish]),
            ),
            (
                _("**Greedy draft** writes fish with probability {value}: every step proposes fish and keeps it with "
                  "probability p(fish)/q(fish) = 2/5. The test is exact only for a draft that proposes x with "
                  "probability q(x), so the q a test uses must be the one that drew the guess.",
                  value=fraction_text(mistaken["greedy-draft"][fish])),
                _("**Resample from p** writes fish with probability {value}: kept proposals already gave fish its "
                  "share min(p, q), and drawing from p adds fish again. Only the residual adds exactly what is "
                  "missing.", value=fraction_text(mistaken["resample-from-p"][fish])),
                _("Both are harmless only in special cases: a greedy draft when q is already one-hot; resampling "
                  "from p when every guess is rejected (r = p) or none is."),
            ),
            "mistakes",
            Question(
                _("Another pair: p = (1/2, 1/2) over A and B, and a draft that always proposes A, q = (1, 0). With "
                  "“resample from p”, what is the probability that the output is B?"),
                Fraction(1, 4),
                _("A is kept with probability min(1, (1/2)/1) = 1/2; the other half of the steps draw from p, B "
                  "with probability 1/2: 1/2 · 1/2 = 1/4, where the target wants 1/2."),
                (
                    (Fraction(1, 2), _("That is p(B), what the correct rule gives: this rule's corrections draw "
                                       "from p, which gives B only half of the rejections.")),
                    (Fraction(3, 4), _("That is the probability of A: the question asks for B.")),
                    (Fraction(0), _("The draft never proposes B, but a correction can still draw it.")),
                ),
                words=_,
            ),
            ("pitfalls", _("the Pitfalls page has every mistake, each with the code that shipped it")),
        ),
    )
    return tuple(replace(c, name=_("Chapter {number}: {title}", number=c.number, title=c.title)) for c in chapters)


@lru_cache(maxsize=1)
def mistake_laws() -> dict[str, tuple[Fraction, ...]]:
    """Chapter 8: each mistaken rule's exact one-step output law on the example (its reveal and its chart)."""
    scenario = load_scenario(EXAMPLE)
    return {name: step_law(scenario.p, scenario.q, name).total for name in MISTAKE_RULES}


@lru_cache(maxsize=16)
def chapters(language: str = SOURCE) -> tuple[Chapter, ...]:
    """The chapters in ``language`` (a code of lab.i18n), made once per language."""
    return _chapters(texts(language))


CHAPTER_COUNT = 8


def chapter(number: int, language: str = SOURCE) -> Chapter:
    return chapters(language)[number - 1]


# --- the interactives' stories: seeded draws narrated with their exact numbers -----------------------------


def _uniform(rng: random.Random) -> Fraction:
    """A uniform number in [0, 1) with four decimals: the narration shows exactly the number compared."""
    return Fraction(rng.randrange(10_000), 10_000)


def _inverse_cdf(tokens, weights, u: Fraction) -> str:
    """The token whose share of [0, 1) holds u (shares in token order; a zero share is never drawn)."""
    total = Fraction(0)
    for token, weight in zip(tokens, weights):
        total += weight
        if u < total:
            return token
    return next(tk for tk, w in zip(reversed(tokens), reversed(weights)) if w)


def _u(value: Fraction, _: Texts | None = None) -> str:
    """A uniform number with four decimals (a decimal comma where the language of ``_`` writes one)."""
    text = f"{float(value):.4f}"
    return text.replace(".", ",") if _ is not None and _.language and _.language.decimal_comma else text


@dataclass(frozen=True)
class Step:
    """One speculative step, every draw kept: proposal, test, and (after a rejection) the correction."""

    proposal: str
    u_proposal: Fraction
    u_test: Fraction
    keep: Fraction  # min(1, p(x)/q(x))
    output: str
    u_correction: Fraction | None  # None: kept

    @property
    def kept(self) -> bool:
        return self.u_correction is None


def one_step(result: ResidualResult, rng: random.Random) -> Step:
    tokens = result.tokens
    u1 = _uniform(rng)
    x = _inverse_cdf(tokens, result.q, u1)
    i = tokens.index(x)
    keep = min(Fraction(1), result.p[i] / result.q[i])
    u2 = _uniform(rng)
    if u2 < keep or result.residual is None:  # Z = 0: nothing is ever rejected (no 0/0)
        return Step(x, u1, u2, keep, x, None)
    u3 = _uniform(rng)  # fresh randomness for the correction
    return Step(x, u1, u2, keep, _inverse_cdf(tokens, result.residual, u3), u3)


def step_story(seed: int, words: Texts | None = None) -> tuple[str, ...]:
    """Chapter 1's narration of one step of the example, one line per Step press (``words``: its language's)."""
    _ = words or texts(SOURCE)
    pet = example()
    s = one_step(pet, random.Random(seed))
    i = pet.tokens.index(s.proposal)
    x = s.proposal
    numbers = {"x": x, "u": _u(s.u_test, _), "keep": _u(s.keep, _)}
    lines = [
        _("The draft proposes **{x}**: a uniform number {u} falls in {x}'s share of q (q({x}) = {q}).",
          x=x, u=_u(s.u_proposal, _), q=fraction_text(pet.q[i])),
        _("The target checks it: p({x})/q({x}) = {p} ÷ {q}, so it is kept with probability {chance}.",
          x=x, p=fraction_text(pet.p[i]), q=fraction_text(pet.q[i]), chance=fraction_text(s.keep)) + " "
        + (_("u = {u} < {keep}: **kept**.", **numbers) if s.kept else _("u = {u} ≥ {keep}: **rejected**.", **numbers)),
    ]
    if s.kept:
        lines.append(_("The output is **{x}**, the draft's guess.", x=s.output))
    else:
        lines.append(_("A fresh uniform number {u} draws from the residual r = ({r}): the output is **{x}**.",
                       u=_u(s.u_correction, _), r=_pairs(pet.tokens, pet.residual), x=s.output))
    return tuple(lines)


@dataclass(frozen=True)
class Run:
    speculative: tuple[str, ...]
    direct: tuple[str, ...]  # drawn straight from the target

    def counts(self, which: tuple[str, ...], tokens: tuple[str, ...]) -> tuple[int, ...]:
        return tuple(which.count(t) for t in tokens)


@lru_cache(maxsize=64)
def run(seed: int, steps: int = RUN_STEPS) -> Run:
    """Chapter 6: ``steps`` speculative steps and as many direct draws from p, from one seed (own streams)."""
    pet = example()
    spec_rng, direct_rng = random.Random(f"{seed}:speculative"), random.Random(f"{seed}:direct")
    speculative = tuple(one_step(pet, spec_rng).output for _ in range(steps))
    direct = tuple(_inverse_cdf(pet.tokens, pet.p, _uniform(direct_rng)) for _ in range(steps))
    return Run(speculative, direct)


def block_story(seed: int, drafts: int = BLOCK_DRAFTS, words: Texts | None = None) -> tuple[str, ...]:
    """Chapter 7's narration of one block of the example (the same p and q at every position; ``words``: its
    language's)."""
    _ = words or texts(SOURCE)
    pet = example()
    rng = random.Random(f"{seed}:block")
    guesses = [_inverse_cdf(pet.tokens, pet.q, _uniform(rng)) for _ in range(drafts)]
    lines = [_.ngettext("The draft guesses {count} word in a row: {words}.",
                        "The draft guesses {count} words in a row: {words}.", drafts,
                        count=drafts, words=", ".join(f"**{g}**" for g in guesses))]
    added: list[str] = []
    for n, x in enumerate(guesses, start=1):
        i = pet.tokens.index(x)
        keep = min(Fraction(1), pet.p[i] / pet.q[i])
        u = _uniform(rng)
        if u < keep:
            added.append(x)
            lines.append(_("Guess {n}, {x}: kept with probability {chance}; u = {u}: **kept**.",
                           n=n, x=x, chance=fraction_text(keep), u=_u(u, _)))
            continue
        y = _inverse_cdf(pet.tokens, pet.residual, _uniform(rng))
        added.append(y)
        thrown = drafts - n
        rejected = _("Guess {n}, {x}: kept with probability {chance}; u = {u}: **rejected**.",
                     n=n, x=x, chance=fraction_text(keep), u=_u(u, _))
        replaced = (_.ngettext("The residual draws **{y}** in its place, and the {count} later guess is thrown away.",
                               "The residual draws **{y}** in its place, and the {count} later guesses are thrown "
                               "away.", thrown, y=y, count=thrown)
                    if thrown else _("The residual draws **{y}** in its place.", y=y))
        lines.append(f"{rejected} {replaced}")
        break
    else:
        bonus = _inverse_cdf(pet.tokens, pet.p, _uniform(rng))
        added.append(bonus)
        lines.append(_("Every guess was kept: the target adds a bonus word of its own, **{bonus}**.", bonus=bonus))
    lines.append(_.ngettext("The block adds {count} word: {words}.", "The block adds {count} words: {words}.",
                            len(added), count=len(added), words=" ".join(added)))
    return tuple(lines)
