"""lab.views.patches.fragment_pool: a run that runs no fragment in parallel makes no thread pool; one that does still
runs
its fragments in a pool, as Streamlit's own."""

from __future__ import annotations

import inspect
import re
import threading

import pytest
from streamlit.runtime import parallel_coordinator
from streamlit.runtime.parallel_coordinator import ParallelFragmentCoordinator
from streamlit.testing.v1 import AppTest

from lab.views.patches import fragment_pool


def test_a_coordinator_that_is_given_nothing_makes_no_pool_and_ends_as_before():
    fragment_pool.install()
    for end in ("join", "drain"):
        coordinator = ParallelFragmentCoordinator(yield_check=lambda: None)
        assert isinstance(coordinator._executor, fragment_pool.PoolWhenUsed)
        getattr(coordinator, end)()
        assert coordinator._executor.pool is None


def test_a_submitted_call_runs_on_another_thread_and_join_waits_for_it():
    fragment_pool.install()
    coordinator = ParallelFragmentCoordinator(yield_check=lambda: None, max_workers=2)
    ran = []
    for value in (1, 2, 3):
        coordinator.submit(lambda v: ran.append((v, threading.get_ident())), None, value)
    coordinator.join()
    assert sorted(v for v, _ in ran) == [1, 2, 3]
    assert all(ident != threading.get_ident() for _, ident in ran)
    assert coordinator._executor.pool is not None


def test_nothing_is_scheduled_after_shutdown_as_with_the_real_pool():
    pool = fragment_pool.PoolWhenUsed()
    pool.shutdown()
    with pytest.raises(RuntimeError):
        pool.submit(print)


def test_streamlit_calls_only_what_the_stand_in_has():
    """A Streamlit upgrade that calls the pool otherwise fails here, not in a class."""
    source = inspect.getsource(parallel_coordinator)
    assert "ThreadPoolExecutor(max_workers=max_workers)" in source
    assert set(re.findall(r"self\._executor\.(\w+)", source)) == {"submit", "shutdown"}


PARALLEL_APP = """
import threading
import streamlit as st
from lab.views.patches import fragment_pool
fragment_pool.install()

@st.fragment(parallel=True)
def part(name):
    st.write(name, "ran on the main thread" if threading.current_thread() is threading.main_thread() else "ran")

part("left")
part("right")
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
pool = get_script_run_ctx().parallel_coordinator._executor
st.write("the page ran", type(pool).__name__, "with a pool" if pool.pool is not None else "without a pool")
"""


def test_a_page_with_parallel_fragments_still_draws_them():
    at = AppTest.from_string(PARALLEL_APP).run(timeout=20)
    assert not at.exception
    texts = sorted(m.value for m in at.markdown)
    assert texts == ["left ran", "right ran", "the page ran PoolWhenUsed with a pool"]
