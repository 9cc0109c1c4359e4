"""``python -m lab check MODULE:FUNCTION``: the specification's test protocol run on your own sampler.

    python -m lab check examples/correct_numpy.py:step [--json] [--max-draws N] [--time-limit S] [--budget 10m]

Exit status: 0 when every case passes, 1 when one fails, 3 when none fails but one is inconclusive (a
time or draw limit stopped it before the stated power), 2 (one line on stderr) for bad usage (a
reference that cannot be loaded, a bad option). It runs the named code on this machine: it is a
command-line tool, never reached from the web app.
"""

from __future__ import annotations

import argparse
import os
import sys

from lab.check import PowerTarget, check_block, check_step, sampler_kind
from lab.check.api import DEFAULT_SEED, check_candidates, stated_tv
from lab.check.budget import BudgetInputError, parse_budget
from lab.check.cases import DTYPES
from lab.check.loader import load_sampler
from lab.cli.output import UsageError, whole_number
from lab.core.drafts import RULES
from lab.core.numbers import NumberInputError, parse_number

DEFAULT_TIME_LIMIT = 300.0  # seconds per case: a hung or very slow sampler is cut off (inconclusive, not failed)


def probability_option(name: str):
    def parse(text: str) -> float:
        try:
            value = float(parse_number(text, name))
        except NumberInputError as exc:
            raise argparse.ArgumentTypeError(exc.problem) from None
        if not 0 < value < 1:
            raise argparse.ArgumentTypeError(f"{text!r} must be strictly between 0 and 1")
        return value

    return parse


def seconds(text: str) -> float:
    try:
        value = float(parse_number(text, "seconds"))
    except NumberInputError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 86400 seconds")
    return value


def budget_option(text: str) -> float:
    try:
        return parse_budget(text)
    except BudgetInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_check(args) -> int:
    for name, low, high in (("max_draws", 1, 10**9), ("seed", 0, 2**63 - 1), ("jobs", 1, 64),
                            ("block", 1, 8), ("length", 1, 8), ("batch", 1, 1024), ("candidates", 1, 16)):
        value = getattr(args, name, None)
        if value is not None and not low <= value <= high:
            raise UsageError(f"lab check: --{name.replace('_', '-')} must be from {low} to {high} (got {value})")
    sampler = load_sampler(args.sampler)
    kind = args.kind or sampler_kind(sampler)
    stated = stated_tv(sampler)  # the sampler's own .tv, when --tv is not given
    target = PowerTarget(args.tv if args.tv is not None else stated or 0.01, args.power, args.false_alarm)
    # a bar in a terminal; elsewhere (CI, a pipe, a log file) a line every few seconds
    progress = ("bar" if sys.stderr.isatty() else "lines") if args.progress is None else args.progress
    options = dict(
        cases=args.cases.split(",") if args.cases else None,
        target=target,
        seed=args.seed,
        max_draws=args.max_draws,
        time_limit=args.time_limit,
        dtype=args.dtype,
        progress=progress,
        jobs=args.jobs,
        name=args.sampler.strip(),
        tensors="torch" if args.torch else None,
        inputs="logits" if args.logits else None,
        budget=args.budget,
    )
    if kind != "verify" and (args.candidates is not None or args.rule is not None):
        raise UsageError("lab check: --candidates and --rule are for multi-candidate verifiers (p, q, candidates, rng)")
    if kind in ("block", "generate"):
        report = check_block(sampler, block_size=args.block, length=args.length, interface=kind, batch=args.batch,
                             **options)
    elif kind == "verify":
        if args.block is not None or args.length is not None:
            raise UsageError("lab check: --block and --length are for block samplers")
        report = check_candidates(sampler, candidates=args.candidates, rule=args.rule, batch=args.batch, **options)
    else:
        if args.block is not None or args.length is not None:
            raise UsageError("lab check: --block and --length are for block samplers")
        report = check_step(sampler, batch=args.batch, **options)
    print(report.json_text() if args.json else report.text(traceback=args.traceback))
    return report.exit_status


def register(subparsers) -> None:
    chk = subparsers.add_parser(
        "check",
        help="run the specification's test protocol on your own sampler (MODULE:FUNCTION or file.py:FUNCTION)",
        description="Run the specification's test protocol on your own speculative sampler, on this machine.",
    )
    chk.add_argument(
        "sampler", metavar="MODULE:FUNCTION", help="e.g. mypkg.spec:step or examples/correct_numpy.py:step"
    )
    chk.add_argument("--kind", choices=("step", "verify", "block", "generate"),
                     help="step(p, q, rng), verify(p, q, candidates, rng), block(target, draft, prefix, k, rng) (a "
                     "tree sampler when it sets block.tree) or generate(target, draft, prefix, max_new, rng) (default: "
                     "from its parameters)")
    chk.add_argument("--candidates", type=whole_number, metavar="K",
                     help="multi-candidate verifiers: K candidates per case (default: K = 2 and K = 3)")
    chk.add_argument("--rule", choices=RULES,
                     help="multi-candidate verifiers: how the check draws the candidates (default: verify.rule)")
    chk.add_argument("--torch", action="store_true",
                     help="hand the sampler torch tensors and a torch.Generator (default: sampler.tensors, else numpy)")
    chk.add_argument("--logits", action="store_true",
                     help="hand the sampler log-probabilities, -inf where p = 0 "
                     "(default: sampler.inputs, else probabilities)")
    chk.add_argument("--batch", type=whole_number, metavar="B",
                     help="batched samplers: B rows at once ([B, V] for a step sampler, B prefixes for a block "
                     "sampler; default: sampler.batch, else 1)")
    chk.add_argument("--cases", metavar="NAMES", help="only these cases, comma-separated (default: every case)")
    chk.add_argument("--tv", type=probability_option("--tv"),
                     help="the bias to detect, as total variation distance (default: sampler.tv, else 0.01)")
    chk.add_argument("--power", type=probability_option("--power"), default=0.99,
                     help="the power to detect it with (default 0.99)")
    chk.add_argument("--false-alarm", type=probability_option("--false-alarm"), default=1e-6,
                     help="false-alarm rate per case (default 1e-6)")
    chk.add_argument("--seed", type=whole_number, default=DEFAULT_SEED, help=f"base seed (default {DEFAULT_SEED})")
    chk.add_argument("--max-draws", type=whole_number, metavar="N",
                     help="at most N draws per case (the report states the power that leaves)")
    chk.add_argument("--time-limit", type=seconds, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                     help="stop a case's draws after this long; a case cut before the stated power is "
                     f"inconclusive (exit 3) unless something fails it (default {DEFAULT_TIME_LIMIT:g} per case)")
    chk.add_argument("--budget", type=budget_option, metavar="DURATION",
                     help="the whole run's time (90s, 10m, 1h): each case's rate is measured on a few draws, the "
                     "draws are planned to fit and the plan printed before the run; a case the budget cuts before "
                     "the stated power is inconclusive unless something fails it")
    chk.add_argument("--dtype", choices=DTYPES, default="float64", help="dtype of the p and q arrays (default float64)")
    chk.add_argument("--jobs", type=whole_number, default=min(2, os.cpu_count() or 1),
                     help="cases run side by side in this many processes (default: 2, or 1 on one core)")
    chk.add_argument("--block", type=whole_number, metavar="K", help="block samplers: drafts per block (default 2)")
    chk.add_argument("--length", type=whole_number, metavar="L", help="block samplers: tokens in the law (default 2)")
    chk.add_argument("--json", action="store_true", help="print the whole report as JSON")
    chk.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="progress on stderr (default on: a bar in a terminal, else a line every few seconds)")
    chk.add_argument("--traceback", action="store_true",
                     help="print the whole traceback of an exception the sampler raised (default: its message and "
                     "the sampler's own line)")
    chk.set_defaults(run=run_check)


VALUE_OPTIONS: dict[str, tuple[str, ...]] = {}  # no option of this group takes a negative-looking value
