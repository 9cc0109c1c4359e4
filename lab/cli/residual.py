"""``python -m lab residual``, ``scenario`` and ``binomial``: one step's residual, exact or float64.

    python -m lab residual --p SPEC --q SPEC [--exact] [--json] [--normalize]
    python -m lab scenario NAME|--list [--exact] [--json]
    python -m lab binomial --p P --n N [--exact] [--json]
"""

from __future__ import annotations

from lab.cli.output import UsageError, cell_text, number_text, print_json, print_table, summary_text
from lab.core.binomial import BinomialResult, binomial_exact, binomial_float, parse_success_probability
from lab.core.distributions import parse_spec
from lab.core.formatting import fraction_text, json_number
from lab.core.residual import ResidualResult, residual
from lab.core.scenarios import load_scenario, scenario_names

# --- residual ---------------------------------------------------------------------------------


def residual_json(result: ResidualResult) -> dict:
    """The documented JSON shape (docs/cli.md), keys in that order. The float64 path adds the two figures
    reported beside z: ``one_minus_alpha`` and ``inconsistency`` (null when consistent)."""
    exact = result.exact
    labels = result.labels

    def per_token(values):
        return {token: json_number(v, exact) for token, v in zip(labels, values)}

    data = {
        "tokens": list(labels),
        "p": per_token(result.p),
        "q": per_token(result.q),
        "accepted": per_token(result.accepted),
        "alpha": json_number(result.alpha, exact),
        "z": json_number(result.z, exact),
        "branch": result.branch,
        "residual": per_token(result.residual) if result.residual is not None else None,
        "reconstruction": per_token(result.reconstruction),
    }
    if not exact:
        data["one_minus_alpha"] = float(result.one_minus_alpha)
        data["inconsistency"] = result.inconsistency
    return data


def print_residual_table(result: ResidualResult) -> None:
    exact = result.exact
    residual = result.residual
    rows = []
    for i, token in enumerate(result.labels):
        rows.append(
            [
                token,
                cell_text(result.p[i], exact),
                cell_text(result.q[i], exact),
                cell_text(result.accepted[i], exact),
                cell_text(residual[i], exact) if residual is not None else "-",
                cell_text(result.correction[i], exact),
                cell_text(result.reconstruction[i], exact),
            ]
        )
    print_table(["token", "p", "q", "min(p,q)", "residual r", "Z*r", "min+Z*r"], rows)
    print()
    print(
        f"alpha = {summary_text(result.alpha, exact)}   Z = {summary_text(result.z, exact)}   "
        f"branch: {result.branch}   arithmetic: {result.arithmetic}"
    )
    if exact:
        same = tuple(result.reconstruction) == tuple(result.p)
        print(f"min(p,q) + Z*r = p exactly, token by token: {'yes' if same else 'NO'}")
    else:
        print(f"1 - alpha = {float(result.one_minus_alpha)!r} (the consistency figure beside Z)")
        if result.inconsistency:
            print(f"numerical inconsistency: {result.inconsistency}")
    if residual is None:
        print("Z = 0: no rejection can happen, so the residual is not defined (0/0 is never evaluated).")


def compute_residual(p, q, exact: bool) -> ResidualResult:
    """The exact or the float64 residual of two parsed distributions, through the core's one dispatch."""
    return residual(p, q, exact=exact)


def run_residual(args) -> int:
    check_sum = args.exact or args.normalize  # the float path checks sums within its own tolerance
    p = parse_spec(args.p, name="p", normalize=args.normalize, check_sum=check_sum)
    q = parse_spec(args.q, name="q", normalize=args.normalize, check_sum=check_sum)
    result = compute_residual(p, q, args.exact)
    if args.json:
        print_json(residual_json(result))
    else:
        print_residual_table(result)
        if args.normalize:
            print("--normalize: p and q were each divided by their own sum (exactly) before computing.")
    return 0


# --- scenario ---------------------------------------------------------------------------------


def run_scenario(args) -> int:
    if args.list:
        for name in scenario_names():
            print(name)
        return 0
    if not args.name:
        raise UsageError("lab scenario: give a scenario NAME or --list")
    scenario = load_scenario(args.name)
    result = compute_residual(scenario.p, scenario.q, args.exact)
    if args.json:
        print_json({"name": scenario.name, "title": scenario.title, **residual_json(result)})
    else:
        print(f"{scenario.name}: {scenario.title}")
        if scenario.explanation:  # the command prints the answer anyway
            print(scenario.explanation)
        print()
        print_residual_table(result)
    return 0


# --- binomial ---------------------------------------------------------------------------------


def binomial_json(result: BinomialResult) -> dict:
    """``{"n", "p", "pmf"}`` as documented, then mean and variance (rational, so fraction strings
    with --exact). sd = sqrt(variance) is irrational in general: a number, on the float path only.
    With n = 1, ``bernoulli`` gives the binomial lab's two-outcome display (success B, failure C)."""
    exact = result.exact
    data = {
        "n": result.n,
        "p": json_number(result.p, exact),
        "pmf": {str(k): json_number(v, exact) for k, v in enumerate(result.pmf)},
        "mean": json_number(result.mean, exact),
        "variance": json_number(result.variance, exact),
    }
    if not exact:
        data["sd"] = result.sd
    if result.n == 1:
        data["bernoulli"] = {token: json_number(v, exact) for token, v in result.bernoulli_bars().items()}
    return data


def run_binomial(args) -> int:
    p = parse_success_probability(args.p)
    result = binomial_exact(args.n, p) if args.exact else binomial_float(args.n, float(p))
    if args.json:
        print_json(binomial_json(result))
        return 0
    exact = result.exact
    rows = [[str(k), cell_text(v, exact)] for k, v in enumerate(result.pmf)]
    if result.n == 1:  # the lab's two-outcome display: success B first, then failure C
        rows = [
            [f"{token} ({kind})", cell_text(v, exact)]
            for (token, v), kind in zip(result.bernoulli_bars().items(), ("success", "failure"))
        ]
    print_table(["k", f"P(k) for Binomial({result.n}, {number_text(result.p, exact)})"], rows)
    print()
    variance = fraction_text(result.variance) if exact else f"{float(result.variance):.10g}"
    print(f"mean np = {cell_text(result.mean, exact)}   sd = sqrt(np(1-p)) = sqrt({variance}) = {result.sd:.6g}")
    return 0


# --- the parser's part ------------------------------------------------------------------------


# Options whose values may look like negative numbers (``--p -1/4``): argparse would take ``-1/4`` for an
# option, so main() passes them as ``--p=-1/4`` and the value's own check reports the real problem.
VALUE_OPTIONS = {"residual": ("--p", "--q"), "binomial": ("--p", "--n")}


def register(sub) -> None:
    res = sub.add_parser("residual", help="residual of target p against draft q")
    res.add_argument(
        "--p", required=True, metavar="SPEC", help="target: A=1/10,B=3/5,C=3/10 or a .json/.csv/.toml file"
    )
    res.add_argument("--q", required=True, metavar="SPEC", help="draft, same tokens as p")
    res.add_argument("--exact", action="store_true", help="exact Fractions (default: float64)")
    res.add_argument("--json", action="store_true", help="print JSON")
    res.add_argument("--normalize", action="store_true", help="divide each distribution by its sum first")
    res.set_defaults(run=run_residual)

    sce = sub.add_parser("scenario", help="a scenario from scenarios/ (or --list)")
    sce.add_argument("name", nargs="?", metavar="NAME")
    sce.add_argument("--list", action="store_true", help="print the scenario names, one a line")
    sce.add_argument("--exact", action="store_true")
    sce.add_argument("--json", action="store_true")
    sce.set_defaults(run=run_scenario)

    bino = sub.add_parser("binomial", help="the Binomial lab's Binomial(n, success p)")
    bino.add_argument("--p", required=True, metavar="P", help="success probability: 0.75 or 3/4")
    bino.add_argument("--n", required=True, metavar="N", help="trials, 1 to 26")
    bino.add_argument("--exact", action="store_true")
    bino.add_argument("--json", action="store_true")
    bino.set_defaults(run=run_binomial)
