"""Boundary draws: the uniforms no draw count reaches, fed to the acceptance test on purpose.

A sampler that keeps a draft on ``u <= p(x)/q(x)`` is right for every u > 0, but keeps a token with
p(x) = 0 when u is exactly 0: numpy's ``random()`` returns 0 with probability 2^-53, float32
``torch.rand`` about once in 3*10^7 draws (seen 6 times in 2*10^8 on CPU), so no number of draws shows
it. ``u < p(x)/q(x)`` (or ``u * q(x) < p(x)``) never keeps such a token. At the other end, u just below 1
finds an inverse CDF that runs past the last token of positive probability (a cumulative sum rounded
below 1). The check calls the sampler a few times with a stand-in for its generator whose ``random()``
returns only those values (0 and the largest float below 1, in the requested dtype), and fails the case
if a token of probability 0 comes back.
"""

from __future__ import annotations

import numpy as np

from lab.check.residuals import listed
from lab.check.watch import Findings, Watched, exception_text

# each call's successive random() values cycle through one pattern (0 = zero, 1 = the float below 1)
PATTERNS = ((0,), (1,), (0, 1), (1, 0), (0, 0, 1), (1, 1, 0))


class BoundaryUniforms:
    """Stands in for a numpy Generator: ``random()`` returns the pattern's values in turn; any other
    method is the real generator's, and is recorded (the boundary values then did not reach it)."""

    def __init__(self, pattern: tuple[int, ...], fallback: np.random.Generator):
        self._pattern = pattern
        self._fallback = fallback
        self.calls = 0
        self.other: set[str] = set()

    def _value(self, dtype):
        dtype = np.dtype(dtype)
        top = np.nextafter(dtype.type(1), dtype.type(0))
        value = top if self._pattern[self.calls % len(self._pattern)] else dtype.type(0)
        self.calls += 1
        return value

    def random(self, size=None, dtype=np.float64, out=None):
        if size is None and out is None:
            value = self._value(dtype)
            return float(value) if np.dtype(dtype) == np.float64 else value
        shape = out.shape if out is not None else size
        values = np.array([self._value(dtype) for _ in range(int(np.prod(shape)))], dtype=dtype).reshape(shape)
        if out is not None:
            out[...] = values
            return out
        return values

    def __getattr__(self, name):
        self.other.add(name)
        return getattr(self._fallback, name)


def pattern_text(pattern: tuple[int, ...]) -> str:
    values = ["0" if v == 0 else "just below 1" for v in pattern]
    return "u = " + ", ".join(values) + (" (repeating)" if len(values) > 1 else " at every call of rng.random()")


def boundary_relevant(p, q) -> bool:
    """Worth running where a token the draft proposes has p = 0 (u = 0 there shows `<=`)."""
    return any(b > 0 and a == 0 for a, b in zip(p, q))


def run_boundary(step, p, q, p_exact, tokens, rng: np.random.Generator) -> tuple[dict, list[str], list[str]]:
    """(data, reasons, notes) from one call per pattern with the boundary uniforms."""
    rows, reasons, notes = [], [], []
    kept_zero = []
    applied = True
    for pattern in PATTERNS:
        fake = BoundaryUniforms(pattern, rng)
        findings = Findings()
        row: dict = {"uniforms": pattern_text(pattern)}
        with Watched(findings):
            try:
                out = step(p, q, fake)
            except Exception as exc:
                row["exception"] = exception_text(exc)
                out = None
        if type(out) is tuple and len(out) == 2:
            out = out[0]
        if fake.other or not fake.calls:
            applied = False
            row["not_applied"] = sorted(fake.other) or ["no call of rng.random()"]
        try:
            token = int(out) if out is not None else None
        except (TypeError, ValueError):
            token = None
        row["token"] = tokens[token] if token is not None and 0 <= token < len(tokens) else None
        if "exception" in row:
            reasons.append(f"boundary uniforms ({row['uniforms']}): the sampler raised {row['exception']}")
        elif token is not None and 0 <= token < len(tokens) and p_exact[token] == 0:
            kept_zero.append(f"{tokens[token]} (q = {float(q[token]):.4g}) with {row['uniforms']}")
        rows.append(row)
    if kept_zero:
        reasons.append(
            "boundary uniforms: the sampler returned a token with p = 0: " + "; ".join(kept_zero) + ". Keeping a "
            "draft on u <= p/q keeps a token with p = 0 when u is exactly 0 (numpy's random() returns 0 once in "
            "2^53 draws, float32 torch.rand about once in 3*10^7: no draw count shows it); keep it on u < p/q, "
            "or u * q < p, which never does. (Only u just below 1 failing: an inverse CDF that runs past the last "
            "token of positive probability.)"
        )
    if not applied:
        used = sorted({name for row in rows for name in row.get("not_applied", [])})
        notes.append(
            "boundary uniforms not fully applied: the sampler drew with " + listed(used)
            + " (only rng.random() is scripted; draw every uniform with rng.random() to have them checked)"
        )
    return {"applied": applied, "calls": rows}, reasons, notes
