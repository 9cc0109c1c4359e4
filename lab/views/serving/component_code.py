"""Where a page's Streamlit components (``st.components.v2``) get their JavaScript and CSS.

Streamlit sends a component's code inline, in every element it draws: the bar predictor's is 12 KB, the student
page's follower's 4 KB, and when a teacher opens an activity every page of the class draws both at the same moment
(300 pages: 5 MB to encode and send).
Served by server.py, an element carries a one-line loader instead, and the browser fetches the code once:
``GET /_lab_assets/<name>.<hash>.js``, the same bytes for good (its name changes with its content), so it is cached.
app.py alone (and AppTest) has no such route: there the code stays inline, as Streamlit sends it.
"""

from __future__ import annotations

import hashlib
import json
import re

import streamlit as st

from lab.views.serving import served

ROUTE_PREFIX = "/_lab_assets/"
_CACHED = "public, max-age=31536000, immutable"  # the name holds the content's hash
_NAME = re.compile(r"[a-z0-9_]+\.[0-9a-f]{16}\.js")
_served: dict[str, bytes] = {}  # file name -> the module's bytes (fixed at import: nothing else is served)


def _module(js: str, css: str | None, name: str) -> str:
    """The served module: the component's code, with its CSS put into the document once (the inline form has
    Streamlit put it beside the element; these components' styles are not isolated either way)."""
    if not css:
        return js
    style_id = f"rl-css-{name}"
    return (
        f"if (!document.getElementById({json.dumps(style_id)})) {{\n"
        '  const style = document.createElement("style");\n'
        f"  style.id = {json.dumps(style_id)};\n"
        f"  style.textContent = {json.dumps(css)};\n"
        "  document.head.appendChild(style);\n"
        "}\n" + js
    )


def _loader(file_name: str) -> str:
    """An element's inline code when served: import the module once per page (the browser caches it), call it with
    the element as Streamlit would, and hand Streamlit a cleanup that also covers a call not yet made. The URL is
    the page's own, made absolute: Streamlit runs inline code from a blob: URL, which a relative import cannot use."""
    return (
        f'const code = import(new URL("./{ROUTE_PREFIX.strip("/")}/{file_name}", document.baseURI).href);\n'
        "export default function (component) {\n"
        "  let cleanup = null, gone = false;\n"
        "  code.then((m) => { if (!gone) cleanup = m.default(component); });\n"
        '  return () => { gone = true; if (typeof cleanup === "function") cleanup(); };\n'
        "}\n"
    )


def component(name: str, *, js: str, css: str | None = None, html: str | None = None, isolate_styles: bool = True):
    """``st.components.v2.component(name, ...)``, called the same way, whose code is fetched once by each browser
    where server.py serves it (see the module's docstring). ``name``: "residual_lab.<short name>"."""
    short = name.rsplit(".", 1)[-1]
    module = _module(js, css, short).encode("utf-8")
    file_name = f"{short}.{hashlib.sha256(module).hexdigest()[:16]}.js"
    _served[file_name] = module
    inline = st.components.v2.component(name, html=html, css=css, js=js, isolate_styles=isolate_styles)
    # another name: one name is one definition for Streamlit; it ends the same way (tests/loadclient.py reads it)
    loaded = st.components.v2.component(
        f"residual_lab.served.{short}", html=html, js=_loader(file_name), isolate_styles=isolate_styles
    )

    def mount(**kwargs):
        return (loaded if served.routes_mounted else inline)(**kwargs)

    return mount


def served_file(file_name: str) -> bytes | None:
    """The module the route serves under ``file_name``, or None (only names this process made)."""
    return _served.get(file_name) if _NAME.fullmatch(file_name) else None


def routes() -> list:
    """The route server.py mounts beside the app (the components load their code from it once
    ``served.routes_mounted``)."""
    from starlette.responses import Response
    from starlette.routing import Route

    async def asset(request):
        body = served_file(request.path_params["file_name"])
        if body is None:
            return Response("not found", status_code=404, media_type="text/plain")
        headers = {"Cache-Control": _CACHED, "X-Content-Type-Options": "nosniff"}
        return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)

    return [Route(ROUTE_PREFIX + "{file_name}", asset, methods=["GET"])]
