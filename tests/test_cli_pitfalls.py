"""`python -m lab numerics` and `python -m lab mistakes`."""

import json
import subprocess
import sys

import pytest

from lab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_numerics_json_table(capsys):
    code, out, err = run(capsys, "numerics", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    cases = data["cases"]
    assert [c["gap"] for c in cases] == [f"1e-{k}" for k in range(6, 17)]
    assert cases[0]["exact_z"] == "1/1000000"
    assert all(c["exact_r"] == ["3/4", "1/4", "0"] for c in cases)
    for c in cases[:2]:  # both dtypes have a residual: float32 is far worse
        assert c["float32_error"]["max_abs"] > c["float64_error"]["max_abs"]
        assert len(c["float64_r"]) == len(c["float32_r"]) == 3
    for c in cases[2:]:  # float32 lost the rejection branch: flagged, no r, no error figure
        assert c["float32_r"] is None and c["float32_error"]["max_abs"] is None
        assert "rejection is lost to rounding" in c["float32_inconsistency"]
        assert c["float64_within_stated_tolerance"] is True
    assert {b["name"] for b in data["branch_cases"]} == {"same-floats", "p-rounded-up", "q-rounded-up"}
    assert data["backend"]["numpy"]


def test_numerics_gaps_and_text(capsys):
    code, out, _ = run(capsys, "numerics", "--gaps", "6,7", "--json")
    assert code == 0 and [c["gap"] for c in json.loads(out)["cases"]] == ["1e-6", "1e-7"]
    code, out, _ = run(capsys, "numerics")
    assert code == 0 and "float32" in out and "numerical inconsistency" in out and "numpy" in out


@pytest.mark.parametrize("bad", ["x", "40", "9-6", ""])
def test_numerics_bad_gaps_exit_2_one_line(capsys, bad):
    code, out, err = run(capsys, "numerics", "--gaps", bad)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_mistakes_json_worked_example(capsys):
    code, out, err = run(capsys, "mistakes", "bernoulli-residual", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["block"], data["length"]) == (1, 1)
    assert data["target"] == {"A": "1/10", "B": "3/5", "C": "3/10"}
    variants = data["variants"]
    # by hand (see tests/test_pitfalls.py): resample-from-p 3/50, epsilon-floor 2/2005, zero-out-rejected 1/30
    assert variants["correct"]["tv_distance"] == "0"
    assert variants["resample-from-p"]["tv_distance"] == "3/50"
    assert variants["epsilon-floor"]["tv_distance"] == "2/2005"
    assert variants["zero-out-rejected"] == {
        "tv_distance": "1/30",
        "tv_decimal": pytest.approx(1 / 30),
        "gains_most": ["C"],  # C: 1/3 - 3/10 = 1/30; A is unchanged and B loses
        "law": {"A": "1/10", "B": "17/30", "C": "1/3"},
    }


def test_mistakes_markov_block(capsys):
    code, out, _ = run(capsys, "mistakes", "markov-three", "--block", "2", "--length", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["variants"]["correct"]["tv_distance"] == "0"
    assert data["variants"]["correct"]["law"] == data["target"]
    assert data["variants"]["keep-testing-after-rejection"]["tv_distance"] != "0"
    assert all(" " in seq for seq in data["target"])  # sequences of two tokens, space-joined


def test_mistakes_text(capsys):
    code, out, _ = run(capsys, "mistakes", "one-hot-draft")
    assert code == 0 and "zero-out-rejected" in out and "TV distance" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["mistakes", "no-such-model"],
        ["mistakes", "markov-three", "--block", "0", "--length", "2"],
        ["mistakes", "markov-three", "--block", "x"],
        ["mistakes", "markov-three", "--length", "99"],
        ["mistakes"],
    ],
)
def test_mistakes_bad_input_exit_2_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_module_entry_point_exit_code():
    proc = subprocess.run([sys.executable, "-m", "lab", "mistakes", "nope"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_mistakes_gains_most_lists_every_tie(capsys):
    # disjoint-support under the epsilon floor: C and D each gain 1/1002 (tests/test_pitfalls.py by hand)
    code, out, _ = run(capsys, "mistakes", "disjoint-support", "--json")
    assert code == 0 and json.loads(out)["variants"]["epsilon-floor"]["gains_most"] == ["C", "D"]
    code, out, _ = run(capsys, "mistakes", "disjoint-support")
    row = next(line for line in out.splitlines() if line.startswith("epsilon-floor"))
    assert row.rstrip().endswith("C, D")
