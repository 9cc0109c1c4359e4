"""A sampler may state the bias it is checked for (``sampler.tv``): used when the caller gives none, overridden by
``--tv`` (or a power target), said in the report; a value that is not a probability is refused by name."""

import json
from fractions import Fraction

import pytest

from lab.check import CheckInputError, PowerTarget, check_step
from lab.check.power import required_draws
from lab.cli.main import main


def make_step():
    def step(p, q, rng):
        return int(rng.choice(len(p), p=p))

    return step


def test_a_stated_tv_sets_the_draws_and_the_report_says_whose_it_is():
    step = make_step()
    step.tv = 0.2
    report = check_step(step, cases=["bernoulli-residual"])
    (case,) = report.cases
    # bernoulli-residual's target law is p = (1/10, 3/5, 3/10): the draws the power calculation asks for at TV 0.2
    law = {0: Fraction(1, 10), 1: Fraction(3, 5), 2: Fraction(3, 10)}
    assert case.data["draws"] == required_draws(law, PowerTarget(tv=0.2))[0]
    assert case.data["draws"] < required_draws(law, PowerTarget())[0] / 100
    assert report.settings["power_target"]["tv"] == 0.2 and report.settings["tv_stated_by_sampler"]
    assert "the TV is the one the sampler states (.tv), --tv overrides it" in report.text()
    given = check_step(step, cases=["bernoulli-residual"], target=PowerTarget(tv=0.1))
    assert given.settings["power_target"]["tv"] == 0.1 and not given.settings["tv_stated_by_sampler"]


def test_the_command_line_s_tv_overrides_the_stated_one(tmp_path, capsys):
    path = tmp_path / "stated.py"
    path.write_text("import numpy as np\n\ndef step(p, q, rng):\n    return int(rng.choice(len(p), p=p))\n\n"
                    "step.tv = 0.2\n", encoding="utf-8")
    assert main(["check", f"{path}:step", "--cases", "bernoulli-residual", "--json"]) == 0
    stated = json.loads(capsys.readouterr().out)
    assert stated["settings"]["power_target"]["tv"] == 0.2
    assert main(["check", f"{path}:step", "--cases", "bernoulli-residual", "--json", "--tv", "0.1"]) == 0
    given = json.loads(capsys.readouterr().out)
    assert given["settings"]["power_target"]["tv"] == 0.1 and not given["settings"]["tv_stated_by_sampler"]


@pytest.mark.parametrize("value", ["0.2", 2, 0, True, float("nan")])
def test_a_stated_tv_that_is_not_a_probability_is_refused_by_name(value, tmp_path, capsys):
    step = make_step()
    step.tv = value
    with pytest.raises(CheckInputError, match=r"step\.tv = .* is not a number strictly between 0 and 1"):
        check_step(step, cases=["bernoulli-residual"])
    path = tmp_path / "bad.py"
    path.write_text(f"def step(p, q, rng):\n    return 0\n\nstep.tv = {value!r}\n".replace("nan", "float('nan')"),
                    encoding="utf-8")
    assert main(["check", f"{path}:step"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "step.tv" in err[0], err
