"""Bench: a million speculative steps of a three-token scenario vs numpy drawing a million uniforms.

Target (issue 4): the simulator takes at most 3x the time numpy needs for the same number of
uniforms (``Generator.random(1_000_000)``). Both are timed side by side in this one run, best of
several repeats, so machine speed cancels out of the ratio.

    python bench/bench_sampling.py [--steps N] [--repeats R]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.core.sampling import make_streams, simulate_steps  # noqa: E402
from lab.core.scenarios import load_scenario  # noqa: E402

TARGET_RATIO = 3.0


def best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--scenario", default="bernoulli-residual")
    args = parser.parse_args()
    scenario = load_scenario(args.scenario)
    n = args.steps
    rng = make_streams(0).proposal

    def uniforms():
        rng.random(n)

    def simulate():
        simulate_steps(scenario.p, scenario.q, n, seed=1)

    def simulate_general():
        simulate_steps(scenario.p, scenario.q, n, seed=1, force_general=True)

    # interleave warm-up of both so neither gets a cold cache advantage
    uniforms()
    simulate()
    t_uniform = best_time(uniforms, args.repeats)
    t_sim = best_time(simulate, args.repeats)
    t_general = best_time(simulate_general, max(3, args.repeats // 3))
    ratio = t_sim / t_uniform
    print(f"scenario {scenario.name} ({len(scenario.tokens)} tokens), {n:,} steps, best of {args.repeats}")
    print(f"  numpy Generator.random({n:,})       {t_uniform * 1e3:8.2f} ms")
    print(f"  simulate_steps (threshold counting)  {t_sim * 1e3:8.2f} ms   ratio {ratio:.2f}x")
    print(f"  simulate_steps (general path)        {t_general * 1e3:8.2f} ms   ratio {t_general / t_uniform:.2f}x")
    verdict = "OK" if ratio <= TARGET_RATIO else "ABOVE TARGET"
    print(f"target: <= {TARGET_RATIO:.0f}x the uniforms -> {verdict} ({ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
