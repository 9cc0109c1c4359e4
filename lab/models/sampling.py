"""The Sampling lab's state: scenario, steps N, seed and the guessed share of corrected steps.

The page's widgets carry this state in the link themselves (``bind="query-params"``); this model
validates the link first (see :func:`lab.views.page_state.refuse_link_values` for why that is needed)
and the widget values on every run.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.blocks import MAX_BLOCK, MAX_LENGTH
from lab.core.markov import model_names
from lab.core.sampling import BOUNDED_STEPS
from lab.core.scenarios import scenario_names
from lab.models.url import PageModel, UrlReader

DEFAULT_SCENARIO = "bernoulli-residual"
DEFAULT_STEPS = 10_000
MIN_STEPS = 10
MAX_STEPS = BOUNDED_STEPS  # the same bound as the command line without --allow-large
MAX_SEED = 2**32 - 1


@dataclass
class SamplingModel(PageModel):
    scenario: str = DEFAULT_SCENARIO
    steps: int = DEFAULT_STEPS
    seed: int = 1
    guess: Fraction = Fraction(0)

    # model field -> URL parameter (also the widget key)
    PARAMS = {"scenario": "sl_scenario", "steps": "sl_steps", "seed": "sl_seed", "guess": "sl_guess"}
    LABELS = {"sl_scenario": "Scenario", "sl_steps": "Steps N", "sl_seed": "Seed", "sl_guess": "Your guess"}

    @classmethod
    def read_fields(cls, read: UrlReader, d) -> dict:
        return dict(
            scenario=read.choice("sl_scenario", scenario_names(), d.scenario),
            steps=read.whole("sl_steps", MIN_STEPS, MAX_STEPS, d.steps),
            seed=read.whole("sl_seed", 0, MAX_SEED, d.seed),
            guess=read.probability("sl_guess", d.guess),
        )


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

    PARAMS = {"model": "sl_cmp_model", "block": "sl_cmp_k", "length": "sl_cmp_l", "outputs": "sl_cmp_n"}
    LABELS = {
        "sl_cmp_model": "Model",
        "sl_cmp_k": "Drafts per block K",
        "sl_cmp_l": "Maximum length L",
        "sl_cmp_n": "Outputs per sampler",
    }

    @classmethod
    def read_fields(cls, read: UrlReader, d) -> dict:
        return dict(
            model=read.choice("sl_cmp_model", model_names(), d.model),
            block=read.whole("sl_cmp_k", 1, MAX_BLOCK, d.block),
            length=read.whole("sl_cmp_l", 1, MAX_LENGTH, d.length),
            outputs=read.whole("sl_cmp_n", COMPARE_MIN_OUTPUTS, COMPARE_MAX_OUTPUTS, d.outputs),
        )
