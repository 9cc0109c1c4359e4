"""Checking a one-step sampler ``step(p, q, rng) -> token`` (or ``-> (token, residual or None)``)."""

from __future__ import annotations

import math
import operator
import zlib
from dataclasses import dataclass

import numpy as np

from lab.check.acceptance import acceptance
from lab.check.boundary import boundary_relevant, kept_flag, run_boundary, was_kept
from lab.check.cases import StepCase, rounded
from lab.check.floor import floor_bias, floor_text
from lab.check.identify import best_variant, residual_variants
from lab.check.power import PowerTarget, power_of, required_draws, ruled_out_text, ruled_out_tv
from lab.check.processing import no_processing
from lab.check.progress import duration_text
from lab.check.report import CaseResult
from lab.check.residuals import check_residual, listed
from lab.check.watch import HANG_GRACE, Clock, Findings, StopDrawing, run_draws
from lab.core.formatting import fraction_text
from lab.core.sampling import chi_square_test

MAX_DISTINCT_RESIDUALS = 64  # distinct returned residuals checked exactly per case (a correct one returns 1)


def case_rng(seed: int, name: str) -> np.random.Generator:
    """The case's own generator: fixed by the seed and the case's name (not its position in the run)."""
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def token_index(value, size: int) -> tuple[int | None, str | None]:
    """(index, None) for a valid token index, else (None, what is wrong with the value)."""
    try:
        index = operator.index(value)
    except TypeError:
        if isinstance(value, (float, np.floating)) and math.isnan(value):
            return None, "returned NaN as the token"
        return None, f"returned {value!r} ({type(value).__name__}), not a token index"
    if not 0 <= index < size:
        return None, f"returned token index {index}, outside 0..{size - 1}"
    return index, None


def _sortable(outcome):
    """An outcome as a sort key: a (token, kept index) pair has None for the correction, sorted first."""
    if isinstance(outcome, tuple):
        return tuple(-1 if v is None else v for v in outcome)
    return outcome


def law_verdict(counts: dict, law: dict, labels, target: PowerTarget) -> tuple[dict, list[str]]:
    """The chi-square of the counts against the exact law, and the reasons it fails (if it does)."""
    test = chi_square_test(counts, law)
    reasons = []
    impossible = {k: c for k, c in counts.items() if c and not law.get(k)}
    if impossible:
        shown = listed(f"{labels(k)} x{c:,}" for k, c in sorted(impossible.items(), key=lambda kv: _sortable(kv[0])))
        reasons.append(f"drew outcomes the target gives probability 0: {shown} (an immediate fail)")
    elif test.p_value is not None and test.p_value < target.false_alarm:
        reasons.append(
            f"the counts do not follow the target law: chi-square {test.statistic:.1f} on {test.df} df, "
            f"p = {test.p_value:.3g} < {target.false_alarm:g}"
        )
    return {"method": "Pearson chi-square (categories expecting < 5 pooled)", **test.as_json()}, reasons


def numerics_verdict(findings, where: str = "") -> tuple[list[str], list[str]]:
    """(reasons the case fails, notes) from what the sampler did besides returning tokens: a 0/0, a NaN,
    an exception or a value that is not a token fail the case even when the law is right."""
    reasons, notes = [], []
    if findings.invalid:
        reasons.append(
            f"numpy invalid-value event(s){where}: {findings.invalid:,}, first at draw {findings.invalid_at}: "
            "a 0/0 (or another invalid operation) was evaluated, whatever the output law"
        )
    if findings.nan_outputs:
        reasons.append(f"NaN in what the sampler returned{where} ({findings.nan_outputs:,} call(s))")
    if findings.exception:
        reasons.append(f"the sampler raised {findings.exception}{where} at draw {findings.exception_at}")
    if findings.bad_output and not findings.nan_outputs:
        reasons.append(f"the sampler {findings.bad_output}")
    if findings.divide:
        notes.append(f"numpy reported {findings.divide:,} division(s) by zero")
    if findings.overflow:
        notes.append(f"numpy reported {findings.overflow:,} overflow(s)")
    notes.extend(f"the sampler warned: {w}" for w in findings.warnings)
    return reasons, notes


@dataclass
class Tally:
    """How one case's run of draws went, whatever the sampler's kind."""

    needed: int  # draws the stated power needs
    planned: int  # draws planned (needed, or the cap)
    df: int  # the test's degrees of freedom
    done: int = 0
    cut: bool = False  # the time limit ended the run
    hung: bool = False  # ... while a call was still running (interrupted)
    unit: str = "draws"
    seconds: float = 0.0  # time spent drawing
    budget: str | None = None  # the whole run's budget (its text) when it set the cap and the time, else the options

    @property
    def rate(self) -> float | None:
        """Draws (or sequences) a second, measured over this case; None before the first one."""
        return self.done / self.seconds if self.done and self.seconds > 0 else None

    def header(self, target: PowerTarget) -> dict:
        rate = self.rate
        return {
            "draws_required": self.needed,
            "draws_planned": self.planned,
            "draws": self.done,
            "power": power_of(self.df, self.done, target) if self.done else 0.0,
            "tv_ruled_out": ruled_out_tv(self.df, self.done, target),
            "degrees_of_freedom": self.df,
            "seconds": round(self.seconds, 3),
            "rate_per_second": None if rate is None else round(rate, 1),
            "seconds_for_full_power": None if rate is None else round(self.needed / rate, 1),
        }

    def full_power_text(self) -> str:
        """How long the stated power would take at the rate this case measured (for a case cut short)."""
        rate = self.rate
        if rate is None:
            return "no call returned, so no rate was measured"
        return (
            f"at the measured {rate:,.0f} {self.unit}/s the stated power's {self.needed:,} {self.unit} take about "
            f"{duration_text(self.needed / rate)} (--time-limit per case, or --tv larger for fewer {self.unit})"
        )


def conclude(case, kind: str, tally: Tally, counts: dict, law: dict, labels, variant_laws, findings,
             target: PowerTarget, data: dict, reasons: list[str], notes: list[str], where: str = "") -> CaseResult:
    """The verdict of a case from its run: limits, numerics, the law test and, when the law is off, the
    named mistake that fits best. ``variant_laws`` is called only then (exact laws cost time).

    Three verdicts: **fail** when something is wrong (the law, a residual, a run-time check), with the
    evidence; **inconclusive** when nothing wrong was found but the time or draw limit stopped the case
    before the stated power; **pass** otherwise. Counts cut short are still tested: a chi-square
    rejection there is a fail at the same false-alarm rate (when the clock stops a run does not depend
    on the draws)."""
    data.update(tally.header(target))
    limits: list[str] = []  # why the case is inconclusive, if nothing fails it
    if tally.planned < tally.needed:
        notes.append(
            f"{tally.unit} capped{' by the budget' if tally.budget else ''} at {tally.planned:,} (the stated power "
            f"needs {tally.needed:,}): power {power_of(tally.df, tally.planned, target):.4f}"
        )
        if not tally.cut:
            limits.append(
                f"{f'the budget ({tally.budget})' if tally.budget else '--max-draws'} stopped the case at "
                f"{tally.planned:,} of the {tally.needed:,} {tally.unit} the stated power needs: power "
                f"{data['power']:.4f} at TV {target.tv:g}; {ruled_out_text(tally.df, tally.done, target)}; "
                f"{tally.full_power_text()}"
            )
    if tally.hung:
        limits.append(
            f"the sampler was still running {HANG_GRACE:g} s past the time limit: interrupted after "
            f"{tally.done:,} of {tally.planned:,} {tally.unit} (power {data['power']:.4f} at TV {target.tv:g}; "
            f"{ruled_out_text(tally.df, tally.done, target)}); {tally.full_power_text()}"
        )
    elif tally.cut:
        ended = (f"the budget's time for the case ({tally.budget}) ended it" if tally.budget
                 else "the time limit ended the case")
        limits.append(
            f"{ended} after {tally.done:,} of {tally.planned:,} {tally.unit} "
            f"(power {data['power']:.4f} at TV {target.tv:g}; {ruled_out_text(tally.df, tally.done, target)}); "
            f"{tally.full_power_text()}"
        )
    data["numerics"] = findings.as_json()
    numeric_reasons, numeric_notes = numerics_verdict(findings, where)
    reasons.extend(numeric_reasons)
    notes.extend(numeric_notes)
    stopped_by_finding = tally.done < tally.planned and not tally.cut
    impossible = any(c and not law.get(o) for o, c in counts.items())
    statistical = False  # the only evidence is the chi-square's (a power figure means something)
    if tally.done and (not stopped_by_finding or impossible):
        test, law_reasons = law_verdict(counts, law, labels, target)
        data["test"] = test
        statistical = bool(law_reasons) and not impossible and not reasons
        reasons.extend(law_reasons)
        if law_reasons:
            data["best_variant"] = best_variant(counts, law, variant_laws(), target.false_alarm)
    else:
        data["test"] = None
        if not reasons and not limits:
            reasons.append(f"the law was not tested (no complete run of {tally.unit})")
    failed = bool(reasons)
    inconclusive = not failed and bool(limits)
    data["certain"] = failed and not statistical  # no draw count changes this verdict: no power is shown
    return CaseResult(case.name, kind, case.description, not failed and not inconclusive,
                      reasons + ([] if failed else limits), notes, data, inconclusive=inconclusive)


def _boundary_of(step, sampler) -> None:
    """A closure around the sampler reaches it the way the sampler is reached (numpy's random() or torch's)."""
    step.boundary = getattr(sampler, "boundary", "numpy")
    if hasattr(sampler, "boundary_skipped"):
        step.boundary_skipped = sampler.boundary_skipped


def run_step_case(step, case: StepCase, target: PowerTarget, seed: int, dtype: str, max_draws: int | None,
                  time_limit: float | None, budget: str | None = None, *, progress) -> CaseResult:
    law = case.law()
    needed, df = required_draws(law, target)
    draws = needed if max_draws is None else min(needed, max_draws)
    p, q = rounded(case.p, dtype), rounded(case.q, dtype)
    size = len(case.tokens)
    processing = getattr(case, "processing", None)
    if processing is not None:  # the sampler gets the raw values and the processing, not p and q
        raw_p, raw_q = rounded(case.raw_p, dtype), rounded(case.raw_q, dtype)
        sampler = step

        def step(p, q, rng):
            return sampler(raw_p, raw_q, rng, processing=dict(processing))

        _boundary_of(step, sampler)
    elif getattr(step, "processing", None):  # a sampler that processes what it gets: here, nothing to process
        sampler, identity = step, no_processing(size)

        def step(p, q, rng):
            return sampler(p, q, rng, processing=dict(identity))

        _boundary_of(step, sampler)
    rng = case_rng(seed, case.name)
    counts = [0] * size
    findings = Findings()
    residuals: dict = {}  # (dtype, bytes) -> [array, calls]
    unchecked = 0
    kept = [0, 0]  # drafts kept, calls that said whether they kept theirs

    def draw(i: int) -> None:
        nonlocal unchecked
        invalid = findings.invalid
        try:
            out = step(p, q, rng)
        except Exception as exc:  # the user's code: its failure is a finding, named
            findings.record_exception(exc, i)
            raise StopDrawing from None
        if findings.invalid != invalid and findings.invalid_at is None:
            findings.invalid_at = i
        if type(out) is tuple:
            if len(out) != 2:
                findings.bad_output = f"returned a tuple of {len(out)} values (expected token or (token, residual))"
                raise StopDrawing
            out, r = out
            kept[0] += was_kept(r)
            kept[1] += 1
            if r is not None and kept_flag(r) is None:  # a residual (not a kept flag): checked below
                arr = np.asarray(r)
                key = (arr.dtype.str, arr.shape, arr.tobytes())
                seen = residuals.get(key)
                if seen is not None:
                    seen[1] += 1
                elif len(residuals) < MAX_DISTINCT_RESIDUALS:
                    residuals[key] = [arr.copy(), 1]
                else:
                    unchecked += 1
        if type(out) is int and 0 <= out < size:
            counts[out] += 1
        else:
            index, problem = token_index(out, size)
            if problem:
                if "NaN" in problem:
                    findings.nan_outputs += 1
                findings.bad_output = f"{problem} at draw {i}"
                raise StopDrawing
            counts[index] += 1

    done, cut, hung, seconds = run_draws(draws, case.name, Clock(time_limit), progress, findings, draw)
    tally = Tally(needed, draws, df, done, cut, hung, seconds=seconds, budget=budget)

    reasons: list[str] = []
    notes: list[str] = []
    boundary = None
    if not findings.exception and not hung and boundary_relevant(case.p, case.q):
        mode = getattr(step, "boundary", "numpy")
        if mode:
            zero_draws = sum(c for c, v in zip(counts, case.p) if v == 0)
            boundary, boundary_reasons, boundary_notes = run_boundary(
                step, p, q, case.p, case.tokens, rng, mode, zero_draws
            )
            reasons.extend(boundary_reasons)
            notes.extend(boundary_notes)
        else:
            notes.append(getattr(step, "boundary_skipped", "boundary uniforms not run"))
    data: dict = {
        "tokens": list(case.tokens),
        "p": [fraction_text(v) for v in case.p],
        "q": [fraction_text(v) for v in case.q],
        "z": fraction_text(case.z),
        "target_law": {t: fraction_text(v) for t, v in zip(case.tokens, case.p)},
        "input_dtype": dtype,
        "counts": {t: c for t, c in zip(case.tokens, counts)},
    }
    if boundary is not None:
        data["boundary_uniforms"] = boundary
    if kept[1] and kept[1] == done:  # every call said whether it kept its draft
        data["acceptance"], acceptance_notes = acceptance(kept[0], kept[1], case.p, case.q, target.false_alarm)
        notes.extend(acceptance_notes)

    # residuals the sampler returned
    checks = []
    nan_residual_calls = 0
    for arr, calls in residuals.values():
        result = check_residual(arr, p, q, case.tokens, case.residual)
        result["calls"] = calls
        if result.get("floor"):
            result["floor"].update(floor_bias(case.p, case.q, result["floor"]["floor"], target))
            result["matches_named_mistakes"] = ["epsilon-floor"]
        elif result["problems"] and arr.shape == (size,) and arr.dtype.kind == "f" and np.isfinite(arr).all():
            result["matches_named_mistakes"] = residual_variants(arr, case.p, case.q)
        checks.append(result)
        if arr.dtype.kind == "f" and np.isnan(arr).any():
            nan_residual_calls += calls
    findings.nan_outputs += nan_residual_calls
    problems = sorted({problem for c in checks for problem in c["problems"]})
    data["residual_checks"] = {
        "exposed": bool(checks),
        "returned": sum(c["calls"] for c in checks) + unchecked,
        "distinct": len(checks),
        "unchecked_distinct_beyond_limit": unchecked,
        "checks": checks,
    }
    reasons.extend(f"residual: {problem}" for problem in problems)
    notes.extend(sorted({f"residual: {note}" for c in checks for note in c.get("notes", [])}))
    floors = {c["floor"]["floor"]: c for c in checks if c.get("floor")}
    for floor, check in sorted(floors.items()):
        data["epsilon_floor"] = check["floor"]
        reasons.append(f"residual: {floor_text((floor, check['floor']['known_as']), check['floor'])}")
    matched = sorted({name for c in checks for name in c.get("matches_named_mistakes", [])})
    if matched:
        data["residual_matches"] = matched
        reasons.append(f"the returned residual is the one the named mistake {' / '.join(matched)} computes")
    if checks:
        data["sampler_dtype"] = sorted({c["dtype"] for c in checks})

    return conclude(
        case, "step", tally, dict(enumerate(counts)), law, case.tokens.__getitem__,
        lambda: {n: dict(enumerate(v)) for n, v in case.variant_laws().items()},
        findings, target, data, reasons, notes, " on a case with Z = 0" if case.z == 0 else "",
    )
