"""What speculation buys: expected tokens per block and walltime improvement (Leviathan et al. 2023).

With acceptance rate alpha (each draft kept with probability alpha, independently) and gamma drafts
per block, the number of tokens a block commits is 1 + (number of leading accepted drafts), capped
at gamma + 1 (all accepted plus the bonus token), so (eq. 1 of the paper)

    E[tokens per block] = (1 - alpha^(gamma + 1)) / (1 - alpha),   = gamma + 1 when alpha = 1.

A block costs gamma draft runs at c times a target run plus one target run, so the expected
walltime improvement factor over plain decoding is (Theorem 3.8)

    (1 - alpha^(gamma + 1)) / ((1 - alpha) (gamma c + 1)).

Exact for Fraction inputs, float otherwise. :func:`best_gamma` searches the integers 0..max_gamma
(gamma = 0 is plain decoding, improvement 1), and says there is none (None) when the improvement grows
with gamma for ever (alpha = 1 with c < 1, or c = 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lab.core.distributions import LabInputError
from lab.core.errors import said

MAX_GAMMA = 64


class SpeedupInputError(LabInputError):
    pass


def _check(alpha, gamma: int, c=None) -> None:
    if not 0 <= alpha <= 1:
        raise SpeedupInputError(f"acceptance rate alpha must be in [0, 1] (got {alpha})")
    if isinstance(gamma, bool) or not isinstance(gamma, int) or gamma < 0:
        raise SpeedupInputError(f"gamma must be a whole number >= 0 (got {gamma!r})")
    if c is not None and not c >= 0:
        raise SpeedupInputError(f"cost ratio c must be >= 0 (got {c})")


def expected_tokens(alpha, gamma: int):
    """(1 - alpha^(gamma+1)) / (1 - alpha); gamma + 1 at alpha = 1 (no 0/0)."""
    _check(alpha, gamma)
    if alpha == 1:
        return gamma + 1 if isinstance(alpha, (int, Fraction)) else float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def walltime_improvement(alpha, gamma: int, c):
    """Expected improvement factor in walltime: E[tokens per block] / (gamma c + 1)."""
    _check(alpha, gamma, c)
    return expected_tokens(alpha, gamma) / (gamma * c + 1)


@dataclass(frozen=True)
class BestGamma:
    gamma: int
    improvement: float | Fraction
    tokens_per_block: float | Fraction


def grows_without_end(alpha, c) -> bool:
    """True when every extra draft raises the walltime improvement, so no gamma is best: alpha = 1 with
    c < 1 ((gamma + 1)/(gamma c + 1) rises since 1 - c > 0), or free drafts c = 0 with alpha > 0 (the
    improvement is 1 + alpha + ... + alpha^gamma). Otherwise the improvement falls to 0 for large gamma."""
    return (alpha == 1 and c < 1) or (c == 0 and alpha > 0)


def best_gamma(alpha, c, max_gamma: int = MAX_GAMMA) -> BestGamma | None:
    """The gamma in 0..max_gamma with the largest walltime improvement (the smallest on ties), or None
    when there is no best gamma because the improvement grows with gamma (:func:`grows_without_end`):
    then any search cap would be reported as the answer."""
    _check(alpha, max_gamma, c)
    if grows_without_end(alpha, c):
        return None
    best = None
    for gamma in range(max_gamma + 1):
        value = walltime_improvement(alpha, gamma, c)
        if best is None or value > best.improvement:
            best = BestGamma(gamma, value, expected_tokens(alpha, gamma))
    return best


NO_BEST_GAMMA = said(
    "no best K: every extra draft raises the improvement (α = 1 with c < 1, or free drafts c = 0)"
)


def speedup_curve(alpha, c, gammas) -> list[tuple[int, float, float]]:
    """(gamma, expected tokens per block, walltime improvement) for each gamma."""
    return [(g, float(expected_tokens(alpha, g)), float(walltime_improvement(alpha, g, c))) for g in gammas]


def acceptance_rate(p, q):
    """alpha = sum min(p, q): the chance one draft is kept (exact for Fractions)."""
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))
