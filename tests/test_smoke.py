from fractions import Fraction as F

from lab import residual


def test_seed_example_by_hand():
    # p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5): min = (1/10, 3/10, 1/5), Z = 3/10 + 1/10 = 2/5.
    result = residual("A=1/10,B=3/5,C=3/10", "A=1/2,B=3/10,C=1/5")
    assert result.z == F(2, 5)
    assert result.residual == (F(0), F(3, 4), F(1, 4))
