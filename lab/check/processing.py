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

from fractions import Fraction

from lab.check.cases import StepCase
from lab.core.numbers import to_fraction

Row = tuple[Fraction, ...]

PROCESSING = {"temperature": 0.5, "top_k": 3, "top_p": 0.75}


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
