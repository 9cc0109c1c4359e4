"""Exercises generated from a seed: questions on alpha, Z, r(token), a reconstruction term and the branch.

Everything here is pure Python (no Streamlit): the Exercises page, the ``python -m lab exercises`` command
and the exports all call these functions, so the same seed, count and level give the same problems
everywhere. Answers come from :func:`lab.core.residual.residual_exact`; nothing is stored anywhere.

Problem ``i`` of an assignment depends only on (seed, level, i), so the first problems of a longer
assignment are the problems of a shorter one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import NamedTuple

from lab.core.distance import total_variation
from lab.core.distributions import Distribution, LabInputError
from lab.core.errors import said
from lab.core.formatting import fraction_text, with_decimal
from lab.core.numbers import (
    MAX_TEXT_LENGTH,
    NumberInputError,
    NumberLimitError,
    parse_whole_number,
    read_number,
    to_fraction,
)
from lab.core.numbers import shown as shown_text
from lab.core.residual import NO_REJECTION, REJECTION, ResidualResult, residual_exact
from lab.i18n import N_
from lab.teaching.mistakes import NUMBER_WITHOUT_REJECTION, Field, diagnose

LEVELS = ("basic", "zeros", "disjoint", "z0", "several")
LEVEL_TITLES = {  # marked for the catalogs: a page says them in its language
    "basic": N_("Basic: every p and q positive"),
    "zeros": N_("Zeros in p or q"),
    "disjoint": N_("Disjoint supports: p and q share no token"),
    "z0": N_("Target equal to draft"),
    "several": N_("Several candidates: the test after a rejection"),
}
KINDS = ("alpha", "z", "r", "correction", "branch")
Z0_KINDS = ("r", "branch", "z", "r", "alpha")  # the trick level asks mostly for the undefined residual
# two candidates drawn from q: the second is tested against the residual the first rejection left
SEVERAL_KINDS = ("second", "r", "second", "z", "second")

MIN_SEED, MAX_SEED = 0, 999_999_999
MIN_COUNT, MAX_COUNT = 1, 30
DEFAULT_SEED, DEFAULT_COUNT, DEFAULT_LEVEL = 1, 5, "basic"
DENOMINATORS = (4, 5, 6, 8, 10, 12)
TOKEN_NAMES = "ABCDEF"
DECIMAL_TOLERANCE = Fraction(5, 1000)  # a decimal answer counts within 0.005 (inclusive)
TRIES_BEFORE_SOLUTION = 2
UNDEFINED = "undefined"
UNDEFINED_WORDS = frozenset(
    {"undefined", "not defined", "no-rejection", "no rejection", "none", "undefined / no-rejection"}
)
BRANCH_NAMES = {"rejection": N_("rejection"), "no-rejection": N_("no-rejection")}  # the choices in words
BRANCH_OPTIONS = ("rejection", "no-rejection")  # the choices a page offers for the branch question (BRANCH_WORDS)
BRANCH_WORDS = {
    "rejection": REJECTION,
    "rejection possible": REJECTION,
    "reject": REJECTION,
    "no-rejection": NO_REJECTION,
    "no rejection": NO_REJECTION,
    "norejection": NO_REJECTION,
    "accept": NO_REJECTION,
    "always accept": NO_REJECTION,
}


class ExerciseInputError(LabInputError):
    """A seed, count, level or answer that cannot be used, with a message naming the problem."""


# --- parameters ---------------------------------------------------------------------------------


def _parse_int(value, name: str, low: int, high: int) -> int:
    try:
        return parse_whole_number(value, name, low, high)
    except NumberInputError as exc:
        raise ExerciseInputError(str(exc)) from None


def parse_seed(value) -> int:
    return _parse_int(value, "seed", MIN_SEED, MAX_SEED)


def parse_count(value) -> int:
    return _parse_int(value, "count", MIN_COUNT, MAX_COUNT)


def parse_level(value) -> str:
    text = str(value).strip().lower()
    if text not in LEVELS:
        raise ExerciseInputError(said("level: {value} is not one of {levels}", value=repr(value),
                                      levels=", ".join(LEVELS)))
    return text


# --- problems -----------------------------------------------------------------------------------


class _ResidualOfPQ:
    """Mixin for a problem about target ``p`` against draft ``q``: their exact residual, computed once."""

    p: Distribution
    q: Distribution

    @cached_property
    def result(self) -> ResidualResult:
        return residual_exact(self.p, self.q)


@dataclass(frozen=True)
class Problem(_ResidualOfPQ):
    """One question about the residual of target p against draft q."""

    number: int  # 1-based position in the assignment
    seed: int
    level: str
    kind: str  # one of KINDS
    token: str | None  # the token asked about (r and correction questions)
    p: Distribution
    q: Distribution

    @property
    def answer(self) -> Fraction | str:
        """The right answer: a Fraction, a branch name, or UNDEFINED (r when Z = 0)."""
        result = self.result
        if self.kind == "alpha":
            return result.alpha
        if self.kind == "z":
            return result.z
        if self.kind == "branch":
            return result.branch
        index = self.p.tokens.index(self.token)
        if self.kind == "r":
            return UNDEFINED if result.residual is None else result.residual[index]
        if self.kind == "second":  # kept with min(1, r(x)/q(x)): tested against r (Z > 0 on this level)
            return min(Fraction(1), result.residual[index] / self.q.values[index])
        return result.correction[index]  # Z * r(token): 0 when no rejection can happen

    @property
    def answer_text(self) -> str:
        answer = self.answer
        return fraction_text(answer) if isinstance(answer, Fraction) else answer

    @property
    def answer_decimal(self) -> str:
        answer = self.answer
        return f"{float(answer):.4g}" if isinstance(answer, Fraction) else ""

    @property
    def is_choice(self) -> bool:
        return self.kind == "branch"

    @property
    def prompt(self) -> str:
        t = self.token
        if self.kind == "alpha":
            return said("What is the acceptance probability α = Σ min(p, q)?")
        if self.kind == "z":
            return said("What is the rejection probability Z = Σ max(0, p − q)?")
        if self.kind == "r":
            return said("What is the residual r({t}) = max(0, p({t}) − q({t})) / Z?", t=t)
        if self.kind == "correction":
            return said("In p({t}) = min(p({t}), q({t})) + Z·r({t}), what is the correction term Z·r({t})?", t=t)
        if self.kind == "second":
            return said(
                "Two candidates are drawn from q, one after the other, and tested in order. The first was rejected; "
                "the second candidate is {t}. With what probability is {t} kept?", t=t,
            )
        return said(
            "Which branch can the sampler take: can a proposal be rejected (rejection) or never (no-rejection)?"
        )

    @property
    def title(self) -> str:
        return said("Problem {number}", number=self.number)


def _composition(rng: random.Random, total: int, parts: int, positive: bool) -> list[int]:
    """``parts`` whole numbers summing to ``total`` (each >= 1 when ``positive``), uniformly by stars and bars."""
    if positive:
        cuts = sorted(rng.sample(range(1, total), parts - 1))
        bounds = [0, *cuts, total]
        return [b - a for a, b in zip(bounds, bounds[1:])]
    cuts = sorted(rng.sample(range(1, total + parts), parts - 1))
    bounds = [0, *cuts, total + parts]
    return [b - a - 1 for a, b in zip(bounds, bounds[1:])]


def _dist(tokens: tuple[str, ...], counts: list[int], denominator: int) -> Distribution:
    return Distribution(tokens, tuple(Fraction(c, denominator) for c in counts))


def _pair(rng: random.Random, level: str, n: int) -> tuple[list[int], list[int], int]:
    """Numerators of p and q over a common friendly denominator, meeting the level's constraint."""
    while True:
        if level == "disjoint":
            split = rng.randint(1, n - 1)  # tokens [0, split) carry p, [split, n) carry q
            den = rng.choice([d for d in DENOMINATORS if d >= max(split, n - split)])
            p = _composition(rng, den, split, True) + [0] * (n - split)
            q = [0] * split + _composition(rng, den, n - split, True)
            order = list(range(n))
            rng.shuffle(order)
            return [p[i] for i in order], [q[i] for i in order], den
        den = rng.choice([d for d in DENOMINATORS if d >= n])
        if level == "z0":
            p = _composition(rng, den, n, rng.random() < 0.7)
            return p, list(p), den
        positive = level in ("basic", "several")
        p = _composition(rng, den, n, positive)
        q = _composition(rng, den, n, positive)
        if p == q:
            continue
        if level == "zeros":
            has_zero = 0 in p or 0 in q
            overlap = any(a > 0 and b > 0 for a, b in zip(p, q))
            if not (has_zero and overlap):
                continue
        return p, q, den


def _kind_order(seed: int, level: str) -> list[str]:
    kinds = list(Z0_KINDS if level == "z0" else SEVERAL_KINDS if level == "several" else KINDS)
    random.Random(f"residual-lab/kinds/{level}/{seed}").shuffle(kinds)
    if level == "z0":  # the trick question comes first
        kinds.remove("r")
        kinds.insert(0, "r")
    return kinds


def make_problem(seed: int, level: str, number: int) -> Problem:
    """Problem ``number`` (1-based) of the assignment (seed, level)."""
    rng = random.Random(f"residual-lab/problem/{level}/{seed}/{number}")
    n = rng.randint(3, 6)
    tokens = tuple(TOKEN_NAMES[:n])
    p_counts, q_counts, den = _pair(rng, level, n)
    order = _kind_order(seed, level)
    kind = order[(number - 1) % len(order)]
    token = None
    if kind in ("r", "correction", "second"):
        if level == "z0":
            token = rng.choice(tokens)
        else:  # ask about a token with p > q half of the time, any token otherwise
            surplus = [t for t, a, b in zip(tokens, p_counts, q_counts) if a > b]
            token = rng.choice(surplus if rng.random() < 0.5 else list(tokens))
    return Problem(number, seed, level, kind, token, _dist(tokens, p_counts, den), _dist(tokens, q_counts, den))


def generate_problems(seed, count, level=DEFAULT_LEVEL) -> list[Problem]:
    """The assignment's problems; seed, count and level are validated (ExerciseInputError)."""
    seed, count, level = parse_seed(seed), parse_count(count), parse_level(level)
    return [make_problem(seed, level, i) for i in range(1, count + 1)]


# --- predict the bars ----------------------------------------------------------------------------

PREDICT_COUNT = 3
PREDICT_STEP = Fraction(1, 20)  # slider step of a predicted bar
PREDICT_GOOD_TV = Fraction(1, 10)  # "close" when the total variation distance is at most this


@dataclass(frozen=True)
class PredictProblem(_ResidualOfPQ):
    """Set the residual bars r(x) for every token, scored by total variation distance."""

    number: int
    seed: int
    level: str
    p: Distribution
    q: Distribution

    @property
    def truth(self) -> tuple[Fraction, ...]:
        return self.result.residual


def generate_predictions(seed, level=DEFAULT_LEVEL, count: int = PREDICT_COUNT) -> list[PredictProblem]:
    """Predict-the-bars problems of the assignment. The Z = 0 level has no bars to predict, so it uses
    basic problems here."""
    seed, level = parse_seed(seed), parse_level(level)
    bars_level = "basic" if level == "z0" else level
    problems = []
    for number in range(1, count + 1):
        rng = random.Random(f"residual-lab/predict/{bars_level}/{seed}/{number}")
        n = rng.randint(3, 5)
        tokens = tuple(TOKEN_NAMES[:n])
        p_counts, q_counts, den = _pair(rng, bars_level, n)
        problems.append(PredictProblem(number, seed, level, _dist(tokens, p_counts, den), _dist(tokens, q_counts, den)))
    return problems


@dataclass(frozen=True)
class PredictScore:
    """Predicted bars of r against the exact r: the one scoring of a prediction (Exercises, the class
    export, and the explorer's score, which adds its tokens and Z)."""

    tv: Fraction  # total variation distance 1/2 * sum |prediction - r|
    errors: tuple[Fraction, ...]  # prediction - r per token
    prediction_total: Fraction
    close: bool
    prediction: tuple[Fraction, ...] = ()  # the bars as exact values, in the order of r

    @property
    def score(self) -> Fraction:
        """1 - TV, clipped at 0 (an unnormalised prediction can be further than 1 away)."""
        return max(Fraction(0), 1 - self.tv)


def score_prediction(truth, prediction) -> PredictScore:
    """Score predicted bars (one value per token) against the exact residual r."""
    truth = [Fraction(t) for t in truth]
    prediction = tuple(to_fraction(v) for v in prediction)
    if len(truth) != len(prediction):
        raise ExerciseInputError(f"{len(prediction)} predicted bars for {len(truth)} tokens")
    errors = tuple(v - t for v, t in zip(prediction, truth))
    tv = total_variation(prediction, truth)
    return PredictScore(tv, errors, sum(prediction, Fraction(0)), tv <= PREDICT_GOOD_TV, prediction)


# --- answers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedAnswer:
    form: str  # "fraction" (exact: fractions and whole numbers), "decimal", "word", or "invalid"
    value: Fraction | str | None
    text: str
    problem: str | None = None  # why a number was refused (a limit), for the message


def parse_answer(text: str) -> ParsedAnswer:
    """An answer as typed: a number (through lab.core.numbers, with its limits), or a word.

    A refused number (too long, too many digits, an exponent beyond the limit) is ``invalid`` and
    carries the reason in ``problem``: it does not use a try and never reaches the results export."""
    raw = " ".join(str(text)[: MAX_TEXT_LENGTH + 1].split()).strip()
    low = raw.lower()
    if not raw:
        return ParsedAnswer("invalid", None, raw)
    if low in UNDEFINED_WORDS or low.rstrip(".") in UNDEFINED_WORDS or low in BRANCH_WORDS:
        return ParsedAnswer("word", low.rstrip("."), raw)
    try:
        number = read_number(str(text), "your answer", allow_percent=True, allow_decimal_comma=True)
    except NumberLimitError as exc:
        return ParsedAnswer("invalid", None, raw, exc.problem)
    except NumberInputError:
        return ParsedAnswer("invalid", None, raw)
    form = "fraction" if number.form in ("fraction", "integer") else "decimal"
    return ParsedAnswer(form, number.value, raw)


@dataclass(frozen=True)
class Check:
    correct: bool
    counted: bool  # False for unreadable input: it does not use up a try
    message: str


class Feedback(NamedTuple):
    """What a page says after a submission, and how: ``kind`` is "success", "warning" or "error" (the name of the
    Streamlit call that shows it). The one home of that choice, for the Exercises and the Class pages."""

    kind: str
    text: str

    @classmethod
    def of_check(cls, check: Check, text: str | None = None) -> Feedback:
        """A checked answer: right (success), counted but wrong (error), or not read as an answer (warning);
        ``text``: the words shown (the check's message by default)."""
        kind = "success" if check.correct else ("error" if check.counted else "warning")
        return cls(kind, check.message if text is None else text)

    @property
    def refused(self) -> bool:
        return self.kind == "error"


def check_answer(problem: Problem, text: str) -> Check:
    """Mark an answer: fractions must be exact, decimals within 0.005, words for undefined / branch."""
    parsed = parse_answer(text)
    answer = problem.answer
    shown = text.strip()
    if parsed.form == "invalid":
        if parsed.problem:  # a number beyond the limits: say which, and it does not use a try
            return Check(False, False, said(
                "Not counted: {problem}. Type a fraction like 3/4 or a decimal like 0.75.", problem=parsed.problem))
        return Check(
            False,
            False,
            said("Could not read {value}: type a fraction like 3/4, a decimal like 0.75, or a branch name.",
                 value=shown_text(shown))
            if problem.is_choice
            else said("Could not read {value}: type a fraction like 3/4, a decimal like 0.75, or the word "
                      "'undefined'.", value=shown_text(shown)),
        )
    z = with_decimal(problem.result.z)
    if problem.kind == "branch":
        if parsed.form == "word" and parsed.value in BRANCH_WORDS:
            if BRANCH_WORDS[parsed.value] == answer:
                return Check(True, True, said("Correct: the rejection branch (Z = {z}).", z=z) if answer == REJECTION
                             else said("Correct: the no-rejection branch (Z = {z}).", z=z))
            return Check(False, True, said("Not this branch: look at whether any token has p(x) > q(x)."))
        return Check(False, False, said("Answer with a branch: 'rejection' or 'no-rejection'."))
    if answer == UNDEFINED:
        if parsed.form == "word" and parsed.value in UNDEFINED_WORDS:
            return Check(True, True, said(
                "Correct: Z = 0, no rejection can happen, so r would be 0/0: it is not defined."))
        if parsed.form == "word":
            return Check(False, True, said("Not this word: check Z first. What is r when no rejection can happen?"))
        return Check(False, True, said("Not yet. {why}", why=mistake_words(NUMBER_WITHOUT_REJECTION, problem.token)))
    if parsed.form == "word":
        return Check(False, True, said("Z = {z} > 0 here, so this quantity has a value.", z=z))
    value = parsed.value
    if value < 0:
        return Check(False, True, said(
            "{value} is negative, but every quantity here is a probability (0 to 1).", value=shown))
    if parsed.form == "fraction":
        if value == answer:
            return Check(True, True, said("Correct: {answer}.", answer=with_decimal(answer)))
        if abs(value - answer) <= DECIMAL_TOLERANCE:
            return Check(False, True, said(
                "Close, but {value} is not exact: a fraction answer must be exact (or type a decimal).", value=shown))
        return _not_yet(problem, value, Fraction(0), said("Not yet: {value} is not right. Try a hint.", value=shown))
    if abs(value - answer) <= DECIMAL_TOLERANCE:
        return Check(True, True, said("Correct: {answer} (decimals count within 0.005).", answer=with_decimal(answer)))
    return _not_yet(problem, value, DECIMAL_TOLERANCE, said(
        "Not yet: {value} is more than 0.005 away. Try a hint.", value=shown))


def mistake_words(mistake, token: str | None):
    """The student's sentence for ``mistake`` about ``token``, as a :class:`Said` (a page says it in its language)."""
    return said(mistake.feedback, t=token or "x")


def _not_yet(problem: Problem, value: Fraction, tolerance: Fraction, generic: str) -> Check:
    """A wrong number: the mistake it matches (exactly for a fraction, within the decimal tolerance for a
    decimal) named in a sentence without any value, else the generic line."""
    mistake = diagnose(problem.result, Field(problem.kind, problem.token), value, tolerance)
    if mistake is None:
        return Check(False, True, generic)
    return Check(False, True, said("Not yet. {why}", why=mistake_words(mistake, problem.token)))


# --- hints and worked solutions ------------------------------------------------------------------

HINT_STEPS = ("min", "alpha", "z", "r")
_TARGET_STEP = {"alpha": 1, "z": 2, "branch": 2, "r": 3, "correction": 4, "second": 4}


def _per_token(tokens, values) -> str:
    return ", ".join(f"{t}: {fraction_text(v)}" for t, v in zip(tokens, values))


def hints(problem: Problem) -> list[str]:
    """The hint ladder min -> alpha -> Z -> r. A step gives its numbers only before the asked quantity."""
    result = problem.result
    tokens = problem.p.tokens
    target = _TARGET_STEP[problem.kind]
    ladder = []
    method = [
        said("Step 1: the accepted mass of each token is min(p(x), q(x))."),
        said("Step 2: α, the acceptance probability, is the sum of those minimums."),
        said("Step 3: Z = sum of max(0, p(x) − q(x)) = 1 − α; Z = 0 means no rejection can happen."),
        said("Step 4: when Z > 0, r(x) = max(0, p(x) − q(x)) / Z; when Z = 0, r is not defined."),
    ]
    values = [
        f"min(p, q) = {_per_token(tokens, result.accepted)}.",
        f"α = {fraction_text(result.alpha)}.",
        f"Z = {fraction_text(result.z)}.",
        (
            f"r = {_per_token(tokens, result.residual)}."
            if result.residual is not None
            else said("Z = 0, so r is not defined.")
        ),
    ]
    if problem.kind == "second":  # min, Z, r, then the second candidate's test against r
        method = [
            method[0],
            said("Step 2: Z = Σ max(0, p(x) − q(x)) = 1 − α, the probability that the first candidate is rejected."),
            said("Step 3: the rejection leaves the residual r(x) = max(0, p(x) − q(x)) / Z, over the whole "
                 "vocabulary."),
            said("Step 4: the second candidate x is tested against r, not against p: it is kept with probability "
                 "min(1, r(x) / q(x))."),
        ]
        values = [values[0], values[2], values[3], ""]
    for step in range(len(HINT_STEPS)):
        shown = step < target and values[step]
        ladder.append(said("{step} {values}", step=method[step], values=values[step]) if shown else method[step])
    return ladder


def worked_solution(problem: Problem) -> list[str]:
    """Every step with exact numbers, ending with the answer."""
    result = problem.result
    tokens = problem.p.tokens
    excess = [max(Fraction(0), a - b) for a, b in zip(problem.p.values, problem.q.values)]
    minimums = ", ".join(
        f"{t}: min({fraction_text(a)}, {fraction_text(b)}) = {fraction_text(m)}"
        for t, a, b, m in zip(tokens, problem.p.values, problem.q.values, result.accepted)
    )
    lines = [
        said("min(p, q) per token: {values}.", values=minimums),
        f"α = {' + '.join(fraction_text(m) for m in result.accepted)} = {with_decimal(result.alpha)}.",
        said("max(0, p − q) per token: {values}; Z = {z} (= 1 − α).", values=_per_token(tokens, excess),
             z=with_decimal(result.z)),
    ]
    if result.residual is None:
        lines.append(said("Z = 0: every proposal is accepted (no-rejection branch); r = 0/0 is never evaluated."))
    else:
        lines.append(said("r = max(0, p − q) / Z: {values} (sums to 1).", values=_per_token(tokens, result.residual)))
        if problem.kind == "second":
            i = tokens.index(problem.token)
            lines.append(said(
                "The second candidate {t} is tested against r, not p: min(1, r({t}) / q({t})) = min(1, {r} / {q}).",
                t=problem.token, r=fraction_text(result.residual[i]), q=fraction_text(problem.q.values[i]),
            ))
        if problem.kind == "correction":
            i = tokens.index(problem.token)
            lines.append(said(
                "Z·r({t}) = {z} * {r}; check: min + Z·r = {kept} + {correction} = {p} = p({t}).", t=problem.token,
                z=fraction_text(result.z), r=fraction_text(result.residual[i]),
                kept=fraction_text(result.accepted[i]), correction=fraction_text(result.correction[i]),
                p=fraction_text(problem.p.values[i]),
            ))
    answer = problem.answer
    lines.append(said("Answer: {answer}.", answer=with_decimal(answer) if isinstance(answer, Fraction)
                      else said("undefined") if answer == UNDEFINED else ANSWER_WORDS.get(answer, answer)))
    return lines


# the branch names and "undefined" as an answer (said in a page's language, typed in English or the page's)
ANSWER_WORDS = {REJECTION: said("rejection"), NO_REJECTION: said("no-rejection")}


# --- a student's attempt ------------------------------------------------------------------------


@dataclass
class Attempt:
    """A student's record on one problem (kept in the browser session only)."""

    answer: str = ""
    correct: bool = False
    tries: int = 0
    hints_used: int = 0

    @property
    def show_solution(self) -> bool:
        return self.correct or self.tries >= TRIES_BEFORE_SOLUTION


def record_try(attempt: Attempt, problem: Problem, text: str) -> Check:
    """Check an answer and update the attempt; unreadable input and answers after a correct one do not count."""
    check = check_answer(problem, text)
    if attempt.correct or not check.counted:
        return check
    attempt.answer = text.strip()
    attempt.tries += 1
    attempt.correct = check.correct
    return check


@dataclass(frozen=True)
class Score:
    correct: int
    attempted: int
    total: int
    first_try: int


def running_score(attempts: dict[int, Attempt], total: int) -> Score:
    done = [a for a in attempts.values() if a.tries]
    return Score(
        correct=sum(a.correct for a in done),
        attempted=len(done),
        total=total,
        first_try=sum(a.correct and a.tries == 1 for a in done),
    )


# --- predict: will the texts match? (the Sampling lab's "different text, same law") ---------------------------

TEXTS_MATCH_QUESTION = N_(
    "Ordinary sampling and speculative sampling start from the same seed. Will they write the same texts?"
)
TEXTS_MATCH_CHOICES = {  # marked for the catalogs: a page translates them where it shows them
    "same-text": N_("Yes: the same seed gives the same texts"),
    "same-law": N_("No: the texts differ, but both follow the same law"),
    "other-law": N_("No: the texts differ because speculative sampling changes the law"),
}


def texts_match_answer(identical: int, runs: int, distance: Fraction) -> str:
    """The right choice, from what was computed: whether every run's two texts matched, and the exact distance
    between the speculative law and the target's."""
    if identical == runs:
        return "same-text"
    return "same-law" if distance == 0 else "other-law"


def grade_texts_match(choice: str | None, identical: int, runs: int, distance: Fraction) -> Check:
    """Feedback on the prediction once both samplers have run (``choice`` is a key of TEXTS_MATCH_CHOICES)."""
    if choice not in TEXTS_MATCH_CHOICES:
        return Check(False, False, said("No prediction was made before the run: not graded."))
    answer = texts_match_answer(identical, runs, distance)
    share = said("{identical} of {runs} runs wrote the same text", identical=identical, runs=runs)
    if choice == answer:
        if answer == "same-law":
            return Check(True, True, said(
                "Right: {share}, yet block decoding's law is exactly the target's (distance 0).", share=share))
        return Check(True, True, said("Right: {share}.", share=share))
    if choice == "same-text":
        why = said("a seed fixes the random draws, but the two samplers spend them differently")
    else:
        why = said("the law is exactly the target's (distance 0); only the texts differ")
    return Check(False, True, said("Not quite: {share}; {why}.", share=share, why=why))
