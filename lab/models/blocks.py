"""The Blocks page's state: model, algorithm, K, L, seed, and the speed-up sliders α and c; and how far the reader
has stepped through the block they draw.

The widgets carry the controls in the link (``bind="query-params"``); this model validates the link and the
widget values first. The limits on K and L belong to the page (they depend on what it can compute
quickly), so they are passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from lab.core.blocks import BlockTrace, DraftTest, run_block
from lab.core.errors import said
from lab.core.markov import START, MarkovModel, all_model_names
from lab.core.sampling import make_streams
from lab.core.variants import VARIANT_NAMES, VARIANTS, Variant
from lab.i18n import N_
from lab.models.url import Control, PageModel

DEFAULT_MODEL = "markov-three"
MAX_SEED = 2**32 - 1
# The first seed whose first block of markov-three (K = 3) keeps a draft, rejects the next one (its replacement
# comes from the residual) and discards the last: every part of a block on first sight, without New block.
# tests/test_pages_sampling.py finds it by running the blocks, not by hand.
DEFAULT_SEED = 3
SEARCH_SEEDS = 500  # "a block that ends at the stop token": seeds tried at most, one block each (bounded work)
NO_BLOCK_ENDS = said("No block of the next {count} seeds ends at the stop token with these settings.",
                     count=SEARCH_SEEDS)


@dataclass
class BlocksModel(PageModel):
    model: str = DEFAULT_MODEL
    variant: str = "correct"
    block: int = 3
    length: int = 3
    seed: int = DEFAULT_SEED
    alpha: Fraction = Fraction(4, 5)
    cost: Fraction = Fraction(1, 10)

    # Each control once: its key (the link parameter too), label, and how it is read (K and L up to the limits
    # the page passes in: max_k, max_l). The view draws its widgets from these.
    CONTROLS = (
        Control("model", "bk_model", N_("Model"), "choice", options=all_model_names),
        Control("variant", "bk_variant", N_("Algorithm"), "choice", options=lambda: VARIANT_NAMES),
        Control("block", "bk_k", N_("Drafts per block K"), "whole", low=1, high="max_k"),
        Control("length", "bk_l", N_("Tokens in the law L"), "whole", low=1, high="max_l"),
        Control("seed", "bk_seed", N_("Seed"), "whole", low=0, high=MAX_SEED),
        Control("alpha", "bk_alpha", N_("acceptance rate α"), "probability"),
        Control("cost", "bk_c", N_("cost ratio c (draft / target)"), "probability", named=N_("cost ratio c")),
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
        return _one_block(markov, self.block, seed, self.variant, self.room(markov))

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


@lru_cache(maxsize=256)
def _one_block(markov: MarkovModel, block: int, seed: int, variant: str, room: int | None) -> BlockTrace:
    """The block a seed draws, made once per (model, K, seed, algorithm, room) for the process: every step through
    the block runs the page again, and a trace is frozen, so sessions share it."""
    return run_block(markov, block, START, make_streams(seed), VARIANTS[variant], room=room)


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
