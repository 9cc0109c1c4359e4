"""What a check reports: one result per case and the whole run, as text and as strict JSON.

Three verdicts, per case and for the run: ``pass``; ``fail`` (something is wrong, with the evidence);
``inconclusive`` (nothing wrong found, but the time or draw limit stopped a case before the stated
power). Exit statuses: 0 pass, 1 fail, 3 inconclusive (2 is bad usage, from the command line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction

from lab.check.identify import agreement, agreement_text, fit_text


@dataclass
class CaseResult:
    name: str
    kind: str  # "step", "block" or "residual"
    description: str
    passed: bool
    reasons: list[str]  # why the case fails (empty when it passes)
    notes: list[str] = field(default_factory=list)  # findings that do not fail the case
    data: dict = field(default_factory=dict)  # everything else, for JSON
    inconclusive: bool = False  # stopped by a limit before the stated power, nothing wrong found

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "inconclusive" if self.inconclusive else "fail"

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "notes": list(self.notes),
            **self.data,
        }

    def summary_line(self) -> str:
        verdict = {"pass": "pass", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}[self.verdict]
        draws = self.data.get("draws")
        bits = []
        if draws is not None:
            bits.append(f"{draws:,} draws")
        # a certain fail (a token of probability 0, an exception, a wrong residual) has no power figure:
        # no number of draws would change it
        if self.data.get("power") is not None and not self.data.get("certain"):
            bits.append(f"power {self.data['power']:.4f}")
            if self.verdict == "inconclusive" and self.data.get("tv_ruled_out") is not None:
                bits.append(f"rules out TV >= {self.data['tv_ruled_out']:.3g}")
        test = self.data.get("test") or {}
        if test.get("p_value") is not None:
            bits.append(f"chi-square p = {test['p_value']:.3g}")
        kept = self.data.get("acceptance")
        if kept:
            waste = ": WASTEFUL" if kept["wasteful"] else ""
            bits.append(f"drafts kept {kept['rate']:.4f} (at most {kept['optimum_decimal']:.4g}){waste}")
        blocks = self.data.get("block_acceptance")
        if blocks:
            waste = ": WASTEFUL" if blocks["wasteful"] and self.verdict == "pass" else ""
            bits.append(f"first blocks commit {blocks['mean_tokens']:.3f} tokens "
                        f"(speculative sampling {blocks['speculative_mean_decimal']:.4g}){waste}")
        return f"{verdict:4}  {self.name:<36} " + ", ".join(bits)


EXIT_STATUS = {"pass": 0, "fail": 1, "inconclusive": 3}


def largest_gaps(data: dict, count: int = 3) -> list[str]:
    """The outcomes whose observed frequency is farthest from the exact target law, as short text."""
    law, counts, draws = data.get("target_law"), data.get("counts"), data.get("draws")
    if not law or counts is None or not draws:
        return []
    outcomes = set(law) | {k for k, c in counts.items() if c}
    rows = []
    for outcome in outcomes:
        target = float(Fraction(law.get(outcome, "0")))
        observed = counts.get(outcome, 0) / draws
        rows.append((abs(observed - target), outcome, observed, target))
    rows.sort(key=lambda row: (-row[0], row[1]))
    return [f"{o or '(empty)'} {obs:.4f} vs {t:.4f}" for gap, o, obs, t in rows[:count] if gap > 0]


@dataclass
class CheckReport:
    sampler: str
    kind: str  # "step" or "block"
    settings: dict
    environment: dict
    cases: list[CaseResult]

    @property
    def passed(self) -> bool:
        return bool(self.cases) and all(c.passed for c in self.cases)

    @property
    def failed(self) -> list[CaseResult]:
        """The cases that did not pass (failed or inconclusive)."""
        return [c for c in self.cases if not c.passed]

    @property
    def verdict(self) -> str:
        verdicts = {c.verdict for c in self.cases}
        if "fail" in verdicts or not self.cases:
            return "fail"
        return "inconclusive" if "inconclusive" in verdicts else "pass"

    @property
    def exit_status(self) -> int:
        """0 every case passes, 1 a case fails, 3 none fails but one is inconclusive."""
        return EXIT_STATUS[self.verdict]

    def as_json(self) -> dict:
        return {
            "sampler": self.sampler,
            "kind": self.kind,
            "verdict": self.verdict,
            "exit_status": self.exit_status,
            "settings": self.settings,
            "environment": self.environment,
            "cases": [c.as_json() for c in self.cases],
            "named_mistake": agreement(self.cases),
        }

    def json_text(self) -> str:
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False, allow_nan=False)

    def text(self, traceback: bool = False) -> str:
        """The report a person reads; ``traceback`` adds the whole traceback of each exception."""
        names = {"verify": "multi-candidate verifier", "tree": "tree sampler"}
        what_kind = names.get(self.kind, f"{self.kind} sampler")
        lines = [f"{what_kind} {self.sampler}"]
        if self.kind == "verify":
            lines.append(
                f"candidates drawn by the check, rule {self.settings.get('rule')}, "
                f"K = {', '.join(map(str, self.settings.get('candidates', [])))}"
            )
        if self.kind == "tree":
            widths = ",".join(map(str, self.settings.get("tree") or []))
            lines.append(f"tree widths {widths}, rule {self.settings.get('rule') or 'not stated (set block.rule)'}")
        env = self.environment
        kind = "torch tensors" if env.get("tensors") == "torch" else "numpy arrays"
        what = "logits" if env.get("inputs") == "logits" else "probabilities"
        batch = f", batches of {env['batch']} rows" if (env.get("batch") or 1) > 1 else ""
        lines.append(
            f"inputs: {env.get('input_dtype')} {kind} of {what}{batch}; backend: {env.get('backend')}; "
            f"sampler dtype: {env.get('sampler_dtype')}"
        )
        power = self.settings.get("power_target", {})
        if power:
            lines.append(
                f"power: TV >= {power['tv']:g} detected with power {power['power']:g} at false-alarm "
                f"{power['false_alarm']:g} per case (seed {self.settings.get('seed')})"
                + ("; the TV is the one the sampler states (.tv), --tv overrides it"
                   if self.settings.get("tv_stated_by_sampler") else "")
            )
        lines.append("")
        for case in self.cases:
            lines.append(case.summary_line())
            for reason in case.reasons:
                lines.append(f"      - {reason}")
            numerics = case.data.get("numerics") or {}
            if numerics.get("exception_place"):
                lines.append(f"        {numerics['exception_place']}")
            if traceback and numerics.get("exception_traceback"):
                lines.extend("        " + line for line in numerics["exception_traceback"].splitlines())
            for note in case.notes:
                lines.append(f"      note: {note}")
            gaps = largest_gaps(case.data) if not case.passed else []
            if gaps:
                lines.append("      largest gaps, observed vs target: " + "; ".join(gaps))
            fit = case.data.get("best_variant")
            if fit and not case.passed and fit["variant"] == "correct":
                lines.append(
                    "      no named mistake fits better than the correct rule's own law: the counts are off by "
                    "something else"
                )
                fit = None
            if fit and not case.passed:
                lines.append(f"      {fit_text(fit)}")
        across = agreement_text(agreement(self.cases))
        if across:
            lines.append(across)
        for skipped in self.settings.get("skipped") or []:
            lines.append(f"not run  {skipped['case']}: {skipped['reason']}")
        lines.append("")
        failed = [c for c in self.cases if c.verdict == "fail"]
        unsure = [c for c in self.cases if c.verdict == "inconclusive"]
        if failed:
            lines.append(f"FAIL: {len(failed)} of {len(self.cases)} cases failed: {', '.join(c.name for c in failed)}")
        if unsure:
            lines.append(
                f"INCONCLUSIVE: {len(unsure)} of {len(self.cases)} cases stopped by a limit before the stated power "
                f"(nothing wrong found in them): {', '.join(c.name for c in unsure)}"
            )
        if not failed and not unsure:
            lines.append(f"pass: all {len(self.cases)} cases")
        lines.append(f"exit status {self.exit_status} ({self.verdict})")
        return "\n".join(lines)
