"""The Sampling lab's state: scenario, steps N, seed and the guessed share of corrected steps, and the runs the
page's two Run buttons made.

The page's widgets carry the controls in the link themselves (``bind="query-params"``); these models
validate the link first (see :func:`lab.views.ui.page_state.refuse_link_values` for why that is needed)
and the widget values on every run. A run is shown only while the controls it ran for are on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.blocks import MAX_BLOCK, MAX_LENGTH
from lab.core.compare import OrdinaryComparison, compare_ordinary
from lab.core.markov import MarkovModel, model_names
from lab.core.sampling import BOUNDED_STEPS, StepSimulation, simulate_steps
from lab.core.scenarios import Scenario, scenario_names
from lab.i18n import N_
from lab.models.url import Control, PageModel

DEFAULT_SCENARIO = "bernoulli-residual"
DEFAULT_STEPS = 10_000
MIN_STEPS = 10
MAX_STEPS = BOUNDED_STEPS  # the same bound as the command line without --allow-large
MAX_SEED = 2**32 - 1
CLOSE_GUESS = 0.05  # a guess this near the exact share Z is called close
CONTROLS_CHANGED = N_("The scenario, N or seed changed: predict, then Run again.")


@dataclass(frozen=True)
class StepsRun:
    """One press of Run: the scenario, N and seed it ran for, the guess made before it, and its counts."""

    ran_for: tuple[str, int, int]
    guess: float
    simulation: StepSimulation

    def guess_miss(self, z: Fraction) -> float | None:
        """How far the guess is from the exact share Z, or None when it is close (within CLOSE_GUESS)."""
        miss = abs(self.guess - float(z))
        return None if miss <= CLOSE_GUESS else miss


@dataclass
class SamplingModel(PageModel):
    scenario: str = DEFAULT_SCENARIO
    steps: int = DEFAULT_STEPS
    seed: int = 1
    guess: Fraction = Fraction(0)

    # Each control once: its key (the link parameter too), label, and how it is read. The view draws its widgets
    # from these.
    CONTROLS = (
        Control("scenario", "sl_scenario", N_("Scenario"), "choice", options=scenario_names),
        Control("steps", "sl_steps", N_("Steps N"), "whole", low=MIN_STEPS, high=MAX_STEPS),
        Control("seed", "sl_seed", N_("Seed"), "whole", low=0, high=MAX_SEED),
        Control("guess", "sl_guess", N_("Your guess: share of steps that end in a correction"), "probability",
                named=N_("Your guess")),  # fmt: skip
    )

    def run_for(self, scenario: Scenario) -> tuple[str, int, int]:
        return (scenario.name, self.steps, self.seed)

    def run(self, scenario: Scenario) -> StepsRun:
        """Run pressed: N steps of ``scenario`` from the seed, with the guess on screen."""
        return StepsRun(
            self.run_for(scenario), float(self.guess), simulate_steps(scenario.p, scenario.q, self.steps, self.seed)
        )

    def results(self, scenario: Scenario, last_run: StepsRun | None) -> tuple[StepsRun | None, str | None]:
        """The run to show (None until Run is pressed for the controls on screen) and what to tell the user (the
        controls changed since the last run), or None."""
        if last_run is None:
            return None, None
        if last_run.ran_for != self.run_for(scenario):
            return None, CONTROLS_CHANGED
        return last_run, None


COMPARE_DEFAULT_MODEL = "markov-sentences-end"
COMPARE_MIN_OUTPUTS = 100
COMPARE_MAX_OUTPUTS = 5_000  # both samplers, L <= 8: about a third of a second of CPU at most


@dataclass
class CompareModel(PageModel):
    """The Sampling lab's "different text, same law" section: model, K, L and how many outputs each side makes."""

    model: str = COMPARE_DEFAULT_MODEL
    block: int = 3
    length: int = 6
    outputs: int = 2_000

    CONTROLS = (
        Control("model", "sl_cmp_model", N_("Model"), "choice", options=model_names),
        Control("block", "sl_cmp_k", N_("Drafts per block K"), "whole", low=1, high=MAX_BLOCK),
        Control("length", "sl_cmp_l", N_("Maximum length L"), "whole", low=1, high=MAX_LENGTH),
        Control("outputs", "sl_cmp_n", N_("Outputs per sampler"), "whole",
                low=COMPARE_MIN_OUTPUTS, high=COMPARE_MAX_OUTPUTS),  # fmt: skip
    )

    def run_for(self, seed: int) -> tuple[str, int, int, int, int]:
        return (self.model, self.block, self.length, self.outputs, seed)

    def guess_key(self, seed: int) -> str:
        """The prediction's widget key: one per setting, so a prediction never carries over to another."""
        return "sl_cmp_guess::" + "::".join(map(str, self.run_for(seed)))

    def run(self, markov: MarkovModel, seed: int, guess: str | None) -> CompareRun:
        """Both samplers run from ``seed`` (raises LabInputError when the sizes are refused)."""
        comparison = compare_ordinary(markov, self.block, self.length, self.outputs, seed)
        return CompareRun(self.run_for(seed), guess, comparison)

    def results(self, seed: int, last_run: CompareRun | None) -> CompareRun | None:
        """The run to show: the last one, while it was made for the controls and seed on screen."""
        return last_run if last_run is not None and last_run.ran_for == self.run_for(seed) else None


@dataclass(frozen=True)
class CompareRun:
    """One press of "Run both samplers": the controls and seed it ran for, the prediction made, the comparison."""

    ran_for: tuple[str, int, int, int, int]
    guess: str | None
    comparison: OrdinaryComparison
