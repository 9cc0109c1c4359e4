"""What each patch of a library's internals buys: the lecture hall (bench_classroom.py's ``--hall``) with every patch,
with no speed patch (RESIDUAL_LAB_PATCHES=stock), and with each speed patch left out (RESIDUAL_LAB_PATCHES_OFF),
the configurations alternated round by round in one run, each action's server CPU a page divided by its own floor
(the minimal app's burst a second before it, served the same way).

Per configuration and action it prints the median ratio to the floor over the rounds, and for each patch its share:
how much more CPU a page costs without it than with all, as a fraction of the cost with all (``+0.05``: 5 % more
without it). docs/performance.md keeps a patch only where its share is at least 0.03 on a hall action.

Usage: ``python bench/bench_patches.py [--students 300] [--rounds 3] [--only config_cache,...]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the repository root (lab/, and the test helpers as a package)

from bench.bench_classroom import hall_class  # noqa: E402
from lab.classroom.db import make_engine  # noqa: E402
from lab.views import patches  # noqa: E402

SPEED = [p.module for p in patches.PATCHES if p.speed]


def configurations(only: list[str]) -> dict[str, dict[str, str]]:
    """Name -> the environment that serves it."""
    made = {"all": {patches.MODE_ENV: "all", patches.OFF_ENV: ""}, "none": {patches.MODE_ENV: patches.STOCK}}
    for name in only or SPEED:
        made[f"without {name}"] = {patches.MODE_ENV: "all", patches.OFF_ENV: name}
    return made


def one_run(env: dict[str, str], n: int, floor) -> dict[str, float]:
    """The app served with ``env`` on a class database of its own (the same students joining again would meet the
    join limits); each hall action's CPU a page divided by its floor, one round."""
    from tests.browserlib import start_streamlit, stop_process

    data = tempfile.mkdtemp(prefix="patchbench-")
    engine = make_engine(f"sqlite:///{data}/classroom.db")
    proc, url = start_streamlit("server.py", cwd=ROOT, quiet=True, env={**env, "RESIDUAL_LAB_DATA": data})
    try:
        results = hall_class(url, [proc.pid], engine, n, rounds=1, floor=floor)
    finally:
        stop_process(proc)
        engine.dispose()
    return {action: rows[0]["cpu"] / rows[0]["floor"]["cpu"] for action, rows in results.items()} | {
        f"{action} last": rows[0]["last"] for action, rows in results.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="the speed patches to leave out one at a time (default: each)")
    args = parser.parse_args()
    from tests.browserlib import start_streamlit, stop_process

    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    configs = configurations([name for name in args.only.split(",") if name])
    floor_proc, floor_url = start_streamlit("bench/minimal_app.py", cwd=ROOT, quiet=True)
    measured: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
    try:
        names = list(configs)
        for r in range(args.rounds):
            order = names[r % len(names):] + names[: r % len(names)]  # alternated: each round starts elsewhere
            for name in order:
                measured[name].append(one_run(configs[name], args.students, (floor_url, [floor_proc.pid])))
                print(f"round {r + 1}, {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in measured[name][-1].items()),
                      flush=True)
    finally:
        stop_process(floor_proc)
    actions = [k for k in measured["all"][0] if not k.endswith(" last")]
    medians = {name: {a: statistics.median(run[a] for run in runs) for a in measured["all"][0]}
               for name, runs in measured.items()}
    print(f"\n{args.students} students who voted, one process, {args.rounds} rounds; CPU a page / its floor (median), "
          "the last page's seconds in brackets")
    print(f"  {'configuration':28} " + " ".join(f"{a:>20}" for a in actions))
    for name, row in medians.items():
        print(f"  {name:28} " + " ".join(f"{row[a]:>12.2f}x ({row[a + ' last']:4.2f}s)" for a in actions))
    print("\neach patch's share: CPU a page without it over CPU a page with all, less one")
    print(f"  {'patch':28} " + " ".join(f"{a:>20}" for a in actions) + f" {'largest':>9}")
    for name in configs:
        if name.startswith("without "):
            shares = [medians[name][a] / medians["all"][a] - 1 for a in actions]
            print(f"  {name[8:]:28} " + " ".join(f"{s:>+20.3f}" for s in shares) + f" {max(shares):>+9.3f}")
    shares = [medians["none"][a] / medians["all"][a] - 1 for a in actions]
    print(f"  {'(every speed patch)':28} " + " ".join(f"{s:>+20.3f}" for s in shares) + f" {max(shares):>+9.3f}")


if __name__ == "__main__":
    main()
