"""Words a user or a reader sees explain themselves: no "the seed's example" or "the issue" in the lab's
code, page text or scenario files (the random seed of a simulation or an assignment is fine)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTERNAL = re.compile(r"seed's|seed example|\bthe issue\b|issue's", re.IGNORECASE)


def offenders() -> list[str]:
    files = [*sorted((ROOT / "lab").rglob("*.py")), *sorted((ROOT / "scenarios").glob("*.toml")), ROOT / "app.py"]
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if INTERNAL.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_internal_names_in_the_lab_or_the_scenarios():
    assert offenders() == []


def test_the_pattern_catches_the_old_wording():
    assert INTERNAL.search("Reproduce the seed's example")
    assert INTERNAL.search("Three tokens, the issue's target chain")
    assert not INTERNAL.search("the seed must be a whole number >= 0")
