"""Boundary draws: the uniforms no draw count reaches, fed to the acceptance test on purpose.

A sampler that keeps a draft on ``u <= p(x)/q(x)`` is right for every u > 0, but keeps a token with
p(x) = 0 when u is exactly 0: numpy's ``random()`` returns 0 with probability 2^-53, float32
``torch.rand`` about once in 3*10^7 draws (seen 6 times in 2*10^8 on CPU), so no number of draws shows
it. ``u < p(x)/q(x)`` (or ``u * q(x) < p(x)``) never keeps such a token. At the other end, u just below 1
finds an inverse CDF that runs past the last token of positive probability (a cumulative sum rounded
below 1). The check calls the sampler a few times with a stand-in for its generator whose ``random()``
returns only those values (0 and the largest float below 1, in the requested dtype), and fails the case
if a token of probability 0 comes back.

A torch sampler draws from a ``torch.Generator`` (or torch's global one): there the check replaces
``torch.rand``, ``torch.rand_like`` and ``Tensor.uniform_`` for the boundary calls (:class:`TorchUniforms`),
the uniforms transformers' ``_speculative_sampling`` and the lab's torch examples draw; their drafts come
from ``torch.multinomial``, which is left alone, so each pattern is called several times.

The message names the cause the calls show: a token of probability 0 returned as a kept draft (the sampler
says so by returning ``(token, None)`` or ``(token, True)``) is ``<=`` at the boundary; one returned with a
residual is the residual's mass where p = 0; for a sampler that returns a token alone, draws on tokens of
probability 0 in the ordinary counts point at mass there, not at the boundary.
"""

from __future__ import annotations

import contextlib

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


class TorchUniforms(contextlib.AbstractContextManager):
    """While active, ``torch.rand``, ``torch.rand_like`` and ``Tensor.uniform_`` return the pattern's values in
    turn (0 and the largest value below 1 of the tensor's dtype), whatever generator they are given."""

    def __init__(self, pattern: tuple[int, ...]):
        import torch

        self.torch = torch
        self._pattern = pattern
        self.calls = 0
        self._saved: list = []

    def _values(self, shape, dtype):
        torch = self.torch
        dtype = dtype or torch.get_default_dtype()
        top = 1.0 - torch.finfo(dtype).eps / 2  # the largest value below 1 in this dtype
        count = 1
        for n in shape:
            count *= int(n)
        values = []
        for _ in range(count):
            values.append(top if self._pattern[self.calls % len(self._pattern)] else 0.0)
            self.calls += 1
        return torch.tensor(values, dtype=dtype).reshape(tuple(shape))

    def __enter__(self):
        torch = self.torch
        me = self

        def rand(*size, generator=None, dtype=None, **_):
            shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)) else size
            return me._values(shape, dtype)

        def rand_like(tensor, dtype=None, **_):
            return me._values(tensor.shape, dtype or tensor.dtype)

        def uniform_(tensor, a=0.0, b=1.0, generator=None):
            with torch.no_grad():
                tensor.copy_(a + (b - a) * me._values(tensor.shape, tensor.dtype))
            return tensor

        self._saved = [(torch, "rand", torch.rand), (torch, "rand_like", torch.rand_like),
                       (torch.Tensor, "uniform_", torch.Tensor.uniform_)]
        torch.rand, torch.rand_like, torch.Tensor.uniform_ = rand, rand_like, uniform_
        return self

    def __exit__(self, *exc):
        for owner, name, original in self._saved:
            setattr(owner, name, original)
        return False


def pattern_text(pattern: tuple[int, ...], mode: str = "numpy") -> str:
    values = ["0" if v == 0 else "just below 1" for v in pattern]
    where = "rng.random()" if mode == "numpy" else "torch.rand / rand_like / uniform_"
    return "u = " + ", ".join(values) + (" (repeating)" if len(values) > 1 else f" at every call of {where}")


def boundary_relevant(p, q) -> bool:
    """Worth running where a token the draft proposes has p = 0 (u = 0 there shows `<=`)."""
    return any(b > 0 and a == 0 for a, b in zip(p, q))


def was_kept(second) -> bool:
    """What the second value of ``(token, second)`` says: ``None`` or ``True`` kept, a residual or ``False`` not."""
    flag = kept_flag(second)
    return second is None if flag is None else flag


def how_returned(out) -> tuple[object, str]:
    """(token, how): how is "kept" (``(token, None)`` or ``(token, True)``), "corrected" (``(token, residual)``
    or ``(token, False)``) or "unknown" (a token alone)."""
    if type(out) is tuple and len(out) == 2:
        token, second = out
        return token, "kept" if was_kept(second) else "corrected"
    return out, "unknown"


def kept_flag(value) -> bool | None:
    """A returned kept flag (a bool, numpy bool or 0-d bool array/tensor) as a bool; None for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(value, "ndim", None) == 0 and str(dtype) in ("bool", "torch.bool"):
        return bool(value)
    return None


REPEATS = {"numpy": 1, "torch": 8}  # torch drafts come from torch.multinomial (not scripted): call more often


def run_boundary(step, p, q, p_exact, tokens, rng: np.random.Generator, mode: str = "numpy",
                 zero_draws: int = 0) -> tuple[dict, list[str], list[str]]:
    """(data, reasons, notes) from calls with the boundary uniforms: one per pattern on a numpy generator's
    ``random()``, several per pattern through torch's uniforms (``mode="torch"``). ``zero_draws``: how many of
    the case's ordinary draws landed on tokens of probability 0 (they tell a token-only sampler's cause)."""
    rows, reasons, notes = [], [], []
    kept_zero, corrected_zero, unknown_zero = [], [], []
    applied = True
    scripted = 0
    for pattern in PATTERNS:
        for _ in range(REPEATS[mode]):
            findings = Findings()
            row: dict = {"uniforms": pattern_text(pattern, mode)}
            if mode == "torch":
                fake = None
                scope = TorchUniforms(pattern)
                generator = rng
            else:
                fake = BoundaryUniforms(pattern, rng)
                scope = contextlib.nullcontext()
                generator = fake
            with Watched(findings):
                try:
                    with scope:
                        out = step(p, q, generator)
                except Exception as exc:
                    row["exception"] = exception_text(exc)
                    out = None
            calls = scope.calls if fake is None else fake.calls
            scripted += calls
            if fake is not None and (fake.other or not fake.calls):
                applied = False
                row["not_applied"] = sorted(fake.other) or ["no call of rng.random()"]
            out, how = how_returned(out)
            try:
                token = int(out) if out is not None else None
            except (TypeError, ValueError):
                token = None
            row["token"] = tokens[token] if token is not None and 0 <= token < len(tokens) else None
            row["returned_as"] = how
            if "exception" in row:
                reasons.append(f"boundary uniforms ({row['uniforms']}): the sampler raised {row['exception']}")
            elif token is not None and 0 <= token < len(tokens) and p_exact[token] == 0:
                seen = (row["uniforms"], f"{tokens[token]} (q = {float(q[token]):.4g})")
                {"kept": kept_zero, "corrected": corrected_zero}.get(how, unknown_zero).append(seen)
            rows.append(row)
    reasons.extend(_causes(kept_zero, corrected_zero, unknown_zero, zero_draws))
    if mode == "torch" and not scripted:
        applied = False
        notes.append(
            "boundary uniforms not applied: the sampler drew no uniform through torch.rand, torch.rand_like or "
            "Tensor.uniform_ (the ones the check scripts), so u = 0 was never tried; draw the acceptance test's "
            "uniform with one of them to have it checked"
        )
    elif not applied:
        used = sorted({name for row in rows for name in row.get("not_applied", [])})
        notes.append(
            "boundary uniforms not fully applied: the sampler drew with " + listed(used)
            + " (only rng.random() is scripted; draw every uniform with rng.random() to have them checked)"
        )
    return {"applied": applied, "mode": mode, "calls": rows}, reasons, notes


LE_TEXT = (
    "Keeping a draft on u <= p/q keeps a token with p = 0 when u is exactly 0 (numpy's random() returns 0 once in "
    "2^53 draws, float32 torch.rand about once in 3*10^7: no draw count shows it); keep it on u < p/q, or "
    "u * q < p, which never does"
)


def _unique(items: list[tuple[str, str]], shown: int = 4) -> str:
    """The tokens seen, grouped by the uniforms that gave them: "D (q = 0.75), C (q = 0.25) with u = 0 ..."."""
    by_pattern: dict[str, list[str]] = {}
    for pattern, token in items:
        tokens = by_pattern.setdefault(pattern, [])
        if token not in tokens:
            tokens.append(token)
    parts = []
    for pattern, tokens in by_pattern.items():
        more = f" and {len(tokens) - shown} more" if len(tokens) > shown else ""
        parts.append(", ".join(tokens[:shown]) + more + " with " + pattern)
    return "; ".join(parts)


def _causes(kept_zero, corrected_zero, unknown_zero, zero_draws: int) -> list[str]:
    """One reason per cause the boundary calls show."""
    reasons = []
    if kept_zero:
        reasons.append(
            "boundary uniforms: the sampler kept a draft with p = 0 (it returned it as kept): "
            + _unique(kept_zero) + ". " + LE_TEXT + "."
        )
    if corrected_zero:
        reasons.append(
            "boundary uniforms: the correction drew a token with p = 0 (returned with its residual): "
            + _unique(corrected_zero) + ". The residual gives mass where p = 0, so this is the residual's "
            "fault, not the acceptance test's: max(p - q, 0) is 0 wherever p = 0."
        )
    if unknown_zero and zero_draws:
        reasons.append(
            "boundary uniforms: the sampler returned a token with p = 0: " + _unique(unknown_zero) + ". The "
            f"ordinary draws landed on tokens of probability 0 too ({zero_draws:,} of them), so the sampler gives "
            "them mass whatever the uniforms (its residual, most likely): that, not u <= p/q, is what the counts "
            "show. Return (token, residual) to have the residual itself checked."
        )
    elif unknown_zero:
        only_top = all(pattern.startswith("u = just below 1 at every") for pattern, _ in unknown_zero)
        if only_top:
            reasons.append(
                "boundary uniforms: the sampler returned a token with p = 0: " + _unique(unknown_zero) + ", only "
                "with u just below 1: an inverse CDF that runs past the last token of positive probability (a "
                "cumulative sum rounded below 1)."
            )
        else:
            reasons.append(
                "boundary uniforms: the sampler returned a token with p = 0: " + _unique(unknown_zero) + ". "
                + LE_TEXT + ". (If its correction draws by inverse CDF, a residual with mass where p = 0 does the "
                "same: return (token, None) when kept, (token, residual) when not, and the check tells them apart.)"
            )
    return reasons
