"""AppTest for the Exercises page and the app-wide presentation mode."""

import base64
import hashlib
import hmac
from fractions import Fraction as F

import pytest
from exercise_reference import expected_answer, sampler_law
from pagetest import APP, messages, metric, open_page_url, open_tab
from streamlit.testing.v1 import AppTest

from lab.teaching.exercises import generate_predictions, generate_problems
from lab.views.ui import language

PAGE = "lab/views/pages/exercises.py"
SECRET = "a test secret of the server, 32 chars"
KEY_LABELS = {"Answer key (Markdown)", "Answer key (CSV)"}
WORKSHEET_LABELS = {"Worksheet (HTML, prints cleanly)", "Worksheet (Markdown)", "Worksheet (CSV)"}


@pytest.fixture(autouse=True)
def server_secret(monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_SECRET", SECRET)


def token_of(seed: int) -> str:
    """The teacher token of a seed, derived here from its definition: HMAC-SHA256 of the server's secret over
    "residual-lab exercises teacher v1 seed=S", its first 18 bytes in URL-safe base64."""
    digest = hmac.new(SECRET.encode(), f"residual-lab exercises teacher v1 seed={seed}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()[:18]).decode()


def download_labels(at) -> set[str]:
    return {b.proto.label for b in at.get("download_button")}


def open_page(**params):
    return open_page_url(PAGE, params)  # the page's own URL (switching pages later drops the query)


def submit(at, sig, number, text):
    key = f"exq_answer_{sig}_{number}"
    widget = at.radio(key=key) if any(r.key == key for r in at.radio) else at.text_input(key=key)
    widget.set_value(text)
    at.button(key=f"exq_check_{sig}_{number}").click().run()
    assert not at.exception


def right_text(problem):
    answer = expected_answer(problem)
    return answer if isinstance(answer, str) else f"{answer.numerator}/{answer.denominator}"


def wrong_text(problem):
    answer = expected_answer(problem)
    if answer == "rejection":
        return "no-rejection"
    if answer == "no-rejection":
        return "rejection"
    return "0.9" if answer == "undefined" or abs(answer - F(9, 10)) > F(1, 100) else "0.1"


def problem_cards(at):
    """Each problem's markdown: a heading, the token / p / q table, then the question in bold."""
    return [m.value for m in at.markdown if m.value.startswith("## ")]


def shown_prompts(at):
    """The bold question lines (each card's bold paragraph), with the page's Markdown escapes removed."""
    return [
        next(part for part in card.split("\n\n") if part.startswith("**")).replace("\\", "").strip("*")
        for card in problem_cards(at)
    ]


def shown_status(at, number: int) -> str:
    """Problem ``number``'s tries and hints, the last line of its card (small grey text)."""
    return problem_cards(at)[number - 1].split("\n\n")[-1]


def shown_tables(at):
    """Each card's table as {column: [cells]}, read from its markdown rows (escapes removed)."""
    tables = []
    for card in problem_cards(at):
        rows = [line.strip("| ").split(" | ") for line in card.split("\n") if line.startswith("|")]
        header, body = rows[0], rows[2:]  # rows[1] is the | --- | line
        tables.append({name: [row[i].replace("\\", "") for row in body] for i, name in enumerate(header)})
    return tables


def test_default_assignment_renders_five_problems():
    at = open_page()
    problems = generate_problems(1, 5, "basic")
    assert metric(at, "Score") == "0 / 5"
    assert len(at.get("form")) == 5
    assert shown_prompts(at) == [p.prompt for p in problems]


def test_right_answer_scores_and_wrong_twice_shows_solution():
    at = open_page()
    problems = generate_problems(1, 5, "basic")
    submit(at, "1-basic", 1, right_text(problems[0]))
    assert any(m.startswith("Correct") for m in messages(at, "success"))
    assert metric(at, "Score") == "1 / 5" and metric(at, "Right first time") == "1"
    before = len(at.expander)
    submit(at, "1-basic", 2, wrong_text(problems[1]))
    assert metric(at, "Score") == "1 / 5" and metric(at, "Attempted") == "2"
    assert len(messages(at, "error")) == 1
    assert len(at.expander) == before  # no solution after one try
    submit(at, "1-basic", 2, wrong_text(problems[1]))
    assert len(at.expander) == before + 1
    solution = at.expander[-1]
    assert solution.label == "Worked solution"
    assert any(m.value.startswith("\\- Answer") or "Answer" in m.value for m in solution.markdown)


def test_unreadable_answer_is_a_warning_not_a_try():
    at = open_page()
    problems = generate_problems(1, 5, "basic")
    number = next(p.number for p in problems if not p.is_choice)
    submit(at, "1-basic", number, "<b>three quarters</b>")
    assert metric(at, "Attempted") == "0"
    warning = messages(at, "warning")[-1]
    assert "Could not read" in warning and "<b>" not in warning  # escaped, shown as typed


def test_hints_climb_the_ladder():
    at = open_page()
    at.button(key="exq_hint_1-basic_1").click().run()
    at.button(key="exq_hint_1-basic_1").click().run()
    hints = [m for m in messages(at, "info") if m.startswith("Hint")]
    assert len(hints) == 2 and "min" in hints[0]
    assert at.button(key="exq_hint_1-basic_1").label == "Hint 3 of 4"
    assert shown_status(at, 1) == ":gray[:small[0 tries · hints used 2 of 4]]"


def test_each_card_counts_its_tries_and_says_solved():
    at = open_page()
    problem = generate_problems(1, 5, "basic")[1]
    assert shown_status(at, 2) == ":gray[:small[0 tries · hints used 0 of 4]]"
    submit(at, "1-basic", 2, wrong_text(problem))
    assert shown_status(at, 2) == ":gray[:small[1 try · hints used 0 of 4]]"
    submit(at, "1-basic", 2, wrong_text(problem))
    assert shown_status(at, 2) == ":gray[:small[2 tries · hints used 0 of 4]]"
    submit(at, "1-basic", 2, right_text(problem))
    assert shown_status(at, 2) == ":gray[:small[solved · hints used 0 of 4]]"
    assert shown_status(at, 1) == ":gray[:small[0 tries · hints used 0 of 4]]"  # the others untouched


def test_url_parameters_give_the_same_problems_as_the_core():
    at = open_page(seed="42", count="3", level="zeros")
    problems = generate_problems(42, 3, "zeros")
    assert metric(at, "Score") == "0 / 3"
    assert shown_prompts(at) == [p.prompt for p in problems]
    tables = shown_tables(at)
    assert len(tables) == 3
    for frame, pr in zip(tables, problems):
        assert list(frame["token"]) == list(pr.p.tokens)
        assert [F(v.split(" ")[0]) for v in frame["p"]] == list(pr.p.values)
        assert [F(v.split(" ")[0]) for v in frame["q"]] == list(pr.q.values)
    submit(at, "42-zeros", 1, right_text(problems[0]))
    assert metric(at, "Score") == "1 / 3"


def test_bad_url_parameters_are_named_and_defaults_used():
    at = open_page(seed="abc", level="<script>")
    warnings = " ".join(messages(at, "warning"))
    assert "seed" in warnings and "level" in warnings and "<script>" not in warnings
    assert metric(at, "Score") == "0 / 5"


def test_z0_trick_question_accepts_undefined():
    at = open_page(seed="9", count="2", level="z0")
    submit(at, "9-z0", 1, "undefined")
    assert metric(at, "Score") == "1 / 2"


def test_predict_the_bars_scored_by_total_variation():
    at = open_tab(open_page(seed="3"), "tab", "Predict the bars")
    pr = generate_predictions(3, "basic")[0]
    truth = sampler_law(pr.p.values, pr.q.values)[3]
    # Move every bar to the truth rounded to the slider step 0.05.
    guess = [round(float(r) * 20) / 20 for r in truth]
    for token, value in zip(pr.p.tokens, guess):
        at.slider(key=f"exq_bar_3-basic_1_{token}").set_value(value)
    at.button(key="exq_check_bars_3-basic_1").click().run()
    assert not at.exception
    expected_tv = sum(abs(F(str(g)) - r) for g, r in zip(guess, truth)) / 2
    text = " ".join(m.value for m in at.markdown)
    assert f"total variation distance {float(expected_tv):.3f}" in text
    assert len(at.get("plotly_chart")) == 1 + 1  # the open exercise's p/q chart and the comparison
    table = next(m.value for m in at.markdown if m.value.startswith("| token | your bar |"))
    rows = [line.strip("| ").replace("\\", "").split(" | ") for line in table.split("\n")[2:]]
    assert [row[0] for row in rows] == list(pr.p.tokens)
    assert [F(row[2].split(" ")[0]) for row in rows] == list(truth)  # r, exact, from the sampler's law
    assert [float(row[3]) for row in rows] == pytest.approx([g - float(r) for g, r in zip(guess, truth)], abs=5e-4)
    # Moving a bar hides the score until the next check.
    at.slider(key=f"exq_bar_3-basic_1_{pr.p.tokens[0]}").set_value(0.5 if guess[0] != 0.5 else 0.0).run()
    assert len(at.get("plotly_chart")) == 1


def test_the_bars_exercises_open_one_at_a_time_and_keep_their_bars():
    from lab.views.pages.exercises import BARS_TAB_KEY

    at = open_tab(open_page(seed="3"), "tab", "Predict the bars")
    first, second = generate_predictions(3, "basic")[:2]
    tokens_shown = {s.key.rsplit("_", 1)[1] for s in at.slider}
    assert {s.key for s in at.slider} == {f"exq_bar_3-basic_1_{t}" for t in first.p.tokens}  # exercise 1 alone
    assert tokens_shown == set(first.p.tokens)
    at.slider(key=f"exq_bar_3-basic_1_{first.p.tokens[0]}").set_value(0.35).run()
    at.button(key="exq_check_bars_3-basic_1").click().run()
    open_tab(at, BARS_TAB_KEY, "Exercise 2")
    assert {s.key for s in at.slider} == {f"exq_bar_3-basic_2_{t}" for t in second.p.tokens}
    open_tab(at, "tab", "Problems")  # the page's other tab, and back: the open exercise is kept too
    open_tab(at, "tab", "Predict the bars")
    assert {s.key for s in at.slider} == {f"exq_bar_3-basic_2_{t}" for t in second.p.tokens}
    open_tab(at, BARS_TAB_KEY, "Exercise 1")
    assert at.slider(key=f"exq_bar_3-basic_1_{first.p.tokens[0]}").value == 0.35 and not at.warning
    assert any(m.value.startswith("**") and "total variation distance" in m.value for m in at.markdown)  # checked


def test_teacher_link_qr_and_downloads(monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_PUBLIC_URL", "http://lab.example:8501")  # AppTest's own address is loopback
    at = open_tab(open_page(seed="7", count="4", level="disjoint", teacher=token_of(7)), "tab", "Teacher")
    code = [c.value for c in at.code]
    assert "http://lab.example:8501/exercises?seed=7&count=4&level=disjoint" in code  # the class's link
    assert any(c.endswith(f"/exercises?seed=7&count=4&level=disjoint&teacher={token_of(7)}") for c in code)
    assert len(at.get("image")) == 1
    assert KEY_LABELS | WORKSHEET_LABELS == download_labels(at)
    open_tab(at, "tab", "Your results")
    assert [b.proto.label for b in at.get("download_button")] == ["Download my results (CSV)"]


@pytest.mark.parametrize(
    "teacher", [None, "", token_of(8), token_of(7)[:-1] + "A", "x" * 500, "é" * 30], ids=repr
)
def test_a_link_without_this_seeds_teacher_token_opens_no_key(teacher):
    params = {"seed": "7", "count": "4", "level": "disjoint"} | ({"teacher": teacher} if teacher is not None else {})
    at = open_tab(open_page(**params), "tab", "Teacher")
    assert download_labels(at) == WORKSHEET_LABELS  # questions with blanks only
    assert not any("teacher=" in c.value for c in at.code)
    assert any("Answer keys open with a teacher link only" in i.value for i in at.info)
    at = open_page(**params, present="1")
    assert not any(b.label == "Reveal the solution" for b in at.button)


def test_new_random_seed_makes_a_teacher_link():
    at = open_tab(open_page(seed="7"), "tab", "Teacher")
    assert not KEY_LABELS & download_labels(at)
    at.button(key="exq_new_seed").click().run()
    seed = int(at.query_params["seed"])
    assert at.query_params["teacher"] == token_of(seed)
    assert KEY_LABELS <= download_labels(at)
    at.number_input(key="seed").set_value(7).run()  # a typed seed: the token is the random seed's, not 7's
    assert not KEY_LABELS & download_labels(at)


def test_the_answer_box_suggests_no_answer():
    at = open_page(seed="7", level="z0")
    placeholders = {t.proto.placeholder for t in at.text_input if t.key.startswith("exq_answer_")}
    assert placeholders == {"A fraction, a decimal or a word"}


PRESENTING = "html { font-size:"  # presentation mode's larger root font (lab/views/ui/presentation.py)


def test_presentation_toggle_on_every_page_and_reveal_on_button_only():
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert any(":focus-visible" in h.proto.body for h in at.get("html"))  # the accessibility styles: always
    assert not any(PRESENTING in h.proto.body for h in at.get("html"))
    at.toggle(key="present").set_value(True).run()
    assert not at.exception
    assert any(PRESENTING in h.proto.body for h in at.get("html"))
    at.query_params["teacher"] = token_of(1)  # the presenter's Reveal buttons: a teacher link's only
    at.switch_page(PAGE).run()
    assert at.toggle(key="present").value
    assert at.query_params["present"] == "1"  # the URL follows the toggle
    problems = generate_problems(1, 5, "basic")
    before = len(at.expander)
    submit(at, "1-basic", 2, wrong_text(problems[1]))
    submit(at, "1-basic", 2, wrong_text(problems[1]))
    # While presenting the solution is offered (collapsed), never opened on its own.
    assert len(at.expander) == before + 1 and not at.expander[-1].proto.expanded
    at.button(key="exq_reveal_1-basic_3").click().run()
    assert at.expander[-1].proto.expanded
    at.toggle(key="present").set_value(False).run()
    assert not at.get("html") or not any(PRESENTING in h.proto.body for h in at.get("html"))
    assert "present" not in at.query_params


@pytest.mark.parametrize("value", ["1", "true", "on"])
def test_presentation_from_the_url(value):
    at = open_page(present=value, teacher=token_of(1))
    assert at.toggle(key="present").value
    assert any(b.label == "Reveal the solution" for b in at.button)


@pytest.mark.parametrize("value", ["0", "false", "<b>x</b>"])
def test_presentation_off_unless_the_url_says_so(value):
    at = open_page(present=value, teacher=token_of(1))
    assert not at.toggle(key="present").value
    assert not any(b.label == "Reveal the solution" for b in at.button)


def test_page_and_cli_show_the_same_problems(capsys):
    import json

    from lab.cli import main

    assert main(["exercises", "--seed", "77", "--count", "4", "--level", "disjoint", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)["problems"]
    at = open_page(seed="77", count="4", level="disjoint")
    assert shown_prompts(at) == [item["question"] for item in cli]
    assert len(shown_tables(at)) == 4
    for frame, item in zip(shown_tables(at), cli):
        assert list(frame["token"]) == item["tokens"]
        assert [v.split(" ")[0] for v in frame["p"]] == [item["p"][t] for t in item["tokens"]]
        assert [v.split(" ")[0] for v in frame["q"]] == [item["q"][t] for t in item["tokens"]]


def test_teacher_types_the_app_address():
    at = open_tab(open_page(seed="7"), "tab", "Teacher")
    at.text_input(key="exq_base_url").set_value("http://192.168.1.20:8501").run()
    assert any(c.value == "http://192.168.1.20:8501/exercises?seed=7&count=5&level=basic" for c in at.code)
    at.text_input(key="exq_base_url").set_value("javascript:alert(1)").run()
    assert any("not an http" in e.value for e in at.error)
    assert not any("javascript" in c.value for c in at.code)


def test_only_the_open_tab_and_the_problems_are_drawn_and_values_survive_a_tab_switch():
    at = open_page(seed="3")
    assert len(problem_cards(at)) == 5 and not at.slider and not at.get("download_button")  # the problems alone
    open_tab(at, "tab", "Predict the bars")
    assert len(problem_cards(at)) == 5 and at.slider  # the problems are always drawn (typed text stays)
    key = "exq_bar_3-basic_1_" + generate_predictions(3, "basic")[0].p.tokens[0]
    at.slider(key=key).set_value(0.4).run()
    problem = generate_problems(3, 5, "basic")[0]
    open_tab(at, "tab", "Problems")
    assert not at.slider and not at.get("download_button")
    submit(at, "3-basic", 1, wrong_text(problem))
    open_tab(at, "tab", "Predict the bars")
    assert at.slider(key=key).value == 0.4 and not at.warning  # no "default value and Session State" warning
    open_tab(at, "tab", "Problems")
    assert at.text_input(key="exq_answer_3-basic_1").value == wrong_text(problem)  # the submitted answer
    assert metric(at, "Attempted") == "1"


def test_a_link_opens_a_tab_and_an_unknown_tab_is_named():
    at = open_page(seed="3", tab="Predict the bars")
    assert at.slider
    assert not problem_cards(at)  # nothing can be typed in problems never shown: they are not drawn
    open_tab(at, "tab", "Problems")
    assert len(problem_cards(at)) == 5
    open_tab(at, "tab", "Predict the bars")
    assert at.slider and len(problem_cards(at)) == 5  # once shown, always drawn (typed answers stay)
    at = open_page(seed="3", tab="<b>Answers</b>")
    assert problem_cards(at) and not at.slider  # the problems
    shown = [w.value.replace("\\", "") for w in at.warning]  # refused like the link's other values, named as typed
    assert any("tab (Tab): '<b>Answers</b>' is not one of the choices; showing 'Problems'" in w for w in shown)
    assert "tab" not in at.query_params


def test_the_assignment_set_in_the_teacher_tab_holds_while_another_tab_is_open():
    """The Teacher tab's seed, count and level are drawn only while it is open, and they write the link: what the
    teacher chose survives a switch to the problems and back, and a default value is left out of the link."""
    at = open_tab(open_page(), "tab", "Teacher")
    assert any(h.value == "Build an assignment" for h in at.header)
    at.number_input(key="seed").set_value(31).run()
    at.number_input(key="count").set_value(3).run()
    open_tab(at, "tab", "Problems")
    assert not any(h.value == "Build an assignment" for h in at.header)
    assert shown_prompts(at) == [p.prompt for p in generate_problems(31, 3, "basic")]
    open_tab(at, "tab", "Teacher")
    assert at.number_input(key="seed").value == 31 and at.number_input(key="count").value == 3
    assert (at.query_params["seed"], at.query_params["count"]) == ("31", "3")
    at.selectbox(key="level").set_value("zeros").run()
    at.number_input(key="count").set_value(5).run()  # the default count: left out of the link
    assert "count" not in at.query_params and at.query_params["level"] == "zeros"
    open_tab(at, "tab", "Problems")
    # a class on the problems draws no assignment controls (the language menu is the app's, on every page)
    assert not at.number_input and [s.key for s in at.selectbox] == [language.SELECT_KEY]
    assert shown_prompts(at) == [p.prompt for p in generate_problems(31, 5, "zeros")]


def test_a_wrong_answer_that_matches_a_mistake_is_named_without_the_value():
    at = open_page()
    problems = generate_problems(1, 5, "basic")
    z_problem = next(p for p in problems if p.kind == "z")
    alpha = 1 - expected_answer(z_problem)  # from the sampling procedure: Z = 1 - alpha
    submit(at, "1-basic", z_problem.number, f"{alpha.numerator}/{alpha.denominator}")
    error = messages(at, "error")[-1].replace("\\", "")
    assert "α, the acceptance probability" in error and "Z, the rejection probability" in error
    assert z_problem.answer_text not in error and z_problem.answer_decimal not in error
    submit(at, "1-basic", z_problem.number, "0.95")  # no known mistake: the generic line
    assert messages(at, "error")[-1].replace("\\", "") == "Not yet: 0.95 is more than 0.005 away. Try a hint."
