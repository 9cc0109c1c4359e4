"""A component's code (lab.views.serving.component_code): inline in every element without server.py's route; with it, a
one-line loader in the element and the code, with its CSS, served once under a name that holds its content's hash,
cached for good. Checked against the asset files themselves, through AppTest and the route called as an ASGI app."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from starlette.applications import Starlette
from streamlit.testing.v1 import AppTest

from lab.views.serving import component_code, served
from tests.test_follow_route import call

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "lab" / "views" / "ui" / "assets"


def drawn_bars(mounted: bool, monkeypatch) -> object:
    """The bar predictor's element as a page draws it, with or without the route."""
    monkeypatch.setattr(served, "routes_mounted", mounted)

    def script():
        from lab.views.ui.bar_predictor import bar_predictor

        bar_predictor("bp", ["B", "C"], [0.4, 0.6], ["b0", "b1"])

    monkeypatch.syspath_prepend(str(ROOT))
    at = AppTest.from_function(script).run()
    assert not at.exception
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("bar_predictor")]
    return element.proto


def test_without_the_route_the_code_is_inline_as_streamlit_sends_it(monkeypatch):
    proto = drawn_bars(False, monkeypatch)
    assert proto.js_content == (ASSETS / "bar_predictor.js").read_text(encoding="utf-8")
    assert proto.css_content == (ASSETS / "bar_predictor.css").read_text(encoding="utf-8")


def test_with_the_route_the_element_loads_the_served_module_which_holds_the_code_and_its_css(monkeypatch):
    proto = drawn_bars(True, monkeypatch)
    assert proto.css_content == "" and len(proto.js_content) < 400  # the loader only
    (file_name,) = re.findall(r'new URL\("\./_lab_assets/([^"]+)", document\.baseURI\)', proto.js_content)
    app = Starlette(routes=component_code.routes())
    status, headers, body = call(app, "/_lab_assets/" + file_name)
    assert status == 200
    assert headers["content-type"] == "text/javascript; charset=utf-8"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["x-content-type-options"] == "nosniff"
    assert file_name == f"bar_predictor.{hashlib.sha256(body).hexdigest()[:16]}.js"  # the name changes with the code
    text = body.decode("utf-8")
    assert text.endswith((ASSETS / "bar_predictor.js").read_text(encoding="utf-8"))
    assert json.dumps((ASSETS / "bar_predictor.css").read_text(encoding="utf-8")) in text  # put into the page once
    assert proto.html_content == (ASSETS / "bar_predictor.html").read_text(encoding="utf-8")  # the HTML stays inline


@pytest.mark.parametrize(
    "path",
    ["/_lab_assets/nothing.0123456789abcdef.js", "/_lab_assets/bar_predictor.js", "/_lab_assets/..%2Fapp.py",
     "/_lab_assets/" + "a" * 5000],
)
def test_the_route_serves_nothing_else(monkeypatch, path):
    monkeypatch.setattr(served, "routes_mounted", False)
    app = Starlette(routes=component_code.routes())
    status, headers, body = call(app, path)
    assert status == 404 and body == b"not found"
