"""Limits: the counters, the wrong-code slowing, each class's guessing budget, and the seats.

How much one browser, one address, one student or the whole server may try, and the words of a wait; figures
and reasons: docs/security.md.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

from sqlalchemy import text

from lab.classroom.keys import keyed
from lab.classroom.naming import CODE_SPACE
from lab.classroom.refusals import RateLimited
from lab.core.errors import Said, said
from lab.i18n import N_

MAX_STUDENTS = 500
MAX_WAITING = MAX_STUDENTS  # joins waiting for the teacher's approval (beyond the class's expected size)
SUBMISSIONS_PER_MINUTE = 30
FREE_WRONG_CODES = 5  # wrong codes a browser session may try before each further try must wait
MAX_WRONG_CODE_WAIT_S = 60
FORGET_WRONG_CODES_S = 600  # a browser session's wrong codes are forgotten 10 minutes after its last one
# Each class's guessing budget (docs/security.md): a typed code opens a class only while fewer than this many
# wrong codes were tried on the server since the hour the class started (a class lives a day). A wrong code
# names one code of 31^6, so the chance that guessing ever opens a given class is at most
# budget / (31^6 - budget), about 1 in 10,000; a class's budget is spent only by wrong codes (one each), never by
# starting classes, and its join link always admits.
WRONG_CODE_RISK_BUDGET = CODE_SPACE // 10_000
WRONG_CODES_PER_ADDRESS = 300  # wrong codes from one address in WRONG_CODE_WINDOW_ADDRESS_S (then: the join link)
WRONG_CODE_WINDOW_ADDRESS_S = 3600
JOINS_PER_BROWSER = 4  # joins from one browser session in JOIN_WINDOW_BROWSER_S (a shared computer, a retry)
JOIN_WINDOW_BROWSER_S = 600
JOINS_PER_ADDRESS = 120  # typed-code joins from one address (a school behind one NAT) in JOIN_WINDOW_ADDRESS_S
JOIN_WINDOW_ADDRESS_S = 60
CLASSES_PER_BROWSER = 10  # classes started from one browser session in CLASS_WINDOW_S
CLASSES_PER_ADDRESS = 60  # ... and from one address (every teacher of a school behind one NAT)
CLASS_WINDOW_S = 3600
# Presses of Join and Start a class from one address that one server process takes a minute, counted in memory before
# anything reaches the class database (so a flood, whatever it sends, costs no database work): five times the typed
# joins an address may make (ten a second), so a school's typos and the database's own limits always come first.
TRIES_PER_ADDRESS = 5 * JOINS_PER_ADDRESS
TRY_WINDOW_S = 60
MAX_ADDRESSES_KEPT = 10_000  # addresses counted at once in a process (past it, the ones whose window ended go)
# The teacher's warning (dashboard): this many joins within JOIN_BURST_WINDOW_S, five a second, is faster than people
# type a code and a name (a hall of 300 takes a minute or two); a script joining is (378 in 15 s were seen).
JOIN_BURST = 25
JOIN_BURST_WINDOW_S = 5
_RISK_KEY = "server-wrong-code-risk:"
_RISK_KEEP_HOURS = 25  # an hour's count is kept for that hour and the 24 after it (a class's code lives a day)


def wait_seconds(seconds: float) -> int:
    """A wait in whole seconds, rounded up and at least 1 (never "wait 0 s")."""
    return max(1, math.ceil(seconds - 1e-9))


def wait_words(seconds: float) -> str:
    """A wait in words: "3 s"."""
    return f"{wait_seconds(seconds)} s"


def window_words(seconds: float) -> Said:
    """A limit's window in words: "a minute", "in 10 minutes", "an hour"."""
    seconds = int(seconds)
    if seconds == 60:
        return said("a minute")
    if seconds == 3600:
        return said("an hour")
    if seconds % 3600 == 0:
        return said("in {count} hours", count=seconds // 3600)
    if seconds % 60 == 0:
        return said("in {count} minutes", count=seconds // 60)
    return said("in {count} s", count=seconds)


# --- counters ----------------------------------------------------------------------------------------


class Limit(NamedTuple):
    """At most ``most`` tries in ``window_s`` seconds, counted under ``key``; the refusal is ``message``, a whole
    sentence (marked for the catalogs) with ``{most}``, ``{window}`` (window_words) and ``{seconds}`` to wait."""

    message: str
    key: str
    most: int
    window_s: float


# the limits' refusals, whole sentences (a language orders "too many", the source and the wait its own way)
CLASSES_FROM_BROWSER = N_(
    "Too many classes started from this browser (at most {most} {window}): wait {seconds} s. A class runs for a day: "
    "its teacher link opens it again."
)
CLASSES_FROM_ADDRESS = N_(
    "Too many classes started from this network address (at most {most} {window}): wait {seconds} s. A class runs "
    "for a day: its teacher link opens it again."
)
JOINS_FROM_BROWSER = N_("Too many joins from this browser (at most {most} {window}): wait {seconds} s.")
JOINS_FROM_ADDRESS = N_("Too many joins from this network address (at most {most} {window}): wait {seconds} s.")
JOINS_FROM_ADDRESS_OR_LINK = N_(
    "Too many joins from this network address (at most {most} {window}): wait {seconds} s, or open the join link "
    "or scan the QR code your teacher shows."
)
WRONG_CODES_FROM_ADDRESS = N_(
    "Too many wrong class codes from this network address (at most {most} {window}): wait {seconds} s, or open the "
    "join link or scan the QR code your teacher shows."
)


def add_to_counter(conn, key: str, at: float, window_s: float, amount: int = 1) -> int:
    """Add ``amount`` to the counter ``key`` in its window (a new window of ``window_s`` starts when the old one
    ended); returns the count in the current window."""
    row = conn.execute(
        text(
            "INSERT INTO rate_counters (key, window_end, count) VALUES (:k, :end, :n) "
            "ON CONFLICT (key) DO UPDATE SET "
            "count = CASE WHEN rate_counters.window_end > :at THEN rate_counters.count + :n ELSE :n END, "
            "window_end = CASE WHEN rate_counters.window_end > :at THEN rate_counters.window_end ELSE :end END "
            "RETURNING count"
        ),
        {"k": key, "end": at + window_s, "n": amount, "at": at},
    ).first()
    return row.count


def counter(conn, key: str, at: float) -> tuple[int, float]:
    """The counter's count in its current window and when that window ends (0, at when none is running)."""
    row = conn.execute(
        text("SELECT count, window_end FROM rate_counters WHERE key = :k AND window_end > :at"), {"k": key, "at": at}
    ).first()
    return (row.count, row.window_end) if row else (0, at)


def check_limits(conn, limits, at: float) -> None:
    """Raise RateLimited for the first of ``limits`` that is used up."""
    for limit in limits:
        count, ends = counter(conn, limit.key, at)
        if count >= limit.most:
            raise RateLimited(
                said(
                    limit.message, most=limit.most, window=window_words(limit.window_s), seconds=wait_seconds(ends - at)
                ),
                max(1.0, ends - at),
            )


def count_limits(conn, limits, at: float) -> None:
    """Count one more try against each of ``limits``."""
    for limit in limits:
        add_to_counter(conn, limit.key, at, limit.window_s)


def class_start_limits(client: str, address: str) -> tuple[Limit, ...]:
    """What bounds starting classes: per browser session and per address (only keyed HMACs are stored)."""
    limits = []
    if client:
        key = f"classes-browser:{keyed('browser', client)}"
        limits.append(Limit(CLASSES_FROM_BROWSER, key, CLASSES_PER_BROWSER, CLASS_WINDOW_S))
    if address:
        key = f"classes-address:{keyed('address', address)}"
        limits.append(Limit(CLASSES_FROM_ADDRESS, key, CLASSES_PER_ADDRESS, CLASS_WINDOW_S))
    return tuple(limits)


def join_limits(browser_hash: str | None, address_key: str, by_link: bool) -> tuple[Limit, ...]:
    """What bounds a join: joins per browser session and per address, by typed code and by join link alike (a link
    that admits without a guess must not let one address fill a class)."""
    limits = []
    if browser_hash:
        key = f"joins-browser:{browser_hash}"
        limits.append(Limit(JOINS_FROM_BROWSER, key, JOINS_PER_BROWSER, JOIN_WINDOW_BROWSER_S))
    if address_key:
        key = f"joins-address:{address_key}"
        message = JOINS_FROM_ADDRESS if by_link else JOINS_FROM_ADDRESS_OR_LINK
        limits.append(Limit(message, key, JOINS_PER_ADDRESS, JOIN_WINDOW_ADDRESS_S))
    return tuple(limits)


def wrong_codes_from(address_key: str) -> Limit:
    """The wrong codes one address may type in a window (then: the join link)."""
    key = f"wrong-codes-address:{address_key}"
    return Limit(WRONG_CODES_FROM_ADDRESS, key, WRONG_CODES_PER_ADDRESS, WRONG_CODE_WINDOW_ADDRESS_S)


class AddressTries:
    """Tries per address in this process, in fixed windows, kept in memory (never in the database): at most
    ``most`` in ``window_s`` seconds. Thread-safe; holds at most MAX_ADDRESSES_KEPT addresses (when full, those whose
    window ended are forgotten, then the oldest)."""

    def __init__(self, most: int = TRIES_PER_ADDRESS, window_s: float = TRY_WINDOW_S):
        self.most, self.window_s = most, window_s
        self._windows: dict[str, list[float]] = {}  # address key -> [window end, count]
        self._lock = threading.Lock()

    def take(self, address_key: str, at: float) -> float:
        """Count one try from ``address_key`` at ``at``: 0.0 when it may go on, else how long it must wait."""
        if not address_key:
            return 0.0
        with self._lock:
            window = self._windows.get(address_key)
            if window is None or window[0] <= at:
                if len(self._windows) >= MAX_ADDRESSES_KEPT:
                    self._forget(at)
                window = self._windows[address_key] = [at + self.window_s, 0]
            if window[1] >= self.most:
                return max(1.0, window[0] - at)
            window[1] += 1
            return 0.0

    def _forget(self, at: float) -> None:
        for key in [k for k, (end, _count) in self._windows.items() if end <= at]:
            del self._windows[key]
        if len(self._windows) >= MAX_ADDRESSES_KEPT:
            for key in sorted(self._windows, key=lambda k: self._windows[k][0])[: MAX_ADDRESSES_KEPT // 2]:
                del self._windows[key]

    def refusal(self, wait: float) -> Said:
        return said(
            "Too many tries from this network address (at most {most} {window}): wait {seconds} s; nothing was sent.",
            most=self.most, window=window_words(self.window_s), seconds=wait_seconds(wait),
        )


# --- wrong codes: the browser's slowing and the classes' guessing budget ------------------------------------


def wrong_code_wait(conn, client_hash: str, at: float) -> float:
    """How long this browser session must wait before its next typed code (0: it may try now)."""
    row = conn.execute(
        text("SELECT failures, last_at FROM join_failures WHERE client_hash = :c"), {"c": client_hash}
    ).first()
    if row is None or at - row.last_at > FORGET_WRONG_CODES_S or row.failures < FREE_WRONG_CODES:
        return 0.0
    wait = min(MAX_WRONG_CODE_WAIT_S, 2 ** (row.failures - FREE_WRONG_CODES + 1))
    return max(0.0, row.last_at + wait - at)


def check_wrong_code_wait(conn, client_hash: str, at: float) -> None:
    """Raise RateLimited while this browser session must wait before its next typed code."""
    wait = wrong_code_wait(conn, client_hash, at)
    if wait > 0:
        raise RateLimited(
            said(
                "Too many wrong class codes from this browser: wait {seconds} s, then check the code with your "
                "teacher.", seconds=wait_seconds(wait),
            ),
            wait,
        )


def record_wrong_code(conn, client_hash: str, at: float) -> None:
    conn.execute(
        text(
            "INSERT INTO join_failures (client_hash, failures, last_at) VALUES (:c, 1, :at) "
            "ON CONFLICT (client_hash) DO UPDATE SET "
            "failures = CASE WHEN :at - join_failures.last_at > :forget THEN 1 "
            "ELSE join_failures.failures + 1 END, last_at = :at"
        ),
        {"c": client_hash, "at": at, "forget": FORGET_WRONG_CODES_S},
    )


def wrong_code_risk(conn, at: float) -> int:
    """Wrong codes tried on the server in the current hour and the 24 before it (one unit each)."""
    return conn.execute(
        text("SELECT COALESCE(SUM(count), 0) FROM rate_counters WHERE key LIKE :k AND window_end > :at"),
        {"k": _RISK_KEY + "%", "at": at},
    ).scalar_one()


def guesses_against(conn, created_at: float, at: float) -> int:
    """The wrong codes that could have been guesses at a class started at ``created_at``: those tried since the
    start of that hour (a class's budget, WRONG_CODE_RISK_BUDGET)."""
    since = (int(created_at // 3600) + _RISK_KEEP_HOURS) * 3600.0  # window_end of the class's first hour
    return conn.execute(
        text(
            "SELECT COALESCE(SUM(count), 0) FROM rate_counters WHERE key LIKE :k AND window_end >= :since "
            "AND window_end > :at"
        ),
        {"k": _RISK_KEY + "%", "since": since, "at": at},
    ).scalar_one()


def budget_spent(conn, created_at: float, at: float) -> bool:
    """Whether the guessing budget of a class started at ``created_at`` is spent: it takes no typed codes."""
    return guesses_against(conn, created_at, at) >= WRONG_CODE_RISK_BUDGET


def spend_wrong_code(conn, at: float) -> None:
    """Count a wrong code against every class's budget (in the counter of the current hour)."""
    hour = int(at // 3600)
    end = (hour + _RISK_KEEP_HOURS) * 3600.0
    add_to_counter(conn, f"{_RISK_KEY}{hour}", at, end - at)


# --- a student's submissions ---------------------------------------------------------------------------


def count_submission(conn, student_id: int, at: float) -> None:
    """Count a submission in the student's minute; raise RateLimited past SUBMISSIONS_PER_MINUTE."""
    count = conn.execute(
        text(
            "UPDATE students SET "
            "rate_count = CASE WHEN rate_start > :cut THEN rate_count + 1 ELSE 1 END, "
            "rate_start = CASE WHEN rate_start > :cut THEN rate_start ELSE :at END "
            "WHERE id = :id RETURNING rate_count, rate_start"
        ),
        {"cut": at - 60, "at": at, "id": student_id},
    ).first()
    if count.rate_count > SUBMISSIONS_PER_MINUTE:
        wait = max(1.0, count.rate_start + 60 - at)
        raise RateLimited(
            said(
                "More than {most} submissions in a minute: wait {seconds} s; nothing was saved.",
                most=SUBMISSIONS_PER_MINUTE, seconds=f"{wait:.0f}",
            ),
            wait,
        )
