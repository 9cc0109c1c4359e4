"""Markov model files: the shipped models, the loader's errors (file and field named), i.i.d. scenarios."""

from fractions import Fraction as F

import pytest

from lab.core.markov import START, ModelError, load_model, load_model_file, model_names
from lab.core.scenarios import scenario_names

SHIPPED = ["markov-ab-end", "markov-draft-misses", "markov-sentences-end", "markov-three", "markov-tiny-sentences"]

GOOD = """
title = "t"
kind = "markov"
vocab = ["x", "y"]
[target]
start = ["1/2", "1/2"]
x = ["1/4", "3/4"]
y = ["1", "0"]
[draft]
start = ["1/3", "2/3"]
x = ["1/2", "1/2"]
y = ["1/2", "1/2"]
"""


def write(tmp_path, text, name="m.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_models_are_listed_apart_from_one_step_scenarios():
    assert model_names() == SHIPPED
    for name in SHIPPED:
        assert name not in scenario_names()  # the one-step loader skips kind = "markov"
        assert name in scenario_names(kind="markov")


@pytest.mark.parametrize("name", SHIPPED)
def test_every_row_is_a_distribution_over_the_whole_vocabulary(name):
    model = load_model(name)
    assert model.kind == "markov"
    assert len(model.target) == len(model.draft) == len(model.vocab) + 1
    for row in model.target + model.draft:
        assert len(row) == len(model.vocab)
        assert sum(row) == 1 and min(row) >= 0


def test_issue_example_target_rows():
    model = load_model("markov-three")
    assert model.vocab == ("x", "y", "z")
    assert model.p(START) == (F(1, 2), F(1, 3), F(1, 6))
    assert model.p(0) == (F(0), F(3, 4), F(1, 4))  # after x
    assert model.p(2) == (F(1), F(0), F(0))  # after z


def test_draft_misses_part_of_the_target_support():
    model = load_model("markov-draft-misses")
    d = model.vocab.index("d")
    assert all(row[d] == 0 for row in model.draft)
    assert any(row[d] > 0 for row in model.target)


def test_some_model_has_draft_rows_with_three_positive_entries_everywhere():
    model = load_model("markov-three")
    assert all(sum(1 for v in row if v > 0) >= 3 for row in model.draft)


def test_one_step_scenario_is_an_iid_model():
    model = load_model("bernoulli-residual")
    assert model.kind == "step" and model.is_iid
    assert all(model.p(c) == (F(1, 10), F(3, 5), F(3, 10)) for c in model.contexts)
    assert all(model.q(c) == (F(1, 2), F(3, 10), F(1, 5)) for c in model.contexts)


def test_load_by_path(tmp_path):
    model = load_model(str(write(tmp_path, GOOD)))
    assert model.name == "m" and model.q(1) == (F(1, 2), F(1, 2))


def test_unknown_model_names_the_known_ones():
    with pytest.raises(ModelError, match="unknown model 'nope'.*markov-three"):
        load_model("nope")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace('kind = "markov"', 'kind = "tree"'), r"m\.toml: field 'kind' is 'tree'"),
        (lambda t: t.split("[draft]")[0], r"m\.toml: missing table \[draft\]"),
        (lambda t: t.replace('y = ["1", "0"]\n', ""), r"m\.toml: missing field 'target\.y'"),
        (lambda t: t.replace('x = ["1/4", "3/4"]', 'x = ["1/4"]'), r"m\.toml: field 'target\.x' has 1 values for 2"),
        (lambda t: t.replace('x = ["1/4", "3/4"]', 'x = ["1/4", "1/2"]'), r"m\.toml: field 'target\.x'.*sum to 3/4"),
        (lambda t: t.replace('x = ["1/2", "1/2"]', 'x = ["3/2", "-1/2"]'), r"field 'draft\.x'.*token 'y'.*negative"),
        (
            lambda t: t.replace('x = ["1/2", "1/2"]', 'x = ["1/2", "half"]'),
            r"field 'draft\.x'.*token 'y'.*not a number",
        ),
        (lambda t: t.replace('x = ["1/2", "1/2"]', "x = [0.5, 0.5]"), r"field 'draft\.x' must be a list of strings"),
        (lambda t: t.replace('vocab = ["x", "y"]', 'vocab = ["x", "x"]'), r"field 'vocab'.*'x' appears more than once"),
        (lambda t: t + 'w = ["1", "0"]\n', r"field 'draft\.w'.*neither 'start' nor a vocabulary token"),
        (lambda t: t.replace('title = "t"', "title = 3"), r"m\.toml: missing field 'title'"),
        (lambda t: 'name = "other"\n' + t, r"m\.toml: field 'name' is 'other'"),
        (lambda t: t.replace("[draft]", "[draft"), r"m\.toml: not valid TOML"),
    ],
)
def test_malformed_files_name_file_and_field(tmp_path, edit, message):
    path = write(tmp_path, edit(GOOD))
    with pytest.raises(ModelError, match=message):
        load_model_file(path)
