"""The thread pool for parallel fragments, made when a fragment first uses it (installed by
lab.views.patches.install_all).

Streamlit 1.67 makes a ``ThreadPoolExecutor`` at the start of every script run and every fragment run, for fragments
that run in parallel (``streamlit/runtime/parallel_coordinator.py``), and shuts it down at the run's end. No page of
this app runs fragments in parallel, yet every run makes the pool (its queue, semaphore and locks), on every page at
once when a teacher opens an activity. :func:`install` gives that module a stand-in with the two methods it calls,
``submit`` and ``shutdown``, that makes the real pool on the first ``submit``; a run that submits nothing makes none.
tests/test_fragment_pool.py checks that a run makes no pool, that a submitted call runs in one, and fails if a
Streamlit upgrade calls the pool otherwise.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from streamlit.runtime import parallel_coordinator

_making = threading.Lock()  # a pool made once, even if two threads submit at the same moment


class PoolWhenUsed:
    """``ThreadPoolExecutor(max_workers=...)``'s ``submit`` and ``shutdown``, the pool made on the first submit."""

    __slots__ = ("_max_workers", "pool", "_shut")

    def __init__(self, max_workers: int | None = None) -> None:
        self._max_workers = max_workers
        self.pool: ThreadPoolExecutor | None = None
        self._shut = False

    def submit(self, fn, /, *args, **kwargs):
        if self.pool is None:
            with _making:
                if self._shut:  # as the real pool: nothing is scheduled after shutdown
                    raise RuntimeError("cannot schedule new futures after shutdown")
                if self.pool is None:
                    self.pool = ThreadPoolExecutor(max_workers=self._max_workers)
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with _making:
            self._shut = True
        if self.pool is not None:
            self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def install() -> None:
    """Give Streamlit's parallel-fragment coordinator the stand-in, once per process (later calls do nothing)."""
    parallel_coordinator.ThreadPoolExecutor = PoolWhenUsed
