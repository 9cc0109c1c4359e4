"""What choosing a language costs a page: the CPU of one run of a page after a change, in English and in each other
language, against the minimal app (bench/minimal_app.py) measured in the same run. Target: a language costs a page
no more than 5 % of its English run.

    python bench/bench_languages.py [--rounds 40]

Each run is a whole AppTest run of app.py on one page (every page; the Class's landing, a student's page, the
teacher's dashboard and the projector, on a class whose answer is revealed, in a throw-away class database) in one
session, whose language its link set; the minimal app's run is the floor. Rounds are
interleaved, in a new (seeded) order each round, so that machine load affects all alike; it prints each language's
median CPU per run as a ratio to the floor and to English.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository root, as every bench script does for lab/

from streamlit.testing.v1 import AppTest  # noqa: E402

from lab.i18n import LANGUAGES  # noqa: E402

TARGET = 1.05
PAGES = {
    "start-here": "lab/views/lesson/start_here.py",
    "glossary": "lab/views/lesson/glossary.py",
    "explorer": "lab/views/pages/explorer.py",
    "binomial-lab": "lab/views/pages/binomial_lab.py",
    "sampling": "lab/views/pages/sampling.py",
    "blocks": "lab/views/pages/blocks.py",
    "several-drafts": "lab/views/pages/several_drafts.py",
    "pitfalls": "lab/views/pages/pitfalls.py",
    "exercises": "lab/views/pages/exercises.py",
    "numerics": "lab/views/pages/numerics.py",
    "class": "lab/views/live_class/classroom.py",
    "class-student": "lab/views/live_class/classroom.py",
    "class-teacher": "lab/views/live_class/classroom.py",
    "projector": "lab/views/live_class/projector.py",
}
LINKS: dict[str, dict[str, str]] = {}  # a page's link parameters (the class's pages: made by revealed_class)


def revealed_class() -> None:
    """A class in a throw-away database (RESIDUAL_LAB_DATA, where the pages find it) on the worked example, with three
    predictions and the answer revealed: the links of a student's page, the dashboard and the projector."""
    from lab.classroom import admission, answers, classes, versions
    from lab.classroom.db import make_engine

    data = tempfile.mkdtemp(prefix="bench-languages-")
    os.environ["RESIDUAL_LAB_DATA"] = data
    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    engine = make_engine(f"sqlite:///{Path(data) / 'classroom.db'}")
    new = classes.create_class(engine, "Bench")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    tokens = [admission.join_class(engine, new.code, name).student_token for name in ("A1", "B2", "C3")]
    activity = answers.student_state(engine, new.code, tokens[0]).activity.id
    for token, values in zip(tokens, (["0.75", "0.25"], ["0.5", "0.5"], ["0.6", "0.4"])):
        answers.submit_prediction(engine, new.code, token, activity, values)
    classes.show_responses(engine, new.code, new.teacher_token)
    classes.reveal(engine, new.code, new.teacher_token)
    LINKS["class-student"] = {"code": new.code, "student": tokens[0]}
    LINKS["class-teacher"] = {"code": new.code, "teacher": new.teacher_token}
    LINKS["projector"] = {"code": new.code, "display": versions.stored_class_version(engine, new.code).display_key}


def session(page: str, code: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    link = {**LINKS.get(page, {}), "lang": code}
    at.query_params.update(link)
    at.run()  # the app's first run first: a page that reruns on its own first run (the Binomial lab) stays
    at.query_params.clear()
    at.query_params.update(link)
    at.switch_page(str(ROOT / PAGES[page])).run()
    assert not at.exception, at.exception
    at.run()  # the first runs fill the caches
    return at


def cpu_of_run(at: AppTest) -> float:
    start = time.process_time()
    at.run()
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--pages", nargs="*", choices=list(PAGES), help="these pages only (default: every page)")
    args = parser.parse_args()
    revealed_class()
    floor = AppTest.from_file(str(ROOT / "bench" / "minimal_app.py"), default_timeout=60)
    floor.run()
    worst = 0.0
    shuffler = random.Random(62)
    for page in args.pages or PAGES:
        sessions = {code: session(page, code) for code in LANGUAGES}
        times: dict[str, list[float]] = {code: [] for code in ["floor", *LANGUAGES]}
        order = ["floor", *LANGUAGES]
        for _ in range(args.rounds):
            shuffler.shuffle(order)  # no language always after the same one (the collector's passes fall in a rhythm)
            for code in order:
                times[code].append(cpu_of_run(floor if code == "floor" else sessions[code]))
        medians = {code: statistics.median(values) for code, values in times.items()}
        print(f"{page}: minimal app {medians['floor'] * 1000:.1f} ms a run; English {medians['en'] * 1000:.1f} ms "
              f"({medians['en'] / medians['floor']:.2f}x the minimal app)")
        for code in LANGUAGES:
            if code == "en":
                continue
            ratio = medians[code] / medians["en"]
            worst = max(worst, ratio)
            print(f"  {code:8s} {medians[code] / medians['floor']:.2f}x the minimal app, {ratio:.3f}x English")
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"worst language against English: {worst:.3f}x (target {TARGET:.2f}x): {verdict}")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
