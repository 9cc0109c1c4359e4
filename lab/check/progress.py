"""Progress on stderr for long checks (no dependency).

Two forms: a bar redrawn in place at most a few times a second (for a terminal), or a plain line every
few seconds (for a log: CI, a pipe, ``2> file``), so a long run is never silent. A run shorter than the
line interval prints no line at all.
"""

from __future__ import annotations

import sys
import time

LINE_EVERY = 5.0  # seconds between progress lines when stderr is not a terminal


def duration_text(seconds: float) -> str:
    """``42 s``, ``3 min 6 s``, ``2 h 5 min``: a duration a person reads at a glance."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:.2g} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days = seconds / 86_400
    return f"{days:,.0f} days" if days < 3650 else f"{days / 365.25:.3g} years"


def progress_mode(progress) -> str | None:
    """``"bar"``, ``"lines"`` or None from the check's ``progress`` argument (True means the bar)."""
    if progress is True:
        return "bar"
    if progress in ("bar", "lines"):
        return progress
    if not progress:
        return None
    raise ValueError(f"progress must be True, False, 'bar' or 'lines' (got {progress!r})")


class Progress:
    def __init__(self, total: int, enabled, stream=None, width: int = 30, every: float | None = None):
        self.total = max(total, 1)
        self.mode = progress_mode(enabled)
        self.enabled = self.mode is not None
        self.stream = stream or sys.stderr
        self.width = width
        self.every = LINE_EVERY if every is None else every
        self.done = 0
        self.label = ""
        self.started = time.monotonic()
        self._last = 0.0 if self.mode == "bar" else self.started
        self._lines = 0

    def advance(self, draws: int, label: str | None = None) -> None:
        self.done += draws
        if label is not None:
            self.label = label
        self.draw()

    def _status(self, now: float) -> str:
        share = min(self.done / self.total, 1.0)
        elapsed = now - self.started
        return f"{share:4.0%} {self.done:,}/{self.total:,} draws, {duration_text(elapsed)}"

    def draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.mode == "lines":
            if now - self._last < self.every and not force:
                return
            self._last = now
            case = f", case {self.label}" if self.label else ""
            self.stream.write(f"lab check: {self._status(now)}{case}\n")
            self._lines += 1
            self.stream.flush()
            return
        if not force and now - self._last < 0.25:
            return
        self._last = now
        share = min(self.done / self.total, 1.0)
        filled = int(share * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self._status(now)}, {self.label:<28.28}")
        self.stream.flush()

    def close(self) -> None:
        if self.mode == "bar":
            self.draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
        elif self.mode == "lines" and self._lines:  # a short run stays silent
            self.stream.write(f"lab check: {self._status(time.monotonic())}, finished\n")
            self.stream.flush()
