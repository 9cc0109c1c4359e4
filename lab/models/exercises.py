"""The Exercises page's assignment state: seed, number of problems and level (the teacher's link).

The widgets carry it in the link (``bind="query-params"``); this model validates the link and the
widget values first (``count=inf`` would otherwise reach Streamlit's number_input as an OverflowError).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lab.models.url import PageModel, UrlReader, UrlWarning
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


@dataclass
class ExercisesModel(PageModel):
    seed: int = DEFAULT_SEED
    count: int = DEFAULT_COUNT
    level: str = DEFAULT_LEVEL

    PARAMS = {"seed": "seed", "count": "count", "level": "level"}
    LABELS = {"seed": "Seed", "count": "Number of problems", "level": "Level"}

    @classmethod
    def from_url(cls, params: Mapping, source: str = "link") -> tuple[ExercisesModel, list[UrlWarning]]:
        read, d = UrlReader(params, source, cls.LABELS), cls()
        model = cls(
            seed=read.whole("seed", MIN_SEED, MAX_SEED, d.seed),
            count=read.whole("count", MIN_COUNT, MAX_COUNT, d.count),
            level=read.choice("level", LEVELS, d.level),
        )
        return model, read.warnings
