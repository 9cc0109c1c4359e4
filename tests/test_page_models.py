"""Page models (lab/models/): from_url validates every parameter and names what it refused, to_url writes
back what from_url reads, reset returns to the defaults; refused answers never use a try or reach an export."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from lab.core.distributions import Distribution
from lab.core.markov import load_model
from lab.core.scenarios import load_scenario
from lab.models.binomial_lab import BinomialLabModel
from lab.models.blocks import MAX_SEED, NO_BLOCK_ENDS, SEARCH_SEEDS, BlocksModel, BlockSteps
from lab.models.exercises import ExercisesModel
from lab.models.explorer import ExplorerModel
from lab.models.sampling import CONTROLS_CHANGED, CompareModel, SamplingModel, StepsRun
from lab.teaching.exercises import Attempt, ExerciseInputError, Problem, record_try
from lab.teaching.exports import check_base_url, results_csv


def names(warnings) -> set[str]:
    return {w.parameter for w in warnings}


def test_sampling_model_round_trip_and_refusals():
    model, warnings = SamplingModel.from_url({"sl_scenario": "disjoint-support", "sl_steps": "500", "sl_guess": "0.35"})
    assert not warnings
    assert (model.scenario, model.steps, model.seed, model.guess) == ("disjoint-support", 500, 1, F(7, 20))
    assert model.to_url() == {"sl_scenario": "disjoint-support", "sl_steps": "500", "sl_guess": "0.35"}
    assert SamplingModel.from_url(model.to_url())[0] == model
    model.reset()
    assert model == SamplingModel() and model.to_url() == {}
    bad, warnings = SamplingModel.from_url(
        {"sl_scenario": "../../etc/passwd", "sl_steps": "inf", "sl_seed": "-1", "sl_guess": "1e-99999999"}
    )
    assert bad == SamplingModel()  # nothing half-applied: every refused value keeps its default
    assert names(warnings) == {"sl_scenario", "sl_steps", "sl_seed", "sl_guess"}
    assert all(str(w).startswith("Ignored in the link: ") for w in warnings)
    assert any("Steps N" in str(w) for w in warnings)  # the control's label beside the parameter


def test_sampling_run_is_shown_only_for_the_controls_it_ran_for():
    # disjoint-support: q proposes only C and D, where p is 0, so every one of the N steps is corrected
    disjoint = load_scenario("disjoint-support")
    model = SamplingModel(scenario="disjoint-support", steps=200, seed=5, guess=F(3, 4))
    run = model.run(disjoint)
    assert run.ran_for == ("disjoint-support", 200, 5) and run.guess == 0.75
    assert run.simulation.steps == 200 and int(run.simulation.corrected.sum()) == 200
    assert int(run.simulation.accepted.sum()) == 0
    assert model.results(disjoint, None) == (None, None)  # not run yet: nothing to say
    assert model.results(disjoint, run) == (run, None)
    for changed in (SamplingModel(scenario="disjoint-support", steps=300, seed=5), SamplingModel(seed=5)):
        assert changed.results(load_scenario(changed.scenario), run) == (None, CONTROLS_CHANGED)
    assert SamplingModel(scenario="disjoint-support", steps=200, seed=6).results(disjoint, run)[0] is None


def test_sampling_guess_miss():
    run = StepsRun(("bernoulli-residual", 10, 1), 0.3, None)
    assert run.guess_miss(F(1, 2)) == pytest.approx(0.2)  # |0.3 - 0.5| = 0.2
    assert run.guess_miss(F(1, 3)) is None  # |0.3 - 1/3| = 0.033 <= 0.05: close
    assert run.guess_miss(F(0)) == pytest.approx(0.3)
    assert StepsRun(("x", 10, 1), 0.25, None).guess_miss(F(1, 3)) == pytest.approx(1 / 12)


def test_compare_run_and_its_prediction_key_follow_the_controls():
    model = CompareModel(model="markov-ab-end", block=1, length=1, outputs=100)
    assert model.guess_key(7) == "sl_cmp_guess::markov-ab-end::1::1::100::7"
    run = model.run(load_model("markov-ab-end"), 7, "same")
    assert run.ran_for == ("markov-ab-end", 1, 1, 100, 7) and run.guess == "same"
    # one token of markov-ab-end: the target's first row, a 2/3, b 1/3 (<end> never comes first)
    assert run.comparison.law == {(0,): F(2, 3), (1,): F(1, 3)} and run.comparison.sequences == 100
    assert model.results(7, run) is run
    assert model.results(8, run) is None and model.results(7, None) is None
    assert CompareModel(model="markov-ab-end", block=2, length=1, outputs=100).results(7, run) is None


def test_blocks_model_takes_the_pages_limits():
    model, warnings = BlocksModel.from_url({"bk_k": "5", "bk_l": "2", "bk_alpha": "1/2"}, max_k=4, max_l=4)
    assert names(warnings) == {"bk_k"} and model.block == 3 and model.length == 2 and model.alpha == F(1, 2)
    assert "1 to 4" in str(warnings[0])
    _, warnings = BlocksModel.from_url(
        {"bk_model": "markov-nine", "bk_variant": "x", "bk_c": "nan", "bk_seed": "1" * 300}, max_k=6, max_l=4
    )
    assert names(warnings) == {"bk_model", "bk_variant", "bk_c", "bk_seed"}


def test_blocks_new_block_and_room():
    assert BlocksModel(seed=7).next_seed() == 8
    assert BlocksModel(seed=MAX_SEED).next_seed() == MAX_SEED  # the last seed stays
    three, ab_end = load_model("markov-three"), load_model("markov-ab-end")
    assert BlocksModel(length=2).room(three) is None  # markov-three never stops: L does not cut its blocks
    assert BlocksModel(length=2).room(ab_end) == 2
    key = BlocksModel(model="markov-ab-end", length=2, seed=9).block_key(ab_end)
    assert key == ("markov-ab-end", 3, 9, "correct", 2)


def test_block_steps_follow_the_step_button():
    three = load_model("markov-three")
    state = BlocksModel()  # markov-three, K = 3, seed 3: a kept draft, a rejected one, a discarded one
    trace = state.trace(three)
    assert [t.status for t in trace.tests] == ["accepted", "rejected", "discarded"]
    steps = BlockSteps()
    steps.follow(state.block_key(three))
    assert steps.revealed == 0 and steps.tests_shown(trace) == () and not steps.finished(trace)
    steps.step(trace)
    assert steps.revealed == 1 and [t.status for t in steps.tests_shown(trace)] == ["accepted"]
    steps.step(trace)
    assert steps.revealed == 2 and not steps.finished(trace)
    steps.step(trace)  # after the rejection the discarded draft needs no step: straight to the end, 3 + 1
    assert steps.revealed == 4 and steps.finished(trace) and len(steps.tests_shown(trace)) == 3
    steps.step(trace)
    assert steps.revealed == 4  # a complete block stays as it is
    steps.restart()
    assert steps.revealed == 0
    steps.show_all(trace)
    assert steps.revealed == 4
    steps.follow(state.block_key(three))  # the same block: where the reader was
    assert steps.revealed == 4
    steps.follow(BlocksModel(seed=4).block_key(three))  # another block: from its drafts again
    assert steps.revealed == 0


def test_blocks_find_a_block_that_ends_at_the_stop_token():
    ab_end = load_model("markov-ab-end")
    # K = 1, L = 1: a drafted a or b is always kept (p/q = 4/3 at the start) and fills the output; a drafted <end>
    # is always rejected (the target never ends first) and the residual (1/6, 1/12, 0) never draws <end>
    assert BlocksModel(model="markov-ab-end", block=1, length=1).seed_ending_at_stop(ab_end) == (None, NO_BLOCK_ENDS)
    assert BlocksModel(model="markov-ab-end", seed=MAX_SEED).seed_ending_at_stop(ab_end) == (None, NO_BLOCK_ENDS)
    state = BlocksModel(model="markov-ab-end", block=3, length=3, seed=3)
    found, note = state.seed_ending_at_stop(ab_end)
    assert note is None and 3 < found <= 3 + SEARCH_SEEDS
    assert state.trace(ab_end, found).ends_output
    assert not any(state.trace(ab_end, seed).ends_output for seed in range(4, found))  # the next such seed


def test_exercises_model_refuses_what_overflowed_the_number_input():
    for value in ("inf", "-inf", "1" * 400, "1e-1_000_000", "3.5", "0"):
        model, warnings = ExercisesModel.from_url({"count": value})
        assert model.count == 5 and names(warnings) == {"count"}, value
    model, warnings = ExercisesModel.from_url({"seed": "42", "count": "3", "level": "zeros"})
    assert not warnings and model.to_url() == {"seed": "42", "count": "3", "level": "zeros"}
    model, warnings = ExercisesModel.from_url({"tab": "Teacher", "level": "zeros"})
    assert not warnings and model.tab == "Teacher" and model.to_url() == {"level": "zeros", "tab": "Teacher"}
    model, warnings = ExercisesModel.from_url({"tab": "Answers"})
    assert model.tab == "Problems" and [w.parameter for w in warnings] == ["tab"]


def test_explorer_model_from_url_to_url_reset():
    link = {"tokens": "x,y", "p": "1/4,3/4", "q": "1/2,1/2", "r": "0,1", "z": "0.25", "reveal": "1", "edit": "1"}
    model, warnings = ExplorerModel.from_url(link)
    assert not warnings
    assert model.valid[0] == Distribution(("x", "y"), (F(1, 4), F(3, 4)))
    assert model.preds == [0.0, 1.0] and model.z_pred == 0.25 and model.revealed == model.valid and model.edit
    assert model.to_url() == {**link, "r": "0,1", "z": "0.25"}
    hidden, _ = ExplorerModel.from_url(link, reveal_allowed=False)  # presenting: never revealed by a link
    assert hidden.revealed is None
    model.reset()
    assert model.valid == ExplorerModel().valid and model.preds == [0.0, 0.0, 0.0] and model.edit  # editor stays


@pytest.mark.parametrize(
    "params, parameter, words",
    [
        ({"scenario": "../../etc/passwd"}, "scenario", "unknown scenario"),
        ({"tokens": "A,B", "p": "1e-1_000_000,1", "q": "1,0"}, "p", "'_'"),
        ({"tokens": "A,B", "p": "1e-20000000,1", "q": "1,0"}, "p", "±100"),
        ({"tokens": ",".join(["A"] * 10_000), "p": "1", "q": "1"}, "tokens", "19,999 characters long"),
        ({"tokens": "A", "p": ",".join(["0"] * 100), "q": "1"}, "p", "100 values; at most 26"),
        ({"tokens": "A" * 50, "p": "1", "q": "1"}, "tokens", "longer than 40"),
        ({"r": "nan,0,0"}, "r", "not finite"),
        ({"z": "1/0"}, "z", "divides by zero"),
        ({"p": "7" * 1_000_000}, "p", "1,000,000 characters"),
    ],
)
def test_explorer_link_refusals_name_the_parameter(params, parameter, words):
    model, warnings = ExplorerModel.from_url(params)
    assert parameter in names(warnings) and any(words in str(w) for w in warnings), warnings
    assert all(len(str(w)) < 400 for w in warnings)
    assert model.valid == ExplorerModel().valid  # the default scenario, not a half-applied table


def test_binomial_model_from_url_to_url_reset():
    model, warnings = BinomialLabModel.from_url({"lab_p": "3/4", "n": "1", "pred": "0.75,0.25", "inspect": "1"})
    assert not warnings and (model.lab_p, model.n, model.preds) == (0.75, 1, [0.75, 0.25])
    assert model.to_url() == {"lab_p": "0.75", "n": "1", "pred": "0.75,0.25", "inspect": "1"}
    assert not model.clean_start  # a link with predictions and a revealed state
    model.reset()
    assert (model.lab_p, model.n, model.clean_start) == (0.5, 5, True)
    fresh, _ = BinomialLabModel.from_url({"lab_p": "0.75", "n": "1"})
    assert fresh.clean_start and fresh.to_url() == {"lab_p": "0.75", "n": "1"}
    fresh.preds = [0.7, 0.3]
    assert fresh.to_url()["reset"] == "1"  # so the link keeps it a clean start
    assert BinomialLabModel.from_url(fresh.to_url())[0].clean_start
    for value in ("abc", "nan", "inf", "1/0", "1e-20000000", "1e-1_000_000", "2"):
        bad, warnings = BinomialLabModel.from_url({"lab_p": value})
        assert names(warnings) == {"lab_p"} and bad.lab_p == 0.5, value


def test_refused_answer_uses_no_try_and_never_reaches_the_export():
    tokens = ("A", "B", "C")
    p = Distribution(tokens, (F(1, 10), F(3, 5), F(3, 10)))
    q = Distribution(tokens, (F(1, 2), F(3, 10), F(1, 5)))
    problem = Problem(1, 0, "basic", "z", None, p, q)  # Z = 3/10 + 1/10 = 2/5
    attempt = Attempt()
    for text in ("1e-3000000", "1e-1_000_000", "4" * 1_000_000):
        check = record_try(attempt, problem, text)
        assert not check.counted and attempt.tries == 0 and attempt.answer == ""
    assert "1e-3000000" not in results_csv([problem], {1: attempt})
    assert record_try(attempt, problem, "2/5").correct and attempt.tries == 1


def test_long_app_address_refused_before_the_qr_code():
    with pytest.raises(ExerciseInputError, match="longer than 1,000 characters"):
        check_base_url("https://" + "a" * 3000 + ".example/")
    assert check_base_url("http://192.168.1.20:8501") == "http://192.168.1.20:8501"


def test_pitfalls_model_checks_the_controls():
    from lab.models.pitfalls import PitfallsModel

    model, warnings = PitfallsModel.from_url(
        {"pit_model": "eight-words", "pit_block": 2, "pit_length": 3, "pit_variant": "zero-over-zero"}, "control"
    )
    assert names(warnings) == {"pit_variant"}  # the numerics card is not one of the selectable mistakes
    assert (model.model, model.block, model.length) == ("eight-words", 2, 3)
    _, warnings = PitfallsModel.from_url({"pit_model": "../../etc/passwd", "pit_block": 99, "pit_length": "abc"})
    assert names(warnings) == {"pit_model", "pit_block", "pit_length"}
    assert any("drafts per block K" in str(w) for w in warnings)


def test_numerics_model_checks_the_controls():
    from lab.models.numerics import NumericsModel

    model, warnings = NumericsModel.from_url(
        {"numerics_gaps": (3, 9), "numerics_temperature": 0.5, "numerics_top_k": 0, "numerics_top_p": 0.35}, "control"
    )
    assert not warnings and model.gaps == (3, 9) and model.temperature == F(1, 2) and model.top_p == F(7, 20)
    _, warnings = NumericsModel.from_url(
        {"numerics_gaps": (9, 3), "numerics_temperature": "abc", "numerics_top_k": 51, "numerics_top_p": 0.0}
    )
    assert names(warnings) == {"numerics_gaps", "numerics_temperature", "numerics_top_k", "numerics_top_p"}
    model, warnings = NumericsModel.from_url({"numerics_target_logits": ""}, "control")
    assert not warnings and model.target_logits == ""  # empty text is kept: the processing step names it


def test_numerics_model_processes_its_logits():
    import math

    import pytest

    from lab.core.distributions import LabInputError
    from lab.models.numerics import NumericsModel

    # logits ln 3 and 0 at temperature 1, no top-k or top-p: softmax p' = (3/4, 1/4); the draft's 0 and 0: (1/2, 1/2)
    model = NumericsModel(target_logits=f"A={math.log(3)!r}, B=0", draft_logits="A=0, B=0", top_k=0)
    step = model.processed_step()
    assert step.tokens == ("A", "B")
    assert step.p == pytest.approx([0.75, 0.25], abs=1e-15) and step.q == pytest.approx([0.5, 0.5], abs=1e-15)
    assert step.residual.z == pytest.approx(0.25, abs=1e-15)  # max(0, 3/4 - 1/2) + max(0, 1/4 - 1/2)
    with pytest.raises(LabInputError, match="B"):
        NumericsModel(target_logits="A=1, B=x", draft_logits="A=0, B=0").processed_step()
