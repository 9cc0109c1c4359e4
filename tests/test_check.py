"""``lab.check`` / ``python -m lab check``: the specification's test protocol run on a user's sampler.

Expectations come from outside the check: which cases each shipped wrong example must fail is computed
from the core's exact laws of the named mistakes (TV from the target at least the stated alternative,
or mass on a token the target gives 0), the power figures from scipy's noncentral chi-square directly.
The fast runs use a coarser alternative (TV 0.05, so about 1/25 of the draws); the default settings
run on every example in the slow-marked test.
"""

import importlib.util
import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import tests.check_samplers as samplers
from lab.check import PowerTarget, assert_sampler_passes, check_block, check_step, required_draws
from lab.check.cases import block_cases, step_cases
from lab.check.step import law_verdict
from lab.cli import main
from lab.core.distance import total_variation
from lab.core.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
COARSE = PowerTarget(tv=0.05)  # ~1/25 of the default draws: fast, still decisive for these mistakes


def load_example(name):
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(EXAMPLES))


def must_fail(case, variant: str, tv: float) -> bool:
    """From the exact laws: the variant's law is at TV >= tv from the target, or it puts mass where the
    target has none (one draw there fails the case)."""
    law = case.variant_laws()[variant]
    target = case.law()
    law = law if isinstance(law, dict) else dict(enumerate(law))
    leaks = any(v and not target.get(k) for k, v in law.items())
    return leaks or total_variation(target, law) >= Fraction(tv)


def residual_differs(case, variant: str) -> bool:
    """The variant's replacement law differs from the residual r after some token the draft proposes."""
    rule = VARIANTS[variant]
    return any(
        rule.inverse_cdf_law(case.p, case.q, x) != case.residual
        for x in range(len(case.p))
        if case.q[x] and case.p[x] < case.q[x]
    )


def strict_json(text: str):
    def refuse(constant):
        raise ValueError(f"non-strict JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


# --- power ------------------------------------------------------------------------------------------


def test_draws_give_the_stated_power_by_scipy_directly():
    law = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    n, df = required_draws(law, PowerTarget())
    assert df == 1
    critical = stats.chi2.isf(1e-6, 1)
    # power at N and N - 1 draws, computed here from the noncentral chi-square with lambda = 4 N TV^2
    assert stats.ncx2.sf(critical, 1, 4 * n * 0.01**2) >= 0.99 > stats.ncx2.sf(critical, 1, 4 * (n - 2) * 0.01**2)
    assert 120_000 < n < 140_000


def test_a_single_outcome_law_needs_one_draw_off_it():
    n, df = required_draws({0: Fraction(1)}, PowerTarget())
    assert df == 0
    assert (1 - 0.01) ** n <= 0.01 < (1 - 0.01) ** (n - 1)  # log(0.01) / log(0.99) = 458.2


def test_chi_square_divergence_is_at_least_four_tv_squared():
    # the bound the draws rest on, on random laws and alternatives; equality on the half split
    rng = np.random.default_rng(5)
    for _ in range(200):
        p = rng.dirichlet(np.ones(6))
        a = rng.dirichlet(np.ones(6))
        tv = 0.5 * np.abs(a - p).sum()
        assert ((a - p) ** 2 / p).sum() >= 4 * tv**2 * (1 - 1e-12)
    p = np.array([0.5, 1 / 3, 1 / 6])
    a = np.array([0.51, (1 / 3) * 0.98, (1 / 6) * 0.98])
    assert math.isclose(((a - p) ** 2 / p).sum(), 4 * 0.01**2)


def test_a_planted_tv_001_bias_is_caught_in_99_of_100_seeded_runs():
    # the check's own decision rule on multinomial counts of the worst-case alternative at TV 0.01
    law = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    target = PowerTarget()
    n, _ = required_draws(law, target)
    biased = [0.51, (1 / 3) * 0.98, (1 / 6) * 0.98]
    exact = [1 / 2, 1 / 3, 1 / 6]
    caught = false_alarms = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        counts = dict(enumerate(rng.multinomial(n, biased).tolist()))
        caught += bool(law_verdict(counts, law, str, target)[1])
        counts = dict(enumerate(rng.multinomial(n, exact).tolist()))
        false_alarms += bool(law_verdict(counts, law, str, target)[1])
    assert caught >= 99
    assert false_alarms == 0


@pytest.mark.slow
def test_a_planted_bias_through_check_step_is_caught_in_99_of_100_runs():
    biased = samplers.make_biased(0.01)
    caught = 0
    for seed in range(100):
        report = check_step(biased, cases=["equal-distributions"], seed=seed)
        caught += not report.passed
    assert caught >= 99


# --- the shipped examples ------------------------------------------------------------------------


def test_the_correct_example_passes_every_step_case():
    correct = load_example("correct_numpy")
    report = check_step(correct.step, target=COARSE)
    names = [c.name for c in report.cases]
    assert names == [c.name for c in step_cases()] + ["residual-float64", "residual-float32"]
    assert report.passed, report.text()
    for case in report.cases:
        if case.kind == "step":
            assert case.data["draws"] == case.data["draws_required"] == required_draws(case_law(case), COARSE)[0]
            assert case.data["power"] >= 0.99


def case_law(result):
    return next(c for c in step_cases() if c.name == result.name).law()


def test_the_correct_block_example_passes_every_model():
    correct = load_example("correct_numpy")
    report = check_block(correct.block, target=COARSE)
    assert [c.name for c in report.cases] == [c.name for c in block_cases()]
    assert report.passed, report.text()


@pytest.mark.parametrize(
    ("example", "variant", "tv"),
    # the floor shows through draws on tokens of probability 0 (a few per thousand draws): TV 0.05's
    # 5,600 draws a case; the candidate sets are off by TV >= 0.1 where they differ: 1/100 of the draws
    [("epsilon_floor", "epsilon-floor", 0.05), ("candidates_only", "candidates-only", 0.1)],
)
def test_each_wrong_step_example_fails_where_its_law_differs_and_is_named(example, variant, tv):
    module = load_example(example)
    report = check_step(module.step, target=PowerTarget(tv=tv))
    by_name = {c.name: c for c in report.cases}
    for case in step_cases():
        result = by_name[case.name]
        if must_fail(case, variant, tv):
            assert not result.passed, case.name
            fit = result.data["best_variant"]
            assert variant == fit["variant"] or variant in fit["same_law_on_this_case"], (case.name, fit)
            assert fit["bias_tv"] == str(total_variation(case.law(), dict(enumerate(case.variant_laws()[variant]))))
        if case.z > 0 and residual_differs(case, variant) and result.data["residual_checks"]["exposed"]:
            # every residual it returned is checked, and read as the named mistake's
            assert variant in result.data.get("residual_matches", []), case.name
        if case.variant_laws()[variant] == case.p:  # the mistake cannot show on this case
            assert result.passed or result.data.get("residual_matches"), (case.name, result.reasons)
    assert not report.passed


def test_the_wrong_block_example_fails_the_models_where_its_law_differs_and_is_named():
    module = load_example("keep_testing")
    coarse = PowerTarget(tv=0.05)
    cases = [c for c in block_cases(3, 3) if must_fail(c, "keep-testing-after-rejection", coarse.tv)]
    assert len(cases) >= 3  # TV 0.0575 to 0.126 on the models without a stop token at K = L = 3
    report = check_block(module.block, block_size=3, length=3, target=coarse, cases=[c.name for c in cases])
    for case, result in zip(cases, report.cases):
        assert result.name == case.name and not result.passed, case.name
        fit = result.data["best_variant"]
        assert fit["variant"] == "keep-testing-after-rejection" and fit["fits"], fit


def test_the_stop_token_models_are_cases_and_the_stop_token_is_served():
    cases = {c.name: c for c in block_cases()}
    assert {"markov-ab-end-K2-L3", "markov-sentences-end-K2-L3"} <= set(cases)
    seen = []

    def spy(target, draft, prefix, k, rng):
        seen.append((target.stop, draft.stop))
        return [2]  # <end> at once: an output the target never produces at the first position

    (case,) = check_block(spy, cases=["markov-ab-end-K2-L3"], target=COARSE).cases
    assert seen[0] == (2, 2)  # vocab a, b, <end>
    assert not case.passed and any("drew outcomes the target gives probability 0: <end> x" in r for r in case.reasons)
    assert case.data["stop_token"] == "<end>"


def test_a_block_sampler_that_ignores_the_stop_token_fails_only_the_models_that_stop():
    correct = load_example("correct_numpy")

    def hidden(fn):
        return lambda prefix: fn(prefix)  # the same rows, without the .stop attribute

    def ignores_stop(target, draft, prefix, k, rng):
        return correct.block(hidden(target), hidden(draft), prefix, k, rng)

    report = check_block(ignores_stop, target=PowerTarget(tv=0.1))
    for case in report.cases:
        stops = case.data["stop_token"] is not None
        assert case.passed != stops, (case.name, case.reasons)
        if stops:  # tokens after <end> in one output: probability 0 under the target
            assert any("probability 0" in r for r in case.reasons)


# --- numerics: 0/0, NaN, exceptions, bad outputs ---------------------------------------------------


def test_a_0_0_at_z_0_is_reported_by_name_although_the_law_is_right():
    report = check_step(samplers.nan_at_zero, cases=["equal-distributions", "bernoulli-residual"], target=COARSE)
    zero, other = report.cases
    assert not zero.passed and other.passed
    assert zero.data["test"]["p_value"] >= 1e-6  # the law itself is right
    assert any("invalid-value" in r and "Z = 0" in r for r in zero.reasons), zero.reasons
    assert zero.data["numerics"]["invalid_value_events"] == zero.data["draws"]  # once a call
    assert zero.data["numerics"]["exception"] is None


def test_a_nan_in_a_returned_residual_is_reported_even_when_numpy_is_silenced():
    report = check_step(samplers.nan_residual_returned, cases=["equal-distributions"], target=COARSE)
    (case,) = report.cases
    assert case.data["numerics"]["invalid_value_events"] == 0  # the sampler silenced numpy
    assert any("NaN" in r for r in case.reasons), case.reasons


def test_an_exception_is_reported_by_name_not_as_a_traceback(capsys):
    report = check_step(samplers.raises_at_zero, cases=["equal-distributions", "bernoulli-residual"], target=COARSE)
    zero, other = report.cases
    assert zero.reasons == [
        "the sampler raised ZeroDivisionError: float division by zero on a case with Z = 0 at draw 0"
    ]
    assert zero.data["test"] is None and zero.data["draws"] == 0
    assert other.passed
    code = main(["check", "tests/check_samplers.py:raises_at_zero", "--cases", "equal-distributions", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""
    assert "ZeroDivisionError: float division by zero" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("sampler", "words"),
    [
        (samplers.returns_float, "returned 0.0 (float), not a token index"),
        (samplers.returns_out_of_range, "returned token index 3, outside 0..2"),
        (samplers.mutates_inputs, "raised ValueError: assignment destination is read-only"),
    ],
)
def test_outputs_that_are_not_tokens_are_named(sampler, words):
    (case,) = check_step(sampler, cases=["bernoulli-residual"], target=COARSE).cases
    assert not case.passed
    assert any(words in r for r in case.reasons), case.reasons


def test_a_block_sampler_forming_0_0_where_p_equals_q_is_reported():
    report = check_block(samplers.nan_block, block_size=1, length=2, cases=["markov-draft-misses-K1-L2"],
                         target=COARSE)
    (case,) = report.cases
    assert any("invalid-value" in r for r in case.reasons), case.reasons
    assert case.data["test"]["p_value"] >= 1e-6  # a one-draft block sampler with the right law


def test_a_block_that_commits_nothing_is_named():
    (case, *_) = check_block(samplers.commits_nothing, target=COARSE).cases
    assert any("committed no token" in r for r in case.reasons)


def test_the_time_limit_cuts_a_slow_sampler_and_fails_the_case():
    report = check_step(samplers.slow, cases=["bernoulli-residual"], time_limit=0.3)
    (case,) = report.cases
    assert not case.passed
    assert 0 < case.data["draws"] < case.data["draws_planned"]
    assert any("time limit" in r for r in case.reasons)


def test_a_sampler_that_hangs_is_interrupted_past_the_time_limit(monkeypatch):
    monkeypatch.setattr("lab.check.watch.HANG_GRACE", 0.2)
    (case,) = check_step(samplers.hangs, cases=["bernoulli-residual"], time_limit=0.1).cases
    assert not case.passed and case.data["draws"] == 0
    assert any("still running" in r and "past the time limit" in r for r in case.reasons), case.reasons


def test_max_draws_caps_and_states_the_power_left():
    (case,) = check_step(samplers.target_sampler, cases=["bernoulli-residual"], max_draws=5000).cases
    # stopped by the draw limit before the stated power, nothing wrong found: inconclusive, not a pass
    assert case.verdict == "inconclusive" and case.data["draws"] == 5000
    critical = stats.chi2.isf(1e-6, 2)
    assert math.isclose(case.data["power"], stats.ncx2.sf(critical, 2, 4 * 5000 * 1e-4), rel_tol=1e-9)
    assert any("capped at 5,000" in n for n in case.notes)


# --- residuals and dtypes ------------------------------------------------------------------------------


def test_the_residual_sweep_holds_the_correct_residual_to_the_stated_tolerance():
    correct = load_example("correct_numpy")
    report = check_step(correct.step, cases=["residual-float64", "residual-float32"])
    f64, f32 = report.cases
    assert f64.passed and f32.passed, report.text()
    assert f64.data["rtol"] == 6 * 2.0**-52 and f32.data["rtol"] == 6 * 2.0**-23
    rows32 = {row["gap"]: row for row in f32.data["rows"]}
    # float32 rounding closes the gap from 1e-8 on: Z = 0 for the rounded inputs, no residual formed
    assert rows32["1e-8"]["exact_z_of_rounded_inputs"] == "0" and rows32["1e-8"]["returned"] == "none"
    assert rows32["1e-4"]["branch_of_rounded_inputs"] == "rejection"
    # at 1e-4 float32's error against the intended values is far above the tolerance, against its own
    # rounded inputs within it: the tolerance is about the arithmetic, not the identity
    check = rows32["1e-4"]["check"]
    assert check["max_relative_error"] <= f32.data["rtol"] < check["max_abs_error_vs_intended_values"]


def test_normalising_by_one_minus_alpha_fails_the_float64_sweep_at_a_tiny_gap():
    report = check_step(samplers.one_minus_alpha, cases=["residual-float64"])
    (sweep,) = report.cases
    assert not sweep.passed
    assert any("gap 1e-12 (float64)" in r and "beyond the stated tolerance" in r for r in sweep.reasons), sweep.reasons


def test_float32_inputs_are_stated_and_checked_against_their_own_rounding():
    correct = load_example("correct_numpy")
    report = check_step(correct.step, cases=["bernoulli-residual"], dtype="float32", target=COARSE)
    (case,) = report.cases
    assert case.passed, case.reasons
    assert report.environment["input_dtype"] == "float32"
    (check,) = case.data["residual_checks"]["checks"]
    assert check["dtype"] == "float32" and check["rtol"] == 6 * 2.0**-23


# --- the pytest-friendly assertion and the command line ----------------------------------------------


def test_assert_sampler_passes_names_the_failing_cases():
    module = load_example("candidates_only")
    with pytest.raises(AssertionError, match=r"(?s)one-hot-draft: .*named mistake: candidates-only"):
        assert_sampler_passes(module.step, cases=["one-hot-draft"], target=COARSE)
    assert assert_sampler_passes(samplers.target_sampler, cases=["bernoulli-residual"], target=COARSE).passed


def test_the_command_line_exits_0_and_prints_strict_json(capsys):
    code = main(["check", "examples/correct_numpy.py:step", "--cases", "partial-zeros,residual-float32",
                 "--tv", "0.05", "--json", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    report = strict_json(out)
    assert report["verdict"] == "pass" and [c["name"] for c in report["cases"]] == ["partial-zeros", "residual-float32"]
    case = report["cases"][0]
    assert case["target_law"] == {"A": "1/2", "B": "0", "C": "1/4", "D": "1/4"}
    assert case["counts"]["B"] == 0 and sum(case["counts"].values()) == case["draws"]
    assert report["settings"]["power_target"] == {"tv": 0.05, "power": 0.99, "false_alarm": 1e-6}


def test_the_command_line_takes_a_module_name_and_exits_1_on_a_failure(capsys):
    code = main(["check", "tests.check_samplers:nan_at_zero", "--cases", "equal-distributions", "--tv", "0.05"])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""
    assert "FAIL  equal-distributions" in out and "invalid-value" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["examples/nope.py:step"], "examples/nope.py: no such file"),
        (["examples/correct_numpy.py:nope"], "has no attribute 'nope'"),
        (["examples/correct_numpy.py"], "is not MODULE:FUNCTION"),
        (["no_such_module_25:step"], "no module named 'no_such_module_25'"),
        (["examples/correct_numpy.py:draw"], "takes 2 required arguments"),
        (["examples/correct_numpy.py:step", "--tv", "2"], "--tv"),
        (["examples/correct_numpy.py:step", "--max-draws", "0"], "--max-draws must be from 1"),
        (["examples/correct_numpy.py:step", "--cases", "bogus"], "unknown case 'bogus'"),
        (["examples/correct_numpy.py:step", "--block", "2"], "--block and --length are for block samplers"),
        (["examples/correct_numpy.py:block", "--block", "9"], "--block must be from 1 to 8"),
        (["examples/correct_numpy.py:step", "--dtype", "float16"], "invalid choice"),
        (["tests/check_samplers.py:target_sampler", "--cases", "residual-float64"], "set step.residual"),
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, args, words):
    code = main(["check", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and words in err, err


def test_a_module_that_fails_to_import_is_one_line(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("import numpy\nraise RuntimeError('no GPU here')\n")
    code = main(["check", f"{broken}:step"])
    _, err = capsys.readouterr()
    assert code == 2 and err == f"error: importing {broken} raised RuntimeError: no GPU here\n"


def test_jobs_give_the_same_counts_as_one_process():
    one = check_step(samplers.target_sampler, cases=["bernoulli-residual", "partial-zeros"], target=COARSE)
    two = check_step(samplers.target_sampler, cases=["bernoulli-residual", "partial-zeros"], target=COARSE, jobs=2)
    assert [c.data["counts"] for c in one.cases] == [c.data["counts"] for c in two.cases]


def test_the_web_app_never_imports_the_check():
    for path in [ROOT / "app.py", *(ROOT / "lab" / "views").rglob("*.py"), *(ROOT / "lab" / "models").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "lab.check" not in text and "lab.cli" not in text, path


def test_the_pitfalls_page_points_to_the_check():
    from pagetest import open_linked_page

    at = open_linked_page("lab/views/pages/pitfalls.py")
    assert any("python -m lab check" in c.value and "docs/checking-a-sampler.md" in c.value for c in at.caption)
    assert (ROOT / "docs" / "checking-a-sampler.md").is_file()


def test_a_failing_case_shows_its_largest_gaps_by_hand():
    from lab.check.report import largest_gaps

    data = {
        "target_law": {"A": "1/2", "B": "1/4", "C": "1/4"},
        "counts": {"A": 70, "B": 25, "C": 5, "D": 0},
        "draws": 100,
    }
    assert largest_gaps(data) == ["C 0.0500 vs 0.2500", "A 0.7000 vs 0.5000"]  # B is exact: no gap shown
