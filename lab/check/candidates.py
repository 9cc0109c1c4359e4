"""Checking a multi-candidate verifier ``verify(p, q, candidates, rng) -> token`` (or ``(token, kept_index)``).

The verifier states how its candidates are drawn (``verify.rule``: with-replacement, without-replacement or
top-k, :data:`lab.core.drafts.RULES`); the check draws them itself, by that rule, from the case's draft q with the
case's generator, so the verifier is tested alone. Each output is counted against the exact law of the node from
the several-drafts engine (:func:`lab.core.drafts.node_law`): the target p for a correct verifier. A verifier that
returns ``(token, kept_index)`` (the candidate's index in ``candidates``, None for the correction) is counted by
both, against the engine's exact law of (token, which candidate was kept), so its acceptance is tested too.

When the law is off, the named several-drafts mistake whose exact law fits the counts best is reported
(:data:`lab.core.drafts.DRAFT_MISTAKES`, those of the stated rule).
"""

from __future__ import annotations

import operator
import zlib
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from lab.check.cases import StepCase, rounded, step_cases
from lab.check.power import PowerTarget, required_draws
from lab.check.report import CaseResult
from lab.check.step import Tally, case_rng, conclude, token_index
from lab.check.tensors import wrap_verify
from lab.check.watch import Clock, Findings, StopDrawing, run_draws
from lab.core.drafts import (
    DRAFT_MISTAKES,
    RULES,
    DraftsInputError,
    check_candidates,
    node_law,
    top_k,
)
from lab.core.formatting import fraction_text
from lab.core.sampling import float_cdf

DEFAULT_CANDIDATES = (2, 3)
CORRECTION = "correction"
FLOOR = "epsilon-floor"  # the correct rule with every residual max(p − q, f) normalised: named with its f
FLOOR_EXPONENTS = (1, 2, 3, 4, 6)


@dataclass(frozen=True)
class CandidatesCase:
    """A step case's p and q, K candidates drawn by ``rule``: the exact law of the node's output (and of which
    candidate was kept) under the correct rule and each of its named mistakes."""

    name: str
    description: str
    tokens: tuple[str, ...]
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    candidates: int
    rule: str

    @cached_property
    def _correct(self):
        return node_law(self.p, self.q, self.candidates, self.rule)

    @cached_property
    def _laws(self) -> dict:
        """Variant -> the engine's NodeLaw: the correct rule, then each mistake of the rule whose law the engine can
        make within its work bound (made only when a law is off: a mistake's law can cost more than the rule's)."""
        laws = {"correct": self._correct}
        for name, mistake in DRAFT_MISTAKES.items():
            if self.rule in mistake.rules:
                try:
                    laws[name] = node_law(self.p, self.q, self.candidates, self.rule, name)
                except DraftsInputError:  # above the engine's work bound on this case: not among the names
                    continue
        for exponent in FLOOR_EXPONENTS:  # an epsilon floor on every residual, at a few sizes
            try:
                law = node_law(self.p, self.q, self.candidates, self.rule, floor=Fraction(1, 10**exponent))
            except DraftsInputError:
                continue
            laws[f"{FLOOR} 1e-{exponent}"] = law
        return laws

    def _law(self, variant: str):
        return self._correct if variant == "correct" else self._laws[variant]

    def token_law(self, variant: str = "correct") -> dict:
        return dict(enumerate(self._law(variant).law))

    def joint_law(self, variant: str = "correct") -> dict:
        """(token, kept index or None) -> probability: kept as candidate i (0-based), or drawn by the correction."""
        law = self._law(variant)
        out = {}
        for i, row in enumerate(law.kept_by_position):
            out.update({(x, i): v for x, v in enumerate(row) if v})
        out.update({(x, None): v for x, v in enumerate(law.corrected) if v})
        return out

    def law(self) -> dict:
        return self.token_law()

    @property
    def acceptance(self) -> Fraction:
        return self._correct.acceptance

    def variant_laws(self, joint: bool) -> dict[str, dict]:
        return {n: (self.joint_law(n) if joint else self.token_law(n)) for n in self._laws}

    def label(self, outcome) -> str:
        if isinstance(outcome, tuple):
            token, kept = outcome
            return f"{self.tokens[token]} " + (f"(candidate {kept + 1})" if kept is not None else f"({CORRECTION})")
        return self.tokens[outcome]


MIDDLE_ZERO = StepCase(
    "zero-in-the-middle",
    "p = (1/2, 1/4, 1/4), q = (1/4, 1/8, 5/8): without replacement, rejecting C leaves p₂ = (2/3, 1/3, 0) = q₂, so "
    "Z = 0 at the second stage (its residual must never be formed)",
    ("A", "B", "C"),
    (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)),
    (Fraction(1, 4), Fraction(1, 8), Fraction(5, 8)),
)


def candidates_cases(rule: str, counts: tuple[int, ...] = DEFAULT_CANDIDATES) -> tuple[list[CandidatesCase], list]:
    """(cases, skipped): every step case and the middle-stage Z = 0 case at each K; a case the rule cannot draw K
    candidates on (without replacement: K above the draft's support), or too large for the engine's work bound, is
    skipped with the reason."""
    cases, skipped = [], []
    for case in [*step_cases(), MIDDLE_ZERO]:
        for k in counts:
            name = f"{case.name}-K{k}"
            try:
                check_candidates(k, rule, case.q)
                made = CandidatesCase(name, case.description, case.tokens, case.p, case.q, k, rule)
                made._correct  # noqa: B018  (the engine's bound is met here, not in the middle of a run)
            except DraftsInputError as exc:
                skipped.append({"case": name, "reason": str(exc)})
                continue
            cases.append(made)
    return cases, skipped


class CandidateDrafter:
    """The check's own draws of K candidates by the rule, from the case's exact q (float64 CDFs of exact sums)."""

    def __init__(self, case: CandidatesCase):
        self.k, self.rule = case.candidates, case.rule
        self.q = case.q
        self.cdf = float_cdf(case.q)
        self.fixed = np.array(top_k(case.q, self.k), dtype=np.int64) if self.rule == "top-k" else None
        self.cdfs: dict[tuple[int, ...], np.ndarray] = {}  # without replacement: the CDF of q less the tokens drawn

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        if self.fixed is not None:
            return self.fixed.copy()
        if self.rule == "with-replacement":
            u = rng.random(self.k)
            return np.minimum(np.searchsorted(self.cdf, u, side="right"), len(self.q) - 1).astype(np.int64)
        out: list[int] = []
        left = list(self.q)
        for _ in range(self.k):  # without replacement: each from what is left of q, renormalised
            drawn = tuple(sorted(out))  # the CDF depends only on which tokens are gone: made once per set
            cdf = self.cdfs.get(drawn)
            if cdf is None:
                cdf = self.cdfs[drawn] = float_cdf(left)
            x = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
            x = min(x, len(left) - 1)
            while not left[x]:  # a float edge at a zero-mass token: the next token with mass
                x = (x + 1) % len(left)
            out.append(x)
            left[x] = Fraction(0)
        return np.array(out, dtype=np.int64)


def kept_index(value, k: int) -> tuple[int | None, str | None]:
    """(index, None) for a valid kept index (None: the correction), else (None, the problem)."""
    if value is None:
        return None, None
    try:
        index = operator.index(value)
    except TypeError:
        return None, f"returned kept_index {value!r} ({type(value).__name__}), not a candidate's index or None"
    if not 0 <= index < k:
        return None, f"returned kept_index {index}, outside 0..{k - 1}"
    return index, None


def _form(call, rows: int, p, q, case: CandidatesCase, seed: int) -> bool:
    """Does the verifier return (token, kept_index)? One call on a generator of its own (the case's draws are
    not touched); a call that raises says nothing here (the run names it)."""
    rng = np.random.default_rng([seed, zlib.crc32(case.name.encode()), 1])
    drafter = CandidateDrafter(case)
    try:
        with np.errstate(all="ignore"):
            out = call(p, q, [drafter.draw(rng) for _ in range(rows)], rng)
    except Exception:  # the user's code: the run itself names what it raises
        return False
    return type(out[0]) is tuple


def run_candidates_case(verify, case: CandidatesCase, target: PowerTarget, seed: int, dtype: str,
                        max_draws: int | None, time_limit: float | None, budget: str | None = None, *,
                        progress) -> CaseResult:
    """``verify`` is the user's verifier with its boundary: (verifier, tensors, inputs, batch)."""
    verify, tensors, inputs, batch = verify
    call, rows = wrap_verify(verify, tensors, inputs, batch), batch or 1
    p, q = rounded(case.p, dtype), rounded(case.q, dtype)
    joint = _form(call, rows, p, q, case, seed)
    law = case.joint_law() if joint else case.token_law()
    needed, df = required_draws(law, target)
    draws = needed if max_draws is None else min(needed, max_draws)
    size, k = len(case.tokens), case.candidates
    drafter = CandidateDrafter(case)
    rng = case_rng(seed, case.name)
    counts: dict = {}
    findings = Findings()
    kept = 0

    pending: list = []  # (candidates, output) of a batch's rows not counted yet

    def draw(i: int) -> None:
        nonlocal kept
        if not pending:
            sets = [drafter.draw(rng) for _ in range(rows)]
            invalid = findings.invalid
            try:
                outs = call(p, q, sets, rng)
            except Exception as exc:  # the user's code: its failure is a finding, named
                findings.record_exception(exc, i)
                raise StopDrawing from None
            if findings.invalid != invalid and findings.invalid_at is None:
                findings.invalid_at = i
            pending.extend(reversed(list(zip(sets, outs))))
        candidates, out = pending.pop()
        if (type(out) is tuple) != joint or (joint and len(out) != 2):
            expected = "(token, kept_index)" if joint else "a token"
            findings.bad_output = f"returned {out!r:.60} at draw {i}: expected {expected} as on its first call"
            raise StopDrawing
        token, index = out if joint else (out, None)
        x, problem = token_index(token, size)
        if problem is None and joint:
            index, problem = kept_index(index, k)
            if problem is None and index is not None and int(candidates[index]) != x:
                other = case.tokens[candidates[index]]
                problem = f"returned token {case.tokens[x]} as kept candidate {index}, which is {other}"
        if problem:
            if "NaN" in problem:
                findings.nan_outputs += 1
            findings.bad_output = f"{problem} at draw {i} (candidates {[case.tokens[c] for c in candidates]})"
            raise StopDrawing
        outcome = (x, index) if joint else x
        counts[outcome] = counts.get(outcome, 0) + 1
        kept += index is not None

    done, cut, hung, seconds = run_draws(draws, case.name, Clock(time_limit), progress, findings, draw)
    tally = Tally(needed, draws, df, done, cut, hung, seconds=seconds, budget=budget)
    notes: list[str] = []
    data: dict = {
        "tokens": list(case.tokens),
        "p": [fraction_text(v) for v in case.p],
        "q": [fraction_text(v) for v in case.q],
        "candidates": k,
        "rule": case.rule,
        "returns_kept_index": joint,
        "target_law": {case.label(o): fraction_text(v) for o, v in sorted(law.items(), key=_order)},
        "input_dtype": dtype,
        "counts": {case.label(o): c for o, c in sorted(counts.items(), key=_order)},
        "acceptance_exact": fraction_text(case.acceptance),
        "acceptance_observed": (kept / done) if joint and done else None,
    }
    if joint and done:
        notes.append(
            f"a candidate was kept in {kept / done:.4f} of the draws; the {case.rule} rule keeps one with probability "
            f"{fraction_text(case.acceptance)} ({float(case.acceptance):.4f}), tested with the law of which one"
        )
    return conclude(
        case, "candidates", tally, counts, law, case.label, lambda: case.variant_laws(joint), findings, target,
        data, [], notes,
    )


def _order(item):
    outcome = item[0]
    if isinstance(outcome, tuple):
        return (outcome[0], -1 if outcome[1] is None else outcome[1])
    return (outcome, 0)


def stated_rule(verify, rule: str | None) -> str:
    """The rule the verifier states (``verify.rule``), or the option's; one of RULES."""
    rule = rule or getattr(verify, "rule", None)
    if rule is None:
        raise DraftsInputError(
            "the verifier does not say how its candidates are drawn: set verify.rule to one of " + ", ".join(RULES)
        )
    if rule not in RULES:
        raise DraftsInputError(f"verify.rule {rule!r} is not one of {', '.join(RULES)}")
    return rule
