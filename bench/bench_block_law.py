"""The exact block law: the old enumeration of every draft path beside the prefix-by-prefix forward pass.

Both run in this process, one after the other, on the same models, K and L, for all nine variants
(the Pitfalls page computes all of them); the laws must be identical Fractions. Prints CPU seconds
of each and the ratio. The old code lives in tests/reference_blocks.py.

    python bench/bench_block_law.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab.core import variants  # noqa: E402
from lab.core.blocks import speculative_law  # noqa: E402
from lab.core.markov import load_model  # noqa: E402
from lab.core.variants import VARIANT_NAMES  # noqa: E402
from tests.reference_blocks import enumerated_law  # noqa: E402  (the old enumeration, kept as the tests' reference)

# bernoulli-residual K = L = 8 is one of the reproductions (11.6 s on the page); it lists 6,561 sequences,
# above the pages' limit, so the forward pass runs it with allow_large.
CASES = [("eight-words", 8, 4), ("bernoulli-residual", 8, 8), ("markov-three", 8, 6), ("markov-draft-misses", 4, 5)]


def cpu(law, model, block: int, length: int, **options) -> tuple[float, list]:
    """CPU seconds for every variant's law, starting with cold rule caches."""
    variants._cached.cache_clear()
    start = time.process_time()
    result = [law(model, block, length, v, **options) for v in VARIANT_NAMES]
    return time.process_time() - start, result


def main() -> int:
    print(f"{'model':<22} {'K':>2} {'L':>2} {'enumeration':>12} {'forward pass':>13} {'ratio':>7}  (9 variants, CPU s)")
    same = True
    for name, block, length in CASES:
        model = load_model(name)
        old_time, old = cpu(enumerated_law, model, block, length)
        new_time, new = cpu(speculative_law, model, block, length, allow_large=True)
        same &= old == new
        print(f"{name:<22} {block:>2} {length:>2} {old_time:>12.3f} {new_time:>13.3f} {old_time / new_time:>6.0f}x")
    print("identical Fractions for every variant" if same else "MISMATCH between the two laws")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
