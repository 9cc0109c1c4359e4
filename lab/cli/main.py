"""``python -m lab``: the same core from the command line, for answer keys and scripted checks.

This module builds the parser and dispatches; each command group lives in its own module with a
``register(subparsers)`` (:mod:`lab.cli.residual`: residual, scenario, binomial; :mod:`lab.cli.pitfalls`:
mistakes, numerics; :mod:`lab.cli.exercises`; :mod:`lab.cli.sampling`: law, simulate; :mod:`lab.cli.drafts`: drafts;
:mod:`lab.cli.check`: check), and every command prints through :mod:`lab.cli.output`. Bad input exits with
code 2 and one line on stderr; never a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys

from lab.cli import check, drafts, exercises, pitfalls, residual, sampling
from lab.cli.output import UsageError, error_line
from lab.core.blocks import TooLargeError
from lab.core.distributions import LabInputError

# The command groups, in the order their commands appear in ``--help``.
COMMAND_GROUPS = (residual, pitfalls, exercises, sampling, drafts, check)


class LabArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> LabArgumentParser:
    parser = LabArgumentParser(
        prog="lab", description="Residual Lab: the correction distribution of speculative sampling, exact and float64."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


# Options whose values may look like negative numbers, by command (each group declares its own).
VALUE_OPTIONS = {command: options for group in COMMAND_GROUPS for command, options in group.VALUE_OPTIONS.items()}
_NEGATIVE_LOOKING = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)


def join_negative_values(argv: list[str]) -> list[str]:
    """``--p -1/4`` becomes ``--p=-1/4`` for the options in VALUE_OPTIONS, so argparse does not take the
    value for an option and the value's own check reports the real problem."""
    options = VALUE_OPTIONS.get(argv[0], ()) if argv else ()
    joined: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in options and i + 1 < len(argv) and _NEGATIVE_LOOKING.match(argv[i + 1]):
            joined.append(f"{word}={argv[i + 1]}")
            i += 2
            continue
        joined.append(word)
        i += 1
    return joined


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        argv = join_negative_values(list(sys.argv[1:] if argv is None else argv))
        args = build_parser().parse_args(argv)
        return args.run(args)
    except (LabInputError, UsageError) as exc:
        line = error_line(exc)
        if isinstance(exc, TooLargeError) and getattr(args, "allow_large", True) is False:
            line += " (--allow-large goes beyond it)"
        print(line, file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
