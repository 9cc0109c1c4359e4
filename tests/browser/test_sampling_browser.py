"""Sampling lab and Blocks in headless Chromium: Run N steps, step through a block, read the charts,
and screenshot both pages after interaction (1280x800 and 390 px) into screenshots/."""

from __future__ import annotations

import pytest

from browserlib import DESKTOP, PHONE, goto, plotly_data, screenshot_full, wait_idle


def click(page, name: str, then: str | None = None) -> None:
    """Click a button and wait for its run (and, if given, for ``then`` to appear)."""
    page.get_by_role("button", name=name).click()
    if then:
        page.wait_for_selector(then, timeout=30_000)
    wait_idle(page)


@pytest.mark.parametrize("viewport_name, viewport", [("1280x800", DESKTOP), ("390", PHONE)])
def test_sampling_lab_run(browser, app_url, screenshot_dir, viewport_name, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        goto(page, f"{app_url}/sampling?sl_steps=20000&sl_seed=3&sl_guess=0.3")
        click(page, "Run 20,000 steps", then="[data-testid=stMetric]")
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=30_000)
        wait_idle(page)
        assert page.locator("[data-testid=stException]").count() == 0
        data = plotly_data(page)
        empirical = {t["name"]: t for t in data[0]}
        # worked example: p = (1/10, 3/5, 3/10); accepted + corrected shares add up to about p
        assert empirical["target p"]["y"] == pytest.approx([0.1, 0.6, 0.3])
        totals = [a + c for a, c in zip(empirical["empirical: accepted"]["y"], empirical["empirical: corrected"]["y"])]
        assert totals == pytest.approx([0.1, 0.6, 0.3], abs=0.02)  # 20k steps: sd < 0.004
        assert empirical["empirical: corrected"]["y"][0] == 0  # r(A) = 0
        screenshot_full(page, screenshot_dir / f"sampling-run-{viewport_name}.png")
    finally:
        context.close()


@pytest.mark.parametrize("viewport_name, viewport", [("1280x800", DESKTOP), ("390", PHONE)])
def test_blocks_step_through(browser, app_url, screenshot_dir, viewport_name, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    try:
        goto(page, f"{app_url}/blocks?bk_seed=3&bk_k=4")
        click(page, "Step")
        click(page, "Show all", then="text=The block commits")
        assert page.locator("[data-testid=stException]").count() == 0
        # once on the page (the live region, which also says it to a screen reader, is not part of the page's text)
        shown = page.locator("[data-testid=stMarkdownContainer]", has_text="The block commits")
        assert shown.count() == 1
        screenshot_full(page, screenshot_dir / f"blocks-stepped-{viewport_name}.png")
    finally:
        context.close()
