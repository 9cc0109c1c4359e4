"""Visit every page linked in the sidebar navigation (pages added later are covered automatically),
screenshot it at 1280x800 and 390 px wide into screenshots/, and fail on any Streamlit exception."""

from __future__ import annotations

import re

from browserlib import DESKTOP, PHONE, goto, screenshot_full


def nav_links(page, app_url: str) -> list[str]:
    goto(page, app_url)
    hrefs = page.eval_on_selector_all("[data-testid=stSidebarNavLink]", "links => links.map(a => a.href)")
    assert hrefs, "no page links in the sidebar navigation"
    return list(dict.fromkeys(hrefs))


def slug(url: str) -> str:
    path = url.split("://", 1)[-1].split("/", 1)[-1].split("?", 1)[0]
    return re.sub(r"[^A-Za-z0-9_-]+", "-", path).strip("-") or "start-here"


def test_every_page_renders_without_exception(browser, app_url, screenshot_dir):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    links = nav_links(page, app_url)
    failures = []
    try:
        for viewport_name, viewport in (("1280x800", DESKTOP), ("390", PHONE)):
            page.set_viewport_size(viewport)
            for url in links:
                goto(page, url)
                screenshot_full(page, screenshot_dir / f"{slug(url)}-{viewport_name}.png")
                errors = page.locator("[data-testid=stException]")
                if errors.count():
                    failures.append(f"{url} at {viewport_name}: {errors.first.inner_text()[:300]}")
    finally:
        context.close()
    assert not failures, "\n".join(failures)
    assert len(links) >= 2
