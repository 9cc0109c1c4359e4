"""Work that is the same for the whole class, computed once per server process and shared by every session.

When a teacher says "open the link", every student asks for the same assignment (seed, count, level): its
problems and exact answers, the downloads built from them and the QR code of the link are identical for all
of them. Computing them once, instead of once per student and per rerun, takes that work out of every first
load. Everything returned by a ``cache_resource`` function here is shared between sessions and must not be
modified (the problems are frozen dataclasses; the tables are strings).

The pages' other shared computations live here too, rather than in the page scripts: a cache decorator in a
page script is created again on every run of the page (reading and hashing the function's source each time).
"""

from __future__ import annotations

import base64
import functools
import io

import segno
import streamlit as st

from lab.core.blocks import MAX_OUTCOMES, compare_laws
from lab.core.caching import cached_by_size
from lab.core.distributions import LabInputError
from lab.core.formatting import decimal_text, exact_text, markdown_table, with_decimal
from lab.core.markov import load_model
from lab.i18n import LANGUAGES, SOURCE
from lab.i18n import texts as catalog_texts
from lab.teaching.exercises import generate_predictions, generate_problems
from lab.teaching.exports import (
    answer_key_csv,
    answer_key_markdown,
    worksheet_csv,
    worksheet_html,
    worksheet_markdown,
)
from lab.teaching.numerics import tiny_z_family
from lab.views.ui.language import texts


@st.cache_resource(max_entries=64, show_spinner=False)
def shared_assignment(seed: int, count: int, level: str) -> tuple[tuple, tuple]:
    """The assignment's problems and its predict-the-bars problems (frozen: shared between sessions)."""
    return tuple(generate_problems(seed, count, level)), tuple(generate_predictions(seed, level))


@st.cache_data(max_entries=64, show_spinner=False)
def assignment_downloads(seed: int, count: int, level: str, code: str = SOURCE) -> dict[str, str]:
    """The answer key and worksheets of the assignment, by file-name suffix: the Markdown and HTML ones (for people) in
    the language ``code``, the CSV ones (for machines) in English with decimal points."""
    problems, predictions = (list(part) for part in shared_assignment(seed, count, level))
    language = LANGUAGES.get(code, LANGUAGES[SOURCE])
    _ = catalog_texts(language.code)
    comma = language.decimal_comma
    return {
        "key.md": answer_key_markdown(problems, predictions, seed, level, _),
        "key.csv": answer_key_csv(problems),
        "worksheet.html": worksheet_html(problems, predictions, seed, level, _, language.code, language.direction,
                                         comma),
        "worksheet.md": worksheet_markdown(problems, predictions, seed, level, _, comma),
        "worksheet.csv": worksheet_csv(problems),
    }


@st.cache_resource(max_entries=64, show_spinner=False)
def qr_image(url: str, scale: int = 10) -> str:
    """The QR code of ``url`` (generated locally with segno) as a PNG data URL for st.image: built once per link,
    and passed to the browser as it is (PNG bytes would be hashed and stored again on every run)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=scale, border=2)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@functools.lru_cache(maxsize=1024)
def pq_table(tokens: tuple, p: tuple, q: tuple, header: tuple[str, str, str] = ("token", "p", "q"),
             decimal_comma: bool = False, rtl: bool = False) -> str:
    """A problem's token / p / q table as markdown, built once per problem (and language) for the whole class. p and q
    are a Distribution's exact values: the cache tells arguments apart by equality, and 0.5 == 1/2 would share a
    table. ``header``: the columns' names in the page's language; ``decimal_comma``: its decimals written 0,75;
    ``rtl``: a right-to-left page, where each value is kept left to right (``1/2 (0.5)``, not ``(0.5) 1/2``)."""
    def cell(value) -> str:
        text = with_decimal(value, 3, decimal_comma)
        return f"\u2066{text}\u2069" if rtl else text

    rows = zip(tokens, *((cell(v) for v in column) for column in (p, q)))
    return markdown_table(header, rows)


# at most as many sequences as 128 of the largest laws, and many more of the small ones a class asks for
@cached_by_size(budget=128 * MAX_OUTCOMES, size_of=lambda law: len(law.speculative), refused=LabInputError)
def exact_comparison(model_name: str, block: int, length: int, variant_name: str):
    """The exact law comparison (a forward pass over at most MAX_OUTCOMES sequences: well under a second), shared,
    not copied: st.cache_data would unpickle the laws and the model on every run of the page, and st.cache_resource
    hashes its arguments through their signature (both a tenth of a change's CPU on Blocks). The spinner shows while
    it is computed. A refused law (LabInputError) is kept as refused: asked again, it is refused at once."""
    _ = texts()
    with st.spinner(_("Computing the exact law…")):
        return compare_laws(load_model(model_name), block, length, variant_name)


@functools.lru_cache(maxsize=128)
def law_table(model_name: str, block: int, length: int, variant_name: str, headers: tuple[str, ...],
              decimal_comma: bool = False):
    """The exact law as the page's table (a pyarrow table of text columns, made once per law and language): st.dataframe
    sends an Arrow table as it is, where a dict of columns goes through pandas on every run (a sixth of a change's
    CPU). ``headers``: the five columns' names in the page's language (sequence or output, target, speculative, target
    as a decimal, difference); ``decimal_comma``: the decimals written 0,75."""
    import pyarrow as pa  # streamlit's own dependency

    comparison = exact_comparison(model_name, block, length, variant_name)
    rows, model = comparison.rows(), comparison.model
    columns = (
        [model.sequence_text(seq) for seq, _, _ in rows],
        [exact_text(t) for _, t, _ in rows],
        [exact_text(s) for _, _, s in rows],
        [decimal_text(t, decimal_comma=decimal_comma) for _, t, _ in rows],
        [exact_text(s - t) for _, t, s in rows],
    )
    return pa.table(dict(zip(headers, columns, strict=True)))


@st.cache_data(show_spinner=False)
def tiny_z_cases(low: int, high: int):
    """The Numerics page's tiny-Z family for gaps 1e-low … 1e-high."""
    return tiny_z_family(range(low, high + 1))
