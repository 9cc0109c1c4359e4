"""What a class screen shows for a predict-the-bars activity: the question before the teacher's reveal, the
answer after it. Pure Python (no Streamlit); every class screen (the students' pages, the teacher's dashboard,
the projector view) draws from :func:`class_question` and :func:`class_answer`, so none of them can show more
before the reveal than the others.

The question holds only what the class predicts from: the scenario's whole vocabulary with its target p and
draft q (exact values, for a chart and a table), the bars to predict and, for the worked example, the tokens
outside the prediction (A has zero residual mass, and the question says so). Nothing in it states r, Z, α,
the reconstruction, the explanation or the Binomial lab's setting: those are in the answer.

The worked example asks for the residual bars r(B), r(C) of ``bernoulli-residual``; after the reveal it names
them as the Binomial lab's bars at lab success p = 0.75, n = 1 (with that lab's link parameters).

A source ``second-target:<scenario>`` asks, with two candidates drawn from q (with replacement), for p₂: the target
the second candidate is tested against when the first is rejected. Its answer is the residual the first rejection
left over the whole vocabulary, and the reconstruction kept at candidate 1 + kept at candidate 2 + correction = p
comes from the several-drafts engine (lab.core.drafts.node_law).

A source ``own:<JSON>`` is a teacher's own question (:func:`own_question`): a title, and tokens with target p and
draft q as the Residual explorer takes them (its checks: lab.core.token_table); the class predicts r for every
token and Z, as for a scenario.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lab.core.distributions import LabInputError
from lab.core.drafts import DraftsInputError, node_law
from lab.core.errors import Said, said, said_of
from lab.core.formatting import fraction_text, with_decimal
from lab.core.numbers import shown
from lab.core.residual import residual_exact
from lab.core.scenarios import Scenario, ScenarioError, load_scenario, stated_answer
from lab.core.token_table import TableInputError, decode_table, encode_table, parse_rows
from lab.i18n import N_
from lab.teaching.worked_example import (
    WORKED_EXAMPLE_LAB_P,
    WORKED_EXAMPLE_N,
    WORKED_EXAMPLE_SCENARIO,
    display_values,
    lab_result,
    outcome_labels,
)

WORKED_EXAMPLE = "worked-example"  # an activity's source: the worked example, a scenario's name, or SECOND_TARGET + one
SECOND_TARGET = "second-target:"  # "second-target:pet-words": predict p₂, the second candidate's target
RESIDUAL = "r"  # what a question asks per token: the residual r, or SECOND (p₂)
SECOND = "second-target"
SYMBOLS = {RESIDUAL: "r", SECOND: "p₂"}
RESIDUAL_FORMULA = "r(x) = max(0, p(x) − q(x)) / Z"


OWN = "own:"  # "own:" + the JSON of a teacher's question (own_question)
MAX_TITLE = 80  # a teacher's question's title
OWN_PATH = Path("your-own-question")  # (a scenario's file: a teacher's question has none)
MAX_OWN_SOURCE = 2000  # the longest stored form of one (26 tokens of long names and fractions fit)


def own_question(title: str, tokens: str, p: str, q: str) -> str:
    """The source of a teacher's own question: ``tokens``, ``p`` and ``q`` as comma lists ("A, B, C" and "1/10,
    3/5, 3/10"), checked as the Residual explorer checks its table (every message names the token or the row), with
    Z > 0 (else there is no residual to predict); ``title`` at most MAX_TITLE characters, stating no part of the
    answer. Raises ClassQuestionError. The source holds the values in their exact lowest terms."""
    return _checked_question(title, tokens, p, q)[0]


def _checked_question(title: str, tokens: str, p: str, q: str):
    """own_question's checks: (the source, target p, draft q)."""
    title = " ".join(str(title or "").split())
    if len(title) > MAX_TITLE:
        raise ClassQuestionError(
            said("Title: at most {most} characters (it has {count}).", most=MAX_TITLE, count=len(title))
        )
    if title.startswith(("=", "+", "-", "@")):  # a spreadsheet would run it from the results file
        raise ClassQuestionError(said(
            "Title: {value} would run as a spreadsheet formula; start with a letter.", value=shown(title[:20])
        ))
    try:
        dist_p, dist_q = parse_rows(decode_table(tokens, p, q, where="your question"))
    except TableInputError as exc:  # the explorer's words, without its Normalise buttons (this form has none)
        message = said_of(exc)
        if re.search(_NORMALISE, message):
            message = re.sub(_NORMALISE, "", message)
        raise ClassQuestionError(message) from None
    if residual_exact(dist_p, dist_q).z == 0:
        raise ClassQuestionError(said(
            "your question: p and q are equal, so no proposal is ever rejected (Z = 0): there is no residual to "
            "predict. Change p or q."
        ))
    if title and (stated := stated_answer(title, dist_p, dist_q)):
        raise ClassQuestionError(
            said("Title: {value} states part of the answer; the class predicts it.", value=shown(stated))
        )
    table = encode_table(dist_p, dist_q)
    return OWN + json.dumps({"title": title, **table}, ensure_ascii=False, separators=(",", ":")), dist_p, dist_q


_NORMALISE = (
    r"( or press Normalise [pq] to divide every value by the sum|; Normalise [pq] divides every value by their sum)"
)


def own_fields(source: str) -> dict[str, str]:
    """The title, tokens, p and q of a teacher's question's source (as own_question stores them)."""
    if not source.startswith(OWN) or len(source) > MAX_OWN_SOURCE:
        raise ClassQuestionError(said("this is not a question written for the class"))
    try:
        data = json.loads(source[len(OWN):])
    except ValueError:
        raise ClassQuestionError(UNREADABLE) from None
    if not isinstance(data, dict) or set(data) != {"title", "tokens", "p", "q"}:
        raise ClassQuestionError(UNREADABLE)
    if not all(isinstance(v, str) for v in data.values()):
        raise ClassQuestionError(UNREADABLE)
    return data


UNREADABLE = said("this question is unreadable")


@lru_cache(maxsize=256)
def _own_scenario(source: str) -> Scenario:
    """A teacher's question as a scenario (checked again: a stored source is read as typed input)."""
    data = own_fields(source)
    checked, dist_p, dist_q = _checked_question(data["title"], data["tokens"], data["p"], data["q"])
    if checked != source:  # not as own_question wrote it
        raise ClassQuestionError(UNREADABLE)
    return Scenario("your own question", data["title"] or said("your own question"), "", "", dist_p, dist_q, OWN_PATH)


def second_target(scenario: str) -> str:
    """The source that asks for p₂ in ``scenario``."""
    return SECOND_TARGET + scenario


def _split(source: str) -> tuple[str, str]:
    """(what is asked, the scenario's name) of a source."""
    if source.startswith(SECOND_TARGET):
        return SECOND, source[len(SECOND_TARGET):]
    return RESIDUAL, source


class ClassQuestionError(LabInputError):
    """A source that is no question: an unknown scenario, or one with Z = 0 (no residual bars)."""


@dataclass(frozen=True)
class ClassQuestion:
    """Before the reveal. ``tokens``/``p``/``q`` are the scenario's whole vocabulary (the chart and the table);
    ``asked`` the tokens whose r the class predicts; ``not_asked`` the others (each has zero residual mass)."""

    source: str
    scenario: str
    title: str
    prompt: str
    tokens: tuple[str, ...]
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    asked: tuple[str, ...]
    not_asked: tuple[str, ...]
    ask_z: bool
    quantity: str = RESIDUAL  # what is asked per token: RESIDUAL (r) or SECOND (p₂)

    @property
    def fields(self) -> tuple[str, ...]:
        """The predicted values' names, in submission order: r(B), r(C) (and Z); p₂(A), p₂(B), … for SECOND."""
        symbol = SYMBOLS[self.quantity]
        return tuple(f"{symbol}({t})" for t in self.asked) + (("Z",) if self.ask_z else ())

    def pq_rows(self) -> list[tuple[str, str, str]]:
        """(token, p, q) per token, exact: ``3/5 (0.6)``."""
        return [(t, with_decimal(a, 3), with_decimal(b, 3)) for t, a, b in zip(self.tokens, self.p, self.q)]

    def pq_alt(self) -> str:
        """The p / q chart's alt text: every value, exact."""
        values = "; ".join(
            f"{t}: p {fraction_text(a)}, q {fraction_text(b)}" for t, a, b in zip(self.tokens, self.p, self.q)
        )
        return said("Bar chart of target p and draft q per token: {values}", values=values)


@dataclass(frozen=True)
class ReconstructionRow:
    HEADER = (N_("token"), "min(p, q)", "r", "Z·r", "min(p, q) + Z·r", "p")
    SUM = "min(p, q) + Z·r"

    token: str
    accepted: Fraction  # min(p, q)
    r: Fraction
    correction: Fraction  # Z·r
    total: Fraction  # min(p, q) + Z·r
    p: Fraction

    def values(self) -> tuple[Fraction, ...]:
        return (self.accepted, self.r, self.correction, self.total, self.p)


@dataclass(frozen=True)
class StagesRow:
    """Two candidates: the output's probability per token, split by how it came out."""

    HEADER = (N_("token"), N_("kept at candidate 1"), N_("kept at candidate 2"), N_("correction"), N_("sum"), "p")
    SUM = N_("kept at candidate 1 + kept at candidate 2 + correction")

    token: str
    first: Fraction  # kept as the first candidate: min(p, q)
    second: Fraction  # kept as the second: Z·min(p₂, q)
    correction: Fraction  # drawn by the correction after both were rejected
    total: Fraction
    p: Fraction

    def values(self) -> tuple[Fraction, ...]:
        return (self.first, self.second, self.correction, self.total, self.p)


@dataclass(frozen=True)
class LabLink:
    """the Binomial lab's setting that shows the same bars: its page and link parameters."""

    page: str  # the page's url path (the app's list of pages knows which page it is)
    params: dict
    text: str


@dataclass(frozen=True)
class ClassAnswer:
    """After the reveal: the exact values of the fields (``exact``, in ``fields`` order), Z and α, r over the
    whole vocabulary, the reconstruction min(p, q) + Z·r = p per token, the scenario's explanation, and for the
    worked example the Binomial lab's setting with the same bars."""

    fields: tuple[str, ...]
    exact: tuple[Fraction, ...]
    z: Fraction
    alpha: Fraction
    tokens: tuple[str, ...]
    residual: tuple[Fraction, ...]
    rows: tuple[ReconstructionRow, ...] | tuple[StagesRow, ...]
    explanation: str
    lab_link: LabLink | None
    kept: Fraction | None = None  # SECOND: the probability that one of the two candidates is kept

    def exact_lines(self, decimal_comma: bool = False) -> list[Said]:
        """``r(B) = 3/4 (0.75)`` per field, then Z and α (plain text, no markdown); for p₂, then the probability that
        a candidate is kept (``decimal_comma``: ``0,75``)."""

        def number(value) -> str:
            return with_decimal(value, 3, decimal_comma=decimal_comma)

        lines = [
            said("{field} = {value}", field=f, value=number(e)) for f, e in zip(self.fields, self.exact) if f != "Z"
        ]
        alpha = number(self.alpha)
        if self.kept is None:
            lines.append(said(
                "Z = {z}, the rejection probability (1 − α, with α = {alpha})", z=number(self.z), alpha=alpha
            ))
        else:
            lines.append(said(
                "p₂ is the residual r = max(0, p − q) / Z the first rejection left, with "
                "Z = {z} (the first candidate is kept with probability α = {alpha})", z=number(self.z), alpha=alpha,
            ))
            lines.append(
                said("one of the two candidates is kept with probability {value}", value=number(self.kept))
            )
        return lines

    @property
    def sum_words(self) -> str:
        """What the reconstruction adds up: ``min(p, q) + Z·r``."""
        return self.rows[0].SUM

    def reconstruction_header(self) -> tuple[str, ...]:
        return self.rows[0].HEADER

    def reconstruction_cells(self) -> list[tuple[str, ...]]:
        return [(row.token, *(fraction_text(v) for v in row.values())) for row in self.rows]

    @property
    def recovers_target(self) -> bool:
        return all(row.total == row.p for row in self.rows)


def scenario_of(source: str) -> Scenario:
    """The scenario a source asks about: a shipped one, or a teacher's own question."""
    return _scenario_of(_split(source)[1])


def _scenario_of(source: str):
    if source.startswith(OWN):
        return _own_scenario(source)
    name = WORKED_EXAMPLE_SCENARIO if source == WORKED_EXAMPLE else source
    try:
        return load_scenario(name)  # cached per file version: an edited file shows at once
    except ScenarioError as exc:
        raise ClassQuestionError(said("scenario: {problem}", problem=said_of(exc))) from None


def _result(scenario):
    result = residual_exact(scenario.p, scenario.q)
    if result.residual is None:
        raise ClassQuestionError(said(
            "scenario {name}: Z = 0 here, so there are no residual bars to predict", name=repr(scenario.name)
        ))
    return result


def class_question(source: str) -> ClassQuestion:
    """The question for ``source`` (WORKED_EXAMPLE, a one-step scenario with Z > 0, or SECOND_TARGET + one)."""
    return _question(source, _scenario_of(_split(source)[1]))


def class_answer(source: str) -> ClassAnswer:
    """The answer for ``source``: only for a screen after the teacher's reveal."""
    return _answer(source, _scenario_of(_split(source)[1]))


@lru_cache(maxsize=256)  # every student's page asks on every run: built once per source and scenario version
def _question(source: str, scenario) -> ClassQuestion:
    result = _result(scenario)
    if source == WORKED_EXAMPLE:
        asked = outcome_labels(WORKED_EXAMPLE_N)  # ("B", "C"): the residual's two positive bars
        not_asked = tuple(t for t in result.tokens if t not in asked)
        zero = "; ".join(f"p({t}) = {fraction_text(a)} < q({t}) = {fraction_text(b)}"
                         for t, a, b in zip(result.tokens, result.p, result.q) if t in not_asked)
        return ClassQuestion(
            source,
            scenario.name,
            said("Worked example: the residual's two bars"),
            said(
                "Target p and draft q over A, B and C are in the bar chart. Predict the residual "
                "{formula} for B and C. A has zero residual mass ({zero}), so A is not asked.",
                formula=RESIDUAL_FORMULA, zero=zero,
            ),
            result.tokens,
            tuple(result.p),
            tuple(result.q),
            asked,
            not_asked,
            ask_z=False,
        )
    if _split(source)[0] == SECOND:
        return ClassQuestion(
            source,
            scenario.name,
            said("Two drafts: what the second candidate is tested against ({title})", title=_title(scenario)),
            said(
                "Target p and draft q are in the bar chart. Two candidates are drawn from q, each a fresh draw. The "
                "first is kept with probability min(1, p/q); if it is rejected, the second candidate is tested the "
                "same way, but against a new target p₂ instead of p. Predict p₂ for every token."
            ),
            result.tokens,
            tuple(result.p),
            tuple(result.q),
            result.tokens,
            (),
            ask_z=False,
            quantity=SECOND,
        )
    return ClassQuestion(
        source,
        scenario.name,
        said("Your teacher's question: {title}", title=scenario.title)
        if source.startswith(OWN)
        else said("Scenario: {title}", title=_title(scenario)),
        said(
            "Target p and draft q are in the bar chart. Predict the residual {formula} for every token, "
            "and the rejection probability Z.", formula=RESIDUAL_FORMULA,
        ),
        result.tokens,
        tuple(result.p),
        tuple(result.q),
        result.tokens,
        (),
        ask_z=True,
    )


def _title(scenario) -> Said:
    """A shipped scenario's title, said in the page's language (lab.i18n.update extracts it from its file)."""
    return Said(scenario.title)


@lru_cache(maxsize=256)
def _answer(source: str, scenario) -> ClassAnswer:
    question = _question(source, scenario)
    result = _result(scenario)
    residual = tuple(result.residual)
    if question.quantity == SECOND:
        return _second_answer(question, result)
    exact = tuple(residual[result.tokens.index(t)] for t in question.asked)
    if question.ask_z:
        exact += (result.z,)
    rows = tuple(
        ReconstructionRow(t, a, r, c, total, target)
        for t, a, r, c, total, target in zip(
            result.tokens, result.accepted, residual, result.correction, result.reconstruction, result.p
        )
    )
    link = None
    if source == WORKED_EXAMPLE:
        lab_bars = display_values(lab_result(WORKED_EXAMPLE_LAB_P, WORKED_EXAMPLE_N))
        if tuple(lab_bars) == exact:  # the claim the answer makes, checked from the lab's own computation
            link = LabLink(
                "binomial-lab",
                {"lab_p": f"{float(WORKED_EXAMPLE_LAB_P):.2f}", "n": str(WORKED_EXAMPLE_N)},
                said(
                    "the same bars as the Binomial lab at lab success p = {lab_p}, n = {n} (its parameter, not the "
                    "target p: B = success, C = failure)",
                    lab_p=f"{float(WORKED_EXAMPLE_LAB_P):.2f}", n=WORKED_EXAMPLE_N,
                ),
            )
    return ClassAnswer(
        question.fields,
        exact,
        result.z,
        result.alpha,
        result.tokens,
        residual,
        rows,
        Said(scenario.explanation) if scenario.explanation and scenario.path != OWN_PATH else scenario.explanation,
        link,
    )


def _second_answer(question: ClassQuestion, result) -> ClassAnswer:
    """p₂ with two candidates drawn with replacement: the stage the engine reaches after the first rejection."""
    try:  # bounded work (lab.core.drafts): a scenario file too large for two candidates is refused by name
        law = node_law(result.p, result.q, 2, "with-replacement")
    except DraftsInputError as exc:
        raise ClassQuestionError(
            said("scenario {name}: {problem}", name=repr(question.scenario), problem=said_of(exc))
        ) from None
    second = next(stage for stage in law.stages if stage.position == 2)
    first, kept_second = law.kept_by_position
    rows = tuple(
        StagesRow(t, a, b, c, total, target)
        for t, a, b, c, total, target in zip(result.tokens, first, kept_second, law.corrected, law.law, result.p)
    )
    sentence = said(
        "Where q covers p, the first candidate already gives each token its share min(p, q). What a rejection leaves "
        "of p is max(0, p − q), of total mass Z = {z}, and the second candidate is tested against it, normalised: "
        "p₂ = max(0, p − q) / Z, the residual. It is over the whole vocabulary, not only over the tokens that were "
        "drawn.", z=fraction_text(result.z),
    )
    return ClassAnswer(
        question.fields,
        tuple(second.p),
        result.z,
        result.alpha,
        result.tokens,
        tuple(second.p),
        rows,
        sentence,
        None,
        kept=law.acceptance,
    )
