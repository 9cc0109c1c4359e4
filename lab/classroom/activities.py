"""What a live class works on: prediction activities and Exercises assignments, with their exact answers
and the dashboard's aggregates. Pure Python (no database, no Streamlit): the class store's rooms
(lab.classroom.classes, answers, dashboards, ...) keep the rows, this module turns them into figures. Exact
answers come from the core (residual_exact, through lab.teaching.class_question), never from a page.

Two kinds of activity:

- ``predict``: predict the bars. Either the worked example (the residual's two positive bars r(B), r(C) of
  the ``bernoulli-residual`` scenario; A has zero residual mass), any one-step scenario with Z > 0 (predict
  r for every token and Z), or such a scenario's p₂ (the target the second of two candidates is tested
  against, for every token). What a class screen shows before and after the reveal comes from
  :mod:`lab.teaching.class_question`.
- ``assignment``: an Exercises assignment (seed, level, count), each answer checked exactly as the Exercises
  page checks it (:func:`lab.teaching.exercises.record_try`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from lab.core.distributions import LabInputError
from lab.core.errors import SaidList, said, said_of
from lab.core.formatting import share_words
from lab.core.numbers import NumberInputError, NumberLimitError, parse_number
from lab.core.residual import residual_exact
from lab.core.scenarios import load_scenario, scenario_names
from lab.teaching.class_question import (
    SECOND,
    SYMBOLS,
    WORKED_EXAMPLE,
    ClassAnswer,
    ClassQuestion,
    ClassQuestionError,
    class_answer,
    class_question,
    scenario_of,
    second_target,
)
from lab.teaching.exercises import (
    Attempt,
    ExerciseInputError,
    Problem,
    generate_problems,
    parse_count,
    parse_level,
    parse_seed,
    record_try,
)
from lab.teaching.mistakes import MISTAKES, TARGET2, AnswerMistake, Field, R, Z, matching_mistakes, wrong_patterns

PREDICT, ASSIGNMENT = "predict", "assignment"
CLOSE = Fraction(1, 20)  # "within 0.05 of the exact answer" (inclusive)
MAX_ANSWER_CHARS = 100


class ActivityError(LabInputError):
    """An activity or an answer that cannot be used (the message names the field and the problem)."""


# --- prediction activities ------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictSpec:
    """Predict r per token (and Z when ``ask_z``): the exact answers and the wrong patterns to look for."""

    source: str  # WORKED_EXAMPLE or a scenario name
    title: str
    prompt: str
    tokens: tuple[str, ...]  # the bars the students predict
    p: tuple[Fraction, ...]  # target p of those tokens (from the scenario)
    q: tuple[Fraction, ...]
    truth: tuple[Fraction, ...]  # exact bar heights
    z: Fraction  # the scenario's rejection probability
    alpha: Fraction
    ask_z: bool

    @property
    def fields(self) -> tuple[str, ...]:
        """The names of the predicted values, in submission order: r(B), r(C) (and Z); p₂(A), p₂(B), … for p₂."""
        return self.question.fields

    @property
    def symbol(self) -> str:
        """What the predicted bars are called: r, or p₂ (the second candidate's target)."""
        return SYMBOLS[self.question.quantity]

    @property
    def question(self) -> ClassQuestion:
        """What every class screen shows before the reveal (p and q over the whole vocabulary, the prompt)."""
        return class_question(self.source)

    @property
    def answer(self) -> ClassAnswer:
        """What a class screen shows after the reveal (exact values, Z, the reconstruction, the lab's setting)."""
        return class_answer(self.source)

    @property
    def exact(self) -> tuple[Fraction, ...]:
        return self.truth + ((self.z,) if self.ask_z else ())

    @property
    def scenario(self) -> str:
        """The scenario behind the bars (the worked example's bars are two tokens of its scenario)."""
        return self.question.scenario

    @cached_property
    def wrong_patterns(self) -> dict[str, dict[int, Fraction]]:
        """Mistake key -> {field index: the value the mistake gives}, from the one home of the mistakes
        (lab.teaching.mistakes). Only the fields the mistake changes are compared, and a pattern is kept only
        when it differs from the exact answer by more than 0.05 somewhere (so a match is evidence of it)."""
        scenario = scenario_of(self.source)  # a shipped scenario, or the teacher's own question
        result = residual_exact(scenario.p, scenario.q)
        quantity = TARGET2 if self.question.quantity == SECOND else R
        fields = [Field(quantity, t) for t in self.tokens] + ([Field(Z)] if self.ask_z else [])
        return wrong_patterns(result, fields, CLOSE, bars=self.tokens)

    def patterns(self) -> dict[str, dict[int, Fraction]]:
        """The wrong patterns by their dashboard names."""
        return {MISTAKES[key].name: values for key, values in self.wrong_patterns.items()}

    def diagnose(self, values: tuple[Fraction, ...]) -> tuple[AnswerMistake, ...]:
        """The mistakes one submission matches within 0.05 (none when it is within 0.05 everywhere)."""
        if _close(values, self.exact):
            return ()
        return matching_mistakes(self.wrong_patterns, values, CLOSE)


def scenario_choices() -> list[str]:
    """One-step scenarios that have residual bars to predict (Z > 0)."""
    names = []
    for name in scenario_names():
        scenario = load_scenario(name)
        if residual_exact(scenario.p, scenario.q).z > 0:
            names.append(name)
    return names


def source_choices() -> list[str]:
    """Every source a teacher can open: the worked example, each scenario's r, then each scenario's p₂ (the second
    of two candidates' target; it exists where r does)."""
    names = scenario_choices()
    return [WORKED_EXAMPLE, *names, *(second_target(name) for name in names)]


def predict_spec(source: str) -> PredictSpec:
    """The activity's question and exact answers, from the one builder every class screen draws from
    (:mod:`lab.teaching.class_question`)."""
    try:
        question, answer = class_question(source), class_answer(source)
    except ClassQuestionError as exc:
        raise ActivityError(said_of(exc)) from None
    # one spec per question and answer (each made once per source and scenario version): every page of a class reads
    # its activity at the same moment, and a spec keeps what it works out (cached_property)
    made = _predict_specs.get(source)
    if made is not None and made[0] is question and made[1] is answer:
        return made[2]
    spec = _predict_spec(source, question, answer)
    if len(_predict_specs) >= 256:
        _predict_specs.clear()
    _predict_specs[source] = (question, answer, spec)
    return spec


_predict_specs: dict[str, tuple] = {}


def _predict_spec(source: str, question, answer) -> PredictSpec:
    index = [question.tokens.index(t) for t in question.asked]
    return PredictSpec(
        source,
        question.title,
        question.prompt,
        question.asked,
        tuple(question.p[i] for i in index),
        tuple(question.q[i] for i in index),
        tuple(answer.residual[i] for i in index),
        answer.z,
        answer.alpha,
        ask_z=question.ask_z,
    )


def parse_prediction(spec: PredictSpec, values, *, decimal_comma: bool = False) -> tuple[Fraction, ...]:
    """A student's predicted values: one number from 0 to 1 for each field, read exactly from its decimal
    (``decimal_comma``: the student's page writes 0,25, read as 0.25 is)."""
    values = list(values)
    if len(values) != len(spec.fields):
        raise ActivityError(said(
            "{count} values for {fields} fields ({names})",
            count=len(values), fields=len(spec.fields), names=", ".join(spec.fields),
        ))
    parsed = []
    for field, value in zip(spec.fields, values):
        if isinstance(value, bool) or value is None:
            raise ActivityError(said("{field}: {value} is not a number", field=field, value=repr(value)))
        try:  # the one reader of numbers, with its limits (a float is read from its shortest decimal, repr)
            number = parse_number(value, field, allow_decimal_comma=decimal_comma)
        except NumberLimitError as exc:
            raise ActivityError(said_of(exc)) from None
        except NumberInputError:
            raise ActivityError(
                said("{field}: {value} is not a number", field=field, value=repr(str(value)[:20]))
            ) from None
        if not 0 <= number <= 1:
            raise ActivityError(said(
                "{field}: {value} is outside 0 to 1 (a probability)", field=field, value=f"{float(number):g}"
            ))
        parsed.append(number)
    return tuple(parsed)


def encode_prediction(values: tuple[Fraction, ...]) -> str:
    return json.dumps([f"{v.numerator}/{v.denominator}" for v in values])


@lru_cache(maxsize=4096)  # every page of a class reads its student's at once, and predictions repeat (steps of 0.05)
def decode_prediction(text: str) -> tuple[Fraction, ...]:
    """A saved prediction (encode_prediction's fractions), read by the one reader of numbers."""
    return tuple(parse_number(v, "a saved prediction") for v in json.loads(text))


@dataclass(frozen=True)
class PredictSummary:
    fields: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]  # per field: every submitted value (for the strip chart)
    means: tuple[float | None, ...]
    exact: tuple[Fraction, ...]
    close_share: tuple[Fraction | None, ...]  # per field: share of submissions within 0.05 of exact
    all_close_share: Fraction | None  # share of submissions with every field within 0.05
    pattern: str | None  # most common wrong pattern among the other submissions
    pattern_count: int
    submitted: int
    looked_for: tuple[str, ...] = ()  # the wrong patterns searched for (their dashboard names)

    def close_sentence(self) -> str:
        """How close the class came, in plain words: "Half the class got both bars within 0.05 of the exact
        answer; bar B: all, bar C: half." (shares of the submissions)."""
        n = self.submitted
        every = round(self.all_close_share * n) if self.all_close_share is not None else 0
        values = "Z" in self.fields
        if len(self.fields) == 2:
            what = said("both values") if values else said("both bars")
        else:
            count = len(self.fields)
            what = said("all {count} values", count=count) if values else said("all {count} bars", count=count)
        per_field = SaidList(
            said("{field}: {share}", field=field, share=share_words(round(share * n), n))
            for field, share in zip(self.fields, self.close_share)
            if share is not None
        )
        return said(
            "{subject} got {what} within 0.05 of the exact answer; {fields}.",
            subject=share_words(every, n, opening=True), what=what, fields=per_field,
        )


def _close(values, exact) -> bool:
    return all(abs(v - e) <= CLOSE for v, e in zip(values, exact))


def summarize_predictions(spec: PredictSpec, predictions: list[tuple[Fraction, ...]]) -> PredictSummary:
    exact = spec.exact
    n = len(predictions)
    columns = tuple(tuple(float(p[i]) for p in predictions) for i in range(len(exact)))
    means = tuple((sum(c) / n) if n else None for c in columns)
    close_share = tuple(
        Fraction(sum(abs(p[i] - exact[i]) <= CLOSE for p in predictions), n) if n else None for i in range(len(exact))
    )
    all_close = [p for p in predictions if _close(p, exact)]
    # each distinct prediction diagnosed once (predictions come in steps of 0.05: a class repeats many of them)
    counts: Counter[str] = Counter()
    for prediction, times in Counter(predictions).items():
        for mistake in spec.diagnose(prediction):
            counts[mistake.name] += times
    top = counts.most_common(1)
    return PredictSummary(
        spec.fields,
        columns,
        means,
        exact,
        close_share,
        Fraction(len(all_close), n) if n else None,
        top[0][0] if top else None,
        top[0][1] if top else 0,
        n,
        tuple(spec.patterns()),
    )


@dataclass(frozen=True)
class RoundChange:
    """Peer instruction: how the students who voted in two rounds of a question changed their predictions."""

    both: int  # students with a prediction in both rounds
    toward: int  # closer to the exact answer in the later round (sum over the fields of |prediction − exact|)
    away: int  # farther from it
    same: int  # as far as before (their prediction may still have changed)


def distance_to_exact(spec: PredictSpec, prediction: tuple[Fraction, ...]) -> Fraction:
    """How far a prediction is from the exact answer: the sum over its fields of |value − exact| (exact)."""
    return sum((abs(v - e) for v, e in zip(prediction, spec.exact)), Fraction(0))


def compare_rounds(spec: PredictSpec, pairs: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]) -> RoundChange:
    """``pairs``: (earlier, later) prediction of each student who voted in both rounds."""
    toward = away = 0
    for earlier, later in pairs:
        before, after = distance_to_exact(spec, earlier), distance_to_exact(spec, later)
        toward += after < before
        away += after > before
    return RoundChange(len(pairs), toward, away, len(pairs) - toward - away)


# --- assignments --------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssignmentSpec:
    seed: int
    level: str
    count: int

    @property
    def problems(self) -> list[Problem]:
        return generate_problems(self.seed, self.count, self.level)

    @property
    def title(self) -> str:
        return said(
            "Exercises: {count} problems, level {level}, seed {seed}",
            count=self.count, level=self.level, seed=self.seed,
        )


def assignment_spec(seed, level, count) -> AssignmentSpec:
    try:
        return AssignmentSpec(parse_seed(seed), parse_level(level), parse_count(count))
    except ExerciseInputError as exc:
        raise ActivityError(said_of(exc)) from None


def check_assignment_answer(attempt: Attempt, problem: Problem, text: str):
    """The Exercises page's own check (record_try): returns the Check; ``attempt`` is updated in place."""
    text = str(text)
    if len(text) > MAX_ANSWER_CHARS:
        raise ActivityError(said(
            "answer to problem {number}: longer than {most} characters", number=problem.number, most=MAX_ANSWER_CHARS
        ))
    if not text.strip():
        raise ActivityError(said("answer to problem {number}: type an answer first", number=problem.number))
    return record_try(attempt, problem, text)


@dataclass(frozen=True)
class AssignmentSummary:
    rows: tuple[dict, ...]  # per student: name, score, tries per problem
    success: tuple[Fraction | None, ...]  # per problem: share of joined students who solved it
    submitted: int


def summarize_assignment(spec: AssignmentSpec, students: list[tuple[str, dict[int, Attempt]]]) -> AssignmentSummary:
    rows = []
    solved = [0] * spec.count
    for name, attempts in students:
        row = {"student": name, "score": sum(a.correct for a in attempts.values())}
        for number in range(1, spec.count + 1):
            attempt = attempts.get(number)
            row[f"P{number} tries"] = attempt.tries if attempt else 0
            if attempt and attempt.correct:
                solved[number - 1] += 1
        rows.append(row)
    n = len(students)
    return AssignmentSummary(
        tuple(rows),
        tuple(Fraction(s, n) if n else None for s in solved),
        sum(1 for _, attempts in students if any(a.tries for a in attempts.values())),
    )


# --- activity parameters as stored -----------------------------------------------------------------


def encode_params(kind: str, params: dict) -> str:
    """Validate an activity's parameters and return them as stored (JSON)."""
    if kind == PREDICT:
        predict_spec(str(params.get("source", WORKED_EXAMPLE)))
        return json.dumps({"source": str(params.get("source", WORKED_EXAMPLE))})
    if kind == ASSIGNMENT:
        spec = assignment_spec(params.get("seed"), params.get("level"), params.get("count"))
        return json.dumps({"seed": spec.seed, "level": spec.level, "count": spec.count})
    raise ActivityError(f"activity kind {kind!r} is not one of {PREDICT}, {ASSIGNMENT}")


def spec_of(kind: str, params_json: str) -> PredictSpec | AssignmentSpec:
    params = json.loads(params_json)
    if kind == PREDICT:
        return predict_spec(params["source"])
    return assignment_spec(params["seed"], params["level"], params["count"])
