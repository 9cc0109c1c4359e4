"""The pages' one path from a result to a drawn chart: cached figures and ``chart()`` with its text alternative."""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import streamlit as st

from lab.charts.base import localized, title_of
from lab.charts.figures import FIGURES
from lab.core.formatting import exact_text, fraction_text, markdown_escape, markdown_table
from lab.core.variants import Variant
from lab.i18n import LANGUAGES, SOURCE
from lab.i18n import texts as language_texts
from lab.teaching.exercises import Feedback
from lab.views.patches.plotly_json import SharedSpec
from lab.views.ui import language
from lab.views.ui.presentation import PQ_FIT_KEY

CHART_CONFIG = {"displayModeBar": False, "responsive": True}


def _cache_key(value):
    """``value`` with the type of every part beside it: 1/2 and 0.5 are equal and hash alike in Python, but a
    figure labels them differently. A variant (inside a block trace) is known by its name, a dict by its items."""
    if isinstance(value, Variant):
        return (Variant, value.name)
    if isinstance(value, (list, tuple)):
        return (tuple, tuple(_cache_key(part) for part in value))
    if isinstance(value, dict):  # e.g. named laws: known by their names and values, in order
        return (dict, tuple((_cache_key(k), _cache_key(v)) for k, v in value.items()))
    return (type(value), value)


class _Call:
    """A builder's arguments, known to the cache by their typed key only (the arguments may hold parts Python
    cannot hash, such as a variant)."""

    __slots__ = ("key", "args", "_hash")

    def __init__(self, key, args):
        self.key, self.args, self._hash = key, args, hash(key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, _Call) and self.key == other.key


class _SharedFigure(go.Figure):
    """A cached figure: shared by every session, never modified, so it makes its dict once (st.plotly_chart asks
    for it on every call and only reads it; plotly would deep-copy the whole figure each time). The dict is a
    ``SharedSpec``: with lab.views.patches.plotly_json installed, its JSON is made once too."""

    def to_dict(self) -> dict:
        made = self.__dict__.get("_lab_dict")
        if made is None:
            made = self._lab_dict = SharedSpec(super().to_dict())
        return made


@functools.lru_cache(maxsize=512)
def _figure(builder: str, call: _Call):
    fig = FIGURES[builder](*call.args)
    fig.__class__ = _SharedFigure  # the same figure, its dict made once (a builder returns a plain go.Figure)
    return fig


def _separators(code: str) -> str:
    """plotly's decimal and thousands marks in language ``code``: 0,5 where it writes a decimal comma."""
    language = LANGUAGES.get(code)
    if not (language and language.decimal_comma):
        return ""
    return ",\u202f" if code == "fr" else ",."  # French groups thousands with a narrow space


def _rtl(code: str) -> bool:
    language = LANGUAGES.get(code)
    return bool(language and language.direction == "rtl")


def _in_language(fig, code: str) -> go.Figure:
    """``fig``'s words and number marks in language ``code`` (a new figure; ``fig`` is not changed)."""
    return go.Figure(localized(fig.to_dict(), language_texts(code), _separators(code), _rtl(code)))


@functools.lru_cache(maxsize=512)
def _localized(builder: str, call: _Call, code: str):
    fig = _in_language(_figure(builder, call), code)
    fig.__class__ = _SharedFigure  # as _figure's: shared, its dict made once
    return fig


def figure(builder: str, *args):
    """``lab.charts.figures.FIGURES[builder](*args)``, built once per distinct arguments: the pages' one path from a
    result to a figure (most reruns leave most charts unchanged, and a class on one scenario shares them). The figure
    is shared between sessions, so it must not be modified (st.plotly_chart does not). Keyed by Python's own hashing
    of the arguments and their types, which is cheap for Fractions (docs/decisions/0003-shared-figures.md). In the
    page's language (lab.views.ui.language): the English figure's words through the catalog, once per language."""
    args = tuple(tuple(a) if isinstance(a, list) else a for a in args)
    code = language.page_code()
    try:
        call = _Call(_cache_key(args), args)
    except TypeError:  # a part Python cannot hash: build it for this run only
        fig = FIGURES[builder](*args)
        if code == SOURCE:
            return fig
        # its words in the language, as a dict made once (a go.Figure built again from the dict would validate every
        # property: a quarter of the Numerics page's run)
        fig.__class__ = _SharedFigure
        fig._lab_dict = SharedSpec(
            localized(go.Figure.to_dict(fig), language_texts(code), _separators(code), _rtl(code))
        )
        return fig
    return _figure(builder, call) if code == SOURCE else _localized(builder, call, code)


def show_feedback(feedback: Feedback) -> None:
    """What a submission came to, drawn as its kind says (success, warning or error): user text is escaped."""
    getattr(st, feedback.kind)(markdown_escape(language.say(feedback.text)))


def chart(fig, key: str, alt: str, table: tuple | None = None, height="content", intro: str = "") -> None:
    """A figure with ``alt`` as its text alternative (its exact values), under its title drawn as page text (it wraps
    on a narrow screen, where plotly would cut it off: lab.charts.base.layout). ``table``: (header, rows) of a chart
    that has no table of its values beside it on the page: they go in an expander under it, drawn only while open
    (opening it reruns), so a run costs one element more, not a table. ``height="stretch"``: as tall as its
    container (whose height CSS sets), for a figure without a height. ``intro``: markdown drawn before the title,
    in the same element (one element less a run)."""
    # a shared figure's title read from its dict, made once: plotly's property access costs every page on every run
    heading, subtitle = title_of(fig.to_dict()["layout"] if type(fig) is _SharedFigure else {"meta": fig.layout.meta})
    if heading:
        heading = f"**{markdown_escape(heading)}**" + (f"  \n{markdown_escape(subtitle)}" if subtitle else "")
    if heading or intro:
        st.markdown("\n\n".join(part for part in (intro, heading) if part), anchors=False)  # no link icon on a heading
    st.plotly_chart(fig, width="stretch", height=height, theme=None, key=key, config=CHART_CONFIG, alt=alt)
    if table is not None:
        _ = language.texts()
        values = st.expander(_("The chart's values as a table"), key=f"{key}_values", on_change="rerun")
        if values.open:
            with values:
                st.markdown(markdown_table(*table))


def pq_chart(tokens, p, q, key: str) -> None:
    """Target p and draft q as the pages ask the student to read them, sized by the page's CSS (shorter on a phone,
    so the bars or boxes to fill under it are on the same screen), its exact values in its text alternative and
    table."""
    _ = language.texts()
    with st.container(key=f"{PQ_FIT_KEY}-{key}"):
        chart(
            figure("pq_bars", tokens, p, q, True),
            key=key,
            height="stretch",
            alt=_("Grouped bars of target p and draft q per token: {values}", values="; ".join(
                f"{t}: p {fraction_text(a)}, q {fraction_text(b)}" for t, a, b in zip(tokens, p, q)
            )),
            table=(
                (_("token"), _("target p"), _("draft q")),
                [(t, exact_text(a), exact_text(b)) for t, a, b in zip(tokens, p, q)],
            ),
        )
