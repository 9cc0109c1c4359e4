"""The Several drafts page in headless Chromium: p₂ predicted by dragging its bars and by the keyboard alone,
revealed, and the stacked bars' values read from the page (what AppTest cannot see: the bar predictor's own
drawing, and plotly's data in the browser)."""

from __future__ import annotations

import pytest

from browserlib import goto, plotly_data, wait_idle


def bar(page, label: str):
    return page.get_by_role("slider", name=f"Your bar {label}", exact=True)


def drag(page, label: str, end: float) -> None:
    """Press the column of bar ``label`` at its bottom and drag to the height ``end``."""
    bar(page, label).scroll_into_view_if_needed()
    box = bar(page, label).bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, box["y"] + box["height"])
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] * (1 - end), steps=8)
    page.mouse.up()
    wait_idle(page)


def stacked(page) -> dict[str, list[float]]:
    """The stacked reconstruction's layers by name, from the figure the browser drew."""
    for chart in plotly_data(page):
        names = {t["name"] for t in chart}
        if "kept at candidate 1" in names:
            return {t["name"]: t["y"] for t in chart}
    raise AssertionError("no stacked reconstruction on the page")


def test_predict_p2_by_dragging_then_reveal(page, app_url):
    """The hand case (p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5), two drafts with replacement): p₂ = (0, 3/4, 1/4)."""
    goto(page, f"{app_url}/several-drafts")
    drag(page, "p₂(B)", 0.75)
    drag(page, "p₂(C)", 0.25)
    assert bar(page, "p₂(B)").get_attribute("aria-valuenow") == "0.75"
    assert bar(page, "p₂(C)").get_attribute("aria-valuenow") == "0.25"
    acceptance = page.get_by_role("spinbutton", name="Your prediction: the probability that some candidate is kept")
    acceptance.fill("0.8")
    acceptance.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Reveal", exact=True).click()
    wait_idle(page)
    alert = page.locator("[data-testid=stAlert]", has_text="p₂ = (A 0, B 3/4, C 1/4)")
    assert "Right: p₂" in alert.inner_text() and "Right: a candidate is kept with probability 4/5" in alert.inner_text()
    layers = stacked(page)
    # by hand: kept at candidate 1 = min(p, q); at candidate 2 = 2/5 · min(p₂, q); correction = 1/5 · (0, 9/10, 1/10)
    assert layers["kept at candidate 1"] == pytest.approx([0.1, 0.3, 0.2])
    assert layers["kept at candidate 2"] == pytest.approx([0.0, 0.12, 0.08])
    assert layers["correction"] == pytest.approx([0.0, 0.18, 0.02])
    assert page.locator("[data-testid=stException]").count() == 0


def test_predict_p2_with_the_keyboard_alone(page, app_url):
    goto(page, f"{app_url}/several-drafts")
    bar(page, "p₂(B)").focus()
    for _ in range(7):  # PageUp: +0.1 each
        page.keyboard.press("PageUp")
    for _ in range(5):  # ArrowUp: +0.01 each
        page.keyboard.press("ArrowUp")
    wait_idle(page)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "Your bar p₂(C)"
    for _ in range(2):
        page.keyboard.press("PageUp")
    for _ in range(5):
        page.keyboard.press("ArrowUp")
    wait_idle(page)
    assert bar(page, "p₂(B)").get_attribute("aria-valuenow") == "0.75"
    assert bar(page, "p₂(C)").get_attribute("aria-valuenow") == "0.25"
    assert page.locator(".rl-bp-sum").inner_text() == "Your bars add up to 1.00 (a distribution adds up to 1)."
    page.get_by_role("button", name="Reveal", exact=True).focus()
    page.keyboard.press("Enter")
    wait_idle(page)
    assert page.locator("[data-testid=stAlert]", has_text="Right: p₂ = (A 0, B 3/4, C 1/4)").count() == 1
