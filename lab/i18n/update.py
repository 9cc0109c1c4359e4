"""``python -m lab.i18n.update``: after changing a message in the code, the template (``lab.pot``) extracted anew
from every ``_("…")``, ``_.ngettext(…)`` and ``N_("…")`` in ``lab/`` and ``app.py``, and every language's ``lab.po``
brought up to it (new messages empty, changed ones marked fuzzy, gone ones dropped). Then translate what is empty or
fuzzy and run ``python -m lab.i18n.compile``; tests/test_i18n.py fails until every language has every message."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lab.i18n import CATALOGS, DOMAIN, TEMPLATE

ROOT = Path(__file__).resolve().parents[2]
EXTRACT = ["-k", "N_", "-k", "said", "--add-location=file", "--sort-by-file", "--project", "Residual Lab",
           "--copyright-holder", "Residual Lab"]


def extract(output: Path) -> None:
    """The template of every marked message in the code, of every scenario's title, question and explanation and of
    every Markov model's title and note (``scenarios/*.toml``: data, so no extractor reads it), written to ``output``
    (run from the top folder)."""
    from babel.messages.frontend import CommandLineInterface
    from babel.messages.pofile import read_po, write_po

    from lab.core.markov import load_model, model_names
    from lab.core.scenarios import load_scenario, scenario_names

    CommandLineInterface().run(["pybabel", "-q", "extract", *EXTRACT, "-o", str(output), "lab", "app.py"])
    with output.open("rb") as handle:
        catalog = read_po(handle)
    for name in scenario_names():
        scenario = load_scenario(name)
        where = scenario.path.resolve().relative_to(ROOT).as_posix()
        for text in (scenario.title, scenario.question, scenario.explanation):
            if text:
                catalog.add(text, locations=[(where, None)])
    for name in model_names():
        model = load_model(name)
        for text in (model.title, model.note):
            if text:
                catalog.add(text, locations=[(model.path.resolve().relative_to(ROOT).as_posix(), None)])
    with output.open("wb") as handle:
        write_po(handle, catalog, sort_by_file=True, width=76)


def main(argv: list[str] | None = None) -> int:
    from babel.messages.frontend import CommandLineInterface

    os.chdir(ROOT)  # locations in the template are relative to the repository's top folder
    extract(TEMPLATE)
    CommandLineInterface().run(["pybabel", "-q", "update", "-i", str(TEMPLATE), "-d", str(CATALOGS), "-D", DOMAIN,
                                "-w", "120", "--ignore-obsolete", "--no-fuzzy-matching"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
