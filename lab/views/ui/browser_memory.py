"""A text kept in this browser's localStorage for one page (the Start-here lesson's progress): it survives a reload,
a restart of the server and a closed tab, and stays on the student's own device (nothing is stored on the server).

One invisible Streamlit component (``st.components.v2``, in the page's own document): on its first drawing in a
browser tab it sends what the browser holds once (a trigger, so the callback reads it before the run that follows);
afterwards each run hands it the text to keep, which it writes when it changed. The page checks what comes back
before using it: to the server it is a message anyone could craft.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
export default function ({ data, setTriggerValue, parentElement }) {
  const name = data.name;
  let stored = null;
  try { stored = window.localStorage.getItem(name); } catch (e) { stored = null; }
  if (!data.loaded && parentElement.dataset.sent !== name) {
    parentElement.dataset.sent = name;  // once per element: the page's answer comes back as data.loaded
    setTriggerValue("stored", stored === null ? "" : stored);
    return;
  }
  const keep = data.keep;
  try {
    if (keep === "") window.localStorage.removeItem(name);
    else if (typeof keep === "string" && keep !== stored) window.localStorage.setItem(name, keep);
  } catch (e) { /* storage refused (private mode): the lesson still works for this tab */ }
}
"""
_memory = st.components.v2.component("residual_lab.browser_memory", js=_JS, isolate_styles=False)
KEY_PREFIX = "browser-memory-"  # the element's key: presentation.py's CSS takes it out of the layout
LOADED = "_browser_memory_loaded_"  # session key prefix: the browser's text has arrived (or cannot)


def browser_memory(name: str, keep: str | None, on_stored: Callable[[str], None]) -> None:
    """Keep ``keep`` under ``name`` in localStorage ("": forget it; None: leave it as it is). ``on_stored(text)`` is
    called once per session with what the browser held ("" for nothing), before the run that draws it."""
    key = KEY_PREFIX + name

    def arrived() -> None:
        value = (st.session_state.get(key) or {}).get("stored")
        st.session_state[LOADED + name] = True
        on_stored(value if isinstance(value, str) else "")

    loaded = bool(st.session_state.get(LOADED + name))
    data = {"name": name, "loaded": loaded, "keep": keep if loaded else None}
    _memory(key=key, data=data, on_stored_change=arrived)
