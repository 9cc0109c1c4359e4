"""A page load is exactly one script run: no second run follows it (URL-bound widgets re-syncing, a
query-param write, presentation mode's URL sync), so an answer typed at once is never reset.

Runs are counted on the WebSocket (every run, whoever asked for it, starts with a ``new_session``
message), not from the app's script-state attribute, which stays "running" across an immediate rerun.
The Exercises answer is typed as soon as its box is visible, without waiting for the app to be idle.
Checked that the count catches an extra run: with a one-time ``st.rerun()`` added to the end of the
Exercises page (not committed) all three Exercises cases fail with 2 runs."""

from __future__ import annotations

import pytest

from browserlib import IDLE_SELECTOR, count_runs, wait_idle

SETTLE_MS = 2500  # an extra run after the load would start within this time (it follows the first run's messages)


def open_counting_runs(page, url: str) -> list[str]:
    """Open url; the returned list grows by one entry per script run the server starts for this tab."""
    runs = count_runs(page)
    page.goto(url, wait_until="commit")
    return runs


def settle(page) -> None:
    page.wait_for_selector(IDLE_SELECTOR, state="attached", timeout=30_000)
    page.wait_for_timeout(SETTLE_MS)
    wait_idle(page, started_timeout=50)


@pytest.mark.parametrize("query", ["", "?seed=42&count=6&level=zeros", "?seed=7&count=3&present=1"])
def test_answer_typed_right_after_load_survives(page, app_url, query):
    runs = open_counting_runs(page, f"{app_url}/exercises{query}")
    box = page.wait_for_selector("input[aria-label='Your answer']", state="visible", timeout=30_000)
    box.fill("3/4")  # as soon as the first answer box is visible: the app may still be loading
    settle(page)
    assert box.evaluate("el => el.isConnected"), "the answer box was replaced after the load"
    assert box.input_value() == "3/4"
    assert len(runs) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/?chapter=2",  # Start here, the default page (nothing saved in this browser yet)
        "/explorer?z=0.3",
        "/binomial-lab?lab_p=0.33&n=4",
        "/numerics",
        "/sampling?sl_steps=3000&sl_seed=4",
        "/blocks?bk_k=5&bk_alpha=0.5",
        "/pitfalls",
    ],
)
def test_every_page_loads_in_one_run(page, app_url, path):
    runs = open_counting_runs(page, app_url + path)
    settle(page)
    assert len(runs) == 1
    assert page.url == app_url + path  # the link still holds its state
