"""What a crafted WebSocket message can send as the bar predictor's value (Streamlit's own protocol, through
tests/loadclient.py against a real server): a wrong length, a height outside [0, 1], NaN, a string, a megabyte, a
forged component state. Each is refused by name on the page, the boxes keep the last valid bars, and no exception
box appears; a valid release is applied to the boxes."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import pytest

from browserlib import start_streamlit, stop_process
from loadclient import Student

PAGE = "binomial-lab?lab_p=0.75&n=1"
KEY = "bl_bars"

HOSTILE = [
    ([0.5], "1 heights sent for 2 bars"),
    ([0.5, 0.5, 0.5], "3 heights sent for 2 bars"),
    ([0.2, 1.5], "the height of r(C), '1.5', is outside [0, 1]"),
    ([-1, 0.5], "the height of r(B), '-1', is outside [0, 1]"),
    (["0.6", 0.4], "the height of r(B) is not a number (the text '0.6')"),
    ("0.6,0.4", "expected a list of 2 heights, got the text '0.6,0.4'"),
    ({"B": 0.6}, "expected a list of 2 heights, got an object with 1 fields"),
    ("9" * 1_000_000, "(1,000,000 characters)"),
    ([0.5] * 150_000, "150,000 heights sent for 2 bars"),
]


@pytest.fixture(scope="module")
def server():
    proc, url = start_streamlit("server.py")
    yield url
    stop_process(proc)


def said(student: Student) -> str:
    """The page's messages as read (markdown escapes taken out)."""
    return " ".join(student.alerts).replace("\\", "")


def boxes(student: Student) -> list[float]:
    by_key = {w.key: w.value for w in student.widgets.values()}
    return [by_key["bl_pred_0"], by_key["bl_pred_1"]]


def test_hostile_values_are_refused_by_name_and_the_last_bars_stay(server):
    async def scenario():
        student = Student(server, PAGE, timeout=60)
        await student.load()
        try:
            assert KEY in student.components and not student.exceptions
            await student.send_component(KEY, "bars", [0.6, 0.4])
            assert boxes(student) == [0.6, 0.4] and not student.alerts

            for payload, words in HOSTILE:
                student.alerts.clear()
                await student.send_component(KEY, "bars", payload)
                assert words in said(student) and "Your last bars stay" in said(student), str(payload)[:80]
                assert boxes(student) == [0.6, 0.4]  # the last valid bars
            # NaN is not JSON: a crafted message writes it anyway (Python's json reads it)
            student.alerts.clear()
            await student.send_component(KEY, "bars", raw='[{"event": "bars", "value": [NaN, 0.5]}]')
            assert "the height of r(B) is nan, not a finite number" in said(student)
            # text that is no JSON at all, and a trigger of an event the component does not have
            student.alerts.clear()
            await student.send_component(KEY, "bars", raw="not json {")
            await student.send_component(KEY, "other", [0.1, 0.1])
            assert boxes(student) == [0.6, 0.4]
            # a forged state of the component (not a trigger) goes through the same check
            student.alerts.clear()
            await student.send_component(KEY, "bars", "0.9,0.1", state=True)
            assert "got the text '0.9,0.1'" in said(student)
            assert boxes(student) == [0.6, 0.4]
            assert not student.exceptions  # no exception box in any of these runs
            data = json.loads(student.components[KEY][2])
            assert data["values"] == [0.6, 0.4]  # the bars drawn again are the last valid ones
        finally:
            await student.close()

    # its own thread: Playwright's sync API (the browser tests' session fixture) keeps an event loop running in
    # this one while the whole test session lasts, and asyncio.run() refuses to start inside it
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, scenario()).result()
