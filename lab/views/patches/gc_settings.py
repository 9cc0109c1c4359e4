"""Python's cycle collector set for a server whose heap is mostly code and shared caches (installed by app.py on
the process's first run).

A full collection scans every live object: the imported modules (Streamlit, pandas, plotly, the lab: about 140,000
objects once the app has run) and the shared caches, on top of the sessions' own. Under 150 students changing
Pitfalls every 5 s, the collector took 0.43 s of the server's CPU in 20 s (7 %), 3 full collections each pausing
every page for tens of milliseconds. :func:`install` moves everything alive at the first run into the permanent
generation (``gc.freeze()``: never scanned again; freeing by reference count works as before) and collects the
young generation every 10,000 allocations instead of 700: the same run took 0.13 s (docs/performance.md, "At
commit f8f38cc against 71e9c4a"). Cycles are still collected, and ``runner.postScriptGC`` stays off
(.streamlit/config.toml).

The middle generation is collected every 100 young collections instead of 20. When a teacher's action redraws 300
pages at once, what those runs made is still alive (their messages wait to be sent), so a middle collection scans
it all and frees nothing: 0.1–0.2 s each, two or three in five bursts, half the collector's time there
(docs/performance.md, "Fewer collections during a burst").
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
