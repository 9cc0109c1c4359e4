"""``python -m lab.i18n.compile``: every language's ``lab.po`` compiled to ``lab.mo`` beside it (the project's set-up
runs it: ``./run``, ``.ci/run``). ``--check`` compiles nothing and exits 1 naming a catalog whose ``.mo`` is missing
or older than its ``.po``. A catalog with a message whose placeholders differ from the source's is refused (exit 2,
one line naming the catalog and the message)."""

from __future__ import annotations

import sys

from lab.i18n import CATALOGS, DOMAIN, LANGUAGES, SOURCE
from lab.i18n.catalogs_check import placeholder_problems


def main(argv: list[str] | None = None) -> int:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    argv = sys.argv[1:] if argv is None else argv
    check = argv == ["--check"]
    stale = []
    for language in LANGUAGES.values():
        if language.code == SOURCE:
            continue
        folder = CATALOGS / language.locale / "LC_MESSAGES"
        po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
        with po.open("rb") as handle:
            catalog = read_po(handle, locale=language.locale)
        problems = placeholder_problems(catalog)
        if problems:
            print(f"lab.i18n.compile: {po.relative_to(CATALOGS.parent)}: {problems[0]}", file=sys.stderr)
            return 2
        if check:
            if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
                stale.append(str(po.relative_to(CATALOGS.parent)))
            continue
        with mo.open("wb") as handle:
            write_mo(handle, catalog)
    if stale:
        print(f"lab.i18n.compile: not compiled since changed: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
