"""The command line keeps the pages' bounds by default (exit 2, one line naming the limit) and goes
beyond them only with --allow-large."""

import json
from fractions import Fraction as F

import pytest

from lab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (
            ("law", "eight-words", "--block", "8", "--length", "5"),
            "32,768 sequences, too many for an exact law (limit 4,096,",
        ),
        (("law", "markov-three", "--block", "9", "--length", "2"), "K = 9 is above the lab's limit of 8"),
        (("law", "markov-three", "--block", "2", "--length", "9"), "L = 9 is above the lab's limit of 8"),
        (("mistakes", "eight-words", "--block", "1", "--length", "5"), "limit 4,096"),
        (("mistakes", "markov-three", "--block", "9", "--length", "2"), "limit of 8"),
        (("simulate", "bernoulli-residual", "--steps", "1000001", "--seed", "1"), "limit of 1,000,000 single steps"),
        (
            ("simulate", "markov-three", "--steps", "20001", "--seed", "1", "--block", "2"),
            "20,001 simulated sequences is above the lab's limit of 20,000",
        ),
    ],
)
def test_beyond_the_bounds_exits_2_with_one_line_naming_the_limit(capsys, argv, named):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert named in err and "--allow-large" in err and "Traceback" not in err


def test_allow_large_goes_beyond_k_and_l(capsys):
    # markov-three's target by hand: P(x y) = 1/2 * 3/4 = 3/8, P(z x) = 1/6 * 1 (z is always followed by x)
    code, out, err = run(capsys, "law", "markov-three", "--block", "9", "--length", "2", "--allow-large", "--json")
    assert code == 0 and not err
    data = json.loads(out)
    assert data["block"] == 9 and data["tv_distance"] == "0"
    assert data["speculative"]["x y"] == "3/8" and data["speculative"]["z x"] == "1/6"
    code, out, _ = run(capsys, "law", "markov-three", "--block", "2", "--length", "9", "--allow-large", "--json")
    data = json.loads(out)
    assert code == 0 and data["tv_distance"] == "0" and sum(F(v) for v in data["speculative"].values()) == 1
    # every sequence of 9 tokens: 2 choices after x (y, z), 3 after y, 1 after z -- never x x or z y/z
    assert all("x x" not in k and "z y" not in k and "z z" not in k for k in data["speculative"])


def test_allow_large_goes_beyond_the_outcome_limit_for_mistakes(capsys):
    # eight-words, K = 1, L = 5: 8^5 sequences for the variants that reach everything (epsilon floor)
    code, out, err = run(capsys, "mistakes", "eight-words", "--block", "1", "--length", "5", "--allow-large", "--json")
    assert code == 0 and not err
    data = json.loads(out)
    assert data["variants"]["correct"]["tv_distance"] == "0"
    assert len(data["variants"]["epsilon-floor"]["law"]) == 8**5
    assert sum(F(v) for v in data["variants"]["epsilon-floor"]["law"].values()) == 1


def test_allow_large_steps_and_sequences(capsys):
    code, out, _ = run(
        capsys, "simulate", "equal-distributions", "--steps", "1000001", "--seed", "3", "--allow-large", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["steps"] == 1_000_001
    assert data["corrected_share"] == 0  # p = q: no step is ever rejected
    code, out, _ = run(
        capsys,
        "simulate",
        "disjoint-support",
        "--steps",
        "20001",
        "--seed",
        "3",
        "--block",
        "3",
        "--length",
        "1",
        "--allow-large",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and sum(data["counts"].values()) == 20_001
    assert data["mean_tokens_per_block"] == 1.0  # disjoint supports: every first draft is rejected


def test_within_the_bounds_needs_no_flag(capsys):
    code, out, err = run(capsys, "mistakes", "eight-words", "--block", "8", "--length", "4", "--json")
    assert code == 0 and not err
    assert len(json.loads(out)["variants"]["epsilon-floor"]["law"]) == 8**4
