"""An answer typed in the page's language, as the exercises' check reads it (the Exercises page, a class's
assignment)."""

from __future__ import annotations

from lab.teaching.exercises import UNDEFINED
from lab.views.ui.language import texts


def typed_answer(text):
    """An answer as the page's language types it: its word for "undefined" is the word the check reads."""
    _ = texts()
    if isinstance(text, str) and text.strip().lower().rstrip(".") == _("undefined").lower():
        return UNDEFINED
    return text
