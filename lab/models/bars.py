"""What the bar predictor (lab/views/ui/bar_predictor.py) may send: one height per bar, each a number from 0 to 1;
and, with its boxes and Submit (a class page), the text of each box.

Pure Python (no Streamlit). The browser's message can carry any JSON value in its place (a crafted WebSocket
message, a script in the page), so every value is checked here before a page model or a widget sees it; a
refusal names the bar and the problem, and the page keeps the last valid bars.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from lab.core.distributions import snap_to_step
from lab.core.numbers import shown

BAR_STEP = Fraction(1, 100)  # a bar's height snaps to this step, in the browser and again here
BOX_CHARS = 40  # a box's longest text (its input allows as many): "0.25" or "1/4" is what a box is for
MAX_BARS = 64  # more than any page draws (the Binomial lab's 27 at n = 26); a longer list is refused unread


class BarsRefused(ValueError):
    """The bars sent were not applied; the message names the bar and the problem."""


def read_bars(payload: object, labels: Sequence[str]) -> list[float]:
    """The heights sent for the bars ``labels``, snapped to 0.01; raises :class:`BarsRefused` naming the problem."""
    _list_of(payload, len(labels), "Bars not applied", "heights", "bars")
    heights = []
    for label, value in zip(labels, payload):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BarsRefused(f"Bars not applied: the height of {label} is not a number ({_kind(value)}).")
        if not math.isfinite(value):
            raise BarsRefused(f"Bars not applied: the height of {label} is {value}, not a finite number.")
        if not 0 <= value <= 1:
            raise BarsRefused(f"Bars not applied: the height of {label}, {shown(value)}, is outside [0, 1].")
        heights.append(float(snap_to_step(Fraction(value), BAR_STEP)))
    return heights


def read_boxes(payload: object, fields: Sequence[str]) -> list[str | None]:
    """The text of each box sent with Submit, one per field (None: left empty), not read as numbers yet (the class's
    one reader does that, and names a box it refuses); raises :class:`BarsRefused` when it is not such a list."""
    _list_of(payload, len(fields), "Not submitted", "texts", "boxes")
    texts = []
    for field, value in zip(fields, payload):
        if value is not None and not isinstance(value, str):
            raise BarsRefused(f"Not submitted: the box for {field} sent {_kind(value)}, not text.")
        if isinstance(value, str) and len(value) > BOX_CHARS:
            raise BarsRefused(
                f"Not submitted: the box for {field} holds {len(value):,} characters (at most {BOX_CHARS})."
            )
        texts.append((value.strip() or None) if isinstance(value, str) else None)
    return texts


def _list_of(payload: object, count: int, refused: str, items: str, places: str) -> None:
    """Refuse (:class:`BarsRefused`, starting ``refused``) anything but a list of ``count`` ``items``, one for each
    of the ``places`` ("expected a list of 2 heights, got ...", "3 heights sent for 2 bars")."""
    if not isinstance(payload, list):
        raise BarsRefused(f"{refused}: expected a list of {count} {items}, got {_kind(payload)}.")
    if len(payload) != count:
        raise BarsRefused(f"{refused}: {len(payload):,} {items} sent for {count} {places}.")


def _kind(value: object) -> str:
    """What a refused value was, in words, without repeating it whole (it may be a megabyte long)."""
    if isinstance(value, str):
        return f"the text {shown(value)}"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, dict):
        return f"an object with {len(value):,} fields"
    if isinstance(value, list):
        return f"a list of {len(value):,} items"
    return type(value).__name__
