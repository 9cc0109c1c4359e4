"""Check a real speculative sampler: the specification's test protocol, run on the user's own code.

    from lab.check import check_step, check_block, assert_sampler_passes
    report = check_step(my_step)            # my_step(p, q, rng) -> token (or (token, residual))
    assert report.passed, report.text()

Pure Python, numpy and scipy (no Streamlit): it runs the user's code on the user's machine only
(``python -m lab check MODULE:FUNCTION``), never from the web app.
"""

from lab.check.api import CheckInputError, assert_sampler_passes, check_block, check_step, sampler_kind
from lab.check.power import PowerTarget, power_of, required_draws
from lab.check.report import CaseResult, CheckReport

__all__ = [
    "CaseResult",
    "CheckInputError",
    "CheckReport",
    "PowerTarget",
    "assert_sampler_passes",
    "check_block",
    "check_step",
    "power_of",
    "required_draws",
    "sampler_kind",
]
