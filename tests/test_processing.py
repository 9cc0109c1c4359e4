"""Logit processing (temperature, top-k, top-p) on hand-computable logits, and the mismatched check."""

import math

import numpy as np
import pytest

from lab.core.distance import total_variation
from lab.teaching.processing import (
    Processing,
    ProcessingInputError,
    output_law,
    parse_logits,
    process,
    processed_step,
    processed_step_from_text,
)

# logits = log(1, 2, 3, 4): softmax is (1, 2, 3, 4) / 10 exactly in real arithmetic.
LOGITS = np.log([1.0, 2.0, 3.0, 4.0])


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-14)


def test_plain_softmax():
    close(process(LOGITS, Processing()), [0.1, 0.2, 0.3, 0.4])


def test_temperature_half_squares_the_weights():
    # logits / 0.5 = 2 log w: weights w^2 = 1, 4, 9, 16, total 30.
    close(process(LOGITS, Processing(temperature=0.5)), np.array([1, 4, 9, 16]) / 30)


def test_temperature_two_takes_square_roots():
    w = np.sqrt([1.0, 2.0, 3.0, 4.0])
    close(process(LOGITS, Processing(temperature=2.0)), w / w.sum())


def test_top_k_keeps_the_k_largest():
    # top-2 keeps 3 and 4: (0, 0, 3/7, 4/7).
    close(process(LOGITS, Processing(top_k=2)), [0, 0, 3 / 7, 4 / 7])
    close(process(LOGITS, Processing(top_k=10)), [0.1, 0.2, 0.3, 0.4])  # k above the vocabulary: no-op


def test_top_k_keeps_ties_with_the_kth_logit():
    close(process(np.array([1.0, 1.0, 0.0]), Processing(top_k=1)), [0.5, 0.5, 0])


def test_top_p_keeps_the_smallest_prefix_reaching_p():
    # Sorted: 0.4, 0.3, 0.2, 0.1; mass ranked above each: 0, 0.4, 0.7, 0.9.
    # top-p 0.65 keeps 0.4 and 0.3 (0.7 >= 0.65): (0, 0, 3/7, 4/7).
    close(process(LOGITS, Processing(top_p=0.65)), [0, 0, 3 / 7, 4 / 7])
    # top-p 0.75 needs 0.2 too (0.7 < 0.75): (0, 2/9, 3/9, 4/9).
    close(process(LOGITS, Processing(top_p=0.75)), [0, 2 / 9, 3 / 9, 4 / 9])
    # A tiny top-p still keeps the single most likely token.
    close(process(LOGITS, Processing(top_p=0.05)), [0, 0, 0, 1])


def test_temperature_then_top_k_then_top_p():
    # temperature 0.5: (1, 4, 9, 16)/30; top-k 3 drops the 1: (4, 9, 16)/29; top-p 0.5: 16/29 = 0.55 >= 0.5,
    # so only the last token survives.
    close(process(LOGITS, Processing(temperature=0.5, top_k=3, top_p=0.5)), [0, 0, 0, 1])
    # top-p 0.6: 16/29 < 0.6 so 9 joins: (0, 0, 9/25, 16/25).
    close(process(LOGITS, Processing(temperature=0.5, top_k=3, top_p=0.6)), [0, 0, 9 / 25, 16 / 25])


def test_temperature_zero_is_greedy_first_of_ties():
    close(process(LOGITS, Processing(temperature=0)), [0, 0, 0, 1])
    close(process(np.array([2.0, 2.0, 1.0]), Processing(temperature=0)), [1, 0, 0])


def test_processing_validation():
    for kwargs in ({"temperature": -1.0}, {"temperature": math.inf}, {"top_k": -1}, {"top_p": 0.0}, {"top_p": 1.5}):
        with pytest.raises(ProcessingInputError):
            Processing(**kwargs)


def test_output_law_of_a_mismatched_check_by_hand():
    # p = (1/2, 1/4, 1/4); proposals from q_s = (1/3, 1/3, 1/3); the test uses q_c = (1/4, 1/4, 1/2).
    # Keep: A min(1, 2) = 1, B min(1, 1) = 1, C min(1, 1/2) = 1/2 -> kept (1/3, 1/3, 1/6), rejection 1/6.
    # r from q_c: max(0, p - q_c) = (1/4, 0, 0) -> r = (1, 0, 0). Law (1/2, 1/3, 1/6); TV = (0 + 1/12 + 1/12)/2 = 1/12.
    law, problem = output_law([0.5, 0.25, 0.25], [1 / 3, 1 / 3, 1 / 3], [0.25, 0.25, 0.5])
    assert problem is None
    close(law, [0.5, 1 / 3, 1 / 6])
    assert total_variation(law, [0.5, 0.25, 0.25]) == pytest.approx(1 / 12, abs=1e-15)


def test_output_law_with_matching_check_is_p():
    p, q = [0.5, 0.25, 0.25], [0.25, 0.25, 0.5]
    law, _ = output_law(p, q, q)
    close(law, p)


def test_output_law_reports_rejection_with_nothing_to_normalise():
    # The check says q_c = p (Z = 0) but proposals come from q_s, which proposes C with p(C) = 0: rejection.
    law, problem = output_law([0.5, 0.5, 0.0], [0.25, 0.25, 0.5], [0.5, 0.5, 0.0])
    assert law is None and "0/0" in problem


def test_processed_step_unprocessed_draft_mismatch():
    # Target logits log(4, 3, 2, 1), draft logits log(1, 2, 3, 4); top-k 2 makes the processed draft differ
    # from its raw softmax, so checking with the raw q moves the law away from the processed target.
    tokens = ("A", "B", "C", "D")
    step = processed_step(tokens, np.log([4.0, 3.0, 2.0, 1.0]), np.log([1.0, 2.0, 3.0, 4.0]), Processing(top_k=2))
    close(step.p, [4 / 7, 3 / 7, 0, 0])
    close(step.q, [0, 0, 3 / 7, 4 / 7])
    close(step.q_raw, [0.1, 0.2, 0.3, 0.4])
    assert step.correct_tv < 1e-15
    # Disjoint processed supports: correct law = p. Mismatch: proposals C, D (never kept since p = 0) -> all rejected;
    # r from the raw q: max(0, p - q_raw) = (4/7 - 1/10, 3/7 - 2/10, 0, 0) = (33/70, 16/70, 0, 0), sum 49/70.
    close(step.mismatch_law, [33 / 49, 16 / 49, 0, 0])
    assert step.mismatch_tv == pytest.approx(33 / 49 - 4 / 7, abs=1e-14)
    close(step.residual.residual, [4 / 7, 3 / 7, 0, 0])  # alpha = 0: r = p


def test_processed_step_from_text_aligns_tokens_and_reports_errors():
    step = processed_step_from_text("A=1, B=2", "B=0, A=0", Processing())
    close(step.q, [0.5, 0.5])
    with pytest.raises(ProcessingInputError, match="'B' is in only one"):
        processed_step_from_text("A=1, B=2", "A=0, C=0", Processing())
    with pytest.raises(ProcessingInputError, match="'B'"):
        parse_logits("A=1, B=x")
    with pytest.raises(ProcessingInputError, match="not finite"):
        parse_logits("A=1, B=inf")
    with pytest.raises(ProcessingInputError, match="more than once"):
        parse_logits("A=1, A=2")
    with pytest.raises(ProcessingInputError):
        parse_logits("  ")
