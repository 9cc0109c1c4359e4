"""Replace widget values a browser never sends before Streamlit deserializes them (installed by
lab.views.patches.install_all).

A widget's value arrives from the browser as a ``WidgetState`` message whose value field can be of any type, whatever
the widget is: a crafted WebSocket message can send the string ``"abc"`` for a number input, ``inf`` for a whole-
number input or NaN for a slider. Streamlit 1.67 deserializes those values while it looks for changed widgets, before
the page's script starts (``SessionState._call_callbacks``), and ``int(inf)`` or ``math.isfinite("abc")`` raise there:
an exception box no page code can prevent.

:func:`install` wraps ``WStates.__getitem__`` (where every serialized widget value is deserialized) so that a non-
finite number, or a value its widget's own deserializer refuses (a string for a number input, inf for a whole number),
is replaced by the widget's default value, and a text longer than MAX_TEXT characters (no box of the app takes
more than a few thousand: the longest, a lesson plan's own question's lists, about 7,000) is cut to MAX_TEXT
before anything reads it, so no page does work in proportion to a megabyte a crafted message sends
(tests/test_class_abuse.py). The page then validates the values it reads like any other input (page models in
lab/models/). tests/test_pages_widget_states.py sends such values through AppTest and fails if a Streamlit
upgrade moves what is wrapped here.
"""

from __future__ import annotations

import math

from streamlit.runtime.state import session_state as _session_state

MAX_TEXT = 20_000  # characters of a text widget's value kept (the rest is cut before the page reads it)
_NUMERIC_FIELDS = ("double_value", "int_value")
_ARRAY_FIELDS = ("double_array_value", "int_array_value")


def _plausible(wstate) -> bool:
    """False for a number no browser sends (NaN, ±inf) before a widget's deserializer sees it. (A value of the
    wrong type is left to the deserializer: Streamlit itself updates a widget's value type from what arrives.)"""
    field = wstate.WhichOneof("value")
    if field in _NUMERIC_FIELDS:
        return math.isfinite(getattr(wstate, field))
    if field in _ARRAY_FIELDS:
        return all(math.isfinite(v) for v in getattr(wstate, field).data)
    return True


def install() -> None:
    """Wrap WStates.__getitem__ once per process (app.py calls this on every run; later calls do nothing)."""
    wstates = _session_state.WStates
    if getattr(wstates.__getitem__, "_lab_guarded", False):
        return
    original = wstates.__getitem__

    def guarded_getitem(self, k):
        wstate = self.states.get(k)
        if isinstance(wstate, _session_state.Serialized):
            metadata = self.widget_metadata.get(k)
            if metadata is not None:
                raw = wstate.value
                if raw.WhichOneof("value") == "string_value" and len(raw.string_value) > MAX_TEXT:
                    cut = metadata.deserializer(raw.string_value[:MAX_TEXT])
                    self.states[k] = _session_state.Value(cut)
                    return cut
                try:
                    if _plausible(wstate.value):
                        return original(self, k)
                except (TypeError, ValueError, OverflowError):
                    pass
                # Replaced in place (this runs while Streamlit iterates over the states): the widget's default.
                default = metadata.deserializer(None)
                self.states[k] = _session_state.Value(default)
                return default
        return original(self, k)

    guarded_getitem._lab_guarded = True
    wstates.__getitem__ = guarded_getitem
