"""WCAG 2.1 AA in headless Chromium (docs/accessibility.md): axe-core on every page and state, page titles,
headings, the focus outline's contrast computed from the rendered styles.

axe-core comes from npm (package.json / package-lock.json at the repository root; .ci/run runs ``npm ci``). Each
scan stretches the viewport to the page's full height first (Streamlit scrolls inside its main block, and axe's
contrast rule skips what is below the fold) and runs axe in every frame. A state is a page plus what a student or
teacher does on it: to scan a new state, add a ``State`` to ``STATES`` (its ``act`` gets the page and the app's
URL, and leaves the page idle in the state to scan).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from browserlib import DESKTOP, PHONE, ROOT, app_with_class_data, goto, wait_for_dashboard, wait_idle
from lab.views import shell

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PAGES = {page.address: page.title for page in shell.PAGES}  # the app's own list; the first page is served at "/"
MODES = {  # how a state is shown: viewport, and whether presentation mode is on
    "1280": (DESKTOP, False),
    "390": (PHONE, False),
    "presenting": (DESKTOP, True),
}
_names = itertools.count(1)


@pytest.fixture(scope="module")
def a11y_app(tmp_path_factory):
    """The app with an empty class database of its own (the class states start classes)."""
    data = tmp_path_factory.mktemp("a11ydata")
    with app_with_class_data(data) as url:
        yield url


def url_of(base: str, path: str, presenting: bool) -> str:
    if not presenting:
        return f"{base}/{path}"
    return f"{base}/{path}{'&' if '?' in path else '?'}present=1"


def no_dialog(page) -> None:
    """A page that exists: Streamlit answers an unknown path with a "Page not found" dialog."""
    assert page.locator("[data-testid=stDialog]").count() == 0, page.locator("[data-testid=stDialog]").inner_text()


# --- scanning ----------------------------------------------------------------------------------------------


def full_height(page) -> int:
    return page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebar]')]"
        ".map(el => el.scrollHeight), document.documentElement.scrollHeight)"
    )


def axe_violations(page) -> list[str]:
    """axe-core's violations of the WCAG 2.0/2.1 A and AA rules in every frame of the page, one line each, with
    the viewport stretched to the page's full height for the scan (and restored afterwards)."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` at the repository root (.ci/run does)")
    viewport = page.viewport_size
    page.set_viewport_size({"width": viewport["width"], "height": max(viewport["height"], full_height(page) + 40)})
    try:
        wait_idle(page, started_timeout=50)
        page.wait_for_timeout(600)  # plotly redraws responsive charts after the resize
        found = []
        for frame in page.frames:
            frame.add_script_tag(path=str(AXE))
            result = frame.evaluate(
                "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
                AXE_TAGS,
            )
            for violation in result["violations"]:
                for node in violation["nodes"]:
                    summary = " ".join(node["failureSummary"].split())
                    found.append(f"{violation['id']} ({violation['impact']}) at {node['target']}: {summary[:300]}")
        return found
    finally:
        page.set_viewport_size(viewport)


# --- what a page must show besides axe's rules -------------------------------------------------------------

HEADINGS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] :is(h1, h2, h3, h4, h5, h6)')]
    .filter(h => h.offsetParent !== null)
    .map(h => ({level: Number(h.tagName[1]), text: h.innerText.trim(),
                links: [...(h.closest('[data-testid=stHeading], [data-testid=stMarkdownContainer]')
                        ?.querySelectorAll('[data-testid=stHeaderActionElements] a') || [])]
                        .filter(a => a.offsetParent !== null).length}))"""

SPOKEN_ICONS_JS = """() => [...document.querySelectorAll('[role=img][aria-label$=" icon"]')]
    .filter(el => el.offsetParent !== null).map(el => el.getAttribute('aria-label'))"""


def structure_problems(page) -> list[str]:
    """Headings out of order (one h1, no level skipped), "Link to heading" tab stops, and icons a screen reader
    reads by their font name."""
    problems = []
    headings = page.evaluate(HEADINGS_JS)
    levels = [h["level"] for h in headings]
    if levels.count(1) != 1:
        problems.append(f"{levels.count(1)} h1 headings: {headings}")
    for before, after in zip(headings, headings[1:]):
        if after["level"] > before["level"] + 1:
            problems.append(f"h{before['level']} {before['text']!r} then h{after['level']} {after['text']!r}")
    problems += [f"heading {h['text']!r} has a link-to-heading tab stop" for h in headings if h["links"]]
    problems += [f"icon read aloud as {label!r}" for label in page.evaluate(SPOKEN_ICONS_JS)]
    return problems


# --- states ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    name: str
    path: str  # url path (and query) of the page
    act: Callable | None = None  # act(page, base_url, presenting): from the loaded page to the state to scan

    def open(self, page, base: str, presenting: bool) -> None:
        goto(page, url_of(base, self.path, presenting), timeout=60_000)  # a shared CI machine can be slow to connect
        no_dialog(page)
        if self.act is not None:
            self.act(page, base, presenting)
            wait_idle(page)


def press(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    wait_idle(page)


def set_number(page, label: str, value: str) -> None:
    field = page.get_by_role("spinbutton", name=label, exact=True)
    field.fill(value)
    field.press("Enter")
    wait_idle(page)


def explorer_revealed(page, base, presenting):
    press(page, "Reveal")


def binomial_revealed(page, base, presenting):
    press(page, "Reveal")


def binomial_summed(page, base, presenting):
    press(page, "Reset")
    set_number(page, "lab success p", "0.75")
    set_number(page, "n", "1")
    set_number(page, "Predict B", "0.7")
    set_number(page, "Predict C", "0.3")
    press(page, "Reveal")
    press(page, "Multiply by Z = 2/5 and add")


def binomial_bars_by_keyboard(page, base, presenting):
    """The bar predictor with bars set from the keyboard, focus (and its ring) on a bar."""
    bar = page.get_by_role("slider", name="Your bar B", exact=True)
    bar.focus()
    for key in ("End", "PageDown", "PageDown", "PageDown"):  # 1, then 0.7
        page.keyboard.press(key)
        wait_idle(page)


def explorer_bars_dragged(page, base, presenting):
    """The explorer's bars dragged with the mouse (r(B) to about 0.6), then revealed beside the exact r."""
    bar = page.get_by_role("slider", name="Your bar r(B)", exact=True)
    bar.scroll_into_view_if_needed()
    box = bar.bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, box["y"] + box["height"] - 2)
    page.mouse.down()
    page.mouse.move(x, box["y"] + box["height"] * 0.4, steps=5)
    page.mouse.up()
    wait_idle(page)
    press(page, "Reveal")


def exercises_wrong_and_hint(page, base, presenting):
    answer = page.get_by_role("textbox", name="Your answer").first
    answer.fill("0.123")
    answer.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Hint 1 of", exact=False).first.click()
    wait_idle(page)


def pitfalls_spoiler(page, base, presenting):
    press(page, "Reveal the exact law")
    page.get_by_text("Every variant on this choice (spoils the predictions)").click()
    wait_idle(page)


def pitfalls_several_candidates(page, base, presenting):
    press(page, "Reveal the law on the example")
    page.get_by_text("The three rules on the example", exact=False).click()
    wait_idle(page)


def several_drafts_revealed(page, base, presenting):
    """The chain, the stacked reconstruction and the acceptance chart revealed, and the tree stepped through."""
    press(page, "Reveal")
    press(page, "Show all")


def sampling_ran(page, base, presenting):
    page.get_by_role("button", name="Run 10,000 steps", exact=True).click()
    wait_idle(page)


def blocks_shown(page, base, presenting):
    press(page, "Step")
    press(page, "Show all")


def start_class(page, base: str, presenting: bool) -> str:
    """Start a class on ``page`` (the Class page, loaded) and open its first activity; returns the class code."""
    page.get_by_role("textbox", name="Class name (optional)").fill("Period 3")
    press(page, "Start a class")
    # the dashboard (in presentation mode the teacher link leaves the address bar, so wait for the page itself)
    page.locator("[data-testid=stMetric]", has_text="Class code").first.wait_for(timeout=30_000)
    wait_idle(page)
    code = page.locator("[data-testid=stMetric]", has_text="Class code").first
    code = code.locator("[data-testid=stMetricValue]").inner_text().strip()
    press(page, "Open for the class")
    return code


def teacher_revealed(page, base, presenting):
    start_class(page, base, presenting)
    press(page, "Reveal to class")


def join_as_student(page, base: str, presenting: bool, code: str) -> None:
    goto(page, url_of(base, f"class?code={code}", presenting))
    page.get_by_role("textbox", name="Your name").fill(f"Student {next(_names)}")
    press(page, "Join")
    page.wait_for_url("**student=**")
    wait_idle(page)


def with_teacher(page, base: str, presenting: bool) -> tuple:
    """A teacher's page, in a context of its own beside ``page``'s, with a class and an open activity."""
    teacher = page.context.browser.new_context(viewport=DESKTOP).new_page()
    goto(teacher, f"{base}/class")
    return teacher, start_class(teacher, base, False)


def student_joined(page, base, presenting):
    teacher, code = with_teacher(page, base, presenting)
    join_as_student(page, base, presenting, code)
    teacher.context.close()


def student_submitted(page, base, presenting):
    teacher, code = with_teacher(page, base, presenting)
    join_as_student(page, base, presenting, code)
    page.get_by_role("textbox", name="Predict r(B)").fill("0.7")
    page.get_by_role("textbox", name="Predict r(C)").fill("0.3")
    press(page, "Submit")
    teacher.context.close()


def student_revealed(page, base, presenting):
    teacher, code = with_teacher(page, base, presenting)
    join_as_student(page, base, presenting, code)
    page.get_by_role("textbox", name="Predict r(B)").fill("0.7")
    page.get_by_role("textbox", name="Predict r(C)").fill("0.3")
    press(page, "Submit")
    press(teacher, "Reveal to class")
    page.get_by_text("revealed by your teacher", exact=False).first.wait_for(timeout=15_000)
    wait_idle(page, started_timeout=50)
    teacher.context.close()


def projector_of(page, teacher) -> None:
    """``page`` opens the projector view of ``teacher``'s class (its Projector view link)."""
    goto(page, teacher.get_by_role("link", name="Projector view").get_attribute("href"))


def projector_before_reveal(page, base, presenting):
    teacher, code = with_teacher(page, base, presenting)
    projector_of(page, teacher)
    teacher.context.close()


def projector_revealed(page, base, presenting):
    teacher, code = with_teacher(page, base, presenting)
    projector_of(page, teacher)
    press(teacher, "Show responses")
    press(teacher, "Reveal to class")
    page.get_by_text("Exact answer:", exact=False).first.wait_for(timeout=15_000)
    wait_idle(page, started_timeout=50)
    teacher.context.close()


def teacher_own_question_timed(page, base, presenting):
    """The teacher writes a question (its preview drawn), adds it to the plan, opens it with a 60 s countdown."""
    page.get_by_role("textbox", name="Class name (optional)").fill("Period 4")
    press(page, "Start a class")
    page.locator("[data-testid=stMetric]", has_text="Class code").first.wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_text("Your own question", exact=True).click()
    wait_idle(page)
    for label, value in (("Tokens, separated by commas", "X, Y, W"), ("Target p, in the same order", "1/2, 1/4, 1/4"),
                         ("Draft q, in the same order", "1/4, 1/4, 1/2")):  # fmt: skip
        page.get_by_role("textbox", name=label).fill(value)
        page.get_by_role("textbox", name=label).press("Enter")
        wait_idle(page)
    page.get_by_text("Preview: what the class will see").wait_for(timeout=15_000)
    countdown = page.get_by_role("combobox", name="Countdown for each round")
    countdown.click()
    countdown.press_sequentially("60")
    countdown.press("Enter")
    wait_idle(page)
    press(page, "Add to the plan")
    press(page, "Open for the class")
    page.get_by_role("timer").wait_for(timeout=15_000)


def projector_counting_down(page, base, presenting):
    teacher = page.context.browser.new_context(viewport=DESKTOP).new_page()
    goto(teacher, f"{base}/class")
    teacher_own_question_timed(teacher, base, False)
    projector_of(page, teacher)
    page.get_by_role("timer").wait_for(timeout=15_000)
    teacher.context.close()


STATES = [
    *(State(path or "start-here", path) for path in PAGES),
    State("explorer revealed", "explorer", explorer_revealed),
    State("binomial revealed", "binomial-lab", binomial_revealed),
    State("binomial worked sum", "binomial-lab", binomial_summed),
    State("binomial bars set by keyboard", "binomial-lab?n=1", binomial_bars_by_keyboard),
    State("explorer bars dragged and revealed", "explorer", explorer_bars_dragged),
    State("exercises wrong answer and hint", "exercises", exercises_wrong_and_hint),
    State("exercises predict the bars", "exercises?tab=Predict+the+bars"),
    State("exercises teacher tab", "exercises?tab=Teacher"),
    State("pitfalls spoiler open", "pitfalls", pitfalls_spoiler),
    State("pitfalls several candidates revealed", "pitfalls", pitfalls_several_candidates),
    State("sampling ran", "sampling", sampling_ran),
    State("blocks shown", "blocks", blocks_shown),
    State("several drafts revealed", "several-drafts", several_drafts_revealed),
    State("class teacher revealed", "class", teacher_revealed),
    State("class student joined", "class", student_joined),
    State("class student submitted", "class", student_submitted),
    State("class student revealed", "class", student_revealed),
    State("projector before the reveal", "class", projector_before_reveal),
    State("projector revealed", "class", projector_revealed),
    State("class own question with a countdown", "class", teacher_own_question_timed),
    State("projector counting down", "class", projector_counting_down),
]


def lesson_revealed_and_answered(page, base, presenting):
    """A chapter with its prediction revealed, its interactive stepped, and a wrong answer checked (a warning)."""
    press(page, "Reveal")
    for name in ("Step", "Run again"):
        button = page.get_by_role("button", name=name, exact=True)
        if button.count():
            button.first.click()
            wait_idle(page)
    answer = page.get_by_role("textbox", name="Your answer")
    answer.fill("12345")
    press(page, "Check")


LESSON_STATES = [
    State(f"lesson chapter {n} revealed", f"?chapter={n}", lesson_revealed_and_answered) for n in range(1, 9)
]


@pytest.fixture
def mode_page(browser, request):
    viewport, presenting = MODES[request.param]
    context = browser.new_context(viewport=viewport)
    yield context.new_page(), presenting
    context.close()


@pytest.mark.parametrize("mode_page", list(MODES), indirect=True)
@pytest.mark.parametrize("state", STATES, ids=[s.name.replace(" ", "-") for s in STATES])
def test_axe_finds_nothing(mode_page, state, a11y_app):
    scan(mode_page, state, a11y_app)


def scan(mode_page, state: State, base: str) -> None:
    page, presenting = mode_page
    state.open(page, base, presenting)
    problems = axe_violations(page) + structure_problems(page)
    assert not problems, f"{state.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("mode_page", ["1280", "390"], indirect=True)
@pytest.mark.parametrize("state", LESSON_STATES, ids=[s.name.replace(" ", "-") for s in LESSON_STATES])
def test_axe_finds_nothing_in_any_chapter_of_the_lesson(mode_page, state, a11y_app):
    """Every chapter before its reveal is the Start-here page's own scan with its link; after it, here."""
    scan(mode_page, state, a11y_app)


def lesson_keyboard_walk(page, url: str, reveal: str, heading: str, next_label: str) -> tuple[str, str]:
    """Chapter 1 of the lesson at ``url`` by keyboard alone: Tab to ``reveal`` and press it (focus stays on it or
    moves to the prediction's ``heading``), then Tab to ``next_label`` and press it. Returns what the reveal
    announced and the text of what has focus after Next."""
    goto(page, url)
    assert live(page, "ls")["status"] == ""
    tab_to(page, reveal)
    page.keyboard.press("Enter")
    assert_focus_kept(page, reveal, heading=heading)
    announced = live(page, "ls")["status"]
    tab_to(page, next_label)
    page.keyboard.press("Enter")
    wait_idle(page)
    page.wait_for_timeout(300)
    return announced, page.evaluate("() => document.activeElement.textContent.trim()")


def test_keyboard_walkthrough_lesson_next_moves_focus_to_the_chapter(page, a11y_app):
    announced, focused = lesson_keyboard_walk(page, a11y_app, "Reveal", "Predict first", "Next →")
    assert announced.startswith("Revealed: A proposal is kept with probability min(1, p(x)/q(x))")
    assert focused == "Chapter 2: Why kept proposals give min(p, q)"


PROJECTOR_SCREEN = {"width": 1920, "height": 1080}  # the size the projector view is made for
PROJECTOR_STATES = [s for s in STATES if s.name.startswith("projector")]


@pytest.mark.parametrize("state", PROJECTOR_STATES, ids=[s.name.replace(" ", "-") for s in PROJECTOR_STATES])
def test_axe_finds_nothing_on_the_projector_screen(browser, state, a11y_app):
    context = browser.new_context(viewport=PROJECTOR_SCREEN)
    try:
        page = context.new_page()
        state.open(page, a11y_app, False)
        problems = axe_violations(page) + structure_problems(page)
        assert not problems, f"{state.name} at 1920x1080:\n" + "\n".join(problems)
    finally:
        context.close()


# --- reflow at 320 px (WCAG 1.4.10) -------------------------------------------------------------------------

NARROW = {"width": 320, "height": 640}
REFLOW_JS = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    const cut = [];
    for (const plot of document.querySelectorAll('.js-plotly-plot')) {
        const box = plot.getBoundingClientRect();
        const texts = plot.querySelectorAll(
            '.gtitle, .g-xtitle text, .g-ytitle text, .legendtext, .xtick text, .ytick text');
        for (const text of texts) {
            const r = text.getBoundingClientRect();
            if (!text.textContent.trim() || !r.width) continue;
            if (text.matches('.gtitle') || r.left < box.left - 1 || r.right > box.right + 1
                || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
                cut.push(text.textContent);
            }
        }
    }
    const boxes = [...document.querySelectorAll('[data-testid=stMarkdownContainer]:has(> table)')];
    return {page: document.documentElement.scrollWidth, main: main.scrollWidth, width: innerWidth, cut,
            scrolling: boxes.filter(b => b.scrollWidth > b.clientWidth + 1)
                .map(b => [b.getAttribute('tabindex'), b.getAttribute('role'), b.getAttribute('aria-label')]),
            stops: boxes.filter(b => b.scrollWidth <= b.clientWidth + 1 && b.hasAttribute('tabindex')).length};
}"""
# the projector is a 1920x1080 screen whose charts are sized in window units
REFLOW_STATES = [s for s in STATES if not s.name.startswith("projector ")]


@pytest.mark.parametrize("state", REFLOW_STATES, ids=[s.name.replace(" ", "-") for s in REFLOW_STATES])
def test_reflow_at_320_px(browser, state, a11y_app):
    """At 320 px nothing scrolls the page sideways (a wide table scrolls in its own box, which is then a named tab
    stop), and no chart text is cut off: chart titles are page text, axis titles and legends fit in the chart."""
    context = browser.new_context(viewport=NARROW)
    page = context.new_page()
    state.open(page, a11y_app, False)
    page.wait_for_timeout(300)  # the scroll-box observer marks boxes on the next animation frame
    found = page.evaluate(REFLOW_JS)
    context.close()
    assert found["page"] <= found["width"] and found["main"] <= found["width"], found
    assert found["cut"] == [], f"chart text cut off at 320 px: {found['cut']}"
    assert all(box == ["0", "region", "Table, scrolls sideways"] for box in found["scrolling"]), found["scrolling"]
    assert found["stops"] == 0, "a table that fits is a tab stop"
    if state.name == "numerics":  # the p′/q′ table is wider than a 320 px screen: it scrolls in its box
        assert found["scrolling"], "the p′/q′ table no longer scrolls in its own box"


def test_every_page_has_its_own_title(page, a11y_app):
    for path, title in PAGES.items():
        goto(page, f"{a11y_app}/{path}")
        no_dialog(page)
        assert page.title() == f"{title} · Residual Lab"


# --- live regions ------------------------------------------------------------------------------------------

LIVE_JS = """key => {
    const box = document.querySelector(`.st-key-live-${key}`);
    if (!box) return null;
    const status = box.querySelector('[data-live=status]'), alert = box.querySelector('[data-live=alert]');
    const same = status.dataset.mark === 'kept';
    status.dataset.mark = 'kept';  // seen again after an action: the same element, whose text changed
    return {status: status.textContent, alert: alert.textContent, same,
            roles: [status.getAttribute('role'), status.getAttribute('aria-live'),
                    alert.getAttribute('role'), alert.getAttribute('aria-live')]};
}"""


def live(page, key: str) -> dict:
    """The text of the live regions drawn by ``announce(key, …)``; ``same``: the element seen by the last call."""
    page.wait_for_timeout(200)  # the component sets its text just after the run
    region = page.evaluate(LIVE_JS, key)
    assert region is not None, f"no live region {key!r} on the page"
    assert region["roles"] == ["status", "polite", "alert", "assertive"]
    return region


def test_reveals_and_refusals_are_announced(page, a11y_app):
    goto(page, f"{a11y_app}/explorer")
    assert live(page, "ex")["status"] == ""  # present from the first run, empty until something happens
    press(page, "Reveal")
    region = live(page, "ex")
    assert region["same"] and region["status"].startswith("Revealed: α = 3/5 (0.6), Z = 2/5 (0.4)")
    assert "the exact residual r: A 0, B 3/4, C 1/4" in region["status"]

    goto(page, f"{a11y_app}/binomial-lab")
    assert live(page, "bl-reveal")["status"] == "" and live(page, "bl-sum")["status"] == ""
    binomial_summed(page, a11y_app, False)
    revealed = live(page, "bl-reveal")
    assert revealed["same"] and revealed["status"].startswith("Revealed: the exact bars are r(B) 3/4, r(C) 1/4")
    summed = live(page, "bl-sum")
    assert summed["same"] and summed["status"] == "The sum recovers the unconditional target: A 1/10, B 3/5, C 3/10."

    goto(page, f"{a11y_app}/exercises")
    region = live(page, "exq")
    assert region["status"] == region["alert"] == ""
    exercises_wrong_and_hint(page, a11y_app, False)
    assert ", hint 1: " in live(page, "exq")["status"]
    answer = page.get_by_role("textbox", name="Your answer").first
    answer.fill("")
    answer.press("Enter")
    wait_idle(page)
    region = live(page, "exq")
    assert region["same"] and region["alert"].endswith("Type an answer first.")

    goto(page, f"{a11y_app}/sampling")
    assert live(page, "sl")["status"] == ""
    page.get_by_role("button", name="Run", exact=False).first.click()
    wait_idle(page)
    region = live(page, "sl")
    assert region["same"] and region["status"].startswith("Ran 10,000 steps: corrected share 0.")


def test_a_class_announces_joining_saved_the_teachers_reveal_and_refusals(browser, a11y_app):
    context = browser.new_context(viewport=PHONE)
    student = context.new_page()
    goto(student, f"{a11y_app}/class?code=ZZZZZZ")
    assert live(student, "cls")["alert"] == ""
    student.get_by_role("textbox", name="Your name").fill("Ann")
    press(student, "Join")
    assert live(student, "cls")["alert"]  # no such class: refused, assertively

    teacher, code = with_teacher(student, a11y_app, False)
    join_as_student(student, a11y_app, False, code)
    assert live(student, "cls")["status"].startswith("Activity 1 is open: ")
    student.get_by_role("textbox", name="Predict r(B)").fill("0.7")
    student.get_by_role("textbox", name="Predict r(C)").fill("0.3")
    press(student, "Submit")
    region = live(student, "cls")
    assert region["same"] and region["status"].startswith("Saved at ")
    press(teacher, "Reveal to class")
    assert live(teacher, "cls")["status"].endswith("answer revealed.")
    student.get_by_text("revealed by your teacher", exact=False).first.wait_for(timeout=15_000)
    wait_idle(student, started_timeout=50)
    region = live(student, "cls")  # the teacher's reveal reached the student's page, which says it
    assert region["same"] and region["status"].startswith("Your teacher revealed the exact answer: r(B) is 3/4")
    teacher.context.close()
    context.close()


# --- focus ---------------------------------------------------------------------------------------------------

FOCUSED_JS = """() => {
    const el = document.activeElement;
    const name = el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].innerText)
        || el.innerText || '';
    return {tag: el.tagName, role: el.getAttribute('role'), type: el.type || null,
            testid: el.dataset.testid || null, name: name.trim().split('\\n').pop().trim()};
}"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED_JS)


def tab_to(page, name: str, presses: int = 120) -> dict:
    """Press Tab until the focused element's accessible name is ``name`` (keyboard only)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        now = focused(page)
        if now["name"] == name or now["name"].startswith(name + " "):
            return now
    raise AssertionError(f"{name!r} is not reachable with Tab")


def assert_focus_kept(page, name: str, heading: str | None = None) -> None:
    """After an action, focus is on the element pressed or on the result's heading, never on the body."""
    wait_idle(page)
    page.wait_for_timeout(300)
    now = focused(page)
    assert now["tag"] != "BODY", f"focus fell to the page's body after {name!r}"
    if heading is not None and now["tag"] in ("H1", "H2", "H3"):
        assert now["name"] == heading
    else:
        assert now["name"] == name, now


def type_number(page, value: str) -> None:
    page.keyboard.press("Control+a")
    page.keyboard.type(value)
    page.keyboard.press("Enter")
    wait_idle(page)


def test_keyboard_walkthrough_worked_example(page, a11y_app):
    goto(page, f"{a11y_app}/binomial-lab")
    tab_to(page, "Reset")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Reset")
    for label, value in (("lab success p", "0.75"), ("n", "1"), ("Predict B", "0.7"), ("Predict C", "0.3")):
        tab_to(page, label)
        type_number(page, value)
        assert_focus_kept(page, label)
    tab_to(page, "Reveal")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Reveal")
    assert live(page, "bl-reveal")["status"].startswith("Revealed: the exact bars are r(B) 3/4, r(C) 1/4")
    tab_to(page, "Multiply by Z = 2/5 and add")
    page.keyboard.press("Space")
    assert_focus_kept(page, "Multiply by Z = 2/5 and add")
    assert live(page, "bl-sum")["status"].endswith("A 1/10, B 3/5, C 3/10.")


def test_keyboard_walkthrough_explorer_reveal(page, a11y_app):
    goto(page, f"{a11y_app}/explorer")
    tab_to(page, "Predict r(B)")
    for _ in range(75):
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    tab_to(page, "Predict r(C)")
    for _ in range(25):
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    tab_to(page, "Reveal")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Reveal", heading="The exact answer")
    assert live(page, "ex")["status"].startswith("Revealed: α = 3/5 (0.6), Z = 2/5 (0.4)")
    assert "Score" in page.inner_text("[data-testid=stMain]")


def test_keyboard_walkthrough_joining_a_class(browser, a11y_app):
    context = browser.new_context(viewport=DESKTOP)
    student = context.new_page()
    teacher, code = with_teacher(student, a11y_app, False)
    goto(student, f"{a11y_app}/class")
    tab_to(student, "Class code")
    student.keyboard.type(code)
    tab_to(student, "Your name")
    student.keyboard.type("Bea")
    tab_to(student, "Join")
    student.keyboard.press("Enter")
    student.wait_for_url("**student=**")
    heading = f"Class {code} · Period 3"
    student.wait_for_function("() => document.activeElement.tagName === 'H2'", timeout=10_000)
    assert_focus_kept(student, "Join", heading=heading)
    tab_to(student, "Predict r(B)")
    student.keyboard.type("0.7")
    tab_to(student, "Predict r(C)")
    student.keyboard.type("0.3")
    tab_to(student, "Submit")
    student.keyboard.press("Enter")
    assert_focus_kept(student, "Submit")
    assert live(student, "cls")["status"].startswith("Saved at ")
    teacher.context.close()
    context.close()


def test_keyboard_walkthrough_teacher_dashboard(page, a11y_app):
    """The teacher's buttons by keyboard: focus stays on the button pressed, or moves to the result's heading when
    the button is gone (Start a class, Open for the class, Next activity) or to the button that replaced it (Lock,
    Unlock); never to the page's body."""
    goto(page, f"{a11y_app}/class")
    tab_to(page, "Class name (optional)")
    page.keyboard.type("Period 5")
    tab_to(page, "Start a class")
    page.keyboard.press("Enter")
    wait_for_dashboard(page)
    page.wait_for_function("() => document.activeElement.tagName === 'H2'", timeout=10_000)
    assert_focus_kept(page, "Start a class", heading="Period 5")
    tab_to(page, "Open for the class")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.tagName === 'H3'", timeout=10_000)
    heading = focused(page)["name"]
    assert heading.startswith("Activity 1: ") and heading.endswith("(round 1, open)")
    for name, after in (("Show responses", "Show responses"), ("Lock", "Unlock"), ("Unlock", "Lock")):
        tab_to(page, name)
        page.keyboard.press("Enter")
        assert_focus_kept(page, after)
    tab_to(page, "Vote again")
    page.keyboard.press("Enter")  # nobody has voted yet: refused, and the refusal is said at once
    assert_focus_kept(page, "Vote again")
    assert live(page, "cls")["alert"].startswith("Nobody has voted in round 1 yet")
    tab_to(page, "Reveal to class")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Reveal to class")
    assert "answer revealed" in live(page, "cls")["status"]
    tab_to(page, "Next activity")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.tagName === 'H3'", timeout=10_000)
    assert_focus_kept(page, "Next activity", heading="Open an activity for the class")


LAST_BULLET_JS = """() => [...document.querySelectorAll('[data-testid=stMain] li')].pop().innerText.trim()"""


def test_keyboard_walkthrough_blocks_steps_are_announced(page, a11y_app):
    """Step, Show all and Restart by keyboard: focus stays on the button (none disables itself), and the live region
    says the line the step added (the same words as the page's newest bullet)."""
    goto(page, f"{a11y_app}/blocks")
    assert live(page, "bk")["status"] == ""
    tab_to(page, "Step")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Step")  # the first draft y: p = 1/3, q = 1/2 at the start, so min(1, p/q) = 2/3
    region = live(page, "bk")
    assert region["same"] and region["status"].startswith("Draft 1: y after start: p = 1/3, q = 1/2, kept with ")
    assert "min(1, p/q) = 2/3" in region["status"] and region["status"] == page.evaluate(LAST_BULLET_JS)
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Step")  # the second y after y: p = 2/5, q = 4/5, min(1, p/q) = 1/2
    assert live(page, "bk")["status"].startswith("Draft 2: y after y: p = 2/5, q = 4/5, kept with probability")
    tab_to(page, "Show all")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Show all")
    region = live(page, "bk")
    assert region["status"] == page.evaluate(LAST_BULLET_JS) + " The block is complete."
    assert region["status"].startswith("The block commits ")
    page.keyboard.press("Enter")  # a complete block: nothing changes, focus stays
    assert_focus_kept(page, "Show all")
    tab_to(page, "Restart")
    page.keyboard.press("Enter")
    assert_focus_kept(page, "Restart")
    assert live(page, "bk")["status"] == ""


# --- the focus outline's contrast, from the rendered styles -------------------------------------------------

RING_JS = """() => {
    const parse = c => {
        const m = c.match(/[\\d.]+/g).map(Number);
        return {rgb: m.slice(0, 3), a: m.length > 3 ? m[3] : 1};
    };
    const lum = ([r, g, b]) => {
        const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const behind = el => {  // the first background below the outline that is mostly opaque
        for (let e = el; e; e = e.parentElement) {
            const c = parse(getComputedStyle(e).backgroundColor);
            if (c.a > 0.5) return c.rgb;
        }
        return [255, 255, 255];
    };
    const el = document.activeElement;
    const thumb = el.type === 'range' ? el.parentElement.parentElement : null;  // a slider's input is invisible
    const ring = [el, el.closest('label'), thumb].filter(Boolean).find(e => {
        const s = getComputedStyle(e);
        return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
    });
    const kind = el.dataset.testid || el.closest('[data-testid]')?.dataset.testid
        || el.getAttribute('role') || el.tagName;
    const about = {kind, tag: el.tagName, type: el.type || null, role: el.getAttribute('role')};
    if (!ring) return {...about, ratio: null};
    const s = getComputedStyle(ring);
    const a = lum(parse(s.outlineColor).rgb), b = lum(behind(ring.parentElement));
    return {...about, width: parseFloat(s.outlineWidth), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
}"""
TEXT_BOXES = ("text", "number", "textarea", "password", "search", "email", "url")  # their own 5.2:1 focused border


@pytest.mark.parametrize("path", ["binomial-lab", "", "explorer", "exercises", "pitfalls"])
def test_focus_outline_contrast_at_least_3_to_1(page, a11y_app, path):
    goto(page, f"{a11y_app}/{path}")
    if path == "pitfalls":
        press(page, "Reveal the exact law")
    seen = set()
    for _ in range(45):
        page.keyboard.press("Tab")
        ring = page.evaluate(RING_JS)
        if ring["tag"] in ("INPUT", "TEXTAREA") and ring["type"] in TEXT_BOXES or ring["role"] == "combobox":
            continue
        if ring["tag"] == "BODY":
            break
        assert ring["ratio"] is not None, f"no focus outline on {ring}"
        assert ring["ratio"] >= 3 and ring["width"] >= 2, ring
        seen.add(ring["kind"] if ring["tag"] != "INPUT" else f"{ring['tag']}:{ring['role'] or ring['type']}")
    expected = {
        "binomial-lab": {
            "stSidebarNavLink", "stBaseButton-secondary", "stBaseButton-primary", "stTooltipHoverTarget", "INPUT:switch"
        },
        "": {"stSidebarNavLink", "stBaseButton-primary", "stExpander", "INPUT:switch"},  # Start here
        "explorer": {"INPUT:range"},
        "exercises": {"stTab"},
        "pitfalls": {"stExpander"},
    }[path]
    assert expected <= seen, seen

