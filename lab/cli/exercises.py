"""``python -m lab exercises --seed S --count N [--level L] [--json]``: an assignment with its answers.

The same seed, count and level give the same problems as the Exercises page, so a teacher can
produce an answer key from a terminal.
"""

from __future__ import annotations

from lab.cli.output import print_json
from lab.teaching.exercises import (
    DEFAULT_LEVEL,
    LEVELS,
    generate_predictions,
    generate_problems,
    parse_count,
    parse_level,
    parse_seed,
)
from lab.teaching.exports import answer_key_text, assignment_json


def run_exercises(args) -> int:
    # Validate here so every bad value is one line on stderr (ExerciseInputError is a LabInputError).
    seed, count, level = parse_seed(args.seed), parse_count(args.count), parse_level(args.level)
    problems = generate_problems(seed, count, level)
    predictions = generate_predictions(seed, level)
    if args.json:
        print_json(assignment_json(problems, predictions, seed, level))
    else:
        print(answer_key_text(problems, predictions, seed, level), end="")
    return 0


def register(subparsers) -> None:
    ex = subparsers.add_parser("exercises", help="an assignment's problems with their answers")
    ex.add_argument("--seed", required=True, metavar="S", help="assignment seed, a whole number 0 to 999999999")
    ex.add_argument("--count", required=True, metavar="N", help="number of problems, 1 to 30")
    ex.add_argument(
        "--level", default=DEFAULT_LEVEL, metavar="L", help=f"one of {', '.join(LEVELS)} (default {DEFAULT_LEVEL})"
    )
    ex.add_argument("--json", action="store_true", help="print JSON")
    ex.set_defaults(run=run_exercises)


VALUE_OPTIONS: dict[str, tuple[str, ...]] = {}  # no option of this group takes a negative-looking value
