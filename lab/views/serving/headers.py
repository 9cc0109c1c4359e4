"""Headers on every HTTP response of server.py (what ./run, deploy/serve and the image start).

``Referrer-Policy: same-origin``: a teacher's dashboard carries the teacher token in its address until the page has
taken it (lab.views.ui.address_bar), and a browser would otherwise send that address, token included, as the
Referer of the page's requests to the app's own files and, cut to the origin only, nowhere else; with same-origin no
Referer leaves the app at all, and the app's own requests carry it only within the origin (docs/security.md).

Plain ASGI middleware, public API of ``st.App``: it adds the header to each response's start message, whatever
answered it (a page, a static file, a route, the version shortcut, an error).
"""

from __future__ import annotations

HEADERS = ((b"referrer-policy", b"same-origin"),)


class SecurityHeaders:
    """ASGI middleware: HEADERS added to every HTTP response that does not set them itself."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _value in message.get("headers", ())}
                added = [(name, value) for name, value in HEADERS if name not in present]
                if added:
                    message = {**message, "headers": [*message.get("headers", ()), *added]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
