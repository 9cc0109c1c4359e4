"""The Blocks page's state: model, algorithm, K, L, seed, and the speed-up sliders α and c.

The widgets carry it in the link (``bind="query-params"``); this model validates the link and the
widget values first. The limits on K and L belong to the page (they depend on what it can compute
quickly), so they are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.markov import all_model_names
from lab.core.variants import VARIANT_NAMES
from lab.models.url import PageModel, UrlReader

DEFAULT_MODEL = "markov-three"
MAX_SEED = 2**32 - 1
# The first seed whose first block of markov-three (K = 3) keeps a draft, rejects the next one (its replacement
# comes from the residual) and discards the last: every part of a block on first sight, without New block.
# tests/test_pages_sampling.py finds it by running the blocks, not by hand.
DEFAULT_SEED = 3


@dataclass
class BlocksModel(PageModel):
    model: str = DEFAULT_MODEL
    variant: str = "correct"
    block: int = 3
    length: int = 3
    seed: int = DEFAULT_SEED
    alpha: Fraction = Fraction(4, 5)
    cost: Fraction = Fraction(1, 10)

    PARAMS = {
        "model": "bk_model",
        "variant": "bk_variant",
        "block": "bk_k",
        "length": "bk_l",
        "seed": "bk_seed",
        "alpha": "bk_alpha",
        "cost": "bk_c",
    }
    LABELS = {
        "bk_model": "Model",
        "bk_variant": "Algorithm",
        "bk_k": "Drafts per block K",
        "bk_l": "Tokens in the law L",
        "bk_seed": "Seed",
        "bk_alpha": "acceptance rate α",
        "bk_c": "cost ratio c",
    }

    @classmethod
    def read_fields(cls, read: UrlReader, d, *, max_k: int, max_l: int) -> dict:
        return dict(
            model=read.choice("bk_model", all_model_names(), d.model),
            variant=read.choice("bk_variant", VARIANT_NAMES, d.variant),
            block=read.whole("bk_k", 1, max_k, min(d.block, max_k)),
            length=read.whole("bk_l", 1, max_l, min(d.length, max_l)),
            seed=read.whole("bk_seed", 0, MAX_SEED, d.seed),
            alpha=read.probability("bk_alpha", d.alpha),
            cost=read.probability("bk_c", d.cost),
        )
