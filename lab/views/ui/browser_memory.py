"""A text kept in this browser's localStorage for one page (the Start-here lesson's progress): it survives a reload,
a restart of the server and a closed tab, and stays on the student's own device (nothing is stored on the server).

One invisible Streamlit component (``st.components.v2``, in the page's own document): when the browser holds a text
this session has not read, it sends it once (a trigger, so the callback reads it before the run that follows) and
writes nothing until then; otherwise each run hands it the text to keep, which it writes when it changed. A first
visit (nothing saved) costs no extra run. The page checks what comes back before using it: to the server it is a
message anyone could craft.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from lab.views.serving import component_code

_JS = """
export default function ({ data, setTriggerValue, parentElement }) {
  const name = data.name;
  let stored = null, store = null;
  try { store = data.tab ? window.sessionStorage : window.localStorage; } catch (e) { store = null; }
  try { stored = store.getItem(name); } catch (e) { stored = null; }
  if (!data.loaded && stored !== null) {
    // something saved, not yet read by this session: sent once per element (no write until the page merged it)
    if (parentElement.dataset.sent !== name) {
      parentElement.dataset.sent = name;
      setTriggerValue("stored", stored);
    }
    return;
  }
  const keep = data.keep;  // nothing saved (a first visit costs no extra run), or the page has read it
  try {
    if (keep === "") store.removeItem(name);
    else if (typeof keep === "string" && keep !== stored) store.setItem(name, keep);
  } catch (e) { /* storage refused (private mode): the page still works for this tab */ }
}
"""
# its code fetched once by each browser, not sent in every element (lab.views.serving.component_code): a joined phone's
# way back is drawn on the Class page every student opens at once (a join storm)
_memory = component_code.component("residual_lab.browser_memory", js=_JS, isolate_styles=False)
KEY_PREFIX = "browser-memory-"  # the element's key: presentation.py's CSS takes it out of the layout
LOADED = "_browser_memory_loaded_"  # session key prefix: the browser's text has arrived (or cannot)


def browser_memory(name: str, keep: str | None, on_stored: Callable[[str], None], *, tab: bool = False) -> None:
    """Keep ``keep`` under ``name`` in localStorage ("": forget it; None: leave it as it is); ``tab``: in this tab's
    sessionStorage instead (it survives a reload and another address typed in the same tab, not a new tab: nothing
    for the next person on a shared computer). ``on_stored(text)`` is called once per session with what the browser
    held, when it held something, before the run that follows."""
    key = KEY_PREFIX + name

    def arrived() -> None:
        value = (st.session_state.get(key) or {}).get("stored")
        st.session_state[LOADED + name] = True
        on_stored(value if isinstance(value, str) else "")

    loaded = bool(st.session_state.get(LOADED + name))
    data = {"name": name, "loaded": loaded, "keep": keep, "tab": tab}
    _memory(key=key, data=data, on_stored_change=arrived)
