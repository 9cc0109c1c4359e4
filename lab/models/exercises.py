"""The Exercises page's assignment state: seed, number of problems and level (the teacher's link), and the
open tab (a link can open the predict-the-bars tab).

All of it is in the link: the tabs are bound to it (``bind="query-params"``), and the page reads the seed, count
and level from it and the Teacher tab's controls write them. This model validates the link and those controls'
values first (``count=inf`` would otherwise reach Streamlit's number_input as an OverflowError).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lab.core.errors import said
from lab.i18n import N_
from lab.models.stored import read_stored
from lab.models.url import Control, PageModel
from lab.teaching.exercises import (
    DEFAULT_COUNT,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    HINT_STEPS,
    LEVELS,
    MAX_COUNT,
    MAX_SEED,
    MIN_COUNT,
    MIN_SEED,
    Attempt,
    Feedback,
    Problem,
    check_answer,
    hints,
    record_try,
)

TABS = (N_("Problems"), N_("Predict the bars"), N_("Your results"), N_("Teacher"))  # in the link as written here


@dataclass
class ExercisesModel(PageModel):
    seed: int = DEFAULT_SEED
    count: int = DEFAULT_COUNT
    level: str = DEFAULT_LEVEL
    tab: str = TABS[0]

    # Each control once: its key (the link parameter too: a teacher's link names them), label, and how it is read.
    # The view draws the Teacher tab's widgets and the tabs from these.
    CONTROLS = (
        Control("seed", "seed", N_("Seed"), "whole", low=MIN_SEED, high=MAX_SEED),
        Control("count", "count", N_("Number of problems"), "whole", low=MIN_COUNT, high=MAX_COUNT),
        Control("level", "level", N_("Level"), "choice", options=lambda: LEVELS),
        Control("tab", "tab", N_("Tab"), "choice", options=lambda: TABS),
    )


@dataclass
class Sheet:
    """One assignment as this session sees it: the link's seed, count and level, its problems, and this student's
    attempts, feedback, revealed solutions and checked bars (kept in session state per seed and level)."""

    seed: int
    count: int
    level: str
    problems: list
    predictions: list
    presenting: bool
    teacher: bool  # a teacher link of this assignment: its keys and the presenter's Reveal buttons
    link_token: str
    attempts: dict = field(default_factory=dict)
    feedback: dict[int, Feedback] = field(default_factory=dict)
    revealed: set = field(default_factory=set)
    checked_bars: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The assignment's part of every widget key: answers to one assignment never show in another."""
        return f"{self.seed}-{self.level}"

    def submit(self, problem: Problem, text) -> tuple[Attempt | None, tuple[str, str] | None]:
        """A press of Check with ``text`` typed: the problem's feedback is set. Returns the attempt when the try
        counted (to be saved), and what to announce as (said, refused), or None to leave the last announcement."""
        attempt = self.attempts.setdefault(problem.number, Attempt())
        if text is None or not str(text).strip():
            message = said("Type an answer first.") if not problem.is_choice else said("Choose a branch first.")
            self.feedback[problem.number] = Feedback("warning", message)
            return None, ("", said("{problem}: {message}", problem=problem.title, message=message))
        if attempt.correct:
            self.feedback[problem.number] = Feedback(
                "success", said("Already solved: your correct answer is recorded."))
            return None, None
        check = record_try(attempt, problem, str(text))
        self.feedback[problem.number] = Feedback.of_check(check)
        told = said("{problem}, try {count}: {message}", problem=problem.title, count=attempt.tries,
                    message=check.message)
        return (attempt, (told, "")) if check.counted else (None, ("", told))

    def hint(self, problem: Problem) -> tuple[Attempt, tuple[str, str]]:
        """One more hint (up to the last): the attempt to save, and what to announce."""
        attempt = self.attempts.setdefault(problem.number, Attempt())
        attempt.hints_used = min(attempt.hints_used + 1, len(HINT_STEPS))
        hint = hints(problem)[attempt.hints_used - 1]
        return attempt, (said("{problem}, hint {number}: {hint}", problem=problem.title, number=attempt.hints_used,
                              hint=hint), "")

    def reveal(self, problem: Problem) -> tuple[str, str]:
        """The presenter opens the worked solution; returns what to announce."""
        self.revealed.add(problem.number)
        return said("{problem}: the worked solution is open below the problem.", problem=problem.title), ""

    def check_bars(self, number: int, bars: tuple[float, ...]) -> None:
        """The predicted bars of exercise ``number`` as checked (the score is shown for them)."""
        self.checked_bars[number] = bars


# --- the attempts kept in the browser (localStorage), so a reload keeps them --------------------------------------

MAX_STORED = 20_000  # characters: a sheet's attempts at the box's 40-character limit fit many times over


def attempts_text(attempts: dict[int, Attempt]) -> str:
    """One assignment's attempts as the text the browser keeps."""
    rows = {str(n): [a.answer, a.tries, a.hints_used] for n, a in sorted(attempts.items()) if a.tries or a.hints_used}
    return json.dumps({"v": 1, "a": rows}, separators=(",", ":"))


def attempts_from_text(text: str, problems: list[Problem]) -> dict[int, Attempt]:
    """The attempts a stored text describes, for these problems; ValueError names what cannot be used. Whether an
    answer is right is not taken on the browser's word: it is checked again."""
    data = read_stored(text, 1, MAX_STORED, "the saved answers")
    if not isinstance(data.get("a"), dict):
        raise ValueError("the saved answers are not readable")
    by_number = {p.number: p for p in problems}
    attempts = {}
    for key, row in data["a"].items():
        number = int(key) if isinstance(key, str) and key.isdigit() and len(key) < 4 else None
        if number not in by_number:
            raise ValueError(f"the saved answers name a problem {str(key)[:8]!r} this assignment does not have")
        ok = isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10_000 for v in row[1:])
        if not ok:
            raise ValueError(f"the saved answer to problem {number} is not readable")
        answer = row[0][:40]
        correct = bool(answer) and check_answer(by_number[number], answer).correct
        attempts[number] = Attempt(answer, correct, row[1], min(row[2], len(HINT_STEPS)))
    return attempts
