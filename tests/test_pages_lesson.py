"""The Start-here lesson as a student meets it (AppTest): the app opens on it, Next alone walks the eight chapters,
each prediction is hidden until Reveal, each question takes a wrong answer (named) and a right one, a chapter link
opens its chapter and a bad one is refused by name, Start over clears the path. Values are the hand-derived ones of
tests/test_lesson.py. (Reloading the page and finding the progress kept needs a browser: its localStorage is tested
in tests/browser/test_lesson_browser.py.)"""

from __future__ import annotations

import pytest
from pagetest import APP, open_linked_page
from streamlit.testing.v1 import AppTest
from test_lesson import ANSWERS

PAGE = "lab/views/lesson/start_here.py"
# a wrong answer per chapter that matches a known mistake, and words of its diagnosis
WRONG = {1: ("1/5", "p(x) alone"), 2: ("1/4", "rejection probability"), 3: ("1/5", "divides it by Z"),
         4: ("0", "no-rejection case"), 5: ("3/4", "residual itself"), 6: ("1/4", "kept proposals"),
         7: ("3", "ends the block"), 8: ("1/2", "correct rule")}
# what only the reveal shows, per chapter (the exact column of the prediction table)
REVEAL_WORDS = {1: "min(1, p(x)/q(x))", 2: "= min(q(x), p(x))", 3: "r = (cat 2/3", 4: "no correction",
                5: "r(B) = 3/4", 6: "Expected: 1,000 × p(fish) = 250", 7: "α³ = 125/512",
                8: "writes fish with probability 2/5"}


def text_of(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [h.value for h in at.header]
    parts += [s.value for s in at.subheader] + [i.value for i in at.info] + [s.value for s in at.success]
    parts += [w.value for w in at.warning]
    return "\n".join(parts).replace("\\", "")  # markdown escapes off: the text as read


def chapter_heading(at: AppTest) -> str:
    return at.header[0].value


def test_the_app_opens_on_start_here_with_the_idea_and_chapter_one():
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Start here"
    text = text_of(at)
    assert "small, fast *draft* model guesses" in text and "follows the target exactly" in text
    assert chapter_heading(at) == "Chapter 1: One token, one guess"
    assert "Chapter 1 of 8 · 0 of 8 chapters done" in at.get("progress")[0].proto.text


def test_next_alone_walks_the_whole_path_with_each_chapter_answered_wrong_then_right():
    at = AppTest.from_file(APP, default_timeout=60).run()
    for number in range(1, 9):
        assert chapter_heading(at).startswith(f"Chapter {number}:")
        assert REVEAL_WORDS[number] not in text_of(at)  # nothing of the reveal before Reveal
        at.button(key=f"ls_{number}_reveal").click().run()
        assert not at.exception and REVEAL_WORDS[number] in text_of(at)
        wrong, words = WRONG[number]
        at.text_input(key=f"ls_{number}_answer").input(wrong)
        at.button(key=f"ls_{number}_check").click().run()
        assert any(words in w.value.replace("\\", "") for w in at.warning), (number, [w.value for w in at.warning])
        at.text_input(key=f"ls_{number}_answer").input(str(ANSWERS[number]))
        at.button(key=f"ls_{number}_check").click().run()
        assert not at.exception and at.success and "Chapter done" in at.success[0].value.replace("\\", "")
        assert f"{number} of 8 chapters done" in at.get("progress")[0].proto.text
        if number < 8:
            at.button(key="ls_next").click().run()
    assert "The end of the path" in text_of(at)
    at.button(key="ls_back").click().run()
    assert chapter_heading(at).startswith("Chapter 7:")
    assert at.query_params["chapter"] in ("7", ["7"])


def test_a_prediction_is_graded_against_the_exact_value_after_reveal():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="ls_1_pred_0").input("1")
    at.text_input(key="ls_1_pred_2").input("1/2")
    at.button(key="ls_1_reveal").click().run()
    table = next(m.value for m in at.markdown if "your prediction" in m.value).replace("\\", "")
    assert "| cat kept | 1 | 1 | right |" in table
    assert "| fish kept | 1/2 | 2/5 | off |" in table
    assert "| dog kept | — | 1 | — |" in table


def test_the_step_interactive_narrates_one_step_after_the_reveal():
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not [b for b in at.button if b.key == "ls_1_step"]  # it would show p/q: after the prediction
    at.button(key="ls_1_reveal").click().run()
    for _ in range(3):
        at.button(key="ls_1_step").click().run()
    lines = [m.value for m in at.markdown if m.value.startswith("- ")]
    assert len(lines) == 3 and "The draft proposes" in lines[0] and "The target checks it" in lines[1]


def test_two_wrong_tries_show_the_worked_answer():
    at = open_linked_page(PAGE, {"chapter": "3"})
    for wrong in ("1/5", "1/7"):
        at.text_input(key="ls_3_answer").input(wrong)
        at.button(key="ls_3_check").click().run()
    assert any("worked answer" in i.value and "Z = 2/5" in i.value.replace("\\", "") for i in at.info)


@pytest.mark.parametrize("number", range(1, 9))
def test_a_chapter_link_opens_its_chapter(number):
    at = open_linked_page(PAGE, {"chapter": str(number)})
    assert chapter_heading(at).startswith(f"Chapter {number}:")


@pytest.mark.parametrize("raw", ["0", "9", "abc", "9" * 400, "<b>x</b>"])
def test_a_bad_chapter_link_is_refused_by_name_and_chapter_one_opens(raw):
    at = open_linked_page(PAGE, {"chapter": raw})
    assert chapter_heading(at).startswith("Chapter 1:")
    assert any("is not a chapter number from 1 to 8" in w.value.replace("\\", "") for w in at.warning)


def test_start_over_clears_the_progress():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.text_input(key="ls_1_answer").input("2/5")
    at.button(key="ls_1_check").click().run()
    at.button(key="ls_next").click().run()
    assert "1 of 8 chapters done" in at.get("progress")[0].proto.text
    at.button(key="ls_start_over").click().run()
    assert chapter_heading(at).startswith("Chapter 1:")
    assert "0 of 8 chapters done" in at.get("progress")[0].proto.text
    assert at.text_input(key="ls_1_answer").value == ""


def test_the_glossary_lists_every_term_at_its_anchor():
    at = open_linked_page("lab/views/lesson/glossary.py")
    words = [s.value for s in at.header]
    assert "Z, rejection probability" in words and "Residual (r)" in words and len(words) >= 10
