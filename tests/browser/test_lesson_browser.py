"""The Start-here lesson in headless Chromium, what AppTest cannot see: the whole path walked by Next alone and
answered, the progress kept in the browser's localStorage across a reload, a new tab and a restart of the server (and
not shared with another browser), Exercises' answers kept across a reload, and the phone's sidebar closing once a
page is chosen."""

from __future__ import annotations

from fractions import Fraction

from browserlib import PHONE, free_port, goto, start_streamlit, stop_process, wait_idle
from lab.teaching.exercises import DEFAULT_COUNT, DEFAULT_LEVEL, DEFAULT_SEED, generate_problems

# each chapter's right answer, derived by hand in tests/test_lesson.py
ANSWERS = {1: "2/5", 2: "3/4", 3: "1/2", 4: "undefined", 5: "3/10", 6: "1/2", 7: "2", 8: "1/4"}


def progress(page) -> str:
    return page.locator("[data-testid=stProgress]").first.inner_text()


def chapter_heading(page) -> str:
    return page.locator("[data-testid=stMain] h2").first.inner_text().strip()


def press(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    wait_idle(page)


def test_next_alone_walks_the_path_and_the_progress_survives_a_reload_and_a_new_tab(browser, app_url, screenshot_dir):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    goto(page, app_url)
    assert chapter_heading(page).startswith("Chapter 1:")
    for number in range(1, 9):
        assert chapter_heading(page).startswith(f"Chapter {number}:")
        press(page, "Reveal")
        answer = page.get_by_role("textbox", name="Your answer")
        answer.fill(ANSWERS[number])
        press(page, "Check")
        page.locator("[data-testid=stAlertContentSuccess]").first.wait_for(timeout=15_000)
        assert f"{number} of 8 chapters done" in progress(page)
        if number < 8:
            press(page, "Next →")
    page.wait_for_timeout(500)  # the browser's copy is written just after the run
    page.reload()
    goto(page, page.url)
    assert chapter_heading(page).startswith("Chapter 8:") and "8 of 8 chapters done" in progress(page)
    fresh_tab = context.new_page()
    goto(fresh_tab, app_url)  # no chapter in the link: the lesson opens where the student left it
    page.wait_for_timeout(500)
    wait_idle(fresh_tab)
    assert "8 of 8 chapters done" in progress(fresh_tab) and chapter_heading(fresh_tab).startswith("Chapter 8:")
    fresh_tab.screenshot(path=str(screenshot_dir / "lesson-kept-after-reload-1280.png"))
    other_browser = browser.new_context().new_page()
    goto(other_browser, app_url)
    assert "0 of 8 chapters done" in progress(other_browser)
    other_browser.context.close()
    fresh_tab.get_by_text("All chapters").click()
    wait_idle(fresh_tab)
    press(fresh_tab, "Start over")
    fresh_tab.wait_for_timeout(500)
    goto(fresh_tab, app_url)
    assert "0 of 8 chapters done" in progress(fresh_tab) and chapter_heading(fresh_tab).startswith("Chapter 1:")
    context.close()


def test_exercises_answers_survive_a_reload(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    goto(page, f"{app_url}/exercises")
    problem = next(p for p in generate_problems(DEFAULT_SEED, DEFAULT_COUNT, DEFAULT_LEVEL) if not p.is_choice)
    numbers = [p.number for p in generate_problems(DEFAULT_SEED, DEFAULT_COUNT, DEFAULT_LEVEL) if not p.is_choice]
    box = page.get_by_role("textbox", name="Your answer").nth(numbers.index(problem.number))
    answer = problem.answer
    box.fill(answer if isinstance(answer, str) else str(Fraction(answer)))
    box.press("Enter")
    wait_idle(page)
    assert page.locator("[data-testid=stMetricValue]").first.inner_text() == f"1 / {DEFAULT_COUNT}"
    page.wait_for_timeout(500)
    page.reload()
    goto(page, page.url)
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=stMetricValue]')?.innerText === '1 / {DEFAULT_COUNT}'",
        timeout=15_000,
    )
    context.close()


def test_on_a_phone_the_sidebar_closes_once_a_page_is_chosen(browser, app_url, screenshot_dir):
    context = browser.new_context(viewport=PHONE)  # a narrow window: not a browser that calls itself a phone
    page = context.new_page()
    goto(page, app_url)
    page.locator("[data-testid=stExpandSidebarButton]").click()
    page.locator("[data-testid=stSidebar][data-collapsed=false]").wait_for(timeout=10_000)
    page.locator("[data-testid=stSidebarNav] a", has_text="Glossary").click()
    wait_idle(page)
    page.locator("[data-testid=stSidebar][data-collapsed=true]").wait_for(state="attached", timeout=10_000)
    assert page.locator("[data-testid=stMain] h1").inner_text() == "Glossary"
    page.screenshot(path=str(screenshot_dir / "glossary-after-menu-390.png"))
    context.close()


def test_touch_targets_are_at_least_24_px(browser, app_url):
    """WCAG 2.2's 2.5.8 on a phone: help icons, radio options, the sidebar opener, the lesson's buttons."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    goto(page, f"{app_url}/?chapter=4")  # a radio (the edge cases) and help icons
    small = page.evaluate(
        """() => [...document.querySelectorAll(
              '[data-testid=stTooltipHoverTarget]:has([data-testid=stTooltipIcon]), button[aria-label^="Help for"], '
              + 'label[data-baseweb=radio], '
              + '[data-testid=stExpandSidebarButton], [data-testid=stMain] button')]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.getBoundingClientRect(), el.getAttribute('data-testid') || el.tagName])
            .filter(([r]) => r.width < 24 || r.height < 24).map(([r, name]) => `${name} ${r.width}x${r.height}`)"""
    )
    assert small == []
    context.close()


def test_the_progress_survives_a_restart_of_the_server(browser, tmp_path):
    """The same address (host and port: localStorage belongs to it) served by a new server process."""
    port = free_port()
    proc, url = start_streamlit("server.py", port=port, env={"RESIDUAL_LAB_DATA": str(tmp_path)})
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        goto(page, f"{url}/?chapter=2")
        page.get_by_role("textbox", name="Your answer").fill("3/4")
        press(page, "Check")
        assert "1 of 8 chapters done" in progress(page)
        page.wait_for_timeout(500)
    finally:
        stop_process(proc)
    proc, url = start_streamlit("server.py", port=port, env={"RESIDUAL_LAB_DATA": str(tmp_path)})
    try:
        goto(page, url)
        page.locator("[data-testid=stProgress]", has_text="1 of 8 chapters done").wait_for(timeout=15_000)
        assert chapter_heading(page).startswith("Chapter 2:")
    finally:
        context.close()
        stop_process(proc)
