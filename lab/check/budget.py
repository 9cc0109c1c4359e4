"""A whole-run budget (``--budget 10m``): the check measures each case's rate on a few draws, plans the
draws every case gets so the run fits, says the plan before it starts, and calls a case the budget cut short
inconclusive (unless something fails it), as a time limit does.

The plan: a case whose stated power fits its share gets it in full; the time the cheap cases leave is shared
equally by the others ("water-filling": every cut case gets the same time). Capacity is the budget less the
probes' time and a tenth for the report's own work, times the processes that run side by side.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from lab.check.power import PowerTarget, power_of, required_draws
from lab.check.progress import duration_text
from lab.core.distributions import LabInputError
from lab.core.numbers import shown

PROBE_DRAWS = 40  # draws (or outputs) per case to measure its rate
PROBE_SECONDS = 2.0  # at most this long per case
SLACK = 0.9  # the share of the budget planned for draws
MAX_BUDGET = 7 * 86_400


class BudgetInputError(LabInputError):
    """A budget that cannot be read."""


MAX_BUDGET_CHARS = 32  # longer text is refused from its length, before it is read


def parse_budget(text: str) -> float:
    """'90s', '10m', '1.5h', '600' (seconds) as seconds."""
    text = str(text)
    match = len(text) <= MAX_BUDGET_CHARS and re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not match:
        raise BudgetInputError(f"budget {shown(text)} is not a duration such as 90s, 10m or 1h")
    seconds = float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]
    if not 1 <= seconds <= MAX_BUDGET:
        raise BudgetInputError(f"budget {shown(text)} must be from 1 second to 7 days")
    return seconds


class _Quiet:
    def advance(self, draws: int, label: str | None = None) -> None:
        pass


@dataclass
class CasePlan:
    name: str
    needed: int
    rate: float | None  # draws a second, measured; None when the probe returned nothing
    seconds: float  # time planned for the case's draws
    draws: int | None  # draws planned (None: no rate, the case runs to its time)
    df: int

    @property
    def cut(self) -> bool:
        return self.draws is None or self.draws < self.needed

    def as_json(self, target: PowerTarget) -> dict:
        return {
            "case": self.name,
            "draws_required": self.needed,
            "rate_per_second": None if self.rate is None else round(self.rate, 1),
            "seconds_planned": round(self.seconds, 1),
            "draws_planned": self.draws,
            "power_planned": None if self.draws is None else round(power_of(self.df, self.draws, target), 4),
            "cut_by_budget": self.cut,
        }


def plan(runner, sampler, cases, target: PowerTarget, seed: int, dtype: str, budget: float, jobs: int,
         time_limit: float | None, max_draws: int | None) -> tuple[list[CasePlan], float]:
    """(one plan per case, seconds the probes took)."""
    started = time.perf_counter()
    rates = []
    # a first call pays for imports and caches (torch's first operations): measure after it
    runner(sampler, cases[0], target, seed + 2, dtype, PROBE_DRAWS // 4, PROBE_SECONDS, progress=_Quiet())
    for case in cases:
        result = runner(sampler, case, target, seed + 1, dtype, PROBE_DRAWS, PROBE_SECONDS, progress=_Quiet())
        rates.append(result.data.get("rate_per_second") or None)
    probed = time.perf_counter() - started
    capacity = max(budget * SLACK - probed, 1.0) * max(1, min(jobs, len(cases)))
    needs = []
    for case, rate in zip(cases, rates):
        needed, df = required_draws(case.law(), target)
        wanted = needed if max_draws is None else min(needed, max_draws)
        full = wanted / rate if rate else None
        if time_limit is not None and full is not None:
            full = min(full, time_limit)
        needs.append((case.name, needed, wanted, df, rate, full))
    # water-filling: the cases that need less than an equal share get what they need; the rest share the remainder
    open_cases = list(needs)
    share = capacity / len(needs)
    while True:
        small = [n for n in open_cases if n[5] is not None and n[5] <= share]
        if not small:
            break
        capacity -= sum(n[5] for n in small)
        open_cases = [n for n in open_cases if n not in small]
        if not open_cases:
            break
        share = capacity / len(open_cases)
    plans = []
    for name, needed, wanted, df, rate, full in needs:
        seconds = full if full is not None and full <= share else share
        if time_limit is not None:
            seconds = min(seconds, time_limit)
        draws = None if not rate else max(1, min(wanted, int(seconds * rate)))
        plans.append(CasePlan(name, needed, rate, seconds, draws, df))
    return plans, probed


def plan_text(plans: list[CasePlan], target: PowerTarget, budget: float, jobs: int, probed: float) -> str:
    """The plan, said before the run starts."""
    processes = max(1, min(jobs, len(plans)))
    total = sum(p.seconds for p in plans) / processes + probed
    lines = [
        f"lab check: budget {duration_text(budget)} on {processes} process(es); rates measured on {PROBE_DRAWS} "
        f"draws a case in {duration_text(probed)}; the plan takes about {duration_text(total)}:"
    ]
    for p in plans:
        rate = "rate unknown (the probe returned nothing)" if p.rate is None else f"{p.rate:,.0f}/s"
        if p.draws is None:
            what = f"runs {duration_text(p.seconds)}"
        elif p.cut:
            what = (f"{p.draws:,} of {p.needed:,} draws, power {power_of(p.df, p.draws, target):.2f} at TV "
                    f"{target.tv:g} (cut by the budget)")
        else:
            what = f"{p.draws:,} draws, full power"
        lines.append(f"  {p.name:<36} {rate:>12}  {what}, about {duration_text(p.seconds)}")
    cut = [p.name for p in plans if p.cut]
    if cut:
        lines.append(
            f"  {len(cut)} of {len(plans)} case(s) cut by the budget: inconclusive unless something fails them "
            "(a larger --budget or --tv gives them the stated power)"
        )
    return "\n".join(lines)


ESTIMATE_FROM = 10.0  # seconds: a run expected to take longer is announced before it starts


def estimate_text(runner, sampler, cases, target: PowerTarget, seed: int, dtype: str, jobs: int,
                  max_draws: int | None, time_limit: float | None) -> str | None:
    """What a run without a budget will take, said before it starts when that is ESTIMATE_FROM seconds or more or the
    time limit will stop a case:
    the draws the stated power needs, the time at the rate of a few probe draws on the first case, and how many
    cases the time limit will stop first (a slow sampler learns at once that the defaults take an hour and end
    inconclusive, and that ``--budget`` fits the run to a time). None when there is nothing to say."""
    # one warm-up call pays for imports and caches, as in plan()
    runner(sampler, cases[0], target, seed + 2, dtype, 1, PROBE_SECONDS, progress=_Quiet())
    result = runner(sampler, cases[0], target, seed + 1, dtype, PROBE_DRAWS // 4, PROBE_SECONDS, progress=_Quiet())
    rate = result.data.get("rate_per_second")
    if not rate:  # no draw returned: the run itself says why
        return None
    draws = cut = 0
    seconds = 0.0
    for case in cases:
        needed = required_draws(case.law(), target)[0]
        wanted = needed if max_draws is None else min(needed, max_draws)
        draws += wanted
        if time_limit is not None and wanted / rate > time_limit:
            cut += 1
            seconds += time_limit
        else:
            seconds += wanted / rate
    processes = max(1, min(jobs, len(cases)))
    seconds /= processes
    if seconds < ESTIMATE_FROM and not cut:
        return None
    plural = "s" if len(cases) != 1 else ""
    text = (
        f"lab check: {draws:,} draws over {len(cases)} case{plural} (TV >= {target.tv:g} with power "
        f"{target.power:g}); at {1000 / rate:,.2g} ms a draw (measured on {PROBE_DRAWS // 4} draws of "
        f"{cases[0].name}), about {duration_text(seconds)} on {processes} process{'es' if processes != 1 else ''}"
    )
    if cut:
        text += (f"; {cut} of {len(cases)} case{plural} will stop at the time limit ({duration_text(time_limit)} a "
                 "case) before the stated power, inconclusive unless something fails them")
    if seconds > 600 or cut:
        text += "; --budget 10m (say) plans the run to fit a time, or --tv larger needs fewer draws"
    return text
