"""The Exercises page's assignment state: seed, number of problems and level (the teacher's link), and the
open tab (a link can open the predict-the-bars tab).

All of it is in the link: the tabs are bound to it (``bind="query-params"``), and the page reads the seed, count
and level from it and the Teacher tab's controls write them. This model validates the link and those controls'
values first (``count=inf`` would otherwise reach Streamlit's number_input as an OverflowError).
"""

from __future__ import annotations

from dataclasses import dataclass

from lab.models.url import PageModel, UrlReader
from lab.teaching.exercises import (
    DEFAULT_COUNT,
    DEFAULT_LEVEL,
    DEFAULT_SEED,
    LEVELS,
    MAX_COUNT,
    MAX_SEED,
    MIN_COUNT,
    MIN_SEED,
)

TABS = ("Problems", "Predict the bars", "Your results", "Teacher")


@dataclass
class ExercisesModel(PageModel):
    seed: int = DEFAULT_SEED
    count: int = DEFAULT_COUNT
    level: str = DEFAULT_LEVEL
    tab: str = TABS[0]

    PARAMS = {"seed": "seed", "count": "count", "level": "level", "tab": "tab"}
    LABELS = {"seed": "Seed", "count": "Number of problems", "level": "Level", "tab": "Tab"}

    @classmethod
    def read_fields(cls, read: UrlReader, d) -> dict:
        return dict(
            seed=read.whole("seed", MIN_SEED, MAX_SEED, d.seed),
            count=read.whole("count", MIN_COUNT, MAX_COUNT, d.count),
            level=read.choice("level", LEVELS, d.level),
            tab=read.choice("tab", TABS, d.tab),
        )
