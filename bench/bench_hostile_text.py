"""What a hostile text costs the server: a 1 MB name (and class code, student number, class name) sent with Join or
Start a class, against the floor of the same press with an ordinary name, measured in the same run.

Each figure is the CPU time (``time.process_time``) of the checks a press meets before the class database
(lab.classroom.actions.before_the_database, then the name's own check, lab.classroom.naming), the median of many
repetitions. The target (docs/security.md): a 1 MB name costs under 10 ms, and no more than a few times the
ordinary name (its work does not grow with the text). Before the third abuse pass the same name cost 1.1 s.

    python bench/bench_hostile_text.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab.classroom import actions, naming  # noqa: E402
from lab.classroom.limits import AddressTries  # noqa: E402
from lab.classroom.refusals import ClassroomError  # noqa: E402

REPEATS = 200
MEGABYTE = 1_048_576


def cost(name: str, identifier: str = "") -> float:
    """Median CPU seconds of the checks before the database for a Join with ``name``."""
    times = []
    for i in range(REPEATS):
        actions.ADDRESS_TRIES = AddressTries()  # a fresh count: the press is never refused for its rate here
        began = time.process_time()
        refused = actions.before_the_database(
            f"198.51.100.{i % 200}",
            (("Class code", "K7M2QX", naming.CODE_LENGTH), ("Your name", name, naming.MAX_NAME),
             ("Student number", identifier, naming.MAX_IDENTIFIER)),
        )  # fmt: skip
        if not refused:
            try:
                naming.check_name(name)
            except ClassroomError:
                pass
        times.append(time.process_time() - began)
    return statistics.median(times)


def main() -> int:
    floor = cost("Ann Lee")
    rows = [
        ("ordinary name (the floor)", floor),
        ("1 MB name", cost("x" * MEGABYTE)),
        ("1 MB of combining marks", cost("\u0301" * MEGABYTE)),
        ("1 MB student number", cost("Ann", "9" * MEGABYTE)),
        ("160 characters of Hangul filler", cost("\u3164" * 160)),
    ]
    print(f"{'text':36} {'CPU ms':>9} {'x floor':>8}")
    worst = 0.0
    for label, seconds in rows:
        print(f"{label:36} {seconds * 1000:9.4f} {seconds / floor if floor else float('inf'):8.1f}")
        worst = max(worst, seconds)
    print(f"worst: {worst * 1000:.4f} ms (target: under 10 ms)")
    return 0 if worst < 0.010 else 1


if __name__ == "__main__":
    raise SystemExit(main())
