"""Shared fixtures for browser tests (headless Debian Chromium driven by Playwright).

Every test in this folder gets the ``browser`` marker automatically (``pytest_collection_modifyitems``
below), so ``python -m pytest -m "not browser"`` is the fast loop and the plain command runs everything.
Fixtures:

- ``app_url`` (session): starts ``streamlit run server.py`` (the app plus its route, as ./run) once on a
  free port (a socket bound to port 0), waits for ``/_stcore/health`` to answer ``ok``, yields
  ``http://127.0.0.1:PORT``, and stops the server after the session.
- ``browser`` (session): Chromium launched from ``/usr/bin/chromium`` with ``CHROMIUM_ARGS``.
- ``page`` (function): a fresh 1280x800 page in its own context (closed afterwards).
- ``screenshot_dir`` (session): ``screenshots/`` at the repository root (git-ignored).

Helpers in tests/browserlib.py (``from browserlib import goto, wait_idle, plotly_data``):
``goto(page, url)`` navigates and waits until the app is idle; ``wait_idle(page)`` waits for the
run an interaction triggered (and for its plotly charts to be drawn); ``plotly_data(page)`` gives
every ``.js-plotly-plot``'s traces (name, x, y) as JSON; ``screenshot_full(page, path)`` shoots the
whole page (Streamlit scrolls inside stMain, so the viewport is stretched for the shot); ``start_streamlit(script)`` /
``stop_process(proc)`` run any other script (bench/ uses them); ``DESKTOP`` and ``PHONE`` viewports.

Without /usr/bin/chromium the tests are skipped locally but FAIL when ``CI=true``: they must run in CI.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from browserlib import CHROMIUM, CHROMIUM_ARGS, DESKTOP, ROOT, start_streamlit, stop_process

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing: browser tests must run in CI")
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def app_url():
    proc, url = start_streamlit("server.py")
    yield url
    stop_process(proc)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    new_page = context.new_page()
    yield new_page
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    path = ROOT / "screenshots"
    path.mkdir(exist_ok=True)
    return path
