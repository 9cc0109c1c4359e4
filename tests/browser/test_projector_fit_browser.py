"""The projector fits with as many tokens as a class question has, up to the lab's limit: the eight-word scenario
(eight bars and Z) and a teacher's own question of 26 tokens (one of them named with 40 characters), at 1920x1080
and 1280x720, in every state from an open vote with its countdown to the reveal of a second round: no scrolling,
every chart inside the window, and no two texts of a chart overlapping (what a screenshot shows as "1/101/10")."""

from __future__ import annotations

import pytest

from browserlib import app_and_class_engine, goto, wait_idle
from lab.classroom import admission, answers, classes, versions
from lab.teaching.class_question import own_question

NAMES = [f"word{i:02d}" for i in range(1, 26)] + ["a-token-name-of-forty-characters-exactly"]
LARGEST = own_question(
    "Twenty-six tokens", ", ".join(NAMES), ", ".join(["1/26"] * 26), ", ".join(["1/13"] * 13 + ["0"] * 13)
)
SOURCES = {"eight": "eight-words", "twenty-six": LARGEST}
FIT_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const scroll = Math.max(main.scrollHeight, document.documentElement.scrollHeight);
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  const boxes = plots.map(p => p.getBoundingClientRect()).map(b => [b.left, b.top, b.right, b.bottom]);
  const texts = '.xtick text, .ytick text, .legendtext, .textpoint text, .bartext, .g-ytitle text';
  const overlaps = [];
  for (const plot of plots) {
    const placed = [...plot.querySelectorAll(texts)].filter(t => t.textContent.trim())
        .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let i = 0; i < placed.length; i++) for (let j = i + 1; j < placed.length; j++) {
      const [a, ra] = placed[i], [b, rb] = placed[j];
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 1 && y > 1) overlaps.push(`${a} / ${b}`);
    }
  }
  return {scroll, boxes, overlaps};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with app_and_class_engine(tmp_path_factory.mktemp("fit")) as app:
        yield app


@pytest.mark.browser
@pytest.mark.parametrize("size", list(SOURCES))
def test_the_largest_questions_fit_the_projector_in_every_state(browser, server, screenshot_dir, size):
    base, engine = server
    new = classes.create_class(engine, "Lecture hall")
    admission.set_join_address(engine, new.code, new.teacher_token, "http://192.168.100.200:8501")  # a QR code too
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": SOURCES[size]}, 120)
    students = [admission.join_class(engine, new.code, f"Student {i}").student_token for i in range(3)]

    def vote(round_number: int) -> None:
        for student, value in zip(students, ("0.1", "0.15", "0.3")):
            activity = answers.student_state(engine, new.code, student).activity
            values = [value] * len(activity.spec.fields)
            answers.submit_prediction(engine, new.code, student, activity.id, values, round_number=round_number)

    vote(1)
    key = versions.stored_class_version(engine, new.code).display_key
    for state in ("open", "shown", "round 2 shown", "revealed"):  # (round 2 alone: too many values for a pair)
        if state == "shown":
            classes.show_responses(engine, new.code, new.teacher_token)
        elif state == "round 2 shown":
            classes.vote_again(engine, new.code, new.teacher_token)
            vote(2)
            classes.show_responses(engine, new.code, new.teacher_token)
        elif state == "revealed":
            classes.reveal(engine, new.code, new.teacher_token)
        for width, height in ((1920, 1080), (1280, 720)):
            ctx = browser.new_context(viewport={"width": width, "height": height})
            page = ctx.new_page()
            goto(page, f"{base}/projector?code={new.code}&display={key}")
            wait_idle(page, started_timeout=50)
            page.wait_for_timeout(500)
            if state == "open":
                assert page.get_by_role("timer").inner_text().startswith("Time left to vote:")
            facts = page.evaluate(FIT_JS)
            where = f"{state} at {width}x{height}"
            assert facts["scroll"] <= height + 1, (where, facts["scroll"])
            # open: the p / q chart; results up: the results, beside the p / q chart only where it fits a column
            assert len(facts["boxes"]) == (1 if state == "open" or size == "twenty-six" else 2), where
            for left, top, right, bottom in facts["boxes"]:
                assert left >= 0 and top >= 0 and right <= width and bottom <= height, (where, facts["boxes"])
            assert facts["overlaps"] == [], (where, facts["overlaps"])
            shot = f"class-projector-{size}-{state.replace(' ', '-')}-{width}x{height}.png"
            page.screenshot(path=str(screenshot_dir / shot))
            ctx.close()
