"""``python -m lab numerics`` and ``python -m lab mistakes``: the pitfalls material on the command line."""

from __future__ import annotations

from lab.cli.output import print_json, print_table, whole_number
from lab.core.drafts import DraftsInputError, parse_tree
from lab.core.formatting import fraction_text, sci_text, vector_text
from lab.teaching.draft_pitfalls import draft_mistakes
from lab.teaching.numerics import (
    FAMILY_Q,
    FAMILY_RESIDUAL,
    FAMILY_TOKENS,
    backend_report,
    branch_cases,
    branch_json,
    parse_exponents,
    stated_tolerances,
    tiny_z_family,
    tiny_z_json,
)
from lab.teaching.pitfalls import mistakes


def run_numerics(args) -> int:

    cases = tiny_z_family(parse_exponents(args.gaps))
    branches = branch_cases()
    if args.json:
        print_json({**tiny_z_json(cases), "branch_cases": branch_json(branches)})
        return 0
    q_text = ", ".join(f"{t}={v}" for t, v in zip(FAMILY_TOKENS, FAMILY_Q))
    r_text = ", ".join(f"{t}={v}" for t, v in zip(FAMILY_TOKENS, FAMILY_RESIDUAL))
    print(f"q = ({q_text}); p = q + gap * (3/4, 1/4, -1); exact Z = gap, exact r = ({r_text}) for every gap")
    print()
    rows = []
    for c in cases:
        rows.append(
            [
                c.gap_text,
                sci_text(c.float64.z),
                vector_text(c.float64.residual),
                sci_text(c.float64_error.max_abs),
                sci_text(c.float32.z),
                vector_text(c.float32.residual, 8),
                sci_text(c.float32_error.max_abs),
            ]
        )
    print_table(["gap = exact Z", "float64 Z", "float64 r", "err64", "float32 Z", "float32 r", "err32"], rows)
    print()
    for c in cases:
        for dtype, message in (("float64", c.float64_inconsistency), ("float32", c.float32_inconsistency)):
            if message:
                print(f"gap {c.gap_text}, {dtype}: numerical inconsistency: {message}")
    print()
    print("Branch cases (exact p = q = (1/10, 1/5, 7/10), exact Z = 0):")
    for b in branches:
        verdict = b.inconsistency or "consistent"
        print(f"  {b.name}: float branch {b.float_branch}, float Z = {b.result.z:.3g}: {verdict}")
    print()
    backend = backend_report()
    print(f"backend: numpy {backend['numpy']}, python {backend['python']}, {backend['machine']}")
    tol = stated_tolerances()
    print(f"stated float64 tolerance (not part of the identity): residual_rtol = {tol['residual_rtol']}")
    print(f"  {tol['residual']}")
    return 0


def mistakes_json(report) -> dict:

    def law(values):
        return {o: fraction_text(v) for o, v in zip(report.outcomes, values) if v}

    return {
        "model": report.model,
        "kind": report.kind,
        "block": report.block,
        "length": report.length,
        "stop": report.stop,
        "target": law(report.target),
        "variants": {
            name: {
                "tv_distance": fraction_text(v.tv_distance),
                "tv_decimal": float(v.tv_distance),
                "gains_most": list(v.biggest_gains),
                "law": law(v.law),
            }
            for name, v in report.laws.items()
        },
    }


def draft_mistakes_json(report) -> dict:
    def law(values: dict):
        return {o: fraction_text(v) for o, v in sorted(values.items()) if v}

    def maybe(value):
        return None if value is None else fraction_text(value)

    return {
        "model": report.model,
        "candidates": report.candidates,
        "tree": list(report.tree) if report.tree else None,
        "length": report.length,
        "stop": report.stop,
        "rules": {
            rule: {
                "acceptance": maybe(r.acceptance),
                "best_acceptance": maybe(r.best_acceptance),
                "target": law(r.target),
                "variants": {
                    name: {
                        "tv_distance": fraction_text(v.tv_distance),
                        "tv_decimal": float(v.tv_distance),
                        "acceptance": maybe(v.acceptance),
                        "law": law(v.law),
                    }
                    for name, v in r.variants.items()
                },
            }
            for rule, r in report.rules.items()
        },
        "skipped": list(report.skipped),
    }


def run_draft_mistakes(args) -> int:
    if args.block is not None:
        raise DraftsInputError("--block is one draft chain; --candidates and --tree have their own: drop --block")
    tree = parse_tree(args.tree) if args.tree is not None else None
    length = args.length if args.length is not None else (len(tree) + 1 if tree else None)
    if tree is None and args.length is not None:
        raise DraftsInputError("--length goes with --tree (one position's candidates commit one token)")
    report = draft_mistakes(args.model, args.candidates, tree, length, args.allow_large)
    if args.json:
        print_json(draft_mistakes_json(report))
        return 0
    where = (
        f"{report.candidates} candidates at the first position"
        if report.candidates is not None
        else f"tree {','.join(map(str, report.tree))}, length L = {report.length}"
    )
    print(f"{report.model}: {where}; exact laws")
    print()
    rows = []
    for rule, r in report.rules.items():
        for name, v in r.variants.items():
            acceptance = "-" if v.acceptance is None else f"{fraction_text(v.acceptance)} ({float(v.acceptance):.4g})"
            rows.append([rule, name, fraction_text(v.tv_distance), f"{float(v.tv_distance):.6g}", acceptance])
    print_table(["rule", "variant", "TV distance (exact)", "decimal", "acceptance"], rows)
    for rule, r in report.rules.items():
        if r.best_acceptance is not None:
            print(
                f"{rule}: the best any verifier can do with these candidates (alpha*) = "
                f"{fraction_text(r.best_acceptance)} ({float(r.best_acceptance):.4g})"
            )
    for line in report.skipped:
        print(f"not run: {line}")
    return 0


def run_mistakes(args) -> int:
    if args.candidates is not None or args.tree is not None:
        return run_draft_mistakes(args)
    report = mistakes(args.model, args.block, args.length, args.allow_large)
    if args.json:
        print_json(mistakes_json(report))
        return 0
    print(f"{report.model} ({report.kind}): block K = {report.block}, length L = {report.length}; exact laws")
    if report.stop is not None:
        print(f"outputs end with {report.stop} or are cut at L = {report.length} tokens ({report.stop} counted)")
    print()
    rows = []
    for name, v in report.laws.items():
        gain = v.biggest_gain or "-"
        rows.append([name, fraction_text(v.tv_distance), f"{float(v.tv_distance):.6g}", gain])
    print_table(["variant", "TV distance (exact)", "decimal", "gains most"], rows)
    return 0


def register(subparsers) -> None:
    mis = subparsers.add_parser("mistakes", help="every mistake variant's exact law and its distance from the target")
    mis.add_argument("model", metavar="SCENARIO_OR_MODEL", help="a scenario or Markov model name, or a .toml path")
    mis.add_argument(
        "--block", type=whole_number, metavar="K", help="drafts per block (default: 1 for a scenario, 2 for a model)"
    )
    mis.add_argument(
        "--length",
        type=whole_number,
        metavar="L",
        help="committed tokens in the law (default: 1 / 2, 4 for a model with a stop token); with a stop token, "
        "an output ends with it or is cut at L tokens, the stop token counted as one of them",
    )
    mis.add_argument(
        "--candidates", type=whole_number, metavar="K", help="the mistakes of several drafts: K at the first position"
    )
    mis.add_argument(
        "--tree", metavar="W1,W2,...", help="the mistakes of several drafts in a token tree (with --length)"
    )
    mis.add_argument("--json", action="store_true", help="print JSON")
    mis.add_argument(
        "--allow-large",
        action="store_true",
        help="go beyond the bounds the Pitfalls page uses (K, L <= 8, 4,096 sequences)",
    )
    mis.set_defaults(run=run_mistakes)

    num = subparsers.add_parser("numerics", help="tiny-Z table: the residual exactly, in float64 and in float32")
    num.add_argument(
        "--gaps", metavar="EXPONENTS", help="gap exponents k (gap = 10^-k): 6-16 (default) or a list like 6,8,10"
    )
    num.add_argument("--json", action="store_true", help="print JSON")
    num.set_defaults(run=run_numerics)


VALUE_OPTIONS: dict[str, tuple[str, ...]] = {}  # no option of this group takes a negative-looking value
