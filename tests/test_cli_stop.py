"""The command line with models that stop: law, simulate, mistakes and simulate --compare-ordinary."""

import json
import subprocess
import sys
from fractions import Fraction as F

from lab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def strict(text):
    def refuse(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_law_json_on_a_stop_model_by_hand(capsys):
    code, out, _ = run(capsys, "law", "markov-ab-end", "--block", "3", "--length", "2", "--json")
    assert code == 0
    data = strict(out)
    assert data["stop"] == "<end>" and data["tv_distance"] == "0"
    # scenarios/markov-ab-end.toml: p(a|start) = 2/3, p(b|start) = 1/3, p(<end>|a) = 1/2, p(<end>|b) = 1/4.
    # L = 2: a <end> = 1/3, b <end> = 1/12; cut at two tokens: a a = a b = 2/3 * 1/4 = 1/6, b a = 1/6, b b = 1/12.
    assert data["target"] == {
        "a a": "1/6",
        "a b": "1/6",
        "a <end>": "1/3",
        "b a": "1/6",
        "b b": "1/12",
        "b <end>": "1/12",
    }
    assert data["speculative"] == data["target"]
    assert sum(F(v) for v in data["target"].values()) == 1


def test_law_text_states_the_rules(capsys):
    code, out, _ = run(capsys, "law", "markov-sentences-end", "--block", "2", "--length", "5")
    assert code == 0
    assert "each ends with <end> or is cut at L = 5 tokens (<end> counted as one of them)" in out
    assert "the cat sat down <end>" in out
    code, out, _ = run(capsys, "law", "markov-three", "--block", "2", "--length", "2")
    assert "the first L = 2 tokens (this model has no stop token)" in out


def test_help_states_the_length_rules(capsys):
    for command in ("law", "simulate", "mistakes"):
        done = subprocess.run(
            [sys.executable, "-m", "lab", command, "--help"], capture_output=True, text=True, timeout=60
        )
        text = " ".join(done.stdout.split())
        assert "ends with" in text and "cut at L tokens" in text and "stop token counted" in text, command


def test_simulate_block_json_outputs_end_with_the_stop_token_or_have_l_tokens(capsys):
    code, out, _ = run(
        capsys, "simulate", "markov-ab-end", "--steps", "3000", "--seed", "2", "--block", "2", "--length", "4", "--json"
    )
    assert code == 0
    data = strict(out)
    assert data["stop"] == "<end>"
    for seq in data["counts"]:
        words = seq.split(" ")
        assert words[-1] == "<end>" or len(words) == 4
        assert "<end>" not in words[:-1]
    assert data["chi_square"]["p_value"] > 0.001


def test_mistakes_json_on_a_stop_model(capsys):
    code, out, _ = run(capsys, "mistakes", "markov-ab-end", "--json")
    assert code == 0
    data = strict(out)
    assert (data["block"], data["length"], data["stop"]) == (2, 4, "<end>")
    for name in ("draft-past-stop", "bonus-after-stop"):
        entry = data["variants"][name]
        assert F(entry["tv_distance"]) > 0
        assert any("<end>" in seq.split(" ")[:-1] for seq in entry["law"])  # a token after the stop token
    assert data["variants"]["correct"]["tv_distance"] == "0"
    code, out, _ = run(capsys, "mistakes", "markov-ab-end")
    assert "draft-past-stop" in out and "bonus-after-stop" in out
    assert "outputs end with <end> or are cut at L = 4 tokens" in out


def test_compare_ordinary_json(capsys):
    code, out, _ = run(
        capsys, "simulate", "markov-sentences-end", "--steps", "4000", "--seed", "5", "--compare-ordinary", "--json"
    )
    assert code == 0
    data = strict(out)
    assert data["mode"] == "compare-ordinary" and (data["block"], data["length"]) == (3, 4)
    pairs = data["first_outputs"]
    assert len(pairs) == 8 and any(p["ordinary"] != p["speculative"] for p in pairs)
    assert 0 <= data["identical"] < data["steps"] and data["identical_share"] == data["identical"] / data["steps"]
    assert sum(data["ordinary_counts"].values()) == sum(data["speculative_counts"].values()) == 4000
    assert sum(F(v) for v in data["law"].values()) == 1
    assert data["chi_square_ordinary"]["p_value"] > 0.001 and data["chi_square_speculative"]["p_value"] > 0.001
    assert "the law is preserved, the text is not" in data["why"]


def test_compare_ordinary_text_and_errors(capsys):
    code, out, _ = run(capsys, "simulate", "markov-ab-end", "--steps", "500", "--seed", "1", "--compare-ordinary")
    assert code == 0
    assert "identical texts:" in out and "ordinary against the exact law" in out and "same text" in out
    done = subprocess.run(
        [sys.executable, "-m", "lab", "simulate", "markov-ab-end", "--steps", "10", "--seed", "1"]
        + ["--compare-ordinary", "--variant", "greedy-draft"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "drop --variant" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "lab", "simulate", "markov-ab-end", "--steps", "20001", "--seed", "1"]
        + ["--compare-ordinary"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "above the lab's limit of 20,000" in done.stderr
