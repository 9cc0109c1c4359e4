"""The binomial lab's display and the guided worked example (no Streamlit here).

The worked example: Reset; set lab success p = 0.75 and n = 1; predict the B/C bars; Inspect; then multiply
the displayed probabilities by the separately calculated rejection probability Z (2/5, from the
``bernoulli-residual`` scenario) and add the accepted masses min(p, q): A 1/10, B 3/5, C 3/10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from lab.core.binomial import FAILURE_TOKEN, SUCCESS_TOKEN, BinomialResult, binomial_exact, parse_success_probability
from lab.core.distance import total_variation
from lab.core.distributions import to_fraction
from lab.core.formatting import fraction_text
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


def display_values(result: BinomialResult) -> tuple:
    """Bar heights in :func:`outcome_labels` order (B then C when n = 1)."""
    if result.n == 1:
        bars = result.bernoulli_bars()
        return (bars[SUCCESS_TOKEN], bars[FAILURE_TOKEN])
    return tuple(result.pmf)


def prediction_labels(n: int) -> tuple[str, ...]:
    """The prediction controls' labels: ``Predict B``/``Predict C`` for n = 1, else ``Predict P(k)``."""
    if n == 1:
        return ("Predict B", "Predict C")
    return tuple(f"Predict P({k})" for k in range(n + 1))


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


def at_worked_example(lab_p, n: int) -> bool:
    """The lab shows the worked example's bars: lab success p = 0.75 and n = 1 (B and C are r(B), r(C))."""
    return to_fraction(lab_p) == WORKED_EXAMPLE_LAB_P and n == WORKED_EXAMPLE_N


def guide_steps(
    reset_pressed: bool, lab_p, n: int, predicted: bool, inspected: bool, summed: bool, z: Fraction
) -> list[GuideStep]:
    """The worked example's steps, each checked off from the lab's current state (in order: a step counts once
    every earlier step is done). ``z`` is the scenario's rejection probability, named in step 5."""
    at_example = at_worked_example(lab_p, n)
    return [
        GuideStep("Reset", reset_pressed),
        GuideStep("Set lab success p = 0.75 and n = 1", reset_pressed and at_example),
        GuideStep("Predict the B/C bars", reset_pressed and at_example and predicted),
        GuideStep("Inspect", reset_pressed and at_example and predicted and inspected),
        GuideStep(
            f"Multiply the displayed probabilities by Z = {fraction_text(z)} and add the accepted masses",
            reset_pressed and at_example and predicted and inspected and summed,
        ),
    ]
