"""The residual explorer in headless Chromium: keyboard prediction, Reveal, the reveal's chart data,
a prediction moved after the reveal updates the score, and the link reopens the same state."""

from __future__ import annotations

import pytest

from browserlib import goto, plotly_data, wait_idle


def trace(page, name: str) -> dict:
    found = [t for plot in plotly_data(page) for t in plot if t["name"] == name]
    assert len(found) == 1, f"{name!r}: {len(found)} traces"
    return found[0]


def test_explorer_predict_reveal_and_link(page, app_url):
    goto(page, app_url)
    assert trace(page, "target p")["y"] == pytest.approx([0.1, 0.6, 0.3])
    page.get_by_role("slider", name="Predict r(B)").focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    page.wait_for_timeout(500)
    wait_idle(page)
    assert "exact residual r" not in [t["name"] for plot in plotly_data(page) for t in plot]
    page.get_by_role("button", name="Reveal", exact=True).click()
    wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=15_000)
    # exact residual of the worked example: r = (0, 3/4, 1/4); reconstruction reaches p = (1/10, 3/5, 3/10)
    assert trace(page, "exact residual r")["y"] == pytest.approx([0.0, 0.75, 0.25])
    predicted_b = trace(page, "your prediction")["y"][1]
    assert 0 < predicted_b <= 0.05
    assert trace(page, "correction Z·r")["y"] == pytest.approx([0.0, 0.3, 0.1])
    assert "reveal=1" in page.url and "r=0" in page.url

    # moving a prediction after the reveal redraws the comparison
    page.get_by_role("slider", name="Predict r(B)").focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.js-plotly-plot')].some(p => p.data.some("
        f"t => t.name === 'your prediction' && t.y[1] > {predicted_b} + 1e-9))",
        timeout=15_000,
    )

    # the link reopens the revealed state in a new page
    url = page.url
    other = page.context.new_page()
    goto(other, url)
    assert trace(other, "exact residual r")["y"] == pytest.approx([0.0, 0.75, 0.25])
    other.close()
