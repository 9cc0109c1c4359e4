"""``lab check``: three verdicts, the floor named and sized, boundary uniforms, errors that help.

Expectations are derived here by hand: the floored law of bernoulli-residual in closed form, the
draws a bias needs from scipy's noncentral chi-square directly.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize, stats

import tests.check_samplers as samplers
from lab.check import PowerTarget, check_step
from lab.cli import main

COARSE = PowerTarget(tv=0.05)


# --- three verdicts ------------------------------------------------------------------------------


def test_a_correct_but_slow_sampler_under_a_short_limit_is_inconclusive_with_its_exit_status(capsys):
    report = check_step(samplers.slow, cases=["bernoulli-residual", "equal-distributions"], time_limit=0.3)
    assert [c.verdict for c in report.cases] == ["inconclusive", "inconclusive"]  # the limit is per case
    assert report.verdict == "inconclusive" and report.exit_status == 3 and not report.passed
    case = report.cases[0]
    assert 0 < case.data["draws"] < case.data["draws_required"]
    # how long full power takes at the rate this case measured: draws required / (draws / seconds)
    rate = case.data["draws"] / case.data["seconds"]
    assert math.isclose(case.data["seconds_for_full_power"], case.data["draws_required"] / rate, rel_tol=1e-2)
    assert any("time limit" in r and "take about" in r for r in case.reasons), case.reasons
    code = main(["check", "tests/check_samplers.py:slow", "--cases", "bernoulli-residual", "--time-limit", "0.3",
                 "--jobs", "1", "--no-progress"])
    out, _ = capsys.readouterr()
    assert code == 3
    assert "INCONCLUSIVE  bernoulli-residual" in out and "FAIL" not in out and "exit status 3" in out


def test_a_fail_found_in_counts_cut_short_is_still_a_fail():
    # a token of probability 0 drawn before the limit: the verdict is certain, whatever the clock
    report = check_step(samplers.floored(1e-3, np.float64), cases=["disjoint-support"], max_draws=3000)
    (case,) = report.cases
    assert case.verdict == "fail" and case.data["certain"]
    assert "power" not in case.summary_line()  # no draw count changes a certain fail


def test_progress_lines_go_to_stderr_when_it_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr("lab.check.progress.LINE_EVERY", 0.05)
    monkeypatch.setattr("lab.check.watch.CLOCK_EVERY", 4)  # look at the clock every 4 draws (8 ms)
    code = main(["check", "tests/check_samplers.py:slow", "--cases", "bernoulli-residual", "--time-limit", "0.6",
                 "--jobs", "1"])
    _, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 3 and len(lines) >= 3, err  # at least two lines while drawing, one when finished
    assert lines[-1].endswith(", finished")
    assert all(line.startswith("lab check: ") for line in lines) and "case bernoulli-residual" in lines[1]
    # first the estimate: 140,750 draws at about 2 ms take minutes, and the 0.6 s limit stops the case first
    assert "140,750 draws over 1 case" in lines[0] and "1 of 1 case will stop at the time limit" in lines[0]


# --- the floor, named and sized --------------------------------------------------------------------


def draws_to_show(chi2: float, df: int, target: PowerTarget) -> float:
    critical = stats.chi2.isf(target.false_alarm, df)
    lam = optimize.brentq(lambda x: stats.ncx2.sf(critical, df, x) - target.power, 1e-6, 1e7)
    return lam / chi2


@pytest.mark.parametrize("floor", [float(np.finfo(np.float32).tiny), 1e-3])
def test_a_floor_is_named_as_a_floor_with_its_exact_bias(floor):
    # bernoulli-residual: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5): excess (0, 3/10, 1/10), Z = 2/5.
    # Floored, r_f = (f, 3/10, 1/10) / (Z + f): the output law gains Z f / (Z + f) on A and loses
    # (3/10) f / (Z + f) on B and (1/10) f / (Z + f) on C; TV = Z f / (Z + f).
    sampler = samplers.floored(floor, np.float64)
    (case,) = check_step(sampler, cases=["bernoulli-residual"], target=COARSE).cases
    assert case.verdict == "fail"
    found = case.data["epsilon_floor"]
    f = Fraction(floor)
    assert math.isclose(found["floor"], floor, rel_tol=1e-12)
    z = Fraction(2, 5)
    assert math.isclose(found["bias_tv"], float(z * f / (z + f)), rel_tol=1e-9)
    gain = [z * f / (z + f), -Fraction(3, 10) * f / (z + f), -Fraction(1, 10) * f / (z + f)]
    chi2 = float(sum(d * d / p for d, p in zip(gain, (Fraction(1, 10), Fraction(3, 5), Fraction(3, 10)))))
    assert math.isclose(found["draws_to_show_it"], draws_to_show(chi2, 2, COARSE), rel_tol=1e-4)
    assert case.data["residual_matches"] == ["epsilon-floor"]
    assert any("an epsilon floor of" in r and "exact, from the lab's core" in r for r in case.reasons)
    if floor < 1e-30:
        assert any("finfo(float32).tiny" in r for r in case.reasons)


def test_a_float32_floor_on_every_token_is_named_in_the_sweep_and_forming_r_at_z_0_is_a_note():
    report = check_step(samplers.tiny_floor, cases=["residual-float64"])
    (sweep,) = report.cases
    assert not sweep.passed
    assert any("epsilon floor of 1.18e-38" in r for r in sweep.reasons), sweep.reasons
    assert not any("Z = 0" in r for r in sweep.reasons)  # formed but never used at Z = 0: not a failure
    assert any("formed although Z = 0" in n for n in sweep.notes), sweep.notes


def test_a_floor_reaching_tokens_of_probability_0_is_sized_by_one_draw_there():
    # partial-zeros: p = (1/2, 0, 1/4, 1/4), q = (1/4, 1/4, 1/2, 0): excess (1/4, 0, 0, 1/4), Z = 1/2.
    # Floored at f, B gets Z f / (Z + 2f) (C the same); one draw on B fails: N = log(0.01) / log(1 - mass).
    (case,) = check_step(samplers.floored(1e-3, np.float64), cases=["partial-zeros"], target=COARSE).cases
    f, z = Fraction(1, 1000), Fraction(1, 2)
    mass = float(z * f / (z + 2 * f))
    found = case.data["epsilon_floor"]
    assert math.isclose(found["mass_on_tokens_of_probability_0"], mass, rel_tol=1e-9)
    assert math.isclose(found["draws_to_show_it"], math.log(0.01) / math.log1p(-mass), rel_tol=1e-9)


# --- boundary uniforms -----------------------------------------------------------------------------


def test_boundary_uniforms_catch_keeping_a_token_of_probability_0_on_u_le_p_over_q():
    report = check_step(samplers.keeps_on_less_or_equal, target=COARSE,
                        cases=["disjoint-support", "processed-target", "bernoulli-residual"])
    disjoint, processed, other = report.cases
    # disjoint-support: q's first token C has p = 0; at u = 0 the draft is C and 0 <= 0/q keeps it
    assert disjoint.verdict == "fail" and disjoint.data["certain"]
    (reason,) = [r for r in disjoint.reasons if r.startswith("boundary uniforms")]
    assert "C (q = 0.25)" in reason and "u <= p/q" in reason and "u < p/q" in reason
    assert processed.verdict == "fail"  # at u just below 1 the draft is t31 (p = 0), then u = 0 keeps it
    assert other.passed  # no token of probability 0 there: the same sampler is right
    assert disjoint.data["test"]["p_value"] > 1e-6  # no draw count shows it: the counts pass


def test_the_correct_sampler_passes_the_boundary_uniforms():
    from tests.test_check import load_example

    correct = load_example("correct_numpy")
    (case,) = check_step(correct.step, cases=["disjoint-support"], target=COARSE).cases
    assert case.passed and case.data["boundary_uniforms"]["applied"]
    assert {row["token"] for row in case.data["boundary_uniforms"]["calls"]} <= {"A", "B"}


# --- errors that help --------------------------------------------------------------------------------


def test_an_exception_names_the_samplers_own_line_and_traceback_prints_the_whole(capsys):
    (case, _) = check_step(samplers.raises_at_zero, cases=["equal-distributions", "bernoulli-residual"],
                           target=COARSE).cases
    place = case.data["numerics"]["exception_place"]
    assert place.startswith("at tests/check_samplers.py:") and "in raises_at_zero: scale = 1.0 / z" in place
    assert "power" not in case.summary_line()
    code = main(["check", "tests/check_samplers.py:raises_at_zero", "--cases", "equal-distributions", "--jobs", "1",
                 "--traceback"])
    out, _ = capsys.readouterr()
    assert code == 1 and "Traceback (most recent call last)" in out and "ZeroDivisionError" in out


# --- temperature, top-k, top-p ------------------------------------------------------------------------


def test_the_processed_case_hands_raw_values_and_the_processing_and_tests_the_processed_law():
    from lab.check.processing import processed_case

    case = processed_case()
    # draft: raw (5, 6, 4, 3, 1, 1)/20, squared (25, 36, 16, 9, 1, 1)/88, top-3 (25, 36, 16)/77, top-p 0.75
    # drops 16/77 (<= 1/4): (25/61, 36/61, 0, 0, 0, 0); target (64/89, 25/89, 0, 0, 0, 0) by the same steps
    assert case.q == (Fraction(25, 61), Fraction(36, 61), 0, 0, 0, 0)
    assert case.p == (Fraction(64, 89), Fraction(25, 89), 0, 0, 0, 0)
    seen = []

    def processed(p, q, rng, processing):  # numpy: squares (T = 1/2) and keeps the two tokens left by hand
        seen.append((tuple(p), processing))
        w_p = np.where(np.arange(6) < 2, p**2, 0)
        w_q = np.where(np.arange(6) < 2, q**2, 0)
        return correct_step(w_p / w_p.sum(), w_q / w_q.sum(), rng)

    def correct_step(p, q, rng):
        x = samplers.draw(q, rng.random())
        if rng.random() * q[x] < p[x]:
            return x
        excess = np.maximum(p - q, 0)
        return samplers.draw(excess / excess.sum(), rng.random())

    processed.processing = True
    (result,) = check_step(processed, cases=[case.name], target=COARSE).cases
    assert result.passed, result.reasons
    assert seen[0] == ((0.4, 0.25, 0.15, 0.1, 0.05, 0.05), {"temperature": 0.5, "top_k": 3, "top_p": 0.75})


def test_a_floor_too_small_for_any_draw_count_still_gives_strict_json():
    import json

    floor = float(np.finfo(np.float64).tiny)  # the draws to show it overflow a float
    report = check_step(samplers.floored(floor, np.float64), cases=["partial-zeros"], target=COARSE)
    found = json.loads(report.json_text())["cases"][0]["epsilon_floor"]
    assert found["floor"] == floor and found["draws_to_show_it"] is None
    assert any("more than 1e308 draws would show" in r for r in report.cases[0].reasons)


def test_an_inconclusive_case_says_which_bias_its_draws_do_rule_out():
    """A case cut short reports the smallest TV its draws detect with the stated power (N = lambda / (4 TV^2)
    solved for TV, lambda from the noncentral chi-square at the case's degrees of freedom), not only its power at
    the target TV."""
    from lab.check.power import ruled_out_tv

    target = PowerTarget()
    report = check_step(samplers.slow, cases=["bernoulli-residual"], time_limit=0.3)
    (case,) = report.cases
    df, n = case.data["degrees_of_freedom"], case.data["draws"]
    critical = stats.chi2.isf(target.false_alarm, df)  # the noncentrality at power 0.99, found apart from power.py
    lam = optimize.brentq(lambda x: stats.ncx2.sf(critical, df, x) - target.power, 1e-6, 1e7)
    tv = math.sqrt(lam / (4 * n))
    assert math.isclose(case.data["tv_ruled_out"], tv, rel_tol=1e-4)
    assert any(f"rule out a bias of TV >= {tv:.3g} (power 0.99)" in r for r in case.reasons), case.reasons
    assert f"rules out TV >= {tv:.3g}" in case.summary_line()
    assert ruled_out_tv(0, 100, target) == pytest.approx(1 - 0.01 ** (1 / 100))  # one outcome: (1 - TV)^N = 0.01
    assert ruled_out_tv(5, 1, target) is None  # one draw rules out nothing below TV 1
