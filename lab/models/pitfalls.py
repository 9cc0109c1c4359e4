"""The Pitfalls page's state: the scenario or model, K, L and the mistake on show.

Pitfalls has no link state (its predictions are made on the page); the model validates the controls'
values on every run (a crafted message can put any value in a widget's state) with the same reader
the linked pages use, so the page reads controls -> model -> core -> chart.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.core.blocks import MAX_BLOCK, MAX_LENGTH
from lab.core.markov import all_model_names
from lab.models.url import PageModel, UrlReader
from lab.teaching.pitfalls import MISTAKE_CARDS

DEFAULT_MODEL = "bernoulli-residual"


@dataclass
class PitfallsModel(PageModel):
    model: str = DEFAULT_MODEL
    block: int = 1
    length: int = 1
    variant: str = MISTAKE_CARDS[0]

    PARAMS = {"model": "pit_model", "block": "pit_block", "length": "pit_length", "variant": "pit_variant"}
    LABELS = {
        "pit_model": "scenario or model",
        "pit_block": "drafts per block K",
        "pit_length": "committed tokens L",
        "pit_variant": "mistake",
    }

    @classmethod
    def read_fields(cls, read: UrlReader, d) -> dict:
        return dict(
            model=read.choice("pit_model", all_model_names(), d.model),
            block=read.whole("pit_block", 1, MAX_BLOCK, d.block),
            length=read.whole("pit_length", 1, MAX_LENGTH, d.length),
            variant=read.choice("pit_variant", MISTAKE_CARDS, d.variant),
        )
