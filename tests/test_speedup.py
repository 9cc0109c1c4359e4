"""Speed-up formulas (Leviathan et al. 2023, eq. 1 and Thm 3.8) against hand-computed values."""

from fractions import Fraction as F

import pytest

from lab.core.speedup import SpeedupInputError, best_gamma, expected_tokens, speedup_curve, walltime_improvement


def test_issue_example():
    # (1 - 0.8^6) / 0.2 = (1 - 0.262144) / 0.2 = 3.68928
    assert expected_tokens(0.8, 5) == pytest.approx(3.68928, abs=1e-12)
    assert expected_tokens(F(4, 5), 5) == F(11529, 3125)  # 5 * (1 - 4096/15625), exactly 3.68928


def test_edges():
    assert expected_tokens(1, 5) == 6 and expected_tokens(1.0, 5) == 6.0  # alpha = 1: gamma + 1, no 0/0
    assert expected_tokens(0, 5) == 1  # nothing accepted: the correction token only
    assert expected_tokens(0.5, 0) == 1  # gamma = 0 is plain decoding
    assert expected_tokens(F(1, 2), 2) == F(7, 4)  # 1 + 1/2 + 1/4


def test_walltime_improvement_by_hand():
    # 3.68928 / (5 * 0.1 + 1) = 2.45952
    assert walltime_improvement(0.8, 5, 0.1) == pytest.approx(2.45952, abs=1e-12)
    assert walltime_improvement(F(1, 2), 2, F(1, 4)) == F(7, 4) / F(3, 2)


def test_best_gamma_by_hand():
    # alpha = 0.8, c = 0.05: gamma 7 -> (1 - 0.8^8)/0.2/1.35 = 3.0823, gamma 8 -> (1 - 0.8^9)/0.2/1.4 = 3.0921,
    # gamma 9 -> (1 - 0.8^10)/0.2/1.45 = 3.0780
    best = best_gamma(0.8, 0.05)
    assert best.gamma == 8
    assert best.improvement == pytest.approx(3.09208, abs=1e-5)
    assert best_gamma(0.0, 0.1).gamma == 0  # nothing is ever accepted: do not speculate
    # free drafts: the improvement 1 + 0.9 + ... + 0.9^gamma grows with gamma, so there is no best gamma
    # (the search cap 20 used to be reported as the answer)
    assert best_gamma(0.9, 0.0, max_gamma=20) is None


def test_no_best_gamma_when_every_draft_is_accepted():
    # alpha = 1, c = 0.1: improvement (gamma + 1)/(0.1 gamma + 1): 1, 2/1.1 = 1.818, 3/1.2 = 2.5, ... rising to
    # 10 in the limit, so no gamma is best (the search used to return its cap, 64)
    assert [walltime_improvement(1, g, F(1, 10)) for g in (0, 1, 2)] == [1, F(20, 11), F(5, 2)]
    assert best_gamma(1, F(1, 10)) is None and best_gamma(1.0, 0.5) is None
    # alpha = 1 but c = 1: (gamma + 1)/(gamma + 1) = 1 for every gamma: the smallest, 0, is best
    assert best_gamma(1, 1).gamma == 0
    # alpha = 1 and c = 2: (gamma + 1)/(2 gamma + 1) falls from 1: gamma 0
    assert best_gamma(1, 2).gamma == 0


def test_curve():
    rows = speedup_curve(0.8, 0.1, [0, 5])
    assert rows[0] == (0, 1.0, 1.0)
    assert rows[1][1] == pytest.approx(3.68928) and rows[1][2] == pytest.approx(2.45952)


def test_bad_inputs():
    with pytest.raises(SpeedupInputError):
        expected_tokens(1.2, 3)
    with pytest.raises(SpeedupInputError):
        expected_tokens(0.5, -1)
    with pytest.raises(SpeedupInputError):
        walltime_improvement(0.5, 2, -1)
