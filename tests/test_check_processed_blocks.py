"""``lab check`` on block samplers and whole-generation loops that take temperature, top-k and top-p: they get the
raw rows and ``processing=``, and the reference is the processed target's law of L tokens.

The case's model: at the start raw p = (8, 5, 3, 2, 1, 1)/20 and q = (5, 6, 4, 3, 1, 1)/20, after token t the same
rows turned t + 1 places. Processing (temperature 0.5, top-k 3, top-p 0.75) worked by hand: p^2 = (64, 25, 9, 4, 1,
1)/104, top-3 keeps (64, 25, 9)/98, top-p drops 9/98 (<= 1/4) and keeps (64, 25)/89; q^2 = (25, 36, 16, 9, 1, 1)/88,
top-3 (25, 36, 16)/77, top-p drops 16/77 and keeps (25, 36)/61. So in every context the processed target puts 64/89
on one token and 25/89 on the next, and the two-token law is (64/89)^2, 64·25/89^2 twice, (25/89)^2.
"""

from fractions import Fraction

import pytest

import tests.check_samplers as samplers
from lab.check import CheckInputError, PowerTarget, check_block, sampler_kind

COARSE = PowerTarget(tv=0.05)
CASE = "processed-markov-K2-L2"
F = Fraction


def hand_law():
    a, b = F(64, 89), F(25, 89)
    return {"w0 w1": a * a, "w0 w2": a * b, "w1 w2": b * a, "w1 w3": b * b}


def raw_draft_q_hand_law():
    # K = 2 drafts cover both tokens, so no bonus token is drawn, and each position follows the one-step law of
    # #47932: drafts from the processed q = (25/61, 36/61) on the context's top two tokens; the top token is always
    # kept (p / q_raw = (64/89) / (5/20) > 1), the second with (25/89) / (6/20) = 250/267, and the residual
    # max(p - q_raw, 0) sits on the top token alone. So second = 36/61 * 250/267 = 9000/16287, top = the rest.
    top, second = F(7287, 16287), F(9000, 16287)
    return {"w0 w1": top * top, "w0 w2": top * second, "w1 w2": second * top, "w1 w3": second * second}


def test_a_sampler_that_takes_the_processing_is_a_block_sampler_or_a_loop():
    assert sampler_kind(samplers.processed_block) == "block"
    assert sampler_kind(samplers.processed_generate) == "generate"

    def six(target, draft, prefix, k, rng, processing):
        return []

    with pytest.raises(CheckInputError):  # six arguments without .processing = True: not a known kind
        sampler_kind(six)


def test_the_processed_case_is_added_only_for_a_sampler_that_takes_the_processing():
    names = [c.name for c in check_block(samplers.processed_block, max_draws=1, cases=None).cases]
    assert CASE in names
    from examples.correct_numpy import block

    assert CASE not in [c.name for c in check_block(block, max_draws=1).cases]


def test_a_correct_processed_block_sampler_passes_against_the_processed_target_law():
    report = check_block(samplers.processed_block, cases=[CASE, "markov-ab-end-K2-L3"], target=COARSE)
    processed, plain = report.cases
    assert processed.passed and plain.passed, (processed.reasons, plain.reasons)
    assert processed.data["target_law"] == {k: str(v) for k, v in hand_law().items()}


def test_the_raw_logits_draft_q_of_transformers_47932_is_named_in_a_block():
    from lab.check.processing import processed_block_case

    case = processed_block_case(2, 2)
    law = case.variant_laws()["raw-draft-q"]
    assert {case.outcome_text(o): v for o, v in law.items()} == raw_draft_q_hand_law()
    report = check_block(samplers.raw_draft_q_block, cases=[CASE, "markov-ab-end-K2-L3"], target=COARSE)
    processed, plain = report.cases
    assert plain.passed, plain.reasons  # the processing that changes nothing: the raw q is the q
    fit = processed.data["best_variant"]
    assert processed.verdict == "fail" and fit["named"] and fit["variant"] == "raw-draft-q", fit


def test_a_block_sampler_that_ignores_the_processing_fails_the_processed_case():
    (case,) = check_block(samplers.unprocessed_block, cases=[CASE], target=COARSE).cases
    assert case.verdict == "fail"
    # the raw target puts mass on four tokens of six after the first; the processed law has none there
    assert any(c for k, c in case.data["counts"].items() if k not in hand_law())


def test_a_whole_generation_loop_gets_the_processing_and_is_held_to_the_processed_law():
    report = check_block(samplers.processed_generate, interface="generate", cases=[CASE], target=COARSE)
    assert report.passed, report.cases[0].reasons
    (wrong,) = check_block(samplers.raw_draft_q_generate, interface="generate", cases=[CASE], target=COARSE).cases
    fit = wrong.data["best_variant"]
    assert wrong.verdict == "fail" and fit["variant"] == "raw-draft-q", fit


def test_the_command_line_runs_the_processed_case_for_a_loop_that_takes_the_processing(tmp_path, capsys):
    from lab.cli.main import main

    code = main(["check", "tests/check_samplers.py:raw_draft_q_generate", "--tv", "0.05", "--cases", CASE])
    out = capsys.readouterr()
    assert code == 1, out.err
    assert "raw-draft-q" in out.out and CASE in out.out
