"""Small Streamlit helpers shared by the lab pages (URL sync, cached chart figures)."""

from __future__ import annotations

import gc
import sys

import streamlit as st

from lab.charts.figures import FIGURES
from lab.core.variants import VARIANTS, Variant
from lab.views.presentation import APP_PARAMS

CHART_CONFIG = {"displayModeBar": False, "responsive": True}

_modules_at_freeze = 0


def freeze_module_objects() -> None:
    """Move the objects of every imported module (numpy, scipy, plotly, pandas, streamlit, lab: ~150k)
    out of the garbage collector's reach, once per newly imported module set.

    Streamlit runs ``gc.collect(2)`` after every script or fragment run (``runner.postScriptGC``) on the
    script thread, holding the GIL: scanning those objects took 60-85 ms here, and the server could not
    send the run's messages to the browser until it was over (measured: the fragment's Python ends ~5 ms
    after the click, its last message left the server ~90 ms after). Frozen objects are never scanned;
    objects created by the runs (sessions, caches, figures) are still collected as before. Called by app.py
    at the end of each full run; cheap when no module was imported since the last call."""
    global _modules_at_freeze
    if len(sys.modules) != _modules_at_freeze:
        gc.collect()  # garbage from the imports is freed, not frozen
        gc.freeze()
        _modules_at_freeze = len(sys.modules)


def sync_query_params(desired: dict[str, str]) -> None:
    """Make the URL hold exactly ``desired`` (the page's controls away from their defaults) plus the
    app-wide parameters (``present=1``), which belong to app.py, not to the page.

    Written only when it differs, so an unchanged run does not touch the browser history."""
    current = st.query_params.to_dict()
    wanted = {**{k: current[k] for k in APP_PARAMS if k in current}, **desired}
    if current != wanted:
        st.query_params.from_dict(wanted)


# A variant (inside a block trace) is known by its name: streamlit cannot hash an arbitrary object, and it
# matches hash_funcs by exact type, so every variant class is listed.
_BY_NAME = {kind: (lambda variant: variant.name) for kind in {Variant, *(type(v) for v in VARIANTS.values())}}


@st.cache_resource(max_entries=512, show_spinner=False, hash_funcs=_BY_NAME)
def _figure(builder: str, args: tuple):
    return FIGURES[builder](*args)


def figure(builder: str, *args):
    """``lab.charts.figures.FIGURES[builder](*args)``, built once per distinct arguments: the pages' one path from a
    result to a figure. Plotly's figure validation
    costs ~10 ms a chart, most reruns (a moved prediction slider) leave most charts unchanged. The
    figure is shared between sessions, so it must not be modified (st.plotly_chart does not)."""
    return _figure(builder, tuple(tuple(a) if isinstance(a, list) else a for a in args))


def chart(fig, key: str, alt: str) -> None:
    st.plotly_chart(fig, width="stretch", theme=None, key=key, config=CHART_CONFIG, alt=alt)
