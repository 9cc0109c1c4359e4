"""Temperature, top-k and top-p: the check hands the sampler raw logits and the processing, and
compares its output with the exact law of the processed target.

The processing is applied as Hugging Face's ``generate`` applies its warpers, in this order, to both
the target's and the draft's raw scores: temperature T (logits / T), then top-k (keep the k highest),
then top-p (sort ascending, drop the tokens whose cumulative probability is <= 1 - top_p, keep at least
the highest). With 1/T a whole number, softmax(log p / T) = p^(1/T) / sum p^(1/T): exact in fractions.
The case's values keep every comparison far from a tie, so float rounding cannot change which tokens
are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from lab.check.cases import BlockCase, StepCase, rounded
from lab.core.markov import MarkovModel
from lab.core.numbers import to_fraction
from lab.core.variants import Variant

Row = tuple[Fraction, ...]

PROCESSING = {"temperature": 0.5, "top_k": 3, "top_p": 0.75}


def no_processing(size: int) -> dict:
    """The processing that changes nothing, for a sampler that takes the processing on a case with nothing to process:
    temperature 1, top-k the vocabulary's size, top-p 1."""
    return {"temperature": 1.0, "top_k": size, "top_p": 1.0}


def _normalised(weights) -> Row:
    total = sum(weights, Fraction(0))
    return tuple(Fraction(w) / total for w in weights)


def processed_law(raw: Row, temperature: float, top_k: int, top_p: float) -> Row:
    """The exact law of softmax after temperature, top-k and top-p (in that order) on log(raw)."""
    power = Fraction(1) / to_fraction(temperature)
    if power.denominator != 1:
        raise ValueError(f"1/temperature must be a whole number for an exact law (got temperature {temperature})")
    law = _normalised([v ** power.numerator for v in raw])
    ranked = sorted(range(len(law)), key=lambda i: -law[i])
    kept = set(ranked[:top_k])
    law = _normalised([v if i in kept else Fraction(0) for i, v in enumerate(law)])
    ascending = sorted((i for i in range(len(law)) if law[i]), key=lambda i: law[i])
    drop, running, limit = set(), Fraction(0), 1 - to_fraction(top_p)
    for i in ascending[:-1]:  # the highest token is always kept
        running += law[i]
        if running <= limit:
            drop.add(i)
    return _normalised([Fraction(0) if i in drop else v for i, v in enumerate(law)])


def raw_draft_q_law(p: Row, q_processed: Row, q_raw: Row) -> Row:
    """The output law when the drafts are drawn from the processed q but the acceptance test and the residual
    read the draft's raw q (its logits before temperature, top-k and top-p), as transformers #47932 did:
    x ~ q_processed, kept with min(1, p(x)/q_raw(x)), else a draw from max(p - q_raw, 0) / Z_raw."""
    keep = [min(Fraction(1), a / b) if b else Fraction(1) for a, b in zip(p, q_raw)]
    rejected = sum((w * (1 - k) for w, k in zip(q_processed, keep)), Fraction(0))
    excess = [max(a - b, Fraction(0)) for a, b in zip(p, q_raw)]
    z = sum(excess, Fraction(0))
    residual = [e / z for e in excess] if z else [Fraction(0)] * len(p)  # z = 0: no rejection ever happens
    return tuple(w * k + rejected * r for w, k, r in zip(q_processed, keep, residual))


PROCESSING_MISTAKES = {
    "raw-draft-q": (
        "The draft's q read from its raw logits (before temperature, top-k and top-p) in the acceptance test and "
        "the residual, the drafts drawn from the processed q (transformers #47932)"
    ),
}


class ProcessedCase(StepCase):
    """A step case whose sampler gets raw p and q and the processing; p and q here are the processed laws."""

    raw_p: Row
    raw_q: Row
    processing: dict

    def variant_laws(self) -> dict[str, Row]:
        """The one-step mistakes on the processed laws, and the mistakes of the processing itself."""
        laws = dict(super().variant_laws())
        laws["raw-draft-q"] = raw_draft_q_law(self.p, self.q, self.raw_q)
        return laws


def processed_case() -> ProcessedCase:
    raw_p = tuple(Fraction(v, 20) for v in (8, 5, 3, 2, 1, 1))
    raw_q = tuple(Fraction(v, 20) for v in (5, 6, 4, 3, 1, 1))
    p = processed_law(raw_p, **PROCESSING)
    q = processed_law(raw_q, **PROCESSING)
    case = ProcessedCase(
        "processed-temperature-top-k-top-p",
        "raw p = (8, 5, 3, 2, 1, 1)/20, q = (5, 6, 4, 3, 1, 1)/20 handed raw with temperature 0.5, top-k 3, "
        "top-p 0.75: the output must follow the processed target (64/89, 25/89, 0, 0, 0, 0)",
        tuple(f"w{i}" for i in range(6)),
        p,
        q,
    )
    object.__setattr__(case, "raw_p", raw_p)
    object.__setattr__(case, "raw_q", raw_q)
    object.__setattr__(case, "processing", dict(PROCESSING))
    return case


# --- block and whole-generation samplers -------------------------------------------------------------


class RawDraftQ(Variant):
    """#47932 in a block: the drafts come from the processed q, the test and the residual read the raw q. Run on
    a model whose target rows are processed and whose draft rows are raw (the draft's processing is this rule)."""

    name = "raw-draft-q"
    one_step_differs = True

    def __init__(self, processing: dict):
        self.processing = dict(processing)

    def draft(self, q: Row) -> Row:
        return processed_law(q, **self.processing)


def _rotated(row: Row, places: int) -> Row:
    return row[-places:] + row[:-places] if places % len(row) else row


def _markov(name: str, title: str, vocab: tuple[str, ...], target, draft) -> MarkovModel:
    return MarkovModel(name, title, "", vocab, tuple(target), tuple(draft))


@dataclass(frozen=True)
class ProcessedBlockCase(BlockCase):
    """A Markov model served raw to a block sampler or a whole-generation loop that takes the processing:
    ``target(prefix)`` and ``draft(prefix)`` return the raw rows, the sampler gets ``processing=``, and the
    reference is the processed target's law of L tokens. ``model`` is the processed model (its laws, its
    mistakes' laws); ``raw`` the one served."""

    raw: MarkovModel | None = None
    processing: dict = field(default_factory=dict)

    def rows(self, dtype: str):
        return (
            tuple(rounded(row, dtype) for row in self.raw.target),
            tuple(rounded(row, dtype) for row in self.raw.draft),
        )

    @cached_property
    def _variant_laws(self) -> dict[str, dict]:
        from lab.core.blocks import speculative_law

        laws = dict(super()._variant_laws)
        mixed = _markov("raw-draft-q", "", self.model.vocab, self.model.target, self.raw.draft)
        laws["raw-draft-q"] = speculative_law(mixed, self.block, self.length, RawDraftQ(self.processing))
        return laws


def processed_block_case(block: int, length: int) -> ProcessedBlockCase:
    """The step case's raw rows as a Markov model over six tokens: at the start the rows of
    :func:`processed_case`, after token t the same rows turned t + 1 places, so every context keeps two tokens
    after the processing (different ones) and the law of L tokens has 2^L outputs."""
    raw_p = tuple(Fraction(v, 20) for v in (8, 5, 3, 2, 1, 1))
    raw_q = tuple(Fraction(v, 20) for v in (5, 6, 4, 3, 1, 1))
    vocab = tuple(f"w{i}" for i in range(6))
    contexts = range(len(vocab) + 1)  # row 0: the start; row t + 1: after token t
    raw = _markov("processed-markov", "raw rows", vocab, (_rotated(raw_p, c) for c in contexts),
                  (_rotated(raw_q, c) for c in contexts))
    processed = _markov(
        "processed-markov", "the processed target", vocab,
        (processed_law(row, **PROCESSING) for row in raw.target),
        (processed_law(row, **PROCESSING) for row in raw.draft),
    )
    description = (
        "a Markov model over 6 tokens served as raw rows (at the start p = (8, 5, 3, 2, 1, 1)/20, q = (5, 6, 4, 3, 1, "
        "1)/20; after token t the same turned t + 1 places) with temperature 0.5, top-k 3, top-p 0.75: the outputs "
        "must follow the processed target (64/89, 25/89 on two tokens in every context)"
    )
    return ProcessedBlockCase(
        f"processed-markov-K{block}-L{length}", description, processed, block, length, raw=raw,
        processing=dict(PROCESSING),
    )
