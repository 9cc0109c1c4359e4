"""``lab check --budget``: the run planned to fit a whole-run time, the plan said before it starts, the cases the
budget cuts called inconclusive. The plan's arithmetic is checked against figures worked out here by hand."""

import re
import time

import pytest

import tests.check_samplers as samplers
from lab.check import PowerTarget, check_step
from lab.check.api import CheckInputError
from lab.check.budget import BudgetInputError, parse_budget, plan
from lab.check.report import CaseResult
from lab.cli import main


def test_a_budget_reads_as_seconds_minutes_or_hours():
    assert [parse_budget(t) for t in ("90s", "10m", "1.5h", "600", " 2m ")] == [90, 600, 5400, 600, 120]
    for bad in ("ten", "0s", "-5m", "8d", "10 min", "", "1e3"):
        with pytest.raises(BudgetInputError):
            parse_budget(bad)
    with pytest.raises(CheckInputError):
        check_step(samplers.slow, budget="soon")


def test_a_huge_budget_text_is_refused_from_its_length_with_a_short_message(capsys):
    huge = "9" * 1_000_000
    with pytest.raises(BudgetInputError) as refused:
        parse_budget(huge)
    assert "(1,000,000 characters)" in str(refused.value) and len(str(refused.value)) < 120
    code = main(["check", "examples/correct_numpy.py:step", "--budget", huge])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1 and len(err) < 200


def test_the_command_line_refuses_a_bad_budget_in_one_line(capsys):
    code = main(["check", "examples/correct_numpy.py:step", "--budget", "soon"])
    _, err = capsys.readouterr()
    assert code == 2 and "'soon' is not a duration" in err and len(err.strip().splitlines()) == 1


class _Case:
    def __init__(self, name):
        self.name = name

    def law(self):
        return {0: 0.5, 1: 0.5}  # one degree of freedom: 130,249 draws at TV 0.01, power 0.99, false alarm 1e-6


def test_the_plan_gives_cheap_cases_their_full_power_and_shares_the_rest_equally():
    rates = {"fast": 1_000_000.0, "medium": 10_000.0, "slow": 100.0}

    def runner(sampler, case, target, seed, dtype, max_draws, time_limit, *, progress):
        return CaseResult(case.name, "step", "", True, [], data={"rate_per_second": rates[case.name]})

    cases = [_Case(n) for n in rates]
    plans, probed = plan(runner, None, cases, PowerTarget(), 1, "float64", 100.0, 1, None, None)
    needed = 130_249
    by_name = {p.name: p for p in plans}
    assert {p.needed for p in plans} == {needed}
    # capacity (100 s * 0.9 - probe time) on one process; fast needs 0.13 s, medium 13.0 s: both in full
    assert not by_name["fast"].cut and by_name["fast"].draws == needed
    assert not by_name["medium"].cut and by_name["medium"].draws == needed
    # slow gets what is left: 90 - probed - 0.130249 - 13.0249 seconds at 100 draws a second
    left = 90 - probed - needed / 1e6 - needed / 1e4
    assert by_name["slow"].cut and abs(by_name["slow"].draws - int(left * 100)) <= 1


def test_a_slow_sampler_fits_its_budget_says_the_plan_first_and_is_inconclusive(capsys):
    started = time.perf_counter()
    code = main(["check", "tests/check_samplers.py:slow", "--cases", "bernoulli-residual,equal-distributions",
                 "--budget", "6s", "--jobs", "2", "--no-progress"])
    elapsed = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert code == 3
    assert err.startswith("lab check: budget 6 s on 2 process(es)") and "cut by the budget" in err
    assert "the budget (6 s) stopped the case" in out and "INCONCLUSIVE  bernoulli-residual" in out
    assert elapsed < 6 * 2  # the plan's 90 % and the report's own work: well inside twice the budget


def test_a_budget_the_run_fits_in_gives_every_case_the_stated_power():
    from tests.test_check import load_example

    correct = load_example("correct_numpy")
    report = check_step(correct.step, cases=["bernoulli-residual", "partial-zeros"], target=PowerTarget(tv=0.05),
                        budget="5m")
    assert report.passed, report.text()
    plan_rows = report.settings["budget_plan"]
    assert [row["cut_by_budget"] for row in plan_rows] == [False, False]
    assert all(c.data["draws"] == c.data["draws_required"] for c in report.cases)


def test_without_a_budget_the_run_s_time_is_estimated_before_it_starts_and_a_long_one_points_to_the_budget():
    """A slow sampler (the finding: 55 minutes before "inconclusive") is told at once what the defaults take."""
    from lab.check.api import planned_draws
    from lab.check.budget import estimate_text
    from lab.check.cases import step_cases
    from lab.check.step import run_step_case

    cases = step_cases()
    draws = planned_draws(cases, PowerTarget(), None)
    text = estimate_text(run_step_case, samplers.slow, cases, PowerTarget(), 1, "float64", 2, None, 120.0)
    assert text.startswith(f"lab check: {draws:,} draws over {len(cases)} cases (TV >= 0.01 with power 0.99); at ")
    # the sampler sleeps 2 ms a draw, so no machine measures it faster: each case's 130,000 draws or more take over
    # 4 minutes, and a 2-minute limit stops every one of them however loaded the machine is
    assert "; 12 of 12 cases will stop at the time limit (2 min a case)" in text and "--budget" in text, text
    assert estimate_text(run_step_case, samplers.target_sampler, cases[:1], PowerTarget(tv=0.2), 1, "float64", 2,
                         None, 300.0) is None  # a run of a fraction of a second is not announced


def test_the_command_line_prints_the_estimate_on_stderr_before_the_run(capsys):
    code = main(["check", "tests/check_samplers.py:slow", "--cases", "bernoulli-residual", "--tv", "0.05",
                 "--time-limit", "1", "--progress", "--jobs", "1"])
    assert code == 3
    err = capsys.readouterr().err.splitlines()
    assert re.match(r"lab check: 5,630 draws over 1 case \(TV >= 0.05 with power 0.99\); at .* ms a draw \(measured "
                    r"on 10 draws of bernoulli-residual\), about .* on 1 process; 1 of 1 case will stop", err[0]), err
