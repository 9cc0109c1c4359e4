"""python -m lab law / simulate: JSON shapes, exact values, and one-line errors with exit code 2."""

import json
import subprocess
import sys
from fractions import Fraction as F

import pytest

from lab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_law_json_shape_and_values(capsys):
    code, out, err = run(capsys, "law", "markov-three", "--block", "2", "--length", "2", "--json")
    assert code == 0 and not err
    data = json.loads(out)
    assert set(data) == {"model", "block", "length", "variant", "stop", "target", "speculative", "tv_distance"}
    assert data["stop"] is None  # markov-three never stops
    assert data["model"] == "markov-three" and data["block"] == 2 and data["length"] == 2
    assert data["variant"] == "correct" and data["tv_distance"] == "0"
    # target by hand: P(x y) = 1/2 * 3/4, P(z x) = 1/6 * 1
    assert data["target"]["x y"] == "3/8" and data["target"]["z x"] == "1/6"
    assert data["speculative"] == data["target"]
    assert sum(F(v) for v in data["target"].values()) == 1


def test_law_variant_distance(capsys):
    # reuse-uniform on markov-three, K = 2, L = 2: after y the rejected y leaves u uniform on [1/2, 1),
    # so the replacement is x or z with 1/2 each instead of r = (3/4, 0, 1/4): distance 1/30 (see test_variants)
    code, out, _ = run(
        capsys, "law", "markov-three", "--block", "2", "--length", "2", "--variant", "reuse-uniform", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["tv_distance"] == "1/30"


def test_law_table(capsys):
    code, out, _ = run(capsys, "law", "bernoulli-residual", "--block", "1", "--length", "1")
    assert code == 0 and "total variation distance = 0" in out and "3/5" in out


def test_simulate_step_json(capsys):
    code, out, _ = run(capsys, "simulate", "bernoulli-residual", "--steps", "100000", "--seed", "4", "--json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "step"
    assert sum(data["counts"].values()) == 100_000
    assert data["accepted"]["A"] + data["corrected"]["A"] == data["counts"]["A"]
    assert data["corrected"]["A"] == 0  # r(A) = 0
    assert data["expected"]["B"] == pytest.approx(60_000)
    assert data["expected_corrected"]["C"] == pytest.approx(10_000)  # N * Z * r(C) = N * 2/5 * 1/4
    assert data["z"] == "2/5" and data["mean_tokens_per_block"] == 1.0
    assert data["chi_square"]["p_value"] > 1e-4  # fixed seed


def test_simulate_block_json(capsys):
    code, out, _ = run(
        capsys,
        "simulate",
        "bernoulli-residual",
        "--steps",
        "5000",
        "--seed",
        "1",
        "--block",
        "3",
        "--length",
        "1",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["mode"] == "block" and data["block"] == 3
    assert data["alpha"] == "3/5" and data["expected_tokens_per_block"] == pytest.approx(2.176)
    assert data["blocks"] == 5000 and abs(data["mean_tokens_per_block"] - 2.176) < 0.1


def test_simulate_block_markov_with_variant(capsys):
    code, out, _ = run(
        capsys,
        "simulate",
        "markov-three",
        "--steps",
        "3000",
        "--seed",
        "2",
        "--block",
        "2",
        "--variant",
        "greedy-draft",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["length"] == 3 and data["expected_tokens_per_block"] is None
    assert data["chi_square"]["p_value"] < 1e-6 and data["chi_square_law"]["p_value"] > 1e-4


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["law", "nope", "--block", "1", "--length", "1"], "unknown model 'nope'"),
        (["law", "markov-three", "--block", "0", "--length", "2"], "block size K must be"),
        (["law", "markov-three", "--block", "1", "--length", "2", "--variant", "oops"], "unknown variant 'oops'"),
        (["simulate", "markov-three", "--steps", "10", "--seed", "1", "--block", "0"], "block size K must be"),
        (["simulate", "nope", "--steps", "10", "--seed", "1"], "unknown model 'nope'"),
        (["simulate", "bernoulli-residual", "--steps", "10", "--seed", "-1"], "seed"),
        (["simulate", "bernoulli-residual", "--steps", "10", "--seed", "1", "--variant", "x"], "unknown variant"),
    ],
)
def test_bad_input_exit_2_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and fragment in err


def test_malformed_model_file_exit_2(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('title = "b"\nkind = "markov"\nvocab = ["x"]\n[target]\nstart = ["1"]\nx = ["1"]\n')
    proc = subprocess.run(
        [sys.executable, "-m", "lab", "law", str(path), "--block", "1", "--length", "1"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == ["error: broken.toml: missing table [draft]"]


def _strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_simulate_json_stays_valid_when_counts_land_where_p_is_zero():
    # partial-zeros has p(B) = 0 (scenarios/partial-zeros.toml); the epsilon floor gives B mass, so some
    # of 20,000 steps land on B: chi-square against p is infinite. The output must still be JSON.
    done = subprocess.run(
        [sys.executable, "-m", "lab", "simulate", "partial-zeros", "--steps", "20000", "--seed", "1"]
        + ["--variant", "epsilon-floor", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Infinity" not in done.stdout
    data = _strict_json(done.stdout)
    landed = data["counts"]["B"]
    assert data["target"]["B"] == "0" and landed > 0
    fit = data["chi_square"]
    assert fit["statistic"] is None and fit["p_value"] == 0 and fit["impossible_counts"] == landed
    assert fit["reason"] == f"{landed} counts in outcomes of probability 0: the statistic is infinite, the p-value 0"
    # against the floored law itself B is possible: a finite statistic and no reason
    assert isinstance(data["chi_square_law"]["statistic"], float) and data["chi_square_law"]["reason"] is None


def test_chi_square_json_by_hand():
    from lab.core.sampling import chi_square_test

    # 3 counts on an outcome of probability 0: infinite, reported as null with the reason
    impossible = chi_square_test({0: 3, 1: 7}, {0: F(0), 1: F(1)}).as_json()
    assert impossible["statistic"] is None and impossible["impossible_counts"] == 3
    assert impossible["reason"].startswith("3 counts in outcomes of probability 0")
    # 50/50 against 1/2, 1/2: statistic 0, p-value 1, nothing to explain
    even = chi_square_test({0: 50, 1: 50}, {0: F(1, 2), 1: F(1, 2)}).as_json()
    assert even["statistic"] == 0 and even["p_value"] == 1 and even["reason"] is None
