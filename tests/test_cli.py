"""``python -m lab``: tables and JSON checked against hand-derived fractions; every bad input exits
with code 2 and exactly one line on stderr, never a traceback."""

import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from lab.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEED_P = "A=1/10,B=3/5,C=3/10"
SEED_Q = "A=1/2,B=3/10,C=1/5"
RESIDUAL_KEYS = ["tokens", "p", "q", "accepted", "alpha", "z", "branch", "residual", "reconstruction"]

# The worked example by hand: min = (1/10, 3/10, 1/5), alpha = 3/5, Z = 2/5, r = (0, 3/4, 1/4),
# min + Z*r = (1/10, 3/10 + 3/10, 1/5 + 1/10) = p.
SEED_EXACT_JSON = {
    "tokens": ["A", "B", "C"],
    "p": {"A": "1/10", "B": "3/5", "C": "3/10"},
    "q": {"A": "1/2", "B": "3/10", "C": "1/5"},
    "accepted": {"A": "1/10", "B": "3/10", "C": "1/5"},
    "alpha": "3/5",
    "z": "2/5",
    "branch": "rejection",
    "residual": {"A": "0", "B": "3/4", "C": "1/4"},
    "reconstruction": {"A": "1/10", "B": "3/5", "C": "3/10"},
}


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args):
    code, out, err = run(capsys, *args, "--json")
    assert code == 0 and err == "", err
    return json.loads(out)


def fraction_value(text: str) -> float:
    numerator, _, denominator = text.partition("/")
    return int(numerator) / int(denominator or 1)


def assert_numbers_match(floating, exact_strings):
    """Every value a JSON number (not a string) within float64 rounding of the hand fraction."""
    if isinstance(exact_strings, dict):
        assert list(floating) == list(exact_strings)
        for key in exact_strings:
            assert_numbers_match(floating[key], exact_strings[key])
    elif exact_strings is None:
        assert floating is None
    else:
        assert isinstance(floating, (int, float)) and not isinstance(floating, bool)
        assert floating == pytest.approx(fraction_value(exact_strings), abs=1e-15)


# --- residual -----------------------------------------------------------------------------------


def test_residual_exact_json(capsys):
    data = run_json(capsys, "residual", "--p", SEED_P, "--q", SEED_Q, "--exact")
    assert data == SEED_EXACT_JSON
    assert list(data) == RESIDUAL_KEYS  # the documented keys, in their order


def test_residual_float_json(capsys):
    data = run_json(capsys, "residual", "--p", SEED_P, "--q", SEED_Q)
    assert list(data)[: len(RESIDUAL_KEYS)] == RESIDUAL_KEYS
    assert data["tokens"] == ["A", "B", "C"] and data["branch"] == "rejection"
    for key in ("p", "q", "accepted", "alpha", "z", "residual", "reconstruction"):
        assert_numbers_match(data[key], SEED_EXACT_JSON[key])
    # the float path also reports 1 - alpha beside z, and no inconsistency here
    assert data["one_minus_alpha"] == pytest.approx(0.4, abs=1e-15)
    assert data["inconsistency"] is None


def test_residual_no_rejection_json(capsys):
    # p = q: alpha = 1, Z = 0, residual null (never 0/0)
    data = run_json(capsys, "residual", "--p", "A=1/2,B=1/2", "--q", "B=1/2,A=1/2", "--exact")
    assert data["alpha"] == "1" and data["z"] == "0"
    assert data["branch"] == "no-rejection" and data["residual"] is None
    assert data["reconstruction"] == {"A": "1/2", "B": "1/2"}
    floating = run_json(capsys, "residual", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2")
    assert floating["residual"] is None and floating["z"] == 0


def test_residual_float_inconsistency_is_reported_in_json(capsys):
    # 0.7 + 0.2 + 0.1 is 0.9999999999999999 in float64 (within the input tolerance): p == q, Z = 0,
    # alpha != 1, so the inconsistency is reported instead of hidden.
    data = run_json(capsys, "residual", "--p", "A=0.7,B=0.2,C=0.1", "--q", "A=0.7,B=0.2,C=0.1")
    assert data["z"] == 0 and data["alpha"] != 1
    assert "alpha" in data["inconsistency"]
    code, out, _ = run(capsys, "residual", "--p", "A=0.7,B=0.2,C=0.1", "--q", "A=0.7,B=0.2,C=0.1")
    assert code == 0
    assert "alpha = 0.9999999999999999   Z = 0.0" in out  # every digit: never shown rounded to 1
    assert "numerical inconsistency: " in out


def test_residual_exact_table(capsys):
    code, out, err = run(capsys, "residual", "--p", SEED_P, "--q", SEED_Q, "--exact")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["token", "p", "q", "min(p,q)", "residual", "r", "Z*r", "min+Z*r"]
    rows = {line.split()[0]: line for line in lines[2:5]}
    assert set(rows) == {"A", "B", "C"}
    # B: p 3/5, q 3/10, min 3/10, r 3/4, Z*r 3/10, min + Z*r 3/5, each with its decimal
    assert rows["B"].split() == ["B", "3/5", "(0.6)", "3/10", "(0.3)", "3/10", "(0.3)", "3/4", "(0.75)"] + [
        "3/10",
        "(0.3)",
        "3/5",
        "(0.6)",
    ]
    assert "alpha = 3/5 (0.6)" in out and "Z = 2/5 (0.4)" in out and "branch: rejection" in out
    assert "min(p,q) + Z*r = p exactly, token by token: yes" in out


def test_residual_float_table_and_no_rejection(capsys):
    code, out, _ = run(capsys, "residual", "--p", SEED_P, "--q", SEED_Q)
    assert code == 0
    row_b = next(line for line in out.splitlines() if line.startswith("B "))
    assert row_b.split() == ["B", "0.6", "0.3", "0.3", "0.75", "0.3", "0.6"]
    assert "arithmetic: float64" in out and "1 - alpha = " in out
    code, out, _ = run(capsys, "residual", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2")
    assert code == 0
    row_a = next(line for line in out.splitlines() if line.startswith("A "))
    assert row_a.split() == ["A", "0.5", "0.5", "0.5", "-", "0", "0.5"]  # no residual on this branch
    assert "Z = 0: no rejection can happen" in out


def test_normalize_is_explicit(capsys):
    # weights p = (1, 3) -> (1/4, 3/4), q = (1, 1) -> (1/2, 1/2): min = (1/4, 1/2), alpha = 3/4,
    # Z = 1/4, r = (0, 1)
    data = run_json(capsys, "residual", "--p", "A=1,B=3", "--q", "A=1,B=1", "--normalize", "--exact")
    assert data["p"] == {"A": "1/4", "B": "3/4"} and data["q"] == {"A": "1/2", "B": "1/2"}
    assert (data["alpha"], data["z"], data["residual"]) == ("3/4", "1/4", {"A": "0", "B": "1"})
    floating = run_json(capsys, "residual", "--p", "A=1,B=3", "--q", "A=1,B=1", "--normalize")
    assert floating["residual"] == {"A": 0.0, "B": 1.0}
    code, out, _ = run(capsys, "residual", "--p", "A=1,B=3", "--q", "A=1,B=1", "--normalize", "--exact")
    assert code == 0 and "divided by their own sum" in out  # said in the table, not done silently
    code, _, err = run(capsys, "residual", "--p", "A=1,B=3", "--q", "A=1,B=1")
    assert code == 2 and "'B'" in err  # never normalised without the option


def test_float_sum_tolerance_versus_exact(capsys):
    # 0.5 + 0.5000000001 is 1 + 1e-10: inside the float path's stated 1e-9, not exactly 1
    args = ("residual", "--p", "A=0.5,B=0.5000000001", "--q", "A=1/2,B=1/2")
    assert run(capsys, *args)[0] == 0
    code, _, err = run(capsys, *args, "--exact")
    assert code == 2 and "not 1" in err


def test_spec_files(capsys, tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"A": "1/10", "B": 0.6, "C": "3/10"}))
    (tmp_path / "q.csv").write_text("token,value\nA,1/2\nB,0.3\nC,1/5\n")
    (tmp_path / "q.toml").write_text('C = "1/5"\nA = 0.5\nB = "3/10"\n')
    for q_file in ("q.csv", "q.toml"):
        data = run_json(capsys, "residual", "--p", str(tmp_path / "p.json"), "--q", str(tmp_path / q_file), "--exact")
        assert data == SEED_EXACT_JSON, q_file


# --- scenario -----------------------------------------------------------------------------------


def test_scenario_list(capsys):
    code, out, err = run(capsys, "scenario", "--list")
    assert code == 0 and err == ""
    names = out.splitlines()
    step_files = set()
    for path in (ROOT / "scenarios").glob("*.toml"):
        if tomllib.loads(path.read_text()).get("kind", "step") == "step":
            step_files.add(path.stem)
    assert set(names) == step_files and len(names) == len(step_files)
    assert names[0] == "bernoulli-residual"


def test_scenario_exact_json(capsys):
    data = run_json(capsys, "scenario", "bernoulli-residual", "--exact")
    assert list(data) == ["name", "title", *RESIDUAL_KEYS]
    assert data["name"] == "bernoulli-residual" and data["title"]
    assert {k: data[k] for k in RESIDUAL_KEYS} == SEED_EXACT_JSON


def test_scenario_float_json(capsys):
    # disjoint-support by hand: alpha 0, Z 1, r = p = (1/2, 1/2, 0, 0)
    data = run_json(capsys, "scenario", "disjoint-support")
    assert data["name"] == "disjoint-support"
    assert data["alpha"] == 0 and data["z"] == 1
    assert data["residual"] == {"A": 0.5, "B": 0.5, "C": 0, "D": 0}


def test_scenario_table(capsys):
    code, out, _ = run(capsys, "scenario", "near-equality", "--exact")
    assert code == 0
    assert out.startswith("near-equality: ")
    # Z = 1/1200000 by hand (see tests/test_scenarios.py), r = (4/5, 1/5, 0)
    assert "Z = 1/1200000" in out
    row_a = next(line for line in out.splitlines() if line.startswith("A "))
    assert "4/5 (0.8)" in row_a


# --- binomial -----------------------------------------------------------------------------------


def test_binomial_exact_json(capsys):
    # n = 1, p = 3/4: P(0) = 1/4, P(1) = 3/4; mean 3/4, variance 3/4 * 1/4 = 3/16; B 3/4, C 1/4
    data = run_json(capsys, "binomial", "--p", "0.75", "--n", "1", "--exact")
    assert data == {
        "n": 1,
        "p": "3/4",
        "pmf": {"0": "1/4", "1": "3/4"},
        "mean": "3/4",
        "variance": "3/16",
        "bernoulli": {"B": "3/4", "C": "1/4"},
    }
    assert list(data)[:3] == ["n", "p", "pmf"]


def test_binomial_float_json(capsys):
    # n = 2, p = 3/4: (1/16, 3/8, 9/16); mean 3/2; sd sqrt(2 * 3/4 * 1/4) = sqrt(3/8)
    data = run_json(capsys, "binomial", "--p", "3/4", "--n", "2")
    assert list(data)[:3] == ["n", "p", "pmf"]
    assert data["n"] == 2 and data["p"] == 0.75
    assert list(data["pmf"]) == ["0", "1", "2"]
    assert [data["pmf"][k] for k in "012"] == pytest.approx([1 / 16, 3 / 8, 9 / 16], abs=1e-15)
    assert data["mean"] == pytest.approx(1.5, abs=1e-15)
    assert data["sd"] == pytest.approx(math.sqrt(3 / 8), rel=1e-15)
    assert "bernoulli" not in data


def test_binomial_tables(capsys):
    code, out, _ = run(capsys, "binomial", "--p", "3/4", "--n", "1", "--exact")
    assert code == 0
    lines = out.splitlines()
    assert lines[2].split() == ["B", "(success)", "3/4", "(0.75)"]
    assert lines[3].split() == ["C", "(failure)", "1/4", "(0.25)"]
    code, out, _ = run(capsys, "binomial", "--p", "1/3", "--n", "3", "--exact")
    # (2/3)^3 = 8/27, 3 (1/3)(2/3)^2 = 4/9, 3 (1/3)^2 (2/3) = 2/9, (1/3)^3 = 1/27; mean 1
    rows = [line.split()[:2] for line in out.splitlines()[2:6]]
    assert rows == [["0", "8/27"], ["1", "4/9"], ["2", "2/9"], ["3", "1/27"]]
    assert "mean np = 1 " in out


# --- bad input: exit 2, one line on stderr, no traceback ----------------------------------------

R = ("residual", "--q", "A=1/2,B=1/2", "--p")
BAD_INPUTS = [
    # (arguments, a fragment the one line must hold)
    ((*R, "A=-1/2,B=3/2"), "'A'"),
    ((*R, "A=nan,B=1"), "'A'"),
    ((*R, "A=1/2,B=NaN"), "'B'"),
    ((*R, "A=inf,B=0"), "'A'"),
    ((*R, "A=1/2,B=-inf"), "'B'"),
    ((*R, "A=abc,B=1/2"), "'A'"),
    ((*R, "A=1/0,B=1"), "'A'"),
    ((*R, "A=1/2,B=1/4"), "not 1"),
    ((*R, "A=0.6,B=0.6"), "not 1"),
    ((*R, "A=3/2,B=0"), "'A'"),
    ((*R, "A=1/2,C=1/2"), "'C' is in p but not in q"),
    ((*R, "A=1/2,A=1/2"), "'A'"),
    ((*R, ""), "empty"),
    ((*R, ","), "empty"),
    ((*R, "A=1/2,B"), "'B'"),
    ((*R, "=1/2,B=1/2"), "empty"),
    ((*R, "A=1e400,B=0"), "'A'"),
    ((*R, "A=1e99999999,B=0"), "'A'"),
    ((*R, "/nonexistent/p.json"), "cannot read"),
    (("residual", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2,C=0"), "'C'"),
    (("residual", "--p", "A=0,B=0", "--q", "A=1/2,B=1/2", "--normalize"), "zero"),
    (("scenario", "no-such-scenario"), "no-such-scenario"),
    (("scenario",), "NAME"),
    (("binomial", "--p", "1.5", "--n", "1"), "lab success p"),
    (("binomial", "--p", "-1/4", "--n", "1"), "lab success p"),  # not taken for an option
    (("binomial", "--p", "-0.5", "--n", "1"), "lab success p"),
    (("binomial", "--p", "1/2", "--n", "-3"), "n = -3"),
    (("binomial", "--p", "abc", "--n", "1"), "lab success p"),
    (("binomial", "--p", "nan", "--n", "1"), "lab success p"),
    (("binomial", "--p", "1/0", "--n", "1"), "lab success p"),
    (("binomial", "--p", "1/2", "--n", "0"), "n = 0"),
    (("binomial", "--p", "1/2", "--n", "27"), "n = 27"),
    (("binomial", "--p", "1/2", "--n", "2.5"), "n = '2.5'"),
    (("binomial", "--p", "1/2", "--n", "many"), "n = 'many'"),
    ((), "required"),
    (("frobnicate",), "invalid choice"),
    (("residual",), "required"),
    (("residual", "--p", "A=1"), "--q"),
    (("residual", "--p", "A=1", "--q", "A=1", "--bogus"), "--bogus"),
    (("binomial", "--p", "1/2"), "--n"),
    (("scenario", "a", "b"), "unrecognized"),
]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("args, fragment", BAD_INPUTS)
def test_bad_input_exits_2_with_one_line(capsys, args, fragment, exact):
    argv = list(args) + (["--exact"] if exact and args and args[0] in ("residual", "binomial") else [])
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("error: ") and "Traceback" not in err
    assert fragment in err


def test_bad_spec_file_contents(capsys, tmp_path):
    (tmp_path / "p.json").write_text("{not json")
    (tmp_path / "p.csv").write_text("A,1/2,3\n")
    (tmp_path / "p.toml").write_text('A = "1/2"\nB = "-1/2"\nC = "1"\n')
    for name, fragment in (("p.json", "not valid json"), ("p.csv", "token,value"), ("p.toml", "'B'")):
        code, out, err = run(capsys, "residual", "--p", str(tmp_path / name), "--q", "A=1")
        assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err, name
        assert name in err or "'B'" in err


# --- the real process ----------------------------------------------------------------------------


def lab(*args):
    return subprocess.run([sys.executable, "-m", "lab", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_python_m_lab_success():
    done = lab("residual", "--p", SEED_P, "--q", SEED_Q, "--exact", "--json")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout) == SEED_EXACT_JSON


@pytest.mark.parametrize(
    "args",
    [
        ("residual", "--p", "A=nan,B=1", "--q", "A=1/2,B=1/2"),
        ("residual", "--p", "A=1/2,B=1/2", "--q", "A=1/2,C=1/2", "--exact"),
        ("scenario", "no-such-scenario"),
        ("binomial", "--p", "3/4", "--n", "30"),
        ("nonsense",),
    ],
)
def test_python_m_lab_bad_input(args):
    done = lab(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_cli_modules_import_each_other_only_at_the_top():
    # no late ``from lab.cli... import`` inside a function (a circle import-graph tools cannot see)
    import ast

    for path in sorted((ROOT / "lab" / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
                assert inner == [], f"{path.name}: import inside {node.name}()"
