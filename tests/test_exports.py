"""Exports parsed back (csv module, Markdown table lines, HTML parser) and compared with the key."""

import csv
import html
import io
from fractions import Fraction as F
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
from exercise_reference import expected_answer, sampler_law

from lab.core.distributions import Distribution
from lab.teaching.exercises import (
    Attempt,
    ExerciseInputError,
    Problem,
    generate_predictions,
    generate_problems,
    record_try,
)
from lab.teaching.exports import (
    answer_key_csv,
    answer_key_markdown,
    assignment_url,
    check_base_url,
    results_csv,
    worksheet_csv,
    worksheet_html,
    worksheet_markdown,
)


def parse_dist(text):
    pairs = [item.split("=") for item in text.split(", ")]
    return [t for t, _ in pairs], [F(v) for _, v in pairs]


def answer_as_text(value):
    if isinstance(value, str):
        return value
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@pytest.mark.parametrize("level", ["basic", "zeros", "disjoint", "z0"])
def test_answer_key_csv_round_trip(level):
    problems = generate_problems(21, 7, level)
    rows = list(csv.DictReader(io.StringIO(answer_key_csv(problems))))
    assert [int(r["problem"]) for r in rows] == list(range(1, 8))
    for row, pr in zip(rows, problems):
        tokens, p = parse_dist(row["p"])
        _, q = parse_dist(row["q"])
        assert tokens == list(pr.p.tokens) and p == list(pr.p.values) and q == list(pr.q.values)
        assert row["question"] == pr.prompt and row["level"] == level
        assert row["answer"] == answer_as_text(expected_answer(pr))
        if row["answer"] not in ("undefined", "rejection", "no-rejection"):
            assert abs(float(row["answer_decimal"]) - float(F(row["answer"]))) < 5e-4


def test_answer_key_markdown_table_matches_csv():
    problems = generate_problems(4, 6, "basic")
    predictions = generate_predictions(4, "basic")
    text = answer_key_markdown(problems, predictions, 4, "basic")
    lines = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| ---")]
    header, *body = lines
    assert header == "| problem | question | p | q | answer | decimal |"
    key_rows = body[: len(problems)]
    for line, pr in zip(key_rows, problems):
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        assert int(cells[0]) == pr.number
        assert cells[4] == answer_as_text(expected_answer(pr))
    bar_rows = [line for line in body[len(problems) :] if line.startswith("| Bars")]
    assert len(bar_rows) == len(predictions)
    for line in bar_rows:
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        _, r = parse_dist(cells[3])
        _, p = parse_dist(cells[1])
        _, q = parse_dist(cells[2])
        assert r == sampler_law(p, q)[3]


def test_worksheet_has_the_questions_but_no_answers():
    problems = generate_problems(8, 5, "zeros")
    key = list(csv.DictReader(io.StringIO(answer_key_csv(problems))))
    sheet = list(csv.DictReader(io.StringIO(worksheet_csv(problems))))
    assert [(r["problem"], r["question"], r["p"], r["q"]) for r in sheet] == [
        (r["problem"], r["question"], r["p"], r["q"]) for r in key
    ]
    assert all(r["answer"] == "" for r in sheet)
    md = worksheet_markdown(problems, generate_predictions(8, "zeros"), 8, "zeros")
    assert md.count("Answer: ____") == 5
    assert "answer_decimal" not in md and "rejection (" not in md


class TableText(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.tags, self._in = [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in = tag in ("td", "th")

    def handle_endtag(self, tag):
        self._in = False

    def handle_data(self, data):
        if self._in:
            self.cells.append(data)


def test_worksheet_html_escapes_every_text_and_keeps_values():
    tokens = ("<script>x</script>", "B&C", "C")
    nasty = Problem(
        1,
        0,
        "basic",
        "r",
        "B&C",
        Distribution(tokens, (F(1, 2), F(1, 4), F(1, 4))),
        Distribution(tokens, (F(1, 4), F(1, 4), F(1, 2))),
    )
    page = worksheet_html([nasty], [], 0, "basic")
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page and "B&amp;C" in page
    parser = TableText()
    parser.feed(page)
    assert "script" not in parser.tags
    assert parser.cells[:4] == ["token", "<script>x</script>", "B&C", "C"]
    assert parser.cells[4:8] == ["p", "1/2", "1/4", "1/4"]
    assert "@media print" in page and "break-inside: avoid" in page


def test_results_csv_round_trip():
    problems = generate_problems(2, 3, "basic")
    attempts = {1: Attempt(), 2: Attempt()}
    record_try(attempts[1], problems[0], answer_as_text(expected_answer(problems[0])))
    record_try(attempts[2], problems[1], "0.999" if expected_answer(problems[1]) != 1 else "0")
    record_try(attempts[2], problems[1], "nonsense")  # not counted
    rows = list(csv.DictReader(io.StringIO(results_csv(problems, attempts))))
    assert [r["problem"] for r in rows] == ["1", "2", "3"]
    assert (rows[0]["correct"], rows[0]["tries"]) == ("yes", "1")
    assert (rows[1]["correct"], rows[1]["tries"]) == ("no", "1")
    assert (rows[2]["answer"], rows[2]["correct"], rows[2]["tries"]) == ("", "no", "0")
    assert rows[0]["seed"] == "2" and rows[0]["level"] == "basic"
    assert list(rows[0])[:4] == ["problem", "answer", "correct", "tries"]


def test_assignment_url():
    url = assignment_url("http://10.0.0.5:8501/explorer?p=A%3D1", 42, 6, "zeros")
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "10.0.0.5:8501", "/exercises")
    assert parse_qs(parts.query) == {"seed": ["42"], "count": ["6"], "level": ["zeros"]}
    assert (
        urlsplit(assignment_url("https://lab.example.org/course/explorer", 1, 5, "basic")).path == "/course/exercises"
    )
    assert urlsplit(assignment_url("http://localhost:8501/", 1, 5, "basic")).path == "/exercises"
    with pytest.raises(ExerciseInputError):
        assignment_url("http://localhost:8501/", 1, 99, "basic")


def test_typed_app_address_is_checked():
    assert check_base_url(" http://192.168.1.20:8501 ") == "http://192.168.1.20:8501"
    for bad in ("javascript:alert(1)", "192.168.1.20:8501", "http://", "ftp://host/", "http://a b/"):
        with pytest.raises(ExerciseInputError):
            check_base_url(bad)


def test_a_worksheet_and_an_answer_key_for_people_are_in_the_page_s_language_and_the_csv_stays_english():
    """The Markdown and HTML files say their words in the teacher's language (German here, read from its catalog
    with Babel's reader, apart from the app's gettext path), the CSV files keep their English column names."""
    from babel.messages.pofile import read_po

    import lab.i18n as i18n

    with (i18n.CATALOGS / "de" / "LC_MESSAGES" / "lab.po").open("rb") as handle:
        de = {m.id: m.string for m in read_po(handle, locale="de") if m.id and isinstance(m.id, str)}
    problems, predictions = generate_problems(3, 4, "basic"), generate_predictions(3, "basic")
    words = i18n.texts("de")
    page = worksheet_html(problems, predictions, 3, "basic", words, "de", "ltr", True)
    assert "<html lang='de' dir='ltr'>" in page
    assert f"<h1>{de['{app} worksheet'].format(app='Residual Lab')}</h1>" in page
    assert de["Answer as a fraction ({fraction}) or a decimal ({decimal}); write '{undefined}' if the quantity does "
              "not exist."].format(fraction="3/4", decimal="0,75", undefined=de["undefined"]) in html.unescape(page)
    assert problems[0].prompt.translated(words) in html.unescape(page)
    assert "Problem 1" not in page and "Sketch the residual" not in page
    md = worksheet_markdown(problems, predictions, 3, "basic", words, True)
    key = answer_key_markdown(problems, predictions, 3, "basic", words)
    assert md.startswith(f"# {de['{app} worksheet'].format(app='Residual Lab')}")
    assert key.startswith(f"# {de['{app} answer key'].format(app='Residual Lab')}")
    assert "Assignment:" not in md + key and "## Predict the bars" not in md + key
    arabic = worksheet_html(problems, predictions, 3, "basic", i18n.texts("ar"), "ar", "rtl")
    assert "<html lang='ar' dir='rtl'>" in arabic and "<table dir='ltr'>" in arabic
    assert worksheet_csv(problems).startswith("problem,question,p,q,answer\n")
