"""``check_step`` / ``check_block``: the specification's test protocol run on someone's own sampler.

Both run every case of the protocol with fixed seeds, each with enough draws that the stated bias is
detected with the stated power (:mod:`lab.check.power`), and return a :class:`CheckReport`;
:func:`assert_sampler_passes` wraps either for a test suite (an AssertionError listing what failed).
"""

from __future__ import annotations

import inspect
import math
import sys

from lab.check.block import run_block_case, run_generate_case
from lab.check.budget import BudgetInputError, estimate_text, parse_budget, plan, plan_text
from lab.check.candidates import (
    DEFAULT_CANDIDATES,
    candidates_cases,
    run_candidates_case,
    stated_rule,
)
from lab.check.cases import (
    DEFAULT_BLOCK,
    DEFAULT_LENGTH,
    DTYPES,
    BlockCase,
    StepCase,
    block_cases,
    step_cases,
    tree_cases,
)
from lab.check.identify import fit_text
from lab.check.parallel import run_cases
from lab.check.power import PowerTarget, required_draws
from lab.check.processing import processed_block_case, processed_case
from lab.check.progress import Progress, duration_text
from lab.check.report import CheckReport
from lab.check.step import run_step_case
from lab.check.sweep import residual_sweeps
from lab.check.tensors import INPUTS, TENSORS, wants, wrap_block, wrap_step
from lab.core.blocks import BlockInputError
from lab.core.distributions import LabInputError
from lab.core.drafts import MAX_CANDIDATES, DraftsInputError
from lab.core.numbers import shown
from lab.teaching.numerics import backend_report

DEFAULT_SEED = 20260


class CheckInputError(LabInputError):
    """A setting of the check that cannot be used (an unknown case, a dtype, a bound)."""


def sampler_name(sampler) -> str:
    module = getattr(sampler, "__module__", None) or "?"
    return f"{module}:{getattr(sampler, '__qualname__', type(sampler).__name__)}"


def environment(sampler, dtype: str) -> dict:
    stated = getattr(sampler, "backend", None)
    name = getattr(sampler, "__name__", "sampler")
    return {
        "input_dtype": dtype,
        "backend": str(stated) if stated else f"not stated by the sampler (set {name}.backend); inputs are numpy",
        "sampler_dtype": str(getattr(sampler, "dtype", None) or f"not stated (set {name}.dtype)"),
        **{f"lab_{k}": v for k, v in backend_report().items() if k in ("numpy", "python", "machine")},
    }


def _select(cases, names, extra=()):
    if names is None:
        return list(cases)
    known = {c.name: c for c in cases}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CheckInputError(f"unknown case {unknown[0]!r} (known: {', '.join([*known, *extra])})")
    return [known[n] for n in names]


def _settings(target, seed, max_draws, time_limit, dtype, sampler=None) -> dict:
    stated = stated_tv(sampler)
    return {
        "power_target": target.as_json(),
        "tv_stated_by_sampler": stated is not None and stated == target.tv,
        "seed": seed,
        "max_draws": max_draws,
        "time_limit_seconds": time_limit,
        "input_dtype": dtype,
    }


def stated_tv(sampler) -> float | None:
    """The bias a sampler's file asks the check to detect (``sampler.tv = 0.2``), used when the caller gives no
    power target (the command line's ``--tv`` overrides it); None when it states none."""
    tv = getattr(sampler, "tv", None)
    if tv is None:
        return None
    if isinstance(tv, bool) or not isinstance(tv, (int, float)) or not 0 < tv < 1:
        raise CheckInputError(f"{sampler_name(sampler)}.tv = {shown(repr(tv))} is not a number strictly between 0 "
                              "and 1")
    return float(tv)


def _check_common(target, seed, max_draws, time_limit, dtype, sampler=None):
    if dtype not in DTYPES:
        raise CheckInputError(f"dtype {dtype!r} is not one of {', '.join(DTYPES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise CheckInputError(f"the seed must be a whole number >= 0 (got {seed!r})")
    if max_draws is not None and (isinstance(max_draws, bool) or not isinstance(max_draws, int) or max_draws < 1):
        raise CheckInputError(f"max_draws must be a whole number >= 1 (got {max_draws!r})")
    if time_limit is not None and not time_limit > 0:
        raise CheckInputError(f"the time limit must be > 0 seconds (got {time_limit!r})")
    stated = stated_tv(sampler)
    if target is None:
        target = PowerTarget(tv=stated) if stated is not None else PowerTarget()
    return target


def _stated(env: dict, tensors: str) -> dict:
    """The backend line for a torch sampler that does not state one."""
    if tensors == "torch" and env["backend"].startswith("not stated"):
        import torch

        env["backend"] = f"torch {torch.__version__} (not stated by the sampler: set .backend)"
    return env


def _boundary(sampler, tensors, inputs) -> tuple[str, str]:
    tensors = tensors or wants(sampler, "tensors", "numpy")
    inputs = inputs or wants(sampler, "inputs", "probs")
    if tensors not in TENSORS:
        raise CheckInputError(f"tensors {tensors!r} is not one of {', '.join(TENSORS)}")
    if inputs not in INPUTS:
        raise CheckInputError(f"inputs {inputs!r} is not one of {', '.join(INPUTS)}")
    if tensors == "torch":
        try:
            import torch  # noqa: F401
        except ImportError as exc:
            raise CheckInputError(f"the sampler takes torch tensors, but torch cannot be imported ({exc})") from None
    return tensors, inputs


def _batch(batch) -> int | None:
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 1024):
        raise CheckInputError(f"batch must be a whole number from 1 to 1024 (got {batch!r})")
    return batch


def _budget(budget) -> float | None:
    """The whole run's budget in seconds (a number, or text such as '10m')."""
    if budget is None:
        return None
    try:
        return parse_budget(budget) if isinstance(budget, str) else parse_budget(f"{float(budget)}")
    except (BudgetInputError, ValueError):
        raise CheckInputError(
            f"budget {shown(str(budget))} is not a duration from 1 second to 7 days (90s, 10m, 1h)"
        ) from None


def _jobs(jobs) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise CheckInputError(f"jobs must be a whole number from 1 to 64 (got {jobs!r})")
    return jobs


def fork_safe(jobs: int) -> None:
    """Before any call of the sampler when cases will run in forked processes: torch's OpenMP thread pool, once
    started in this process (a probe call of a large tensor operation starts it), deadlocks a forked child. One
    thread per process keeps it from starting; the processes are the parallelism."""
    torch = sys.modules.get("torch")
    if jobs > 1 and torch is not None and hasattr(torch, "set_num_threads") and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def planned_draws(cases, target: PowerTarget, max_draws: int | None) -> int:
    total = 0
    for case in cases:
        needed = required_draws(case.law(), target)[0]
        total += needed if max_draws is None else min(needed, max_draws)
    return total


def _run(runner, sampler, chosen, target: PowerTarget, seed: int, dtype: str, max_draws, time_limit, progress, jobs,
         budget: float | None = None, settings: dict | None = None):
    """Every chosen case through ``runner`` under one clock and one progress bar; with a ``budget`` (seconds for
    the whole run) the cases' rates are probed first and each case gets the draws the plan gives it."""
    jobs = _jobs(jobs)
    fork_safe(jobs)
    case_args = (target, seed, dtype, max_draws, time_limit)
    plans = None
    if budget is not None and chosen:
        plans, probed = plan(runner, sampler, chosen, target, seed, dtype, budget, jobs, time_limit, max_draws)
        print(plan_text(plans, target, budget, jobs, probed), file=sys.stderr, flush=True)
        # a case's time is a bound, not a target: its planned draws end it first (the rate was measured)
        # a case the plan cuts says the budget stopped it, not --max-draws or --time-limit
        case_args = [
            (target, seed, dtype, p.draws, min(time_limit or math.inf, max(2 * p.seconds, 1.0) if p.draws
                                              else max(p.seconds, 1.0)), duration_text(budget) if p.cut else None)
            for p in plans
        ]
        if settings is not None:
            settings.update(budget_seconds=budget, budget_plan=[p.as_json(target) for p in plans])
    planned = planned_draws(chosen, target, max_draws) if plans is None else sum(
        p.draws or 0 for p in plans
    )
    if plans is None and progress and chosen:  # how long the run will take, before it starts
        estimate = estimate_text(runner, sampler, chosen, target, seed, dtype, jobs, max_draws, time_limit)
        if estimate:
            print(estimate, file=sys.stderr, flush=True)
    bar = Progress(planned, progress)
    results = run_cases(runner, sampler, chosen, case_args, bar, jobs)
    bar.close()
    return results


def check_step(
    step,
    *,
    cases: list[str] | None = None,
    target: PowerTarget | None = None,
    seed: int = DEFAULT_SEED,
    max_draws: int | None = None,
    time_limit: float | None = None,
    dtype: str = "float64",
    progress: bool = False,
    jobs: int = 1,
    name: str | None = None,
    tensors: str | None = None,
    inputs: str | None = None,
    batch: int | None = None,
    budget: float | str | None = None,
) -> CheckReport:
    """Run the protocol on ``step(p, q, rng)``: one case per law, then (if ``step.residual`` exists)
    the residual alone on tiny-Z inputs in float64 and float32. ``tensors``, ``inputs`` and ``batch``
    (or the sampler's attributes of those names) say what it takes: :mod:`lab.check.tensors`."""
    if not callable(step):
        raise CheckInputError(f"{step!r} is not callable")
    target = _check_common(target, seed, max_draws, time_limit, dtype, step)
    original = step
    tensors, inputs = _boundary(step, tensors, inputs)
    batch = _batch(batch or getattr(step, "batch", None))
    step = wrap_step(step, tensors, inputs, batch if batch and batch > 1 else None)
    sweep_names = [f"residual-{d}" for d in DTYPES]
    wanted_sweeps = sweep_names if cases is None else [c for c in cases if c in sweep_names]
    residual_fn = getattr(step, "residual", None)
    if cases is not None and wanted_sweeps and not callable(residual_fn):
        raise CheckInputError(
            f"case {wanted_sweeps[0]!r} runs the sampler's residual function alone: set step.residual = residual"
        )
    law_names = None if cases is None else [c for c in cases if c not in sweep_names]
    every = step_cases()
    if getattr(original, "processing", None):  # it takes raw logits and the processing
        every.append(processed_case())
    chosen: list[StepCase] = _select(every, law_names, extra=sweep_names)
    settings = _settings(target, seed, max_draws, time_limit, dtype, original)
    results = _run(run_step_case, step, chosen, target, seed, dtype, max_draws, time_limit, progress, jobs,
                   _budget(budget), settings)
    if callable(residual_fn):
        results.extend(r for r in residual_sweeps(residual_fn) if r.name in wanted_sweeps)
    env = _stated(environment(original, dtype), tensors)
    env.update(tensors=tensors, inputs=inputs, batch=batch or 1)
    if env["sampler_dtype"].startswith("not stated"):
        seen = sorted({d for r in results for d in r.data.get("sampler_dtype", [])})
        if seen:
            env["sampler_dtype"] = f"{', '.join(seen)} (the dtype of the residuals it returned)"
    return CheckReport(name or sampler_name(original), "step", settings, env, results)


def sampler_kind(sampler) -> str:
    """``step`` for a callable of 3 positional parameters (or 4, the fourth ``processing``, when it declares
    ``step.processing = True``), ``verify`` for 4 (a multi-candidate verifier), ``block``
    for 5 (``generate`` when the fourth is called max_new or max_new_tokens; a block sampler that declares
    ``block.tree`` is checked as a tree; a sixth, ``processing``, when it declares ``.processing = True``);
    otherwise CheckInputError."""
    try:
        params = inspect.signature(sampler).parameters.values()
    except (TypeError, ValueError):
        raise CheckInputError(f"cannot read the parameters of {sampler_name(sampler)}: say which kind it is") from None
    positional = [
        p for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(positional) == 3:
        return "step"
    if len(positional) == 4 and getattr(sampler, "processing", None) and positional[3].name == "processing":
        return "step"  # a step sampler that takes raw values and the processing (step.processing = True)
    if len(positional) == 4:
        return "verify"
    if len(positional) == 6 and getattr(sampler, "processing", None) and positional[5].name == "processing":
        positional = positional[:5]  # a block sampler or a loop that takes the processing (.processing = True)
    if len(positional) == 5:
        return "generate" if positional[3].name in ("max_new", "max_new_tokens") else "block"
    raise CheckInputError(
        f"{sampler_name(sampler)} takes {len(positional)} required arguments: a step sampler takes "
        "(p, q, rng), a multi-candidate verifier (p, q, candidates, rng), a block or tree sampler (target, draft, "
        "prefix, k, rng), a whole-generation loop (target, draft, prefix, max_new, rng)"
    )


def assert_sampler_passes(sampler, kind: str | None = None, **options) -> CheckReport:
    """For a test suite: run the check and raise AssertionError naming each failing case and why."""
    kind = kind or sampler_kind(sampler)
    if kind == "generate":
        options.setdefault("interface", "generate")
    report = {"step": check_step, "verify": check_candidates}.get(kind, check_block)(sampler, **options)
    if not report.passed:
        lines = [
            f"{report.sampler} is {report.verdict}: {len(report.failed)} of {len(report.cases)} cases do not pass:"
        ]
        for case in report.failed:
            lines.append(f"  {case.name}: " + "; ".join(case.reasons))
            fit = case.data.get("best_variant")
            if fit and fit["variant"] != "correct":
                lines.append(f"    {fit_text(fit)}")
        raise AssertionError("\n".join(lines))
    return report


def check_block(
    block,
    *,
    block_size: int | None = None,
    length: int | None = None,
    cases: list[str] | None = None,
    target: PowerTarget | None = None,
    seed: int = DEFAULT_SEED,
    max_draws: int | None = None,
    time_limit: float | None = None,
    dtype: str = "float64",
    progress: bool = False,
    jobs: int = 1,
    name: str | None = None,
    interface: str = "block",
    tensors: str | None = None,
    inputs: str | None = None,
    batch: int | None = None,
    budget: float | str | None = None,
) -> CheckReport:
    """Run the protocol on ``block(target, draft, prefix, k, rng)``: every shipped Markov model (with and
    without a stop token) at K = ``block_size`` drafts per block, counting complete outputs of at most
    L = ``length`` tokens (default 2, or 3 for a model that stops). ``interface="generate"``: a
    whole-generation loop ``generate(target, draft, prefix, max_new, rng)`` called once per output with
    max_new = L, its output cut after the first stop token and at L (K then only names the mistakes). A sampler
    that declares ``.processing = True`` takes a sixth argument ``processing`` and gets one more case, raw rows with
    temperature, top-k and top-p (:func:`lab.check.processing.processed_block_case`)."""
    if not callable(block):
        raise CheckInputError(f"{block!r} is not callable")
    if interface not in ("block", "generate"):
        raise CheckInputError(f"interface {interface!r} is not block or generate")
    target = _check_common(target, seed, max_draws, time_limit, dtype, block)
    original = block
    tensors, inputs = _boundary(block, tensors, inputs)
    batch = _batch(batch or getattr(block, "batch", None))
    if batch and batch > 1 and interface == "generate":
        raise CheckInputError("a batched whole-generation loop is not supported: give a batched block sampler")
    processing = bool(getattr(original, "processing", None))
    if batch and batch > 1 and processing:
        raise CheckInputError("a batched block sampler that takes the processing is not supported: give one row")
    block = wrap_block(block, tensors, inputs, batch if batch and batch > 1 else None)
    tree = getattr(original, "tree", None) if interface == "block" else None
    try:
        if tree is not None:
            if block_size is not None:
                raise CheckInputError("--block is for block samplers: a tree sampler's depth comes from block.tree")
            rule = getattr(original, "rule", None)
            if rule is not None:
                rule = stated_rule(original, None)
            every = tree_cases(_widths(tree), rule, length)
        else:
            every = block_cases(block_size or DEFAULT_BLOCK, length)
            if processing:  # it takes raw rows and the processing: the processed target's law is the reference
                every.append(processed_block_case(block_size or DEFAULT_BLOCK, length or DEFAULT_LENGTH))
    except BlockInputError as exc:
        raise CheckInputError(str(exc)) from None
    chosen: list[BlockCase] = _select(every, cases)
    runner = run_generate_case if interface == "generate" else run_block_case
    settings = _settings(target, seed, max_draws, time_limit, dtype, original)
    results = _run(runner, block, chosen, target, seed, dtype, max_draws, time_limit, progress, jobs,
                   _budget(budget), settings)
    settings.update(block=block_size or DEFAULT_BLOCK, length=length)
    if tree is not None:
        settings.update(block=None, tree=list(_widths(tree)), rule=getattr(original, "rule", None))
    env = _stated(environment(original, dtype), tensors)
    env.update(tensors=tensors, inputs=inputs, batch=batch or 1)
    kind = "tree" if tree is not None else interface
    return CheckReport(name or sampler_name(original), kind, settings, env, results)


def _widths(tree) -> tuple[int, ...]:
    """``block.tree`` as widths by depth: a sequence of whole numbers (or the text ``2,2``)."""
    from lab.core.drafts import parse_tree

    if isinstance(tree, str):
        return parse_tree(tree)
    try:
        widths = tuple(tree)
    except TypeError:
        raise CheckInputError(f"block.tree = {tree!r} is not a sequence of widths such as (2, 2)") from None
    if any(isinstance(w, bool) or not isinstance(w, int) for w in widths):
        raise CheckInputError(f"block.tree = {tree!r}: each width must be a whole number >= 1")
    return widths


def _counts(candidates) -> tuple[int, ...]:
    if candidates is None:
        return DEFAULT_CANDIDATES
    counts = (candidates,) if isinstance(candidates, int) else tuple(candidates)
    for k in counts:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_CANDIDATES:
            raise CheckInputError(f"candidates K must be a whole number from 1 to {MAX_CANDIDATES} (got {k!r})")
    return counts


def check_candidates(
    verify,
    *,
    candidates: int | tuple[int, ...] | None = None,
    rule: str | None = None,
    cases: list[str] | None = None,
    target: PowerTarget | None = None,
    seed: int = DEFAULT_SEED,
    max_draws: int | None = None,
    time_limit: float | None = None,
    dtype: str = "float64",
    progress: bool = False,
    jobs: int = 1,
    name: str | None = None,
    tensors: str | None = None,
    inputs: str | None = None,
    batch: int | None = None,
    budget: float | str | None = None,
) -> CheckReport:
    """Run the protocol on a multi-candidate verifier ``verify(p, q, candidates, rng)`` -> token (or (token,
    kept_index)): every step case and a case with Z = 0 at a middle stage, at K = 2 and 3 candidates (or
    ``candidates``) drawn by the check by ``verify.rule`` (or ``rule``), each output counted against the engine's
    exact law (:mod:`lab.check.candidates`)."""
    if not callable(verify):
        raise CheckInputError(f"{verify!r} is not callable")
    target = _check_common(target, seed, max_draws, time_limit, dtype, verify)
    try:
        rule = stated_rule(verify, rule)
    except DraftsInputError as exc:
        raise CheckInputError(str(exc)) from None
    tensors, inputs = _boundary(verify, tensors, inputs)
    batch = _batch(batch or getattr(verify, "batch", None))
    boundary = (tensors, inputs, batch if batch and batch > 1 else None)
    every, skipped = candidates_cases(rule, _counts(candidates))
    chosen = _select(every, cases)
    settings = _settings(target, seed, max_draws, time_limit, dtype, verify)
    results = _run(
        run_candidates_case, (verify, *boundary), chosen, target, seed, dtype, max_draws, time_limit, progress, jobs,
        _budget(budget), settings,
    )
    settings.update(rule=rule, candidates=list(_counts(candidates)), skipped=skipped if cases is None else [])
    env = _stated(environment(verify, dtype), tensors)
    env.update(tensors=tensors, inputs=inputs, batch=batch or 1)
    return CheckReport(name or sampler_name(verify), "verify", settings, env, results)
