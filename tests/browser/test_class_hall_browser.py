"""A 150-seat lecture hall in headless Chromium: links students are given open on a phone, a joined student's
browser shows the class only while it runs, the dashboard's controls are on the first screen of a 1280x800
laptop, and the projector is readable from the back row at 1920x1080 in every state.

Two servers: one with RESIDUAL_LAB_PUBLIC_URL set (the address every student link must use), one without it,
opened as 127.0.0.1 and listening on 127.0.0.1 only (as the browser tests start it): no address a phone could
reach exists there, and the pages must say so instead of offering one."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

from browserlib import DESKTOP, ROOT, goto, start_streamlit, stop_process, wait_for_dashboard, wait_idle
from lab.views import shell

PUBLIC_URL = "http://lab.example:8501"
# The empty share of a screen: the window cut into 24 x 16 cells, a cell empty when no text line, image or chart
# touches it (text measured by its line boxes, not by the width of its paragraph).
SCREEN_FACTS_JS = """() => {
  const W = window.innerWidth, H = window.innerHeight, COLS = 24, ROWS = 16;
  const main = document.querySelector('[data-testid=stMain]');
  const rects = [], text = [];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim() || node.parentElement.closest('svg, [data-live], style, script')) continue;
    const range = document.createRange(); range.selectNodeContents(node);
    const boxes = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
    if (!boxes.length) continue;
    rects.push(...boxes);
    text.push([node.textContent.trim().slice(0, 60), parseFloat(getComputedStyle(node.parentElement).fontSize)]);
  }
  const images = [...main.querySelectorAll('img')].map(i => i.getBoundingClientRect());
  const plots = [...main.querySelectorAll('.js-plotly-plot')].map(p => p.getBoundingClientRect());
  rects.push(...images, ...plots);
  let used = 0;
  for (let c = 0; c < COLS; c++) for (let r = 0; r < ROWS; r++) {
    const x0 = c * W / COLS, y0 = r * H / ROWS, x1 = x0 + W / COLS, y1 = y0 + H / ROWS;
    if (rects.some(b => b.left < x1 && b.right > x0 && b.top < y1 && b.bottom > y0)) used++;
  }
  const dots = [...main.querySelectorAll('.js-plotly-plot .boxlayer .point')].map(p => p.getBoundingClientRect());
  const qr = main.querySelector('.st-key-proj-qr img');
  const q = qr ? qr.getBoundingClientRect() : null;
  return {empty: 1 - used / (COLS * ROWS), text, qr: q ? Math.min(q.width, q.height) : 0,
          dots: dots.map(d => Math.min(d.width, d.height)), scroll: main.scrollHeight,
          titles: [...main.querySelectorAll('[class*=st-key-proj-round-] p')].map(p => p.innerText)};
}"""


def _server(data: Path, public: str | None):
    return start_streamlit(
        "server.py", cwd=ROOT, env={"RESIDUAL_LAB_DATA": str(data), "RESIDUAL_LAB_PUBLIC_URL": public or None}
    )


@pytest.fixture(scope="module")
def public_hall(tmp_path_factory):
    from lab.classroom.db import make_engine

    data = tmp_path_factory.mktemp("hall_public")
    proc, url = _server(data, PUBLIC_URL)
    engine = make_engine(f"sqlite:///{data / 'classroom.db'}")
    yield url, engine
    engine.dispose()
    stop_process(proc)


@pytest.fixture(scope="module")
def loopback_hall(tmp_path_factory):
    from lab.classroom.db import make_engine

    data = tmp_path_factory.mktemp("hall_loopback")
    proc, url = _server(data, None)
    engine = make_engine(f"sqlite:///{data / 'classroom.db'}")
    yield url, engine
    engine.dispose()
    stop_process(proc)


def segno_png(link: str) -> bytes:
    import segno

    expected = io.BytesIO()
    segno.make(link, error="m").save(expected, kind="png", scale=10, border=2)
    return expected.getvalue()


def test_the_assignment_link_and_its_qr_code_use_the_public_address(browser, public_hall):
    url, _engine = public_hall
    page = browser.new_page(viewport=DESKTOP)
    goto(page, f"{url}/exercises?seed=7&count=4&level=disjoint&tab=Teacher")  # opened as 127.0.0.1
    link = f"{PUBLIC_URL}/exercises?seed=7&count=4&level=disjoint"
    shown = [c.inner_text().strip() for c in page.locator("[data-testid=stCode]").all()]
    assert link in shown and not any("127.0.0.1" in c for c in shown)
    qr = page.locator("[data-testid=stImage] img").first
    assert base64.b64decode(qr.get_attribute("src").split(",", 1)[1]) == segno_png(link)
    assert page.get_by_role("textbox", name="App address for students (optional)").count() == 0  # the address is set
    page.close()


def test_on_loopback_the_pages_say_so_and_offer_no_address_nobody_can_reach(browser, loopback_hall):
    url, engine = loopback_hall
    from lab.classroom import classes

    new = classes.create_class(engine, "Loopback")
    page = browser.new_page(viewport=DESKTOP)
    goto(page, f"{url}/class?code={new.code}&teacher={new.teacher_token}")
    warning = page.locator("[data-testid=stAlert]", has_text="No join link yet").inner_text()
    assert "listens on this computer only" in warning and "./run --server.address 0.0.0.0" in warning
    assert page.get_by_role("button", name="Use http", exact=False).count() == 0  # no unreachable address offered
    assert page.locator("[data-testid=stImage] img").count() == 0  # and no QR code of one
    goto(page, f"{url}/exercises?seed=7&tab=Teacher")
    warning = page.locator("[data-testid=stAlert]", has_text="No assignment link yet").inner_text()
    assert "./run --server.address 0.0.0.0" in warning
    assert page.locator("[data-testid=stImage] img").count() == 0
    assert not any("127.0.0.1" in c.inner_text() for c in page.locator("[data-testid=stCode]").all())
    page.close()


def nav_titles(page) -> list[str]:
    return [link.inner_text().strip().split("\n")[-1] for link in page.locator("[data-testid=stSidebarNavLink]").all()]


def test_a_joined_students_menu_during_and_after_the_class(browser, loopback_hall):
    url, engine = loopback_hall
    from lab.classroom import classes

    new = classes.create_class(engine, "Focus")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    goto(page, f"{url}/class?code={new.code}")
    assert len(nav_titles(page)) == len(shell.PAGES)  # before joining: every page
    page.get_by_role("textbox", name="Your name").fill("Ann")
    page.get_by_role("button", name="Join").click()
    page.wait_for_url("**student=**")
    wait_idle(page)
    assert set(nav_titles(page)) <= {"Class"}  # during the class: no page that answers its question (a menu of
    # one page is not drawn at all)
    # after the reveal the answer names the Binomial lab's setting, but the student's page links to no other
    # page while the class runs (another page reached inside the app says the class is in progress:
    # tests/test_pages_class_focus.py)
    classes.reveal(engine, new.code, new.teacher_token)
    page.get_by_text("lab success p = 0.75, n = 1", exact=False).first.wait_for(timeout=20_000)
    wait_idle(page, started_timeout=50)
    assert page.get_by_role("link", name="Open the Binomial lab there").count() == 0
    assert set(nav_titles(page)) <= {"Class"} and "student=" in page.url
    classes.end_class(engine, new.code, new.teacher_token)
    page.get_by_text("This class has ended", exact=False).first.wait_for(timeout=20_000)
    wait_idle(page, started_timeout=50)
    assert len(nav_titles(page)) == len(shell.PAGES)  # after End class: every page again
    ctx.close()


def test_the_dashboards_controls_and_counter_are_on_the_first_screen_of_a_laptop(browser, loopback_hall):
    url, engine = loopback_hall
    page = browser.new_page(viewport=DESKTOP)  # 1280x800
    goto(page, f"{url}/class")
    page.get_by_role("button", name="Start a class").click()
    wait_for_dashboard(page)
    wait_idle(page)
    # at the start: the private teacher link, open once, with its copy button
    assert page.locator("[data-testid=stAlert]", has_text="only way back to this dashboard").is_visible()
    page.get_by_role("button", name="Open for the class").click()
    wait_idle(page)
    for name in ("Show responses", "Vote again", "Reveal to class", "Lock", "Next activity"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"], (name, box)
    # and the response counter under them, before the question's chart
    counter = page.locator("[data-testid=stMetric]", has_text="Submitted").first
    counter.wait_for()
    box = counter.bounding_box()
    assert box["y"] + box["height"] <= DESKTOP["height"], box
    # then the teacher link is folded away (the token is not on the screen), the projector one click away
    assert not page.locator("[data-testid=stAlert]", has_text="only way back to this dashboard").is_visible()
    projector = page.get_by_role("link", name="Projector view")
    box = projector.bounding_box()
    assert box["y"] + box["height"] <= DESKTOP["height"] and "display=" in projector.get_attribute("href")
    page.close()


PROJECTOR_SIZE = {"width": 1920, "height": 1080}


def projector_facts(page) -> dict:
    page.wait_for_timeout(800)  # the counts fragment's first redraw
    wait_idle(page, started_timeout=50)
    facts = page.evaluate(SCREEN_FACTS_JS)
    assert facts["scroll"] <= PROJECTOR_SIZE["height"] + 1, facts["scroll"]
    assert facts["empty"] <= 0.25, facts["empty"]  # no more than a quarter of the screen empty
    assert min(size for _text, size in facts["text"]) >= 36, facts["text"]  # body text at least 36 px
    return facts


def largest(facts: dict) -> str:
    return max(facts["text"], key=lambda t: t[1])[0]


def test_the_projector_from_the_back_row_at_1920x1080(browser, public_hall, screenshot_dir):
    url, engine = public_hall
    from lab.classroom import admission, answers, classes, versions

    new = classes.create_class(engine, "Hall")
    key = versions.stored_class_version(engine, new.code).display_key
    ctx = browser.new_context(viewport=PROJECTOR_SIZE)
    page = ctx.new_page()
    href = f"{url}/projector?code={new.code}&display={key}"

    goto(page, href)  # waiting: the QR code at least half the screen's height, the code and address the largest
    facts = projector_facts(page)
    assert facts["qr"] >= PROJECTOR_SIZE["height"] / 2, facts["qr"]
    sizes = sorted(facts["text"], key=lambda t: -t[1])
    assert sizes[0][0] == new.code and sizes[1][0] == PUBLIC_URL, sizes[:3]
    lines = page.evaluate(  # the address to type is never broken inside: each of its parts is one line
        "[...document.querySelectorAll('.st-key-proj-address code')].map(c => c.getClientRects().length)"
    )
    assert lines == [1, 1], lines
    page.screenshot(path=str(screenshot_dir / "projector-waiting-1920x1080.png"))

    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    students = [admission.join_class(engine, new.code, f"Student {i}").student_token for i in range(12)]

    def vote(values, round_number):
        for i, token in enumerate(students):
            activity = answers.student_state(engine, new.code, token).activity.id
            answers.submit_prediction(engine, new.code, token, activity, values[i % len(values)], round_number)

    vote([["0.75", "0.25"], ["0.6", "0.4"], ["0.5", "0.5"]], 1)
    goto(page, href)  # an activity open: the QR code stays scannable
    facts = projector_facts(page)
    assert facts["qr"] >= 300, facts["qr"]
    assert "are in the bar chart" in page.inner_text("body") and "shown below" not in page.inner_text("body")

    classes.show_responses(engine, new.code, new.teacher_token)
    goto(page, href)
    facts = projector_facts(page)
    assert facts["qr"] >= 300 and min(facts["dots"]) >= 12, (facts["qr"], facts["dots"][:3])
    assert facts["titles"] and facts["titles"][0].startswith("Round 1")

    classes.vote_again(engine, new.code, new.teacher_token)
    vote([["0.75", "0.25"], ["0.7", "0.3"]], 2)
    classes.show_responses(engine, new.code, new.teacher_token)
    goto(page, href)
    facts = projector_facts(page)
    assert [t.split(" ·")[0] for t in facts["titles"]] == ["Round 1", "Round 2"]
    assert facts["qr"] >= 300 and min(facts["dots"]) >= 12

    classes.reveal(engine, new.code, new.teacher_token)
    goto(page, href)
    facts = projector_facts(page)
    assert facts["qr"] >= 300 and min(facts["dots"]) >= 12
    assert largest(facts) == "r(B) = 3/4 (0.75); r(C) = 1/4 (0.25)", facts["text"][:8]  # the exact answer
    page.screenshot(path=str(screenshot_dir / "projector-round2-revealed-1920x1080.png"))
    ctx.close()
