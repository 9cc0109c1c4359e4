"""Realistic arguments for every chart builder of lab.charts.figures.FIGURES, as the pages pass them (the
figure cache turns lists into tuples; the Sampling and Numerics pages pass numpy arrays): few and many
tokens, revealed and hidden answers, Z = 0, nothing predicted yet, an empty class."""

from __future__ import annotations

from fractions import Fraction as F

from lab.core.binomial import N_MAX
from lab.core.blocks import run_block
from lab.core.markov import START, load_model
from lab.core.residual import residual_exact
from lab.core.sampling import convergence_series, make_streams, simulate_steps
from lab.core.scenarios import load_scenario, scenario_names
from lab.core.speedup import best_gamma, speedup_curve
from lab.teaching.numerics import tiny_z_family
from lab.teaching.pitfalls import mistakes, single_step
from lab.teaching.processing import Processing, processed_step_from_text
from lab.teaching.worked_example import display_values, lab_result, outcome_labels, worked_sum

MANY = tuple(f"t{i}" for i in range(15))  # more than 12 bars: no text labels


def _residual_cases(cases):
    for name in scenario_names():
        scenario = load_scenario(name)
        result = residual_exact(scenario.p, scenario.q)
        tokens = scenario.p.tokens
        cases.append(("pq_bars", (tokens, scenario.p.values, scenario.q.values)))
        cases.append(("reconstruction_bars", (tokens, result.accepted, result.correction, result.p)))
        guess = tuple(F(1, len(tokens)) for _ in tokens)
        cases.append(("prediction_vs_residual", (tokens, guess, result.residual)))  # None when Z = 0
        cases.append(("prediction_vs_residual", (tokens, tuple(float(v) for v in guess), None)))
    cases.append(("prediction_vs_residual", (("A", "B", "C"), (0.0, 0.0, 0.0), None)))  # nothing predicted
    cases.append(("prediction_vs_residual", (("A", "B", "C"), (0.1, 0.6, 0.3), (F(0), F(3, 4), F(1, 4)), "p₂")))
    cases.append(("prediction_vs_residual", (MANY, tuple(F(1, 15) for _ in MANY), tuple(F(i, 105) for i in range(15)))))
    cases.append(("pq_bars", (MANY, [F(1, 15)] * 15, [F(i, 105) for i in range(15)])))
    worked = (("A", "B", "C"), (F(1, 10), F(3, 5), F(3, 10)), (F(1, 2), F(3, 10), F(1, 5)))
    cases.append(("pq_bars_projected", (*worked, 24)))
    cases.append(("pq_bars_projected", (*worked, 22, 360)))
    for n in (1, 2, 5, 12, 13, N_MAX):
        labels = outcome_labels(n)
        exact = display_values(lab_result(F(3, 4), n))
        zero = tuple(F(0) for _ in labels)
        x_title = "outcome (B = success, C = failure)" if n == 1 else "number of successes k"
        cases.append(("binomial_bars", (labels, zero, None, x_title)))
        cases.append(("binomial_bars", (labels, tuple(F(1, len(labels)) for _ in labels), exact, x_title)))
    # the live class's answer: a float prediction in steps of 0.05 beside Fractions
    cases.append(("binomial_bars", (("B", "C"), (0.75, 0.25), (F(3, 4), F(1, 4)), "bar")))
    worked = worked_sum(dict(zip(("B", "C"), (F(3, 4), F(1, 4)))))
    rows = worked.rows
    stack = (
        tuple(r.token for r in rows),
        [r.accepted for r in rows],
        [r.correction for r in rows],
        [r.target for r in rows],
    )
    cases.append(("worked_example_stack", stack))
    cases.append(("worked_example_stack", (stack[0], *(tuple(v) for v in stack[1:]))))
    partial = worked_sum({})
    cases.append(
        (
            "worked_example_stack",
            (
                tuple(r.token for r in partial.rows),
                *([getattr(r, a) for r in partial.rows] for a in ("accepted", "correction", "target")),
            ),
        )
    )


def _sampling_cases(cases):
    for name, steps, seed in (
        ("bernoulli-residual", 1000, 1),
        ("equal-distributions", 100, 2),
        ("eight-words", 10_000, 3),
        ("disjoint-support", 500, 4),
        ("one-hot-draft", 200, 5),
    ):
        scenario = load_scenario(name)
        tokens = scenario.p.tokens
        sim = simulate_steps(scenario.p, scenario.q, steps, seed)
        n = sim.steps
        cases.append(("empirical_vs_target", (tokens, scenario.p.values, sim.accepted / n, sim.corrected / n)))
        for counts, law, role, title in (
            (sim.accepted, sim.law.accepted, "accepted", "Accepted steps ≈ N·min(p, q)"),
            (sim.corrected, sim.law.corrected, "correction", "Corrected steps ≈ N·Z·r"),
        ):
            cases.append(("branch_counts", (tokens, counts, [n * float(v) for v in law], role, title)))
        ns, distances = convergence_series(scenario.p, scenario.q, ns=(100, 1000, max(steps, 1000)), seeds=(seed,))
        cases.append(("convergence", (ns, distances)))
        cases.append(("convergence", (tuple(ns), tuple(distances), (steps, distances[-1]))))
    cases.append(("convergence", ((100, 1000), (0.0, 0.0))))  # no positive distance: no guide
    cases.append(("empirical_vs_target", (["A", "B"], [F(1, 4), F(3, 4)], [0.25, 0.5], [0.0, 0.25])))
    for model_name, k in (
        ("markov-three", 3),
        ("equal-distributions", 2),
        ("markov-tiny-sentences", 5),
        ("bernoulli-residual", 1),
    ):
        model = load_model(model_name)
        for seed in range(4):
            trace = run_block(model, k, START, make_streams(seed))
            for revealed in (None, 0, 1, len(trace.tests), len(trace.tests) + 1):
                cases.append(("block_trace", (model.vocab, trace, revealed)))
    gammas = list(range(0, 16))
    for alpha, c in ((0.8, 0.1), (0.0, 0.0), (1.0, 0.0), (0.5, 1.0), (0.95, 0.02)):
        best = best_gamma(alpha, c, max_gamma=gammas[-1])
        curve = speedup_curve(alpha, c, gammas)
        cases.append(("speedup_chart", (curve, best.gamma if best else None, alpha, c)))
        cases.append(("speedup_chart", (tuple(curve), None, None, None)))
    cases.append(("speedup_chart", (speedup_curve(0.8, 0.1, range(0, 8)), 5, 0.8, 0.1)))


def _pitfall_cases(cases):
    cases.append(("error_vs_z", (tiny_z_family(),)))
    cases.append(("error_vs_z", (tiny_z_family([6]),)))
    cases.append(("error_vs_z", (tiny_z_family([1, 3, 20]),)))
    cases.append(("error_vs_z", ((),)))
    logits = (
        ("A=2, B=1, C=0.5, D=-1", "A=1, B=2, C=0, D=0.5", Processing()),
        ("A=2, B=1, C=0.5, D=-1", "A=1, B=2, C=0, D=0.5", Processing(0.7, 2, 0.9)),
        ("A=1, B=1", "A=1, B=1", Processing()),  # Z = 0
        ("A=3, B=1, C=0", "A=0, B=1, C=3", Processing(0.0, 0, 1.0)),  # greedy
    )
    for target, draft, processing in logits:
        step = processed_step_from_text(target, draft, processing)
        cases.append(("processed_bars", (step.tokens, step.p, step.q, step.q_raw)))
        laws = {}
        if step.correct_law is not None:
            laws["propose q′, check q′ (correct)"] = step.correct_law
        if step.mismatch_law is not None:
            laws["propose q′, check q (unprocessed-draft)"] = step.mismatch_law
        cases.append(
            ("law_vs_target", (step.tokens, step.p, laws, "Output law against the processed target p′", "target p′"))
        )
    for model_name in ("markov-three", "bernoulli-residual", "equal-distributions", "markov-draft-misses"):
        report = mistakes(model_name)
        for variant in ("correct", "epsilon-floor", "resample-from-p"):
            result = report.laws[variant]
            cases.append(
                (
                    "law_vs_target",
                    (report.outcomes, report.target, {f"{variant} law": result.law}, f"{variant}: output law"),
                )
            )
        names = list(report.laws)
        cases.append(("tv_by_variant", (names, [report.laws[n].tv_distance for n in names])))
        cases.append(("tv_by_variant", (tuple(names), tuple(report.laws[n].tv_distance for n in names))))
    laws = single_step("bernoulli-residual")
    cases.append(("tv_by_variant", (list(laws), [v.tv_distance for v in laws.values()], "One step: distance from p")))
    three = {"law": [F(7, 50), F(27, 50), F(8, 25)], "second": [F(1, 3)] * 3, "third": [F(1, 2), F(1, 2), F(0)]}
    cases.append(("law_vs_target", (("A", "B", "C"), [F(1, 10), F(3, 5), F(3, 10)], three, "t")))
    cases.append(("tv_by_variant", (["correct"], [F(0)])))


def _class_cases(cases):
    fields = ("r(B)", "r(C)")
    values = ((0.75, 0.7, 0.3), (0.25, 0.3, 0.1))
    means = (1.75 / 3, 0.65 / 3)
    cases.append(("class_predictions_figure", (fields, values, means)))
    cases.append(("class_predictions_figure", (fields, values, means, (F(3, 4), F(1, 4)), 520)))
    cases.append(("class_predictions_figure", (("r(A)", "Z"), ((), ()), (None, None))))
    cases.append(("class_predictions_figure", (("r(A)", "Z"), ((), ()), (None, None), (F(0), F(2, 5)), 420)))
    many = tuple(f"r({t})" for t in "ABCDEFGH")
    column = tuple(round(0.05 * i, 2) for i in range(21))
    cases.append(("class_predictions_figure", (many, (column,) * 8, (0.5,) * 8, tuple(F(1, 8) for _ in many), 420)))
    cases.append(("class_predictions_figure", (fields, values, means, (F(3, 4), F(1, 4)), None, 22, False)))  # a pair


def _drafts_cases(cases):
    from lab.core.drafts import RULES, acceptance_by_candidates, node_law

    for name in scenario_names():
        scenario = load_scenario(name)
        p, q = scenario.p.values, scenario.q.values
        for rule in RULES:
            for k in (1, 2, 4):
                try:
                    law = node_law(p, q, k, rule)
                except Exception:  # K above what the rule can draw here
                    continue
                cases.append(("stage_stack", (scenario.p.tokens, law.kept_by_position, law.corrected, p)))
        curves = tuple(
            (rule, tuple((r.candidates, float(r.acceptance)) for r in acceptance_by_candidates(p, q, rule)))
            for rule in RULES
        )
        best = tuple((r.candidates, float(r.best)) for r in acceptance_by_candidates(p, q, "with-replacement"))
        cases.append(("acceptance_by_k", (curves, best, "with-replacement")))
    cases.append(("acceptance_by_k", ((("top-k", ((1, 0.5),)),), (), "top-k")))  # one point, no best


def chart_cases() -> list[tuple[str, tuple]]:
    """(builder name, args) pairs covering every builder of FIGURES."""
    cases: list[tuple[str, tuple]] = []
    _residual_cases(cases)
    _sampling_cases(cases)
    _pitfall_cases(cases)
    _class_cases(cases)
    _drafts_cases(cases)
    return cases
