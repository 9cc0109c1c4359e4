"""The Pitfalls page's state: the scenario or model, K, L and the mistake on show.

Pitfalls has no link state (its predictions are made on the page); the model validates the controls'
values on every run (a crafted message can put any value in a widget's state) with the same reader
the linked pages use, so the page reads controls -> model -> core -> chart.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.core.blocks import MAX_BLOCK, MAX_LENGTH
from lab.core.markov import all_model_names
from lab.i18n import N_
from lab.models.url import Control, PageModel
from lab.teaching.pitfalls import MISTAKE_CARDS

DEFAULT_MODEL = "bernoulli-residual"


@dataclass
class PitfallsModel(PageModel):
    model: str = DEFAULT_MODEL
    block: int = 1
    length: int = 1
    variant: str = MISTAKE_CARDS[0]

    # Each control once: its key, label (the widget's and the messages'), and how it is read. The view draws its
    # widgets' labels, keys and ranges from these.
    IN_LINK = False
    CONTROLS = (
        Control("model", "pit_model", N_("scenario or model"), "choice", options=all_model_names),
        Control("block", "pit_block", N_("drafts per block K"), "whole", low=1, high=MAX_BLOCK),
        Control("length", "pit_length", N_("committed tokens L"), "whole", low=1, high=MAX_LENGTH),
        Control("variant", "pit_variant", N_("mistake"), "choice", options=lambda: MISTAKE_CARDS),
    )
