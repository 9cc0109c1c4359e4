"""Every page loads without a request leaving the app's origin, and hostile links end in a named warning,
never an exception box (issue 9).

Requests are recorded with Playwright's ``page.on("request")`` (every fetch, image, font, script and
favicon the page asks for) and ``page.on("websocket")``; ``data:`` and ``blob:`` URLs never leave the
browser and are not requests to a host. Checked that the origin check catches an outside request: with
``page_icon=":material/science:"`` (the icon before this change, not committed) the first case fails
on ``https://fonts.gstatic.com/...``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from browserlib import goto, screenshot_full, wait_idle
from lab.views import shell

pytestmark = pytest.mark.browser

# The app's own list of pages (the default one at "/" and by its path), but the Class page (its browser tests start
# the app with a class database of its own: tests/browser/test_classroom_browser.py).
PAGES = ("", *(page.url_path for page in shell.PAGES if page.url_path != shell.CLASS_URL_PATH))

# (link, the parameter a warning must name); a selection of issue 9's reproductions and their relatives.
HOSTILE_LINKS = [
    ("binomial-lab?lab_p=1e-20000000", "lab_p"),
    ("binomial-lab?lab_p=abc&n=inf&pred=1/0", "lab_p"),
    ("exercises?count=inf&seed=-inf&level=../../etc/passwd", "count"),
    ("explorer?tokens=A,B&p=1e-1_000_000,1&q=1,0", "p"),
    ("?chapter=1e-1_000_000", "chapter"),
    ("explorer?scenario=../../etc/passwd&r=nan&z=1e-99999999", "scenario"),
    ("sampling?sl_steps=-inf&sl_seed=1e-1_000_000&sl_guess=nan", "sl_steps"),
    ("blocks?bk_k=inf&bk_l=99999999999999999999999&bk_model=markov-nine&bk_alpha=1/0", "bk_k"),
]


def outside_requests(page, base: str) -> list[str]:
    """Start recording every request whose origin is not ``base``'s (scheme aside: ws:// to the same host is
    the app's own WebSocket)."""
    own = urlsplit(base).netloc
    outside: list[str] = []

    def check(url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):
            return
        if parts.netloc != own:
            outside.append(url)

    page.on("request", lambda request: check(request.url))
    page.on("websocket", lambda ws: check(ws.url))
    return outside


def warning_texts(page) -> str:
    return "\n".join(page.locator("[data-testid=stAlert]").all_inner_texts())


def test_no_request_leaves_the_app(page, app_url):
    outside = outside_requests(page, app_url)
    for path in PAGES:
        goto(page, f"{app_url}/{path}")
        assert page.locator("[data-testid=stException]").count() == 0, path
    goto(page, f"{app_url}/explorer?present=1")  # presentation mode: its own CSS, the top navigation
    page.wait_for_timeout(1000)  # a late favicon or font request would arrive here
    assert outside == []


@pytest.mark.parametrize("link, parameter", HOSTILE_LINKS, ids=[p for _, p in HOSTILE_LINKS])
def test_hostile_link_shows_a_named_warning_not_an_exception(page, app_url, link, parameter):
    outside = outside_requests(page, app_url)
    goto(page, f"{app_url}/{link}")
    wait_idle(page, started_timeout=300)  # a page that took a refused value out of the link runs once more
    assert page.locator("[data-testid=stException]").count() == 0
    assert parameter in warning_texts(page)
    assert outside == []


def test_refused_bound_value_leaves_the_link(page, app_url):
    """The refused count is taken out of the link and the widget shows its default (5), not inf."""
    goto(page, f"{app_url}/exercises?count=inf&seed=12")
    wait_idle(page, started_timeout=300)
    assert "count=" not in page.url and "seed=12" in page.url
    page.get_by_role("tab", name="Teacher").click()
    wait_idle(page)  # a tab switch runs the page (only the open tab is drawn)
    assert page.get_by_role("spinbutton", name="Number of problems").input_value() == "5"


def test_screenshot_of_a_refusal(page, app_url, screenshot_dir):
    goto(page, f"{app_url}/binomial-lab?lab_p=1e-20000000&n=inf")
    screenshot_full(page, screenshot_dir / "refused-link-binomial.png")
    goto(page, f"{app_url}/exercises?count=inf")
    wait_idle(page, started_timeout=300)
    screenshot_full(page, screenshot_dir / "refused-link-exercises.png")
