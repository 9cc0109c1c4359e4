"""Total variation distance: the one place the lab measures how far two laws are apart.

TV(a, b) = 1/2 * sum |a(x) - b(x)| over the union of both supports. Exact inputs (Fractions, ints) give
a Fraction; any float gives a float; numpy arrays are summed vectorised (float64).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np


def total_variation(a, b):
    """Half the L1 distance between two laws: aligned sequences (one value per outcome, same order) or
    two mappings outcome -> probability (an outcome missing from one counts as 0 there)."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        keys = set(a) | set(b)
        diffs = [a.get(k, 0) - b.get(k, 0) for k in keys]
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            raise ValueError(f"total variation of {a.size} against {b.size} values")
        return 0.5 * float(np.abs(a - b).sum())
    else:
        a, b = list(a), list(b)
        if len(a) != len(b):
            raise ValueError(f"total variation of {len(a)} against {len(b)} values")
        diffs = [x - y for x, y in zip(a, b)]
    if all(isinstance(d, (int, Fraction)) for d in diffs):
        # exact: add whole numbers over one common denominator (long laws of Fractions add slowly)
        common = math.lcm(1, *{Fraction(d).denominator for d in diffs})
        return Fraction(sum(abs(d.numerator * (common // d.denominator)) for d in map(Fraction, diffs)), 2 * common)
    return sum((abs(d) for d in diffs), Fraction(0)) / 2
