"""Every page opens in a real browser, served as ./run serves it, and answers a control: nothing raised, the page
drawn. .ci/run also runs this with RESIDUAL_LAB_PATCHES=stock (every speed patch off, lab/views/patches), so a
library upgrade that skips a patch is known to cost speed only."""

from __future__ import annotations

import pytest

from browserlib import goto, wait_idle
from lab.views import shell

ENTRIES = (*shell.PAGES, *shell.LINKED_PAGES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.url_path for e in ENTRIES])
def test_the_page_opens_and_answers_a_control(page, app_url, entry):
    goto(page, f"{app_url}/{entry.address}")
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("[data-testid=stMain] h1, [data-testid=stMain] h2").count() >= 1  # the page drew its heading
    button = page.locator("[data-testid=stMain] [data-testid=stButton] button:not([disabled]):visible").first
    if button.count():
        button.click()
        wait_idle(page)
        assert page.locator("[data-testid=stException]").count() == 0
