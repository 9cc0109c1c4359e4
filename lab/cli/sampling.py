"""``python -m lab law`` and ``python -m lab simulate``: exact block laws and seeded simulations.

    python -m lab law MODEL --block K --length L [--variant NAME] [--json]
    python -m lab simulate SCENARIO --steps N --seed S [--block K] [--length L] [--variant NAME] [--json]
    python -m lab simulate MODEL --steps N --seed S --compare-ordinary [--block K] [--length L] [--json]

MODEL / SCENARIO: a Markov model or a one-step scenario name (repeated i.i.d.), or a path to a
model file. Without ``--block`` ``simulate`` runs N single steps (at the first position) with the
vectorised simulator; with ``--block K`` it generates N sequences of L tokens (default L = K + 1)
by block decoding; with ``--compare-ordinary`` it runs N outputs of ordinary sampling and N of block decoding
(default K = 3) from the same seed, side by side. A model with a stop token: an output ends with the stop
token or is cut at L tokens (the stop token is one of them); JSON sequences end with the stop token's name
when they stopped. Bad input raises a LabInputError subclass: exit 2, one line on stderr.
"""

from __future__ import annotations

from lab.cli.drafts import DRAFT_VARIANT_HELP, RULE_HELP
from lab.cli.output import print_json, print_table, whole_number
from lab.core.blocks import BlockInputError, TooLargeError, compare_laws, simulate_blocks
from lab.core.compare import WHY_TEXTS_DIFFER, compare_ordinary
from lab.core.drafts import DraftsInputError, parse_tree, simulate_node, simulate_tree, tree_law
from lab.core.formatting import fraction_text
from lab.core.markov import START, MarkovModel, load_model
from lab.core.sampling import BOUNDED_STEPS, ChiSquareResult, simulate_steps
from lab.core.speedup import expected_tokens
from lab.core.variants import CORRECT, MISTAKE_NAMES, get_variant

ALLOW_LARGE_HELP = "go beyond the bounds the pages use (each keeps one request within about a second of CPU)"
VARIANT_CHOICES_HELP = "correct (default) or a mistake: " + ", ".join(MISTAKE_NAMES)
LENGTH_RULES = (
    "L is the maximum number of tokens of an output; with a model that stops, an output ends with its stop token "
    "or is cut at L tokens, the stop token counted as one of them"
)
COMPARE_BLOCK = 3  # --compare-ordinary without --block


def outputs_rule(model: MarkovModel, length: int) -> str:
    """The rule the law follows, in one line (with the model's own stop token)."""
    if model.stop is None:
        return f"the first L = {length} tokens (this model has no stop token)"
    return (
        f"complete outputs: each ends with {model.stop_name} or is cut at L = {length} tokens "
        f"({model.stop_name} counted as one of them)"
    )


def law_json(comparison, **given) -> dict:
    """``law --json``; ``given`` replaces ``block`` and ``variant`` (a tree has no block)."""
    model = comparison.model
    return {
        "model": model.name,
        "block": given["block"] if "block" in given else comparison.block,
        "length": comparison.length,
        "variant": given["variant"] if "variant" in given else comparison.variant.name,
        "stop": model.stop_name,
        "target": {model.sequence_text(k): fraction_text(v) for k, v in sorted(comparison.target.items())},
        "speculative": {model.sequence_text(k): fraction_text(v) for k, v in sorted(comparison.speculative.items())},
        "tv_distance": fraction_text(comparison.distance),
    }


def tree_law_json(comparison) -> dict:
    """``law_json``'s keys (``block`` is null, ``variant`` a several-drafts name) plus ``tree`` and ``rule``."""
    return {
        **law_json(comparison, block=None, variant=comparison.variant),
        "tree": list(comparison.widths),
        "rule": comparison.rule,
    }


def tree_words(widths) -> str:
    return ",".join(map(str, widths))


def check_tree_options(args) -> None:
    """--block or --tree (with --rule); --rule and --candidates only with a tree or a node."""
    if getattr(args, "tree", None) is not None and getattr(args, "block", None) is not None:
        raise DraftsInputError("give --block K (one draft chain) or --tree W1,W2,... (a token tree), not both")
    if getattr(args, "candidates", None) is not None and getattr(args, "tree", None) is not None:
        raise DraftsInputError("--candidates K is one position's candidates; a tree gives them per depth: drop one")
    several = getattr(args, "tree", None) is not None or getattr(args, "candidates", None) is not None
    if several and args.rule is None:
        raise DraftsInputError("--tree and --candidates need --rule: " + RULE_HELP)
    if not several and args.rule is not None:
        raise DraftsInputError("--rule goes with --tree W1,W2,... or --candidates K")


def print_law(model, comparison, how: str, column: str) -> None:
    """The law table of ``law``: each sequence's target and decoded probability, their difference, the distance."""
    print(f"{model.name}: {model.title}")
    print(how)
    print(f"law over {outputs_rule(model, comparison.length)}")
    print()
    rows = [
        [model.sequence_text(seq), fraction_text(t), fraction_text(s), fraction_text(s - t)]
        for seq, t, s in comparison.rows()
    ]
    print_table(["sequence", "target", column, "difference"], rows)
    print()
    print(f"total variation distance = {fraction_text(comparison.distance)} ({float(comparison.distance):.6g})")


def run_tree_law(args, model) -> int:
    widths = parse_tree(args.tree)
    comparison = tree_law(model, widths, args.length, args.rule, args.variant, args.allow_large)
    if args.json:
        print_json(tree_law_json(comparison))
        return 0
    how = f"tree verification, widths {tree_words(widths)}, rule {comparison.rule}, variant {comparison.variant}"
    print_law(model, comparison, how, "tree")
    return 0


def run_law(args) -> int:

    model = load_model(args.model)
    check_tree_options(args)
    if args.tree is not None:
        return run_tree_law(args, model)
    if args.block is None:
        raise BlockInputError("give --block K (one draft chain) or --tree W1,W2,... with --rule (a token tree)")
    variant = get_variant(args.variant)
    comparison = compare_laws(model, args.block, args.length, variant, args.allow_large)
    if args.json:
        print_json(law_json(comparison))
        return 0
    print_law(model, comparison, f"block decoding with K = {comparison.block}, variant {variant.name}", "speculative")
    return 0


def _fit_json(fit: ChiSquareResult) -> dict:
    return fit.as_json()


def _iid_alpha(model: MarkovModel):
    """Acceptance rate of an i.i.d. model's single step (1 - Z); None for a real Markov model."""
    if not model.is_iid:
        return None
    p, q = model.p(START), model.q(START)
    r_excess = sum(max(a - b, 0) for a, b in zip(p, q))
    return 1 - r_excess


def simulate_step_json(model: MarkovModel, sim, args) -> dict:
    vocab = model.vocab
    n = sim.steps

    def per_token(values):
        return {t: v for t, v in zip(vocab, values)}

    law = sim.law
    p = model.p(START)
    z = sum(max(a - b, 0) for a, b in zip(p, model.q(START)))
    data = {
        "scenario": model.name,
        "mode": "step",
        "variant": sim.variant.name,
        "steps": n,
        "seed": sim.seed,
        "block": None,
        "tokens": list(vocab),
        "counts": per_token(sim.counts.tolist()),
        "accepted": per_token(sim.accepted.tolist()),
        "corrected": per_token(sim.corrected.tolist()),
        "expected": per_token([n * float(v) for v in p]),
        "expected_accepted": per_token([n * float(v) for v in law.accepted]),
        "expected_corrected": per_token([n * float(v) for v in law.corrected]),
        "target": per_token([fraction_text(v) for v in p]),
        "law": per_token([fraction_text(v) for v in law.total]),
        "z": fraction_text(z),
        "corrected_share": sim.corrected_share,
        "expected_corrected_share": fraction_text(law.corrected_share),
        "chi_square": _fit_json(sim.fit("target")),
        "mean_tokens_per_block": 1.0,
    }
    if sim.variant is not CORRECT:
        data["chi_square_law"] = _fit_json(sim.fit("law"))
    return data


def simulate_block_json(sim) -> dict:
    model = sim.model
    n = sim.sequences
    alpha = _iid_alpha(model)
    data = {
        "scenario": model.name,
        "mode": "block",
        "variant": sim.variant.name,
        "steps": n,
        "seed": sim.seed,
        "block": sim.block,
        "length": sim.length,
        "stop": model.stop_name,
        "counts": {model.sequence_text(k): v for k, v in sorted(sim.counts.items())},
        "expected": {model.sequence_text(k): n * float(v) for k, v in sorted(sim.target.items())},
        "target": {model.sequence_text(k): fraction_text(v) for k, v in sorted(sim.target.items())},
        "law": {model.sequence_text(k): fraction_text(v) for k, v in sorted(sim.law.items())},
        "chi_square": _fit_json(sim.fit_target),
        "blocks": sim.blocks,
        "tokens": sim.tokens,
        "mean_tokens_per_block": sim.mean_tokens_per_block,
        "alpha": fraction_text(alpha) if alpha is not None else None,
        "expected_tokens_per_block": float(expected_tokens(alpha, sim.block)) if alpha is not None else None,
    }
    if sim.variant is not CORRECT:
        data["chi_square_law"] = _fit_json(sim.fit_law)
    return data


def _fit_text(fit: ChiSquareResult) -> str:
    if fit.reason:
        return fit.reason
    pooled = f", {fit.pooled} small categories pooled" if fit.pooled else ""
    return f"chi-square = {fit.statistic:.4g} on {fit.df} df, p-value = {fit.p_value:.4g}{pooled}"


def compare_json(result) -> dict:
    model = result.model

    def text(seqs):
        return {model.sequence_text(k): v for k, v in sorted(seqs.items())}

    return {
        "scenario": model.name,
        "mode": "compare-ordinary",
        "steps": result.sequences,
        "seed": result.seed,
        "block": result.block,
        "length": result.length,
        "stop": model.stop_name,
        "first_outputs": [
            {"ordinary": model.sequence_text(o), "speculative": model.sequence_text(s)}
            for o, s in zip(result.ordinary_first, result.speculative_first)
        ],
        "identical": result.identical,
        "identical_share": result.identical_share,
        "law": {model.sequence_text(k): fraction_text(v) for k, v in sorted(result.law.items())},
        "tv_distance": fraction_text(result.distance),
        "ordinary_counts": text(result.ordinary_counts),
        "speculative_counts": text(result.speculative_counts),
        "chi_square_ordinary": _fit_json(result.fit_ordinary),
        "chi_square_speculative": _fit_json(result.fit_speculative),
        "why": WHY_TEXTS_DIFFER,
    }


def run_compare(args, model: MarkovModel) -> int:
    if args.variant != CORRECT.name:
        raise BlockInputError("--compare-ordinary runs the correct algorithm beside ordinary sampling: drop --variant")
    block = COMPARE_BLOCK if args.block is None else args.block
    if block < 1:
        raise BlockInputError(f"block size K must be a whole number >= 1 (got {block})")
    length = args.length if args.length is not None else block + 1
    result = compare_ordinary(model, block, length, args.steps, args.seed, args.allow_large)
    if args.json:
        print_json(compare_json(result))
        return 0
    print(
        f"{model.name}: ordinary sampling and block decoding (K = {block}), {args.steps} outputs each, seed {args.seed}"
    )
    print(f"law over {outputs_rule(model, length)}")
    print()
    rows = [
        [str(i + 1), model.sequence_text(o), model.sequence_text(s), "yes" if o == s else "no"]
        for i, (o, s) in enumerate(zip(result.ordinary_first, result.speculative_first))
    ]
    print_table(["run", "ordinary", "speculative", "same text"], rows)
    print()
    print(f"identical texts: {result.identical} of {result.sequences} runs ({result.identical_share:.1%})")
    print("ordinary against the exact law: " + _fit_text(result.fit_ordinary))
    print("speculative against the exact law: " + _fit_text(result.fit_speculative))
    print(WHY_TEXTS_DIFFER)
    return 0


def print_counts(data: dict) -> None:
    """Simulated sequences: each one's count beside N times its target probability."""
    rows = [
        [seq, str(data["counts"].get(seq, 0)), f"{data['expected'].get(seq, 0.0):.1f}"]
        for seq in sorted(set(data["counts"]) | set(data["expected"]))
    ]
    print_table(["sequence", "count", "N*target"], rows)


def run_simulate_node(args, model) -> int:
    if args.length is not None:
        raise DraftsInputError("--length needs --tree (one position's candidates commit one token)")
    sim = simulate_node(
        model.p(START),
        model.q(START),
        args.candidates,
        args.rule,
        args.steps,
        args.seed,
        args.variant,
        args.allow_large,
    )
    law = sim.law
    vocab = model.vocab
    data = {
        "scenario": model.name,
        "mode": "candidates",
        "rule": law.rule,
        "candidates": law.candidates,
        "variant": law.variant,
        "steps": sim.steps,
        "seed": sim.seed,
        "tokens": list(vocab),
        "counts": dict(zip(vocab, sim.counts)),
        "expected": {t: sim.steps * float(v) for t, v in zip(vocab, law.p)},
        "target": {t: fraction_text(v) for t, v in zip(vocab, law.p)},
        "law": {t: fraction_text(v) for t, v in zip(vocab, law.law)},
        "kept": sim.kept,
        "acceptance": fraction_text(law.acceptance),
        "chi_square": _fit_json(sim.fit("target")),
    }
    if law.variant != "correct":
        data["chi_square_law"] = _fit_json(sim.fit("law"))
    if args.json:
        print_json(data)
        return 0
    print(
        f"{model.name}: {sim.steps} positions, {law.candidates} candidates, rule {law.rule}, seed {sim.seed}, "
        f"{law.variant}"
    )
    print()
    rows = [[t, str(data["counts"][t]), f"{data['expected'][t]:.1f}", data["law"][t]] for t in vocab]
    print_table(["token", "count", "N*p", "exact law"], rows)
    print()
    print(
        f"a candidate kept in {sim.kept} of {sim.steps} (exact acceptance {data['acceptance']} = "
        f"{float(law.acceptance):.4f})"
    )
    print("against p: " + _fit_text(sim.fit("target")))
    if law.variant != "correct":
        print(f"against the {law.variant} law: " + _fit_text(sim.fit("law")))
    return 0


def run_simulate_tree(args, model) -> int:
    widths = parse_tree(args.tree)
    length = args.length if args.length is not None else len(widths) + 1
    sim = simulate_tree(model, widths, length, args.rule, args.steps, args.seed, args.variant, args.allow_large)
    comparison = sim.comparison
    n = sim.sequences
    data = {
        "scenario": model.name,
        "mode": "tree",
        "tree": list(widths),
        "rule": comparison.rule,
        "variant": comparison.variant,
        "steps": n,
        "seed": sim.seed,
        "length": length,
        "stop": model.stop_name,
        "counts": {model.sequence_text(k): v for k, v in sorted(sim.counts.items())},
        "expected": {model.sequence_text(k): n * float(v) for k, v in sorted(comparison.target.items())},
        "target": {model.sequence_text(k): fraction_text(v) for k, v in sorted(comparison.target.items())},
        "law": {model.sequence_text(k): fraction_text(v) for k, v in sorted(comparison.speculative.items())},
        "chi_square": _fit_json(sim.fit("target")),
        "blocks": sim.blocks,
        "tokens": sim.tokens,
        "mean_tokens_per_block": sim.tokens / sim.blocks,
    }
    if comparison.variant != "correct":
        data["chi_square_law"] = _fit_json(sim.fit("law"))
    if args.json:
        print_json(data)
        return 0
    print(
        f"{model.name}: {n} sequences of {length} tokens, tree {tree_words(widths)}, rule {comparison.rule}, "
        f"seed {sim.seed}, {comparison.variant}"
    )
    print()
    print_counts(data)
    print()
    print(f"mean tokens per block {data['mean_tokens_per_block']:.4f} over {sim.blocks} blocks")
    print("against the target law: " + _fit_text(sim.fit("target")))
    if comparison.variant != "correct":
        print(f"against the {comparison.variant} law: " + _fit_text(sim.fit("law")))
    return 0


def run_simulate(args) -> int:

    model = load_model(args.scenario)
    check_tree_options(args)
    if args.tree is not None or args.candidates is not None:
        if args.compare_ordinary:
            raise DraftsInputError("--compare-ordinary runs one draft chain: drop --tree / --candidates")
        return run_simulate_tree(args, model) if args.tree is not None else run_simulate_node(args, model)
    variant = get_variant(args.variant)
    if args.compare_ordinary:
        return run_compare(args, model)
    if args.block is None:
        if args.length is not None:
            raise BlockInputError("--length needs --block K (a single step commits one token)")
        if args.steps > BOUNDED_STEPS and not args.allow_large:
            raise TooLargeError(f"--steps {args.steps} is above the limit of {BOUNDED_STEPS:,} single steps")
        sim = simulate_steps(model.p(START), model.q(START), args.steps, args.seed, variant)
        data = simulate_step_json(model, sim, args)
        if args.json:
            print_json(data)
            return 0
        print(f"{model.name}: {args.steps} steps, seed {args.seed}, variant {variant.name}")
        print()
        rows = [
            [
                t,
                str(data["counts"][t]),
                f"{data['expected'][t]:.1f}",
                str(data["accepted"][t]),
                f"{data['expected_accepted'][t]:.1f}",
                str(data["corrected"][t]),
                f"{data['expected_corrected'][t]:.1f}",
            ]
            for t in model.vocab
        ]
        print_table(["token", "count", "N*p", "accepted", "expected", "corrected", "expected"], rows)
        print()
        exact_share = f"{data['expected_corrected_share']} = {float(sim.law.corrected_share):.4f}"
        line = f"corrected share {sim.corrected_share:.4f}   (exact {exact_share}"
        line += ")" if variant is CORRECT else f"; Z of the correct algorithm = {data['z']})"
        print(line)
        print("against p: " + _fit_text(sim.fit("target")))
        if variant is not CORRECT:
            print(f"against the {variant.name} law: " + _fit_text(sim.fit("law")))
        return 0
    if args.block < 1:
        raise BlockInputError(f"block size K must be a whole number >= 1 (got {args.block})")
    length = args.length if args.length is not None else args.block + 1
    sim = simulate_blocks(model, args.block, length, args.steps, args.seed, variant, args.allow_large)
    data = simulate_block_json(sim)
    if args.json:
        print_json(data)
        return 0
    print(
        f"{model.name}: {args.steps} sequences of {length} tokens, K = {args.block}, seed {args.seed}, {variant.name}"
    )
    print()
    print_counts(data)
    print()
    line = f"mean tokens per block {sim.mean_tokens_per_block:.4f} over {sim.blocks} blocks"
    if data["expected_tokens_per_block"] is not None:
        line += f"   (formula with alpha = {data['alpha']}: {data['expected_tokens_per_block']:.4f})"
    print(line)
    print("against the target law: " + _fit_text(sim.fit_target))
    if variant is not CORRECT:
        print(f"against the {variant.name} law: " + _fit_text(sim.fit_law))
    return 0


def register(subparsers) -> None:
    law = subparsers.add_parser("law", help="exact law of the first L tokens under block decoding vs the target")
    law.add_argument("model", metavar="MODEL", help="a model or scenario name, or a path to a model .toml file")
    law.add_argument("--block", type=whole_number, default=None, metavar="K", help="drafts per block, K >= 1")
    law.add_argument(
        "--tree", default=None, metavar="W1,W2,...", help="a token tree: candidates per depth (with --rule)"
    )
    law.add_argument("--rule", default=None, metavar="RULE", help="with --tree: " + RULE_HELP)
    law.add_argument("--length", type=whole_number, required=True, metavar="L", help=LENGTH_RULES)
    law.add_argument(
        "--variant",
        default="correct",
        metavar="NAME",
        help=VARIANT_CHOICES_HELP + "; with --tree: " + DRAFT_VARIANT_HELP,
    )
    law.add_argument("--json", action="store_true", help="print JSON (exact fraction strings)")
    law.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE_HELP)
    law.set_defaults(run=run_law)

    sim = subparsers.add_parser("simulate", help="seeded Monte Carlo: one step, or blocks of drafts")
    sim.add_argument("scenario", metavar="SCENARIO", help="a scenario or model name, or a path to a model file")
    sim.add_argument("--steps", type=whole_number, required=True, metavar="N", help="steps (or sequences with --block)")
    sim.add_argument("--seed", type=whole_number, required=True, metavar="S", help="seed, a whole number >= 0")
    sim.add_argument("--block", type=whole_number, default=None, metavar="K", help="block decoding with K drafts")
    sim.add_argument(
        "--candidates", type=whole_number, default=None, metavar="K", help="K candidates at the first position (--rule)"
    )
    sim.add_argument(
        "--tree", default=None, metavar="W1,W2,...", help="tree verification (--rule), default L = depth + 1"
    )
    sim.add_argument("--rule", default=None, metavar="RULE", help="with --candidates or --tree: " + RULE_HELP)
    sim.add_argument(
        "--length", type=whole_number, default=None, metavar="L", help=f"with --block (default K + 1): {LENGTH_RULES}"
    )
    sim.add_argument(
        "--compare-ordinary",
        action="store_true",
        help=f"ordinary sampling beside block decoding (K = {COMPARE_BLOCK} unless --block), same seed: "
        "the first texts side by side, the share that match, and each side's counts against the exact law",
    )
    sim.add_argument(
        "--variant",
        default="correct",
        metavar="NAME",
        help=VARIANT_CHOICES_HELP + "; with --tree / --candidates: " + DRAFT_VARIANT_HELP,
    )
    sim.add_argument("--json", action="store_true", help="print JSON")
    sim.add_argument("--allow-large", action="store_true", help=ALLOW_LARGE_HELP)
    sim.set_defaults(run=run_simulate)


VALUE_OPTIONS: dict[str, tuple[str, ...]] = {}  # no option of this group takes a negative-looking value
