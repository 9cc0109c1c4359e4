"""The states a student's class page can be in, and the one function that decides which from what the server
holds. No Streamlit here: tests/test_student_phase.py walks every state and transition with plain pytest, and
lab/views/live_class/student.py draws each state with one function (``DRAW``).

Before any of these a student is joining: the Class page's landing (lab/views/live_class/landing.py) takes the
code and the name, and the student's own link (``?code=C&student=ID``) opens this page.

A student's page is drawn in three nested parts (the whole page, the activity part, the live part), each a
fragment the teacher's actions rerun on its own; each part asks :func:`phase_of` and draws what its phase says.
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum

from lab.classroom.actions import Outcome, StudentState
from lab.classroom.activities import PREDICT


class Phase(Enum):
    """Where a student's page is. The first five say why the page shows no activity of its own."""

    WAITING_ROOM = "waiting to be let in"  # joined beyond the expected size: the teacher lets each one in
    REMOVED = "removed by the teacher"
    REFUSED = "link refused"  # not a student link, another class's, or a class whose code expired
    NOT_ANSWERING = "database not answering"  # and nothing read before on this page
    OFFLINE = "database not answering, the page as last read"  # nothing can be sent; it tries again by itself
    ENDED = "class ended"  # the activity as saved, read-only
    NO_ACTIVITY = "waiting for an activity"
    PREDICTING = "predicting"  # a predict activity open, nothing saved in this round
    SAVED = "prediction saved"  # saved in this round, before the reveal: it can still change until Lock
    REVEALED = "answer revealed"  # the exact answer beside the student's prediction
    SOLVING = "solving problems"  # an assignment before its reveal
    SOLUTIONS = "solutions revealed"  # an assignment after its reveal: the worked solutions

    @property
    def has_activity(self) -> bool:
        """The page draws the class's heading and its activity part (the other phases draw a notice only)."""
        return self not in (Phase.WAITING_ROOM, Phase.REMOVED, Phase.REFUSED, Phase.NOT_ANSWERING)


def activity_phase(state: StudentState) -> Phase:
    """The phase of a state the database gave: the class's life, then the activity's kind and progress."""
    activity = state.activity
    if not state.open:
        return Phase.ENDED
    if activity is None:
        return Phase.NO_ACTIVITY
    if activity.kind == PREDICT:
        if state.exact is not None:
            return Phase.REVEALED
        return Phase.SAVED if state.prediction else Phase.PREDICTING
    return Phase.SOLUTIONS if activity.revealed else Phase.SOLVING


def phase_of(read: Outcome[StudentState], last: StudentState | None) -> tuple[Phase, StudentState | None]:
    """The page's phase from one read of the student's state (``read``) and the state this page last read for the
    same student and class (``last``, None for none): with the state to draw (None where the phase draws a notice
    only). The one place a student page's state is decided."""
    if read.waiting:
        return Phase.WAITING_ROOM, None
    if read.removed:
        return Phase.REMOVED, None
    if read.refused is not None:
        return Phase.REFUSED, None
    if read.down:
        return (Phase.OFFLINE, last) if last is not None else (Phase.NOT_ANSWERING, None)
    return activity_phase(read.value), read.value


def shown_phase(state: StudentState) -> Phase:
    """The phase whose activity the page draws: an ended class shows its activity as it was left (read-only)."""
    phase = activity_phase(state)
    return activity_phase(replace(state, open=True)) if phase is Phase.ENDED else phase
