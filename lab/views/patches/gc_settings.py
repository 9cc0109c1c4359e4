"""Python's cycle collector set for a server whose heap is mostly code and shared caches (installed by
lab.views.patches.install_all on the app's first run, once the pages' code is imported).

A full collection scans every live object: the imported modules (Streamlit, pandas, plotly, the lab: about 140,000
objects once the app has run) and the shared caches, on top of the sessions' own, and pauses every page while it
runs. :func:`install` moves everything alive at the first run into the permanent generation (``gc.freeze()``: never
scanned again; freeing by reference count works as before) and collects the young generation every 10,000
allocations instead of 700. Cycles are still collected, and ``runner.postScriptGC`` stays off
(.streamlit/config.toml; docs/decisions/0001-no-collection-after-every-run.md).

The middle generation is collected every 100 young collections instead of 20. When a teacher's action redraws 300
pages at once, what those runs made is still alive (their messages wait to be sent), so a middle collection scans
it all and frees nothing. What this buys: docs/decisions/0004-patches-gated.md.
"""

from __future__ import annotations

import gc

THRESHOLDS = (10_000, 100, 100)  # young, middle, old: see gc.set_threshold
_installed = []


def install() -> None:
    """Freeze the heap as it is now and set the thresholds, once per process (later calls do nothing)."""
    if _installed:
        return
    _installed.append(True)
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
