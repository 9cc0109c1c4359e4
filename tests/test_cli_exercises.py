"""``python -m lab exercises``: same problems as the core (and so the page), answers, one-line errors."""

import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
from exercise_reference import expected_answer, sampler_law

from lab.cli import main
from lab.teaching.exercises import generate_problems

ROOT = Path(__file__).resolve().parent.parent


def run_json(capsys, *args):
    assert main(["exercises", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("level", ["basic", "zeros", "disjoint", "z0"])
def test_json_lists_the_same_problems_with_right_answers(capsys, level):
    data = run_json(capsys, "--seed", "17", "--count", "6", "--level", level)
    assert (data["seed"], data["count"], data["level"]) == (17, 6, level)
    problems = generate_problems(17, 6, level)
    assert len(data["problems"]) == 6
    for item, pr in zip(data["problems"], problems):
        assert item["tokens"] == list(pr.p.tokens)
        assert [F(item["p"][t]) for t in item["tokens"]] == list(pr.p.values)
        assert [F(item["q"][t]) for t in item["tokens"]] == list(pr.q.values)
        assert (item["kind"], item["token"], item["question"]) == (pr.kind, pr.token, pr.prompt)
        expected = expected_answer(pr)
        assert item["answer"] == (expected if isinstance(expected, str) else str(expected))
    for bars in data["predict_the_bars"]:
        p = [F(bars["p"][t]) for t in bars["tokens"]]
        q = [F(bars["q"][t]) for t in bars["tokens"]]
        assert [F(bars["r"][t]) for t in bars["tokens"]] == sampler_law(p, q)[3]


def test_default_level_is_basic_and_text_output(capsys):
    assert main(["exercises", "--seed", "5", "--count", "2"]) == 0
    out = capsys.readouterr().out
    problems = generate_problems(5, 2, "basic")
    assert "seed 5, 2 problems, level basic" in out
    for pr in problems:
        assert f"{pr.number}. {pr.prompt}" in out
        assert f"   answer: {pr.answer_text}" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--seed", "x", "--count", "3"],
        ["--seed", "-4", "--count", "3"],
        ["--seed", "1", "--count", "0"],
        ["--seed", "1", "--count", "31"],
        ["--seed", "1", "--count", "3", "--level", "hard"],
        ["--count", "3"],
        ["--seed", "1"],
    ],
)
def test_bad_input_exit_2_one_line(capsys, args):
    assert main(["exercises", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ")


def test_module_entry_point_without_traceback():
    ok = subprocess.run(
        [sys.executable, "-m", "lab", "exercises", "--seed", "3", "--count", "2", "--level", "z0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0 and "answer: undefined" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "lab", "exercises", "--seed", "3", "--count", "two"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stderr == "error: count: 'two' is not a whole number\n"
