"""A cache bounded by what it holds, not by how many entries: for exact laws, whose size runs from a handful of
sequences to thousands.

A page of a whole class asks for many small laws (each student's K and L) and sometimes a large one. A cache of a
fixed number of entries must be sized for the large ones, so it keeps few and recomputes the small ones over and
over (16 reports on Pitfalls, where one model alone has 56 K/L choices: about a fifth of the server's CPU under
150 students). :func:`cached_by_size` keeps any mix whose total size stays within a budget, least recently used
out first, and also remembers refusals (a choice too large is refused again at once, without building its chains
first). Thread-safe: the pages' script threads share it, and a result being computed is computed once: the others
asking for it meanwhile wait for it.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable

REFUSALS_KEPT = 1024  # refusals are small (one exception each); they are counted, not sized


class SizedCache:
    """``function`` with its results kept while their total ``size_of`` stays within ``budget`` (a result larger
    than the budget is returned, not kept), and its ``refused`` exceptions kept (at most REFUSALS_KEPT)."""

    def __init__(self, function: Callable, budget: int, size_of: Callable[[object], int], refused: type[Exception]):
        self.function, self.budget, self.size_of, self.refused = function, budget, size_of, refused
        self._results: OrderedDict = OrderedDict()  # key -> (result, size), least recently used first
        self._refusals: OrderedDict = OrderedDict()  # key -> the exception
        self._held = 0
        self._running: dict = {}  # key -> set once the thread computing it is done
        self._lock = threading.Lock()
        functools.update_wrapper(self, function)

    def __call__(self, *args):
        while True:
            with self._lock:
                if args in self._results:
                    self._results.move_to_end(args)
                    return self._results[args][0]
                refusal = self._refusals.get(args)
                if refusal is not None:
                    self._refusals.move_to_end(args)
                    break
                running = self._running.get(args)
                if running is None:
                    self._running[args] = threading.Event()
                    break
            # Another thread is computing the same arguments: wait for it instead of computing them again beside it
            # (a class that moves K together asks for the same new law from many pages at once). Then look again:
            # kept, refused, or (too large to keep, or failed otherwise) computed here.
            running.wait()
        if refusal is not None:
            raise copy.copy(refusal)  # a fresh one each time: a raised exception collects its traceback
        try:  # outside the lock: another thread's different choice is not held up by this one
            result = self.function(*args)
        except self.refused as exc:
            with self._lock:
                self._refusals[args] = copy.copy(exc)  # without the traceback (and the frames it holds)
                while len(self._refusals) > REFUSALS_KEPT:
                    self._refusals.popitem(last=False)
            raise
        else:
            size = self.size_of(result)
            with self._lock:
                if size <= self.budget and args not in self._results:
                    self._results[args] = (result, size)
                    self._held += size
                    while self._held > self.budget:
                        _, (_, dropped) = self._results.popitem(last=False)
                        self._held -= dropped
        finally:
            with self._lock:
                self._running.pop(args).set()
        return result

    def held(self) -> tuple[int, int]:
        """(entries, their total size)."""
        with self._lock:
            return len(self._results), self._held

    def cache_clear(self) -> None:
        with self._lock:
            self._results.clear()
            self._refusals.clear()
            self._held = 0


def cached_by_size(budget: int, size_of: Callable[[object], int], refused: type[Exception]):
    """Decorator: see :class:`SizedCache` (positional, hashable arguments only)."""
    return lambda function: SizedCache(function, budget, size_of, refused)
