"""Scenario files: every shipped one loads with the alpha, Z and r worked out by hand; malformed
files fail with a message naming the file and the field."""

import json
import os
import subprocess
import sys
import tomllib
from fractions import Fraction as F
from pathlib import Path

import pytest

from lab.core.residual import residual_exact
from lab.core.scenarios import (
    SCENARIO_DIR,
    Scenario,
    ScenarioError,
    load_scenario,
    load_scenario_file,
    scenario_names,
)

# name: (alpha, Z, r) derived by hand from each file's p and q (r None: the no-rejection branch)
HAND = {
    # p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5): min = (1/10, 3/10, 1/5), alpha = 6/10 = 3/5;
    # excess (0, 3/10, 1/10), Z = 2/5; r = (0, 3/4, 1/4)
    "bernoulli-residual": (F(3, 5), F(2, 5), (0, F(3, 4), F(1, 4))),
    # p = (1/2, 1/4, 1/4), q = (1/4, 1/8, 5/8): min = (1/4, 1/8, 1/4), alpha = 5/8; excess (1/4, 1/8, 0), Z = 3/8;
    # r = (2/3, 1/3, 0)
    "pet-words": (F(5, 8), F(3, 8), (F(2, 3), F(1, 3), 0)),
    # p = (1/2, 1/2, 0, 0), q = (0, 0, 1/4, 3/4): min = 0, alpha = 0; Z = 1; r = p
    "disjoint-support": (0, 1, (F(1, 2), F(1, 2), 0, 0)),
    # p = (2/5, 3/10, 1/5, 1/10), q = (3/5, 2/5, 0, 0): min = (2/5, 3/10, 0, 0), alpha = 7/10;
    # excess (0, 0, 1/5, 1/10), Z = 3/10; r = ((1/5)/(3/10), (1/10)/(3/10)) = (0, 0, 2/3, 1/3)
    "draft-misses-support": (F(7, 10), F(3, 10), (0, 0, F(2, 3), F(1, 3))),
    # in twentieths: p = (4, 3, 3, 2, 2, 2, 2, 2), q = (6, 1, 2, 4, 1, 3, 0, 3)
    # min = (4, 1, 2, 2, 1, 2, 0, 2) = 14/20 = 7/10; excess = (0, 2, 1, 0, 1, 0, 2, 0) = 6/20 = 3/10
    # r = excess / 6 = (0, 1/3, 1/6, 0, 1/6, 0, 1/3, 0)
    "eight-words": (F(7, 10), F(3, 10), (0, F(1, 3), F(1, 6), 0, F(1, 6), 0, F(1, 3), 0)),
    # p = q = (1/2, 1/3, 1/6): alpha = 1, Z = 0, no residual
    "equal-distributions": (1, 0, None),
    # p = (0.333334, 0.3333335, 0.3333325), q = 1/3 each.
    # 0.333334 - 1/3 = (1000002 - 1000000)/3000000 = 1/1500000;
    # 0.3333335 - 1/3 = (10000005 - 10000000)/30000000 = 1/6000000; 0.3333325 < 1/3.
    # Z = 4/6000000 + 1/6000000 = 1/1200000, alpha = 1199999/1200000, r = (4/5, 1/5, 0)
    "near-equality": (F(1_199_999, 1_200_000), F(1, 1_200_000), (F(4, 5), F(1, 5), 0)),
    # p = (1/2, 1/4, 1/4), q = (1, 0, 0): min = (1/2, 0, 0), alpha = 1/2; Z = 1/2; r = (0, 1/2, 1/2)
    "one-hot-draft": (F(1, 2), F(1, 2), (0, F(1, 2), F(1, 2))),
    # p = (1/2, 0, 1/4, 1/4), q = (1/4, 1/4, 1/2, 0): min = (1/4, 0, 1/4, 0), alpha = 1/2;
    # excess (1/4, 0, 0, 1/4), Z = 1/2; r = (1/2, 0, 0, 1/2)
    "partial-zeros": (F(1, 2), F(1, 2), (F(1, 2), 0, 0, F(1, 2))),
}


def step_files() -> list[str]:
    """The one-step scenario files, read independently of the loader."""
    names = []
    for path in sorted(SCENARIO_DIR.glob("*.toml")):
        with path.open("rb") as handle:
            if tomllib.load(handle).get("kind", "step") == "step":
                names.append(path.stem)
    return names


def test_every_shipped_step_file_is_listed_and_derived_by_hand():
    names = scenario_names()
    assert sorted(names) == step_files()
    assert names[0] == "bernoulli-residual"  # the worked example first
    assert set(names) == set(HAND), "add the hand-derived alpha, Z, r of a new scenario to HAND"


def test_the_issue_scenarios_are_shipped():
    names = set(scenario_names())
    required = {
        "bernoulli-residual",
        "equal-distributions",
        "disjoint-support",
        "partial-zeros",
        "near-equality",
        "draft-misses-support",
    }
    assert required <= names
    assert any(len(load_scenario(name).tokens) >= 8 for name in names)


@pytest.mark.parametrize("name", sorted(HAND))
def test_shipped_scenario_by_hand(name):
    alpha, z, r = HAND[name]
    scenario = load_scenario(name)
    assert isinstance(scenario, Scenario)
    assert scenario.name == name and scenario.path == SCENARIO_DIR / f"{name}.toml"
    assert scenario.title and scenario.question and scenario.explanation == scenario.explanation.strip()
    assert scenario.question == scenario.question.strip()
    assert scenario.p.total() == scenario.q.total() == 1
    result = residual_exact(scenario.p, scenario.q)
    assert result.alpha == alpha
    assert result.z == z
    assert result.residual == r
    assert result.reconstruction == scenario.p.values


def test_seed_scenario_values():
    scenario = load_scenario("bernoulli-residual")
    assert scenario.tokens == ("A", "B", "C")
    assert scenario.p.values == (F(1, 10), F(3, 5), F(3, 10))
    assert scenario.q.values == (F(1, 2), F(3, 10), F(1, 5))


def test_load_all_scenarios():
    assert [load_scenario(name).name for name in scenario_names()] == scenario_names()


def test_draft_misses_support_only_the_correction_reaches_c_and_d():
    scenario = load_scenario("draft-misses-support")
    result = residual_exact(scenario.p, scenario.q)
    for token, q_value, p_value, correction in zip(
        scenario.tokens, scenario.q.values, scenario.p.values, result.correction
    ):
        if q_value == 0:
            assert p_value > 0 and correction == p_value, token


# --- unknown names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["no-such-scenario", "../scenarios/bernoulli-residual", "a/b", ""])
def test_unknown_scenario(name):
    with pytest.raises(ScenarioError, match="unknown scenario") as info:
        load_scenario(name)
    assert "bernoulli-residual" in str(info.value)  # the known names are listed


def test_markov_files_are_not_one_step_scenarios(tmp_path):
    (tmp_path / "chain.toml").write_text('kind = "markov"\nname = "chain"\n')
    (tmp_path / "step.toml").write_text(GOOD.replace("NAME", "step"))
    assert scenario_names(directory=tmp_path) == ["step"]
    assert scenario_names(kind="markov", directory=tmp_path) == ["chain"]
    with pytest.raises(ScenarioError, match="chain.toml: field 'kind'"):
        load_scenario_file(tmp_path / "chain.toml")


# --- malformed files ----------------------------------------------------------------------------

GOOD = """name = "NAME"
title = "A title"
note = "A note."
tokens = ["A", "B"]
p = ["1/2", "1/2"]
q = ["1/4", "3/4"]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace("NAME", name))
    return path


def test_a_good_file_in_another_directory(tmp_path):
    write(tmp_path, "mine", GOOD)
    scenario = load_scenario("mine", directory=tmp_path)
    # p = (1/2, 1/2), q = (1/4, 3/4): Z = 1/4, r = (1, 0)
    assert residual_exact(scenario.p, scenario.q).residual == (1, 0)


@pytest.mark.parametrize(
    "label, text, field, fragment",
    [
        ("missing-title", GOOD.replace('title = "A title"\n', ""), "title", "missing"),
        ("missing-q", GOOD.replace('q = ["1/4", "3/4"]\n', ""), "q", "missing"),
        ("title-type", GOOD.replace('title = "A title"', "title = 3"), "title", "must be a str"),
        ("note-type", GOOD.replace('note = "A note."', "note = 3"), "note", "must be a str"),
        ("tokens-type", GOOD.replace('tokens = ["A", "B"]', 'tokens = "AB"'), "tokens", "must be a list"),
        ("numbers", GOOD.replace('p = ["1/2", "1/2"]', "p = [0.5, 0.5]"), "p", "list of strings"),
        ("name-mismatch", GOOD.replace('name = "NAME"', 'name = "other"'), "name", "must match the file name"),
        ("bad-value", GOOD.replace('p = ["1/2", "1/2"]', 'p = ["1/2", "half"]'), "p", "token 'B'"),
        ("negative", GOOD.replace('q = ["1/4", "3/4"]', 'q = ["-1/4", "5/4"]'), "q", "token 'A'"),
        ("bad-sum", GOOD.replace('q = ["1/4", "3/4"]', 'q = ["1/4", "1/4"]'), "q", "sum to 1/2"),
        ("wrong-length", GOOD.replace('p = ["1/2", "1/2"]', 'p = ["1/2", "1/4", "1/4"]'), "p", "3 values for 2"),
        ("empty-tokens", GOOD.replace('tokens = ["A", "B"]', "tokens = []"), "tokens", "empty"),
        ("dup-tokens", GOOD.replace('tokens = ["A", "B"]', 'tokens = ["A", "A"]'), "tokens", "'A'"),
    ],
)
def test_malformed_files_name_file_and_field(tmp_path, label, text, field, fragment):
    path = write(tmp_path, label, text)
    for load in (lambda: load_scenario_file(path), lambda: load_scenario(label, directory=tmp_path)):
        with pytest.raises(ScenarioError) as info:
            load()
        message = str(info.value)
        assert message.startswith(f"{label}.toml: ")
        assert f"'{field}'" in message
        assert fragment in message


def test_the_note_is_optional_also_for_a_file_given_as_a_path(tmp_path):
    path = write(tmp_path, "quick", GOOD.replace('note = "A note."\n', ""))
    assert load_scenario_file(path).explanation == load_scenario_file(path).question == ""
    # the command line reads it as a model path: one step of p = (1/2, 1/2), so the law of L = 1 token is p
    done = subprocess.run(
        [sys.executable, "-m", "lab", "law", str(path), "--block", "1", "--length", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == {"A": "1/2", "B": "1/2"}


def test_invalid_toml_names_the_file(tmp_path):
    path = write(tmp_path, "broken", 'name = "broken"\ntitle = \n')
    with pytest.raises(ScenarioError, match="broken.toml: not valid TOML"):
        load_scenario_file(path)
    with pytest.raises(ScenarioError, match="broken.toml"):
        scenario_names(directory=tmp_path)  # a broken file is reported, not skipped


def test_missing_file():
    with pytest.raises(ScenarioError, match="nowhere.toml: cannot read"):
        load_scenario_file("/nonexistent/nowhere.toml")


def test_added_and_edited_files_show_at_once_while_parsing_is_cached(tmp_path):
    """Listing stats the files on every call; a file is parsed again only when its modification time changes."""
    step = tmp_path / "step.toml"
    step.write_text(GOOD.replace("NAME", "step"))
    assert scenario_names(directory=tmp_path) == ["step"]
    (tmp_path / "added.toml").write_text(GOOD.replace("NAME", "added"))
    assert scenario_names(directory=tmp_path) == ["added", "step"]  # a new file: listed at once
    mtime = step.stat().st_mtime_ns
    step.write_text('kind = "markov"\nname = "step"\n')  # now a Markov model file
    os.utime(step, ns=(mtime + 10**9, mtime + 10**9))  # a later version (file systems tick coarsely)
    assert scenario_names(directory=tmp_path) == ["added"]
    assert scenario_names(kind="markov", directory=tmp_path) == ["step"]
    (tmp_path / "added.toml").unlink()
    assert scenario_names(directory=tmp_path) == []


# --- predict, then reveal: the question side states no answer -----------------------------------


@pytest.mark.parametrize("name", sorted(HAND))
def test_no_shipped_title_or_question_states_the_answer(name):
    alpha, z, r = HAND[name]
    scenario = load_scenario(name)
    shown = set(scenario.p.values) | set(scenario.q.values)
    for text in (scenario.title, scenario.question):
        for word in ("Z =", "alpha =", "α =", "r =", "Z=", "r(", "Bernoulli", "success p"):
            assert word not in text, (name, word)
        for value in {alpha, z, *(r or ())} - shown - {0, 1}:
            assert f"{value.numerator}/{value.denominator}" not in text and f"{float(value):g}" not in text
    assert scenario.explanation  # the answer is told after the reveal


@pytest.mark.parametrize(
    "field, text, stated",
    [
        ("question", "Here Z = 2/5.", "Z = 2"),
        ("question", "alpha = 0 here", "alpha = 0"),
        ("question", "so r = (0, 3/4, 1/4)", "r = ("),
        ("question", "r(B) = 3/4", "r(B) = 3"),
        ("title", "A title (Z = 1/4)", "Z = 1"),
    ],
)
def test_a_question_or_title_that_states_the_answer_is_refused(tmp_path, field, text, stated):
    if field == "title":
        body = GOOD.replace('title = "A title"', f'title = "{text}"')
    else:
        body = GOOD.replace('note = "A note."', f'question = "{text}"\nexplanation = "A note."')
    path = write(tmp_path, "leaky", body)
    with pytest.raises(ScenarioError, match=f"leaky.toml: field '{field}' states the answer") as info:
        load_scenario_file(path)
    assert repr(stated) in str(info.value)


def test_a_value_only_the_answer_has_is_refused_in_the_question(tmp_path):
    # p = (1/2, 1/2), q = (1/10, 9/10): excess (2/5, 0), Z = 2/5, alpha = 3/5, r = (1, 0)
    body = GOOD.replace('q = ["1/4", "3/4"]', 'q = ["1/10", "9/10"]')
    path = write(tmp_path, "value", body.replace('note = "A note."', 'question = "Two fifths, 2/5, are rejected."'))
    with pytest.raises(ScenarioError, match="field 'question' states the answer \\('2/5'\\)"):
        load_scenario_file(path)
    ok = write(tmp_path, "fine", body.replace('note = "A note."', 'question = "q(A) is 1/10."'))
    assert load_scenario_file(ok).question == "q(A) is 1/10."
    same = write(tmp_path, "same", GOOD.replace('note = "A note."', 'question = "q(A) is 1/4."'))
    assert load_scenario_file(same).question == "q(A) is 1/4."  # Z = 1/4 too, but 1/4 is on screen as q(A)


def test_note_is_the_older_name_of_the_explanation(tmp_path):
    assert load_scenario_file(write(tmp_path, "old", GOOD)).explanation == "A note."
    both = write(tmp_path, "both", GOOD.replace('note = "A note."', 'note = "A note."\nexplanation = "B."'))
    with pytest.raises(ScenarioError, match="both.toml: fields 'note' and 'explanation'"):
        load_scenario_file(both)
