"""Pitfalls and Numerics in the browser: predict, reveal, read the drawn law; bad logits keep the last state."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browserlib import PHONE, goto, plotly_data, screenshot_full, wait_idle


def trace_y(page, name: str) -> list:
    """y of the drawn trace called ``name``, waiting (retrying) until plotly has drawn it."""
    page.wait_for_function(
        "name => [...document.querySelectorAll('.js-plotly-plot')]"
        ".some(p => (p.data || []).some(t => t.name === name))",
        arg=name,
        timeout=20_000,
    )
    return {t["name"]: t["y"] for chart in plotly_data(page) for t in chart}[name]


def test_pitfalls_predict_and_reveal(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/pitfalls")
    page.get_by_role("radiogroup", name="Is resample-from-p biased").get_by_text("yes, biased").click()
    wait_idle(page)
    page.get_by_role("combobox", name="Which outcome gains mass?").click()
    page.get_by_role("option", name="A", exact=True).click()
    wait_idle(page)
    page.get_by_role("button", name="Reveal the exact law").click()
    wait_idle(page)
    assert page.locator("[data-testid=stException]").count() == 0
    expect(page.locator("[data-testid=stAlert]", has_text="Both answers right")).to_have_count(1, timeout=20_000)
    wait_idle(page)
    # resample-from-p on the worked example, by hand: (7/50, 27/50, 8/25)
    assert trace_y(page, "resample-from-p law") == pytest.approx([0.14, 0.54, 0.32])
    screenshot_full(page, screenshot_dir / "pitfalls-revealed-1280x800.png")
    page.set_viewport_size(PHONE)
    wait_idle(page)
    screenshot_full(page, screenshot_dir / "pitfalls-revealed-390.png")


def test_numerics_bad_logits_keep_the_chart(page, app_url):
    goto(page, f"{app_url}/numerics")
    page.set_viewport_size({"width": 1280, "height": 6000})  # every chart on screen, so every chart is drawn
    wait_idle(page)
    before = trace_y(page, "processed target p'")
    box = page.get_by_role("textbox", name="target logits")
    box.fill("A=2, B=oops")
    box.press("Enter")
    wait_idle(page)
    # retried until the rerun the Enter key triggered has drawn the message (no fixed sleep, no race)
    message = page.locator("[data-testid=stAlert]", has_text="'B': 'oops' is not a number")
    expect(message).to_have_count(1, timeout=20_000)
    wait_idle(page)
    after = trace_y(page, "processed target p'")
    assert after == pytest.approx(before)
    assert page.locator("[data-testid=stException]").count() == 0


def test_pitfalls_spoilers_are_drawn_when_opened(page, app_url):
    """The two spoiler expanders hold their charts and tables only once opened (a click reruns the page)."""
    goto(page, f"{app_url}/pitfalls")
    page.set_viewport_size({"width": 1280, "height": 6000})  # every chart on screen, so every chart is drawn
    wait_idle(page)
    assert page.locator("[data-testid=stPlotlyChart]").count() == 0
    page.get_by_text("Every variant on this choice (spoils the predictions)").click()
    wait_idle(page)
    expect(page.locator("[data-testid=stPlotlyChart]")).to_have_count(1, timeout=20_000)
    page.get_by_text("Every variant, one step (spoils the predictions)").click()
    wait_idle(page)
    expect(page.locator("[data-testid=stPlotlyChart]")).to_have_count(2, timeout=20_000)
    assert page.locator("[data-testid=stException]").count() == 0
