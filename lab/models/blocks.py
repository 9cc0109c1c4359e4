"""The Blocks page's state: model, algorithm, K, L, seed, and the speed-up sliders α and c; and how far the reader
has stepped through the block they draw.

The widgets carry the controls in the link (``bind="query-params"``); this model validates the link and the
widget values first. The limits on K and L belong to the page (they depend on what it can compute
quickly), so they are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.blocks import BlockTrace, DraftTest, run_block
from lab.core.markov import START, MarkovModel, all_model_names
from lab.core.sampling import make_streams
from lab.core.variants import VARIANT_NAMES, VARIANTS, Variant
from lab.models.url import PageModel, UrlReader

DEFAULT_MODEL = "markov-three"
MAX_SEED = 2**32 - 1
# The first seed whose first block of markov-three (K = 3) keeps a draft, rejects the next one (its replacement
# comes from the residual) and discards the last: every part of a block on first sight, without New block.
# tests/test_pages_sampling.py finds it by running the blocks, not by hand.
DEFAULT_SEED = 3
SEARCH_SEEDS = 500  # "a block that ends at the stop token": seeds tried at most, one block each (bounded work)
NO_BLOCK_ENDS = f"No block of the next {SEARCH_SEEDS} seeds ends at the stop token with these settings."


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

    @property
    def algorithm(self) -> Variant:
        return VARIANTS[self.variant]

    def room(self, markov: MarkovModel) -> int | None:
        """How many tokens the output may still hold: L for a model that stops, no limit otherwise."""
        return None if markov.stop is None else self.length

    def trace(self, markov: MarkovModel, seed: int | None = None) -> BlockTrace:
        """One block of ``markov`` drafted, tested and corrected from ``seed`` (the model's own by default)."""
        seed = self.seed if seed is None else seed
        return run_block(markov, self.block, START, make_streams(seed), self.algorithm, room=self.room(markov))

    def block_key(self, markov: MarkovModel) -> tuple:
        """What the block on screen depends on: when it changes, the reader starts stepping again."""
        return (markov.name, self.block, self.seed, self.variant, self.room(markov))

    def next_seed(self) -> int:
        """New block: the next seed (the last seed stays)."""
        return min(self.seed + 1, MAX_SEED)

    def seed_ending_at_stop(self, markov: MarkovModel) -> tuple[int | None, str | None]:
        """The next seed whose block commits the stop token, trying at most SEARCH_SEEDS: (that seed, None), or
        (None, what to tell the user) when none does."""
        for candidate in range(self.seed + 1, min(self.seed + SEARCH_SEEDS, MAX_SEED) + 1):
            if self.trace(markov, candidate).ends_output:
                return candidate, None
        return None, NO_BLOCK_ENDS


@dataclass
class BlockSteps:
    """How far the reader has stepped through the block on screen: 0 shows the drafts, i the first i tests, and
    len(tests) + 1 the block's end. Another block (see :meth:`BlocksModel.block_key`) starts again at 0."""

    block_key: tuple | None = None
    revealed: int = 0

    def follow(self, block_key: tuple) -> None:
        if block_key != self.block_key:
            self.block_key, self.revealed = block_key, 0

    def step(self, trace: BlockTrace) -> None:
        """Step: the next test, or the block's end (a complete block stays as it is)."""
        self.revealed = trace.next_reveal(self.revealed)

    def show_all(self, trace: BlockTrace) -> None:
        self.revealed = len(trace.tests) + 1

    def restart(self) -> None:
        self.revealed = 0

    def finished(self, trace: BlockTrace) -> bool:
        return self.revealed > len(trace.tests)

    def tests_shown(self, trace: BlockTrace) -> tuple[DraftTest, ...]:
        return tuple(trace.tests[: self.revealed])
