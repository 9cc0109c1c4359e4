"""Downloads for a course: answer key, printable worksheet, a student's results, and assignment links.

Pure text builders (no Streamlit); the page offers them with download buttons and the CLI prints the
key. Every piece of text that goes into HTML is escaped; nothing is stored on the server.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import html
import io
from collections.abc import Mapping, Sequence
from urllib.parse import urlencode, urlsplit, urlunsplit

from lab.core.formatting import fraction_text
from lab.core.numbers import shown
from lab.teaching.exercises import (
    LEVEL_TITLES,
    Attempt,
    ExerciseInputError,
    PredictProblem,
    Problem,
    parse_count,
    parse_level,
    parse_seed,
)

# --- assignment links ---------------------------------------------------------------------------

EXERCISES_URL_PATH = "exercises"


def assignment_query(seed, count, level) -> dict[str, str]:
    """The URL parameters of an assignment (validated). Defaults are written too, so a link is explicit."""
    return {"seed": str(parse_seed(seed)), "count": str(parse_count(count)), "level": parse_level(level)}


# A QR code (error correction M) holds at most 2,331 bytes; the assignment link adds the page path and
# ?seed=…&count=…&level=… to the address, so an address this long always fits.
MAX_BASE_URL_LENGTH = 1000


def check_base_url(text: str) -> str:
    """An app address typed by the teacher: http(s) with a host, nothing else, at most 1,000 characters."""
    cleaned = str(text).strip()
    if len(cleaned) > MAX_BASE_URL_LENGTH:
        raise ExerciseInputError(
            f"app address {shown(cleaned)} is longer than {MAX_BASE_URL_LENGTH:,} characters "
            "(a QR code could not hold the link)"
        )
    parts = urlsplit(cleaned)
    try:
        has_host = bool(parts.hostname) and (parts.port is None or parts.port > 0)
    except ValueError:  # a port that is not a number from 0 to 65535
        has_host = False
    odd = any(not ch.isprintable() or ch.isspace() for ch in cleaned)
    if parts.scheme not in ("http", "https") or not has_host or odd:
        raise ExerciseInputError(f"app address {shown(cleaned, 60)} is not an http:// or https:// address with a host")
    return cleaned


def assignment_url(base_url: str, seed, count, level) -> str:
    """``<app>/exercises?seed=S&count=N&level=L`` from any URL of the app (its path and query are replaced)."""
    parts = urlsplit(base_url or "")
    path = parts.path.rstrip("/")
    # Keep a prefix the app may be served under (e.g. /lab/explorer -> /lab/exercises).
    prefix = path.rsplit("/", 1)[0] if path.count("/") > 1 else ""
    return urlunsplit(
        (
            parts.scheme,
            parts.netloc,
            f"{prefix}/{EXERCISES_URL_PATH}",
            urlencode(assignment_query(seed, count, level)),
            "",
        )
    )


# --- the teacher's link -------------------------------------------------------------------------
# The answer keys and the presenter's Reveal buttons open only with a teacher link: the assignment link plus
# ``teacher=TOKEN``, a token derived from the server's secret and the seed. The page makes one only for a seed it
# draws at random (New random seed), so a student who types the seed of their class's assignment gets no key.

TEACHER_PARAM = "teacher"
_TEACHER_CONTEXT = "residual-lab exercises teacher v1"


def teacher_token(secret: bytes, seed) -> str:
    """The teacher token of an assignment's seed (24 URL-safe characters; the count and level are free)."""
    message = f"{_TEACHER_CONTEXT} seed={parse_seed(seed)}".encode()
    return base64.urlsafe_b64encode(hmac.new(secret, message, hashlib.sha256).digest()[:18]).decode()


def is_teacher_token(secret: bytes, seed, token) -> bool:
    """Does ``token`` (from a link: any text) open the keys of ``seed``? Compared in constant time."""
    given = str(token or "")[:100].encode("utf-8", "replace")
    return bool(given) and hmac.compare_digest(teacher_token(secret, seed).encode(), given)


def teacher_url(base_url: str, seed, count, level, token: str) -> str:
    """The assignment link with the teacher token: the teacher's own, never for the class."""
    return assignment_url(base_url, seed, count, level) + "&" + urlencode({TEACHER_PARAM: token})


# --- shared pieces ------------------------------------------------------------------------------


def _dist_text(problem: Problem | PredictProblem, which: str) -> str:
    dist = problem.p if which == "p" else problem.q
    return ", ".join(f"{t}={fraction_text(v)}" for t, v in zip(dist.tokens, dist.values))


def _md_cell(text) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _csv_text(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _heading(seed: int, level: str, count: int) -> str:
    return f"seed {seed}, {count} problems, level {level} ({LEVEL_TITLES[level]})"


def _md_header(title: str, seed: int, level: str, count: int) -> list[str]:
    """The first lines of a Markdown export: its title and the assignment it belongs to."""
    return [f"# Residual Lab {title}", "", f"Assignment: {_heading(seed, level, count)}.", ""]


def _md_row(cells) -> str:
    return "| " + " | ".join(_md_cell(c) for c in cells) + " |"


# --- answer key ---------------------------------------------------------------------------------

KEY_HEADER = ("problem", "level", "question", "p", "q", "answer", "answer_decimal")


def answer_key_rows(problems: Sequence[Problem]) -> list[list[str]]:
    return [
        [
            str(exercise.number),
            exercise.level,
            exercise.prompt,
            _dist_text(exercise, "p"),
            _dist_text(exercise, "q"),
            exercise.answer_text,
            exercise.answer_decimal,
        ]
        for exercise in problems
    ]


def answer_key_csv(problems: Sequence[Problem]) -> str:
    return _csv_text(KEY_HEADER, answer_key_rows(problems))


def _prediction_rows(predictions: Sequence[PredictProblem]) -> list[list[str]]:
    rows = []
    for exercise in predictions:
        r = exercise.truth
        rows.append(
            [
                f"Bars {exercise.number}",
                _dist_text(exercise, "p"),
                _dist_text(exercise, "q"),
                ", ".join(f"{t}={fraction_text(v)}" for t, v in zip(exercise.p.tokens, r)),
            ]
        )
    return rows


def answer_key_markdown(problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level) -> str:
    lines = [
        *_md_header("answer key", seed, level, len(problems)),
        "| problem | question | p | q | answer | decimal |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in answer_key_rows(problems):
        number, _level, question, p, q, answer, dec = row
        lines.append(_md_row((number, question, p, q, answer, dec)))
    if predictions:
        lines += [
            "",
            "## Predict the bars: the residual r",
            "",
            "| exercise | p | q | r |",
            "| --- | --- | --- | --- |",
        ]
        for row in _prediction_rows(predictions):
            lines.append(_md_row(row))
    return "\n".join(lines) + "\n"


def answer_key_text(problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level) -> str:
    """Plain text for the terminal."""
    lines = [f"Residual Lab assignment: {_heading(seed, level, len(problems))}", ""]
    for exercise in problems:
        lines += [
            f"{exercise.number}. {exercise.prompt}",
            f"   p: {_dist_text(exercise, 'p')}",
            f"   q: {_dist_text(exercise, 'q')}",
            f"   answer: {exercise.answer_text}"
            + (f" ({exercise.answer_decimal})" if "/" in exercise.answer_text else ""),
            "",
        ]
    if predictions:
        lines.append("Predict the bars (the residual r):")
        for label, p, q, r in _prediction_rows(predictions):
            lines += [f"{label}. p: {p}", f"   q: {q}", f"   r: {r}"]
        lines.append("")
    return "\n".join(lines)


def assignment_json(problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level) -> dict:
    return {
        "seed": seed,
        "count": len(problems),
        "level": level,
        "problems": [
            {
                "problem": exercise.number,
                "kind": exercise.kind,
                "token": exercise.token,
                "question": exercise.prompt,
                "tokens": list(exercise.p.tokens),
                "p": {t: fraction_text(v) for t, v in zip(exercise.p.tokens, exercise.p.values)},
                "q": {t: fraction_text(v) for t, v in zip(exercise.q.tokens, exercise.q.values)},
                "answer": exercise.answer_text,
            }
            for exercise in problems
        ],
        "predict_the_bars": [
            {
                "exercise": exercise.number,
                "tokens": list(exercise.p.tokens),
                "p": {t: fraction_text(v) for t, v in zip(exercise.p.tokens, exercise.p.values)},
                "q": {t: fraction_text(v) for t, v in zip(exercise.q.tokens, exercise.q.values)},
                "r": {t: fraction_text(v) for t, v in zip(exercise.p.tokens, exercise.truth)},
            }
            for exercise in predictions
        ],
    }


# --- worksheet (no answers) -----------------------------------------------------------------------

WORKSHEET_HEADER = ("problem", "question", "p", "q", "answer")
ANSWER_HELP = "Answer as a fraction (3/4) or a decimal (0.75); write 'undefined' if the quantity does not exist."


def worksheet_csv(problems: Sequence[Problem]) -> str:
    return _csv_text(
        WORKSHEET_HEADER,
        [
            [str(exercise.number), exercise.prompt, _dist_text(exercise, "p"), _dist_text(exercise, "q"), ""]
            for exercise in problems
        ],
    )


def worksheet_markdown(problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level) -> str:
    lines = [
        *_md_header("worksheet", seed, level, len(problems)),
        ANSWER_HELP,
        "",
    ]
    for exercise in problems:
        lines += [
            f"## Problem {exercise.number}",
            "",
            "| token | " + " | ".join(_md_cell(t) for t in exercise.p.tokens) + " |",
            "| --- |" + " --- |" * len(exercise.p.tokens),
            "| p | " + " | ".join(fraction_text(v) for v in exercise.p.values) + " |",
            "| q | " + " | ".join(fraction_text(v) for v in exercise.q.values) + " |",
            "",
            _md_cell(exercise.prompt),
            "",
            "Answer: ______________________",
            "",
        ]
    for exercise in predictions:
        lines += [
            f"## Predict the bars {exercise.number}",
            "",
            f"p: {_dist_text(exercise, 'p')}  ",
            f"q: {_dist_text(exercise, 'q')}",
            "",
            "Sketch the residual r(x) for every token: " + ", ".join(f"r({t}) = ____" for t in exercise.p.tokens),
            "",
        ]
    return "\n".join(lines)


# Printed in the browser's own ink (black text, borders in the text colour): a worksheet has no palette colour.
_PRINT_CSS = """
body { font-family: system-ui, sans-serif; font-size: 12pt; max-width: 48rem; margin: 1.5rem auto; }
h1 { font-size: 18pt; } h2 { font-size: 13pt; margin: 1.2rem 0 0.4rem; }
table { border-collapse: collapse; margin: 0.3rem 0; }
th, td { border: 1px solid currentColor; padding: 0.2rem 0.6rem; text-align: center; }
.problem { break-inside: avoid; page-break-inside: avoid; }
.answer { margin-top: 0.4rem; border-bottom: 1px solid currentColor; width: 60%; height: 1.6rem; }
@media print { body { margin: 0; max-width: none; } a { color: inherit; text-decoration: none; } }
"""


def _html_table(exercise: Problem | PredictProblem) -> str:
    esc = html.escape
    head = "".join(f"<th scope='col'>{esc(t)}</th>" for t in exercise.p.tokens)
    p_row = "".join(f"<td>{esc(fraction_text(v))}</td>" for v in exercise.p.values)
    q_row = "".join(f"<td>{esc(fraction_text(v))}</td>" for v in exercise.q.values)
    return (
        f"<table><tr><th scope='col'>token</th>{head}</tr>"
        f"<tr><th scope='row'>p</th>{p_row}</tr><tr><th scope='row'>q</th>{q_row}</tr></table>"
    )


def worksheet_html(problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level) -> str:
    """A standalone page that prints cleanly (one problem never split across pages). All text escaped."""
    esc = html.escape
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Residual Lab worksheet</title>",
        f"<style>{_PRINT_CSS}</style></head><body>",
        "<h1>Residual Lab worksheet</h1>",
        f"<p>Assignment: {esc(_heading(seed, level, len(problems)))}. Name: ____________________</p>",
        f"<p>{esc(ANSWER_HELP)}</p>",
    ]
    for exercise in problems:
        parts += [
            "<section class='problem'>",
            f"<h2>Problem {exercise.number}</h2>",
            _html_table(exercise),
            f"<p>{esc(exercise.prompt)}</p>",
            "<div class='answer' aria-label='answer line'></div>",
            "</section>",
        ]
    for exercise in predictions:
        blanks = ", ".join(f"r({esc(t)}) = ____" for t in exercise.p.tokens)
        parts += [
            "<section class='problem'>",
            f"<h2>Predict the bars {exercise.number}</h2>",
            _html_table(exercise),
            f"<p>Sketch the residual r(x) for every token: {blanks}</p>",
            "</section>",
        ]
    parts.append("</body></html>")
    return "\n".join(parts)


# --- a student's results ------------------------------------------------------------------------

RESULTS_HEADER = ("problem", "answer", "correct", "tries", "question", "seed", "level")


def results_csv(problems: Sequence[Problem], attempts: Mapping[int, Attempt]) -> str:
    """One row per problem: the student's last counted answer, whether it was right, and the tries used."""
    rows = []
    for exercise in problems:
        attempt = attempts.get(exercise.number) or Attempt()
        rows.append(
            [
                str(exercise.number),
                attempt.answer,
                "yes" if attempt.correct else "no",
                str(attempt.tries),
                exercise.prompt,
                str(exercise.seed),
                exercise.level,
            ]
        )
    return _csv_text(RESULTS_HEADER, rows)
