"""The Numerics page's state: the tiny-Z gap range and the processing controls (logits, temperature,
top-k, top-p).

Numerics has no link state; the model validates the controls' values on every run (a crafted message
can put any value in a widget's state) with the reader the linked pages use, so the page reads
controls -> model -> core -> chart. The logits' text is read by lab.teaching.processing.parse_logits.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.models.url import PageModel, UrlReader
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

    PARAMS = {
        "gaps": "numerics_gaps",
        "target_logits": "numerics_target_logits",
        "draft_logits": "numerics_draft_logits",
        "temperature": "numerics_temperature",
        "top_k": "numerics_top_k",
        "top_p": "numerics_top_p",
    }
    LABELS = {
        "numerics_gaps": "gap exponents k",
        "numerics_target_logits": "target logits",
        "numerics_draft_logits": "draft logits",
        "numerics_temperature": "temperature",
        "numerics_top_k": "top-k",
        "numerics_top_p": "top-p",
    }

    @classmethod
    def read_fields(cls, read: UrlReader, d) -> dict:
        return dict(
            gaps=read.whole_range("numerics_gaps", GAP_MIN, GAP_MAX, d.gaps),
            target_logits=read.text("numerics_target_logits", d.target_logits),
            draft_logits=read.text("numerics_draft_logits", d.draft_logits),
            temperature=read.number("numerics_temperature", 0, TEMPERATURE_MAX, d.temperature),
            top_k=read.whole("numerics_top_k", 0, TOP_K_MAX, d.top_k),
            top_p=read.number("numerics_top_p", Fraction(1, 20), 1, d.top_p),
        )

    def processed_step(self) -> ProcessedStep:
        """The logits processed by the temperature, top-k and top-p controls, with both checks' output laws (raises
        LabInputError naming the logit text or setting it refuses)."""
        processing = Processing(float(self.temperature), self.top_k, float(self.top_p))
        return processed_step_from_text(self.target_logits, self.draft_logits, processing)
