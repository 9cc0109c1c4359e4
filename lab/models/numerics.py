"""The Numerics page's state: the tiny-Z gap range and the processing controls (logits, temperature,
top-k, top-p).

Numerics has no link state; the model validates the controls' values on every run (a crafted message
can put any value in a widget's state) with the reader the linked pages use, so the page reads
controls -> model -> core -> chart. The logits' text is read by lab.teaching.processing.parse_logits.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from lab.i18n import N_
from lab.models.url import Control, PageModel
from lab.teaching.processing import ProcessedStep, Processing, processed_step_from_text

GAP_MIN, GAP_MAX = 1, 20
TEMPERATURE_MAX = 10
TOP_K_MAX = 50


@dataclass
class NumericsModel(PageModel):
    gaps: tuple[int, int] = (6, 16)
    target_logits: str = "A=2, B=1, C=0.5, D=-1"
    draft_logits: str = "A=1, B=2, C=0, D=0.5"
    temperature: Fraction = Fraction(1)
    top_k: int = 2
    top_p: Fraction = Fraction(1)

    # Each control once: its key, label (the widget's; ``named``: how a message names it) and how it is read. The
    # view draws its widgets from these.
    IN_LINK = False
    CONTROLS = (
        Control("gaps", "numerics_gaps", N_("gap exponents k (gap = 10^−k)"), "range", low=GAP_MIN, high=GAP_MAX,
                named=N_("gap exponents k")),
        Control("target_logits", "numerics_target_logits", N_("target logits"), "text"),
        Control("draft_logits", "numerics_draft_logits", N_("draft logits"), "text"),
        Control("temperature", "numerics_temperature", N_("temperature (0 = greedy)"), "number", low=0,
                high=TEMPERATURE_MAX, named=N_("temperature")),
        Control("top_k", "numerics_top_k", N_("top-k (0 = off)"), "whole", low=0, high=TOP_K_MAX, named="top-k"),
        Control("top_p", "numerics_top_p", N_("top-p (1 = off)"), "number", low=Fraction(1, 20), high=1, named="top-p"),
    )  # fmt: skip

    def processed_step(self, decimal_comma: bool = False) -> ProcessedStep:
        """The logits processed by the temperature, top-k and top-p controls, with both checks' output laws (raises
        LabInputError naming the logit text or setting it refuses). ``decimal_comma``: the logits are written the
        way of a language with a decimal comma (``A=2; C=0,5``)."""
        return _processed_step(
            self.target_logits, self.draft_logits, float(self.temperature), self.top_k, float(self.top_p),
            decimal_comma,
        )


@lru_cache(maxsize=256)
def _processed_step(
    target_text: str, draft_text: str, temperature: float, top_k: int, top_p: float, decimal_comma: bool = False
) -> ProcessedStep:
    """The step for these settings, made once for the process (a class tries the same few settings; every change of
    a control runs the page again). Shared, so its arrays are made read-only; a refused text raises and is not kept."""
    step = processed_step_from_text(target_text, draft_text, Processing(temperature, top_k, top_p), decimal_comma)
    for value in vars(step).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return step
