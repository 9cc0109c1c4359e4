"""A lesson plan file in headless Chromium (AppTest cannot upload a file): refused by name when it is not a plan (too
large, a wrong format, a formula in a cell), and then no class starts; a good file is previewed before any class
exists (each question as the class will see it, no answer), starts a class that keeps it, and its own question runs
in that class; the dashboard downloads it back."""

from __future__ import annotations

import pytest

from browserlib import DESKTOP, app_and_class_engine, goto, reveal_then, teacher_token_of, wait_for_dashboard, wait_idle
from lab.classroom import admission, answers, plans

PLAN = """title = "Lecture 4"

[[activity]]
kind = "question"
title = "Three words"
tokens = "X, Y, W"
p = "1/2, 1/4, 1/4"
q = "1/4, 1/4, 1/2"
countdown = 60

[[activity]]
kind = "scenario"
scenario = "pet-words"
"""


def upload(page, name: str, data: bytes) -> None:
    page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(
        {"name": name, "mimeType": "application/toml", "buffer": data}
    )
    wait_idle(page)


@pytest.mark.browser
def test_a_plan_file_is_checked_previewed_and_runs_in_a_new_class(browser, tmp_path, screenshot_dir):
    with app_and_class_engine(tmp_path) as (base, engine):
        page = browser.new_context(viewport=DESKTOP).new_page()
        goto(page, f"{base}/class")
        for name, data, said in (
            ("big.toml", b"#" * 1_000_000, "The file has 1,000,000 bytes; a lesson plan has at most 64,000."),
            ("notes.toml", b"just some notes", "Not used: The file is not a lesson plan in TOML"),
            ("formula.toml", b"title = '=HYPERLINK(1)'\n[[activity]]\nkind = 'worked-example'\n",
             "title: '=HYPERLINK(1)' would run as a spreadsheet formula"),
        ):  # fmt: skip
            upload(page, name, data)
            assert said in page.locator("[data-testid=stAlertContentError]").inner_text(), name
            assert page.get_by_role("button", name="Start a class", exact=True).is_visible()
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT COUNT(*) FROM classes").scalar_one() == 0
        upload(page, "lecture-4.toml", PLAN.encode())
        page.get_by_text("Preview the plan Lecture 4 (2 activities)").click()
        wait_idle(page)
        preview = page.inner_text("body")
        assert "1. Your own question: Three words (countdown 60 s)" in preview and "2. Scenario: pet-words" in preview
        assert "Z = 1/4" not in preview and "r(X) =" not in preview  # the question, never its answer
        page.screenshot(path=str(screenshot_dir / "class-plan-preview.png"), full_page=True)
        page.get_by_role("button", name="Start a class with this plan").click()
        wait_for_dashboard(page)
        wait_idle(page)
        code = page.url.split("code=")[1].split("&")[0]
        token = teacher_token_of(page)
        assert [i.label() for i in plans.class_plan(engine, code, token).items][0].startswith("Your own question")
        plan_panel = page.get_by_text("Lesson plan: Lecture 4 (2 activities)")
        reveal_then(page, [plan_panel], page.locator(".st-key-cls_plan_open_1 button")).click()
        wait_idle(page)
        assert page.get_by_role("timer").inner_text().startswith("Time left to vote:")
        student = admission.join_class(engine, code, "Ann").student_token
        assert answers.student_state(engine, code, student).activity.spec.fields == ("r(X)", "r(Y)", "r(W)", "Z")
        download_button = page.get_by_role("button", name="Download the plan (TOML)")
        with page.expect_download() as download:
            reveal_then(page, [page.get_by_text("Lesson plan: Lecture 4 (2 activities)")], download_button).click()
        text = open(download.value.path(), encoding="utf-8").read()
        assert plans.read_plan(text) == plans.read_plan(PLAN)
        page.context.close()
