"""Live class at scale: 300 students submitting, and the cost of following the teacher.

Two parts, each printed side by side for SQLite and PostgreSQL:

1. ``storage``: measured at the storage layer (lab.classroom's admission, answers and dashboards: the same calls
   the Class page makes), with one thread per student sharing one engine (as the Streamlit process shares its
   st.connection engine).
   300 students join, then each submits once at a random moment within ``--window`` seconds (default 10 s, a
   harder load than the issue's 30 s). Reports submit latency p50/p95/max (time until the commit returned,
   i.e. until the page may say Saved), that every submission is stored exactly once (rows = distinct students
   = 300), and that the dashboard (ONE query) shows 300 and how long it took after the last submit.

2. ``follow``: page level. Starts ``streamlit run server.py`` (what ./run serves), then ``streamlit run app.py``,
   on a free port and opens ``--students`` WebSocket sessions (a minimal Streamlit protocol client, streamlit.proto)
   on student pages of one class. Each follows the teacher as a browser does: with server.py, the page's follow
   component asks ``GET /_class_version`` over a kept-alive connection, saying which version it drew (the server
   holds the answer until the version moves, at most 2 s), and reruns the page when it moved; with app.py alone, it
   reruns the page's timed follow fragment whenever the server asks (``@st.fragment(run_every=...)``). Reports the
   server process's CPU use (cores) while they wait, against the same server with no sessions, and how long until
   every page shows the teacher's reveal. Then one projector view (lab/views/live_class/projector.py: the follow route
   with the
   display key, and its counts fragment every 2 s) joins the 300 waiting pages: the server's CPU is measured again
   over the same time, and the projector's own cost is the difference (target: the whole, 300 pages and the
   projector, at most 0.2 of a core).

3. ``page submit``: the same client, 300 tabs loaded and following; each types its two predictions and
   presses Submit at a random moment within ``--window`` s (one rerun carrying the widget states, as the
   browser sends it). Reports the time until the page shows "Saved", rows stored, and the submissions for
   which the server never ran the page again ("lost, no full run after sending"). Earlier runs lost 8-40 % of
   them at 300 tabs: the bench, not the page. The server's log went to a pipe read only at the end; Streamlit
   logs a line for each timed fragment rerun that arrives during a full run, the 64 KiB pipe filled, and the
   server's event loop blocked on its next log line (its main thread waited in anon_pipe_write), so every
   session stopped getting answers. browserlib.start_streamlit now writes the log to a file.

4. ``dashboard``: one teacher's dashboard of a 500-student class (``--dashboard-students``), its 2-second
   refresh (a rerun of the dashboard's fragment) repeated ``--refreshes`` times: the server's CPU per
   refresh and the elements sent, with the student list closed (the default: drawn only while open) and
   open (a page of 50), beside an empty class.

5. ``student read`` (``--student-read``, only this part): what every page of a class reads at the same moment when the
   teacher opens an activity or a new round, one student's state, its CPU per read and the SELECT statements it sends,
   beside the smallest query through the same engine (``SELECT 1``), timed alternately, for SQLite and PostgreSQL.

6. ``hall`` (``--hall 150,300``, only this part; ``--hall-replicas 2`` through deploy/serve): N students who all
   voted, each page following the teacher, and the projector; the teacher opens an activity, shows the responses,
   votes again and reveals, ``--hall-rounds`` times (default 3). Per action: the last page, the median page, the
   projector, the server CPU a page and the elements a redraw sent, beside the floor (as many sessions of
   bench/minimal_app.py rerun at once, served the same way, a second before each action: the floor is the median
   of those bursts, spread through the run), as medians over the rounds. Against a deployment
   already running: ``--hall 600 --hall-url http://127.0.0.1:PORT --hall-pids PID0,PID1 --hall-database URL``
   (a loopback URL; the server processes' host pids, for their CPU; the database the deployment uses, where the
   bench makes its classes, students and votes); the floor is then served by deploy/serve with as many
   replicas as pids, on this machine, in the same run. bench/hall_containers.py does this for the container
   deployment (deploy/podman/residual-lab.yaml) in one command.

Usage: ``python bench/bench_classroom.py [--students 300] [--window 10] [--postgres URL] [--skip-follow]``
(PostgreSQL URL default: $RESIDUAL_LAB_TEST_POSTGRES_URL, e.g. from ``eval "$(.ci/postgres start)"``).
Figures vary with machine load: compare the columns of one run, not runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository root (lab/, and the test helpers as a package)

from sqlalchemy import text  # noqa: E402

from lab.classroom import admission, answers, classes, dashboards, versions  # noqa: E402
from lab.classroom.db import make_engine, metadata  # noqa: E402
from lab.classroom.limits import MAX_STUDENTS  # noqa: E402
from tests.loadclient import TRIGGER_ID, hall_page, http_checks, is_loopback  # noqa: E402


def submit_times(seconds: list[float]) -> dict:
    """p50, p95 and max of the submit latencies, as table cells ('-' when there are none)."""
    if not seconds:
        return {"submit p50 (s)": "-", "submit p95 (s)": "-", "submit max (s)": "-"}
    return {
        "submit p50 (s)": f"{statistics.median(seconds):.3f}",
        "submit p95 (s)": f"{percentile(seconds, 0.95):.3f}",
        "submit max (s)": f"{max(seconds):.3f}",
    }


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_class(url: str):
    """(an engine on ``url``, emptied first when it is PostgreSQL; a class with the worked example open in it)."""
    engine = make_engine(url)
    if engine.dialect.name == "postgresql":  # start from an empty database
        metadata.drop_all(engine)
        engine.dispose()
        engine = make_engine(url)
    new = classes.create_class(engine, "bench")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    return engine, new


def storage_bench(url: str, students: int, window: float) -> dict:
    engine, new = bench_class(url)
    t0 = time.perf_counter()
    tokens = [
        admission.join_class(engine, new.code, f"Student {i}", client=f"c{i}").student_token for i in range(students)
    ]
    join_s = time.perf_counter() - t0
    activity = answers.student_state(engine, new.code, tokens[0]).activity.id
    rng = random.Random(7)
    delays = [rng.uniform(0, window) for _ in tokens]
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    start = time.perf_counter() + 0.5

    def student(token, delay, i):
        time.sleep(max(0.0, start + delay - time.perf_counter()))
        b = (i % 21) / 20
        began = time.perf_counter()
        try:
            answers.submit_prediction(engine, new.code, token, activity, [f"{b:.2f}", f"{1 - b:.2f}"])
        except Exception as exc:  # noqa: BLE001 - counted and reported
            with lock:
                failures.append(repr(exc))
            return
        took = time.perf_counter() - began
        with lock:
            latencies.append(took)

    threads = [threading.Thread(target=student, args=(t, d, i)) for i, (t, d) in enumerate(zip(tokens, delays))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    last_done = time.perf_counter()
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    shown_after = time.perf_counter() - last_done
    with engine.connect() as conn:
        rows, distinct = conn.execute(
            text("SELECT COUNT(*), COUNT(DISTINCT student_id) FROM submissions WHERE activity_id = :a"), {"a": activity}
        ).one()
    engine.dispose()
    return {
        "database": engine.dialect.name,
        "joins (s total)": f"{join_s:.2f}",
        "submitted ok": len(latencies),
        "failed": len(failures),
        "rows stored": rows,
        "distinct students": distinct,
        "dashboard shows": f"{board.submitted} of {board.joined}",
        "dashboard after last (s)": f"{shown_after:.3f}",
        **submit_times(latencies),
        "first failure": failures[0][:80] if failures else "",
    }



def student_read_bench(url: str, reads: int = 2000) -> dict:
    """What every page of a class reads at the same moment when the teacher opens an activity or a new round: one
    student's state (round 2, with a prediction in each round), its CPU per read in this process and the SELECT
    statements it sends, beside the floor, the smallest query through the same engine (``SELECT 1``), timed
    alternately in the same run."""
    from sqlalchemy import event

    engine, new = bench_class(url)
    token = admission.join_class(engine, new.code, "Student", client="c").student_token
    activity = answers.student_state(engine, new.code, token).activity.id
    answers.submit_prediction(engine, new.code, token, activity, ["0.40", "0.60"], 1)
    classes.vote_again(engine, new.code, new.teacher_token)
    answers.submit_prediction(engine, new.code, token, activity, ["0.45", "0.55"], 2)

    def read():
        answers.student_state(engine, new.code, token)

    def floor():
        with engine.connect() as conn:
            conn.execute(text("SELECT 1")).scalar()

    statements = []

    def seen(*args):
        statements.append(args[2])

    event.listen(engine, "before_cursor_execute", seen)
    read()
    event.remove(engine, "before_cursor_execute", seen)
    selects = sum(s.lstrip().upper().startswith("SELECT") for s in statements)
    spent = {read: 0.0, floor: 0.0}
    for _ in range(10):  # alternately, so both see the same machine
        for call in (read, floor):
            t0 = time.process_time()
            for _ in range(reads // 10):
                call()
            spent[call] += time.process_time() - t0
    engine.dispose()
    per_read, per_floor = (1e6 * spent[c] / reads for c in (read, floor))
    return {
        "database": engine.dialect.name,
        "SELECTs per read": selects,
        "CPU per read (us)": f"{per_read:.0f}",
        "floor: SELECT 1 (us)": f"{per_floor:.0f}",
        "read vs floor": f"{per_read / per_floor:.2f}x",
    }

# --- page level: the cost of following the teacher ----------------------------------------------------


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


async def student_session(
    base_ws: str, query: str, stop: asyncio.Event, counters: dict, page_name="class", submit=None, saved=None
):
    """One browser tab, reduced to its protocol: load the page, then rerun the fragment the server asks to
    rerun every interval (ForwardMsg.auto_rerun), until ``stop``. With ``submit = (offset, (b, c), go)``:
    ``offset`` s after ``go["start"]`` (a monotonic time, set by the caller once every page loaded), type b and
    c into the two prediction boxes and press Submit, as the browser sends it (the bar predictor's trigger: one
    rerun of the part that holds it); the time until the page shows "Saved at" is appended to ``saved``."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async with websockets.connect(f"{base_ws}/_stcore/stream", max_size=None, ping_interval=None) as ws:
        first = BackMsg()
        first.rerun_script.query_string = query
        first.rerun_script.page_name = page_name
        await ws.send(first.SerializeToString())
        timers: dict[str, asyncio.Task] = {}
        page = {"hash": ""}  # the current page's script hash, as a browser sends it back
        ids: dict[str, tuple[str, str]] = {}  # "bars" -> the bar predictor's (id, fragment id)
        sent = {"at": None, "done": False, "fragment_pending": False}

        async def press_submit():
            offset, _values, go = submit
            while go.get("start") is None:
                await asyncio.sleep(0.05)
            await asyncio.sleep(max(0.0, go["start"] + offset - time.monotonic()))
            while not ("bars" in ids and sent.get("loaded")):
                await asyncio.sleep(0.05)
            component_id, fragment_id = ids["bars"]
            msg = BackMsg()
            msg.rerun_script.query_string = query
            msg.rerun_script.page_name = page_name
            msg.rerun_script.page_script_hash = page["hash"]
            msg.rerun_script.fragment_id = fragment_id
            trigger = msg.rerun_script.widget_states.widgets.add()
            trigger.id = TRIGGER_ID.format(component_id)
            trigger.json_trigger_value = json.dumps([{"event": "submit", "value": [f"{v:.2f}" for v in submit[1]]}])
            if sent["fragment_pending"]:  # the race a click must survive: a timed fragment rerun still unanswered
                counters["sent during a fragment rerun"] = counters.get("sent during a fragment rerun", 0) + 1
            sent["at"] = time.monotonic()
            counters["sent"] = counters.get("sent", 0) + 1
            await ws.send(msg.SerializeToString())

        submitter = asyncio.create_task(press_submit()) if submit else None
        base_http = base_ws.replace("ws://", "http://", 1)
        checker = {"task": None}

        async def full_rerun(whole=False):  # what the follow component's trigger makes the browser send (its
            msg = BackMsg()  # fragment's rerun; the whole page's when the route's layout moved)
            msg.rerun_script.query_string = query
            msg.rerun_script.page_name = page_name
            msg.rerun_script.page_script_hash = page["hash"]
            msg.rerun_script.fragment_id = "" if whole else page.get("follower_fragment", "")
            await ws.send(msg.SerializeToString())

        async def auto(fragment_id: str, interval: float):
            while not stop.is_set():
                await asyncio.sleep(interval)
                msg = BackMsg()
                msg.rerun_script.query_string = query
                msg.rerun_script.page_name = page_name
                msg.rerun_script.page_script_hash = page["hash"]
                msg.rerun_script.fragment_id = fragment_id
                msg.rerun_script.is_auto_rerun = True
                sent["fragment_pending"] = True
                await ws.send(msg.SerializeToString())
                counters["fragment_runs"] += 1

        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except TimeoutError:
                continue
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "navigation":  # the page that ran (st.navigation): a browser sends its hash back
                page["hash"] = msg.navigation.page_script_hash
            elif kind == "new_session" and not msg.metadata.run.fragment_ids:
                # a full run starts: the browser clears its fragment timers and sets them again from this run's
                # auto_rerun messages (a fragment's id changes when the elements above it change: after Submit)
                for task in timers.values():
                    task.cancel()
                timers.clear()
            elif kind == "auto_rerun" and msg.auto_rerun.fragment_id not in timers:
                timers[msg.auto_rerun.fragment_id] = asyncio.create_task(
                    auto(msg.auto_rerun.fragment_id, msg.auto_rerun.interval)
                )
            elif kind == "script_finished":
                sent["fragment_pending"] = False  # answered, or dropped by the full run that finished
                counters["finished"] += 1
                sent["loaded"] = True
                if sent["at"] and msg.script_finished == 0:
                    sent["full_after"] = sent.get("full_after", 0) + 1
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "bidi_component" and element.bidi_component.component_name.endswith("class_follower"):
                    follow_data = json.loads(element.bidi_component.json)
                    page["follower_fragment"] = msg.delta.fragment_id
                    if checker["task"] is not None:
                        checker["task"].cancel()
                    checker["task"] = asyncio.create_task(
                        http_checks(
                            base_http,
                            follow_data["path"],
                            follow_data["every_ms"],
                            follow_data["version"],
                            counters,
                            stop,
                            full_rerun,
                            follow_data.get("layout"),
                        )
                    )
                if etype == "bidi_component" and element.bidi_component.component_name.endswith("bar_predictor"):
                    ids["bars"] = (element.bidi_component.id, msg.delta.fragment_id)
                if etype == "alert":
                    alerts = counters.setdefault("alerts", {})
                    alerts[element.alert.body[:40]] = alerts.get(element.alert.body[:40], 0) + 1
                if etype == "alert" and "Saved at" in element.alert.body and sent["at"] and not sent["done"]:
                    sent["done"] = True
                    saved.append(time.monotonic() - sent["at"])
                if element.WhichOneof("type") == "markdown" and "revealed by your teacher" in element.markdown.body:
                    counters["saw_reveal"] += 1
                elif element.WhichOneof("type") in ("exception", "alert") and "error" in str(element).lower():
                    counters["errors"] += 1
                    counters.setdefault("first_error", str(element)[:300])
                if etype == "markdown" and "Within 0.05 of the exact answer" in element.markdown.body:
                    counters["projector_saw_reveal"] = counters.get("projector_saw_reveal", 0) + 1  # the projector
        if submit and not sent["done"]:
            key = "lost after a full run" if sent.get("full_after") else "lost, no full run after sending"
            counters[key] = counters.get(key, 0) + 1
        for task in [*timers.values(), submitter, checker["task"]]:
            if task is not None:
                task.cancel()


def page_submit_bench(db_url: str | None, students: int, window: float) -> dict:
    """``students`` pages submit once each at random moments within ``window`` s, through the server."""
    from tests.browserlib import server_log, start_streamlit, stop_process

    data = tempfile.mkdtemp(prefix="classbench-")
    os.environ["RESIDUAL_LAB_DATA"] = data
    url_db = db_url or f"sqlite:///{data}/classroom.db"
    if db_url:
        os.environ["RESIDUAL_LAB_DATABASE_URL"] = db_url
        engine = make_engine(db_url)
        metadata.drop_all(engine)
        engine.dispose()
    else:
        os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    engine = make_engine(url_db)
    proc, url = start_streamlit("server.py", cwd=ROOT)
    try:
        new = classes.create_class(engine, "submit")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        tokens = [
            admission.join_class(engine, new.code, f"S{i}", client=f"c{i}").student_token for i in range(students)
        ]
        activity = answers.student_state(engine, new.code, tokens[0]).activity.id
        base_ws = url.replace("http://", "ws://")
        rng = random.Random(11)
        counters = {"fragment_runs": 0, "finished": 0, "saw_reveal": 0, "errors": 0}
        saved: list[float] = []

        async def run():
            stop = asyncio.Event()
            go: dict = {}
            tasks = [  # one tab per student: it loads, follows the teacher, and submits once
                asyncio.create_task(
                    student_session(
                        base_ws,
                        f"code={new.code}&student={t}",
                        stop,
                        counters,
                        submit=(rng.uniform(0, window), (round(rng.uniform(0, 1), 2), 0.25), go),
                        saved=saved,
                    )
                )
                for t in tokens
            ]
            deadline = time.monotonic() + 120
            while counters["finished"] < students and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            start = go["start"] = time.monotonic() + 1
            cpu0, own0 = cpu_seconds(proc.pid), time.process_time()
            while len(saved) < students and time.monotonic() < start + window + 60:
                await asyncio.sleep(0.1)
            last = time.monotonic()
            board = dashboards.dashboard(engine, new.code, new.teacher_token)
            shown_after = time.monotonic() - last
            cores = (cpu_seconds(proc.pid) - cpu0) / (last - start + 1)
            own = (time.process_time() - own0) / (last - start + 1)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            return board, shown_after, cores, own

        board, shown_after, cores, own = asyncio.run(run())
        with engine.connect() as conn:
            rows, distinct = conn.execute(
                text("SELECT COUNT(*), COUNT(DISTINCT student_id) FROM submissions WHERE activity_id = :a"),
                {"a": activity},
            ).one()
        return {
            "database": engine.dialect.name,
            "pages saw Saved": len(saved),
            "rows stored": rows,
            "distinct students": distinct,
            "dashboard shows": f"{board.submitted} of {board.joined}",
            "dashboard query after last (s)": f"{shown_after:.3f}",
            **submit_times(saved),
            "server cores meanwhile": f"{cores:.2f}",
            "bench client cores meanwhile": f"{own:.2f}",  # near 1: the one-process client itself is the bottleneck
            "errors drawn on pages": counters["errors"],
            "sent": counters.get("sent", 0),
            "sent during a fragment rerun": counters.get("sent during a fragment rerun", 0),
            "lost after a full run": counters.get("lost after a full run", 0),
            "lost, no full run after sending": counters.get("lost, no full run after sending", 0),
            "alerts": str({k: v for k, v in counters.get("alerts", {}).items() if "Saved at" not in k})[:300],
        }
    finally:
        stop_process(proc)
        lines = [line for line in server_log(proc).splitlines() if line.strip()]
        log = [line for line in lines if "does not exist anymore" not in line]
        # a fragment's timed rerun that arrives while a full run redraws the page is dropped with a log line: harmless
        print(f"server log: {len(lines) - len(log)} timed fragment reruns dropped during a full run")
        if log:
            print(f"server log ({len(log)} lines), last lines:", *log[-8:], sep="\n  ")
        engine.dispose()
        os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)


PROJECTOR_TARGET_CORES = 0.2  # 300 waiting student pages and one projector view, together


def follow_bench(students: int, seconds: float, script: str = "server.py") -> dict:
    """``server.py`` (what ./run serves): pages check the version over HTTP; ``app.py``: the timed fragment."""
    from tests.browserlib import start_streamlit, stop_process

    data = tempfile.mkdtemp(prefix="classbench-")
    os.environ["RESIDUAL_LAB_DATA"] = data
    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    proc, url = start_streamlit(script, cwd=ROOT)
    try:
        engine = make_engine(f"sqlite:///{data}/classroom.db")
        new = classes.create_class(engine, "follow")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        tokens = [
            admission.join_class(engine, new.code, f"S{i}", client=f"c{i}").student_token for i in range(students)
        ]
        activity = answers.student_state(engine, new.code, tokens[0]).activity.id
        for i, token in enumerate(tokens):  # every student has voted: the projector's chart has a dot for each
            b = (i % 21) / 20
            answers.submit_prediction(engine, new.code, token, activity, [f"{b:.2f}", f"{1 - b:.2f}"])
        base_ws = url.replace("http://", "ws://")

        def measure(n: int) -> dict:
            counters = {"fragment_runs": 0, "finished": 0, "saw_reveal": 0, "errors": 0}

            async def run():
                stop = asyncio.Event()
                tasks = [
                    asyncio.create_task(student_session(base_ws, f"code={new.code}&student={t}", stop, counters))
                    for t in tokens[:n]
                ]
                # wait until every page loaded once, then measure while they follow
                deadline = time.monotonic() + 120
                while counters["finished"] < n and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                loaded = counters["finished"]
                # the responses shown (the projector's chart is drawn): every student page reruns once for it; the
                # baseline is measured after they all did, so neither figure holds those reruns
                classes.show_responses(engine, new.code, new.teacher_token)
                deadline = time.monotonic() + 60
                while counters["finished"] < loaded + n and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                await asyncio.sleep(3)

                def checks():  # a timed fragment rerun, or one HTTP request for the version
                    return counters["fragment_runs"] + counters.get("http_checks", 0)

                runs0, cpu0, t0 = checks(), cpu_seconds(proc.pid), time.monotonic()
                await asyncio.sleep(seconds)
                cpu1, t1, runs1 = cpu_seconds(proc.pid), time.monotonic(), checks()
                # the projector joins the waiting class, its results shown (a chart redrawn with the counts): the
                # same measurement again
                projector_counters = {"fragment_runs": 0, "finished": 0, "saw_reveal": 0, "errors": 0}
                display = versions.stored_class_version(engine, new.code).display_key
                tasks.append(
                    asyncio.create_task(
                        student_session(
                            base_ws, f"code={new.code}&display={display}", stop, projector_counters, "projector"
                        )
                    )
                )
                while projector_counters["finished"] < 1 and time.monotonic() - t1 < 30:
                    await asyncio.sleep(0.1)
                await asyncio.sleep(5)
                cpu2, t2 = cpu_seconds(proc.pid), time.monotonic()
                p_runs0 = projector_counters["fragment_runs"] + projector_counters.get("http_checks", 0)
                await asyncio.sleep(seconds)
                cpu3, t3 = cpu_seconds(proc.pid), time.monotonic()
                p_runs = projector_counters["fragment_runs"] + projector_counters.get("http_checks", 0) - p_runs0
                projector = ((cpu3 - cpu2) / (t3 - t2), p_runs / (t3 - t2))
                # the teacher reveals: how long until every page has drawn it?
                reveal_at, reveal_cpu0 = time.monotonic(), cpu_seconds(proc.pid)
                own_cpu0 = time.process_time()
                classes.reveal(engine, new.code, new.teacher_token)
                while (
                    counters["saw_reveal"] < n or not projector_counters.get("projector_saw_reveal")
                ) and time.monotonic() - reveal_at < 60:
                    await asyncio.sleep(0.1)
                reveal_s = time.monotonic() - reveal_at
                # whose CPU the reveal took: the server's reruns of every page, or this one-process client's parsing
                reveal_cpu = (cpu_seconds(proc.pid) - reveal_cpu0, time.process_time() - own_cpu0)
                saw = counters["saw_reveal"]
                projector += (projector_counters.get("projector_saw_reveal", 0) > 0, projector_counters["errors"])
                classes.unlock(engine, new.code, new.teacher_token)
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
                return (
                    loaded,
                    (cpu1 - cpu0) / (t1 - t0),
                    (runs1 - runs0) / (t1 - t0),
                    (reveal_s, *reveal_cpu),
                    saw,
                    projector,
                )

            loaded, cores, rate, (reveal_s, reveal_server_cpu, reveal_client_cpu), saw, projector = asyncio.run(run())
            with_projector, projector_checks, projector_revealed, projector_errors = projector
            return {
                "served": script,
                "sessions": n,
                "loaded": loaded,
                "server cores": f"{cores:.3f}",
                "checks/s": f"{rate:.0f}" + (" (HTTP)" if counters.get("http_checks") else " (fragment)"),
                "ms CPU per check": f"{1000 * cores / rate:.2f}" if rate else "-",
                "pages showing the reveal": f"{saw} after {reveal_s:.1f} s",
                "reveal: server CPU, client CPU (s)": f"{reveal_server_cpu:.1f}, {reveal_client_cpu:.1f}",
                "reveal: server ms per page": f"{1000 * reveal_server_cpu / max(saw, 1):.0f}",
                "server cores, + projector": f"{with_projector:.3f}",
                "projector's own (cores)": f"{with_projector - cores:.3f}",
                # the target: the whole (n pages and the projector) within 0.2 of a core, measured in this run
                "pages + projector, share of a core": f"{with_projector:.1%} of 1 core "
                + ("(within 0.2)" if with_projector <= PROJECTOR_TARGET_CORES else "(ABOVE 0.2)"),
                "projector / one waiting page": f"{(with_projector - cores) / (cores / n):.1f}x" if cores > 0 else "-",
                "projector checks+runs/s": f"{projector_checks:.1f}",
                "projector shows reveal": "yes" if projector_revealed else "no",
                "projector errors": projector_errors,
                "errors drawn on pages": counters["errors"],
                "first error": counters.get("first_error", "")[:120].replace("\n", " "),
            }

        idle_cpu0, idle_t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(min(5.0, seconds))
        idle = (cpu_seconds(proc.pid) - idle_cpu0) / (time.monotonic() - idle_t0)
        result = measure(students)
        result["server cores, no sessions"] = f"{idle:.3f}"
        return result
    finally:
        stop_process(proc)


def dashboard_bench(students: int, refreshes: int) -> list[dict]:
    """One teacher's dashboard of a class of ``students`` (4 in 5 submitted), refreshed as the browser does
    every 2 s (a rerun of its fragment), ``refreshes`` times one after another: the server process's CPU per
    refresh and the elements it sends, with the student list closed (the default), open (a page of 50), and
    for an empty class. Read from /proc (utime + stime of the server), so it includes Streamlit's own work."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from tests.browserlib import start_streamlit, stop_process

    data = tempfile.mkdtemp(prefix="classbench-")
    os.environ["RESIDUAL_LAB_DATA"] = data
    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    proc, url = start_streamlit("server.py", cwd=ROOT, quiet=True)
    try:
        engine = make_engine(f"sqlite:///{data}/classroom.db")

        def make_class(n: int):
            new = classes.create_class(engine, "dashboard")
            classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
            activity = dashboards.dashboard(engine, new.code, new.teacher_token).activity.id
            for i in range(n):
                token = admission.join_class(engine, new.code, f"Student {i}", client=f"c{i}").student_token
                if i % 5:
                    answers.submit_prediction(engine, new.code, token, activity, ["0.75", "0.25"])
            return new

        async def measure(new, list_open: bool) -> dict:
            query = f"code={new.code}&teacher={new.teacher_token}"
            async with websockets.connect(f"{url.replace('http://', 'ws://')}/_stcore/stream", max_size=None) as ws:
                state = {"hash": "", "fragment": None, "toggle": None, "elements": 0}

                async def until_finished():
                    state["elements"] = 0
                    while True:
                        msg = ForwardMsg()
                        msg.ParseFromString(await ws.recv())
                        kind = msg.WhichOneof("type")
                        if kind == "navigation":
                            state["hash"] = msg.navigation.page_script_hash
                        elif kind == "auto_rerun":
                            state["fragment"] = msg.auto_rerun.fragment_id
                        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                            state["elements"] += 1
                            element = msg.delta.new_element
                            if element.WhichOneof("type") == "checkbox" and element.checkbox.label.startswith(
                                "Show the student list"
                            ):
                                state["toggle"] = element.checkbox.id
                        elif kind == "script_finished":
                            return

                def rerun(fragment: str | None) -> bytes:
                    msg = BackMsg()
                    msg.rerun_script.query_string = query
                    msg.rerun_script.page_name = "class"
                    msg.rerun_script.page_script_hash = state["hash"]
                    if fragment:
                        msg.rerun_script.fragment_id = fragment
                        msg.rerun_script.is_auto_rerun = True
                    if list_open and state["toggle"]:
                        widget = msg.rerun_script.widget_states.widgets.add()
                        widget.id, widget.bool_value = state["toggle"], True
                    return msg.SerializeToString()

                await ws.send(rerun(None))
                await until_finished()
                for _ in range(3):  # warm up (and, list open, draw it once)
                    await ws.send(rerun(state["fragment"]))
                    await until_finished()
                cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()
                for _ in range(refreshes):
                    await ws.send(rerun(state["fragment"]))
                    await until_finished()
                cpu = (cpu_seconds(proc.pid) - cpu0) / refreshes
                wall = (time.monotonic() - t0) / refreshes
            return {"cpu": cpu, "wall": wall, "elements": state["elements"]}

        rows = []
        for n, list_open in ((students, False), (students, True), (0, False)):
            new = make_class(n)
            result = asyncio.run(measure(new, list_open))
            rows.append(
                {
                    "students": n,
                    "student list": "open (page of 50)" if list_open else "closed",
                    "server CPU per refresh (s)": f"{result['cpu']:.4f}",
                    "wall per refresh (s)": f"{result['wall']:.4f}",
                    "elements sent per refresh": result["elements"],
                }
            )
        return rows
    finally:
        stop_process(proc)


# --- a lecture hall: every page redrawn by a teacher action, against the floor ---------------------------------

HALL_ACTIONS = ("Open activity", "Show responses", "Vote again", "Reveal")


class Floor:
    """The floor: ``n`` tabs of bench/minimal_app.py (one slider, one chart), loaded once, then rerun all at the same
    moment on each :meth:`burst`, what a teacher action asks of every page. The hall measures a burst a second
    before each action, so the floor is measured through the whole run, not only before it (the machine is shared:
    its speed drifts between minutes)."""

    def __init__(self, url: str, pids: list[int], n: int):
        self.base_ws, self.pids, self.n = url.replace("http://", "ws://"), pids, n
        self.pages = [{} for _ in range(n)]
        self.events: dict[int, asyncio.Event] = {}
        self.bursts = 0
        self.stop = asyncio.Event()
        self.tasks = []

    def _event(self, k: int) -> asyncio.Event:
        return self.events.setdefault(k, asyncio.Event())

    async def _page(self, page: dict) -> None:
        import websockets
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        async with websockets.connect(f"{self.base_ws}/_stcore/stream", max_size=None, ping_interval=None) as ws:
            page_hash = ""

            async def until_finished() -> None:
                nonlocal page_hash
                while True:
                    msg = ForwardMsg()
                    msg.ParseFromString(await ws.recv())
                    if msg.WhichOneof("type") == "navigation":
                        page_hash = msg.navigation.page_script_hash
                    elif msg.WhichOneof("type") == "new_session" and msg.new_session.page_script_hash:
                        page_hash = msg.new_session.page_script_hash
                    elif msg.WhichOneof("type") == "script_finished":
                        return

            msg = BackMsg()
            msg.rerun_script.query_string = ""
            await ws.send(msg.SerializeToString())
            await until_finished()
            page["at"] = []
            msg.rerun_script.page_script_hash = page_hash
            k = 0
            while True:
                go = asyncio.create_task(self._event(k).wait())
                stop = asyncio.create_task(self.stop.wait())
                await asyncio.wait((go, stop), return_when=asyncio.FIRST_COMPLETED)
                if self.stop.is_set():
                    go.cancel()
                    return
                stop.cancel()
                await ws.send(msg.SerializeToString())
                await until_finished()
                page["at"].append(time.monotonic())
                k += 1

    async def start(self) -> None:
        self.tasks = [asyncio.create_task(self._page(p)) for p in self.pages]
        deadline = time.monotonic() + 120
        while sum("at" in p for p in self.pages) < self.n and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await self.burst()  # not counted: a page's first rerun after loading costs more than the next ones

    async def burst(self) -> dict:
        """Every page reruns at once; when the last finished, the server CPU per page and this client's CPU."""
        k = self.bursts
        self.bursts += 1
        cpu0, own0, t0 = sum(cpu_seconds(p) for p in self.pids), time.process_time(), time.monotonic()
        self._event(k).set()
        while sum(len(p.get("at", ())) > k for p in self.pages) < self.n and time.monotonic() < t0 + 60:
            await asyncio.sleep(0.05)
        cpu = sum(cpu_seconds(p) for p in self.pids) - cpu0
        done = [p["at"][k] - t0 for p in self.pages if len(p.get("at", ())) > k]
        return {
            "pages": len(done), "last": max(done, default=float("nan")), "cpu": cpu / self.n,
            "client": time.process_time() - own0,
        }

    async def close(self) -> None:
        self.stop.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def hall_class(
    url: str, pids: list[int], engine, n: int, projector: bool = True, rounds: int = 1,
    floor: tuple[str, list[int]] | None = None,
) -> dict:
    """``n`` students who all voted, on their pages, following the teacher; the teacher opens a predict activity, shows
    the responses, opens round 2 (everyone votes again) and reveals, ``rounds`` times over. Per action, a list with
    one result per round: when the last page showed it (a finished run that drew the new version, or a check that
    found nothing to redraw), the median page, and the server CPU per page. More students than a class holds
    (MAX_STUDENTS): as many classes of equal size, each action done in every class at the same moment; the projector
    follows the first. ``floor``: (url, pids) of the minimal app; ``n`` tabs of it rerun at once a second before
    each action (Floor.burst), that action's floor in its result ("floor")."""
    count = -(-n // MAX_STUDENTS)
    rooms = [classes.create_class(engine, f"hall {k + 1}") for k in range(count)]
    seats = [
        (room, admission.join_class(engine, room.code, f"S{i}", client=f"h{i}").student_token)
        for i in range(n)
        for room in [rooms[i % count]]
    ]
    base_ws = url.replace("http://", "ws://")

    def vote(round_number=None):
        for room in rooms:
            token = next(t for r, t in seats if r is room)
            activity = answers.student_state(engine, room.code, token).activity.id
            for i, (r, token) in enumerate(seats):  # every student has voted: every page draws its own prediction
                if r is room:
                    b = (i % 21) / 20
                    values = [f"{b:.2f}", f"{1 - b:.2f}"]
                    answers.submit_prediction(engine, r.code, token, activity, values, round_number)

    steps = {
        "Open activity": lambda r: classes.open_activity(
            engine, r.code, r.teacher_token, "predict", {"source": "worked-example"}
        ),
        "Show responses": lambda r: classes.show_responses(engine, r.code, r.teacher_token),
        "Vote again": lambda r: classes.vote_again(engine, r.code, r.teacher_token),
        "Reveal": lambda r: classes.reveal(engine, r.code, r.teacher_token),
    }

    async def run():
        stop = asyncio.Event()
        pages = [{} for _ in range(n)]
        tasks = []
        minimal = Floor(floor[0], floor[1], n) if floor else None
        if minimal:
            await minimal.start()
        for (room, token), page in zip(seats, pages):  # opened over ~3 s: a class coming in, not a storm
            query = f"code={room.code}&student={token}"
            tasks.append(asyncio.create_task(hall_page(base_ws, query, "class", page, stop)))
            await asyncio.sleep(3 / n)
        display = versions.stored_class_version(engine, rooms[0].code).display_key
        watch = {}
        if projector:
            query = f"code={rooms[0].code}&display={display}"
            tasks.append(asyncio.create_task(hall_page(base_ws, query, "projector", watch, stop)))
        deadline = time.monotonic() + 120
        while sum("drawn" in p for p in pages) < n and time.monotonic() < deadline:
            await asyncio.sleep(0.2)

        async def voted(round_number=None):
            """Everyone votes (at the storage level: no version change), and each page redraws as its Submit would."""
            vote(round_number)
            runs = [p.get("runs", 0) for p in pages]
            await asyncio.gather(*(p["submitted"]() for p in pages))
            deadline = time.monotonic() + 60
            while any(p.get("runs", 0) <= r for p, r in zip(pages, runs)) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)

        results = {action: [] for action in HALL_ACTIONS}
        for action in HALL_ACTIONS * rounds:
            await asyncio.sleep(3)  # every page idle again
            if action == "Reveal":
                await voted(2)
            floor_burst = None
            if minimal:
                floor_burst = await minimal.burst()
                await asyncio.sleep(1)
            cpu0, own0, t0 = sum(cpu_seconds(p) for p in pids), time.process_time(), time.monotonic()
            for room in rooms:
                steps[action](room)
            target = {room.code: versions.stored_class_version(engine, room.code).version for room in rooms}
            wanted = [target[room.code] for room, _ in seats]

            def done(page, version):
                return page.get("drawn", -1) >= version

            while (
                sum(done(p, v) for p, v in zip(pages, wanted)) < n
                or projector and not done(watch, target[rooms[0].code])
            ) and time.monotonic() < t0 + 60:
                await asyncio.sleep(0.05)
            cpu = sum(cpu_seconds(p) for p in pids) - cpu0
            shown = sorted(p["at"] - t0 for p, v in zip(pages, wanted) if done(p, v))
            results[action].append({
                "pages": len(shown),
                "last": shown[-1] if shown else float("nan"),
                "p50": statistics.median(shown) if shown else float("nan"),
                "projector": watch["at"] - t0 if done(watch, target[rooms[0].code]) else float("nan"),
                "cpu": cpu / n,
                "client": time.process_time() - own0,
                "elements": statistics.median(p["elements"][-1] for p in pages if p.get("elements")),
                "floor": floor_burst,
            })
            if action == "Open activity":
                await voted()
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        if minimal:
            await minimal.close()
        return results

    return asyncio.run(run())


def start_replicas(app: str, replicas: int):
    """deploy/serve: ``replicas`` replicas of ``app`` behind HAProxy on a free loopback port; (process, url,
    the replicas' pids) once HAProxy answers the health check."""
    from tests.browserlib import start_serve

    run_dir = Path(tempfile.mkdtemp(prefix="hall-serve-"))
    proc, url = start_serve(run_dir, replicas=replicas, app=app)
    return proc, url, [r["pid"] for r in json.loads((run_dir / "replicas.json").read_text()).values()]


def hall_bench(
    sizes: list[int], replicas: int = 0, rounds: int = 3, running: tuple[str, list[int], str] | None = None
) -> None:
    """Print, for each class size, each action's time until the last page showed it and the server CPU per page,
    beside the floor (the minimal app, as many sessions rerun at once, served the same way) measured in the same
    run, and the ratio. ``replicas``: served by deploy/serve.py with that many replicas behind HAProxy.
    ``running``: (url, server pids, database URL) of a deployment already running (the container deployment:
    bench/hall_containers.py); the floor is then served by deploy/serve.py with as many replicas as pids."""
    from tests.browserlib import start_streamlit, stop_process

    procs = []
    data = tempfile.mkdtemp(prefix="classbench-")
    os.environ["RESIDUAL_LAB_DATA"] = data
    os.environ.pop("RESIDUAL_LAB_DATABASE_URL", None)
    try:
        if running:
            url, pids, database = running
            floor_proc, floor_url, floor_pids = start_replicas("bench/minimal_app.py", len(pids))
            procs.append(floor_proc)
            engine = make_engine(database)
            print(
                f"the app: the deployment running at {url} ({len(pids)} server processes {','.join(map(str, pids))}, "
                f"database {engine.url.render_as_string(hide_password=True)}); the floor: bench/minimal_app.py "
                f"through deploy/serve with {len(pids)} replica{'s' if len(pids) > 1 else ''} on this machine"
            )
        elif replicas:
            proc, url, pids = start_replicas("server.py", replicas)
            procs.append(proc)
            floor_proc, floor_url, floor_pids = start_replicas("bench/minimal_app.py", replicas)
            procs.append(floor_proc)
        else:
            proc, url = start_streamlit("server.py", cwd=ROOT, quiet=True)
            procs.append(proc)
            pids = [proc.pid]
            floor_proc, floor_url = start_streamlit("bench/minimal_app.py", cwd=ROOT, quiet=True)
            procs.append(floor_proc)
            floor_pids = [floor_proc.pid]
        if not running:
            engine = make_engine(f"sqlite:///{os.environ['RESIDUAL_LAB_DATA']}/classroom.db")
        for n in sizes:
            results = hall_class(url, pids, engine, n, rounds=rounds, floor=(floor_url, floor_pids))
            floors = [r["floor"] for rows in results.values() for r in rows]
            # the floor: the median of all its bursts in this run, spread through the run (one burst varies with what
            # the machine does at that moment: 2.1-4.4 ms a page in one run)
            floor_cpu = statistics.median(f["cpu"] for f in floors)
            print(
                f"\n{n} students who voted ({len(pids)} server process{'es' if len(pids) > 1 else ''}), load "
                f"{os.getloadavg()[0]:.1f}, {rounds} round{'s' if rounds > 1 else ''}; floor: "
                f"{min(f['pages'] for f in floors)} minimal-app pages rerun at once a second before each action, last "
                f"after {statistics.median(f['last'] for f in floors):.2f} s, "
                f"{1000 * floor_cpu:.1f} ms server CPU a page (medians; from "
                f"{1000 * min(f['cpu'] for f in floors):.1f} to {1000 * max(f['cpu'] for f in floors):.1f} ms)"
            )
            print(
                f"  {'action':15} {'pages':>6} {'last page':>10} {'worst':>6} {'median':>7} {'projector':>10} "
                f"{'CPU/page':>9} {'vs floor':>9} {'elements':>9} {'client CPU':>11}"
            )
            for action, rows in results.items():
                def med(key, rows=rows):
                    return statistics.median(r[key] for r in rows)

                print(
                    f"  {action:15} {min(r['pages'] for r in rows):>6} {med('last'):>9.2f}s "
                    f"{max(r['last'] for r in rows):>5.2f}s {med('p50'):>6.2f}s {med('projector'):>9.2f}s "
                    f"{1000 * med('cpu'):>7.1f}ms {med('cpu') / floor_cpu:>8.2f}x {med('elements'):>9.0f} "
                    f"{med('client'):>10.1f}s"
                )
            print("  per round, CPU a page / its floor (ms):")
            for action, rows in results.items():
                pairs = (f"{1000 * r['cpu']:.1f}/{1000 * r['floor']['cpu']:.1f}" for r in rows)
                print(f"    {action:15} " + ", ".join(pairs))
            print(
                "  (each figure the median over the rounds, 'worst' the slowest round's last page; 'pages' the fewest "
                "that showed an action in a round; 'vs floor' the CPU a page against the floor's median over all its "
                "bursts in this run)"
            )
        engine.dispose()
    finally:
        for proc in procs:
            stop_process(proc)


def table(rows: list[dict]) -> None:
    keys = list(rows[0])
    width = max(len(k) for k in keys)
    for key in keys:
        print(f"  {key:<{width}}  " + "  ".join(f"{str(r.get(key, '')):>22}" for r in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--window", type=float, default=10.0, help="seconds over which the submissions arrive")
    parser.add_argument("--postgres", default=os.environ.get("RESIDUAL_LAB_TEST_POSTGRES_URL", ""))
    parser.add_argument("--follow-seconds", type=float, default=15.0)
    parser.add_argument("--skip-follow", action="store_true")
    parser.add_argument(
        "--follow-script", choices=("server.py", "app.py", "both"), default="both", help="what the follow part serves"
    )
    parser.add_argument("--skip-storage", action="store_true")
    parser.add_argument("--skip-page-submit", action="store_true")
    parser.add_argument("--skip-dashboard", action="store_true")
    parser.add_argument("--dashboard-students", type=int, default=500)
    parser.add_argument("--refreshes", type=int, default=30, help="dashboard refreshes measured")
    parser.add_argument(
        "--hall",
        help="class sizes for the lecture-hall bench, e.g. 150,300: every teacher action's time until the last page "
        "shows it and server CPU per page, beside the minimal app (runs only this part)",
    )
    parser.add_argument(
        "--hall-replicas", type=int, default=0, help="with --hall: serve through deploy/serve.py with N replicas"
    )
    parser.add_argument(
        "--hall-rounds", type=int, default=3,
        help="with --hall: each action (and the floor) measured this many times; medians are printed",
    )
    parser.add_argument(
        "--hall-url",
        help="with --hall: a deployment already running (loopback), e.g. http://127.0.0.1:8501 (HAProxy); needs "
        "--hall-pids and --hall-database; the floor is served by deploy/serve with as many replicas as pids",
    )
    parser.add_argument("--hall-pids", help="with --hall-url: the server processes' ids (comma-separated), for CPU")
    parser.add_argument(
        "--hall-database",
        help="with --hall-url: the URL of the database the deployment uses, reachable from here (the bench makes "
        "its classes, students and votes there)",
    )
    parser.add_argument(
        "--student-read",
        action="store_true",
        help="only a student's page read (what every page of a class reads at once), beside SELECT 1",
    )
    args = parser.parse_args()
    if args.hall_url or args.hall_pids or args.hall_database:
        if not (args.hall and args.hall_url and args.hall_pids and args.hall_database):
            parser.error("--hall-url, --hall-pids and --hall-database go together, with --hall")
        if args.hall_replicas:
            parser.error("--hall-replicas starts its own deployment: not with --hall-url")
        if not is_loopback(args.hall_url):
            parser.error("--hall-url must be a loopback address")
    if args.student_read:
        urls = [f"sqlite:///{tempfile.mkdtemp(prefix='classbench-')}/classroom.db"]
        urls += [args.postgres] if args.postgres else []
        print("a student's page read (round 2, a prediction in each round), CPU in this process, beside SELECT 1")
        table([student_read_bench(url) for url in urls])
        return
    if args.hall:
        running = None
        if args.hall_url:
            pids = [int(p) for p in args.hall_pids.split(",")]
            running = (args.hall_url.rstrip("/"), pids, args.hall_database)
        hall_bench([int(n) for n in args.hall.split(",")], args.hall_replicas, args.hall_rounds, running)
        return
    if not args.skip_dashboard:
        print(f"teacher's dashboard, {args.refreshes} refreshes of its 2-second fragment, one after another")
        table(dashboard_bench(args.dashboard_students, args.refreshes))
    if not args.skip_storage:
        sqlite_url = f"sqlite:///{tempfile.mkdtemp(prefix='classbench-')}/classroom.db"
        rows = [storage_bench(sqlite_url, args.students, args.window)]
        if args.postgres:
            rows.append(storage_bench(args.postgres, args.students, args.window))
        else:
            print("(PostgreSQL skipped: no --postgres URL and no RESIDUAL_LAB_TEST_POSTGRES_URL)")
        print(f"storage level: {args.students} students submit within {args.window:g} s (one thread each)")
        table(rows)
    if not args.skip_page_submit:
        rows = [page_submit_bench(None, args.students, args.window)]
        if args.postgres:
            rows.append(page_submit_bench(args.postgres, args.students, args.window))
        print(
            f"\npage level: {args.students} student pages (WebSocket protocol), loaded and following the teacher, "
            f"submit within {args.window:g} s"
        )
        table(rows)
    if not args.skip_follow:
        print(
            f"\npage level: {args.students} student pages following the teacher for {args.follow_seconds:g} s: "
            "server.py (the version over HTTP) and app.py alone (a timed fragment), one after the other"
        )
        scripts = ("server.py", "app.py") if args.follow_script == "both" else (args.follow_script,)
        table([follow_bench(args.students, args.follow_seconds, script) for script in scripts])


if __name__ == "__main__":
    main()
