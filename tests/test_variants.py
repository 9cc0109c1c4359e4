"""Mistake variants: each run exactly and by simulation through the same engine; each one wrong."""

from fractions import Fraction as F

import pytest

from lab.core.blocks import compare_laws
from lab.core.markov import load_model
from lab.core.sampling import simulate_steps, step_law
from lab.core.scenarios import load_scenario
from lab.core.variants import MISTAKE_NAMES, VARIANTS, VariantError, get_variant, residual_row, top_tokens
from lab.teaching.pitfalls import VARIANT_WORDS

ISSUE_NAMES = {
    "correct",
    "resample-from-p",
    "epsilon-floor",
    "zero-out-rejected",
    "candidates-only",
    "keep-testing-after-rejection",
    "reuse-uniform",
    "unprocessed-draft",
    "greedy-draft",
    "draft-past-stop",  # the mistakes at the stop token (issue 23)
    "bonus-after-stop",
}


def test_registry_has_every_named_variant_with_a_description():
    assert set(VARIANTS) == ISSUE_NAMES
    for variant in VARIANTS.values():
        words = VARIANT_WORDS[variant.name]  # what a person reads about a rule lives in the teaching layer
        assert words.title and len(words.description) > 40


def test_unknown_variant():
    with pytest.raises(VariantError, match="unknown variant 'nope'.*greedy-draft"):
        get_variant("nope")


def test_correct_variant_matches_the_target():
    assert compare_laws(load_model("markov-three"), 2, 3, "correct").distance == 0


@pytest.mark.parametrize("name", [n for n in MISTAKE_NAMES if not VARIANTS[n].stop_only])
def test_every_mistake_changes_the_law(name):
    # (the stop-token mistakes need a model with a stop token: tests/test_blocks_stop.py)
    # markov-three: every draft row has three positive entries.
    model = load_model("markov-three")
    assert all(sum(v > 0 for v in row) >= 3 for row in model.draft)
    comparison = compare_laws(model, 2, 3, name)
    assert comparison.distance > 0
    assert sum(comparison.speculative.values()) == 1


# The worked example, one step: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5) over A, B, C.
# min(p, q) = (1/10, 3/10, 1/5), Z = 2/5, r = (0, 3/4, 1/4); only A is ever rejected (p(A) < q(A)),
# with probability q(A) (1 - p(A)/q(A)) = 1/2 * 4/5 = 2/5.
HAND_LAWS = {
    # replacement ~ p: A 1/10 + 2/5*1/10 = 7/50, B 3/10 + 2/5*3/5 = 27/50, C 1/5 + 2/5*3/10 = 8/25
    "resample-from-p": (F(7, 50), F(27, 50), F(8, 25)),
    # replacement ~ p without A, renormalised: (0, 2/3, 1/3); B 3/10 + 2/5*2/3 = 17/30, C 1/5 + 2/15 = 1/3
    "zero-out-rejected": (F(1, 10), F(17, 30), F(1, 3)),
    # rejected u is uniform on [1/5, 1); inverse CDF of r (B below 3/4, C above): B gets
    # (3/4 - 1/5)/(4/5) = 11/16, C gets (1 - 3/4)/(4/5) = 5/16. B 3/10 + 2/5*11/16 = 23/40, C 1/5 + 1/8 = 13/40
    "reuse-uniform": (F(1, 10), F(23, 40), F(13, 40)),
    # max(p - q, 1/1000) = (1/1000, 3/10, 1/10), total 401/1000: r' = (1/401, 300/401, 100/401);
    # A 1/10 + 2/5 * 1/401 = 81/802
    "epsilon-floor": (F(81, 802), F(1, 5) * 3 + F(2, 5) * F(300, 401) - F(3, 10), F(1, 5) + F(2, 5) * F(100, 401)),
    # the draft always proposes A (q's argmax), kept with 1/5; else r: A 1/5, B 4/5*3/4 = 3/5, C 1/5
    "greedy-draft": (F(1, 5), F(3, 5), F(1, 5)),
    # candidates = q's top two {A, B}: r restricted to them is (0, 1): B 3/10 + 2/5 = 7/10, C stays 1/5
    "candidates-only": (F(1, 10), F(7, 10), F(1, 5)),
    # draft ~ q on {A, B} = (5/8, 3/8); A kept w.p. 1/5: A 1/8, corrected 5/8*4/5 = 1/2 by r:
    # B 3/8 + 3/8 = 3/4, C 1/8
    "unprocessed-draft": (F(1, 8), F(3, 4), F(1, 8)),
}


@pytest.mark.parametrize("name", sorted(HAND_LAWS))
def test_one_step_laws_worked_out_by_hand(name):
    scenario = load_scenario("bernoulli-residual")
    assert step_law(scenario.p, scenario.q, name).total == HAND_LAWS[name]
    model = load_model("bernoulli-residual")  # the same through the block engine, K = 1, L = 1
    law = compare_laws(model, 1, 1, name).speculative
    assert tuple(law.get((i,), F(0)) for i in range(3)) == HAND_LAWS[name]


def test_epsilon_floor_hand_values_simplified():
    b, c = HAND_LAWS["epsilon-floor"][1:]
    assert b == F(3, 10) + F(2, 5) * F(300, 401) and c == F(1, 5) + F(40, 401)


def test_keep_testing_by_hand_on_a_two_token_chain(tmp_path):
    # vocab a, b. start: p = (1/2, 1/2), q = (1, 0): the draft always proposes a, kept w.p. 1/2, else
    # replaced by b (r = (0, 1)). After a: p = (1, 0), q = (1/2, 1/2). After b: p = (1/2, 1/2), q = (1, 0).
    path = tmp_path / "chain.toml"
    path.write_text(
        'title = "t"\nkind = "markov"\nvocab = ["a", "b"]\n'
        '[target]\nstart = ["1/2", "1/2"]\na = ["1", "0"]\nb = ["1/2", "1/2"]\n'
        '[draft]\nstart = ["1", "0"]\na = ["1/2", "1/2"]\nb = ["1", "0"]\n',
        encoding="utf-8",
    )
    model = load_model(str(path))
    # Correct, K = 2: a (1/2) -> draft 2 ~ q(.|a) = (1/2, 1/2) tested with p(.|a) = (1, 0): a kept,
    # b rejected and replaced from r = (1, 0) by a: P(a a) = 1/2. b (1/2) -> next from p(.|b): (1/4, 1/4).
    # Keep-testing: after start's replacement b, the second draft (a or b, 1/2 each, drafted after a)
    # is tested against history b: p(.|b) = (1/2, 1/2), q(.|b) = (1, 0): a kept w.p. 1/2, else r = (0, 1)
    # gives b; b has q(b|b) = 0 and p(b|b) > 0, so it is kept. P(b a) = 1/2 * 1/2 * 1/2 = 1/8, P(b b) = 3/8.
    correct = compare_laws(model, 2, 2, "correct")
    assert correct.speculative == {(0, 0): F(1, 2), (1, 0): F(1, 4), (1, 1): F(1, 4)}
    wrong = compare_laws(model, 2, 2, "keep-testing-after-rejection")
    assert wrong.speculative == {(0, 0): F(1, 2), (1, 0): F(1, 8), (1, 1): F(3, 8)}
    assert wrong.distance == F(1, 8)


def test_zero_out_rejected_is_exact_for_a_one_hot_draft():
    scenario = load_scenario("one-hot-draft")
    assert step_law(scenario.p, scenario.q, "zero-out-rejected").total == scenario.p.values


def test_helpers():
    assert residual_row((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2))) is None  # Z = 0: no 0/0
    assert top_tokens((F(1, 4), F(1, 2), F(1, 4)), 2) == (0, 1)  # ties broken by vocabulary order


@pytest.mark.parametrize("name", [n for n in VARIANTS if VARIANTS[n].one_step_differs])
def test_one_step_simulation_follows_the_variant_law_not_the_target(name):
    # Fixed seed, 400k steps: the p-values are fixed numbers; bounds sit many orders away from them.
    # The epsilon floor moves only ~1/1000 of the mass in the worked example (too little for 400k steps);
    # with disjoint supports it hands mass to C and D, which the target never produces.
    scenario = load_scenario("disjoint-support" if name == "epsilon-floor" else "bernoulli-residual")
    sim = simulate_steps(scenario.p, scenario.q, 400_000, seed=2024, variant=name)
    assert sim.fit("law").p_value > 1e-4
    assert sim.fit("target").p_value < 1e-8
