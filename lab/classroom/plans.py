"""A lesson plan: the ordered activities of a lecture (shipped scenarios, the teacher's own questions, Exercises
assignments, each with its countdown), kept with a class and run again by a new class; exported and imported as a
small TOML file in the scenarios' style. Every value read from a file is checked as the form that makes it checks it
(a question as the Residual explorer checks its table), and a refusal names the activity and the field; nothing is
stored from a file that is refused.

The file::

    title = "Lecture 3"

    [[activity]]
    kind = "worked-example"

    [[activity]]
    kind = "scenario"          # r for every token and Z
    scenario = "eight-words"
    countdown = 60             # seconds: 30, 60 or 120 (optional)

    [[activity]]
    kind = "second-target"     # p₂, the second of two candidates' target
    scenario = "pet-words"

    [[activity]]
    kind = "question"          # the teacher's own
    title = "Three words"
    tokens = "X, Y, W"
    p = "1/2, 1/4, 1/4"
    q = "1/4, 1/4, 1/2"

    [[activity]]
    kind = "exercises"
    seed = 1
    level = "basic"
    count = 5
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import classes
from lab.classroom.activities import ASSIGNMENT, PREDICT, ActivityError, encode_params
from lab.classroom.db import reading, writing
from lab.classroom.naming import check_text
from lab.classroom.records import bump_version
from lab.classroom.refusals import ClassroomError
from lab.classroom.teacher_link import teacher_class
from lab.core.errors import Said, said, said_of
from lab.core.numbers import shown
from lab.teaching.class_question import (
    OWN,
    SECOND_TARGET,
    WORKED_EXAMPLE,
    ClassQuestionError,
    own_fields,
    own_question,
)

MAX_PLAN_BYTES = 64_000  # a plan of 30 activities of 26 tokens each is well under this
MAX_ACTIVITIES = 30
MAX_PLAN_TITLE = 80
KINDS = ("worked-example", "scenario", "second-target", "question", "exercises")
_FIELDS = {
    "worked-example": set(),
    "scenario": {"scenario"},
    "second-target": {"scenario"},
    "question": {"title", "tokens", "p", "q"},
    "exercises": {"seed", "level", "count"},
}
FORMULA_START = ("=", "+", "-", "@")  # a text a spreadsheet would run as a formula


class PlanError(ClassroomError):
    """A plan that cannot be used (the message names the activity and the field)."""


@dataclass(frozen=True)
class PlanItem:
    """One activity of a plan, as the class store opens it: ``kind`` (PREDICT or ASSIGNMENT), its parameters as
    stored, and its countdown (None: none)."""

    kind: str
    params: tuple[tuple[str, object], ...]
    timer_s: int | None = None

    @property
    def args(self) -> dict:
        return dict(self.params)

    def label(self) -> str:
        """The activity in words, as the dashboard lists it."""
        activity = self._activity()
        if self.timer_s:
            return said("{activity} (countdown {seconds} s)", activity=activity, seconds=self.timer_s)
        return activity

    def _activity(self) -> Said:
        if self.kind == ASSIGNMENT:
            a = self.args
            return said(
                "Exercises: seed {seed}, level {level}, {count} problems",
                seed=a["seed"], level=a["level"], count=a["count"],
            )
        source = self.args["source"]
        if source == WORKED_EXAMPLE:
            return said("Worked example: r(B) and r(C)")
        if source.startswith(SECOND_TARGET):
            return said("Two drafts, p₂: {scenario}", scenario=source[len(SECOND_TARGET):])
        if source.startswith(OWN):
            fields = own_fields(source)
            return said("Your own question: {title}", title=fields["title"] or fields["tokens"])
        return said("Scenario: {scenario}", scenario=source)


@dataclass(frozen=True)
class Plan:
    title: str
    items: tuple[PlanItem, ...]


def plan_item(kind: str, params: dict, timer_s=None) -> PlanItem:
    """A checked item (the store's own checks: encode_params, check_timer); raises ClassroomError."""
    try:
        stored = json.loads(encode_params(kind, params))
    except ActivityError as exc:
        raise ClassroomError(said_of(exc)) from None
    return PlanItem(kind, tuple(sorted(stored.items())), classes.check_timer(timer_s))


# --- the TOML file ----------------------------------------------------------------------------------------------


def read_plan(data: bytes | str) -> Plan:
    """A plan from a TOML file's bytes, every value checked; raises PlanError naming the activity and the field."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_PLAN_BYTES:
        raise PlanError(said(
            "The file has {count} bytes; a lesson plan has at most {most}.",
            count=f"{len(raw):,}", most=f"{MAX_PLAN_BYTES:,}",
        ))
    try:
        parsed = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PlanError(said("The file is not text (UTF-8): a lesson plan is a TOML file.")) from None
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(said("The file is not a lesson plan in TOML: {problem}.", problem=str(exc)[:120])) from None
    unknown = sorted(set(parsed) - {"title", "activity"})
    if unknown:
        raise PlanError(
            said("The file has {name}, which a lesson plan does not (title, activity).", name=shown(unknown[0]))
        )
    title = _text(parsed.get("title", ""), said("title"), MAX_PLAN_TITLE)
    activities = parsed.get("activity", [])
    if not isinstance(activities, list) or not all(isinstance(a, dict) for a in activities):
        raise PlanError(said("activity: write each as an [[activity]] table."))
    if not activities:
        raise PlanError(said("The plan has no [[activity]]: add at least one."))
    if len(activities) > MAX_ACTIVITIES:
        raise PlanError(
            said("The plan has {count} activities; at most {most}.", count=len(activities), most=MAX_ACTIVITIES)
        )
    return Plan(title, tuple(_item(i, a) for i, a in enumerate(activities, start=1)))


def _text(value, where: str, limit: int) -> str:
    if not isinstance(value, str):
        raise PlanError(said("{where}: write it as text in quotes.", where=where))
    cleaned = " ".join(value.split())
    if cleaned.startswith(FORMULA_START):
        raise PlanError(said(
            "{where}: {value} would run as a spreadsheet formula; start it with a letter.",
            where=where, value=shown(cleaned[:20]),
        ))
    try:
        return check_text(where, cleaned, limit)
    except ClassroomError as exc:
        raise PlanError(said_of(exc)) from None


def _item(number: int, data: dict) -> PlanItem:
    where = said("activity {number}", number=number)
    kind = data.get("kind")
    if kind not in KINDS:
        raise PlanError(said(
            "{where}: kind {kind} is not one of {kinds}.",
            where=where, kind=shown(str(kind)[:30]), kinds=", ".join(KINDS),
        ))
    unknown = sorted(set(data) - _FIELDS[kind] - {"kind", "countdown"})
    if unknown:
        raise PlanError(said(
            "{where}: {name} is not a field of a {kind} activity.", where=where, name=shown(unknown[0]), kind=kind
        ))
    missing = sorted(_FIELDS[kind] - set(data) - {"title"})
    if missing:
        raise PlanError(said("{where}: {name} is missing.", where=where, name=missing[0]))
    timer = data.get("countdown")
    try:
        if kind == "exercises":
            return plan_item(ASSIGNMENT, {k: data[k] for k in ("seed", "level", "count")}, timer)
        return plan_item(PREDICT, {"source": _source(kind, data, where)}, timer)
    except PlanError:
        raise
    except ClassroomError as exc:
        raise PlanError(said("{where}: {problem}", where=where, problem=said_of(exc))) from None


def _source(kind: str, data: dict, where: str) -> str:
    if kind == "worked-example":
        return WORKED_EXAMPLE
    if kind in ("scenario", "second-target"):
        name = _text(data["scenario"], said("{where}, scenario", where=where), 80)
        return name if kind == "scenario" else SECOND_TARGET + name
    fields = {
        k: _text(data.get(k, ""), said("{where}, {field}", where=where, field=k), 2000)
        for k in ("title", "tokens", "p", "q")
    }
    try:
        return own_question(fields["title"], fields["tokens"], fields["p"], fields["q"])
    except ClassQuestionError as exc:
        raise PlanError(said("{where}: {problem}", where=where, problem=said_of(exc))) from None


def _quoted(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def plan_toml(plan: Plan) -> str:
    """The plan as the TOML file read_plan reads (round trip: read_plan(plan_toml(plan)) == plan)."""
    lines = ["# A Residual Lab lesson plan: import it on the Class page.", f"title = {_quoted(plan.title)}"]
    for item in plan.items:
        lines += ["", "[[activity]]"]
        args = item.args
        if item.kind == ASSIGNMENT:
            lines += ['kind = "exercises"', f"seed = {args['seed']}", f"level = {_quoted(args['level'])}",
                      f"count = {args['count']}"]  # fmt: skip
        elif args["source"] == WORKED_EXAMPLE:
            lines.append('kind = "worked-example"')
        elif args["source"].startswith(SECOND_TARGET):
            lines += ['kind = "second-target"', f"scenario = {_quoted(args['source'][len(SECOND_TARGET):])}"]
        elif args["source"].startswith(OWN):
            fields = own_fields(args["source"])
            lines.append('kind = "question"')
            lines += [f"{k} = {_quoted(fields[k])}" for k in ("title", "tokens", "p", "q")]
        else:
            lines += ['kind = "scenario"', f"scenario = {_quoted(args['source'])}"]
        if item.timer_s:
            lines.append(f"countdown = {item.timer_s}")
    return "\n".join(lines) + "\n"


# --- kept with a class ------------------------------------------------------------------------------------------


def stored_plan(plan: Plan) -> str:
    """The plan as a class keeps it (JSON)."""
    return json.dumps({"title": plan.title, "items": [[i.kind, i.args, i.timer_s] for i in plan.items]})


def plan_from_stored(stored: str | None) -> Plan:
    """The class's plan as kept (an empty plan when none); each item checked again as it is read."""
    if not stored:
        return Plan("", ())
    data = json.loads(stored)
    return Plan(data["title"], tuple(plan_item(kind, args, timer) for kind, args, timer in data["items"]))


def class_plan(engine: Engine, code: str, teacher_token: str) -> Plan:
    with reading(engine) as conn:
        klass = teacher_class(conn, code, teacher_token, must_be_open=False)
        stored = conn.execute(text("SELECT plan FROM classes WHERE id = :id"), {"id": klass.id}).scalar_one()
    return plan_from_stored(stored)


def set_plan(engine: Engine, code: str, teacher_token: str, plan: Plan) -> None:
    """Keep ``plan`` with the class (it replaces the one kept)."""
    if len(plan.items) > MAX_ACTIVITIES:
        raise PlanError(said("A lesson plan has at most {most} activities.", most=MAX_ACTIVITIES))
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        conn.execute(text("UPDATE classes SET plan = :p WHERE id = :id"), {"p": stored_plan(plan), "id": klass.id})
        bump_version(conn, klass.id)


def add_to_plan(engine: Engine, code: str, teacher_token: str, item: PlanItem) -> int:
    """Put ``item`` at the end of the class's plan; returns its number."""
    plan = class_plan(engine, code, teacher_token)
    set_plan(engine, code, teacher_token, Plan(plan.title, (*plan.items, item)))
    return len(plan.items) + 1


def remove_from_plan(engine: Engine, code: str, teacher_token: str, number: int) -> None:
    plan = class_plan(engine, code, teacher_token)
    if not 1 <= int(number) <= len(plan.items):
        raise PlanError(said("The plan has no activity {number}.", number=number))
    items = plan.items[: number - 1] + plan.items[number:]
    set_plan(engine, code, teacher_token, Plan(plan.title, items))


def open_from_plan(engine: Engine, code: str, teacher_token: str, number: int) -> int:
    """Open activity ``number`` of the class's plan for the class; returns its position in the class."""
    plan = class_plan(engine, code, teacher_token)
    if not 1 <= int(number) <= len(plan.items):
        raise PlanError(said("The plan has no activity {number}.", number=number))
    item = plan.items[number - 1]
    return classes.open_activity(engine, code, teacher_token, item.kind, item.args, item.timer_s)
