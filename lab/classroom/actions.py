"""What the Class page's buttons change, as methods that return what the page tells the user: joining or starting
a class, the teacher's actions on the dashboard (:class:`TeacherDesk`) and a student's submissions
(:class:`StudentSeat`). A refusal (:class:`lab.classroom.refusals.ClassroomError`) and a database outage become words;
nothing here imports Streamlit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from lab.classroom import admission, answers, classes, naming, refusals, teacher_link
from lab.classroom.activities import ASSIGNMENT, PREDICT
from lab.classroom.gate import NotAnswering, bounded

Result = TypeVar("Result")

DATABASE_DOWN = (
    "The class database cannot be reached right now, so nothing was saved. What you typed stays on this page; "
    "it tries again by itself every few seconds and carries on when the database is back."
)
TEACHER_DOWN = (
    "The class database cannot be reached right now: nothing you press is saved until it is back. This page "
    "tries again by itself every few seconds and carries on when the database answers."
)
NOT_ANSWERING = (
    "The class database is not answering, so nothing was saved. What you typed stays on this page; it tries "
    "again by itself every few seconds and carries on when the database answers."
)
PENDING = (
    "The class database is not answering: what you just sent waits for it (it is not saved yet). This page says "
    "whether it was saved as soon as the database answers; send nothing again meanwhile."
)
MAYBE_SAVED = (
    "The class database is not answering: what you just sent may still be saved when it answers. Look at the "
    "page once it is back before sending it again."
)
PREDICT_LABEL = "Predict the bars"  # the dashboard's choice of activity that opens a prediction


def database_down(exc: BaseException) -> bool:
    """Whether ``exc`` means the class database cannot be reached (or failed mid-way): not a refusal."""
    return isinstance(exc, (SQLAlchemyError, OSError))


def clock(ts: float | None) -> str:
    """A stored time as this server's wall clock (HH:MM:SS), or "" for none."""
    return "" if ts is None else datetime.fromtimestamp(ts).strftime("%H:%M:%S")


def down_words(exc: BaseException, down: str) -> str:
    """What an outage ``exc`` means for the user: ``down`` (cannot be reached), or, when the database did not
    answer in time (lab.classroom.gate), the same sentence saying so."""
    if isinstance(exc, NotAnswering):
        return NOT_ANSWERING if down == DATABASE_DOWN else down.replace("cannot be reached", "is not answering")
    return down


def attempt(
    call: Callable[[], Result], down: str, on_pending: Callable | None = None
) -> tuple[Result | None, str]:
    """Run one store call with a bounded wait (lab.classroom.gate): (its result, ""), or (None, the refusal to
    show), where a database outage says ``down``. A call the database did not answer in time but that had
    started is handed to ``on_pending`` (a future: it completes or fails once, when the database answers) and
    the page says PENDING. Any other exception is a bug and propagates."""
    try:
        return bounded(call), ""
    except refusals.ClassroomError as exc:
        return None, str(exc)
    except NotAnswering as exc:
        if exc.pending is not None:
            if on_pending is None:
                return None, MAYBE_SAVED
            on_pending(exc.pending)
            return None, PENDING
        return None, down_words(exc, down)
    except Exception as exc:
        if not database_down(exc):
            raise
        return None, down


def link_key(typed_code: str, link_code: str, key: str) -> str:
    """The join link's key for a join, only when the typed code is the code the link filled in (after
    normalising both): a code typed by hand joins without the link's key."""
    try:
        same = naming.normalize_code(typed_code) == naming.normalize_code(link_code)
    except refusals.ClassroomError:
        return ""
    return key if same else ""


def join_from_landing(
    db: Engine, typed_code: str, name: str, *, client: str, address: str, link_code: str, key: str
) -> tuple[admission.Joined | None, str]:
    """Join from the landing page (lab.classroom.admission.join_class, in words): (the seat, "") or (None, why not;
    an outage says nothing was joined)."""
    return attempt(
        lambda: admission.join_class(
            db, typed_code, name, client=client, address=address, link_key=link_key(typed_code, link_code, key)
        ),
        DATABASE_DOWN.replace("nothing was saved", "you have not joined yet"),
    )


def start_class(
    db: Engine, class_name: str, *, client: str = "", address: str = ""
) -> tuple[classes.NewClass | None, str]:
    """Start a class from the landing page: (the new class, "") or (None, why not: also when this browser or
    address started too many classes)."""
    return attempt(
        lambda: classes.create_class(db, class_name, client=client, address=address),
        DATABASE_DOWN.replace("nothing was saved", "no class was started"),
    )


@dataclass
class TeacherDesk:
    """The class a teacher's dashboard runs: its code and the teacher token (which New teacher link replaces)."""

    code: str
    token: str

    def act(self, db: Engine, action: Callable, *args, on_pending: Callable | None = None) -> str:
        """Run a teacher action of the class store (lab.classroom.classes, admission, roster: ``action(db, code,
        token, *args)``); returns the refusal
        to show, or "" (``on_pending``: see attempt)."""
        return attempt(lambda: action(db, self.code, self.token, *args), TEACHER_DOWN, on_pending)[1]

    def open_activity(self, db: Engine, kind_label: str, source: str, seed, level, count) -> str:
        """Open the activity the dashboard's form describes: a prediction of ``source`` for PREDICT_LABEL, else an
        assignment of ``seed``, ``level`` and ``count``; returns the refusal to show, or ""."""
        if kind_label == PREDICT_LABEL:
            return self.act(db, classes.open_activity, PREDICT, {"source": source})
        return self.act(db, classes.open_activity, ASSIGNMENT, {"seed": seed, "level": level, "count": count})

    def new_teacher_link(self, db: Engine) -> str:
        """Replace the teacher token (this desk then holds the new one); returns the refusal to show, or ""."""
        token, refusal = attempt(lambda: teacher_link.new_teacher_link(db, self.code, self.token), TEACHER_DOWN)
        if token is not None:
            self.token = token
        return refusal

    def set_join_address(self, db: Engine, address: str) -> str:
        """Keep the address students can reach with the class; returns the refusal to show, or ""."""
        return attempt(lambda: admission.set_join_address(db, self.code, self.token, address), TEACHER_DOWN)[1]


@dataclass(frozen=True)
class Feedback:
    """What the page says after a submission, and how: ``kind`` is "success", "warning" or "error"."""

    kind: str
    text: str


@dataclass
class StudentSeat:
    """A joined student: the class code and the student id of their private link."""

    code: str
    token: str

    def submit_prediction(
        self, db: Engine, activity_id: int, fields, values, round_number: int, on_pending: Callable | None = None
    ) -> Feedback:
        """Save the prediction boxes' ``values`` (None: left empty) for the round the page showed (``on_pending``:
        see attempt)."""
        missing = [field for field, value in zip(fields, values) if value is None]
        if missing:
            return Feedback("warning", f"Type a value for {', '.join(missing)} first.")
        saved, refusal = attempt(
            lambda: answers.submit_prediction(
                db, self.code, self.token, activity_id, [f"{v:.4f}" for v in values], round_number=round_number
            ),
            DATABASE_DOWN,
            on_pending,
        )
        if saved is None:
            return Feedback("warning" if refusal == PENDING else "error", refusal)
        return Feedback(
            "success", f"Saved at {clock(saved.updated_at)}. You can change it until your teacher locks the activity."
        )

    def submit_answer(
        self, db: Engine, activity_id: int, number: int, answer: str, on_pending: Callable | None = None
    ) -> Feedback:
        """Check and save the answer to problem ``number``: right (success), counted but wrong (error), or not read
        as an answer and not saved (warning); ``on_pending``: see attempt."""
        checked, refusal = attempt(
            lambda: answers.submit_answer(db, self.code, self.token, activity_id, number, answer),
            DATABASE_DOWN,
            on_pending,
        )
        if checked is None:
            return Feedback("warning" if refusal == PENDING else "error", refusal)
        check, _attempt = checked
        kind = "success" if check.correct else ("error" if check.counted else "warning")
        return Feedback(kind, check.message + (" Saved." if check.counted else " Not saved."))
