"""Worst case of every page: the slowest interaction, in server CPU seconds, against a 1 s budget.

All students share one Streamlit process, so one expensive rerun stalls every other student. This
script drives the app in-process with Streamlit's AppTest (the same script runs a server would do),
sweeps every page's controls at their extremes and on a grid inside them (and a few links), and
measures the CPU time of each rerun with ``time.process_time()`` around ``at.run()``. Before every
measured rerun the lab's caches are cleared, so each figure is a first visit of that setting (the
cost a new setting has on the server), not a cache hit. A warm-up run loads the imports first.

    python bench/bench_worst_case.py            # full sweep (a few minutes on the 2-core machine)
    python bench/bench_worst_case.py --quick    # the extremes only (well under a minute)
    python bench/bench_worst_case.py --budget 1.0 --top 3

Prints the slowest interaction of each page and exits 1 if any exceeds the budget. CPU time counts
every thread of this process, so other programs on the machine do not inflate it (but a loaded
machine makes caches colder: treat small differences as noise).
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
import streamlit.logger  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from lab.core.caching import SizedCache  # noqa: E402
from lab.views import shell  # noqa: E402

APP = str(ROOT / "app.py")
st.config.set_option("logger.level", "error")  # bare-mode warnings (no server runtime) are expected here
streamlit.logger.set_log_level("error")
st.config.set_option("client.showErrorDetails", "full")  # name the exception in the report
# every page the app routes, by its url path: a page added to lab/views/shell.py without a sweep below stops the
# bench (it cannot be skipped silently)
PAGES = {entry.url_path: entry.file for entry in (*shell.PAGES, *shell.LINKED_PAGES)}
TITLES = {entry.url_path: entry.title for entry in (*shell.PAGES, *shell.LINKED_PAGES)}

Action = Callable[[AppTest], object]  # changes widgets (without running); the measured rerun follows


@dataclass(frozen=True)
class Step:
    label: str
    action: Action | None = None  # None: the page load itself (with the link's parameters)


@dataclass(frozen=True)
class Session:
    """One browser tab: open ``page`` with ``params`` (a link), then the steps in order."""

    page: str
    params: dict[str, str]
    steps: tuple[Step, ...]


@dataclass
class Measure:
    page: str
    label: str
    cpu: float
    error: str = ""


def clear_caches() -> None:
    """Forget every cached result of the lab (functools and lab.core.caching caches in lab modules, st.cache_data)."""
    st.cache_data.clear()
    for name, module in list(sys.modules.items()):
        if not name.startswith("lab."):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, (functools._lru_cache_wrapper, SizedCache)):
                value.cache_clear()


def timed_run(at: AppTest) -> float:
    clear_caches()
    gc.collect()
    start = time.process_time()
    at.run()
    return time.process_time() - start


def problems(at: AppTest) -> str:
    if at.exception:
        return "exception: " + " ".join(str(e.value)[:120] for e in at.exception)
    return ""


def run_session(session: Session) -> Iterator[Measure]:
    name = next(k for k, v in PAGES.items() if v == session.page)
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.query_params.clear()
    at.query_params.update(session.params)
    at.switch_page(session.page)
    link = "&".join(f"{k}={v[:40]}{'…' if len(v) > 40 else ''}" for k, v in session.params.items())
    yield Measure(name, f"open ?{link}" if link else "open", timed_run(at), problems(at))
    for step in session.steps:
        try:
            step.action(at)
        except Exception as exc:  # a widget that is not on the page in this state: report, go on
            yield Measure(name, step.label, 0.0, f"could not interact: {type(exc).__name__}: {exc}")
            continue
        yield Measure(name, step.label, timed_run(at), problems(at))


# --- the sweep --------------------------------------------------------------------------------------


def setv(kind: str, key: str, value) -> Action:
    return lambda at: getattr(at, kind)(key=key).set_value(value)


def open_expander(key: str) -> Action:
    """Open an expander that draws its contents only while open, as a click does (the timed run is the rerun)."""

    def act(at: AppTest) -> None:
        at.session_state[key] = True

    return act


def click(key: str) -> Action:
    return lambda at: at.button(key=key).click()


def explorer_sessions(quick: bool) -> list[Session]:
    letters = [chr(ord("A") + i) for i in range(26)]
    long_fraction = "1234567890123456789/98765432109876543210"  # 40 characters, the box's limit
    big = {
        "tokens": ",".join(letters),
        "p": ",".join(["1/26"] * 26),
        "q": ",".join([long_fraction] + ["0"] * 25),
    }
    steps = [
        Step("edit 26 tokens", setv("toggle", "ex_edit", True)),
        Step("type a 40-character fraction", setv("text_input", "ex_p_0", "1/3333333333333333333333333333333333333")),
        Step("reveal", click("ex_reveal")),
    ]
    sessions = [Session(PAGES["explorer"], big, tuple(steps))]
    sessions.append(Session(PAGES["explorer"], {"p": "1e-1000,1", "q": "1,0", "tokens": "A,B"}, ()))
    # the hostile link: an exponent written with underscores
    sessions.append(Session(PAGES["explorer"], {"tokens": "A,B", "p": "1e-1_000_000,1", "q": "1,0"}, ()))
    if not quick:
        from lab.core.scenarios import scenario_names

        sessions.append(
            Session(
                PAGES["explorer"],
                {},
                tuple(Step(f"scenario {n}", setv("selectbox", "ex_scenario", n)) for n in scenario_names()),
            )
        )
    return sessions


def binomial_sessions(quick: bool) -> list[Session]:
    steps = [
        Step("n = 26", setv("number_input", "bl_n", 26)),
        Step("reveal n = 26", click("bl_reveal")),
        Step("p = 1", setv("number_input", "bl_p", 1.0)),
        Step("p = 0", setv("number_input", "bl_p", 0.0)),
        Step("n = 1", setv("number_input", "bl_n", 1)),
    ]
    sessions = [Session(PAGES["binomial-lab"], {}, tuple(steps))]
    sessions.append(Session(PAGES["binomial-lab"], {"lab_p": "1e-1000", "n": "26", "inspect": "1"}, ()))
    for hostile in ("1e-20000000", "abc", "nan", "1/0"):  # the links
        sessions.append(Session(PAGES["binomial-lab"], {"lab_p": hostile}, ()))
    if not quick:
        grid = [Step(f"p = {p}", setv("number_input", "bl_p", p)) for p in (0.01, 0.33, 0.5, 0.99)]
        sessions.append(Session(PAGES["binomial-lab"], {"n": "26"}, tuple(grid)))
    return sessions


def numerics_sessions(quick: bool) -> list[Session]:
    wide = ", ".join(f"T{i}={i % 7 - 3.5}" for i in range(40))
    steps = [
        Step("gaps 1..20", setv("slider", "numerics_gaps", (1, 20))),
        Step("top-k 50", setv("number_input", "numerics_top_k", 50)),
        Step("temperature 0 (greedy)", setv("number_input", "numerics_temperature", 0.0)),
        Step("temperature 10", setv("number_input", "numerics_temperature", 10.0)),
        Step("top-p 0.05", setv("slider", "numerics_top_p", 0.05)),
        Step("40 target logits", setv("text_input", "numerics_target_logits", wide)),
        Step("40 draft logits", setv("text_input", "numerics_draft_logits", wide)),
    ]
    if not quick:
        steps += [Step(f"gaps {k}..{k}", setv("slider", "numerics_gaps", (k, k))) for k in (1, 8, 20)]
        steps += [Step(f"top-k {k}", setv("number_input", "numerics_top_k", k)) for k in (0, 1, 3)]
    return [Session(PAGES["numerics"], {}, tuple(steps))]


def sampling_sessions(quick: bool) -> list[Session]:
    from lab.core.scenarios import scenario_names

    names = ["eight-words", "bernoulli-residual"] if quick else scenario_names()
    sessions = []
    for name in names:
        steps = [
            Step(f"{name}: N = 10, run", click("sl_run")),
            Step(f"{name}: N = max", setv("number_input", "sl_steps", 1_000_000)),
            Step(f"{name}: N = max, run", click("sl_run")),
            Step(f"{name}: N = max, seed max", setv("number_input", "sl_seed", 2**32 - 1)),
            Step(f"{name}: N = max, seed max, run", click("sl_run")),
            Step(f"{name}: move the guess slider after a run", setv("slider", "sl_guess", 0.5)),
        ]
        sessions.append(Session(PAGES["sampling"], {"sl_scenario": name, "sl_steps": "10"}, tuple(steps)))
    sessions.append(Session(PAGES["sampling"], {"sl_steps": "inf", "sl_seed": "-1"}, ()))
    # different text, same law: both samplers at the section's largest count, every Markov model
    from lab.core.markov import model_names
    from lab.models.sampling import COMPARE_MAX_OUTPUTS

    for name in ["markov-sentences-end", "markov-three"] if quick else model_names():
        steps = []
        for k, length in ((1, 8), (8, 8)) if quick else ((1, 8), (8, 8), (3, 6), (8, 4)):
            steps += [
                Step(f"compare {name} K = {k}, L = {length}", _compare_setting(k, length)),
                Step(f"compare {name} K = {k}, L = {length}: run both", click("sl_cmp_run")),
            ]
        steps.append(Step(f"compare {name}: every output", open_expander("sl_cmp_every")))
        params = {"sl_cmp_model": name, "sl_cmp_n": str(COMPARE_MAX_OUTPUTS), "sl_seed": str(2**32 - 1)}
        sessions.append(Session(PAGES["sampling"], params, tuple(steps)))
    return sessions


def _compare_setting(k: int, length: int) -> Action:
    def act(at: AppTest) -> None:
        at.number_input(key="sl_cmp_k").set_value(k)
        at.number_input(key="sl_cmp_l").set_value(length)

    return act


def blocks_sessions(quick: bool) -> list[Session]:
    from lab.core.markov import all_model_names, load_model
    from lab.core.variants import VARIANT_NAMES

    quick_names = ["eight-words", "bernoulli-residual", "markov-draft-misses", "markov-ab-end"]
    names = quick_names if quick else all_model_names()
    quick_variants = ["correct", "keep-testing-after-rejection", "epsilon-floor", "draft-past-stop"]
    variants = quick_variants if quick else VARIANT_NAMES
    sessions = []
    for name in names:
        steps = []
        for variant in variants:
            for k, length in ((8, 4), (8, 8)) if quick else ((8, 8), (8, 5), (8, 4), (1, 8), (1, 4), (3, 6)):
                steps.append(
                    Step(f"{name} {variant} K = {k}, L = {length}", _blocks_setting(variant, k, length))
                )
        if load_model(name).stop is not None:  # the search for a block that ends at the stop token
            steps += [
                Step(f"{name}: K = 8, L = 1 (no block can end at the stop token)", _blocks_setting("correct", 8, 1)),
                Step(f"{name}: find a block that ends at the stop token, in vain", click("bk_find_stop")),
                Step(f"{name}: K = 8, L = 8", _blocks_setting("correct", 8, 8)),
                Step(f"{name}: find a block that ends at the stop token", click("bk_find_stop")),
            ]
        steps += [
            Step(f"{name}: step", click("bk_step")),
            Step(f"{name}: show all", click("bk_all")),
            Step(f"{name}: new block", click("bk_next_seed")),
            Step(f"{name}: alpha 1, c 0", lambda at: (at.slider(key="bk_alpha").set_value(1.0))),
            Step(f"{name}: alpha 0, c 1", lambda at: (at.slider(key="bk_alpha").set_value(0.0))),
        ]
        sessions.append(Session(PAGES["blocks"], {"bk_model": name}, tuple(steps)))
    sessions.append(Session(PAGES["blocks"], {"bk_k": "inf", "bk_l": "99", "bk_seed": "1e400"}, ()))
    return sessions


def _blocks_setting(variant: str, k: int, length: int) -> Action:
    def act(at: AppTest) -> None:
        at.selectbox(key="bk_variant").set_value(variant)
        at.number_input(key="bk_k").set_value(k)
        at.number_input(key="bk_l").set_value(length)

    return act


def several_drafts_sessions(quick: bool) -> list[Session]:
    """The node at its largest (26 typed tokens, K = 4, each rule, revealed) and every tree model, widths and rule
    at L = 4, stepped."""
    from lab.core.drafts import RULES
    from lab.core.markov import model_names
    from lab.models.several_drafts import MAX_K, WIDTHS

    names = [chr(ord("A") + i) for i in range(26)]
    p_text = ",".join(f"{n}={i + 1}/351" for i, n in enumerate(names))
    q_text = ",".join(f"{n}={26 - i}/351" for i, n in enumerate(names))
    node_steps = []
    for rule in RULES:
        for k in (MAX_K,) if quick else range(1, MAX_K + 1):
            node_steps.append(Step(f"26 tokens, {rule}, K = {k}", _several_setting(rule, k)))
            node_steps.append(Step(f"26 tokens, {rule}, K = {k}: reveal", click("sd_reveal")))
    sessions = [Session(PAGES["several-drafts"], {"sd_p": p_text, "sd_q": q_text}, tuple(node_steps))]
    for name in model_names()[:2] if quick else model_names():
        steps = []
        for widths in WIDTHS[-2:] if quick else WIDTHS:
            for rule in RULES:
                steps.append(Step(f"{name} tree {widths} {rule}", _tree_setting(widths, rule)))
                steps.append(Step(f"{name} tree {widths} {rule}: show all", click("sd_all")))
        sessions.append(Session(PAGES["several-drafts"], {"sd_tree_model": name, "sd_length": "4"}, tuple(steps)))
    sessions.append(Session(PAGES["several-drafts"], {"sd_k": "inf", "sd_p": "A=" + "9" * 900, "sd_seed": "1e400"}, ()))
    return sessions


def _several_setting(rule: str, k: int) -> Action:
    def act(at: AppTest) -> None:
        at.selectbox(key="sd_rule").set_value(rule)
        at.number_input(key="sd_k").set_value(k)

    return act


def _tree_setting(widths: str, rule: str) -> Action:
    def act(at: AppTest) -> None:
        at.selectbox(key="sd_widths").set_value(widths)
        at.selectbox(key="sd_rule").set_value(rule)

    return act


def pitfalls_sessions(quick: bool) -> list[Session]:
    from lab.core.markov import all_model_names

    names = ["eight-words", "bernoulli-residual", "markov-draft-misses", "draft-misses-support", "markov-ab-end"]
    if not quick:
        names = all_model_names()
    lengths = (1, 4, 5, 8) if quick else range(1, 9)
    sessions = []
    for name in names:
        steps = [Step(f"{name} model", setv("selectbox", "pit_model", name))]
        for k in (1, 8):
            steps.append(Step(f"{name} K = {k}", setv("number_input", "pit_block", k)))
            for length in lengths:
                steps.append(Step(f"{name} K = {k}, L = {length}", setv("number_input", "pit_length", length)))
        steps += [
            Step(f"{name}: reveal", click("pit_reveal")),
            Step(f"{name}: another mistake", setv("selectbox", "pit_variant", "keep-testing-after-rejection")),
            Step(f"{name}: a stop-token mistake", setv("selectbox", "pit_variant", "draft-past-stop")),
            # the one-step table is drawn only while its expander is open: open it (a rerun), then choose
            Step(f"{name}: open every variant, one step", open_expander("pit_every_step")),
            Step(f"{name}: one step of eight-words", setv("selectbox", "pit_step_scenario", "eight-words")),
        ]
        sessions.append(Session(PAGES["pitfalls"], {}, tuple(steps)))
    return sessions


def exercises_sessions(quick: bool) -> list[Session]:
    # seed, count and level are drawn only while the Teacher tab is open
    teacher = [
        Step("count 30", setv("number_input", "count", 30)),
        Step("level z0", setv("selectbox", "level", "z0")),
        Step("level disjoint", setv("selectbox", "level", "disjoint")),
        Step("seed max", setv("number_input", "seed", 999_999_999)),
    ]
    answers = [
        Step("type an answer", lambda at: at.text_input[0].set_value("3/4")),
        Step("check an answer with a huge exponent", _check_answer("1e-3000000")),
    ]
    sessions = [Session(PAGES["exercises"], {"tab": "Teacher"}, tuple(teacher))]
    sessions.append(Session(PAGES["exercises"], {}, tuple(answers)))
    # the page draws only its open tab (in the link): each tab opened at the largest assignment
    address = Step("a 3,000-character app address", setv("text_input", "exq_base_url", "http://" + "a" * 3000 + ".x/"))
    sessions.append(Session(PAGES["exercises"], {"tab": "Teacher", "count": "30"}, (address,)))
    sessions.append(Session(PAGES["exercises"], {"tab": "Predict the bars", "count": "30"}, ()))
    sessions.append(Session(PAGES["exercises"], {"tab": "Your results", "count": "30"}, ()))
    sessions.append(Session(PAGES["exercises"], {"count": "30", "seed": "999999999", "level": "zeros"}, ()))
    sessions.append(Session(PAGES["exercises"], {"count": "inf"}, ()))  # the link
    if not quick:
        grid = [Step(f"seed {s}", setv("number_input", "seed", s)) for s in (0, 1, 12345, 777_777_777)]
        sessions.append(Session(PAGES["exercises"], {"count": "30", "tab": "Teacher"}, tuple(grid)))
    return sessions


def _check_answer(text: str) -> Action:
    def act(at: AppTest) -> None:
        at.text_input[0].set_value(text)
        next(b for b in at.button if b.label == "Check").click()

    return act


def _press(label: str) -> Action:
    return lambda at: next(b for b in at.button if b.label == label).click()


def _type(label: str, text: str) -> Action:
    return lambda at: next(t for t in at.text_input if t.label == label).set_value(text)


def class_sessions(quick: bool) -> list[Session]:
    """The Class page: hostile links, a teacher starting a class and opening the largest assignment, a
    student joining with a wrong code and an over-long name (the class database is a throw-away file)."""
    teacher = [
        Step("type a 40-character class name", _type("Class name (optional)", "P" * 40)),
        Step("start a class", _press("Start a class")),
        Step("choose an Exercises assignment", setv("radio", "cls_kind", "Exercises assignment")),
        Step("count = max", setv("number_input", "cls_count", 30)),
        Step("seed = max", setv("number_input", "cls_seed", 999_999_999)),
        Step("level zeros", setv("selectbox", "cls_level", "zeros")),
        Step("open the assignment for the class", _press("Open for the class")),
        Step("next activity", _press("Next activity")),
    ]
    student = [
        Step("type a wrong code", _type("Class code", "QQQQQQ")),
        Step("type a 10,000-character name", _type("Your name", "n" * 10_000)),
        Step("join", _press("Join")),
    ]
    sessions = [Session(PAGES["class"], {}, tuple(teacher)), Session(PAGES["class"], {}, tuple(student))]
    for params in (
        {"code": "x" * 1_000_000},
        {"code": "ABCDEF", "teacher": "forged"},
        {"code": "ABCDEF", "student": "y" * 1_000_000},
        {"code": "<b>inf</b>", "teacher": "nan", "student": "1/0"},
    ):
        sessions.append(Session(PAGES["class"], params, ()))
    return sessions


def projector_sessions(quick: bool) -> list[Session]:
    """The projector view: links a person could craft (no class behind them, over-long, markup)."""
    return [
        Session(PAGES["projector"], params, ())
        for params in (
            {},
            {"code": "x" * 1_000_000, "display": "y" * 1_000_000},
            {"code": "ABCDEF", "display": "forged"},
            {"code": "<b>inf</b>", "display": "nan"},
        )
    ]


def lesson_sessions(quick: bool) -> list[Session]:
    """Every chapter opened by its link, its prediction typed at the box's limit and revealed, its interactive
    stepped, a 40-character answer checked; and the hostile chapter link."""
    long_number = "1234567890123456789/98765432109876543210"  # 40 characters, the box's limit
    sessions = [Session(PAGES["start-here"], {"chapter": "9" * 400}, ())]
    for number in range(1, 9) if not quick else (1, 6):
        steps = [Step("type a prediction", setv("text_input", f"ls_{number}_pred_0", long_number))]
        if number == 5:
            steps = [Step("set a bar", setv("slider", "ls_5_pred_0", 0.5))]
        steps += [
            Step("reveal", click(f"ls_{number}_reveal")),
            Step("answer", setv("text_input", f"ls_{number}_answer", long_number)),
            Step("check", click(f"ls_{number}_check")),
        ]
        if number in (1, 7):
            steps.append(Step("step", click(f"ls_{number}_step")))
        if number == 6:
            steps.append(Step("run again", click("ls_6_again")))
        sessions.append(Session(PAGES["start-here"], {"chapter": str(number)}, tuple(steps)))
    return sessions


def glossary_sessions(quick: bool) -> list[Session]:
    return [Session(PAGES["glossary"], {}, ())]


SWEEPS = {  # by url path: one for every page in lab/views/shell.py
    "start-here": lesson_sessions,
    "glossary": glossary_sessions,
    "explorer": explorer_sessions,
    "binomial-lab": binomial_sessions,
    "numerics": numerics_sessions,
    "sampling": sampling_sessions,
    "blocks": blocks_sessions,
    "several-drafts": several_drafts_sessions,
    "pitfalls": pitfalls_sessions,
    "exercises": exercises_sessions,
    "class": class_sessions,
    "projector": projector_sessions,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the extremes (well under a minute)")
    parser.add_argument("--budget", type=float, default=1.0, help="server CPU seconds allowed per rerun")
    parser.add_argument("--top", type=int, default=1, help="how many of the slowest interactions to list per page")
    parser.add_argument("--page", action="append", choices=list(SWEEPS), help="only these pages")
    args = parser.parse_args(argv)
    if set(SWEEPS) != set(PAGES):
        parser.error(f"pages without a sweep here: {sorted(set(PAGES) - set(SWEEPS))} (lab/views/shell.py lists them)")
    # the Class page writes to a database: a throw-away one, never the app's own data folder
    os.environ["RESIDUAL_LAB_DATA"] = tempfile.mkdtemp(prefix="residual-lab-bench-")
    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)

    warm = AppTest.from_file(APP, default_timeout=300)  # imports, plotly templates, first script compile
    warm.run()
    for page in PAGES.values():
        warm.switch_page(page).run()

    started = time.perf_counter()
    results: dict[str, list[Measure]] = {}
    for page, sweep in SWEEPS.items():
        if args.page and page not in args.page:
            continue
        for session in sweep(args.quick):
            for m in run_session(session):
                results.setdefault(page, []).append(m)
    elapsed = time.perf_counter() - started

    failed = False
    print(f"Slowest interaction per page, server CPU seconds (budget {args.budget:g} s; caches cleared before each)")
    print(f"{'page':<14} {'reruns':>6} {'worst':>8}  interaction")
    for url_path, measures in results.items():
        page = TITLES[url_path]
        worst = sorted(measures, key=lambda m: -m.cpu)[: args.top]
        for i, m in enumerate(worst):
            over = m.cpu > args.budget
            failed |= over
            head = f"{page:<14} {len(measures):>6}" if i == 0 else f"{'':<14} {'':>6}"
            print(f"{head} {m.cpu:>7.3f}s  {m.label}{'   OVER BUDGET' if over else ''}")
        for m in measures:
            if m.error:
                failed = True
                print(f"{'':<14} {'':>6} {'':>8}  ERROR at {m.label}: {m.error}")
    total = sum(len(m) for m in results.values())
    print(f"{total} measured reruns in {elapsed:.0f} s wall time{' (--quick)' if args.quick else ''}.")
    print("FAIL: over budget or an error above" if failed else f"OK: every interaction within {args.budget:g} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
