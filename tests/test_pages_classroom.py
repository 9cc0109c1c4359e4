"""The Class page and the Exercises resume link in AppTest: refusals are clear messages (never an exception
box), user text is shown as typed, a student's Submit says Saved only after the store committed it, and
self-study attempts come back from the resume link in a new session. Each test gets its own data folder."""

from __future__ import annotations

import concurrent.futures
from fractions import Fraction

from answer_text import apptest_text
from exercise_reference import expected_answer
from pagetest import (
    charts,
    markdown_text,
    messages,
    metric,
    open_linked_page,
    open_tab,
    plain,
    predictors,
    send_trigger,
    teacher_token,
)

from lab.classroom import actions, admission, answers, classes, limits, teacher_link, versions
from lab.classroom.db import make_engine
from lab.teaching.exercises import generate_problems

PAGE = "lab/views/live_class/classroom.py"


def submit_boxes(at, *texts, activity: int = 1):
    """Type ``texts`` into the prediction's boxes and press Submit: what the bar predictor sends (one trigger)."""
    return send_trigger(at, f"cls_bars_{activity}", "submit", list(texts))


def boxes(at, activity: int = 1) -> dict:
    """The prediction's boxes as the page drew them: fields, values (their text) and stamp (lab.views.ui.bar_predictor),
    with ``disabled``."""
    drawn = predictors(at)[f"cls_bars_{activity}"]
    return {name: drawn[f"form_{name}"] for name in ("fields", "values", "stamp")} | {"disabled": drawn["disabled"]}


def revealed_table(at) -> dict[str, list[str]]:
    """The student's value / yours / exact table (a markdown table, the first lines of its element; the answer
    follows it), read from its rows, escapes removed; empty when the page shows none."""
    for m in at.markdown:
        lines = m.value.split("\n")
        if lines[0] == "| value | yours | exact |":
            lines = lines[: next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))]
            rows = [line.strip("| ").split(" | ") for line in lines[2:]]
            return {name: [r[i].replace("\\", "") for r in rows] for i, name in enumerate(("value", "yours", "exact"))}
    return {}


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def successes(at) -> list[str]:
    """The success messages as the reader sees them: no escapes, no word joiner after a ":" (no icon shortcode)."""
    return [plain(s.value).replace("\u2060", "") for s in at.success]


def join(at, code: str, name: str):
    at.text_input(key="cls_join_code").set_value(code)
    at.text_input(key="cls_join_name").set_value(name)
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not at.exception
    return at


def test_bad_code_and_long_name_are_refused(data):
    new = classes.create_class(data)
    at = open_linked_page(PAGE)
    join(at, "QQQQQQ", "Ann")
    # the message is escaped as markdown whole (":" too, so no ":icon:" shortcode in it can become an icon)
    assert errors(at) == [
        "No open class has the code QQQQQQ\\: check the code with your teacher \\(a code stops working when its "
        "class ends\\)\\. If the code is right, the class takes no typed codes now \\(locked, full, or after many "
        "wrong guesses\\)\\: open the join link or scan the QR code your teacher shows\\."
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
    mine, theirs = classes.create_class(data), classes.create_class(data)
    zoe = admission.join_class(data, theirs.code, "Zoe").student_token
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
    new = classes.create_class(data, "<script>x</script>")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(data, new.code, "**Ann**").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert "\\*\\*Ann\\*\\*" in at.caption[0].value  # the name is escaped, shown as typed
    assert at.header[0].value == f"Class {new.code} · \\<script\\>x\\</script\\>"
    submit_boxes(at, "0.7", "3/10")  # a box reads a fraction as exactly as a decimal
    assert at.success[0].value.startswith("Saved at")
    assert answers.student_state(data, new.code, token).prediction == (Fraction(7, 10), Fraction(3, 10))
    assert not revealed_table(at)  # no exact answer before the reveal
    classes.reveal(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "student": token})  # a reload resumes the page
    assert boxes(at)["values"] == ["0.70", "0.30"]
    assert revealed_table(at)["exact"] == ["3/4 (0.75)", "1/4 (0.25)"]
    assert revealed_table(at)["yours"] == ["0.70", "0.30"]
    classes.lock(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert boxes(at)["disabled"]


def test_teacher_dashboard_counts_and_hides_names(data):
    at = open_linked_page(PAGE)
    at.text_input(key="cls_start_name").set_value("Period 3")
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, token = at.query_params["code"], teacher_token(at)
    assert [m.value for m in at.metric][0] == code
    at.button(key="cls_open").click().run()
    for name in ("Ann", "Bob"):
        t = admission.join_class(data, code, name).student_token
        answers.submit_prediction(data, code, t, 1, ["0.75", "0.25"])
    admission.join_class(data, code, "Cat")
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
    at = open_tab(open_linked_page("lab/views/pages/exercises.py", params), "tab", "Your results")
    at.button(key="exq_resume_start").click().run()
    token = at.query_params["resume"]
    open_tab(at, "tab", "Problems")
    numeric = next(p for p in problems if not p.is_choice)
    at.text_input(key=f"exq_answer_12-zeros_{numeric.number}").set_value(numeric.answer_text)
    at.button(key=f"exq_check_12-zeros_{numeric.number}").click().run()
    assert not at.exception
    again = open_linked_page("lab/views/pages/exercises.py", {**params, "resume": token})  # a restart: a new session
    assert again.metric[0].value == "1 / 3"
    bad = open_linked_page("lab/views/pages/exercises.py", {**params, "resume": "x" * 22})
    assert "No saved answers belong to this resume link" in bad.warning[0].value.replace("\\", "")
    assert bad.metric[0].value == "0 / 3"


def test_a_student_sees_the_assignment_problems_and_an_answer_is_saved(data):
    """The class's assignment on a student's page: each problem's question and its p / q table (read from the
    page's markdown, compared with the problems generated for the same seed, count and level), and a right
    answer checked and saved."""
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros", "count": 3})
    token = admission.join_class(data, new.code, "Ann").student_token
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
    assert answers.student_state(data, new.code, token).attempts[first.number].correct


# --- security and faults (docs/security.md) ---------------------------------------------------------------------


def warnings(at) -> list[str]:
    return [w.value.replace("\\", "") for w in at.warning]


def test_the_join_link_fills_in_the_code_and_admits_when_typed_codes_are_paused(data, monkeypatch):
    new = classes.create_class(data)
    monkeypatch.setattr(limits, "WRONG_CODE_RISK_BUDGET", 0)  # the class's guessing budget is spent
    at = open_linked_page(PAGE, {"code": new.code})
    join(at, new.code, "Ann")
    assert "takes no typed codes now" in errors(at)[0].replace("\\", "") and "student" not in at.query_params
    key = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    at = open_linked_page(PAGE, {"code": new.code, "join": key})
    # the page a scanned QR code opens is a student's: no "Start a class" form (app.py draws no presentation toggle
    # there either: lab.views.ui.presentation)
    assert [str(b.proto.label) for b in at.get("button")] == ["Join"]
    join(at, new.code, "Ann")
    assert at.query_params["student"]
    # the link's key counts for the code it carries only: another typed code is a typed code
    at = open_linked_page(PAGE, {"code": new.code, "join": key})
    join(at, "QQQQQQ", "Ann")
    assert "No open class has the code QQQQQQ" in errors(at)[0].replace("\\", "")


def test_the_teacher_panel_shows_the_join_link_with_its_key(data, monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_PUBLIC_URL", "http://lab.example:8501")  # AppTest's page is on localhost
    new = classes.create_class(data)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    key = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    links = [c.value for c in at.code]
    assert any(f"code={new.code}&join={key}" in link for link in links)


def test_after_end_class_the_teacher_link_shows_results_only_and_the_student_link_is_read_only(data):
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(data, new.code, "Ann").student_token
    answers.submit_prediction(data, new.code, token, 1, ["0.75", "0.25"])
    classes.end_class(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    # no Reveal, Lock, Next, Open, Remove, End: only the next lecture's class, which changes nothing here
    assert [b.label for b in at.button] == ["Next lecture: a new class with this plan"]
    assert at.get("download_button")  # the results
    assert [m.value for m in at.metric] == ["1", "1 of 1"]
    at.toggle(key="cls_show_students").set_value(True).run()
    assert [t.value for t in at.text] == ["Ann", "submitted"] and [b.key for b in at.button] == ["cls_next_lecture"]
    student = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert boxes(student)["disabled"] and boxes(student)["values"] == ["0.75", "0.25"]
    assert any("This class has ended" in i.value for i in student.info)


def test_bulk_removal_from_the_dashboard(data):
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    tokens = [admission.join_class(data, new.code, f"S{i}").student_token for i in range(4)]
    answers.submit_prediction(data, new.code, tokens[0], 1, ["0.75", "0.25"])
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    at.toggle(key="cls_show_students").set_value(True).run()
    at.button(key="cls_remove_waiting").click().run()
    assert not at.exception
    assert [m.value for m in at.metric][-2:] == ["1", "1 of 1"]
    back = [b for b in at.button if b.label == "Let back in"]
    assert len(back) == 3
    back[0].click().run()
    assert [m.value for m in at.metric][-2:] == ["2", "1 of 2"]


def test_duplicate_names_and_shortcodes_on_the_dashboard(data):
    new = classes.create_class(data, ":material/home: Period 3")
    for name in ("Ann", ":red[RED] :smile:", "Ann"):
        admission.join_class(data, new.code, name)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    assert at.header[0].value == "\\:\u2060material/home\\: Period 3"
    at.toggle(key="cls_show_students").set_value(True).run()
    assert [t.value for t in at.text][::2] == ["Ann", ":red[RED] :smile:", "Ann (2)"]  # st.text: no markdown


def test_a_long_class_is_paged(data):
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    for i in range(120):
        admission.join_class(data, new.code, f"S{i:03}")
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    at.toggle(key="cls_show_students").set_value(True).run()
    names = [t.value for t in at.text][::2]
    assert names == [f"S{i:03}" for i in range(50)]
    at.number_input(key="cls_students_page").set_value(3).run()
    assert [t.value for t in at.text][::2] == [f"S{i:03}" for i in range(100, 120)]


def test_one_submit_is_saved_once_and_the_page_shows_what_the_database_holds(data):
    """The page saves a pressed Submit itself when its callback did not run (a new session after a reconnect:
    tests/browser/test_classroom_faults_browser.py); when the callback did run, nothing is saved twice."""
    from sqlalchemy import text

    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert any(c.value.replace("\\", "") == "Nothing saved yet for this activity." for c in at.caption)
    submit_boxes(at, "0.55", "0.45")
    assert not at.exception
    with data.connect() as conn:
        assert conn.execute(text("SELECT revisions FROM submissions")).scalar_one() == 1
    assert any(
        "Saved in the class database: 0.55 for r(B), 0.45 for r(C)" in c.value.replace("\\", "") for c in at.caption
    )


def test_the_bars_boxes_and_submit_are_one_element_and_a_refused_box_is_named(data):
    """The prediction is one element: a bar per r, a box per asked value (Z too, with no bar), and Submit. A box
    that does not read as a number from 0 to 1, an empty box, or a crafted message is refused by name, nothing is
    saved, and the boxes keep the student's text (the stamp stays); Z and the r values are saved exactly."""
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "bernoulli-residual"})
    token = admission.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    drawn = predictors(at)["cls_bars_1"]
    assert drawn["labels"] == ["r(A)", "r(B)", "r(C)"] and drawn["values"] == [0.0, 0.0, 0.0]
    assert drawn["form_fields"] == ["r(A)", "r(B)", "r(C)", "Z"] and drawn["form_values"] == [None] * 4
    assert not at.number_input and not at.get("form") and not at.button  # no form of Streamlit's: one element
    stamp = drawn["form_stamp"]
    # another student in the same browser tab (a shared computer) does not get this one's unsaved text back
    bo = admission.join_class(data, new.code, "Bo").student_token
    other = open_linked_page(PAGE, {"code": new.code, "student": bo})
    assert boxes(other)["stamp"] != stamp and boxes(other)["values"] == [None] * 4
    refusals = [
        (["0", "0.75", "abc", "0.4"], "r(C)"),
        (["0", "0.75", "1.5", "0.4"], "outside 0 to 1"),
        (["0", "0.75", "", "0.4"], "Type a value for r(C) first."),
        ("0, 0.75", "expected a list of 4 texts"),
        (["0", "0.75", 0.25, "0.4"], "the box for r(C) sent float, not text"),
        (["0"] * 5, "5 texts sent for 4 boxes"),
    ]
    for sent, named in refusals:
        send_trigger(at, "cls_bars_1", "submit", sent)
        said = " ".join(errors(at) + warnings(at)).replace("\\", "")
        assert not at.exception and named in said, (sent, said)
        assert not at.success and boxes(at)["stamp"] == stamp
    assert answers.student_state(data, new.code, token).prediction is None
    submit_boxes(at, "0", "3/4", "0.25", "2/5")
    assert at.success[0].value.startswith("Saved at") and boxes(at)["stamp"] != stamp
    saved = answers.student_state(data, new.code, token).prediction
    assert saved == (0, Fraction(3, 4), Fraction(1, 4), Fraction(2, 5))
    assert boxes(at)["values"] == ["0.00", "0.75", "0.25", "0.40"]
    assert predictors(at)["cls_bars_1"]["values"] == [0.0, 0.75, 0.25]


def test_a_database_outage_is_said_plainly_and_the_page_recovers(own_postgres, tmp_path, monkeypatch):
    """PostgreSQL stops in the middle of a class: the student's Submit, the teacher's dashboard and a join say
    the database cannot be reached and nothing was saved (no error box), the typed values stay; once it is
    back, the same pages carry on and the Submit saves."""
    monkeypatch.setenv("RESIDUAL_LAB_DATABASE_URL", own_postgres.url)
    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    engine = make_engine(own_postgres.url)
    new = classes.create_class(engine, "outage")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(engine, new.code, "Ann").student_token
    engine.dispose()
    student = open_linked_page(PAGE, {"code": new.code, "student": token})
    teacher = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    joining = open_linked_page(PAGE, {"code": new.code})
    drawn = boxes(student)

    own_postgres.halt()
    submit_boxes(student, "0.6", "0.4")
    assert not student.exception
    said = " ".join(errors(student) + warnings(student)).replace("\\", "")
    assert "class database cannot be reached" in said and "nothing was saved" in said
    # what was typed stays: the boxes keep the browser's text while the stamp (what the database holds) is the same
    assert boxes(student)["stamp"] == drawn["stamp"]
    student.run()  # the page's retry (a timed fragment in the browser): still down
    assert not student.exception and boxes(student)["stamp"] == drawn["stamp"]
    teacher.run()
    assert not teacher.exception and any("cannot be reached" in w for w in warnings(teacher))
    join(joining, new.code, "Bob")
    assert "cannot be reached" in errors(joining)[0].replace("\\", "") and "student" not in joining.query_params
    fresh = open_linked_page(PAGE, {"code": new.code, "student": token})  # a reload during the outage
    assert any("cannot be reached" in w for w in warnings(fresh))
    resume = open_linked_page(  # the Exercises page's resume link, opened during the outage
        "lab/views/pages/exercises.py", {"seed": "12", "count": "3", "level": "zeros", "resume": "x" * 22}
    )
    assert any("class database cannot be reached" in w for w in warnings(resume))

    own_postgres.resume()
    student.run()  # recovers by itself: the page is drawn from the database again
    assert not student.exception and not warnings(student) and boxes(student)["stamp"] == drawn["stamp"]
    submit_boxes(student, "0.6", "0.4")
    assert student.success[0].value.startswith("Saved at")
    teacher.run()
    assert not teacher.exception and [m.value for m in teacher.metric][-2:] == ["1", "1 of 1"]
    check = make_engine(own_postgres.url)
    assert answers.student_state(check, new.code, token).prediction == (Fraction(3, 5), Fraction(2, 5))
    check.dispose()


def test_exercise_attempts_made_during_an_outage_are_stored_once_the_database_is_back(
    own_postgres, tmp_path, monkeypatch
):
    """A resume link's page while PostgreSQL is down: the attempt stays on the page with a plain warning, and
    the page's retry (a timed fragment in the browser; a rerun here) stores it once the database answers,
    without another Check; the warning then goes."""
    from lab.classroom import study

    monkeypatch.setenv("RESIDUAL_LAB_DATABASE_URL", own_postgres.url)
    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    engine = make_engine(own_postgres.url)
    token = study.new_study(engine)
    engine.dispose()
    params = {"seed": "12", "count": "3", "level": "zeros", "resume": token}
    at = open_linked_page("lab/views/pages/exercises.py", params)
    numeric = next(p for p in generate_problems(12, 3, "zeros") if not p.is_choice)
    own_postgres.halt()
    at.text_input(key=f"exq_answer_12-zeros_{numeric.number}").set_value(numeric.answer_text)
    at.button(key=f"exq_check_12-zeros_{numeric.number}").click().run()
    assert not at.exception
    assert any("class database cannot be reached" in w for w in warnings(at))
    assert at.metric[0].value == "1 / 3"  # the attempt stays on the page
    own_postgres.resume()
    for _tick in range(3):  # the retry's ticks, with no click (the first may meet the pool's stale connection)
        at.run()
        if not any("cannot be reached" in w for w in warnings(at)):
            break
    assert not at.exception and not any("cannot be reached" in w for w in warnings(at))
    check = make_engine(own_postgres.url)
    stored = study.load_attempts(check, token, "12-zeros")
    check.dispose()
    assert stored[numeric.number].correct and stored[numeric.number].tries == 1


def codes(at) -> list[str]:
    return [c.value for c in at.code]


def test_presentation_mode_hides_the_teacher_link_and_names_toggle_or_link(data):
    new = classes.create_class(data, "Period 3")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    admission.join_class(data, new.code, "Ann")
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    assert any(new.teacher_token in c for c in codes(at))  # the teacher's own screen shows it
    at.toggle(key="cls_show_students").set_value(True).run()  # the list is drawn only while open
    assert "Ann" in [t.value for t in at.text]
    at.toggle(key="present").set_value(True).run()  # presentation mode turned on with its toggle
    assert not at.exception
    assert not any(new.teacher_token in c for c in codes(at))
    assert "teacher" not in at.query_params  # nor in the projected address bar
    assert "Ann" not in [t.value for t in at.text] and "Student 1" in [t.value for t in at.text]
    assert not [b for b in at.button if b.key and b.key.startswith("cls_remove_")]
    assert metric(at, "Joined") == "1"  # still the dashboard, from the token kept in this tab
    at.toggle(key="present").set_value(False).run()
    assert "teacher" not in at.query_params  # it stays out of the address bar (the tab holds it)
    linked = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token, "present": "1"})
    linked.toggle(key="cls_show_students").set_value(True).run()
    assert not any(new.teacher_token in c for c in codes(linked)) and "Ann" not in [t.value for t in linked.text]


def test_new_teacher_link_replaces_the_old_one(data):
    new = classes.create_class(data)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    at.button(key="cls_new_link").click().run()
    assert not at.exception
    token = teacher_token(at)
    assert token != new.teacher_token and any(token in c for c in codes(at))
    assert "New teacher link made" in messages(at, "success")[0]
    old = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    assert "was replaced by a new one" in plain(errors(old)[0]) and not old.metric
    assert metric(open_linked_page(PAGE, {"code": new.code, "teacher": token}), "Class code") == new.code


def test_the_join_link_and_its_qr_code_use_the_public_address(data, monkeypatch):
    from lab.views.live_class.once_per_server import qr_image

    new = classes.create_class(data)
    join = "&join=" + teacher_link.check_teacher(data, new.code, new.teacher_token).join_key  # the join link's key
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    # AppTest has no browser address: as a page opened on localhost, no join link and no QR code, and why
    assert any("No join link yet: this page was opened as localhost" in plain(w.value) for w in at.warning)
    assert not any("/class?code=" in c and "teacher" not in c for c in codes(at))
    at.text_input(key="cls_join_address").set_value("http://192.168.1.20:8501")
    at.button(key="FormSubmitter:cls_address_form-Use this address").click().run()
    assert f"http://192.168.1.20:8501/class?code={new.code}{join}" in codes(at)
    at.text_input(key="cls_join_address").set_value("192.168.1.20")
    at.button(key="FormSubmitter:cls_address_form-Use this address").click().run()
    assert "is not an http:// or https:// address" in plain(errors(at)[0])
    assert f"http://192.168.1.20:8501/class?code={new.code}{join}" in codes(at)  # the last valid address stays
    monkeypatch.setenv("RESIDUAL_LAB_PUBLIC_URL", "http://lab.example:8501")
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    link = f"http://lab.example:8501/class?code={new.code}{join}"
    assert link in codes(at)
    images = [url for element in at.get("image") for url in element.value]
    assert images == [qr_image(link)]
    # the projector link carries the display-only key, never the teacher token
    projector = [b.proto.url for b in at.get("link_button") if b.proto.label == "Projector view"]
    key = versions.stored_class_version(data, new.code).display_key
    assert len(projector) == 1 and f"display={key}" in projector[0] and new.teacher_token not in projector[0]


PROJECTOR = "lab/views/live_class/projector.py"


def projector_text(at) -> str:
    """Everything the projector page writes as text (markdown, errors, captions), and its charts' alt text."""
    parts = [m.value for m in at.markdown] + errors(at) + [c.value for c in at.caption] + [t.value for t in at.text]
    parts += [h.value for h in [*at.title, *at.header]] + [chart.proto.alt for chart in at.get("plotly_chart")]
    return "\n".join(parts)


def results_charts(at) -> dict:
    """The projector's results charts (not the question's p / q chart), by key."""
    return {key: traces for key, traces in charts(at).items() if not key.startswith("proj_pq_")}


def test_the_projector_shows_the_class_without_names_secrets_or_controls(data, monkeypatch):
    from lab.views.live_class.once_per_server import qr_image

    monkeypatch.setenv("RESIDUAL_LAB_PUBLIC_URL", "http://lab.example:8501")
    new = classes.create_class(data, "Period 3")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    tokens = {n: admission.join_class(data, new.code, n).student_token for n in ("Ann", "Bob", "Cat")}
    answers.submit_prediction(data, new.code, tokens["Ann"], 1, ["0.75", "0.25"])
    answers.submit_prediction(data, new.code, tokens["Bob"], 1, ["0.5", "0.5"])
    key = versions.stored_class_version(data, new.code).display_key
    at = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    text = projector_text(at)
    assert f"Class code **{new.code}**" in [t.value for t in at.title] and "2 of 3 submitted" in text
    # the join link as plain text (no markdown, so no character of it changes): exactly what the QR code holds
    join = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    link = f"http://lab.example:8501/class?code={new.code}&join={join}"
    assert [t.value for t in at.text] == [link]
    (image,) = at.get("image")
    assert list(image.value) == [qr_image(link)]
    assert image.proto.imgs[0].alt == "QR code of the join link shown below it"
    # the question: p and q over the whole vocabulary, a chart with exact labels (alt: every value, exact)
    (pq,) = [c for c in at.get("plotly_chart") if c.proto.alt.startswith("Bar chart of target p and draft q")]
    assert pq.proto.alt == (
        "Bar chart of target p and draft q per token: A: p 1/10, q 1/2; B: p 3/5, q 3/10; C: p 3/10, q 1/5"
    )
    (question,) = charts(at).values()
    assert question["target p"]["text"] == ["1/10", "3/5", "3/10"]
    assert question["draft q"]["text"] == ["1/2", "3/10", "1/5"]
    assert not results_charts(at)  # responses not shown yet
    assert not any(name in text for name in ("Ann", "Bob", "Cat")) and new.teacher_token not in text
    # no control of any kind: no button, toggle (presentation mode), input or navigation
    for kind in ("button", "toggle", "text_input", "number_input", "selectbox", "radio", "link_button", "page_link"):
        assert not at.get(kind), kind
    classes.show_responses(data, new.code, new.teacher_token)
    at = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    (chart,) = results_charts(at).values()
    # (traces by name: the last "predictions" box is r(C)'s)
    assert sorted(chart["predictions"]["y"]) == [0.25, 0.5] and "exact answer" not in chart
    assert "3/4" not in projector_text(at) and "Within 0.05" not in projector_text(at)
    classes.reveal(data, new.code, new.teacher_token)
    at = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    (chart,) = results_charts(at).values()
    assert chart["exact answer"]["y"] == [0.75, 0.25]  # the labelled diamonds
    text = projector_text(at)
    assert "r(B) = 3/4 (0.75); r(C) = 1/4 (0.25)" in plain(text)
    assert "**Within 0.05 of the exact answer:** 50% of the class on every value" in text
    assert "**Most common wrong pattern:**" in text
    for wrong in (new.teacher_token, key[:-1] + ("A" if key[-1] != "A" else "B"), ""):
        refused = open_linked_page(PROJECTOR, {"code": new.code, "display": wrong})
        assert "projector link" in plain(errors(refused)[0]) and not refused.get("plotly_chart")
        assert [t.value for t in refused.title] == ["Projector view"]  # the page's h1, even when refused


def test_two_rounds_side_by_side_on_the_dashboard_and_the_projector(data):
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    tokens = {n: admission.join_class(data, new.code, n).student_token for n in ("Ann", "Bob", "Cat")}
    for name, values in {"Ann": ["0.75", "0.25"], "Bob": ["0.5", "0.5"], "Cat": ["0.1", "0.6"]}.items():
        answers.submit_prediction(data, new.code, tokens[name], 1, values)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    at.button(key="cls_vote_again").click().run()
    assert not at.exception and not errors(at)
    student = open_linked_page(PAGE, {"code": new.code, "student": tokens["Bob"]})
    assert "Round 2: vote again" in plain(markdown_text(student))
    assert "Your round 1 prediction: 0.50 for r(B), 0.50 for r(C)." in plain(markdown_text(student))  # Bob's
    assert boxes(student)["values"] == ["0.50", "0.50"]  # keeps round 1's
    submit_boxes(student, "0.7", "0.3")
    assert student.success[0].value.startswith("Saved at")
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    shown = {key: traces for key, traces in charts(at).items() if key.startswith("cls_dist_")}  # not the question
    assert list(shown) == ["cls_dist_1_r1_0", "cls_dist_1_r2_0"]
    first, second = shown.values()
    assert sorted(first["predictions"]["y"]) == [0.25, 0.5, 0.6] and second["predictions"]["y"] == [0.3]  # r(C)
    assert "1 of the 1 students who voted in both rounds moved toward the exact answer" in markdown_text(at)
    key = versions.stored_class_version(data, new.code).display_key
    projector = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    assert not results_charts(projector)  # round 2's responses are not shown yet
    classes.show_responses(data, new.code, new.teacher_token)
    projector = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    assert len(results_charts(projector)) == 2 and "moved toward" not in projector_text(projector)  # before the reveal
    classes.reveal(data, new.code, new.teacher_token)
    projector = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    text = projector_text(projector)
    # each round's chart titled above it, and its facts under it
    assert "**Round 1** · " in text and "**Round 2** · " in text and text.count("**Within 0.05:**") == 2
    assert "1 of the 1 students who voted in both rounds moved toward the exact answer" in text


def test_joining_or_starting_while_the_database_is_down_says_what_was_not_done(data, monkeypatch):
    """An outage at Join or Start a class is a plain message saying what did not happen, never an exception
    box, and the page stays where it was (no student or teacher link)."""
    from sqlalchemy.exc import OperationalError

    def down(*args, **kwargs):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))

    new = classes.create_class(data)
    monkeypatch.setattr(admission, "join_class", down)
    monkeypatch.setattr(classes, "create_class", down)
    at = open_linked_page(PAGE)
    join(at, new.code, "Ann")
    said = [e.replace("\\", "") for e in errors(at)]
    assert len(said) == 1
    assert said[0].startswith("The class database cannot be reached right now, so you have not joined yet.")
    assert "student" not in at.query_params
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    assert not at.exception
    said = [e.replace("\\", "") for e in errors(at)]
    assert len(said) == 1
    assert said[0].startswith("The class database cannot be reached right now, so no class was started.")
    assert "teacher" not in at.query_params


def test_what_became_of_a_late_press_stays_until_the_next_press(data):
    """A Reveal the database answered late (its call kept pending), saved after the page had shown the outage:
    the run that finds it done says so, and the page's own rerun at once (the dashboard redraws the whole page
    without the outage banner) must not drop it. It goes at the teacher's next press."""
    new = classes.create_class(data, "late")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    version = versions.stored_class_version(data, new.code).version
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # the call, answered late on a thread of its own
        late = pool.submit(classes.reveal, data, new.code, new.teacher_token)
        late.result()
    at.session_state["cls_pending"] = ("Reveal", "10:00:00", late)  # as the press's callback kept it
    at.session_state["cls_teacher_error"] = actions.PENDING  # what the press said at the time
    at.run()
    assert not at.exception
    assert successes(at) == ["Reveal (sent at 10:00:00) was saved when the database answered."]
    assert not any("not answering" in e for e in errors(at))  # the outage banner went
    assert versions.stored_class_version(data, new.code).version == version + 1  # revealed once
    at.run()  # the dashboard's next refresh: still said
    assert successes(at) == ["Reveal (sent at 10:00:00) was saved when the database answered."]
    at.button(key="cls_lock").click().run()  # the teacher's next press
    assert not at.success and not errors(at)


def test_the_class_predicts_the_second_candidates_target_and_the_dashboard_names_the_misconception(data):
    """Two drafts in a live class: the teacher opens "p₂" from the dashboard's form, phones draw three bars, and after
    the reveal the dashboard names the most common wrong pattern: the second candidate tested against p. By hand
    (bernoulli-residual: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5)): p₂ = max(0, p − q) / Z = (0, 3/4, 1/4)."""
    at = open_linked_page(PAGE)
    at.text_input(key="cls_start_name").set_value("Period 4")
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, teacher = at.query_params["code"], teacher_token(at)
    source = at.selectbox(key="cls_source")
    assert "Two drafts, the second candidate's target p₂: bernoulli-residual" in source.options
    source.set_value("second-target:bernoulli-residual").run()
    at.button(key="cls_open").click().run()
    assert not at.exception
    tokens = [admission.join_class(data, code, name).student_token for name in ("Ann", "Bob", "Cat")]
    at = open_linked_page(PAGE, {"code": code, "student": tokens[0]})
    assert boxes(at)["fields"] == ["p₂(A)", "p₂(B)", "p₂(C)"]
    assert "Predict p₂ for every token" in plain(markdown_text(at))
    submit_boxes(at, "0.1", "0.6", "0.3")  # p itself: tested against p
    assert at.success[0].value.startswith("Saved at")
    answers.submit_prediction(data, code, tokens[1], 1, ["0.1", "0.6", "0.3"])
    answers.submit_prediction(data, code, tokens[2], 1, ["0", "0.75", "0.25"])
    classes.reveal(data, code, teacher)
    at = open_linked_page(PAGE, {"code": code, "teacher": teacher})
    text = plain(apptest_text(at)).replace("*", "")
    assert "Most common wrong pattern: second candidate tested against p (2 of 3)" in text
    assert "kept at candidate 1 + kept at candidate 2 + correction gives p for every token" in text
    at = open_linked_page(PAGE, {"code": code, "student": tokens[0]})
    assert revealed_table(at)["exact"] == ["0", "3/4 (0.75)", "1/4 (0.25)"]
    (truth,) = [c for c in at.get("plotly_chart") if c.proto.alt.startswith("Bar chart of your prediction")]
    assert "p₂(B): yours 0.60, exact 3/4" in truth.proto.alt


def test_the_join_form_takes_an_optional_student_number_and_refuses_a_bad_one_by_name(data):
    new = classes.create_class(data, "Period 5")
    at = open_linked_page(PAGE, {"code": new.code})
    at.text_input(key="cls_join_code").set_value(new.code)
    at.text_input(key="cls_join_name").set_value("Ann")
    at.text_input(key="cls_join_identifier").set_value("=SUM(A1)")
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not at.exception
    assert "Student number:" in plain(errors(at)[0]) and "'('" in plain(errors(at)[0])
    assert at.text_input(key="cls_join_name").value == "Ann"  # nothing typed is lost
    at.text_input(key="cls_join_identifier").set_value("S2041")
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert "student" in at.query_params
    with data.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("SELECT name, identifier FROM students")).all() == [("Ann", "S2041")]


def test_the_join_link_page_has_no_presentation_toggle(data):
    """A scanned QR code opens the Class page with the join link (code and key): the app draws no presentation
    toggle there, as on a joined student's page; the plain Class page has it."""
    new = classes.create_class(data)
    key = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    scanned = open_linked_page(PAGE, {"code": new.code, "join": key})
    assert scanned.text_input(key="cls_join_code").value == new.code  # the join page itself
    assert not [t for t in scanned.get("toggle") if t.key == "present"]
    plain_class = open_linked_page(PAGE, {"code": new.code})
    assert plain_class.text_input(key="cls_join_code").value == new.code
    assert [t for t in plain_class.get("toggle") if t.key == "present"]


def test_the_branch_question_in_a_class_is_a_choice_as_on_the_exercises_page(data):
    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 1, "level": "basic", "count": 2})
    token = admission.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    branch = generate_problems(1, 2, "basic")[0]
    assert branch.is_choice and branch.kind == "branch"
    choice = at.radio(key=f"cls_ans_1_{branch.number}")
    assert list(choice.options) == ["rejection", "no-rejection"] and choice.value is None
    assert [t.key for t in at.text_input if t.key.startswith("cls_ans_")] == [f"cls_ans_1_{branch.number + 1}"]
    choice.set_value(expected_answer(branch))
    at.button(key=f"FormSubmitter:cls_ans_form_1_{branch.number}-Check and save").click().run()
    assert not at.exception
    assert answers.student_state(data, new.code, token).attempts[branch.number].correct
    at = open_linked_page(PAGE, {"code": new.code, "student": token})  # a reload shows the saved choice
    assert at.radio(key=f"cls_ans_1_{branch.number}").value == expected_answer(branch)


def test_an_anonymous_class_asks_no_name_and_gives_one(data):
    """Started as an anonymous class ("no names asked"): the join link's page asks no name, the student gets a random
    "Animal N" that their page and the dashboard show; the teacher can switch it off for new students."""
    import re

    at = open_linked_page(PAGE)
    at.text_input(key="cls_start_name").set_value("Hall")
    at.checkbox(key="cls_start_anonymous").check()
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, token = at.query_params["code"], teacher_token(at)
    assert "students join without names (each gets a random one)" in markdown_text(at)
    key = teacher_link.check_teacher(data, code, token).join_key
    scanned = open_linked_page(PAGE, {"code": code, "join": key})
    assert not [t for t in scanned.text_input if t.key == "cls_join_name"]
    assert "This class is anonymous: you do not type a name." in markdown_text(scanned)
    scanned.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not scanned.exception and "student" in scanned.query_params
    (name,) = re.findall(r"You joined as ([A-Za-z]+ \d+)\.", plain(scanned.caption[0].value))
    at = open_linked_page(PAGE, {"code": code, "teacher": token})
    at.toggle(key="cls_show_students").set_value(True).run()
    assert [t.value for t in at.text][::2] == [name]
    at.button(key="cls_anonymous").click().run()  # "Ask new students for names"
    assert "students join with the names they type" in markdown_text(at)
    asked = open_linked_page(PAGE, {"code": code, "join": key})
    assert [t for t in asked.text_input if t.key == "cls_join_name"]


def test_the_teacher_writes_a_question_previews_it_and_the_class_predicts_it(data):
    """Your own question: typed as comma lists, refused by name (what was typed stays), previewed as the class will
    see it (p and q, never the answer), then opened: the students predict r for every token and Z."""
    at = open_linked_page(PAGE)
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code = at.query_params["code"]
    at.radio(key="cls_kind").set_value("Your own question").run()
    at.text_input(key="cls_own_title").set_value("Three words").run()
    at.text_input(key="cls_own_tokens").set_value("X, Y, W").run()
    at.text_input(key="cls_own_p").set_value("1/2, 1/4, 0.3").run()
    at.text_input(key="cls_own_q").set_value("1/4, 1/4, 1/2").run()
    assert any("p: the values sum to 21/20 (1.05), not 1" in plain(w.value) for w in at.warning)
    at.button(key="cls_open").click().run()
    assert not at.exception
    assert "Not opened: p: the values sum to 21/20" in plain(errors(at)[0])
    assert at.text_input(key="cls_own_p").value == "1/2, 1/4, 0.3"  # nothing typed is lost
    at.text_input(key="cls_own_p").set_value("1/2, 1/4, 1/4").run()
    assert not [w for w in at.warning if "sum to" in w.value]
    (preview,) = [c for c in at.get("plotly_chart") if c.proto.alt.startswith("Bar chart of target p and draft q")]
    assert preview.proto.alt.endswith("X: p 1/2, q 1/4; Y: p 1/4, q 1/4; W: p 1/4, q 1/2")
    assert "r(X) = " not in markdown_text(at) and "Z = 1/4" not in markdown_text(at)
    at.button(key="cls_open").click().run()
    assert not at.exception and not errors(at)
    token = admission.join_class(data, code, "Ann").student_token
    assert answers.student_state(data, code, token).activity.spec.title == "Your teacher's question: Three words"
    student = open_linked_page(PAGE, {"code": code, "student": token})
    assert boxes(student)["fields"] == ["r(X)", "r(Y)", "r(W)", "Z"]


def test_the_dashboard_builds_a_plan_from_its_form_and_opens_from_it(data):
    from lab.classroom import plans

    at = open_linked_page(PAGE)
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, token = at.query_params["code"], teacher_token(at)
    at.selectbox(key="cls_source").set_value("eight-words")
    at.selectbox(key="cls_timer").set_value(60)
    at.button(key="cls_plan_add").click().run()
    at.radio(key="cls_kind").set_value("Your own question").run()
    at.text_input(key="cls_own_tokens").set_value("X, Y").run()
    at.text_input(key="cls_own_p").set_value("1, 0").run()
    at.text_input(key="cls_own_q").set_value("1/2, 1/2").run()
    at.selectbox(key="cls_timer").set_value(0)
    at.button(key="cls_plan_add").click().run()
    assert not at.exception and not errors(at)
    kept = plans.class_plan(data, code, token)
    assert [i.label() for i in kept.items] == ["Scenario: eight-words (countdown 60 s)", "Your own question: X,Y"]
    assert "1. Scenario: eight-words (countdown 60 s)" in plain(markdown_text(at)).replace("\u2060", "")
    at.button(key="cls_plan_open_2").click().run()
    assert not at.exception
    student = admission.join_class(data, code, "Ann").student_token
    assert answers.student_state(data, code, student).activity.spec.fields == ("r(X)", "r(Y)", "Z")
    # a bad own question is not added, and says why
    at = open_linked_page(PAGE, {"code": code, "teacher": token})
    at.button(key="cls_next").click().run()
    at.radio(key="cls_kind").set_value("Your own question").run()
    at.text_input(key="cls_own_tokens").set_value("X, X").run()
    at.text_input(key="cls_own_p").set_value("1, 0").run()
    at.text_input(key="cls_own_q").set_value("1/2, 1/2").run()
    at.button(key="cls_plan_add").click().run()
    assert "Not added to the plan: p: token 'X' appears more than once" in plain(errors(at)[0])
    assert len(plans.class_plan(data, code, token).items) == 2


def test_an_ended_class_starts_the_next_lecture_with_its_plan(data):
    from lab.classroom import plans

    new = classes.create_class(data, "Mondays", plan=plans.stored_plan(plans.read_plan(
        "[[activity]]\nkind = 'scenario'\nscenario = 'pet-words'\ncountdown = 30\n"
    )))  # fmt: skip
    classes.end_class(data, new.code, new.teacher_token)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    at.button(key="cls_next_lecture").click().run()
    assert not at.exception
    code, token = at.query_params["code"], teacher_token(at)
    assert code != new.code and token != new.teacher_token
    assert [i.label() for i in plans.class_plan(data, code, token).items] == ["Scenario: pet-words (countdown 30 s)"]
    assert "Your private teacher link" in markdown_text(at)  # shown open, to be saved
