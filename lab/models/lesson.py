"""The Start-here lesson's state: which chapter is open, what the student predicted, revealed and answered, and the
text that keeps it in the browser (localStorage) across reloads and server restarts. No Streamlit.

Everything read back from the browser or a link is checked here before the page uses it: the stored text is a
crafted message as far as the server knows (a size cap, a version, chapters 1 to 8, short texts only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lab.i18n import LANGUAGES, SOURCE
from lab.models.stored import read_stored
from lab.teaching.lesson import CHAPTER_COUNT, chapter

VERSION = 1
MAX_STORED = 4000  # characters: eight chapters' short answers fit many times over
MAX_TEXT = 40  # a typed answer or prediction
TRIES_BEFORE_SOLUTION = 2


class LessonInputError(ValueError):
    """A chapter number or a stored progress the lesson cannot use (the message names it)."""


def parse_chapter(raw) -> int:
    """A chapter number from a link (``?chapter=3``): a whole number 1 to 8, else LessonInputError."""
    text = str(raw).strip()
    if not text.isdigit() or not 1 <= int(text) <= CHAPTER_COUNT:
        shown = text if len(text) <= 12 else text[:12] + "…"
        raise LessonInputError(f"chapter: {shown!r} is not a chapter number from 1 to {CHAPTER_COUNT}")
    return int(text)


@dataclass
class ChapterWork:
    """What the student did in one chapter."""

    predictions: list[str] = field(default_factory=list)  # the boxes' texts, one per Ask
    revealed: bool = False
    answer: str = ""
    tries: int = 0
    correct: bool = False

    @property
    def done(self) -> bool:
        return self.correct

    @property
    def solution_shown(self) -> bool:
        return self.correct or self.tries >= TRIES_BEFORE_SOLUTION


@dataclass
class Lesson:
    """The whole path: the open chapter and each chapter's work."""

    current: int = 1
    work: dict[int, ChapterWork] = field(default_factory=dict)

    def of(self, number: int) -> ChapterWork:
        return self.work.setdefault(number, ChapterWork())

    @property
    def blank(self) -> bool:
        """Nothing predicted, revealed or answered yet (a chapter merely opened does not count)."""
        return not any(w.revealed or w.tries or w.predictions for w in self.work.values())

    @property
    def done(self) -> tuple[int, ...]:
        return tuple(n for n in range(1, CHAPTER_COUNT + 1) if n in self.work and self.work[n].done)

    def go(self, number: int) -> None:
        self.current = min(max(1, number), CHAPTER_COUNT)

    def reveal(self, number: int, predictions: list[str]) -> None:
        work = self.of(number)
        work.predictions = [str(p)[:MAX_TEXT] for p in predictions]
        work.revealed = True

    def answer(self, number: int, text: str, language: str = SOURCE):
        """Check ``text`` against the chapter's question; a counted try is recorded. Returns the Verdict, in
        ``language`` (lab.i18n)."""
        work = self.of(number)
        verdict = chapter(number, language).question.check(text)
        if work.correct or not verdict.counted:
            return verdict
        work.answer = " ".join(str(text).split())[:MAX_TEXT]
        work.tries += 1
        work.correct = verdict.correct
        return verdict

    def merge(self, other: Lesson) -> None:
        """Add what ``other`` (the browser's stored lesson) holds and this session does not: this session's work
        on a chapter is the newer."""
        for number, work in other.work.items():
            mine = self.work.get(number)
            if mine is None or (not mine.revealed and not mine.tries):
                self.work[number] = work

    # --- the stored text ---------------------------------------------------------------------------------------

    def to_text(self) -> str:
        chapters = {
            str(n): {"pred": w.predictions, "rev": w.revealed, "ans": w.answer, "tries": w.tries, "ok": w.correct}
            for n, w in sorted(self.work.items())
            if w.revealed or w.tries or w.predictions
        }
        return json.dumps({"v": VERSION, "at": self.current, "ch": chapters}, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str) -> Lesson:
        """The lesson a stored text describes; LessonInputError names what is wrong with it."""
        data = read_stored(text, VERSION, MAX_STORED, "the saved lesson", LessonInputError)
        lesson = cls()
        at = data.get("at", 1)
        lesson.current = at if isinstance(at, int) and not isinstance(at, bool) and 1 <= at <= CHAPTER_COUNT else 1
        chapters = data.get("ch", {})
        if not isinstance(chapters, dict):
            raise LessonInputError("the saved lesson's chapters are not readable")
        for key, raw in chapters.items():
            number = parse_chapter(key)
            lesson.work[number] = _work(raw, number)
        return lesson


def _work(raw, number: int) -> ChapterWork:
    if not isinstance(raw, dict):
        raise LessonInputError(f"the saved work of chapter {number} is not readable")
    predictions = raw.get("pred", [])
    asks = len(chapter(number).asks)
    if not isinstance(predictions, list) or len(predictions) > asks or not all(isinstance(p, str) for p in predictions):
        raise LessonInputError(f"the saved predictions of chapter {number} are not readable")
    tries = raw.get("tries", 0)
    if not isinstance(tries, int) or isinstance(tries, bool) or not 0 <= tries <= 10_000:
        raise LessonInputError(f"the saved tries of chapter {number} are not a count")
    answer = raw.get("ans", "")
    if not isinstance(answer, str):
        raise LessonInputError(f"the saved answer of chapter {number} is not a text")
    work = ChapterWork([p[:MAX_TEXT] for p in predictions], raw.get("rev") is True, answer[:MAX_TEXT], tries)
    # "right" is not taken on the browser's word: the saved answer is checked again
    # (in any language: "indefinido" answers chapter 4 in Spanish)
    work.correct = raw.get("ok") is True and bool(answer) and any(
        chapter(number, code).question.check(answer).correct for code in LANGUAGES
    )
    return work
