"""The residual explorer in headless Chromium: keyboard prediction, Reveal, the reveal's chart data,
a prediction moved after the reveal updates the score, and the link reopens the same state."""

from __future__ import annotations

import pytest

from browserlib import goto, plotly_data, screenshot_full, wait_idle


def trace(page, name: str) -> dict:
    found = [t for plot in plotly_data(page) for t in plot if t["name"] == name]
    assert len(found) == 1, f"{name!r}: {len(found)} traces"
    return found[0]


def test_explorer_predict_reveal_and_link(page, app_url):
    goto(page, f"{app_url}/explorer")
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


@pytest.mark.parametrize("size", ["1280x800", "390x844", "1920x1080"])
def test_explorer_sliders_fill_even_rows_and_the_answer_is_where_the_eye_is(page, app_url, screenshot_dir, size):
    width, height = (int(v) for v in size.split("x"))
    page.set_viewport_size({"width": width, "height": height})
    goto(page, f"{app_url}/explorer")
    sliders = [page.get_by_role("slider", name=f"Predict r({t})").bounding_box() for t in "ABC"]
    if width >= 1000:  # one row of three beside the chart (today: two, then one)
        assert max(b["y"] for b in sliders) - min(b["y"] for b in sliders) < 2
    else:  # a phone: one a row, aligned
        assert len({round(b["x"]) for b in sliders}) == 1 and sliders[0]["y"] < sliders[1]["y"] < sliders[2]["y"]
    page.get_by_role("button", name="Reveal", exact=True).click()
    wait_idle(page)
    heading = page.get_by_role("heading", name="The exact answer")
    heading.wait_for(timeout=15_000)
    reveal = page.get_by_role("button", name="Reveal", exact=True).bounding_box()
    box = heading.bounding_box()
    gap = box["y"] - (reveal["y"] + reveal["height"])
    assert 0 <= gap < 120, gap  # just under Reveal, not below the charts
    if width >= 1000:
        assert box["y"] + box["height"] < height  # on screen without scrolling
        assert abs(box["x"] - sliders[0]["x"]) < 40  # in the prediction's column, beside the chart
    page.get_by_text("Largest error at token B").wait_for(timeout=5_000)
    screenshot_full(page, screenshot_dir / f"explorer-revealed-{size}.png")
