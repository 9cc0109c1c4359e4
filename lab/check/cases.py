"""The cases a check runs: the specification's small laws, the shipped scenarios and Markov models.

A step case is a target p and a draft q over a named vocabulary, exact (Fractions), handed to the
sampler rounded to the run's dtype. The specification's protocol names the kinds: equal distributions
(Z = 0), disjoint support, partial zeros, near equality (gaps down to 1e-12), a draft that misses the
target's support; the shipped one-step scenarios hold most of them, the near-equality family of the
Numerics page adds the tiny gaps.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from lab.core.residual import exact_z_and_residual
from lab.core.sampling import step_law
from lab.core.scenarios import load_scenario, scenario_names
from lab.core.variants import VARIANTS, Row
from lab.teaching.numerics import FAMILY_DIRECTION, FAMILY_Q, FAMILY_TOKENS, to_float32

DTYPES = ("float64", "float32")
NEAR_EQUALITY_GAPS = (6, 12)  # the family's gaps 1e-6 and 1e-12 (exponents), as law cases


def rounded(values: Row, dtype: str) -> np.ndarray:
    """Exact values rounded to the dtype (correctly, one rounding), as a read-only array."""
    if dtype == "float32":
        out = np.array([to_float32(v) for v in values], dtype=np.float32)
    else:
        out = np.array([float(v) for v in values], dtype=np.float64)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class StepCase:
    name: str
    description: str
    tokens: tuple[str, ...]
    p: Row
    q: Row

    @cached_property
    def z(self) -> Fraction:
        return exact_z_and_residual(self.p, self.q)[0]

    @cached_property
    def residual(self) -> Row | None:
        return exact_z_and_residual(self.p, self.q)[1]

    def law(self) -> dict[int, Fraction]:
        """The exact target law: p itself (the output law every correct sampler has)."""
        return dict(enumerate(self.p))

    @cached_property
    def _variant_laws(self) -> dict[str, Row]:
        return {
            name: step_law(self.p, self.q, v).total
            for name, v in VARIANTS.items()
            if v.one_step_differs or name == "correct"
        }

    def variant_laws(self) -> dict[str, Row]:
        """Each named rule's exact one-step law on this case (keep-testing-after-rejection is a block
        mistake: at one step it is the correct rule, so it is left out)."""
        return self._variant_laws


def scenario_cases() -> list[StepCase]:
    cases = []
    for name in scenario_names():
        s = load_scenario(name)
        cases.append(StepCase(name, s.title, s.tokens, s.p.values, s.q.values))
    return cases


def near_equality_case(exponent: int) -> StepCase:
    gap = Fraction(1, 10**exponent)
    p = tuple(b + gap * d for b, d in zip(FAMILY_Q, FAMILY_DIRECTION))
    return StepCase(
        f"near-equality-1e-{exponent}",
        f"p = q + 1e-{exponent} * (3/4, 1/4, -1) with q = (1/2, 1/3, 1/6): exact Z = 1e-{exponent}",
        FAMILY_TOKENS,
        p,
        FAMILY_Q,
    )


def processed_target_case(size: int = 32, kept: int = 4) -> StepCase:
    """A top-k processed target over a wider vocabulary: p is 1/4 on its 4 kept tokens and 0 on the other
    28, the draft uniform over all 32. r = p (Z = 7/8); a floor or a candidate set shows at once here."""
    tokens = tuple(f"t{i}" for i in range(size))
    p = tuple(Fraction(1, kept) if i < kept else Fraction(0) for i in range(size))
    q = tuple(Fraction(1, size) for _ in range(size))
    return StepCase(
        "processed-target",
        f"a top-{kept} processed target over {size} tokens (0 on {size - kept} of them), uniform draft: Z = 7/8",
        tokens,
        p,
        q,
    )


def step_cases() -> list[StepCase]:
    return scenario_cases() + [processed_target_case()] + [near_equality_case(e) for e in NEAR_EQUALITY_GAPS]


# --- block cases ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BlockCase:
    """A model served to a block sampler through ``target(prefix)`` / ``draft(prefix)``, and the exact
    laws of its outputs. The model is reached only through ``rows``, ``law`` and ``variant_law``, so any
    model the core can give exact laws for fits (Markov chains now; stop-token models the same way)."""

    name: str
    description: str
    model: object  # lab.core.markov.MarkovModel
    block: int
    length: int

    @property
    def vocab(self) -> tuple[str, ...]:
        return self.model.vocab

    def rows(self, dtype: str):
        """(target rows, draft rows) as read-only arrays, indexed by context + 1 (START = -1 is row 0)."""
        return (
            tuple(rounded(row, dtype) for row in self.model.target),
            tuple(rounded(row, dtype) for row in self.model.draft),
        )

    @property
    def stop(self) -> int | None:
        """The stop token's index (None: the model never stops)."""
        return getattr(self.model, "stop", None)

    def finished(self, sequence: tuple[int, ...], chunk: tuple[int, ...]) -> bool:
        """Complete after a block that committed ``chunk``: L tokens, or a block that committed the stop
        token (the output ends with that block, as the core's simulation has it)."""
        return len(sequence) >= self.length or (self.stop is not None and self.stop in chunk)

    def outcome(self, sequence: tuple[int, ...]) -> tuple[int, ...]:
        return sequence[: self.length]

    def outcome_text(self, outcome: tuple[int, ...]) -> str:
        return self.model.sequence_text(outcome)

    @cached_property
    def _target_law(self) -> dict:
        from lab.core.blocks import target_law

        return target_law(self.model, self.length)

    def law(self) -> dict:
        return self._target_law

    @cached_property
    def _variant_laws(self) -> dict[str, dict]:
        from lab.core.blocks import speculative_law

        return {name: speculative_law(self.model, self.block, self.length, name) for name in VARIANTS}

    def variant_laws(self) -> dict[str, dict]:
        return self._variant_laws


DEFAULT_BLOCK = 2
DEFAULT_LENGTH = 2  # the first L tokens of a model that never stops
DEFAULT_STOP_LENGTH = 3  # a model with a stop token: outputs of at most 3 tokens, ending at the stop token


def block_cases(block: int = DEFAULT_BLOCK, length: int | None = None) -> list[BlockCase]:
    """Every shipped Markov model (those with a stop token too) at K = ``block``; L = ``length`` for all,
    or by default 2 tokens (3 for a model that stops, so complete short outputs show)."""
    from lab.core.blocks import block_chain, check_block_args, check_outcomes
    from lab.core.markov import load_model, model_names

    cases = []
    for name in model_names():
        model = load_model(name)
        stops = getattr(model, "stop", None) is not None
        size = length or (DEFAULT_STOP_LENGTH if stops else DEFAULT_LENGTH)
        check_block_args(model, block, size)
        check_outcomes(model, block_chain(model, block), size)
        description = model.title + (f" (stops at {model.vocab[model.stop]})" if stops else "")
        cases.append(BlockCase(f"{name}-K{block}-L{size}", description, model, block, size))
    return cases


# --- tree cases -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeCase(BlockCase):
    """A Markov model served to a tree sampler (a block sampler that declares ``block.tree``, its widths by depth):
    it is called with k = the tree's depth and commits 1 to depth + 1 tokens. The exact laws are the several-drafts
    engine's (:func:`lab.core.drafts.tree_law`): the target's for a correct tree, and each named mistake's under the
    stated rule (every rule's when none is stated)."""

    widths: tuple[int, ...] = ()
    rule: str | None = None

    @cached_property
    def _variant_laws(self) -> dict[str, dict]:
        from lab.core.drafts import DRAFT_MISTAKES, RULES, DraftsInputError, tree_law

        laws: dict[str, dict] = {}
        for rule in (self.rule,) if self.rule else RULES:
            for name in ("correct", *(n for n, m in DRAFT_MISTAKES.items() if rule in m.rules)):
                key = name if self.rule or name == "correct" else f"{name} ({rule})"
                if key in laws:
                    continue
                try:
                    laws[key] = tree_law(self.model, self.widths, self.length, rule, name).speculative
                except DraftsInputError:  # the rule cannot draw these widths here (without replacement)
                    continue
        return laws


def tree_cases(widths: tuple[int, ...], rule: str | None, length: int | None = None) -> list[TreeCase]:
    """Every shipped Markov model (stop and no stop) under the declared tree, L as for block cases."""
    from lab.core.drafts import check_tree
    from lab.core.markov import load_model, model_names

    widths = check_tree(tuple(widths))
    cases = []
    for name in model_names():
        model = load_model(name)
        stops = getattr(model, "stop", None) is not None
        size = length or (DEFAULT_STOP_LENGTH if stops else DEFAULT_LENGTH)
        description = model.title + (f" (stops at {model.vocab[model.stop]})" if stops else "")
        tree = ",".join(map(str, widths))
        cases.append(TreeCase(f"{name}-tree{tree}-L{size}", description, model, len(widths), size, widths, rule))
    return cases
