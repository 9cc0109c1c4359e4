"""What a translated message must keep of its source: the same named placeholders (``{count}`` stays
``{count}``; a translation may move it, never drop, rename or add one)."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def placeholder_problems(catalog) -> list[str]:
    """One line per translated message whose placeholders differ from its source's (plural forms: each form
    against the plural source, since "one" forms may write the number in words)."""
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = placeholders(ids[-1])
        for form in strings:
            if form and placeholders(form) - wanted:
                problems.append(f"{ids[0]!r}: the translation names {sorted(placeholders(form) - wanted)}, "
                                f"which the source does not have")
            elif form and len(ids) == 1 and placeholders(form) != wanted:
                problems.append(f"{ids[0]!r}: the translation drops {sorted(wanted - placeholders(form))}")
    return problems
