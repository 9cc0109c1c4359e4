"""The residual alone on tiny-Z inputs, in float64 and float32 (for samplers that expose ``step.residual``).

Rejections at gap 1e-12 happen once in 10^12 draws, so no run of draws reaches that residual; a sampler
that exposes its residual function (``step.residual = residual``, called as ``residual(p, q)``, returning
r or None on the no-rejection branch) gets it checked directly on the Numerics page's family
p = q + gap * (3/4, 1/4, -1), q = (1/2, 1/3, 1/6), gaps 1e-2 to 1e-14, each rounded to float64 and to
float32. The reference is the exact residual of the rounded inputs; the error against the intended
values is reported beside it (float32 loses the gap from 1e-8 on: the rounded inputs are equal, Z = 0,
and the residual must not be formed).
"""

from __future__ import annotations

from fractions import Fraction

from lab.check.cases import DTYPES, near_equality_case, rounded
from lab.check.floor import floor_bias, floor_text
from lab.check.power import PowerTarget
from lab.check.report import CaseResult
from lab.check.residuals import check_residual, residual_tolerance
from lab.check.watch import Findings, Watched
from lab.core.formatting import fraction_text
from lab.core.residual import exact_z_and_residual

SWEEP_GAPS = tuple(range(2, 15, 2))  # exponents: gaps 1e-2, 1e-4, ..., 1e-14


def run_residual_sweep(residual_fn, dtype: str) -> CaseResult:
    rows = []
    reasons = []
    notes: dict[str, list[str]] = {}  # note -> the gaps it holds at
    floors: dict[tuple, list] = {}  # (floor, name) -> [(gap, its bias), ...]
    for exponent in SWEEP_GAPS:
        case = near_equality_case(exponent)
        p, q = rounded(case.p, dtype), rounded(case.q, dtype)
        inputs_z, _ = exact_z_and_residual(tuple(Fraction(float(v)) for v in p), tuple(Fraction(float(v)) for v in q))
        findings = Findings()
        returned = None
        with Watched(findings):
            try:
                returned = residual_fn(p, q)
            except Exception as exc:
                findings.record_exception(exc)
        row = {
            "gap": f"1e-{exponent}",
            "exact_z_of_intended_values": fraction_text(case.z),
            "exact_z_of_rounded_inputs": fraction_text(inputs_z),
            "branch_of_rounded_inputs": "rejection" if inputs_z > 0 else "no-rejection",
            "returned": "none" if returned is None else "residual",
            "numerics": findings.as_json(),
        }
        problems = []
        if findings.exception:
            problems.append(f"raised {findings.exception}")
        if findings.invalid:
            problems.append("numpy invalid-value event: a 0/0 (or another invalid operation) was evaluated")
        if returned is None and inputs_z > 0 and not findings.exception:
            problems.append("returned no residual although Z > 0 for its inputs (a reachable rejection branch)")
        if returned is not None:
            check = check_residual(returned, p, q, case.tokens, case.residual)
            row["check"] = check
            problems.extend(check["problems"])
            for note in check.get("notes", []):
                notes.setdefault(note, []).append(f"1e-{exponent}")
            if check.get("floor"):
                found = (check["floor"]["floor"], check["floor"]["known_as"])
                check["floor"].update(floor_bias(case.p, case.q, found[0], PowerTarget()))
                floors.setdefault(found, []).append((f"1e-{exponent}", check["floor"]))
        row["problems"] = problems
        reasons.extend(f"gap 1e-{exponent} ({dtype}): {problem}" for problem in problems)
        rows.append(row)
    description = (
        f"the residual function alone on p = q + gap * (3/4, 1/4, -1), gaps 1e-2 to 1e-14, inputs in {dtype}: "
        f"against the exact residual of the rounded inputs, per-token tolerance (n + 3) eps = "
        f"{residual_tolerance(dtype, 3):.3g} (stated for the float path, apart from the exact identity)"
    )
    for found, seen in floors.items():
        gaps, bias = ", ".join(g for g, _ in seen), seen[0][1]
        reasons.append(f"gaps {gaps} ({dtype}): {floor_text(found, bias)} (sized here at gap {seen[0][0]})")
    notes_text = [f"gaps {', '.join(gaps)} ({dtype}): {note}" for note, gaps in notes.items()]
    return CaseResult(f"residual-{dtype}", "residual", description, not reasons, reasons, notes_text, {
        "input_dtype": dtype, "rtol": residual_tolerance(dtype, 3), "rows": rows,
    })


def residual_sweeps(residual_fn) -> list[CaseResult]:
    return [run_residual_sweep(residual_fn, dtype) for dtype in DTYPES]
