"""``python -m lab drafts``: several candidates at one position, exactly, with the best any verifier can do.

    python -m lab drafts --p SPEC --q SPEC --candidates K --rule RULE [--variant NAME] [--exact] [--json]

The law is always computed exactly (Fractions); without ``--exact`` every number is printed as the float64
nearest to it. The tree options of ``law``, ``simulate`` and ``mistakes`` live beside their commands
(:mod:`lab.cli.sampling`, :mod:`lab.cli.pitfalls`) and use the helpers below.
"""

from __future__ import annotations

from lab.cli.output import cell_text, print_json, print_table, summary_text, whole_number
from lab.core.distributions import check_same_tokens, parse_spec
from lab.core.drafts import DRAFT_MISTAKES, RULES, NodeLaw, best_acceptance, node_law
from lab.core.formatting import json_number

RULE_HELP = "how the candidates are drawn and tested: " + ", ".join(RULES)
DRAFT_VARIANT_HELP = "correct (default) or a mistake of several drafts: " + ", ".join(DRAFT_MISTAKES)


def drafts_json(result: NodeLaw, tokens: tuple[str, ...], best, exact: bool) -> dict:
    def per_token(values):
        return {t: json_number(v, exact) for t, v in zip(tokens, values)}

    return {
        "rule": result.rule,
        "candidates": result.candidates,
        "variant": result.variant,
        "tokens": list(tokens),
        "p": per_token(result.p),
        "q": per_token(result.q),
        "law": per_token(result.law),
        "tv_distance": json_number(result.tv_distance, exact),
        "acceptance": json_number(result.acceptance, exact),
        "best_acceptance": None if best.value is None else json_number(best.value, exact),
        "best_acceptance_set": [tokens[i] for i in best.tokens] if best.value is not None else None,
        "best_acceptance_reason": best.reason,
        "kept": per_token(result.kept),
        "corrected": per_token(result.corrected),
        "kept_by_position": [per_token(row) for row in result.kept_by_position],
        "stages": [
            {
                "position": s.position,
                "reach": json_number(s.reach, exact),
                "p": per_token(s.p),
                "q": per_token(s.q),
            }
            for s in result.stages
        ],
    }


def run_drafts(args) -> int:
    p = parse_spec(args.p, name="p")
    q = check_same_tokens(p, parse_spec(args.q, name="q"))
    result = node_law(p.values, q.values, args.candidates, args.rule, args.variant)
    best = best_acceptance(p.values, q.values, args.candidates, args.rule)
    if args.json:
        print_json(drafts_json(result, p.tokens, best, args.exact))
        return 0
    exact = args.exact
    print(f"{result.candidates} candidates, rule {result.rule}, variant {result.variant}")
    print()
    rows = [
        [
            t,
            cell_text(p.values[i], exact),
            cell_text(q.values[i], exact),
            cell_text(result.kept[i], exact),
            cell_text(result.corrected[i], exact),
            cell_text(result.law[i], exact),
        ]
        for i, t in enumerate(p.tokens)
    ]
    print_table(["token", "p", "q", "kept", "corrected", "law"], rows)
    print()
    print(f"total variation distance from p = {summary_text(result.tv_distance, exact)}")
    print(f"acceptance (some candidate kept) = {summary_text(result.acceptance, exact)}")
    if best.value is None:
        print(f"best any verifier can do: not computed ({best.reason})")
    else:
        where = "{" + ", ".join(p.tokens[i] for i in best.tokens) + "}"
        gap = best.value - result.acceptance
        how_far = (
            f"this rule is {summary_text(gap, exact)} below it"
            if gap >= 0
            else "this rule keeps more often than any verifier whose output follows p can: its law is not p"
        )
        best_text = summary_text(best.value, exact)
        print(f"best any verifier can do (alpha*) = {best_text}, reached at H = {where}; {how_far}")
    print()
    print("stages (the residual target p_i that candidate i is tested against, and the draft q_i it comes from):")
    for s in result.stages:
        label = "correction" if s.position > result.candidates else f"candidate {s.position}"
        p_text = ", ".join(f"{t}={cell_text(v, exact)}" for t, v in zip(p.tokens, s.p))
        q_text = ", ".join(f"{t}={cell_text(v, exact)}" for t, v in zip(p.tokens, s.q))
        print(f"  {label} (reached with probability {cell_text(s.reach, exact)}): p_i = ({p_text}); q_i = ({q_text})")
    return 0


def register(subparsers) -> None:
    dra = subparsers.add_parser(
        "drafts", help="several candidates at one position: the exact law, acceptance and the best any rule can do"
    )
    dra.add_argument("--p", required=True, metavar="SPEC", help="target: A=1/10,B=3/5,C=3/10 or a .json/.csv/.toml")
    dra.add_argument("--q", required=True, metavar="SPEC", help="draft, same tokens as p")
    dra.add_argument("--candidates", type=whole_number, required=True, metavar="K", help="candidates per position")
    dra.add_argument("--rule", required=True, metavar="RULE", help=RULE_HELP)
    dra.add_argument("--variant", default="correct", metavar="NAME", help=DRAFT_VARIANT_HELP)
    dra.add_argument("--exact", action="store_true", help="exact fractions (default: the float64 of each exact value)")
    dra.add_argument("--json", action="store_true", help="print JSON")
    dra.set_defaults(run=run_drafts)


VALUE_OPTIONS = {"drafts": ("--p", "--q")}
