"""The check's power statement, end to end: a sampler with a planted bias of TV 0.01 (the worst-case
shape: 0.01 moved from half of p's mass, proportionally, to the other half) run through
``lab.check.check_step`` on equal-distributions with 100 seeds; prints how many runs caught it (the
statement: at least 99) and, with the unbiased sampler, how many false alarms (expected 0 at 1e-6).

    python bench/bench_check_power.py [--runs 100] [--jobs 2]

About 140,000 draws a run: a few minutes of CPU for 100 runs of both samplers.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.check import check_step  # noqa: E402
from tests.check_samplers import make_biased  # noqa: E402


def run(args: tuple[float, int]) -> bool:
    tv, seed = args
    return not check_step(make_biased(tv), cases=["equal-distributions"], seed=seed).passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for tv, label in ((0.01, "planted TV 0.01 bias"), (0.0, "no bias (false alarms)")):
        started = time.perf_counter()
        with ProcessPoolExecutor(args.jobs) as pool:
            flagged = sum(pool.map(run, [(tv, seed) for seed in range(args.runs)]))
        print(f"{label}: flagged in {flagged} of {args.runs} seeded runs ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
