"""lab.core.caching: a cache bounded by the total size of what it holds, that also remembers refusals."""

from __future__ import annotations

import threading

import pytest

from lab.core.caching import REFUSALS_KEPT, SizedCache, cached_by_size
from lab.core.distributions import LabInputError


class Refused(LabInputError):
    pass


def counting(budget: int):
    """A cache over ``n -> tuple(range(n))`` (size n) that refuses n < 0, and the list of the n it computed."""
    calls = []

    @cached_by_size(budget=budget, size_of=len, refused=LabInputError)
    def build(n):
        calls.append(n)
        if n < 0:
            raise Refused(f"n = {n} is refused")
        return tuple(range(n))

    return build, calls


def test_many_small_results_fit_where_a_count_limit_would_drop_them():
    build, calls = counting(budget=100)
    for _ in range(3):
        for n in range(1, 14):  # 1 + 2 + ... + 13 = 91 <= 100: all thirteen stay
            assert build(n) == tuple(range(n))
    assert calls == list(range(1, 14))
    assert build.held() == (13, 91)


def test_the_least_recently_used_go_first_until_the_total_fits():
    build, calls = counting(budget=10)
    build(4), build(3), build(2)  # 9 held
    build(4)  # used again: 3 is now the oldest
    build(5)  # 14 > 10: drop 3 (11), then 2 (9)
    assert build.held() == (2, 9)
    calls.clear()
    build(4), build(5)
    assert calls == []
    build(3), build(2)
    assert calls == [3, 2]


def test_a_result_larger_than_the_budget_is_returned_and_not_kept():
    build, calls = counting(budget=10)
    build(2)
    assert build(11) == tuple(range(11))
    assert build.held() == (1, 2)
    build(11)
    assert calls == [2, 11, 11]


def test_a_refusal_is_remembered_and_raised_again_as_a_fresh_exception():
    build, calls = counting(budget=10)
    with pytest.raises(Refused, match="n = -3 is refused") as first:
        build(-3)
    with pytest.raises(Refused, match="n = -3 is refused") as second:
        build(-3)
    assert calls == [-3]  # not computed again
    assert second.value is not first.value
    assert build.held() == (0, 0)


def test_only_the_refusals_named_are_remembered():
    calls = []

    @cached_by_size(budget=10, size_of=len, refused=LabInputError)
    def broken(n):
        calls.append(n)
        raise ValueError("not a refusal")

    for _ in range(2):
        with pytest.raises(ValueError):
            broken(1)
    assert calls == [1, 1]


def test_refusals_are_bounded_in_number():
    build, calls = counting(budget=10)
    for n in range(-1, -REFUSALS_KEPT - 2, -1):  # one more than kept: the first is forgotten
        with pytest.raises(Refused):
            build(n)
    calls.clear()
    with pytest.raises(Refused):
        build(-2)
    with pytest.raises(Refused):
        build(-1)
    assert calls == [-1]


def test_cache_clear_forgets_results_and_refusals():
    build, calls = counting(budget=10)
    build(3)
    with pytest.raises(Refused):
        build(-1)
    build.cache_clear()
    assert build.held() == (0, 0)
    build(3)
    with pytest.raises(Refused):
        build(-1)
    assert calls == [3, -1, 3, -1]


def test_threads_sharing_it_see_right_values_and_a_consistent_total():
    build, _ = counting(budget=50)
    errors = []

    def ask(offset):
        for i in range(400):
            n = (i * 7 + offset) % 12
            if build(n) != tuple(range(n)):
                errors.append(n)

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    entries, total = build.held()
    kept = [n for n in range(12) if (n,) in build._results]
    assert total == sum(kept) <= 50 and entries == len(kept)


def test_a_result_being_computed_is_computed_once_for_every_thread_asking_meanwhile():
    """A class moving K together asks for the same new law from many pages at once: one computes it, the others
    wait for it and get the same object (without the wait, each would compute it beside the first)."""
    calls, started, release = [], threading.Event(), threading.Event()

    @cached_by_size(budget=100, size_of=len, refused=LabInputError)
    def slow(n):
        calls.append(n)
        started.set()
        release.wait(5)
        return tuple(range(n))

    got = []
    first = threading.Thread(target=lambda: got.append(slow(7)))
    first.start()
    assert started.wait(5)
    others = [threading.Thread(target=lambda: got.append(slow(7))) for _ in range(4)]
    for t in others:
        t.start()
    threading.Event().wait(0.3)  # the others reach the cache while the first still computes
    assert calls == [7]
    release.set()
    for t in [first, *others]:
        t.join(5)
    assert calls == [7] and len(got) == 5 and all(r is got[0] for r in got) and got[0] == tuple(range(7))


def test_a_refusal_or_a_failure_while_others_wait_does_not_leave_them_waiting():
    """The thread computing is refused (remembered: the waiting ones are refused too) or fails otherwise (nothing
    kept: the next asking computes again); nobody is left waiting."""
    refused = []

    @cached_by_size(budget=100, size_of=len, refused=LabInputError)
    def build(n):
        if n < 0:
            raise Refused(f"n = {n} is refused")
        if n == 0:
            raise RuntimeError("broken")
        return tuple(range(n))

    def ask(n):
        try:
            build(n)
        except (Refused, RuntimeError) as exc:
            refused.append(type(exc).__name__)

    threads = [threading.Thread(target=ask, args=(n,)) for n in (-1, -1, 0, 0, 3, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert sorted(refused) == ["Refused", "Refused", "RuntimeError", "RuntimeError"]
    assert build._running == {} and build(3) == (0, 1, 2)


def test_the_pages_law_caches_are_sized_caches():
    from lab.teaching import pitfalls
    from lab.views.live_class import once_per_server

    assert isinstance(pitfalls._mistakes_cached, SizedCache)
    assert isinstance(once_per_server.exact_comparison, SizedCache)
