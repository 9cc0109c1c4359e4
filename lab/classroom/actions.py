"""What the Class page's views read and change, as functions and methods that return what the page tells the
user: joining or starting a class, the teacher's dashboard (:class:`TeacherDesk`: its reads, and the actions of
:class:`TeacherActions`) and a student's page (:class:`StudentSeat`). Every call meets the class database through
:func:`outcome` (a bounded wait, lab.classroom.gate), the one place where a refusal
(:class:`lab.classroom.refusals.ClassroomError`) and a database outage become words; the views never call the
store's rooms (classes, admission, roster, answers, ...) themselves. Nothing here imports Streamlit."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from lab.classroom import admission, answers, classes, dashboards, export, naming, plans, roster, teacher_link
from lab.classroom import db as database
from lab.classroom.activities import ASSIGNMENT, PREDICT
from lab.classroom.answers import StudentState, newly_opened, with_flags
from lab.classroom.dashboards import Dashboard, Projection
from lab.classroom.gate import NotAnswering, bounded
from lab.classroom.limits import JOIN_BURST_WINDOW_S, MAX_STUDENTS, AddressTries
from lab.classroom.records import ActivityView, ClassRow
from lab.classroom.refusals import ClassroomError, Removed, Waiting
from lab.classroom.roster import BULK_RULES
from lab.classroom.versions import live_key, page_layout
from lab.core.errors import said, said_of
from lab.i18n import N_
from lab.teaching.exercises import Feedback

__all__ = [  # read by the views from here, with the functions below
    "BULK_RULES", "JOIN_BURST_WINDOW_S", "MAX_STUDENTS", "ActivityView", "ClassRow", "ClassroomError", "Dashboard",
    "Feedback", "Projection", "StudentState", "live_key", "newly_opened", "page_layout", "with_flags",
]

Result = TypeVar("Result")
Connect = Callable[[], Engine]  # the pages' engine(): it prepares the database on first use, so it may meet an outage

DATABASE_DOWN = said(
    "The class database cannot be reached right now, so nothing was saved. What you typed stays on this page; "
    "it tries again by itself every few seconds and carries on when the database is back."
)
# DATABASE_DOWN for a join and a start (nothing joined, nothing started) and while a call sent still waits for the
# database (it may yet be saved): lost_words
JOIN_DOWN = said(
    "The class database cannot be reached right now, so you have not joined yet. What you typed stays on this page; "
    "it tries again by itself every few seconds and carries on when the database is back."
)
START_DOWN = said(
    "The class database cannot be reached right now, so no class was started. What you typed stays on this page; "
    "it tries again by itself every few seconds and carries on when the database is back."
)
DOWN_WHILE_PENDING = said(
    "The class database cannot be reached right now. What you typed stays on this page; it tries again by itself "
    "every few seconds and carries on when the database is back."
)
NOT_ANSWERING_WHILE_PENDING = said(
    "The class database is not answering. What you typed stays on this page; it tries again by itself every few "
    "seconds and carries on when the database answers."
)
TEACHER_DOWN = said(
    "The class database cannot be reached right now: nothing you press is saved until it is back. This page "
    "tries again by itself every few seconds and carries on when the database answers."
)
NOT_ANSWERING = said(
    "The class database is not answering, so nothing was saved. What you typed stays on this page; it tries "
    "again by itself every few seconds and carries on when the database answers."
)
PENDING = said(
    "The class database is not answering: what you just sent waits for it (it is not saved yet). This page says "
    "whether it was saved as soon as the database answers; send nothing again meanwhile."
)
MAYBE_SAVED = said(
    "The class database is not answering: what you just sent may still be saved when it answers. Look at the "
    "page once it is back before sending it again."
)
PROJECTOR_DOWN = said(
    "The class database cannot be reached right now: the projector shows the class again as soon as it answers."
)
PREDICT_LABEL = N_("Predict the bars")  # the dashboard's choice of activity that opens a prediction


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
        return NOT_ANSWERING if down == DATABASE_DOWN else NOT_ANSWERING_FOR.get(down, down)
    return down


# the same sentences when the database did not answer in time (down_words)
NOT_ANSWERING_FOR = {
    JOIN_DOWN: said(
        "The class database is not answering right now, so you have not joined yet. What you typed stays on this "
        "page; it tries again by itself every few seconds and carries on when the database is back."
    ),
    START_DOWN: said(
        "The class database is not answering right now, so no class was started. What you typed stays on this page; it "
        "tries again by itself every few seconds and carries on when the database is back."
    ),
    PROJECTOR_DOWN: said(
        "The class database is not answering right now: the projector shows the class again as soon as it answers."
    ),
    TEACHER_DOWN: said(
        "The class database is not answering right now: nothing you press is saved until it is back. This page "
        "tries again by itself every few seconds and carries on when the database answers."
    ),
}


def sent_at() -> str:
    """Now, as the page says when a call was sent (clock)."""
    return clock(database.now())


@dataclass(frozen=True)
class Outcome(Generic[Result]):
    """What one call to the class database came to: its ``value``, or the words to show (``refusal``), with why:
    the store refused it (``refused``; a :class:`Waiting` student is one), or the database could not be reached
    or did not answer in time (``down``; ``pending``: the call had started and may still complete)."""

    value: Result | None = None
    refusal: str = ""
    refused: ClassroomError | None = None
    down: bool = False
    pending: Future | None = None

    @property
    def waiting(self) -> bool:
        """A student who joined beyond the expected size, waiting for the teacher to let them in."""
        return isinstance(self.refused, Waiting)

    @property
    def removed(self) -> bool:
        """A student their teacher removed from the class."""
        return isinstance(self.refused, Removed)


def outcome(
    call: Callable[[Engine | None], Result], db: Engine | Connect | None, down: str, *, gated: bool = True
) -> Outcome[Result]:
    """``call(engine)`` with ``db`` (an engine, or the page's engine() run here first: preparing the database can
    meet the outage too), through the gate's bounded wait unless ``gated`` is False (a call that bounds its own
    wait, or one that never did); a refusal or an outage becomes an Outcome whose ``refusal`` says why (an outage:
    ``down``, or the same sentence saying the database is not answering). The one place a class view meets an
    outage; any other exception is a bug and propagates."""
    try:
        engine = db() if callable(db) else db
        return Outcome(bounded(lambda: call(engine)) if gated else call(engine))
    except ClassroomError as exc:
        return Outcome(refusal=said_of(exc), refused=exc)
    except Exception as exc:
        if not database_down(exc):
            raise
        return Outcome(refusal=down_words(exc, down), down=True, pending=getattr(exc, "pending", None))


def attempt(
    call: Callable[[], Result], down: str, on_pending: Callable | None = None
) -> tuple[Result | None, str]:
    """Run one store call with a bounded wait (outcome): (its result, ""), or (None, the refusal to show), where a
    database outage says ``down``. A call the database did not answer in time but that had started is handed to
    ``on_pending`` (a future: it completes or fails once, when the database answers) and the page says PENDING."""
    result = outcome(lambda _engine: call(), None, down)
    return result.value, words(result, on_pending)


def words(result: Outcome, on_pending: Callable | None = None) -> str:
    """What the page says of a change's outcome ("" when it went through): its refusal, or for a call the database
    did not answer in time but that had started, PENDING once ``on_pending`` has the call's future (MAYBE_SAVED
    without one)."""
    if result.pending is None:
        return result.refusal
    if on_pending is None:
        return MAYBE_SAVED
    on_pending(result.pending)
    return PENDING


def refused(text: str) -> Feedback:
    """A submission that did not go through: an error, or a warning while it waits for the database (PENDING)."""
    return Feedback("warning" if text == PENDING else "error", text)


def answered_later(future: Future) -> Outcome:
    """What a call the database answered late came to (``future`` is done: lab.classroom.gate)."""
    return outcome(lambda _engine: future.result(), None, DATABASE_DOWN, gated=False)


def projection(db: Engine | Connect, code: str, key: str) -> Outcome[Projection]:
    """What the projector may show of class ``code`` with its display-only ``key`` (lab.classroom.dashboards)."""
    return outcome(lambda engine: dashboards.projection(engine, code, key), db, PROJECTOR_DOWN)


def database_answers(db: Engine | Connect) -> bool:
    """Whether the class database answers a trivial query now (a page waiting for it asks every few seconds)."""

    def probe(engine: Engine) -> None:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    return not outcome(probe, db, DATABASE_DOWN).down


def link_key(typed_code: str, link_code: str, key: str) -> str:
    """The join link's key for a join, only when the typed code is the code the link filled in (after
    normalising both): a code typed by hand joins without the link's key."""
    try:
        same = naming.normalize_code(typed_code) == naming.normalize_code(link_code)
    except ClassroomError:
        return ""
    return key if same else ""


# Presses of Join and Start a class per address in this process, counted before the database is asked.
ADDRESS_TRIES = AddressTries()


def before_the_database(address: str, texts: tuple[tuple[str, object, int], ...]) -> str:
    """Why a press from ``address`` goes no further than this process ("" when it may): the address's tries this
    minute (ADDRESS_TRIES), then each text ``(label, value, most)`` refused by its length alone (naming.bounded).
    Both cost no database work and no work per character, whatever a browser sends."""
    wait = ADDRESS_TRIES.take(address, time.monotonic())
    if wait:
        return ADDRESS_TRIES.refusal(wait)
    try:
        for label, value, most in texts:
            naming.bounded(label, value, most)
    except ClassroomError as exc:
        return said_of(exc)
    return ""


def join_from_landing(
    db: Engine | Connect, typed_code: str, name: str, *, client: str, address: str, link_code: str, key: str,
    identifier: str = "", on_pending: Callable | None = None,
) -> tuple[admission.Joined | None, str]:
    """Join from the landing page (lab.classroom.admission.join_class, in words): (the seat, "") or (None, why not;
    an outage says nothing was joined). A join the database did not answer in time but that had started is handed
    to ``on_pending`` (the page follows it to the seat once it is written: no seat nobody can use)."""
    refused = before_the_database(
        address,
        ((naming.CODE_LABEL, typed_code, naming.CODE_LENGTH), (naming.NAME_LABEL, name, naming.MAX_NAME),
         (naming.IDENTIFIER_LABEL, identifier, naming.MAX_IDENTIFIER)),
    )  # fmt: skip
    if refused:
        return None, refused
    result = outcome(
        lambda engine: admission.join_class(
            engine, typed_code, name, client=client, address=address, link_key=link_key(typed_code, link_code, key),
            identifier=identifier,
        ),
        db,
        JOIN_DOWN,
    )
    return result.value, words(result, on_pending)


def anonymous_join_link(db: Engine | Connect, code: str, key: str) -> bool:
    """Whether the join link (``code``, ``key``) is of a class that takes students without names (False also while
    the database cannot be reached: the form then asks for a name, which such a class does not keep)."""
    result = outcome(lambda engine: admission.joins_without_names(engine, code, key), db, DATABASE_DOWN)
    return bool(result.value)


def start_class(
    db: Engine | Connect, class_name: str, *, client: str = "", address: str = "", anonymous: bool = False,
    plan: plans.Plan | None = None, on_pending: Callable | None = None,
) -> tuple[classes.NewClass | None, str]:
    """Start a class from the landing page: (the new class, "") or (None, why not: also when this browser or
    address started too many classes). ``anonymous``: students join without a name; ``plan``: the lesson plan it
    runs (read_plan checked it); ``on_pending``: as for join_from_landing (the page follows a late start to its
    dashboard)."""
    refused = before_the_database(address, ((naming.CLASS_NAME_LABEL, class_name, naming.MAX_CLASS_NAME),))
    if refused:
        return None, refused
    kept = plans.stored_plan(plan) if plan is not None else None
    result = outcome(
        lambda engine: classes.create_class(
            engine, class_name, client=client, address=address, anonymous=anonymous, plan=kept
        ),
        db,
        START_DOWN,
    )
    return result.value, words(result, on_pending)


class TeacherActions:
    """The store's teacher actions the dashboard's buttons run through :meth:`TeacherDesk.act` (each is
    ``action(db, code, token, *args)``; its name, capitalised, is how the page names it while it waits)."""

    show_responses = staticmethod(classes.show_responses)
    vote_again = staticmethod(classes.vote_again)
    reveal = staticmethod(classes.reveal)
    lock = staticmethod(classes.lock)
    unlock = staticmethod(classes.unlock)
    add_time = staticmethod(classes.add_time)
    open_from_plan = staticmethod(plans.open_from_plan)
    remove_from_plan = staticmethod(plans.remove_from_plan)
    add_to_plan = staticmethod(plans.add_to_plan)
    set_plan = staticmethod(plans.set_plan)
    stop_countdown = staticmethod(classes.stop_countdown)
    next_activity = staticmethod(classes.next_activity)
    end_class = staticmethod(classes.end_class)
    remove_student = staticmethod(roster.remove_student)
    remove_students = staticmethod(roster.remove_students)
    allow_back = staticmethod(roster.allow_back)
    lock_joins = staticmethod(admission.lock_joins)
    set_expected_size = staticmethod(admission.set_expected_size)
    set_anonymous = staticmethod(admission.set_anonymous)
    new_join_link = staticmethod(admission.new_join_link)
    admit_waiting = staticmethod(roster.admit_waiting)


RESULTS_DOWN = "The class database could not be reached: download the results again in a moment.\n"


@dataclass
class TeacherDesk:
    """The class a teacher's dashboard runs: its code and the teacher token (which New teacher link replaces;
    ``replaced``: the token it replaced, which the tab's address may still hold)."""

    code: str
    token: str
    replaced: str = ""

    def act(self, db: Engine | Connect, action: Callable, *args, on_pending: Callable | None = None) -> str:
        """Run a teacher action of the class store (``action(db, code, token, *args)``: TeacherActions, or a
        method of this desk); returns the refusal to show, or "" (``on_pending``: see attempt)."""
        return words(outcome(lambda engine: action(engine, self.code, self.token, *args), db, TEACHER_DOWN), on_pending)

    def open_activity(
        self, db: Engine | Connect, kind_label: str, source: str, seed, level, count, timer_s=None,
        on_pending: Callable | None = None,
    ) -> str:
        """Open the activity the dashboard's form describes: a prediction of ``source`` for PREDICT_LABEL, else an
        assignment of ``seed``, ``level`` and ``count``, with a countdown of ``timer_s`` seconds for each round (None:
        none); returns the refusal to show, or "" (``on_pending``: see attempt)."""
        if kind_label == PREDICT_LABEL:
            return self.act(db, classes.open_activity, PREDICT, {"source": source}, timer_s, on_pending=on_pending)
        spec = {"seed": seed, "level": level, "count": count}
        return self.act(db, classes.open_activity, ASSIGNMENT, spec, timer_s, on_pending=on_pending)

    def new_teacher_link(self, db: Engine | Connect, on_pending: Callable | None = None) -> str:
        """Replace the teacher token (this desk then holds the new one, also when the database answers late: the
        old link no longer opens the dashboard then); returns the refusal to show, or ""."""

        def replace(engine: Engine) -> str:
            old = self.token
            self.token = teacher_link.new_teacher_link(engine, self.code, old)
            self.replaced = old
            return self.token

        return words(outcome(replace, db, TEACHER_DOWN), on_pending)

    def set_join_address(self, db: Engine | Connect, address: str, on_pending: Callable | None = None) -> str:
        """Keep the address students can reach with the class; returns the refusal to show, or ""."""
        keep = lambda engine: admission.set_join_address(engine, self.code, self.token, address)  # noqa: E731
        return words(outcome(keep, db, TEACHER_DOWN), on_pending)

    def check(self, db: Engine | Connect) -> Outcome[ClassRow]:
        """The class, when this token is its teacher's."""
        return outcome(lambda engine: teacher_link.check_teacher(engine, self.code, self.token), db, TEACHER_DOWN)

    def next_class(self, db: Engine | Connect, client: str, address: str) -> tuple[classes.NewClass | None, str]:
        """The next lecture's class (classes.next_class): (the new class, "") or (None, why not)."""
        result = outcome(
            lambda engine: classes.next_class(engine, self.code, self.token, client=client, address=address),
            db,
            TEACHER_DOWN,
        )
        return result.value, words(result)

    def plan(self, db: Engine | Connect) -> Outcome:
        """The lesson plan kept with the class (lab.classroom.plans.Plan)."""
        return outcome(lambda engine: plans.class_plan(engine, self.code, self.token), db, TEACHER_DOWN)

    def dashboard(self, db: Engine | Connect) -> Outcome[Dashboard]:
        """The dashboard's figures (one aggregate query)."""
        return outcome(lambda engine: dashboards.dashboard(engine, self.code, self.token), db, TEACHER_DOWN)

    def bulk_match(self, db: Engine | Connect, rule: str, seconds: int, include: bool) -> Outcome:
        """Whom a removal rule takes (and whom it keeps because they submitted)."""
        return outcome(
            lambda engine: roster.bulk_match(engine, self.code, self.token, rule, seconds, include), db, TEACHER_DOWN
        )

    def class_results_csv(self, db: Engine | Connect) -> str:
        """The class's results as CSV, or, while the database cannot be reached, a line saying so (the download's
        content: the button is drawn before it is pressed)."""
        result = outcome(lambda engine: export.class_results_csv(engine, self.code, self.token), db, TEACHER_DOWN)
        if result.down:
            return RESULTS_DOWN
        if result.refused is not None:
            raise result.refused
        return result.value


@dataclass
class StudentSeat:
    """A joined student: the class code and the student id of their private link."""

    code: str
    token: str

    def state(self, db: Engine | Connect) -> Outcome[StudentState]:
        """What the student's page shows, from the database (``waiting``: not let in yet)."""
        return outcome(lambda engine: answers.student_state(engine, self.code, self.token), db, DATABASE_DOWN)

    def submit_prediction(
        self, db: Engine | Connect, activity_id: int, fields, values, round_number: int,
        on_pending: Callable | None = None, decimal_comma: bool = False,
    ) -> Feedback:
        """Save the prediction boxes' ``values`` (each as typed, or a number; None: left empty) for the round the page
        showed (``on_pending``: see attempt; ``decimal_comma``: the page's language writes 0,25). Each is read by the
        one reader of numbers, exactly."""
        missing = [field for field, value in zip(fields, values) if value is None]
        if missing:
            return Feedback("warning", said("Type a value for {fields} first.", fields=", ".join(missing)))
        result = outcome(
            lambda engine: answers.submit_prediction(
                engine, self.code, self.token, activity_id, values, round_number=round_number,
                decimal_comma=decimal_comma,
            ),
            db,
            DATABASE_DOWN,
        )
        if result.value is None:
            return refused(words(result, on_pending))
        return Feedback("success", said(
            "Saved at {time}. You can change it until the vote is locked or the answer revealed.",
            time=clock(result.value.updated_at),
        ))

    def submit_answer(
        self, db: Engine | Connect, activity_id: int, number: int, answer: str, on_pending: Callable | None = None
    ) -> Feedback:
        """Check and save the answer to problem ``number``: right (success), counted but wrong (error), or not read
        as an answer and not saved (warning); ``on_pending``: see attempt."""
        result = outcome(
            lambda engine: answers.submit_answer(engine, self.code, self.token, activity_id, number, answer),
            db,
            DATABASE_DOWN,
        )
        if result.value is None:
            return refused(words(result, on_pending))
        check, _attempt = result.value
        text = said("{message} Saved.", message=check.message) if check.counted else said(
            "{message} Not saved.", message=check.message
        )
        return Feedback.of_check(check, text)
