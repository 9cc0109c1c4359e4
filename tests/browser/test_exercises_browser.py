"""The Exercises page and presentation mode in headless Chromium: typing answers, the link, the CSS."""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from exercise_reference import expected_answer

from browserlib import PHONE, goto, wait_idle
from lab.teaching.exercises import generate_problems


def exact_text(value) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def test_assignment_link_answers_and_score(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/exercises?seed=12&count=3&level=zeros")  # one run (test_load_runs_browser.py)
    problems = generate_problems(12, 3, "zeros")
    prompts = page.locator("[data-testid=stMarkdown] strong").all_inner_texts()
    assert [p.prompt for p in problems] == [t for t in prompts if t.endswith("?")]
    numeric = next(p for p in problems if not p.is_choice)
    box = page.get_by_role("textbox", name="Your answer").nth(
        [p.number for p in problems if not p.is_choice].index(numeric.number)
    )
    box.fill(exact_text(numeric.answer) if not isinstance(numeric.answer, str) else numeric.answer)
    box.press("Enter")
    wait_idle(page)
    assert "Correct" in page.locator("[data-testid=stAlertContentSuccess]").first.inner_text()
    assert page.locator("[data-testid=stMetricValue]").first.inner_text() == "1 / 3"
    page.screenshot(path=str(screenshot_dir / "exercises-answered-1280x800.png"))


def test_presentation_mode_hides_the_sidebar_and_enlarges_text(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/exercises?seed=3&count=2")
    assert page.locator("[data-testid=stSidebar]").is_visible()
    normal = page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
    page.get_by_text("Presentation mode").click()
    wait_idle(page)
    page.wait_for_function(f"() => parseFloat(getComputedStyle(document.documentElement).fontSize) > {normal * 1.2}")
    page.wait_for_url("**present=1**")
    assert not page.locator("[data-testid=stSidebar]").is_visible()
    menus = "[data-testid=stTopNavLink], [data-testid=stTopNavSection], header a[href]"
    assert page.locator(menus).count() >= 2  # navigation in the top bar (a menu per group)
    big = page.evaluate("() => parseFloat(getComputedStyle(document.documentElement).fontSize)")
    assert big > normal * 1.2
    page.screenshot(path=str(screenshot_dir / "exercises-present-1280x800.png"))
    # A reload keeps presentation mode (it is in the URL) and still reveals nothing by itself.
    goto(page, page.url)
    assert not page.locator("[data-testid=stSidebar]").is_visible()
    assert page.locator("[data-testid=stExpander]").count() == 0
    page.set_viewport_size(PHONE)
    wait_idle(page, started_timeout=50)
    page.screenshot(path=str(screenshot_dir / "exercises-present-390.png"))


def test_downloads_are_built_on_the_click(page, app_url):
    """The answer key and the results are handed over only when pressed (deferred downloads): the files that
    arrive hold the assignment's answers and this student's answer as it is at the click."""
    goto(page, f"{app_url}/exercises?seed=12&count=3&level=zeros")
    first = generate_problems(12, 3, "zeros")[0]
    p, q = (dict(pair.split("=") for pair in dist.split(", ")) for dist in (_dist(first.p), _dist(first.q)))
    alpha = sum(min(Fraction(p[t]), Fraction(q[t])) for t in p)  # α = Σ min(p, q), from the problem's table
    box = page.get_by_role("textbox", name="Your answer").first
    box.fill(exact_text(alpha))
    box.press("Enter")
    wait_idle(page)
    page.get_by_role("tab", name="Your results").click()
    wait_idle(page)  # a tab switch runs the page (only the open tab is drawn)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download my results (CSV)").click()
    rows = Path(info.value.path()).read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("problem,answer,correct,tries")
    assert rows[1].startswith(f"1,{exact_text(alpha)},yes,1,")
    page.get_by_role("tab", name="Teacher").click()
    wait_idle(page)
    assert page.get_by_role("button", name="Answer key (CSV)").count() == 0  # a student's link: no key
    page.get_by_role("button", name="New random seed").click()  # a new assignment, with its teacher link
    wait_idle(page)
    page.wait_for_url("**teacher=**")
    seed = int(parse_qs(urlsplit(page.url).query)["seed"][0])
    with page.expect_download() as info:
        page.get_by_role("button", name="Answer key (CSV)").click()
    assert info.value.suggested_filename == f"residual-lab-seed{seed}-zeros-3-key.csv"
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    for problem, row in zip(generate_problems(seed, 3, "zeros"), rows[1:], strict=True):
        answer = expected_answer(problem)  # from the sampling procedure (tests/exercise_reference.py)
        assert row[:3] == [str(problem.number), "zeros", problem.prompt]
        assert row[5] == (answer if isinstance(answer, str) else exact_text(answer))


def _dist(dist) -> str:
    return ", ".join(f"{t}={exact_text(v)}" for t, v in zip(dist.tokens, dist.values))


def test_predict_the_bars_tab(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/exercises?seed=3")
    page.get_by_role("tab", name="Predict the bars").click()
    wait_idle(page)
    assert page.get_by_role("slider").count() > 0
    page.screenshot(path=str(screenshot_dir / "exercises-bars-tab-1280x800.png"), full_page=True)


def test_an_answer_typed_but_not_checked_survives_a_tab_switch(page, app_url):
    goto(page, f"{app_url}/exercises?seed=12&count=3&level=zeros")
    box = page.get_by_role("textbox", name="Your answer").first
    box.fill("2/7")  # typed, not checked: it exists only in the browser
    page.get_by_role("tab", name="Predict the bars").click()
    wait_idle(page)
    page.get_by_role("tab", name="Problems").click()
    wait_idle(page)
    assert page.get_by_role("textbox", name="Your answer").first.input_value() == "2/7"


def test_hint_keeps_the_typed_answer_unchecked_and_enter_checks_it(page, app_url):
    """A problem's card is its form: Hint is one of its buttons, so pressing it keeps what is typed without checking
    it, and Enter in the answer box still presses Check (the form's first button)."""
    goto(page, f"{app_url}/exercises?seed=12&count=3&level=zeros")
    problems = generate_problems(12, 3, "zeros")
    numeric = next(p for p in problems if not p.is_choice)
    index = [p.number for p in problems if not p.is_choice].index(numeric.number)
    typed = "2/7" if numeric.answer != Fraction(2, 7) else "1/9"  # a wrong answer
    box = page.get_by_role("textbox", name="Your answer").nth(index)
    box.fill(typed)
    page.get_by_role("button", name="Hint 1 of 4").nth(numeric.number - 1).click()
    wait_idle(page)
    box = page.get_by_role("textbox", name="Your answer").nth(index)
    assert box.input_value() == typed  # kept, not checked
    assert page.get_by_text("0 tries · hints used 1 of 4").count() >= 1
    assert page.locator("[data-testid=stAlertContentInfo]").first.inner_text().startswith("Hint 1:")
    assert page.locator("[data-testid=stMetricValue]").nth(1).inner_text() == "0"  # Attempted
    box.press("Enter")
    wait_idle(page)
    assert page.locator("[data-testid=stMetricValue]").nth(1).inner_text() == "1"
    assert page.get_by_text("1 try · hints used 1 of 4").count() == 1
