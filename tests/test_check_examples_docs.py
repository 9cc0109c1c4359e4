"""Every shipped example's verdict, as docs/checking-a-sampler.md prints it: its command run exactly as printed
there, and its exit status, failing cases and named mistake read from what the command prints."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "checking-a-sampler.md"
ROW = re.compile(
    r"^\| `(?P<command>python -m lab check [^`]+)` \| (?P<verdict>pass|fail|inconclusive) \(exit (?P<exit>\d)\)"
    r"(?:: fails (?P<fails>[^;|]+?))?(?:; named (?P<named>[^;|]+?))? \|"
)


def documented() -> list[dict]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## The shipped examples", 1)[1]
    rows = [m.groupdict() for line in section.splitlines() if (m := ROW.match(line))]
    return rows


ROWS = documented()
TORCH = [r for r in ROWS if "torch" in r["command"] or "transformers" in r["command"] or "real_multi" in r["command"]]


def test_the_table_lists_every_shipped_example_function():
    shipped = set()
    for path in (ROOT / "examples").glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if m := re.match(r"    python -m lab check (examples/\S+\.py:\w+)", line):
                shipped.add(m.group(1))
    listed = {shlex.split(r["command"])[4] for r in ROWS}
    assert shipped and shipped <= listed, sorted(shipped - listed)
    assert all(len(shlex.split(r["command"])) == 5 for r in ROWS), "an example documented with an option"


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS, ids=[shlex.split(r["command"])[4] for r in ROWS])
def test_each_example_gives_the_verdict_the_docs_print(row):
    if row in TORCH and not os.environ.get("CI"):  # CI installs torch: never skip there
        pytest.importorskip("torch")
    argv = shlex.split(row["command"])
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True, text=True, timeout=900)
    out = done.stdout
    assert done.returncode == int(row["exit"]), (done.returncode, out[-3000:], done.stderr[-2000:])
    assert f"exit status {row['exit']} ({row['verdict']})" in out
    failed = re.search(r"^FAIL: \d+ of \d+ cases failed: (.+)$", out, re.M)
    expected = [name.strip() for name in row["fails"].split(", ")] if row["fails"] else []
    assert (failed.group(1).split(", ") if failed else []) == expected
    named = re.search(r"^named mistake across the failing cases that name one \(\d+\): (\S+)$", out, re.M)
    assert (named.group(1) if named else None) == (row["named"].strip() if row["named"] else None), out[-3000:]
