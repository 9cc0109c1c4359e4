"""A lecture hall at the protocol level: N simulated students, each in its own session, against the app and
against bench/minimal_app.py (one slider, one plotly chart: the floor), measured in the same run.

    python bench/bench_load.py --page binomial-lab --students 150 --duration 60
    python bench/bench_load.py --page exercises --students 150 --join-storm      # all open the page at once
    python bench/bench_load.py --page exercises --students 150 --join-storm --join-within 3  # ... within 3 s
    python bench/bench_load.py --page explorer --students 20 --idle 100          # + the same with 100 idle sessions
    python bench/bench_load.py --page binomial-lab --churn 500 --ttl 10           # memory: 500 sessions come and go
    python bench/bench_load.py --url http://127.0.0.1:8501 --pids 123,456 ...    # a running server / HAProxy
    python bench/bench_load.py --url ... --pids 123,456 --students 300 --kill-after 20  # fault drill: kill -9 pid 123

Each student (tests/loadclient.py) GETs the page, opens its WebSocket, runs the page once (its "join"
time: GET to the first run's ``script_finished``), then moves one numeric control by one step about every
5 s (a fragment rerun where the control is in a fragment) and times each change until the server says
the run finished. Reported per target: change latency p50 / p95 / max, changes, errors (runs that did not
finish, exception boxes), sessions that completed without error, server CPU per change (utime + stime of
the server process from /proc, over the interaction window, divided by the changes in it) and per join,
RSS, and the join times. Then the app / minimal ratios.

Without ``--url`` the bench starts both servers itself (127.0.0.1, free ports, the repository's
.streamlit/config.toml) and stops them at the end. ``--idle M`` first runs the students alone, then again
beside M idle sessions, and prints the CPU ratio (target: within 1.2x). Everything is bounded: at most
1000 sessions, at most 600 s of interaction, loopback addresses only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make the repository importable for tests.loadclient
    sys.path.insert(0, str(ROOT))

from tests.browserlib import start_streamlit, stop_process  # noqa: E402
from tests.loadclient import PAGES, Student, StudentError, is_loopback  # noqa: E402

MAX_SESSIONS = 1000
MAX_DURATION = 600
MAX_JOIN_WITHIN = 60
PERIOD = 5.0  # seconds between one student's changes (jittered +-20 %)
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- servers and /proc -----------------------------------------------------------------------------


def start_server(script: str, ttl: int | None = None) -> tuple[subprocess.Popen, str]:
    """``streamlit run script`` on a free loopback port from the repository root; (process, base url)."""
    extra = ("--server.disconnectedSessionTTL", str(ttl)) if ttl is not None else ()
    return start_streamlit(script, extra=extra, quiet=True)


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the processes (all their threads), in seconds."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a replica killed by --kill-after: its CPU time is gone with it
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5), counted after "pid (comm)"
    return total / CLK_TCK


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total / 1024


# --- one phase: students (and idle sessions) against one target -----------------------------------------


@dataclass
class PhaseResult:
    name: str
    students: int
    idle: int
    latencies: list[float] = field(default_factory=list)
    joins: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    completed: int = 0
    reconnects: int = 0
    cpu_per_change: float = float("nan")
    cpu_per_join: float = float("nan")
    rss_before: float = 0.0
    rss_after: float = 0.0
    survivors: list[float] = field(default_factory=list)  # change latencies of students that never reconnected
    recoveries: list[float] = field(default_factory=list)  # kill -> first finished run after reconnecting
    killed: str = ""
    kill_time: float = 0.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


async def open_sessions(
    url: str, page: str, prefixes, count: int, storm: bool, result: PhaseResult | None, within: float = 0.0
):
    """Open ``count`` sessions: a storm (all at once, or each at a random moment of the first ``within``
    seconds, timed from its own start) or evenly spread over ~5 s; returns the students that loaded."""
    students = [Student(url, page, widget_prefixes=prefixes, rng=random.Random(i)) for i in range(count)]
    arrivals = random.Random(count)  # fixed: the same arrival moments in every run

    async def join(i: int, student: Student):
        if not storm:
            await asyncio.sleep(i * PERIOD / max(count, 1))
        elif within:
            await asyncio.sleep(arrivals.uniform(0.0, within))
        try:
            run = await student.load()
        except (TimeoutError, StudentError, OSError) as exc:
            if result is not None:
                result.errors.append(f"join: {exc}")
            await student.close_quietly()
            return None
        if result is not None:
            result.joins.append(run.seconds)
            result.errors.extend(f"join: exception on the page: {e}" for e in run.exceptions)
        return student

    joined = await asyncio.gather(*(join(i, s) for i, s in enumerate(students)))
    return [s for s in joined if s is not None]


async def interact(student: Student, until: float, result: PhaseResult, mine: list | None = None) -> bool:
    """Change a control about every 5 s until ``until``; False if any change failed."""
    ok = True
    if not student.can_change():  # a page with nothing to move (exercises-link): only its join counts
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        return ok
    await asyncio.sleep(student.rng.uniform(0, PERIOD))
    while time.monotonic() < until:
        try:
            run = await student.change_widget()
        except (TimeoutError, StudentError, OSError) as exc:
            result.errors.append(f"change: {exc}")
            return False
        result.latencies.append(run.seconds)
        if mine is not None:
            mine.append(run.seconds)
        if run.exceptions:
            ok = False
            result.errors.extend(f"exception on the page: {e}" for e in run.exceptions)
        await asyncio.sleep(max(0.0, PERIOD * student.rng.uniform(0.8, 1.2) - run.seconds))
    return ok


async def kill_replica(pid: int, after: float, result: PhaseResult) -> None:
    """The fault drill: kill -9 one replica ``after`` seconds into the interaction."""
    await asyncio.sleep(after)
    os.kill(pid, signal.SIGKILL)
    result.killed, result.kill_time = str(pid), time.monotonic()


async def run_phase(
    name, url, pids, page_name, students, idle, duration, storm, kill_after=None, within=0.0
) -> PhaseResult:
    page, prefixes = PAGES[page_name]
    result = PhaseResult(name, students, idle)
    result.rss_before = rss_mb(pids) if pids else float("nan")
    idlers = await open_sessions(url, page, prefixes, idle, storm=False, result=None) if idle else []
    if len(idlers) < idle:
        result.errors.append(f"only {len(idlers)} of {idle} idle sessions opened")
    cpu0 = cpu_seconds(pids) if pids else 0.0
    active = await open_sessions(url, page, prefixes, students, storm=storm, result=result, within=within)
    cpu1 = cpu_seconds(pids) if pids else 0.0
    until = time.monotonic() + duration
    per_student = {id(s): [] for s in active}
    killer = asyncio.create_task(kill_replica(pids[0], kill_after, result)) if kill_after is not None else None
    oks = await asyncio.gather(*(interact(s, until, result, per_student[id(s)]) for s in active))
    if killer is not None:
        await killer
    cpu2 = cpu_seconds(pids) if pids else 0.0
    result.completed = sum(oks)
    result.reconnects = sum(s.reconnects for s in active)
    result.survivors = [t for s in active if not s.reconnects for t in per_student[id(s)]]
    if result.killed:
        result.recoveries = [s.reconnected_at - result.kill_time for s in active if s.reconnects]
    if pids:
        result.cpu_per_join = (cpu1 - cpu0) / max(len(result.joins), 1)
        changes = len(result.latencies)
        result.cpu_per_change = (cpu2 - cpu1) / changes if changes else float("nan")  # nan: a page with no changes
        result.rss_after = rss_mb(pids)
    await asyncio.gather(*(s.close_quietly() for s in active + idlers))
    return result


async def churn(url, pids, page_name, total, ttl, wave=50) -> list[tuple[int, float]]:
    """``total`` sessions come and go in waves (open, one change, close); RSS after the first wave and after
    all of them, each measured once the server's disconnected-session TTL has passed."""
    page, prefixes = PAGES[page_name]
    points = []
    done = 0
    while done < total:
        students = await open_sessions(url, page, prefixes, min(wave, total - done), storm=False, result=None)
        for student in students:
            try:
                await student.change_widget()
            except (StudentError, OSError):
                pass
        await asyncio.gather(*(s.close_quietly() for s in students))
        done += min(wave, total - done)
        if done == min(wave, total) or done == total:
            await asyncio.sleep(ttl + 5)
            urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10).read()  # lets the session store expire
            points.append((done, rss_mb(pids)))
            print(f"  after {done} sessions came and went (+{ttl + 5} s): RSS {points[-1][1]:.0f} MB", flush=True)
    return points


# --- report ---------------------------------------------------------------------------------------------


def ms(x: float) -> str:
    return "—" if x != x else f"{x * 1000:.0f} ms"


def report(r: PhaseResult) -> None:
    lat, joins = r.latencies, r.joins
    nan = float("nan")
    print(
        f"{r.name:28} students {r.students:4} idle {r.idle:4} | changes {len(lat):5}"
        f"  p50 {ms(statistics.median(lat) if lat else nan):>8}  p95 {ms(percentile(lat, 0.95)):>8}"
        f"  max {ms(max(lat) if lat else nan):>8} | CPU/change {ms(r.cpu_per_change):>7}"
        f" | join p50 {ms(statistics.median(joins) if joins else nan):>8} p95 {ms(percentile(joins, 0.95)):>8}"
        f" max {ms(max(joins) if joins else nan):>8} CPU/join {ms(r.cpu_per_join):>7}"
        f" | errors {len(r.errors)}  completed {r.completed}/{r.students}  reconnects {r.reconnects}"
        f" | RSS {r.rss_before:.0f} -> {r.rss_after:.0f} MB",
        flush=True,
    )
    if r.killed:
        rec = r.recoveries
        print(
            f"    fault: replica pid {r.killed} killed with -9; {r.reconnects} reconnects by {len(rec)} students,"
            f" back on a live replica after p50 {ms(statistics.median(rec) if rec else nan)}"
            f" p95 {ms(percentile(rec, 0.95))} max {ms(max(rec) if rec else nan)} (target <= 10 s);"
            f" the other students' change p95 {ms(percentile(r.survivors, 0.95))} (target <= 1 s)",
            flush=True,
        )
    for message in sorted(set(r.errors))[:5]:
        print(f"    error: {message} (x{r.errors.count(message)})")


def ratio(a: float, b: float) -> str:
    return "—" if not (a == a and b == b and b > 0) else f"{a / b:.2f}x"


async def main_async(args) -> int:
    procs: list[subprocess.Popen] = []
    targets = []  # (label, url, pids, page)
    try:
        if args.url:
            if not is_loopback(args.url):
                raise SystemExit("bench_load: --url must be a loopback address")
            pids = [int(p) for p in args.pids.split(",")] if args.pids else []
            targets.append((args.page, args.url.rstrip("/"), pids, args.page))
        else:
            if not args.no_minimal:
                proc, url = start_server("bench/minimal_app.py", args.ttl)
                procs.append(proc)
                targets.append(("minimal app", url, [proc.pid], "minimal"))
            proc, url = start_server("server.py", args.ttl)
            procs.append(proc)
            targets.append((args.page, url, [proc.pid], args.page))
        for _label, url, _pids, page in targets:  # warm-up: imports, caches, first run
            warm = await open_sessions(url, PAGES[page][0], PAGES[page][1], 2, storm=True, result=None)
            await asyncio.gather(*(s.close_quietly() for s in warm))

        if args.churn:
            label, url, pids, page = targets[-1]
            print(f"{label}: {args.churn} sessions in waves of 50 (disconnected-session TTL {args.ttl} s)")
            points = await churn(url, pids, page, args.churn, args.ttl)
            growth = points[-1][1] - points[0][1]
            print(f"RSS growth from {points[0][0]} to {points[-1][0]} sessions: {growth:+.0f} MB (target <= 50 MB)")
            return 0

        if args.warm:  # unmeasured: the same students first, so what a server computes once per choice is computed
            for label, url, pids, page in targets:
                await run_phase(label, url, pids, page, args.students, 0, args.warm, False)
            print(f"(each server ran the same students for {args.warm:g} s first, unmeasured)")
        results: dict[tuple[str, int], PhaseResult] = {}
        for idle in [0, args.idle] if args.idle else [0]:
            for label, url, pids, page in targets:
                r = await run_phase(
                    label, url, pids, page, args.students, idle, args.duration, args.join_storm, args.kill_after,
                    args.join_within,
                )
                report(r)
                results[(label, idle)] = r
        app = args.page
        if len(targets) > 1 or args.idle:
            print("\nRatios (measured side by side in this run; a loaded machine makes absolute figures noisy):")
        for idle in [0, args.idle] if args.idle else [0]:
            if ("minimal app", idle) in results:
                a, m = results[(app, idle)], results[("minimal app", idle)]
                print(
                    f"  idle {idle}: CPU per change {app} / minimal = {ratio(a.cpu_per_change, m.cpu_per_change)}"
                    f" (target <= 1.5x); CPU per join {ratio(a.cpu_per_join, m.cpu_per_join)};"
                    f" join p95 {ratio(percentile(a.joins, 0.95), percentile(m.joins, 0.95))}"
                    + (" (join storm target <= 2x)" if args.join_storm else "")
                    + f"; load average {os.getloadavg()[0]:.1f}"
                )
        if args.idle:
            for label, *_ in targets:
                with_idle, alone = results[(label, args.idle)], results[(label, 0)]
                print(
                    f"  {label}: CPU per change with {args.idle} idle sessions / with none = "
                    f"{ratio(with_idle.cpu_per_change, alone.cpu_per_change)} (target <= 1.2x)"
                )
        failed = any(r.errors for r in results.values())
        return 1 if failed else 0
    finally:
        for proc in procs:
            stop_process(proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--page", choices=list(PAGES), default="binomial-lab", help="minimal: only with --url (deploy/serve --app ...)"
    )
    parser.add_argument("--students", type=int, default=50, help="active students (default 50)")
    parser.add_argument("--idle", type=int, default=0, help="also run beside M idle sessions and compare")
    parser.add_argument("--duration", type=float, default=60, help="seconds of interaction per phase (default 60)")
    parser.add_argument("--join-storm", action="store_true", help="all students open the page at the same moment")
    parser.add_argument(
        "--warm",
        type=float,
        default=0.0,
        metavar="S",
        help="first run the same students S seconds on each server, unmeasured: the exact laws a page computes once "
        "per choice and process (Blocks, Pitfalls) are then computed, as on a server a class has used for a while",
    )
    parser.add_argument(
        "--join-within",
        type=float,
        default=0.0,
        metavar="S",
        help="with --join-storm: each student opens the page at a random moment of the first S seconds (a class "
        "told to open the link; default 0: all at the same moment)",
    )
    parser.add_argument("--url", help="a running server or HAProxy (loopback); default: start the app and the floor")
    parser.add_argument("--pids", help="with --url: comma-separated server process ids for CPU and RSS")
    parser.add_argument("--no-minimal", action="store_true", help="do not measure bench/minimal_app.py")
    parser.add_argument("--churn", type=int, default=0, help="memory check: this many sessions come and go")
    parser.add_argument("--ttl", type=int, default=120, help="server.disconnectedSessionTTL for servers started here")
    parser.add_argument(
        "--kill-after", type=float, help="with --url and 2+ --pids: kill -9 the first pid this many seconds in"
    )
    args = parser.parse_args(argv)
    if args.page == "minimal" and not args.url:
        parser.error("--page minimal needs --url: a server of bench/minimal_app.py (the floor is measured anyway)")
    if args.kill_after is not None and not (args.url and args.pids and len(args.pids.split(",")) >= 2):
        parser.error("--kill-after needs --url and at least two --pids (a replica to kill and one to survive)")
    if not 0 < args.students + args.idle <= MAX_SESSIONS or args.churn > MAX_SESSIONS * 5:
        parser.error(f"at most {MAX_SESSIONS} sessions at a time")
    if args.join_within and not (args.join_storm and 0 < args.join_within <= MAX_JOIN_WITHIN):
        parser.error(f"--join-within needs --join-storm and at most {MAX_JOIN_WITHIN} s")
    if not 0 < args.duration <= MAX_DURATION:
        parser.error(f"--duration must be in (0, {MAX_DURATION}]")
    if not 0 <= args.warm <= MAX_DURATION:
        parser.error(f"--warm must be in [0, {MAX_DURATION}]")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
