"""Residual Lab core: the correction distribution of speculative sampling, exact and float64.

Pure Python and numpy (no Streamlit): every number a page, chart or the CLI shows comes from here.
"""

from lab.core.binomial import binomial
from lab.core.distributions import Distribution, LabInputError, parse_spec
from lab.core.residual import ResidualResult, residual
from lab.core.scenarios import load_scenario, scenario_names

__all__ = [
    "Distribution",
    "LabInputError",
    "ResidualResult",
    "binomial",
    "load_scenario",
    "parse_spec",
    "residual",
    "scenario_names",
]
