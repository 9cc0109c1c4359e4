"""`lab check` for multi-candidate verifiers and tree samplers: each shipped example's verdict, the mistake named,
0/0 at a middle stage, and the engine's exact laws (not the check's counts) as what the counts are compared with.
Expected laws are derived by hand here; the mistakes' laws come from lab.core.drafts, itself checked against an
enumerator written apart from it (tests/reference_drafts.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction as F

import numpy as np
import pytest
from test_check import COARSE, ROOT, load_example, strict_json

from lab.check import check_block
from lab.check.api import check_candidates, sampler_kind
from lab.check.candidates import MIDDLE_ZERO, candidates_cases
from lab.check.cases import step_cases
from lab.core.drafts import DRAFT_MISTAKES, node_law

CORRECT = load_example("multi_draft_numpy")
MISTAKES = load_example("multi_draft_mistakes")


def named(case: dict) -> set[str]:
    """The mistake a failed case names, with the mistakes that have the same law there (the counts cannot tell
    them apart)."""
    fit = case.get("best_variant") or {}
    return {fit.get("variant"), *fit.get("same_law_on_this_case", [])} - {None}


def test_the_hand_case_law_of_two_candidates_with_replacement():
    """p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5), K = 2 with replacement, by hand: candidate 1 kept with
    min(p, q) = (1/10, 3/10, 1/5); rejected with Z = 2/5, leaving p₂ = (0, 3/4, 1/4); candidate 2 kept with
    2/5 · min(p₂, q) = (0, 3/25, 2/25); the correction (reached with 2/5 · 1/2) draws from (0, 9/10, 1/10)."""
    (case,) = [c for c in candidates_cases("with-replacement", (2,))[0] if c.name == "bernoulli-residual-K2"]
    assert case.joint_law() == {
        (0, 0): F(1, 10), (1, 0): F(3, 10), (2, 0): F(1, 5),
        (1, 1): F(3, 25), (2, 1): F(2, 25),
        (1, None): F(9, 50), (2, None): F(1, 50),
    }
    assert case.token_law() == {0: F(1, 10), 1: F(3, 5), 2: F(3, 10)}
    assert case.acceptance == F(4, 5)


def test_the_middle_stage_zero_case_has_z_0_at_the_second_stage():
    """p = (1/2, 1/4, 1/4), q = (1/4, 1/8, 5/8) without replacement: only C can be rejected (p(C) < q(C)); then
    p₂ = max(0, p − q)/(3/8) = (2/3, 1/3, 0) and q₂ = q without C = (2/3, 1/3, 0): Z₂ = 0, the second candidate
    is always kept, and some candidate is kept with probability 1."""
    law = node_law(MIDDLE_ZERO.p, MIDDLE_ZERO.q, 2, "without-replacement")
    second = next(s for s in law.stages if s.position == 2)
    assert second.p == second.q == (F(2, 3), F(1, 3), F(0))
    assert law.acceptance == 1 and law.law == MIDDLE_ZERO.p


def test_what_a_verifier_is_told_apart_by_its_parameters():
    assert sampler_kind(CORRECT.top_k) == "verify"
    assert sampler_kind(CORRECT.tree) == "block"  # a block sampler that declares block.tree


@pytest.mark.parametrize("name", ["with_replacement", "without_replacement", "top_k"])
def test_each_correct_verifier_passes_every_case(name):
    report = check_candidates(getattr(CORRECT, name), target=COARSE)
    assert report.verdict == "pass", report.text()
    assert {c.name for c in report.cases} >= {"zero-in-the-middle-K2", "zero-in-the-middle-K3"}
    for case in report.cases:  # (token, kept_index) returned: the law of which candidate was kept is tested too
        assert case.data["returns_kept_index"]


def test_without_replacement_skips_what_the_draft_cannot_draw_and_says_why():
    report = check_candidates(CORRECT.without_replacement, target=COARSE, cases=None)
    skipped = {s["case"]: s["reason"] for s in report.settings["skipped"]}
    # one-hot-draft's q has one token: two distinct candidates cannot be drawn
    assert "above the 1 tokens the draft gives mass to" in skipped["one-hot-draft-K2"]
    assert "not run  one-hot-draft-K2" in report.text()


@pytest.mark.parametrize("name", [n for n, v in MISTAKES.EXPECTED_VERDICTS.items() if "identified_as" in v])
def test_each_mistaken_verifier_fails_and_is_named(name):
    sampler = getattr(MISTAKES, name)
    expected = MISTAKES.EXPECTED_VERDICTS[name]
    report = (check_block if hasattr(sampler, "tree") else check_candidates)(sampler, target=COARSE)
    assert report.exit_status == expected["exit"], report.text()
    failed = [c.as_json() for c in report.cases if c.verdict == "fail"]
    assert failed
    for case in failed:
        assert expected["identified_as"] in named(case), (case["name"], named(case))


def test_a_residual_formed_where_z_is_0_fails_by_name_though_the_law_is_right():
    report = check_candidates(MISTAKES.eager_residual, target=COARSE)
    expected = MISTAKES.EXPECTED_VERDICTS["eager_residual"]["fails_with_0/0"]
    by_name = {c.name: c for c in report.cases}
    for name in expected:
        case = by_name[name]
        assert case.verdict == "fail"
        assert any("0/0" in r for r in case.reasons), case.reasons
        assert case.data["test"]["p_value"] > 1e-6  # the law itself is right there


class EngineMistake:
    """A verifier that ignores its candidates and draws its token straight from the engine's exact law of a mistake
    (lab.core.drafts.node_law) on the case whose rounded p and q it is given."""

    def __init__(self, variant: str, rule: str):
        self.variant, self.rule = variant, rule
        self.exact = {
            (tuple(float(v) for v in c.p), tuple(float(v) for v in c.q)): (c.p, c.q) for c in step_cases()
        }

    def __call__(self, p, q, candidates, rng):
        exact_p, exact_q = self.exact[(tuple(p.tolist()), tuple(q.tolist()))]
        law = node_law(exact_p, exact_q, len(candidates), self.rule, self.variant).law
        weights = np.array([float(v) for v in law])
        return int(rng.choice(len(law), p=weights / weights.sum()))


@pytest.mark.parametrize(
    "variant, rule, case",
    [("no-update", "with-replacement", "one-hot-draft-K3"), ("stale-draft", "without-replacement", "partial-zeros-K3")],
)
def test_a_sampler_drawing_from_the_engines_law_of_a_mistake_is_named_by_it(variant, rule, case):
    """By the engine: no-update moves 3/8 of one-hot-draft's output law at K = 3, stale-draft 1/4 of partial-zeros'."""
    report = check_candidates(EngineMistake(variant, rule), target=COARSE, candidates=3, cases=[case])
    (result,) = report.cases
    assert result.verdict == "fail"
    assert variant in named(result.as_json())


def test_the_command_line_runs_a_verifier_and_refuses_what_does_not_fit():
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", "examples/multi_draft_mistakes.py:no_update", "--tv", "0.05",
         "--candidates", "2", "--json", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1, done.stderr
    report = strict_json(done.stdout)
    assert report["kind"] == "verify" and report["settings"]["candidates"] == [2]
    failed = [c for c in report["cases"] if c["verdict"] == "fail"]
    assert failed and all("no-update" in named(c) for c in failed)
    refused = subprocess.run(
        [sys.executable, "-m", "lab", "check", "examples/correct_numpy.py:step", "--candidates", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "--candidates" in refused.stderr


def test_a_verifier_that_states_no_rule_is_refused_by_name(tmp_path):
    module = tmp_path / "norule.py"
    module.write_text("def verify(p, q, candidates, rng):\n    return int(candidates[0])\n")
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", f"{module}:verify"], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "verify.rule" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_time_is_said_before_the_run_starts():
    """A verifier's run at the defaults (tens of seconds here) is announced with its draws and time; the run is
    stopped once the first line is read."""
    run = subprocess.Popen(
        [sys.executable, "-m", "lab", "check", "examples/multi_draft_numpy.py:top_k", "--progress"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        first = run.stderr.readline()
    finally:
        run.kill()
        run.wait(timeout=30)
    assert first.startswith("lab check: ") and " draws over " in first and " ms a draw (measured on 10 draws" in first
    assert re.search(r"about \d+(\.\d+)? (s|min)", first), first


def test_every_named_mistake_has_an_example():
    shipped = {v["identified_as"] for v in MISTAKES.EXPECTED_VERDICTS.values() if "identified_as" in v}
    assert shipped >= set(DRAFT_MISTAKES)


def test_the_engines_floored_law_by_hand():
    """One candidate, the worked example, floor f = 1/10: max(p − q, 1/10) = (1/10, 3/10, 1/10), normalised
    (1/5, 3/5, 1/5); the law is min(p, q) + Z · that = (1/10 + 2/25, 3/10 + 6/25, 1/5 + 2/25) = (9/50, 27/50, 7/25)."""
    p, q = (F(1, 10), F(3, 5), F(3, 10)), (F(1, 2), F(3, 10), F(1, 5))
    assert node_law(p, q, 1, floor=F(1, 10)).law == (F(9, 50), F(27, 50), F(7, 25))
    assert node_law(p, q, 1).law == p


def test_a_verifier_with_an_epsilon_floor_is_named_as_the_floor_with_its_size():
    report = check_candidates(MISTAKES.floored, target=COARSE, cases=["disjoint-support-K2", "pet-words-K3"])
    for case in report.cases:
        assert case.verdict == "fail"
        assert case.data["best_variant"]["variant"] == "epsilon-floor 1e-3", case.data["best_variant"]
    assert "An epsilon floor on every residual, max(p - q, f) with f = 1e-3" in report.text()


def test_the_tree_example_passes_every_model():
    report = check_block(CORRECT.tree, target=COARSE)
    assert report.verdict == "pass", report.text()
    assert report.kind == "tree" and report.settings["tree"] == [2, 2]
    assert len(report.cases) == 5
