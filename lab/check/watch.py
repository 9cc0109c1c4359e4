"""Running someone else's sampler: numpy floating-point events, NaN and exceptions, each named.

The user's code runs inside ``numpy.errstate(call=...)``, so a 0/0 (numpy's "invalid value") or a
division by zero anywhere in its numpy arithmetic is counted, not printed; an exception is recorded by
its class name and message (never a traceback) and ends the case. Code that silences numpy itself
(its own ``errstate(invalid="ignore")``) still shows up when a NaN reaches what it returns.
"""

from __future__ import annotations

import os
import signal
import sys
import sysconfig
import threading
import time
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np


def exception_text(exc: BaseException) -> str:
    """``ZeroDivisionError: division by zero``: the class name and the first line of the message."""
    message = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {message[0]}" if message and message[0] else type(exc).__name__


_CHECK_DIR = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_DIRS = tuple(
    os.path.abspath(d) + os.sep
    for d in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")} | {sys.prefix}
    if d
)


def _frame_text(frame: traceback.FrameSummary) -> str:
    where = os.path.relpath(frame.filename) if not frame.filename.startswith("<") else frame.filename
    if where.startswith(".." + os.sep + ".."):
        where = frame.filename
    code = f": {frame.line.strip()}" if frame.line else ""
    return f"{where}:{frame.lineno} in {frame.name}{code}"


def exception_place(exc: BaseException) -> str | None:
    """Where the sampler raised: its own innermost frame (outside the check and outside installed
    libraries), with the library frame it raised in when that is deeper; None if no frame is the sampler's."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_CHECK_DIR + os.sep)]
    if not frames:
        return None
    own = [f for f in frames if not os.path.abspath(f.filename).startswith(_LIBRARY_DIRS)]
    if not own:
        return f"raised in {_frame_text(frames[-1])}"
    text = f"at {_frame_text(own[-1])}"
    if own[-1] is not frames[-1]:
        text += f" (raised in {_frame_text(frames[-1])})"
    return text


def exception_traceback(exc: BaseException) -> str:
    """The whole traceback from the check's call into the sampler (``--traceback`` prints it)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip()


@dataclass
class Findings:
    """What the sampler did besides returning tokens, over one case."""

    invalid: int = 0  # numpy "invalid value" events (0/0, inf - inf, sqrt(-1), ...)
    divide: int = 0  # numpy "divide by zero" events (x/0 with x != 0)
    overflow: int = 0
    warnings: list[str] = field(default_factory=list)  # Python warnings raised by the sampler (first few)
    nan_outputs: int = 0  # calls whose returned value held a NaN
    exception: str | None = None  # the exception that ended the case
    exception_at: int | None = None  # the draw it happened at (0-based)
    exception_place: str | None = None  # the sampler's own frame that raised it (file:line in function: code)
    exception_traceback: str | None = None  # the whole traceback (printed with --traceback)
    invalid_at: int | None = None  # the first draw with an invalid-value event
    bad_output: str | None = None  # a returned value that is not a token index (ends the case)

    def record_exception(self, exc: BaseException, at: int | None = None) -> None:
        self.exception, self.exception_at = exception_text(exc), at
        self.exception_place = exception_place(exc)
        self.exception_traceback = exception_traceback(exc)

    def __call__(self, kind: str, flag: int) -> None:  # numpy's errcall signature
        if kind.startswith("invalid"):
            self.invalid += 1
        elif kind.startswith("divide"):
            self.divide += 1
        elif kind.startswith("overflow"):
            self.overflow += 1

    def as_json(self) -> dict:
        return {
            "invalid_value_events": self.invalid,
            "divide_by_zero_events": self.divide,
            "overflow_events": self.overflow,
            "nan_outputs": self.nan_outputs,
            "warnings": list(self.warnings),
            "exception": self.exception,
            "exception_at_draw": self.exception_at,
            "exception_place": self.exception_place,
            "exception_traceback": self.exception_traceback,
            "bad_output": self.bad_output,
        }


class Watched:
    """``with Watched(findings):`` runs the user's code with numpy's float events counted into findings
    and Python warnings recorded (a few, by text)."""

    def __init__(self, findings: Findings):
        self.findings = findings

    def __enter__(self):
        self._errstate = np.errstate(call=self.findings, divide="call", invalid="call", over="call", under="ignore")
        self._errstate.__enter__()
        self._warnings = warnings.catch_warnings(record=True)
        self._caught = self._warnings.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._errstate.__exit__(*exc)
        self._warnings.__exit__(*exc)
        seen = []
        for w in self._caught:
            text = f"{w.category.__name__}: {w.message}"
            if text not in seen:
                seen.append(text)
        self.findings.warnings.extend(seen[:5])
        return False


HANG_GRACE = 5.0  # seconds past the time limit before a call that has not returned is interrupted


class SamplerTimeout(BaseException):
    """Raised by the alarm inside a call still running past the time limit (a BaseException, so the
    user's own ``except Exception`` cannot swallow it)."""


class Clock:
    """A shared deadline: ``expired()`` is checked between draws; ``hard_stop()`` also interrupts a call
    that hangs (an alarm signal, in a process's main thread on POSIX; elsewhere the checks between
    draws are all there is)."""

    def __init__(self, seconds: float | None):
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    @contextmanager
    def hard_stop(self, grace: float | None = None):
        grace = HANG_GRACE if grace is None else grace
        usable = (
            self.deadline is not None
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if not usable:
            yield
            return

        def interrupt(signum, frame):
            raise SamplerTimeout

        previous = signal.signal(signal.SIGALRM, interrupt)
        signal.setitimer(signal.ITIMER_REAL, max(self.deadline - time.monotonic(), 0.0) + grace)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


CLOCK_EVERY = 64  # draws between looks at the clock and the progress bar (a look costs well under a microsecond)


class StopDrawing(Exception):
    """Raised by a draw to end a case's draws early (a finding that decides the case)."""


def run_draws(draws: int, name: str, clock: Clock, progress, findings: Findings, draw) -> tuple[int, bool, bool, float]:
    """``draw(i)`` for each draw of case ``name``, watched for numpy's invalid-value events and bounded by ``clock``.
    A draw raises :class:`StopDrawing` to end early. Returns (draws done, cut short, cut by a call that hung,
    seconds spent)."""
    started = time.monotonic()
    done = reported = 0
    cut = hung = False
    with Watched(findings), clock.hard_stop():
        try:
            for i in range(draws):
                if not i % CLOCK_EVERY and i:
                    progress.advance(i - reported, name)
                    reported = i
                    if clock.expired():
                        cut = True
                        break
                draw(i)
                done = i + 1
        except StopDrawing:
            pass
        except SamplerTimeout:  # a call still running past the time limit
            cut = hung = True
    progress.advance(done - reported, name)
    return done, cut, hung, time.monotonic() - started
