"""Several drafts and token trees (lab/core/drafts.py) against hand-derived fractions and against the
enumerator written apart from the engine (tests/reference_drafts.py)."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction as F

import pytest
from reference_drafts import reference_best, reference_node, reference_tree

from lab.cli import main
from lab.core.blocks import speculative_law, target_law
from lab.core.drafts import (
    DRAFT_MISTAKES,
    MAX_NODE_WORK,
    RULES,
    DraftsInputError,
    acceptance_by_candidates,
    best_acceptance,
    node_law,
    parse_tree,
    sample_tree_trace,
    simulate_node,
    simulate_tree,
    tree_law,
)
from lab.core.markov import all_model_names, load_model
from lab.teaching.draft_pitfalls import DRAFT_CARDS, EXAMPLE_P, EXAMPLE_Q, draft_mistakes, variants_of

P = (F(1, 10), F(3, 5), F(3, 10))
Q = (F(1, 2), F(3, 10), F(1, 5))


# --- hand-derived ---------------------------------------------------------------------------------------------


def test_hand_derived_acceptances():
    # with replacement: α1 = 1/10 + 3/10 + 1/5 = 3/5; p2 = (0, 3/10, 1/10) / (2/5) = (0, 3/4, 1/4);
    # α2 = 0 + 3/10 + 1/5 = 1/2; acceptance = 3/5 + 2/5 · 1/2 = 4/5
    assert node_law(P, Q, 2, "with-replacement").acceptance == F(4, 5)
    # without: x1 = A (1/2) rejected w.p. 4/5 -> p2 = (0, 3/4, 1/4), q2 = (0, 3/5, 2/5): α2 = 3/5 + 1/4 = 17/20;
    # x1 = B or C is always kept (p >= q). 1 - 1/2 · 4/5 · 3/20 = 47/50
    assert node_law(P, Q, 2, "without-replacement").acceptance == F(47, 50)
    # top 2 of q: A then B. p(A) = 1/10; then p without A = (0, 2/3, 1/3): 1/10 + 9/10 · 2/3 = 7/10
    assert node_law(P, Q, 2, "top-k").acceptance == F(7, 10)
    # α* for two i.i.d. drafts: H = {A}: p(A) + 1 - q(A)^2 = 1/10 + 3/4 = 17/20
    best = best_acceptance(P, Q, 2, "with-replacement")
    assert best.value == F(17, 20) and best.tokens == (0,)
    # deterministic candidates C: α* = p(C), which top-k reaches
    assert best_acceptance(P, Q, 2, "top-k").value == F(7, 10)


def test_stages_are_the_residuals_each_candidate_meets():
    law = node_law(P, Q, 2, "with-replacement")
    by_position = {s.position: s for s in law.stages}
    assert by_position[1].p == P and by_position[1].reach == 1
    assert by_position[2].p == (0, F(3, 4), F(1, 4)) and by_position[2].reach == F(2, 5)
    # after two rejections: max(0, (0, 3/4, 1/4) - q) = (0, 9/20, 1/20) -> (0, 9/10, 1/10)
    assert by_position[3].p == (0, F(9, 10), F(1, 10)) and by_position[3].reach == F(1, 5)


# --- every rule equals the target, exactly -------------------------------------------------------------------

EDGE_CASES = {
    "equal": ((F(1, 5), F(3, 10), F(1, 2)), (F(1, 5), F(3, 10), F(1, 2))),
    "disjoint": ((F(1, 2), F(1, 2), 0, 0), (0, 0, F(1, 4), F(3, 4))),
    "partial-zeros": ((F(1, 2), 0, F(1, 2), 0), (F(1, 4), F(1, 4), 0, F(1, 2))),
    "near-equality": (
        (F(1, 3) + F(1, 10**12), F(1, 3), F(1, 3) - F(1, 10**12)),
        (F(1, 3), F(1, 3), F(1, 3)),
    ),
    # without replacement, rejecting C leaves p2 = (2/3, 1/3, 0) = q2: Z = 0 at the middle stage
    "zero-in-the-middle": ((F(1, 2), F(1, 4), F(1, 4)), (F(1, 4), F(1, 8), F(5, 8))),
    "example": (P, Q),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_correct_rules_give_the_target_exactly(case, rule, k):
    p, q = EDGE_CASES[case]
    p, q = tuple(map(F, p)), tuple(map(F, q))
    if rule == "without-replacement" and k > sum(1 for v in q if v):
        with pytest.raises(DraftsInputError, match="gives mass to"):
            node_law(p, q, k, rule)
        return
    law = node_law(p, q, k, rule)
    assert law.law == p and law.tv_distance == 0
    ref_law, ref_acc = reference_node(p, q, k, rule)
    assert list(law.law) == ref_law and law.acceptance == ref_acc


def test_edge_case_acceptances():
    eq_p, eq_q = EDGE_CASES["equal"]
    assert node_law(tuple(map(F, eq_p)), tuple(map(F, eq_q)), 2, "with-replacement").acceptance == 1
    dp, dq = (tuple(map(F, r)) for r in EDGE_CASES["disjoint"])
    assert node_law(dp, dq, 3, "with-replacement").acceptance == 0  # every draft rejected: the correction is p
    zp, zq = EDGE_CASES["zero-in-the-middle"]
    law = node_law(zp, zq, 2, "without-replacement")
    assert law.acceptance == 1  # stage 2 has Z = 0: its residual is never formed, nothing is rejected there
    assert all(s.position <= 2 for s in law.stages)


def _random_row(rng, n):
    weights = [rng.choice([0, 0, 1, 2, 3, 5, 8]) for _ in range(n)]
    if not any(weights):
        weights[rng.randrange(n)] = 1
    total = sum(weights)
    return tuple(F(w, total) for w in weights)


@pytest.mark.parametrize("seed", range(12))
def test_every_rule_and_mistake_matches_the_enumerator(seed):
    rng = random.Random(seed)
    n = rng.choice([2, 3, 4])
    p, q = _random_row(rng, n), _random_row(rng, n)
    for rule in RULES:
        for k in (1, 2, 3):
            if k > n or (rule == "without-replacement" and k > sum(1 for v in q if v)):
                continue
            for variant in variants_of(rule):
                law = node_law(p, q, k, rule, variant)
                ref_law, ref_acc = reference_node(p, q, k, rule, variant)
                assert list(law.law) == ref_law, (rule, k, variant)
                assert law.acceptance == ref_acc, (rule, k, variant)
                if variant == "correct":
                    assert law.law == p
            assert best_acceptance(p, q, k, rule).value == reference_best(p, q, k, rule)


@pytest.mark.parametrize("rule", RULES)
def test_no_rule_beats_the_best_acceptance(rule):
    rng = random.Random(7)
    for _ in range(20):
        p, q = _random_row(rng, 4), _random_row(rng, 4)
        for k in (1, 2, 3):
            if rule == "without-replacement" and k > sum(1 for v in q if v):
                continue
            assert node_law(p, q, k, rule).acceptance <= best_acceptance(p, q, k, rule).value


# --- the mistakes ---------------------------------------------------------------------------------------------

K1_HARMLESS = {"no-update", "stale-draft", "last-residual-only", "skip-duplicates"}
K1_HARMLESS_HERE = {"threshold-single"}  # the example's top candidate A has p(A) = 1/10, below the threshold 1/2


@pytest.mark.parametrize("name", sorted(DRAFT_MISTAKES))
def test_every_mistake_is_biased_on_the_example_and_harmless_where_its_card_says(name):
    for rule in DRAFT_MISTAKES[name].rules:
        assert node_law(EXAMPLE_P, EXAMPLE_Q, 2, rule, name).tv_distance > 0, rule
        k1 = node_law(EXAMPLE_P, EXAMPLE_Q, 1, rule, name).tv_distance
        assert (k1 == 0) == (name in K1_HARMLESS | K1_HARMLESS_HERE), (rule, k1)
    card = DRAFT_CARDS[name]
    assert card.title and card.description and card.mistaken and card.correct and card.harmless_when


def test_mistake_values_by_hand():
    # no-update, two i.i.d. drafts: only A can be rejected (p < q only there). Kept: A 1/10 · ... each draft
    # kept with α = 3/5; rejected twice (2/5)^2 = 4/25 -> r = (0, 3/4, 1/4). The second draft after a rejection is
    # tested against p again: kept mass per token min(p, q) = (1/10, 3/10, 1/5) times (1 + 2/5):
    # A = 7/50, B = 21/50 + 4/25 · 3/4 = 27/50, C = 7/25 + 1/25 = 8/25
    law = node_law(P, Q, 2, "with-replacement", "no-update")
    assert law.law == (F(7, 50), F(27, 50), F(8, 25))
    # typical acceptance: H(p) ≈ 0.898 nats, limit = min(0.09, 0.3 e^-H ≈ 0.122) = 0.09 < p(A) = 0.1: A always
    assert node_law(P, Q, 2, "top-k", "typical-acceptance").law == (1, 0, 0)
    # threshold-single = 1/2: top 2 = A, B; A kept on coin <= 1/10, else B (p(B) = 3/5 >= 1/2): never corrected
    assert node_law(P, Q, 2, "top-k", "threshold-single").law == (F(1, 10), F(9, 10), 0)


def test_a_mistake_belongs_to_its_rules():
    with pytest.raises(DraftsInputError, match="not top-k"):
        node_law(P, Q, 2, "top-k", "no-update")
    with pytest.raises(DraftsInputError, match="unknown variant"):
        node_law(P, Q, 2, "top-k", "resample-from-p")
    with pytest.raises(DraftsInputError, match="unknown rule"):
        node_law(P, Q, 2, "beam")


def test_bounded_work_is_refused_with_the_bound_named():
    p = tuple(F(i * i + 1, 518) for i in range(12))
    q = tuple(F(i + 1, 78) for i in range(12))
    with pytest.raises(DraftsInputError, match=f"{MAX_NODE_WORK:,} token operations"):
        node_law(p, q, 5, "without-replacement")
    with pytest.raises(DraftsInputError, match="work bound of 64"):
        parse_tree("4,4,4")
    for text in ("", "2,,2", "0", "a", "2.5", "-1"):
        with pytest.raises(DraftsInputError):
            parse_tree(text)


# --- trees ----------------------------------------------------------------------------------------------------


def _runnable(model, rule, width):
    return not (rule == "without-replacement" and any(
        sum(1 for v in model.q(t) if v) < width for t in model.contexts
    ))


@pytest.mark.parametrize("name", all_model_names())
def test_every_correct_tree_rule_gives_the_target_on_every_shipped_model(name):
    model = load_model(name)
    target = target_law(model, 3)
    for rule in RULES:
        for widths in ((2,), (2, 1), (1, 2, 2)):
            if not _runnable(model, rule, max(widths)):
                continue
            comparison = tree_law(model, widths, 3, rule)
            assert comparison.speculative == target and comparison.distance == 0, (rule, widths)


@pytest.mark.parametrize("name", ["markov-three", "markov-ab-end", "pet-words"])
def test_tree_law_matches_the_unrolled_enumerator(name):
    model = load_model(name)
    for rule in RULES:
        assert tree_law(model, (2, 1), 3, rule).speculative == reference_tree(model, (2, 1), 3, rule)


def test_a_chain_of_single_candidates_is_block_decoding():
    model = load_model("markov-ab-end")
    assert tree_law(model, (1, 1), 4, "with-replacement").speculative == speculative_law(model, 2, 4)


def test_tree_mistakes_carry_their_bias_to_sequences():
    model = load_model("markov-three")
    for rule in RULES:
        for name in variants_of(rule)[1:]:
            if node_law(model.p(-1), model.q(-1), 2, rule, name).tv_distance:
                assert tree_law(model, (2, 2), 3, rule, name).distance > 0, (rule, name)


# --- Monte Carlo (fixed seeds) ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_node_sampler_fits_the_exact_law(rule):
    sim = simulate_node(P, Q, 2, rule, 20_000, seed=11)
    assert sim.fit("target").p_value > 0.001
    assert abs(sim.kept / 20_000 - float(sim.law.acceptance)) < 0.015


def test_a_mistake_sampler_fits_its_own_law_not_the_target():
    sim = simulate_node(P, Q, 2, "with-replacement", 20_000, seed=5, variant="correction-from-candidates")
    assert sim.fit("law").p_value > 0.001 and sim.fit("target").p_value < 1e-6


@pytest.mark.parametrize("rule", RULES)
def test_tree_sampler_fits_the_target(rule):
    model = load_model("markov-ab-end")
    sim = simulate_tree(model, (2, 1), 4, rule, 20_000, seed=3)
    assert sim.fit("target").p_value > 0.001


# --- command line ---------------------------------------------------------------------------------------------


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_drafts_json_keys_and_values(capsys):
    code, out, err = run(
        capsys, "drafts", "--p", "A=1/10,B=3/5,C=3/10", "--q", "A=1/2,B=3/10,C=1/5", "--candidates", "2",
        "--rule", "without-replacement", "--exact", "--json",
    )
    assert code == 0 and not err
    data = json.loads(out)
    for key in ("rule", "candidates", "variant", "tokens", "p", "q", "law", "tv_distance", "acceptance",
                "best_acceptance", "stages"):
        assert key in data
    assert data["acceptance"] == "47/50" and data["tv_distance"] == "0"
    assert data["law"] == {"A": "1/10", "B": "3/5", "C": "3/10"}
    assert data["stages"][0]["p"] == data["p"] and data["stages"][0]["position"] == 1


def test_drafts_float_output(capsys):
    code, out, _ = run(
        capsys, "drafts", "--p", "A=1/10,B=3/5,C=3/10", "--q", "A=1/2,B=3/10,C=1/5", "--candidates", "2",
        "--rule", "with-replacement", "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["acceptance"] == 0.8 and data["best_acceptance"] == 0.85


def test_law_tree_json(capsys):
    code, out, err = run(capsys, "law", "markov-three", "--tree", "2,2", "--rule", "top-k", "--length", "3", "--json")
    assert code == 0 and not err
    data = json.loads(out)
    assert data["tree"] == [2, 2] and data["rule"] == "top-k" and data["tv_distance"] == "0"
    assert data["speculative"] == data["target"] and data["block"] is None


def test_simulate_candidates_and_tree(capsys):
    code, out, _ = run(capsys, "simulate", "pet-words", "--candidates", "2", "--rule", "top-k", "--steps", "5000",
                       "--seed", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "candidates" and sum(data["counts"].values()) == 5000
    assert data["chi_square"]["p_value"] > 0.001
    code, out, _ = run(capsys, "simulate", "markov-three", "--tree", "2,1", "--rule", "with-replacement",
                       "--steps", "5000", "--seed", "2", "--json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "tree" and data["length"] == 3 and data["chi_square"]["p_value"] > 0.001


def test_mistakes_lists_the_new_variants(capsys):
    code, out, _ = run(capsys, "mistakes", "pet-words", "--candidates", "2", "--json")
    data = json.loads(out)
    assert code == 0
    listed = set(itertools.chain.from_iterable(r["variants"] for r in data["rules"].values()))
    assert listed == {"correct", *DRAFT_MISTAKES}
    assert data["rules"]["with-replacement"]["acceptance"] == "49/64"
    code, out, _ = run(capsys, "mistakes", "markov-three", "--tree", "2,1", "--length", "2")
    assert code == 0 and "typical-acceptance" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2", "--candidates", "0", "--rule", "top-k"], ">= 1"),
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2", "--candidates", "3", "--rule", "top-k"],
         "above the vocabulary"),
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1,B=0", "--candidates", "2", "--rule", "without-replacement"],
         "gives mass to"),
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2", "--candidates", "2", "--rule", "beam"],
         "unknown rule"),
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1/2,B=1/2", "--candidates", "2", "--rule", "top-k",
          "--variant", "no-update"], "not top-k"),
        (["drafts", "--p", "A=1/2,B=1/2", "--q", "A=1/2,C=1/2", "--candidates", "2", "--rule", "top-k"], "'B'"),
        (["law", "markov-three", "--tree", "8,8", "--rule", "top-k", "--length", "2"], "work bound of 64"),
        (["law", "markov-three", "--tree", "2,x", "--rule", "top-k", "--length", "2"], "'x'"),
        (["law", "markov-three", "--tree", "2", "--length", "2"], "need --rule"),
        (["law", "markov-three", "--tree", "2", "--block", "2", "--rule", "top-k", "--length", "2"], "not both"),
        (["law", "markov-three", "--length", "2"], "--block K"),
        (["law", "eight-words", "--tree", "2,2", "--rule", "top-k", "--length", "8"], "limit"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and err.startswith("error: ") and fragment in err, err


def test_draft_mistakes_report_skips_what_a_model_cannot_run():
    report = draft_mistakes("one-hot-draft", candidates=2)
    assert "without-replacement" not in report.rules and report.skipped


# --- what the several-drafts page draws ----------------------------------------------------------------------------


def test_kept_by_position_and_the_correction_rebuild_p():
    # stage 1 keeps min(p, q) = (1/10, 3/10, 1/5); stage 2 is reached with 2/5 and keeps min(p2, q) = (0, 3/10, 1/5):
    # (0, 3/25, 2/25); the correction (reached with 1/5) gives 1/5 · (0, 9/10, 1/10) = (0, 9/50, 1/50)
    law = node_law(P, Q, 2, "with-replacement")
    assert law.kept_by_position == ((F(1, 10), F(3, 10), F(1, 5)), (0, F(3, 25), F(2, 25)))
    assert law.corrected == (0, F(9, 50), F(1, 50))
    assert tuple(a + b + c for a, b, c in zip(*law.kept_by_position, law.corrected)) == P


def test_more_drafts_less_gain():
    # K = 1: α = 3/5 = α* (one draft: 1 - TV). K = 3: p3 = (0, 9/10, 1/10), α3 = 3/10 + 1/10 = 2/5, so
    # 4/5 + 1/5 · 2/5 = 22/25; α* = min over H of p(H) + 1 - q(H)^3, at H = {A}: 1/10 + 1 - 1/8 = 39/40
    rows = acceptance_by_candidates(P, Q, "with-replacement", 3)
    assert [(r.candidates, r.acceptance, r.best) for r in rows] == [
        (1, F(3, 5), F(3, 5)),
        (2, F(4, 5), F(17, 20)),
        (3, F(22, 25), F(39, 40)),
    ]
    assert len(acceptance_by_candidates(P, Q, "top-k", 4)) == 3  # top-k stops at the vocabulary


def test_a_sampled_tree_follows_its_rule():
    model = load_model("markov-three")
    trace = sample_tree_trace(model, (2, 2), "with-replacement", seed=1)
    assert sample_tree_trace(model, (2, 2), "with-replacement", seed=1) == trace  # a seed gives one tree
    assert len(trace.root.children) == 2 and all(len(c.children) == 2 for c in trace.root.children)
    kept = [t for t in trace.tests if t.kept]
    assert [t.candidate for t in kept] == list(trace.committed[: len(kept)])
    assert trace.ending in ("bonus", "correction") and len(trace.committed) == len(kept) + 1
    for test in trace.tests:
        assert 0 <= test.keep <= 1 and test.kept == (test.u < test.keep)


@pytest.mark.parametrize("rule", RULES)
def test_sampled_trees_commit_the_target_law(rule):
    """The first committed token of 4,000 seeded trees against p at the first position (chi-square)."""
    from lab.core.sampling import chi_square_test

    model = load_model("markov-three")
    counts: dict[int, int] = {}
    for seed in range(4_000):
        first = sample_tree_trace(model, (2, 1), rule, seed).committed[0]
        counts[first] = counts.get(first, 0) + 1
    assert chi_square_test(counts, dict(enumerate(model.p(-1)))).p_value > 0.001
