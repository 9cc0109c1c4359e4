"""What the command line writes: JSON, aligned tables, number text, and the one-line error.

Every subcommand prints through these, so the JSON is always valid (no NaN or Infinity: a value
without a number is ``null`` with a reason beside it) and a table looks the same everywhere.
"""

from __future__ import annotations

import argparse
import json

from lab.core.formatting import fraction_text, with_decimal
from lab.core.numbers import NumberInputError, parse_whole_number


class UsageError(Exception):
    """Command-line words that do not fit (argparse's complaints, a missing NAME), reported in one line."""


def print_json(data) -> None:
    """Strict JSON (``allow_nan=False``): a non-finite number here is a bug, never silently ``Infinity``."""
    print(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header, ["-" * w for w in widths], *rows]:
        print(
            "  ".join(str(cell).rjust(w) if i else str(cell).ljust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        )


def number_text(value, exact: bool) -> str:
    return fraction_text(value) if exact else f"{float(value):.10g}"


def cell_text(value, exact: bool) -> str:
    """A table cell: the exact fraction beside its decimal (``3/4 (0.75)``), or a float64 decimal."""
    return with_decimal(value, digits=10) if exact else f"{float(value):.10g}"


def summary_text(value, exact: bool) -> str:
    """alpha and Z under the table: exact with its decimal, or every float64 digit (``repr``), so a
    sum like 0.9999999999999999 is never shown rounded to 1."""
    return cell_text(value, exact) if exact else repr(float(value))


def error_line(exc: Exception) -> str:
    """The one stderr line of a bad input: ``error: <message>``, whatever lines the message holds."""
    return "error: " + " ".join(str(exc).split())


def whole_number(text: str) -> int:
    """argparse ``type`` for whole-number options: read by lab.core.numbers (limits on the text, a short
    message naming the value); the command checks the range that applies."""
    try:
        return parse_whole_number(text, "value", -(10**18), 10**18)
    except NumberInputError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None
