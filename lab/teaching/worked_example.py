"""The binomial lab's display and the guided worked example (no Streamlit here).

The worked example: start clean (Reset); set lab success p = 0.75 and n = 1; predict the bars, which are the
residual's r(B) and r(C); Reveal; type Z·r(B) and Z·r(C), the bars times the separately calculated rejection
probability Z (2/5, from the ``bernoulli-residual`` scenario); then add the accepted masses min(p, q):
A 1/10, B 3/5, C 3/10. "lab success p" is the lab's own parameter (each trial's success probability), not the
scenario's target p.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from lab.core.binomial import FAILURE_TOKEN, SUCCESS_TOKEN, BinomialResult, binomial_exact, parse_success_probability
from lab.core.distance import total_variation
from lab.core.distributions import to_fraction
from lab.core.errors import said, said_of
from lab.core.formatting import fraction_text
from lab.core.numbers import NumberInputError, parse_number, shown
from lab.core.residual import ResidualResult, residual_exact
from lab.core.scenarios import load_scenario

WORKED_EXAMPLE_SCENARIO = "bernoulli-residual"
WORKED_EXAMPLE_LAB_P = Fraction(3, 4)
WORKED_EXAMPLE_N = 1
DEFAULT_LAB_P = Fraction(1, 2)
DEFAULT_N = 5  # six bars: quick to predict by hand


@lru_cache(maxsize=1024)  # the lab and its guide ask for it several times a run; equal inputs are the same value
def lab_result(lab_p, n) -> BinomialResult:
    """Binomial(n, lab success p) computed exactly from the decimal shown (0.75 is 3/4)."""
    return binomial_exact(n, parse_success_probability(to_fraction(lab_p)))


def outcome_labels(n: int) -> tuple[str, ...]:
    """Chart categories: ``B`` (success) and ``C`` (failure) for n = 1, else ``0`` .. ``n`` successes."""
    if n == 1:
        return (SUCCESS_TOKEN, FAILURE_TOKEN)
    return tuple(str(k) for k in range(n + 1))


def bar_names(lab_p, n: int) -> tuple[str, ...]:
    """The bars' names on the chart and in the table: at the worked example (lab success p = 0.75, n = 1) they are
    the residual's bars r(B) and r(C); otherwise :func:`outcome_labels`."""
    if n == WORKED_EXAMPLE_N and to_fraction(lab_p) == WORKED_EXAMPLE_LAB_P:
        return tuple(f"r({t})" for t in outcome_labels(n))
    return outcome_labels(n)


def display_values(result: BinomialResult) -> tuple:
    """Bar heights in :func:`outcome_labels` order (B then C when n = 1)."""
    if result.n == 1:
        bars = result.bernoulli_bars()
        return (bars[SUCCESS_TOKEN], bars[FAILURE_TOKEN])
    return tuple(result.pmf)


def prediction_bars(n: int) -> tuple[str, ...]:
    """The predicted bars' names: ``B``, ``C`` for n = 1, else ``P(k)``."""
    return outcome_labels(1) if n == 1 else tuple(f"P({k})" for k in range(n + 1))


def prediction_labels(n: int) -> tuple[str, ...]:
    """The prediction controls' labels: ``Predict B``/``Predict C`` for n = 1, else ``Predict P(k)`` (each a
    :class:`~lab.core.errors.Said`: a page says it in its language)."""
    return tuple(said("Predict {bar}", bar=bar) for bar in prediction_bars(n))


def prediction_distance(prediction: Sequence, truth: Sequence) -> Fraction:
    """Total variation distance (half the L1 distance) between predicted and exact bars."""
    return total_variation([to_fraction(a) for a in prediction], [Fraction(b) for b in truth])


@dataclass(frozen=True)
class WorkedRow:
    token: str
    accepted: Fraction  # min(p, q) from the scenario
    displayed: Fraction  # the lab's bar (0 for A, which is outside the two-outcome display)
    in_display: bool
    correction: Fraction  # Z * displayed
    total: Fraction  # accepted + Z * displayed
    target: Fraction  # the scenario's p


@dataclass(frozen=True)
class WorkedSum:
    z: Fraction
    alpha: Fraction
    rows: tuple[WorkedRow, ...]
    scenario: ResidualResult

    @property
    def recovers_target(self) -> bool:
        return all(row.total == row.target for row in self.rows)

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(row.token for row in self.rows)


def worked_sum(displayed: Mapping[str, Fraction], scenario_name: str = WORKED_EXAMPLE_SCENARIO) -> WorkedSum:
    """Multiply the lab's displayed probabilities by the scenario's Z and add its accepted masses.

    ``displayed`` maps token -> the lab's bar (``{"B": 3/4, "C": 1/4}``); tokens of the scenario
    outside the display contribute 0 correction (in the worked example A has zero residual mass).
    """
    scenario = load_scenario(scenario_name)
    result = residual_exact(scenario.p, scenario.q)
    rows = []
    for i, token in enumerate(result.tokens):
        shown = Fraction(displayed.get(token, 0))
        correction = result.z * shown
        total = result.accepted[i] + correction
        rows.append(WorkedRow(token, result.accepted[i], shown, token in displayed, correction, total, result.p[i]))
    return WorkedSum(result.z, result.alpha, tuple(rows), result)


@dataclass(frozen=True)
class GuideStep:
    text: str
    done: bool
    missing: str = ""  # what the page still needs for this step (empty when done)


@dataclass(frozen=True)
class GuideState:
    """What the guide reads from the lab: each step is done when the lab is in that state, in any order."""

    clean_start: bool  # the page opened with no prediction and nothing revealed, or Reset was pressed since
    lab_p: object
    n: int
    predicted: bool  # a bar predicted (at n = 1)
    revealed: bool  # the exact bars shown for the current lab success p and n
    products_typed: bool  # Z·r(B) and Z·r(C) typed and exactly right
    summed: bool  # the final sum shown (after the products, or asked for)


def at_worked_example(lab_p, n: int) -> bool:
    """The lab shows the worked example's bars: lab success p = 0.75 and n = 1 (B and C are r(B), r(C))."""
    return to_fraction(lab_p) == WORKED_EXAMPLE_LAB_P and n == WORKED_EXAMPLE_N


def _setting_missing(lab_p, n: int):
    """What the lab's setting still lacks for the worked example (None when it is set)."""
    wrong_p, wrong_n = to_fraction(lab_p) != WORKED_EXAMPLE_LAB_P, n != WORKED_EXAMPLE_N
    values = {"p": f"{float(WORKED_EXAMPLE_LAB_P):.2f}", "n": WORKED_EXAMPLE_N}
    if wrong_p and wrong_n:
        return said("set lab success p to {p} and set n to {n}", **values)
    if wrong_p:
        return said("set lab success p to {p}", p=values["p"])
    if wrong_n:
        return said("set n to {n}", n=WORKED_EXAMPLE_N)
    return None


def guide_steps(state: GuideState, z: Fraction) -> list[GuideStep]:
    """The worked example's steps. A step is done when the lab is in its state, whatever the order the student
    took (a page that opened clean needs no Reset); an unticked step says what is missing. ``z`` is the
    scenario's rejection probability, named in the steps that use it. The worked example's bars are B and C
    (WORKED_EXAMPLE_N = 1), named in the steps' words."""
    setting = _setting_missing(state.lab_p, state.n)
    at_example = setting is None
    predicted = state.predicted and state.n == WORKED_EXAMPLE_N
    revealed = state.revealed and at_example
    return [
        GuideStep(
            said("Start from a clean lab (Reset)"),
            state.clean_start,
            said("press Reset: this page opened with predictions or revealed bars"),
        ),
        GuideStep(
            said("Set lab success p = {p} and n = {n}", p=f"{float(WORKED_EXAMPLE_LAB_P):.2f}", n=WORKED_EXAMPLE_N),
            at_example,
            setting or "",
        ),
        GuideStep(
            said("Predict the bars r(B) and r(C) (Predict B, Predict C)"),
            predicted,
            said("set n to {n} first", n=WORKED_EXAMPLE_N) if state.n != WORKED_EXAMPLE_N
            else said("type a value in Predict B or C"),
        ),
        GuideStep(
            said("Reveal"),
            revealed,
            said("{missing}, then press Reveal", missing=setting) if setting else said("press Reveal"),
        ),
        GuideStep(
            said("Multiply each bar by Z = {z}: type Z·r(B) and Z·r(C)", z=fraction_text(z)),
            state.products_typed,
            said("reveal the bars first") if not revealed else said("type Z·r(B) and Z·r(C) below and press Check"),
        ),
        GuideStep(
            said("Add the accepted masses min(p, q): the unconditional target"),
            state.summed,
            said("the sum appears once the products are right (or press the button to see it)"),
        ),
    ]


@dataclass(frozen=True)
class ProductCheck:
    """The typed Z·r(B) and Z·r(C): right only when exactly equal to Z times the residual's bar."""

    messages: tuple[str, ...]  # one per wrong or unreadable value; no answer in them
    right: bool


def check_products(typed: Mapping[str, str], worked: WorkedSum) -> ProductCheck:
    """Read each typed product exactly (lab.core.numbers: fractions, decimals, percentages) and compare it with
    Z × the displayed bar. The messages say which is wrong or unreadable, never the right value."""
    messages = []
    for row in worked.rows:
        if not row.in_display:
            continue
        label = f"Z·r({row.token})"
        text = str(typed.get(row.token, "") or "").strip()
        if not text:
            messages.append(said("{label}: type a value", label=label))
            continue
        try:
            value = parse_number(text, label, allow_percent=True)
        except NumberInputError as exc:
            messages.append(said_of(exc))
            continue
        if value != row.correction:
            messages.append(said(
                "{label}: {value} is not Z × r({token}); multiply the bar r({token}) you revealed by Z = {z} exactly",
                label=label, value=shown(text), token=row.token, z=fraction_text(worked.z),
            ))
    return ProductCheck(tuple(messages), not messages)
