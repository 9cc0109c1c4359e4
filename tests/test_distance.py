"""The one total variation distance, by hand."""

from fractions import Fraction as F

import numpy as np
import pytest

from lab.core.distance import total_variation


def test_aligned_fractions_stay_exact():
    # |1/2 - 1/4| + |1/4 - 1/4| + |1/4 - 1/2| = 1/2, halved: 1/4
    d = total_variation([F(1, 2), F(1, 4), F(1, 4)], [F(1, 4), F(1, 4), F(1, 2)])
    assert d == F(1, 4) and isinstance(d, F)


def test_dict_laws_over_both_supports():
    # keys 0, 1, 2: |1/2 - 1/4| + |1/2 - 0| + |0 - 3/4| = 3/2, halved: 3/4
    assert total_variation({(0,): F(1, 2), (1,): F(1, 2)}, {(0,): F(1, 4), (2,): F(3, 4)}) == F(3, 4)


def test_floats_and_arrays():
    assert total_variation([0.5, 0.5], [1.0, 0.0]) == pytest.approx(0.5)
    assert total_variation(np.array([0.25, 0.75]), [0.75, 0.25]) == pytest.approx(0.5)
    assert total_variation([], []) == 0


def test_disjoint_laws_are_at_distance_one():
    assert total_variation([F(1), F(0)], [F(0), F(1)]) == 1


def test_lengths_must_match():
    with pytest.raises(ValueError):
        total_variation([F(1)], [F(1, 2), F(1, 2)])
    with pytest.raises(ValueError):
        total_variation(np.array([1.0]), np.array([0.5, 0.5]))
