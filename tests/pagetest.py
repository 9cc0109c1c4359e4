"""Helpers shared by the AppTest page tests: open a page as a link would, read plotly data back."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_linked_page(page: str, params: dict[str, str] | None = None, timeout: float = 60) -> AppTest:
    """Open ``page`` as a link with ``params`` would: the first run is the default page (app.py reads the
    app-wide ``present`` there), then the query is replaced by ``params`` and the page is switched to."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    if "present" in (params or {}):
        at.query_params["present"] = params["present"]
    at.run()
    at.query_params.clear()
    at.query_params.update(params or {})
    at.switch_page(page).run()
    assert not at.exception
    return at


def markdown_text(at: AppTest) -> str:
    """Every markdown element's text, one per line."""
    return "\n".join(m.value for m in at.markdown)


def plotly_values(array) -> list:
    """A plotly data array as a list (plotly may ship numbers as base64 ``bdata`` with a dtype)."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"]).tolist()
    return list(array)
