"""A shared figure's JSON made once (installed by lab.views.patches.install_all).

The pages' cached figures (``lab.views.ui.charts.figure``) are shared by every session and never modified, so each
makes its dict once, as a :class:`SharedSpec`. st.plotly_chart turns that dict into JSON on every call
(``plotly.io.to_json(figure, validate=False)``), always the same text for the same dict: a chart's largest cost on a
page's rerun. :func:`install` wraps ``plotly.io.to_json`` so that a ``SharedSpec`` keeps the text it was turned into;
every other call is plotly's own. Without the patch a ``SharedSpec`` is an ordinary dict and plotly makes its JSON
each time. tests/test_figure_cache.py checks that the text is plotly's, and fails if Streamlit stops asking this way.
"""

from __future__ import annotations


class SharedSpec(dict):
    """A shared figure's dict, and its JSON once made (by the wrapped ``plotly.io.to_json``)."""

    __slots__ = ("json",)


def install() -> None:
    """Wrap ``plotly.io.to_json`` once per process (later calls do nothing)."""
    import plotly.io

    original = plotly.io.to_json
    if getattr(original, "_lab_shared", False):
        return

    def to_json(fig, *args, **kwargs):
        if type(fig) is SharedSpec and not args and kwargs == {"validate": False}:
            made = getattr(fig, "json", None)
            if made is None:  # two sessions at once may both make it: the same text
                made = fig.json = original(fig, validate=False)
            return made
        return original(fig, *args, **kwargs)

    to_json._lab_shared = True
    plotly.io.to_json = to_json
