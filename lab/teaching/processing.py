"""Processed distributions: logits -> temperature, top-k, top-p -> the p and q actually used.

Speculative sampling is exact for the distributions the sampler really proposes from and checks
against. With logit processing those are the *processed* target p' and draft q'. If the draft
samples from its processed q' but the acceptance test scores the proposal with a different
distribution (its unprocessed q), the output law is no longer p' (the ``unprocessed-draft``
mistake). Everything here is float64 (softmax is not rational); laws built from these float64
vectors are computed in float64 too and labelled as such.

Processing order (as in common samplers): temperature, then top-k, then top-p. Temperature 0 is
greedy decoding (one-hot at the first largest logit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lab.core.distance import total_variation
from lab.core.distributions import LabInputError, check_token_name
from lab.core.errors import Said, said, said_of
from lab.core.numbers import NonFiniteNumberError, NumberInputError, parse_number, shown
from lab.core.residual import ResidualResult, acceptance_ratio, residual_float

DTYPE = np.float64


class ProcessingInputError(LabInputError):
    pass


@dataclass(frozen=True)
class Processing:
    temperature: float = 1.0  # 0 means greedy
    top_k: int = 0  # 0 means off
    top_p: float = 1.0  # 1 means off

    def __post_init__(self):
        check_processing(self.temperature, self.top_k, self.top_p)

    def describe(self) -> str:
        return ", ".join(self.described())

    def described(self) -> tuple[Said, Said, Said]:
        """The three settings as words (each a :class:`Said`, so a page says them in its language)."""
        return (
            said("greedy (temperature 0)") if self.temperature == 0
            else said("temperature {value}", value=f"{self.temperature:g}"),
            said("top-k {value}", value=self.top_k) if self.top_k else said("top-k off"),
            said("top-p {value}", value=f"{self.top_p:g}") if self.top_p < 1 else said("top-p off"),
        )


def check_processing(temperature, top_k, top_p) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not math.isfinite(temperature):
        raise ProcessingInputError(f"temperature {temperature!r} is not a finite number")
    if temperature < 0:
        raise ProcessingInputError(f"temperature {temperature:g} is negative (use 0 for greedy)")
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 0:
        raise ProcessingInputError(f"top-k {top_k!r} must be a whole number >= 0 (0 = off)")
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not (0 < top_p <= 1):
        raise ProcessingInputError(f"top-p {top_p!r} must be in (0, 1] (1 = off)")


def parse_logits(text: str, name: str = "logits", decimal_comma: bool = False) -> tuple[tuple[str, ...], np.ndarray]:
    """``A=2, B=1, C=0`` -> tokens and float64 logits (finite numbers; names checked). With ``decimal_comma`` (a
    language that writes 0,5) entries are separated by ``;`` and a logit reads ``0,5``: ``A=2; B=1; C=0,5``."""
    separator = ";" if decimal_comma else ","
    entries = [e.strip() for e in text.replace("\n", separator).split(separator) if e.strip()]
    if not entries:
        raise ProcessingInputError(
            said("{name}: no logits given (write them as A=2; B=1; C=0,5)", name=name) if decimal_comma
            else said("{name}: no logits given (write them as A=2, B=1, C=0)", name=name)
        )
    tokens: list[str] = []
    values: list[float] = []
    for entry in entries:
        if "=" not in entry:
            raise ProcessingInputError(said("{name}: entry {entry} is not of the form token=logit", name=name,
                                            entry=repr(entry)))
        token, _, raw = entry.partition("=")
        if decimal_comma and "=" in raw:  # "A=2, B=1": a comma written between two entries
            raise ProcessingInputError(said(
                "{name}: token {token}: {value} holds another entry: separate entries with ';' (the comma is the "
                "decimal mark here)", name=name, token=repr(token.strip()), value=shown(raw.strip()),
            ))
        try:
            token = check_token_name(token)
        except LabInputError as exc:
            raise ProcessingInputError(said("{name}: {problem}", name=name, problem=said_of(exc))) from None
        if token in tokens:
            raise ProcessingInputError(said("{name}: token {token} appears more than once", name=name,
                                            token=repr(token)))
        try:  # read exactly with the lab's limits (lab.core.numbers), then rounded once to float64
            value = float(parse_number(raw, said("{name}: token {token}", name=name, token=repr(token)),
                                       allow_decimal_comma=decimal_comma))
        except NonFiniteNumberError:
            raise ProcessingInputError(said("{name}: token {token}: logit {value} is not finite", name=name,
                                            token=repr(token), value=shown(raw.strip()))) from None
        except NumberInputError as exc:
            raise ProcessingInputError(said_of(exc)) from None
        tokens.append(token)
        values.append(value)
    return tuple(tokens), np.array(values, dtype=DTYPE)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Stable float64 softmax; -inf logits (masked tokens) get probability exactly 0."""
    logits = np.asarray(logits, dtype=DTYPE)
    shifted = logits - logits.max()
    weights = np.exp(shifted)
    return weights / weights.sum()


def process(logits, processing: Processing) -> np.ndarray:
    """The processed distribution (float64): temperature, then top-k, then top-p."""
    logits = np.asarray(logits, dtype=DTYPE)
    if logits.ndim != 1 or logits.size == 0:
        raise ProcessingInputError("logits must be a non-empty vector")
    if processing.temperature == 0:
        out = np.zeros_like(logits)
        out[int(np.argmax(logits))] = 1.0
        return out
    scaled = logits / processing.temperature
    if processing.top_k and processing.top_k < scaled.size:
        kth = np.sort(scaled)[::-1][processing.top_k - 1]
        scaled = np.where(scaled >= kth, scaled, -np.inf)  # ties with the k-th logit are kept
    probs = softmax(scaled)
    if processing.top_p < 1:
        order = np.argsort(-probs, kind="stable")
        before = np.concatenate(([0.0], np.cumsum(probs[order])[:-1]))  # mass of the tokens ranked above
        keep = np.zeros(probs.size, dtype=bool)
        keep[order[before < processing.top_p]] = True  # smallest prefix reaching top_p; at least one
        scaled = np.where(keep, scaled, -np.inf)
        probs = softmax(scaled)
    return probs


def output_law(p: np.ndarray, q_sample: np.ndarray, q_check: np.ndarray) -> tuple[np.ndarray | None, str | None]:
    """Law of one speculative step that proposes from ``q_sample`` but tests with ``q_check``.

    Accept x with min(1, p(x)/q_check(x)) (q_check(x) = 0 with p(x) > 0 accepts; p(x) = 0 rejects);
    on rejection draw from r = max(0, p - q_check) / Z_check (the lab's float residual of p against
    q_check). With q_sample = q_check this is p.
    Returns (law, None), or (None, message) when the test can reject but Z_check = 0.
    """
    p, q_sample, q_check = (np.asarray(v, dtype=DTYPE) for v in (p, q_sample, q_check))
    kept = q_sample * acceptance_ratio(p, q_check)
    rejection = float(q_sample.sum() - kept.sum())
    if rejection <= 0:
        return kept, None
    checked = residual_float(p, q_check, check=False)  # q_check may be any processed or raw softmax
    if checked.residual is None:
        return None, said("the test can reject but max(0, p - q_check) sums to 0: the residual is undefined (0/0)")
    return kept + rejection * checked.residual, None


@dataclass(frozen=True)
class ProcessedStep:
    tokens: tuple[str, ...]
    target_logits: np.ndarray
    draft_logits: np.ndarray
    processing: Processing
    p_raw: np.ndarray  # softmax of the target logits (no processing)
    q_raw: np.ndarray  # softmax of the draft logits
    p: np.ndarray  # processed target: used for checking
    q: np.ndarray  # processed draft: used for proposing (and, correctly, for checking)
    residual: ResidualResult  # of the processed p and q (float64)
    correct_law: np.ndarray | None  # propose from q, check with q: equals p up to float rounding
    mismatch_law: np.ndarray | None  # propose from q, check with q_raw (unprocessed-draft)
    mismatch_problem: str | None
    correct_tv: float | None
    mismatch_tv: float | None


def processed_step(tokens, target_logits, draft_logits, processing: Processing) -> ProcessedStep:
    tokens = tuple(tokens)
    target_logits = np.asarray(target_logits, dtype=DTYPE)
    draft_logits = np.asarray(draft_logits, dtype=DTYPE)
    if target_logits.shape != draft_logits.shape or len(tokens) != target_logits.size:
        raise ProcessingInputError(
            f"target has {target_logits.size} logits, draft {draft_logits.size}, for {len(tokens)} tokens"
        )
    identity = Processing()
    p_raw, q_raw = process(target_logits, identity), process(draft_logits, identity)
    p, q = process(target_logits, processing), process(draft_logits, processing)
    res = residual_float(p, q, tokens)
    correct, _ = output_law(p, q, q)
    mismatch, problem = output_law(p, q, q_raw)
    return ProcessedStep(
        tokens,
        target_logits,
        draft_logits,
        processing,
        p_raw,
        q_raw,
        p,
        q,
        res,
        correct,
        mismatch,
        problem,
        total_variation(correct, p) if correct is not None else None,
        total_variation(mismatch, p) if mismatch is not None else None,
    )


def processed_step_from_text(
    target_text: str, draft_text: str, processing: Processing, decimal_comma: bool = False
) -> ProcessedStep:
    tokens, target = parse_logits(target_text, said("target logits"), decimal_comma)
    draft_tokens, draft = parse_logits(draft_text, said("draft logits"), decimal_comma)
    if draft_tokens != tokens:
        missing = [t for t in tokens if t not in draft_tokens] + [t for t in draft_tokens if t not in tokens]
        if missing:
            raise ProcessingInputError(said("token {token} is in only one of the target and draft logits",
                                            token=repr(missing[0])))
        order = {t: i for i, t in enumerate(draft_tokens)}
        draft = draft[[order[t] for t in tokens]]
    return processed_step(tokens, target, draft, processing)
