"""A teacher's own class question (lab.teaching.class_question.own_question): typed as the Residual explorer takes
its table, with the explorer's messages for bad input; in a class it asks r for every token and Z, and its answer is
worked out by hand here.

p = (1/2, 1/4, 1/4), q = (1/4, 1/4, 1/2) over X, Y, W: min = (1/4, 1/4, 1/4), alpha = 3/4, Z = 1/4,
max(0, p - q) = (1/4, 0, 0), r = (1, 0, 0)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction as F

import pytest

from lab.classroom import admission, answers, classes, export
from lab.classroom.activities import PREDICT, predict_spec
from lab.classroom.refusals import ClassroomError
from lab.teaching.class_question import (
    OWN,
    ClassQuestionError,
    class_answer,
    class_question,
    own_question,
)


def test_an_own_question_asks_r_and_z_and_its_answer_is_exact():
    source = own_question("Three words", " X, Y ,W ", "0.5, 1/4, 0.25", "1/4, 0.25, 1/2")
    assert source.startswith(OWN)
    assert json.loads(source[len(OWN):]) == {"title": "Three words", "tokens": "X,Y,W", "p": "1/2,1/4,1/4",
                                            "q": "1/4,1/4,1/2"}  # fmt: skip
    question = class_question(source)
    assert question.title == "Your teacher's question: Three words"
    assert question.tokens == ("X", "Y", "W") and question.p == (F(1, 2), F(1, 4), F(1, 4))
    assert question.fields == ("r(X)", "r(Y)", "r(W)", "Z") and question.ask_z
    answer = class_answer(source)
    assert answer.exact == (F(1), F(0), F(0), F(1, 4)) and answer.alpha == F(3, 4)
    text = " ".join([question.title, question.prompt, question.pq_alt()])
    assert "1/4 (0.25)" not in question.prompt and "r(X) =" not in text  # nothing of the answer before the reveal


@pytest.mark.parametrize(
    ("title", "tokens", "p", "q", "message"),
    [
        ("", "", "", "", "token name"),
        ("", "A,B", "1/2,1/2", "1/2", "your question: 2 token names but 2 values of p and 1 values of q"),
        ("", "A,A", "1/2,1/2", "1/2,1/2", "'A'"),
        ("", "A,B", "1/2,0.6", "1/2,1/2", "p: the values sum to 11/10 (1.1), not 1 (fix a value)"),
        ("", "A,B", "1/2,x", "1/2,1/2", "'x'"),
        ("", "A,B", "1/2,1/0", "1/2,1/2", "B"),
        ("", "A,B", "1/2,nan", "1/2,1/2", "B"),
        ("", "A,B", "1/2,1/2", "1/2,1/2", "Z = 0"),
        ("", ",".join(f"t{i}" for i in range(27)), "1", "1", "at most 26"),
        ("", "A" * 41 + ",B", "1/2,1/2", "1,0", "longer than 40"),
        ("x" * 81, "A,B", "1/2,1/2", "1,0", "Title: at most 80"),
        ("Z = 1/2 here", "A,B", "1/2,1/2", "1,0", "states part of the answer"),
        ("=HYPERLINK(1)", "A,B", "1/2,1/2", "1,0", "Title: '=HYPERLINK(1)' would run as a spreadsheet formula"),
        ("Half: 1/2", "A,B", "1/2,1/2", "1,0", None),  # a value of p is on screen anyway
    ],
)
def test_bad_input_is_refused_by_name_as_in_the_explorer(title, tokens, p, q, message):
    if message is None:
        assert class_question(own_question(title, tokens, p, q)).title.endswith(title)
        return
    with pytest.raises(ClassQuestionError) as info:
        own_question(title, tokens, p, q)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "stored",
    [OWN + "{", OWN + "[]", OWN + '{"title":"","tokens":"A,B","p":"1/2,1/2"}',
     OWN + '{"title":"","tokens":"A,B","p":"2/4,1/2","q":"1,0"}', OWN + "x" * 5000],
)  # fmt: skip
def test_a_stored_question_not_as_written_is_refused(stored):
    with pytest.raises(ClassQuestionError):
        class_question(stored)


def test_a_class_runs_an_own_question_and_scores_it(engine):
    source = own_question("Three words", "X,Y,W", "1/2,1/4,1/4", "1/4,1/4,1/2")
    new = classes.create_class(engine, "Own")
    classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": source})
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = answers.student_state(engine, new.code, token).activity
    assert activity.spec.fields == ("r(X)", "r(Y)", "r(W)", "Z")
    answers.submit_prediction(engine, new.code, token, activity.id, ["1", "0", "0", "0.3"], round_number=1)
    classes.reveal(engine, new.code, new.teacher_token)
    (row,) = csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token)))
    assert (row["score"], row["correct"], row["value 4 exact"]) == ("1.000", "yes", "1/4")
    assert predict_spec(source).diagnose((F(1, 2), F(1, 4), F(1, 4), F(1, 4)))  # r = p: a named mistake
    with pytest.raises(ClassroomError):
        classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": OWN + "{}"})
