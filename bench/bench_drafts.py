"""Several drafts and token trees: the slowest input each bound accepts, in CPU seconds, against the 1 s budget.

For every rule and mistake the sweep builds the exact node law (and α*) on random rows of V tokens with K
candidates, at the sizes where the lab's work bound (lab.core.drafts.MAX_NODE_WORK) starts to refuse, and the
tree laws of every shipped model; a refused input is counted as refused (its refusal time is measured too).
The floor, measured in the same run: the one-draft exact residual (lab.core.residual) of the same rows, the
cheapest exact computation the lab makes on them.

    python bench/bench_drafts.py [--budget 1.0]

Exits 1 if an accepted input (or a refusal) takes more than the budget.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab.core.blocks import BlockInputError  # noqa: E402
from lab.core.drafts import (  # noqa: E402
    DRAFT_MISTAKES,
    RULES,
    best_acceptance,
    node_law,
    tree_law,
)
from lab.core.markov import all_model_names, load_model  # noqa: E402
from lab.core.residual import exact_z_and_residual  # noqa: E402

SIZES = [(4, 4), (8, 8), (12, 4), (12, 6), (12, 12), (13, 6), (20, 3), (200, 16), (1000, 16), (5000, 6), (5000, 16)]
TREES = [(2,), (2, 2), (3, 2, 1), (4, 4), (2, 2, 2, 2)]


def rows(size: int, seed: int):
    rng = random.Random(seed)
    out = []
    for _ in range(2):
        weights = [rng.randint(1, 97) for _ in range(size)]
        total = sum(weights)
        out.append(tuple(Fraction(w, total) for w in weights))
    return out


def node_and_best(p, q, k, rule, name):
    return node_law(p, q, k, rule, name), best_acceptance(p, q, k, rule)


def cpu(fn, *args) -> tuple[float, str]:
    start = time.process_time()
    try:
        fn(*args)
        outcome = "ok"
    except BlockInputError:  # the work bound, or the exact law's outcome limit
        outcome = "refused"
    return time.process_time() - start, outcome


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=float, default=1.0)
    args = parser.parse_args()
    worst = 0.0
    print(f"{'V':>5} {'K':>3} {'rule':<20} {'slowest variant':<27} {'CPU s':>7} {'floor s':>8} {'ratio':>7}")
    for size, k in SIZES:
        p, q = rows(size, size * 100 + k)
        floor, _ = cpu(exact_z_and_residual, p, q)
        for rule in RULES:
            names = ["correct", *(n for n, m in DRAFT_MISTAKES.items() if rule in m.rules)]
            timed = []
            for name in names:
                spent, outcome = cpu(node_and_best, p, q, k, rule, name)
                timed.append((spent, name, outcome))
            spent, name, outcome = max(timed)
            worst = max(worst, spent)
            label = f"{name} ({outcome})"
            ratio = spent / max(floor, 1e-6)
            print(f"{size:>5} {k:>3} {rule:<20} {label:<27} {spent:>7.3f} {floor:>8.4f} {ratio:>6.0f}x")
    print()
    print(f"{'model':<22} {'tree':<9} {'rule':<20} {'CPU s':>7}")
    for name in all_model_names():
        model = load_model(name)
        for widths in TREES:
            for rule in RULES:
                length = len(widths) + 2
                spent, outcome = cpu(tree_law, model, widths, length, rule)
                worst = max(worst, spent)
                if spent > 0.05:
                    print(f"{name:<22} {','.join(map(str, widths)):<9} {rule:<20} {spent:>7.3f} {outcome}")
    print()
    print(f"slowest: {worst:.3f} CPU s (budget {args.budget} s)")
    return 0 if worst <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
