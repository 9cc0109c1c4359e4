"""Predict, then reveal, in headless Chromium: what a student's browser has before the reveal (the page's text,
every chart's alt text, labels, hover texts and tick labels, every link, every download) holds no rendering of
the answer; after the reveal it does. The answers are the hand-derived ones of tests/answer_text.py."""

from __future__ import annotations

import csv
import io
import re
from fractions import Fraction
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from answer_text import ANSWERS, leaks, states
from exercise_reference import expected_answer

from browserlib import free_port, goto, plotly_data, start_streamlit, stop_process, wait_idle
from lab.teaching.exercises import generate_problems

# Everything the page can show or announce: visible text, accessible names and alt texts, link targets and
# download names, SVG text, and every plotly trace's values, bar labels, hover data and the axes' tick labels.
# A value axis's numbers (0, 0.1, ..., 0.7: plotly's scale, in steps of 1, 2 or 5; the bar predictor's fixed 0, 0.2,
# ..., 1) are no statement of an answer and are left out; category tick labels (token names) are kept.
SCREEN_TEXT_JS = r"""(skip) => {
  const skipped = el => skip && el.closest(skip);
  const scale = new Set([...document.querySelectorAll('.ytick text, .xtick text, .rl-bp-tick')].filter(
    t => /^[-−]?[\d.]+$/.test(t.textContent.trim())));
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (el && [...scale].some(t => t.contains(el))) continue;
    if (el && (el.closest('script, style') || skipped(el))) continue;
    parts.push(node.textContent);
  }
  for (const el of document.querySelectorAll('[aria-label], [alt], [title], a[href], [download]')) {
    if (skipped(el)) continue;
    for (const a of ['aria-label', 'alt', 'title', 'href', 'download']) {
      if (el.hasAttribute(a)) parts.push(el.getAttribute(a));
    }
  }
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (skipped(plot)) continue;
    for (const trace of plot.data || []) {
      for (const k of ['name', 'x', 'y', 'text', 'customdata', 'hovertext', 'hovertemplate']) {
        if (trace[k] !== undefined) parts.push(JSON.stringify(Array.from([].concat(trace[k]))));
      }
    }
    const layout = plot.layout || {};
    for (const axis of Object.keys(layout).filter(k => /^[xy]axis/.test(k))) {
      if (layout[axis].ticktext) parts.push(JSON.stringify(layout[axis].ticktext));
    }
  }
  return parts.join("\n");
}"""


def screen_text(page, skip: str | None = None) -> str:
    """Everything the page shows or announces, outside the elements matching the CSS selector ``skip``."""
    return page.evaluate(SCREEN_TEXT_JS, skip)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_explorer_states_no_answer_before_reveal(page, app_url, name):
    hand = ANSWERS[name]
    # a shared machine can be slow to draw a first page
    goto(page, f"{app_url}/explorer?scenario={name}", timeout=90_000)
    before = screen_text(page)
    assert leaks(before, hand) == []
    assert f"{hand.tokens[0]}: p {hand.p[0]}, q {hand.q[0]}" in before  # the question: the p / q chart's alt
    page.get_by_role("button", name="Reveal").click()
    wait_idle(page)
    page.get_by_text("The exact answer").first.wait_for()
    after = screen_text(page)
    assert f"Z = {hand.z}" in after and f"α = {hand.alpha}" in after
    for t, r in zip(hand.tokens, hand.r):
        assert f"{t}: predicted 0, exact {r}" in after
    assert all(states(after, r) for r in hand.r if r)


P2_STATEMENTS = re.compile(r"p₂\s*(\([^()]*\))?\s*=\s*[(\d.]|pᵢ\(")  # "p₂ = (…", "p₂(B) = 0.75", the chain's table


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_several_drafts_page_states_no_answer_before_reveal(page, app_url, name):
    """Two candidates with replacement (the page's default): the student predicts p₂, the residual the first
    rejection left (by hand: the scenario's r), and the probability that one of the two is kept (by hand:
    α + Z·Σ min(r, q)). The token tree below is no prediction, and is read apart."""
    hand = ANSWERS[name]
    kept = hand.alpha + hand.z * sum(min(r, q) for r, q in zip(hand.r, hand.q))
    goto(page, f"{app_url}/several-drafts?sd_scenario={name}", timeout=90_000)
    page.get_by_role("button", name="Reveal").wait_for()
    before = screen_text(page, ".st-key-sd-tree")
    assert leaks(before, hand) == []
    assert not P2_STATEMENTS.search(before)
    assert "max(0, p − q)" not in before  # nor the rule that gives p₂ (the page says it after the reveal)
    if kept not in {0, 1, *hand.p, *hand.q}:
        assert not states(before, kept), kept
    assert f"{hand.tokens[0]}: p {hand.p[0]}, q {hand.q[0]}" in before  # the question: the p / q chart's alt
    page.get_by_role("button", name="Reveal").click()
    wait_idle(page)
    page.get_by_text("The chain of targets").first.wait_for()
    after = screen_text(page, ".st-key-sd-tree")
    assert "p₂ = (" + ", ".join(f"{t} {r}" for t, r in zip(hand.tokens, hand.r)) + ")" in after
    assert f"a candidate is kept with probability {kept}" in after
    assert "the residual the last rejection left" in after


KEY_BUTTONS = ("Answer key (Markdown)", "Answer key (CSV)")


@pytest.fixture(scope="module")
def linked_app_url():
    """A server whose address for students (RESIDUAL_LAB_PUBLIC_URL) is its own: on a loopback address alone the
    Teacher tab gives no assignment link (no phone could open it)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc, _ = start_streamlit("server.py", port=port, env={"RESIDUAL_LAB_PUBLIC_URL": url})
    yield url
    stop_process(proc)


def test_an_assignment_link_without_the_teacher_secret_has_no_key(browser, linked_app_url):
    """A student's assignment link: problems, no answer key and no download of one, no Reveal buttons even in
    presentation mode. The teacher link that New random seed makes opens the keys, in any browser."""
    app_url = linked_app_url
    teacher = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    goto(teacher, f"{app_url}/exercises?tab=Teacher&count=3&level=zeros")
    assert all(teacher.get_by_role("button", name=label).count() == 0 for label in KEY_BUTTONS)
    teacher.get_by_role("button", name="New random seed").click()
    wait_idle(teacher)
    teacher.wait_for_url("**teacher=**")
    query = parse_qs(urlsplit(teacher.url).query)
    seed, token = int(query["seed"][0]), query["teacher"][0]
    links = [c.strip() for c in teacher.locator("[data-testid=stCode]").all_inner_texts()]
    student_link = next(c for c in links if "teacher=" not in c)
    teacher_link = next(c for c in links if "teacher=" in c)  # shown on the teacher's Teacher tab (not presenting)
    assert student_link.endswith(f"/exercises?seed={seed}&count=3&level=zeros")
    assert teacher_link == f"{student_link}&teacher={token}"
    with teacher.expect_download() as info:
        teacher.get_by_role("button", name="Answer key (CSV)").click()
    key_rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    problems = generate_problems(seed, 3, "zeros")
    for problem, row in zip(problems, key_rows[1:], strict=True):
        answer = expected_answer(problem)  # from the sampling procedure, not from the lab's formulas
        assert row[5] == (answer if isinstance(answer, str) else f"{Fraction(answer)}")

    for link in (student_link, student_link + "&present=1", student_link + "&teacher=forged"):
        student = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        goto(student, link)
        assert student.get_by_role("button", name="Check", exact=True).count() == 3  # the problems
        assert student.get_by_role("button", name="Reveal the solution").count() == 0
        student.get_by_role("tab", name="Teacher").click()
        wait_idle(student)
        text = screen_text(student)
        assert all(student.get_by_role("button", name=label).count() == 0 for label in KEY_BUTTONS), link
        assert "Answer keys open with a teacher link only" in text and token not in text
        student.context.close()

    again = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    goto(again, teacher_link + "&present=1")  # the teacher link in another browser: keys and Reveal buttons
    assert again.get_by_role("button", name="Reveal the solution").count() == 3
    again.get_by_role("tab", name="Teacher").click()
    wait_idle(again)
    assert all(again.get_by_role("button", name=label).count() == 1 for label in KEY_BUTTONS)
    assert token not in again.locator("[data-testid=stMain]").inner_text()  # presenting: the teacher link not shown
    again.context.close()
    teacher.context.close()


# --- a live class: students' pages and the teacher's projected screen before and after the reveal --------------


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):

    from browserlib import app_with_class_data

    data = tmp_path_factory.mktemp("revealclass")
    with app_with_class_data(data) as url:
        yield url, data


def wait_text(page, text: str, timeout: float = 20_000) -> None:
    page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)
    wait_idle(page, started_timeout=50)


@pytest.mark.parametrize(
    "source, scenario, asked, guesses",
    [
        ("worked-example", "bernoulli-residual", ("B", "C"), ("0.6", "0.35")),  # no guess is an answer
        ("draft-misses-support", "draft-misses-support", None, ("0.1", "0.2", "0.5", "0.15", "0.5")),
        ("second-target:pet-words", "pet-words", None, ("0.5", "0.25", "0.25")),  # tested against p
    ],
)
def test_a_class_sees_no_answer_before_the_reveal(browser, class_app, source, scenario, asked, guesses):
    from lab.classroom import classes
    from lab.classroom.db import make_engine

    url, data = class_app
    hand = ANSWERS[scenario]
    engine = make_engine(f"sqlite:///{data / 'classroom.db'}")
    new = classes.create_class(engine, "Period 4")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": source})

    student = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    goto(student, f"{url}/class?code={new.code}")
    student.get_by_role("textbox", name="Your name").fill("Ann")
    student.get_by_role("button", name="Join").click()
    student.wait_for_url("**student=**")
    wait_idle(student)
    # a joined student's page: the class, nothing of the teacher's
    body = student.locator("[data-testid=stApp]").inner_text()
    assert "Start a class" not in body and "Class name" not in body
    assert student.get_by_text("Presentation mode").count() == 0  # no presentation toggle
    second = source.startswith("second-target:")
    fields = [f"{'p₂' if second else 'r'}({t})" for t in (asked or hand.tokens)] + ([] if asked or second else ["Z"])
    for field, value in zip(fields, guesses):
        student.get_by_role("textbox", name=f"Predict {field}").fill(value)
    student.get_by_role("button", name="Submit").click()
    wait_text(student, "Saved at")

    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    goto(projector, f"{url}/class?code={new.code}&teacher={new.teacher_token}&present=1")
    projector.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMetric]')].some(m => m.innerText.includes('1 of 1'))",
        timeout=15_000,
    )
    wait_idle(projector, started_timeout=50)
    for who, page in (("student", student), ("projector", projector)):
        text = screen_text(page)
        assert leaks(text, hand, asked) == [], who
        assert all(f"{t}: p {a}, q {b}" in text for t, a, b in zip(hand.tokens, hand.p, hand.q)), who  # p and q
        assert "success p" not in text, who

    projector.get_by_role("button", name="Reveal to class").click()
    wait_text(projector, "Reconstruction")
    wait_text(student, "Reconstruction")
    for who, page in (("student", student), ("projector", projector)):
        text = screen_text(page)
        assert all(states(text, r) for r, t in zip(hand.r, hand.tokens) if r and (asked is None or t in asked)), who
        sums = "kept at candidate 1 + kept at candidate 2 + correction" if second else "min(p, q) + Z·r"
        assert f"Z = {hand.z}" in text and f"{sums} gives p for every token" in text, who
        if second:  # the class's misconception, named on the teacher's screen
            assert who == "student" or "second candidate tested against p (1 of 1)" in text, who
        if source == "worked-example":
            assert "lab success p = 0.75, n = 1" in text, who
    if source == "worked-example":  # the teacher's link opens the Binomial lab at the same bars (a student's page
        # links to no other page while the class runs)
        assert student.get_by_role("link", name="Open the Binomial lab there").count() == 0
        projector.get_by_role("link", name="Open the Binomial lab there").click()
        projector.wait_for_url("**binomial-lab**")
        wait_idle(projector)
        assert "lab_p=0.75" in projector.url and "n=1" in projector.url
        projector.get_by_role("button", name="Reveal", exact=True).click()
        wait_idle(projector)
        exact = [t for plot in plotly_data(projector) for t in plot if t["name"] == "exact probability"]
        assert exact[0]["x"] == ["r(B)", "r(C)"] and exact[0]["y"] == pytest.approx([0.75, 0.25])
    student.context.close()
    projector.context.close()
    engine.dispose()
