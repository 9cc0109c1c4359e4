"""Remake docs/images/explorer.png, the README's screenshot: the explorer on the worked example after Reveal,
with the prediction r = (0, 1/2, 1/2) and Z = 0.3, at 1280 px (run from the repository root with the project's
python; needs /usr/bin/chromium)."""

from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browserlib import goto, start_streamlit, stop_process

OUT = Path("docs/images/explorer.png")
VIEWPORT = {"width": 1280, "height": 1350}  # down to the score, under the exact answer

proc, url = start_streamlit(quiet=True)
try:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        goto(page, f"{url}/?r=0,0.5,0.5&z=0.3&reveal=1", timeout=90_000)
        page.wait_for_timeout(800)  # plotly draws its responsive charts after the page is idle
        page.screenshot(path=str(OUT))
        browser.close()
finally:
    stop_process(proc)
print(OUT)
