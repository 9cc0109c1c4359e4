"""A progress bar on stderr for long checks (no dependency): redrawn at most a few times a second."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, enabled: bool, stream=None, width: int = 30):
        self.total = max(total, 1)
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.width = width
        self.done = 0
        self.label = ""
        self.started = time.monotonic()
        self._last = 0.0

    def advance(self, draws: int, label: str | None = None) -> None:
        self.done += draws
        if label is not None:
            self.label = label
        self.draw()

    def draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.25:
            return
        self._last = now
        share = min(self.done / self.total, 1.0)
        filled = int(share * self.width)
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = now - self.started
        self.stream.write(
            f"\r[{bar}] {share:4.0%} {self.done:,}/{self.total:,} draws, {elapsed:.0f} s, {self.label:<28.28}"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
