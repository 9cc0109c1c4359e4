"""The class's results as CSV, made from one column spec (CSV_COLUMNS).

Each column names its header, the SQL values it reads (by name, from both halves of the query) and how it makes
its cell; the header, the query and each row all come from that list, so a column is added in one place.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.engine import Engine, Row

from lab.classroom.activities import CLOSE, PREDICT, AssignmentSpec, PredictSpec, decode_prediction, spec_of
from lab.classroom.db import reading
from lab.classroom.records import ClassRow, utc_text
from lab.classroom.teacher_link import teacher_class
from lab.core.formatting import fraction_text

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
    """A CSV field that a spreadsheet shows as text: a leading = + - @ tab or CR gets an apostrophe."""
    text_ = "" if value is None else str(value)
    return "'" + text_ if text_.startswith(_FORMULA_START) else text_


class Selected(NamedTuple):
    """One value the export query selects, under ``name``, from the current round's submissions (``sub``) and
    from the earlier rounds' answers (``ea``); both halves join the activity ``a`` and the student ``s``."""

    name: str
    current: str
    earlier: str | None = None  # None: the same expression in both halves

    def expression(self, half: str) -> str:
        return self.current if half == "current" or self.earlier is None else self.earlier


class AnswerCells(NamedTuple):
    """The cells that depend on the activity's kind: a prediction's bars or an assignment's answer."""

    question: str
    answer: str
    exact: str
    score: str
    correct: str


class ExportRow(NamedTuple):
    """What a column's cell is made from: the class, the activity's spec, the query's values by name, and the
    answer's cells."""

    klass: ClassRow
    spec: PredictSpec | AssignmentSpec
    sql: Row  # the query's row: every Selected value by its name
    answer: AnswerCells


@dataclass(frozen=True)
class CsvColumn:
    name: str  # the header
    cell: Callable[[ExportRow], object]
    reads: tuple[Selected, ...] = ()  # the values it needs from the query


def _answers(column: str) -> Selected:
    """A column both answer tables have."""
    return Selected(column, f"sub.{column}", f"ea.{column}")


# Values every row needs, whatever its columns: which activity (its spec decodes the answer) and the order.
_EXPORT_BASE = (
    Selected("position", "a.position"),
    Selected("kind", "a.kind"),
    Selected("params", "a.params"),
    Selected("joined_at", "s.joined_at"),
    Selected("sid", "s.id"),
    Selected("problem", "sub.problem", "0"),
    _answers("answer"),
    Selected("correct", "sub.correct", "0"),
    Selected("round", "a.round", "ea.round"),
)


# each activity's rounds in turn, then the students in the order they joined, then the questions
_EXPORT_ORDER = ("position", "round", "joined_at", "sid", "problem")


_EXPORT_FROM = {
    "current": "JOIN submissions sub ON sub.activity_id = a.id JOIN students s ON s.id = sub.student_id",
    "earlier": "JOIN earlier_answers ea ON ea.activity_id = a.id JOIN students s ON s.id = ea.student_id",
}


def _removed(row: ExportRow) -> str:
    return "" if row.sql.removed_at is None else f"removed {utc_text(row.sql.removed_at)}"


CSV_COLUMNS = (
    CsvColumn("class", lambda row: row.klass.name or row.klass.code),  # an unnamed class: its code
    CsvColumn("class code", lambda row: row.klass.code),
    CsvColumn("activity", lambda row: row.sql.position),
    CsvColumn("activity title", lambda row: row.spec.title),
    CsvColumn("student", lambda row: row.sql.name, (Selected("name", "s.name"),)),
    CsvColumn("student number", lambda row: row.sql.identifier, (Selected("identifier", "s.identifier"),)),
    CsvColumn("question", lambda row: row.answer.question),
    CsvColumn("answer", lambda row: row.answer.answer),
    CsvColumn("exact", lambda row: row.answer.exact),
    CsvColumn("score", lambda row: row.answer.score),
    CsvColumn("correct", lambda row: row.answer.correct),
    CsvColumn("tries", lambda row: row.sql.tries, (_answers("tries"),)),
    CsvColumn("first saved", lambda row: utc_text(row.sql.created_at), (_answers("created_at"),)),
    CsvColumn("last saved", lambda row: utc_text(row.sql.updated_at), (_answers("updated_at"),)),
    CsvColumn("removed", _removed, (Selected("removed_at", "s.removed_at"),)),  # when the teacher removed them
    CsvColumn("round", lambda row: row.sql.round),  # the peer-instruction round (1, then 2 after Vote again)
    CsvColumn("revealed at", lambda row: utc_text(row.sql.revealed_at) if row.sql.revealed_at is not None else "",
              (Selected("revealed_at", "a.revealed_at"),)),  # no answer is saved after it (lab.classroom.answers)
)  # fmt: skip
# then, per predicted value i (as many as the class's largest question has), its name, the student's value and the
# exact one, each as a fraction and as a decimal: VALUE_PARTS


VALUE_PARTS = ("", " answer", " answer decimal", " exact", " exact decimal")


CSV_HEADER = tuple(column.name for column in CSV_COLUMNS)


def _export_selected(columns) -> tuple[Selected, ...]:
    """The base values and every column's, each name once (a name read twice must mean the same thing)."""
    chosen: dict[str, Selected] = {}
    for value in (*_EXPORT_BASE, *(v for column in columns for v in column.reads)):
        if chosen.setdefault(value.name, value) != value:
            raise ValueError(f"export value {value.name!r} is selected twice with different expressions")
    return tuple(chosen.values())


def export_query(columns) -> str:
    """The export's SQL: the current round's submissions UNION ALL the earlier rounds' answers, ordered by name."""
    selected = _export_selected(columns)
    halves = [
        "SELECT " + ", ".join(f"{v.expression(half)} AS {v.name}" for v in selected)
        + f" FROM activities a {joins} WHERE a.class_id = :cid"
        for half, joins in _EXPORT_FROM.items()
    ]  # fmt: skip
    return " UNION ALL ".join(halves) + " ORDER BY " + ", ".join(_EXPORT_ORDER)


def _fractions(fields, values) -> str:
    return "; ".join(f"{f} = {fraction_text(v)}" for f, v in zip(fields, values))


def _answer_cells(r, spec: PredictSpec | AssignmentSpec) -> AnswerCells:
    """A prediction's score is the share of its values within 0.05 of the exact answer (inclusive); "correct" is yes
    exactly when the score is 1 (every value within 0.05, the dashboard's "got all"). A problem scores 1 or 0."""
    if r.kind == PREDICT:
        values = decode_prediction(r.answer)
        within = sum(abs(v - e) <= CLOSE for v, e in zip(values, spec.exact))
        score = Fraction(within, len(spec.exact))
        return AnswerCells(
            "prediction", _fractions(spec.fields, values), _fractions(spec.fields, spec.exact),
            f"{float(score):.3f}", "yes" if score == 1 else "no",
        )  # fmt: skip
    problem = spec.problems[r.problem - 1]
    return AnswerCells(f"problem {r.problem}", r.answer, problem.answer_text, "1" if r.correct else "0",
                       "yes" if r.correct else "no")  # fmt: skip


def _value_cells(r, spec, count: int) -> list[str]:
    """The predicted values one by one (VALUE_PARTS each), blank past the question's own and for a problem."""
    cells: list[str] = []
    if r.kind == PREDICT:
        values = decode_prediction(r.answer)
        for field, value, exact in zip(spec.fields, values, spec.exact):
            cells += [field, fraction_text(value), _decimal(value), fraction_text(exact), _decimal(exact)]
    return cells + [""] * (count * len(VALUE_PARTS) - len(cells))


def _decimal(value: Fraction) -> str:
    return f"{float(value):.6g}"


def class_results_csv(engine: Engine, code: str, teacher_token: str) -> str:
    """Every activity's submissions, one row per student, question and round, every field formula-escaped;
    the columns are ``CSV_COLUMNS`` ("removed" marks the answers of students the teacher removed, with when; "round"
    says which vote an answer belongs to), then each predicted value as a number (VALUE_PARTS)."""
    columns = CSV_COLUMNS
    with reading(engine) as conn:
        klass = teacher_class(conn, code, teacher_token, must_be_open=False)
        rows = conn.execute(text(export_query(columns)), {"cid": klass.id}).all()
    specs: dict[tuple[str, str], PredictSpec | AssignmentSpec] = {}
    for r in rows:
        specs.setdefault((r.kind, r.params), spec_of(r.kind, r.params))
    count = max((len(spec.fields) for (kind, _), spec in specs.items() if kind == PREDICT), default=0)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([column.name for column in columns] + [
        f"value {i}{part}" for i in range(1, count + 1) for part in VALUE_PARTS
    ])
    for r in rows:
        spec = specs[(r.kind, r.params)]
        row = ExportRow(klass, spec, r, _answer_cells(r, spec))
        writer.writerow([csv_cell(column.cell(row)) for column in columns] + [
            csv_cell(cell) for cell in _value_cells(r, spec, count)
        ])
    return out.getvalue()
