"""Running cases side by side in worker processes (``jobs`` > 1), results in case order.

Workers are forked, so they inherit the user's sampler as loaded (nothing of it is pickled); each case
has its own seeded generator, so the results do not depend on which worker ran which case. Progress
comes back through one shared counter.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

_STATE: dict = {}


class SharedProgress:
    """What a worker reports: draws done, added to the parent's shared counter."""

    def __init__(self, counter):
        self.counter = counter

    def advance(self, draws: int, label: str | None = None) -> None:
        if draws:
            with self.counter.get_lock():
                self.counter.value += draws


def _args(case_args, index: int) -> tuple:
    """The arguments of case ``index``: one tuple for every case, or a list with a tuple per case."""
    return case_args[index] if isinstance(case_args, list) else case_args


def _run(index: int):
    runner, sampler, case_args = _STATE["runner"], _STATE["sampler"], _STATE["args"]
    return runner(sampler, _STATE["cases"][index], *_args(case_args, index),
                  progress=SharedProgress(_STATE["counter"]))


def run_cases(runner, sampler, cases: list, case_args, progress, jobs: int) -> list:
    """``runner(sampler, case, *case_args, progress=...)`` for every case, in order (``case_args`` a tuple for
    every case, or a list of one tuple per case)."""
    if jobs <= 1 or len(cases) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [runner(sampler, case, *_args(case_args, i), progress=progress) for i, case in enumerate(cases)]
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    _STATE.update(runner=runner, sampler=sampler, cases=cases, args=case_args, counter=counter)
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(cases)), mp_context=context) as pool:
            futures = [pool.submit(_run, i) for i in range(len(cases))]
            while not all(f.done() for f in futures):
                progress.done = counter.value
                progress.draw()
                time.sleep(0.1)
            results = [f.result() for f in futures]
        progress.done = counter.value
        return results
    finally:
        _STATE.clear()
