"""The worked example performed by its labels in headless Chromium: Reset, lab success p = 0.75,
n = 1, Predict B/C, Reveal; the chart's bars r(B), r(C) must be 0.75 and 0.25 (3/4 and 1/4 by hand); then the
products Z·r(B) = 2/5 · 3/4 = 3/10 and Z·r(C) = 1/10 typed, and the sum."""

from __future__ import annotations

import pytest

from browserlib import goto, plotly_data, screenshot_full, wait_idle


def set_number(page, label: str, value: str) -> None:
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(value)
    field.press("Enter")
    wait_idle(page)


def steps_done(page) -> int:
    """How many of the guide's six steps are checked off, as the page shows them."""
    guide = page.locator("[data-testid=stMarkdownContainer]", has_text="1. Start from a clean lab").last
    return guide.inner_text().count("— done")


def test_worked_example_by_labels(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/binomial-lab")
    assert page.get_by_role("heading", name="Reproduce the worked example").count() == 1
    assert steps_done(page) == 1  # a fresh page is a clean lab
    # The guide is drawn outside the lab's fragments: each step done below must still show at once.
    page.get_by_role("button", name="Reset", exact=True).click()
    wait_idle(page)
    assert steps_done(page) == 1  # Reset
    set_number(page, "lab success p", "0.75")
    assert steps_done(page) == 1  # n is still 5
    set_number(page, "n", "1")
    assert steps_done(page) == 2  # lab success p = 0.75 and n = 1
    set_number(page, "Predict B", "0.7")
    assert steps_done(page) == 3  # a bar predicted (a rerun of the bars' fragment alone)
    set_number(page, "Predict C", "0.3")
    page.get_by_role("button", name="Reveal", exact=True).click()
    wait_idle(page)
    assert steps_done(page) == 4

    traces = [trace for plot in plotly_data(page) for trace in plot]
    exact = [t for t in traces if t["name"] == "exact probability"]
    assert len(exact) == 1
    assert exact[0]["x"] == ["r(B)", "r(C)"]  # the residual's bars
    assert exact[0]["y"] == pytest.approx([0.75, 0.25], abs=1e-12)
    predicted = [t for t in traces if t["name"] == "your prediction"]
    assert predicted[0]["y"] == pytest.approx([0.7, 0.3], abs=1e-12)
    assert "lab_p=0.75" in page.url and "n=1" in page.url

    # Steps 5 and 6: type Z·r(B), Z·r(C) (2/5 · 3/4 = 3/10, 2/5 · 1/4 = 1/10), then the sum A 1/10, B 3/5, C 3/10.
    page.get_by_role("textbox", name="Z·r(B)").fill("0.3")
    page.get_by_role("textbox", name="Z·r(C)").fill("1/10")
    page.get_by_role("button", name="Check", exact=True).click()
    wait_idle(page)
    assert steps_done(page) == 6
    traces = [trace for plot in plotly_data(page) for trace in plot]
    target = [t for t in traces if t["name"] == "target p"]
    assert target[0]["x"] == ["A", "B", "C"]
    assert target[0]["y"] == pytest.approx([0.1, 0.6, 0.3], abs=1e-12)
    accepted = next(t for t in traces if t["name"] == "accepted min(p, q)")
    correction = next(t for t in traces if t["name"] == "Z × displayed bar")
    assert [a + c for a, c in zip(accepted["y"], correction["y"])] == pytest.approx([0.1, 0.6, 0.3], abs=1e-12)
    screenshot_full(page, screenshot_dir / "worked-example-done-1280x800.png")

    # A reload loses nothing: the link reopens the revealed state.
    page.reload()
    goto(page, page.url)
    traces = [trace for plot in plotly_data(page) for trace in plot]
    assert any(t["name"] == "exact probability" and t["y"] == pytest.approx([0.75, 0.25]) for t in traces)
