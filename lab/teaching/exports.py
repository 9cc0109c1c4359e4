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

from lab.core.errors import Said
from lab.core.formatting import fraction_text
from lab.core.numbers import shown
from lab.i18n import N_
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


APP = "Residual Lab"  # the app's name, the same in every language


def _english(message: str, /, **values) -> str:
    """The words of an export in English (the CLI's; a page passes its language's ``_``, lab.i18n.Texts)."""
    return message.format(**values) if values else message


def _said(text, _) -> str:
    """A problem's words (a :class:`Said`) in the export's language."""
    return text.translated(_) if isinstance(text, Said) else str(text)


def _heading(seed: int, level: str, count: int, _=_english) -> str:
    return _("seed {seed}, {count} problems, level {level} ({title})", seed=seed, count=count, level=level,
             title=_(LEVEL_TITLES[level]))


def _md_header(title: str, seed: int, level: str, count: int, _=_english) -> list[str]:
    """The first lines of a Markdown export: its title and the assignment it belongs to."""
    return [f"# {title}", "", _("Assignment: {assignment}.", assignment=_heading(seed, level, count, _)), ""]


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


def _prediction_rows(predictions: Sequence[PredictProblem], _=_english) -> list[list[str]]:
    rows = []
    for exercise in predictions:
        r = exercise.truth
        rows.append(
            [
                _("Bars {number}", number=exercise.number),
                _dist_text(exercise, "p"),
                _dist_text(exercise, "q"),
                ", ".join(f"{t}={fraction_text(v)}" for t, v in zip(exercise.p.tokens, r)),
            ]
        )
    return rows


def answer_key_markdown(
    problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level, _=_english
) -> str:
    """The answer key as Markdown, in the language of ``_`` (English by default; its values as computed)."""
    lines = [
        *_md_header(_("{app} answer key", app=APP), seed, level, len(problems), _),
        _md_row((_("problem"), _("question"), "p", "q", _("answer"), _("decimal"))),
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for exercise, row in zip(problems, answer_key_rows(problems)):
        number, _level, _question, p, q, answer, dec = row
        lines.append(_md_row((number, _said(exercise.prompt, _), p, q, answer, dec)))
    if predictions:
        lines += [
            "",
            _("## Predict the bars: the residual r"),
            "",
            _md_row((_("exercise"), "p", "q", "r")),
            "| --- | --- | --- | --- |",
        ]
        for row in _prediction_rows(predictions, _):
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
ANSWER_HELP = N_("Answer as a fraction ({fraction}) or a decimal ({decimal}); write '{undefined}' if the quantity does "
                 "not exist.")


def _answer_help(_=_english, decimal_comma: bool = False) -> str:
    return _(ANSWER_HELP, fraction="3/4", decimal="0,75" if decimal_comma else "0.75", undefined=_("undefined"))


def worksheet_csv(problems: Sequence[Problem]) -> str:
    return _csv_text(
        WORKSHEET_HEADER,
        [
            [str(exercise.number), exercise.prompt, _dist_text(exercise, "p"), _dist_text(exercise, "q"), ""]
            for exercise in problems
        ],
    )


def worksheet_markdown(
    problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level, _=_english,
    decimal_comma: bool = False,
) -> str:
    """The worksheet as Markdown, in the language of ``_`` (English by default)."""
    lines = [
        *_md_header(_("{app} worksheet", app=APP), seed, level, len(problems), _),
        _answer_help(_, decimal_comma),
        "",
    ]
    token = _md_cell(_("token"))
    for exercise in problems:
        lines += [
            _("## Problem {number}", number=exercise.number),
            "",
            f"| {token} | " + " | ".join(_md_cell(t) for t in exercise.p.tokens) + " |",
            "| --- |" + " --- |" * len(exercise.p.tokens),
            "| p | " + " | ".join(fraction_text(v) for v in exercise.p.values) + " |",
            "| q | " + " | ".join(fraction_text(v) for v in exercise.q.values) + " |",
            "",
            _md_cell(_said(exercise.prompt, _)),
            "",
            _("Answer: {blank}", blank="______________________"),
            "",
        ]
    for exercise in predictions:
        blanks = ", ".join(f"r({t}) = ____" for t in exercise.p.tokens)
        lines += [
            _("## Predict the bars {number}", number=exercise.number),
            "",
            f"p: {_dist_text(exercise, 'p')}  ",
            f"q: {_dist_text(exercise, 'q')}",
            "",
            _("Sketch the residual r(x) for every token: {blanks}", blanks=blanks),
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


def _html_table(exercise: Problem | PredictProblem, _=_english) -> str:
    esc = html.escape
    head = "".join(f"<th scope='col'>{esc(t)}</th>" for t in exercise.p.tokens)
    token = esc(_("token"))
    p_row = "".join(f"<td>{esc(fraction_text(v))}</td>" for v in exercise.p.values)
    q_row = "".join(f"<td>{esc(fraction_text(v))}</td>" for v in exercise.q.values)
    return (
        f"<table dir='ltr'><tr><th scope='col'>{token}</th>{head}</tr>"
        f"<tr><th scope='row'>p</th>{p_row}</tr><tr><th scope='row'>q</th>{q_row}</tr></table>"
    )


def worksheet_html(
    problems: Sequence[Problem], predictions: Sequence[PredictProblem], seed, level, _=_english, lang: str = "en",
    direction: str = "ltr", decimal_comma: bool = False,
) -> str:
    """A standalone page that prints cleanly (one problem never split across pages), in the language of ``_`` (its
    code ``lang``, written ``direction``; English by default). All text escaped."""
    esc = html.escape
    title = esc(_("{app} worksheet", app=APP))
    answer_line = esc(_("answer line"))
    assignment = _("Assignment: {assignment}. Name: {blank}", assignment=_heading(seed, level, len(problems), _),
                   blank="____________________")  # fmt: skip
    parts = [
        f"<!doctype html><html lang='{esc(lang)}' dir='{esc(direction)}'><head><meta charset='utf-8'>",
        f"<title>{title}</title>",
        f"<style>{_PRINT_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p>{esc(assignment)}</p>",
        f"<p>{esc(_answer_help(_, decimal_comma))}</p>",
    ]
    for exercise in problems:
        heading = esc(_("Problem {number}", number=exercise.number))
        parts += [
            "<section class='problem'>",
            f"<h2>{heading}</h2>",
            _html_table(exercise, _),
            f"<p>{esc(_said(exercise.prompt, _))}</p>",
            f"<div class='answer' aria-label='{answer_line}'></div>",
            "</section>",
        ]
    for exercise in predictions:
        blanks = ", ".join(f"r({t}) = ____" for t in exercise.p.tokens)
        heading = esc(_("Predict the bars {number}", number=exercise.number))
        sketch = esc(_("Sketch the residual r(x) for every token: {blanks}", blanks=blanks))
        parts += [
            "<section class='problem'>",
            f"<h2>{heading}</h2>",
            _html_table(exercise, _),
            f"<p>{sketch}</p>",
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
