"""The command line, ``python -m lab``: one module per command group, built on the core."""

from lab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
