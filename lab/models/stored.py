"""A page's state kept in the browser (lab.views.ui.browser_memory) comes back as text anyone could have written:
the one reader of it, before a page model looks inside. No Streamlit."""

from __future__ import annotations

import json


def read_stored(text, version: int, max_chars: int, what: str, error: type[ValueError] = ValueError) -> dict:
    """The JSON object ``text`` holds, of this ``version`` (its "v") and at most ``max_chars`` long; else ``error``
    naming ``what`` ("the saved lesson") and the problem."""
    if not isinstance(text, str) or len(text) > max_chars:
        raise error(f"{what} is not a short text")
    try:
        data = json.loads(text)
    except ValueError:
        raise error(f"{what} is not readable") from None
    if not isinstance(data, dict) or data.get("v") != version:
        raise error(f"{what} is from another version of the lab")
    return data
