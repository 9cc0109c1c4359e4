"""The fast loop leaves the browser out: every test in tests/browser/ carries the ``browser`` marker without
being told, so ``-m "not browser"`` selects none of them (the plain command still runs them all)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_browser_test_is_marked_browser():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not browser"]
        + ["tests/browser"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5, done.stdout + done.stderr  # 5: nothing selected
    assert not [line for line in done.stdout.splitlines() if "::" in line]
    deselected = re.search(r"(\d+) deselected", done.stdout)
    assert deselected and int(deselected.group(1)) >= 10  # every browser test was collected, then left out


def test_no_bench_script_puts_tests_on_the_import_path():
    for path in sorted((ROOT / "bench").glob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not ("sys.path" in line and "tests" in line), f"{path.name}: {line.strip()}"
