"""Speed target: ``lab.core.residual`` on a 128,256-token float64 vocabulary vs the bare numpy expression.

The bare expression is the four numpy steps with no validation and no result object:
``np.minimum(p, q)``, ``np.maximum(p - q, 0)``, ``.sum()``, ``/ z``. Both run in the same process,
interleaved repeat by repeat (so machine load hits both alike); the medians are compared.
Target: residual / bare <= 1.5. Run: ``python bench/bench_residual.py`` (exit status 1 on FAIL).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.core.residual import residual  # noqa: E402

VOCABULARY = 128_256
TARGET_RATIO = 1.5
REPEATS = 41  # interleaved timing samples per contender
INNER = 20  # calls per sample, so each sample is well above the timer's resolution


def bare(p: np.ndarray, q: np.ndarray):
    accepted = np.minimum(p, q)
    excess = np.maximum(p - q, 0)
    z = excess.sum()
    return accepted, z, excess / z


def lab_residual(p: np.ndarray, q: np.ndarray):
    return residual(p, q)


def sample(fn, p, q) -> float:
    start = time.perf_counter()
    for _ in range(INNER):
        fn(p, q)
    return (time.perf_counter() - start) / INNER


def main() -> int:
    rng = np.random.default_rng(20260530)
    p = rng.dirichlet(np.ones(VOCABULARY))
    q = rng.dirichlet(np.ones(VOCABULARY))
    assert p.dtype == q.dtype == np.float64

    # The two compute the same thing (so the comparison is fair), checked before timing.
    ref_accepted, ref_z, ref_r = bare(p, q)
    result = residual(p, q)
    assert result.branch == "rejection" and result.inconsistency is None
    assert np.array_equal(result.accepted, ref_accepted)
    assert result.z == ref_z
    assert np.array_equal(result.residual, ref_r)

    for _ in range(3):  # warm-up: caches, allocator, lazy imports
        sample(bare, p, q)
        sample(lab_residual, p, q)

    bare_times, lab_times = [], []
    for i in range(REPEATS):
        order = (bare, lab_residual) if i % 2 == 0 else (lab_residual, bare)
        for fn in order:
            (bare_times if fn is bare else lab_times).append(sample(fn, p, q))

    bare_median = statistics.median(bare_times)
    lab_median = statistics.median(lab_times)
    ratio = lab_median / bare_median
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"vocabulary: {VOCABULARY:,} tokens, float64; {REPEATS} interleaved samples of {INNER} calls each")
    print(f"bare numpy (minimum, maximum(p - q, 0), sum, divide): median {bare_median * 1e3:.3f} ms")
    print(f"lab.core.residual (validated, with alpha, z, branch):      median {lab_median * 1e3:.3f} ms")
    print(f"ratio residual / bare = {ratio:.2f}x   target <= {TARGET_RATIO}x   {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
