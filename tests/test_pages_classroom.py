"""The Class page and the Exercises resume link in AppTest: refusals are clear messages (never an exception
box), user text is shown as typed, a student's Submit says Saved only after the store committed it, and
self-study attempts come back from the resume link in a new session. Each test gets its own data folder."""

from __future__ import annotations

from fractions import Fraction

import pytest
from exercise_reference import expected_answer
from pagetest import open_linked_page, open_tab

from lab.classroom import store
from lab.classroom.db import make_engine
from lab.teaching.exercises import generate_problems

PAGE = "lab/views/classroom.py"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    monkeypatch.delenv("RESIDUAL_LAB_DATABASE_URL", raising=False)
    engine = make_engine(f"sqlite:///{tmp_path / 'classroom.db'}")
    yield engine
    engine.dispose()


def revealed_table(at) -> dict[str, list[str]]:
    """The student's value / yours / exact table (a markdown table), read from its rows, escapes removed;
    empty when the page shows none."""
    for m in at.markdown:
        lines = [line for line in m.value.split("\n") if line.startswith("|")]
        if lines and lines[0] == "| value | yours | exact |":
            rows = [line.strip("| ").split(" | ") for line in lines[2:]]
            return {name: [r[i].replace("\\", "") for r in rows] for i, name in enumerate(("value", "yours", "exact"))}
    return {}


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def join(at, code: str, name: str):
    at.text_input(key="cls_join_code").set_value(code)
    at.text_input(key="cls_join_name").set_value(name)
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not at.exception
    return at


def test_bad_code_and_long_name_are_refused(data):
    new = store.create_class(data)
    at = open_linked_page(PAGE)
    join(at, "QQQQQQ", "Ann")
    # the message is escaped as markdown whole (":" too, so no ":icon:" shortcode in it can become an icon)
    assert errors(at) == [
        "No open class has the code QQQQQQ\\: check the code with your teacher \\(a code stops working when its "
        "class ends\\)\\."
    ]
    join(at, new.code, "x" * 41)
    assert errors(at) == ["Your name\\: 41 characters; at most 40\\."]
    join(at, "AB0DEF", "Ann")
    assert "never appears in a class code" in errors(at)[0]
    assert "student" not in at.query_params
    join(at, new.code.lower(), "<b>Ann</b> *bold* :material/warning:")
    assert at.query_params["code"] == new.code and at.query_params["student"]
    # shown as typed: every markdown character escaped; the icon shortcode broken by an invisible word joiner
    # after its colon (Streamlit finds ":material/" even behind a backslash)
    assert any(
        "You joined as \\<b\\>Ann\\</b\\> \\*bold\\* \\:\u2060material/warning\\:." in c.value for c in at.caption
    )


def test_forged_or_foreign_links_are_refused(data):
    mine, theirs = store.create_class(data), store.create_class(data)
    zoe = store.join_class(data, theirs.code, "Zoe").student_token
    cases = [
        ({"code": mine.code, "student": "A" * 22}, "This student link is not valid"),
        ({"code": mine.code, "student": zoe}, "belongs to another class"),
        ({"code": mine.code, "teacher": theirs.teacher_token}, "This teacher link does not open a class"),
        ({"code": mine.code, "teacher": "forged"}, "This teacher link does not open a class"),
        ({"code": "QQQQQQ", "teacher": mine.teacher_token}, "This teacher link does not open a class"),
    ]
    for params, message in cases:
        at = open_linked_page(PAGE, params)
        assert len(errors(at)) == 1 and message in errors(at)[0].replace("\\", "")
        assert not at.get("plotly_chart") and not at.metric


def test_student_submits_and_sees_the_answer_only_after_the_reveal(data):
    new = store.create_class(data, "<script>x</script>")
    store.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = store.join_class(data, new.code, "**Ann**").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert "\\*\\*Ann\\*\\*" in at.caption[0].value  # the name is escaped, shown as typed
    assert at.header[0].value == f"Class {new.code} · \\<script\\>x\\</script\\>"
    at.number_input(key=f"cls_pred_{1}_0").set_value(0.7)
    at.number_input(key=f"cls_pred_{1}_1").set_value(0.3)
    at.button(key=f"FormSubmitter:cls_pred_form_{1}-Submit").click().run()
    assert at.success[0].value.startswith("Saved at")
    assert store.student_state(data, new.code, token).prediction == (Fraction(7, 10), Fraction(3, 10))
    assert not revealed_table(at)  # no exact answer before the reveal
    store.reveal(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "student": token})  # a reload resumes the page
    assert at.number_input(key="cls_pred_1_0").value == pytest.approx(0.7)
    assert revealed_table(at)["exact"] == ["3/4 (0.75)", "1/4 (0.25)"]
    assert revealed_table(at)["yours"] == ["0.70", "0.30"]
    store.lock(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert at.button(key="FormSubmitter:cls_pred_form_1-Submit").disabled


def test_teacher_dashboard_counts_and_hides_names(data):
    at = open_linked_page(PAGE)
    at.text_input(key="cls_start_name").set_value("Period 3")
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, token = at.query_params["code"], at.query_params["teacher"]
    assert [m.value for m in at.metric][0] == code
    at.button(key="cls_open").click().run()
    for name in ("Ann", "Bob"):
        t = store.join_class(data, code, name).student_token
        store.submit_prediction(data, code, t, 1, ["0.75", "0.25"])
    store.join_class(data, code, "Cat")
    at = open_linked_page(PAGE, {"code": code, "teacher": token})
    assert [m.value for m in at.metric][-2:] == ["3", "2 of 3"]
    assert not at.text  # the student list is drawn only while it is open
    at.toggle(key="cls_show_students").set_value(True).run()
    assert [t.value for t in at.text][::2] == ["Ann", "Bob", "Cat"]
    at = open_linked_page(PAGE, {"code": code, "teacher": token, "present": "1"})
    at.toggle(key="cls_show_students").set_value(True).run()
    assert [t.value for t in at.text][::2] == ["Student 1", "Student 2", "Student 3"]


def test_exercises_resume_link_survives_a_new_session(data):
    params = {"seed": "12", "count": "3", "level": "zeros"}
    problems = generate_problems(12, 3, "zeros")
    at = open_tab(open_linked_page("lab/views/exercises.py", params), "tab", "Your results")
    at.button(key="exq_resume_start").click().run()
    token = at.query_params["resume"]
    open_tab(at, "tab", "Problems")
    numeric = next(p for p in problems if not p.is_choice)
    at.text_input(key=f"exq_answer_12-zeros_{numeric.number}").set_value(numeric.answer_text)
    at.button(key=f"FormSubmitter:exq_form_12-zeros_{numeric.number}-Check").click().run()
    assert not at.exception
    again = open_linked_page("lab/views/exercises.py", {**params, "resume": token})  # a restart: a new session
    assert again.metric[0].value == "1 / 3"
    bad = open_linked_page("lab/views/exercises.py", {**params, "resume": "x" * 22})
    assert "No saved answers belong to this resume link" in bad.warning[0].value.replace("\\", "")
    assert bad.metric[0].value == "0 / 3"


def test_a_student_sees_the_assignment_problems_and_an_answer_is_saved(data):
    """The class's assignment on a student's page: each problem's question and its p / q table (read from the
    page's markdown, compared with the problems generated for the same seed, count and level), and a right
    answer checked and saved."""
    new = store.create_class(data)
    store.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros", "count": 3})
    token = store.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    problems = generate_problems(12, 3, "zeros")
    cards = [m.value for m in at.markdown if m.value.startswith("**Problem")]
    assert len(cards) == 3
    for card, problem in zip(cards, problems):
        question, table = card.split("\n\n")
        assert question.replace("\\", "").strip("*") == f"{problem.title}: {problem.prompt}"
        rows = [line.strip("| ").split(" | ") for line in table.split("\n")]
        assert rows[0] == ["token", "p", "q"]
        shown = [[cell.replace("\\", "").split(" ")[0] for cell in row] for row in rows[2:]]
        assert shown == [[t, str(p), str(q)] for t, p, q in zip(problem.p.tokens, problem.p.values, problem.q.values)]
    first = problems[0]
    answer = expected_answer(first)
    text = answer if isinstance(answer, str) else f"{answer.numerator}/{answer.denominator}"
    at.text_input(key=f"cls_ans_1_{first.number}").set_value(text)
    at.button(key=f"FormSubmitter:cls_ans_form_1_{first.number}-Check and save").click().run()
    assert not at.exception
    assert store.student_state(data, new.code, token).attempts[first.number].correct
