"""How many draws a case needs: a stated bias detected with stated power at a stated false-alarm rate.

The test is Pearson's chi-square of the counts against the case's exact law (the lab's one
:func:`lab.core.sampling.chi_square_test`, categories expecting fewer than 5 counts pooled), rejecting
when its p-value is below the false-alarm rate. Against an alternative law at total variation TV from
the exact law p, the statistic is approximately noncentral chi-square with noncentrality
N * chi2(alternative || p), and for every alternative

    chi2(alternative || p) = sum d(x)^2 / p(x) >= 4 TV^2

(Cauchy-Schwarz on the positive and the negative part of d, each of mass TV; equality when d moves
half of p's mass proportionally). So N = lambda / (4 TV^2) draws, where lambda is the noncentrality at
which the test's power reaches the stated power, suffice for *every* alternative at distance >= TV
that stays on p's support; mass put outside the support is caught the moment one draw lands there.
A law with a single possible outcome has nothing to pool: then only draws outside it can show a bias,
and N = log(1 - power) / log(1 - TV) makes one land there with the stated power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize, stats

from lab.core.sampling import chi_square_test

DEFAULT_TV = 0.01
DEFAULT_POWER = 0.99
DEFAULT_FALSE_ALARM = 1e-6


@dataclass(frozen=True)
class PowerTarget:
    """The alternative a check is sized for: detect TV >= ``tv`` with ``power`` at ``false_alarm`` per case."""

    tv: float = DEFAULT_TV
    power: float = DEFAULT_POWER
    false_alarm: float = DEFAULT_FALSE_ALARM

    def __post_init__(self):
        for name, value, low, high in (
            ("tv", self.tv, 0.0, 1.0),
            ("power", self.power, 0.0, 1.0),
            ("false_alarm", self.false_alarm, 0.0, 1.0),
        ):
            if not isinstance(value, (int, float)) or not math.isfinite(value) or not low < value < high:
                raise ValueError(f"{name} must be a number strictly between {low:g} and {high:g} (got {value!r})")

    def as_json(self) -> dict:
        return {"tv": self.tv, "power": self.power, "false_alarm": self.false_alarm}

    def text(self) -> str:
        return f"TV >= {self.tv:g} detected with power {self.power:g} at false-alarm rate {self.false_alarm:g} per case"


def test_bins(law: dict, draws: int) -> int:
    """Categories the chi-square test uses for ``law`` at ``draws`` draws (after pooling small ones)."""
    key = next(k for k, v in law.items() if v)
    return chi_square_test({key: draws}, law).bins


def power_of(df: int, draws: int, target: PowerTarget) -> float:
    """Power of the test with ``df`` degrees of freedom against the worst alternative at TV = target.tv."""
    if df < 1:
        return 1.0 - (1.0 - target.tv) ** draws
    critical = stats.chi2.isf(target.false_alarm, df)
    return float(stats.ncx2.sf(critical, df, 4.0 * draws * target.tv**2))


def ruled_out_tv(df: int, draws: int, target: PowerTarget) -> float | None:
    """The smallest TV that ``draws`` draws detect with the stated power at the stated false-alarm rate (the bias a
    case cut short does rule out): N = lambda / (4 TV^2) solved for TV, or for a single-outcome law
    (1 - TV)^N = 1 - power. None when no TV below 1 is ruled out (too few draws)."""
    if draws < 1:
        return None
    if df < 1:
        tv = -math.expm1(math.log1p(-target.power) / draws)
    else:
        tv = math.sqrt(noncentrality(df, target) / (4.0 * draws))
    return tv if tv < 1.0 else None


def ruled_out_text(df: int, draws: int, target: PowerTarget) -> str:
    """In words: what the draws so far do rule out."""
    tv = ruled_out_tv(df, draws, target)
    if tv is None:
        return "too few draws to rule out any bias"
    return f"the draws so far rule out a bias of TV >= {tv:.3g} (power {target.power:g})"


def noncentrality(df: int, target: PowerTarget) -> float:
    """The noncentrality at which the test with ``df`` degrees of freedom reaches the stated power."""
    critical = stats.chi2.isf(target.false_alarm, df)
    return optimize.brentq(lambda lam: stats.ncx2.sf(critical, df, lam) - target.power, 1e-9, 1e7, xtol=1e-6)


def required_draws(law: dict, target: PowerTarget) -> tuple[int, int]:
    """(draws, degrees of freedom) that give ``target.power`` against every alternative at TV >= target.tv.

    The degrees of freedom depend on the pooling, which depends on the draws: iterate to a fixed point
    (pooling fewer categories only adds degrees of freedom, so a few rounds settle it)."""
    support = sum(1 for v in law.values() if v)
    if support <= 1:
        return math.ceil(math.log1p(-target.power) / math.log1p(-target.tv)), 0
    df = support - 1
    draws = 0
    for _ in range(8):
        draws = math.ceil(noncentrality(df, target) / (4.0 * target.tv**2))
        new_df = max(test_bins(law, draws) - 1, 1)
        if new_df == df:
            break
        df = new_df
    return draws, df
