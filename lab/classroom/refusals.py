"""The refusals a class action raises (a refused action wrote nothing).

Each message says what was wrong and what to do.
"""

from __future__ import annotations

from lab.core.distributions import LabInputError


class ClassroomError(LabInputError):
    """A refused classroom action; the message says what was wrong and what to do."""


class RateLimited(ClassroomError):
    """Too many tries: ``wait`` seconds before the next one."""

    def __init__(self, message: str, wait: float):
        super().__init__(message)
        self.wait = wait


class Waiting(ClassroomError):
    """A student who joined beyond the class's expected size: waiting for the teacher to let them in."""


class Removed(ClassroomError):
    """A student their teacher removed from the class: their link opens nothing until they are let back in."""
