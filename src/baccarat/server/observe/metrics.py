"""The server's metrics, in Prometheus' text format (prometheus-client).

Every label takes a bounded set of values: a table's id (the tables file's), a table kind, a
mode, a route's template (``/api/tables/{table_id}/rounds``, never the path asked for), a
method, a status, an error code (``errors.ERRORS``), an operator's id (the operators
file's) and its call and outcome. With several workers (``directory``), each writes its
values to files of its own and the worker answering a scrape sums them: counters and
histograms over every worker that ran since the server started, the gauges of a worker's
state over the live workers (``livesum``), the event loop's lag per worker (a ``pid``
label). What the database holds for all the workers (the operators' outbox) is read once
per scrape, by the worker that answers it.

Recording is a few microseconds of arithmetic (shared memory, no system call); rendering
a scrape reads the files and is done off the event loop (``render``, in a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from baccarat.server.observe import directory

CONTENT_TYPE = CONTENT_TYPE_LATEST
# Seconds: from a millisecond to ten seconds.
LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

ROUNDS = Counter("baccarat_rounds", "rounds played (committed), one per bettor",
                 ["table", "kind", "mode"])  # fmt: skip
ROUND_SECONDS = Histogram(
    "baccarat_round_seconds", "a round's unit of work, from its start to its commit, by kind",
    ["kind"], buckets=LATENCY,
)  # fmt: skip
REQUESTS = Counter("baccarat_requests", "HTTP requests answered, by route template and status",
                   ["route", "method", "status"])  # fmt: skip
REQUEST_SECONDS = Histogram(
    "baccarat_request_seconds", "HTTP requests' time to their answer's end, by route template",
    ["route", "method"], buckets=LATENCY,
)  # fmt: skip
REFUSALS = Counter("baccarat_refusals", "refusals answered, by error code", ["code"])
WALLET_CALLS = Counter("baccarat_wallet_calls", "calls to operators' wallets, by outcome",
                       ["operator", "call", "outcome"])  # fmt: skip
WALLET_SECONDS = Histogram("baccarat_wallet_call_seconds", "calls to operators' wallets",
                           ["operator", "call"], buckets=LATENCY)  # fmt: skip
RETRIES = Counter(
    "baccarat_db_retries",
    "units of work run again (a lock not had in time, a deadlock, a serialization failure, "
    "a value kept by the worker that changed)",
)
WRITERS = Gauge("baccarat_db_writers", "database writer threads (connections)",
                multiprocess_mode="livesum")  # fmt: skip
WRITERS_BUSY = Gauge("baccarat_db_writers_busy", "writer threads running a batch now",
                     multiprocess_mode="livesum")  # fmt: skip
WRITES_QUEUED = Gauge("baccarat_db_writes_queued", "units of work waiting for a writer",
                      multiprocess_mode="livesum")  # fmt: skip
READS_QUEUED = Gauge("baccarat_db_reads_queued", "reads waiting for a reader thread",
                     multiprocess_mode="livesum")  # fmt: skip
COUPS = Counter("baccarat_shared_coups", "shared tables' coups dealt and settled", ["table"])
BETTORS = Counter("baccarat_shared_bettors", "bettors settled on shared tables' coups", ["table"])
SETTLE_SECONDS = Histogram("baccarat_shared_settle_seconds",
                           "a shared coup's deal and settlement of every bettor, to its commit",
                           ["table"], buckets=LATENCY)  # fmt: skip
SOCKETS = Gauge("baccarat_sockets_open", "WebSockets open", multiprocess_mode="livesum")
LOOP_LAG = Gauge("baccarat_event_loop_lag_seconds",
                 "how late the event loop ran a timer, last sample, per worker",
                 multiprocess_mode="liveall")  # fmt: skip

_KINDS: dict[str, str] = {}


def know_tables(kinds: dict[str, str]) -> None:
    """The kind of each table (its rounds are counted under it)."""
    _KINDS.update(kinds)
    _ROUNDS.clear()


# The series of each set of labels met so far (``labels`` builds its key and takes a lock
# every call): a bounded set, as the labels are.
_ROUNDS: dict[tuple[str, str], tuple[Any, Any]] = {}
_ANSWERS: dict[tuple[str, str, int], tuple[Any, Any]] = {}


def round_started(uow: Any, table_id: str, mode: str, bettors: int) -> None:
    """A round's unit of work plays ``bettors`` rounds at a table: counted once committed."""
    started = time.perf_counter()
    series = _ROUNDS.get((table_id, mode))
    if series is None:
        kind = _KINDS.get(table_id, "other")
        series = _ROUNDS[(table_id, mode)] = (ROUNDS.labels(table_id, kind, mode),
                                              ROUND_SECONDS.labels(kind))  # fmt: skip
    count, seconds = series

    def committed() -> None:
        count.inc(bettors)
        seconds.observe(time.perf_counter() - started)

    uow.after_commit(committed)


def coup_started(uow: Any, table_id: str, bettors: Callable[[], int]) -> None:
    """A shared coup is being dealt: counted, with its bettors, once committed."""
    started = time.perf_counter()

    def committed() -> None:
        COUPS.labels(table_id).inc()
        BETTORS.labels(table_id).inc(bettors())
        SETTLE_SECONDS.labels(table_id).observe(time.perf_counter() - started)

    uow.after_commit(committed)


def answered(route: str, method: str, status: int, seconds: float) -> None:
    series = _ANSWERS.get((route, method, status))
    if series is None:
        series = _ANSWERS[(route, method, status)] = (
            REQUESTS.labels(route, method, str(status)), REQUEST_SECONDS.labels(route, method)
        )  # fmt: skip
    series[0].inc()
    series[1].observe(seconds)


def refused(code: str) -> None:
    REFUSALS.labels(code).inc()


def retried() -> None:
    RETRIES.inc()


@contextlib.contextmanager
def wallet_call(operator: str, call: str) -> Iterator[Callable[[str], None]]:
    """Time a call to an operator's wallet; the block tells its outcome (the contract's
    status of the answer, or its "no answer")."""
    started = time.perf_counter()
    outcome = ["error"]
    try:
        yield lambda status: outcome.__setitem__(0, status)
    finally:
        WALLET_CALLS.labels(operator, call, outcome[0]).inc()
        WALLET_SECONDS.labels(operator, call).observe(time.perf_counter() - started)


@dataclass(frozen=True, slots=True)
class PoolUse:
    """A worker's database threads now."""

    writers: int
    writers_busy: int
    writes_queued: int
    reads_queued: int


class Sampler:
    """Each worker's state, sampled every ``every_s`` on its event loop: how late the loop
    ran the sampler's own timer (its lag), the database pools, the open sockets. A sample is
    a few reads of counters the worker keeps anyway."""

    def __init__(self, pools: Callable[[], PoolUse], sockets: Callable[[], int],
                 every_s: float = 1.0) -> None:  # fmt: skip
        self.pools, self.sockets, self.every_s = pools, sockets, every_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if directory.shared():
            # This worker's gauges leave the sums (its counters stay: they were counted).
            multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self.sample()
            due = loop.time() + self.every_s
            await asyncio.sleep(self.every_s)
            LOOP_LAG.set(max(0.0, loop.time() - due))

    def sample(self) -> None:
        pools = self.pools()
        WRITERS.set(pools.writers)
        WRITERS_BUSY.set(pools.writers_busy)
        WRITES_QUEUED.set(pools.writes_queued)
        READS_QUEUED.set(pools.reads_queued)
        SOCKETS.set(self.sockets())


# -- what the database holds for every worker ----------------------------------------------

# The operators' rounds not finished yet (wallets.operator.outbox.UNFINISHED).
_BACKLOG = (
    "SELECT COUNT(*), MIN(created_us) FROM operator_rounds "
    "WHERE state IN ('bet', 'placed', 'win', 'rollback')"
)


@dataclass(frozen=True, slots=True)
class Backlog:
    """The operators' outbox: its unfinished rounds and the age of the oldest (seconds)."""

    rounds: int
    oldest_s: float


def outbox_backlog(uow: Any) -> Backlog:
    count, oldest = uow.one(_BACKLOG)
    age = 0.0 if oldest is None else max(0.0, (uow.now - int(oldest)) / 1e6)
    return Backlog(int(count), age)


class _Database(Collector):
    def __init__(self, backlog: Backlog) -> None:
        self.backlog = backlog

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("baccarat_outbox_backlog",
                                "operators' rounds not finished yet (the outbox)",
                                value=self.backlog.rounds)  # fmt: skip
        yield GaugeMetricFamily("baccarat_outbox_oldest_seconds",
                                "the age of the oldest unfinished operator's round",
                                value=self.backlog.oldest_s)  # fmt: skip


def render(backlog: Backlog) -> bytes:
    """The scrape's text: every worker's metrics (summed from their files, or this
    process's own without a shared folder) and the database's. Blocking (file reads): run
    it in a thread."""
    registry = CollectorRegistry()
    if directory.shared():
        _forget_the_dead(os.environ[directory.VARIABLE])
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        from prometheus_client import REGISTRY

        registry = REGISTRY
    text = generate_latest(registry)
    return text + generate_latest(_single(_Database(backlog)))


# A worker's files of live gauges (prometheus-client's multiprocess mode): its pid in the name.
_LIVE = re.compile(r"gauge_live[a-z]*_(\d+)\.db")


def _forget_the_dead(folder: str) -> None:
    """The live gauges of workers that are gone, out of the sums: a worker killed (kill -9)
    never marks itself dead as one that stops does (``Sampler.stop``), and its open sockets
    and queues would be counted until the server restarts. A few files per worker."""
    pids = {int(m.group(1)) for name in os.listdir(folder) if (m := _LIVE.fullmatch(name))}
    for pid in pids - {os.getpid()}:
        if not _running(pid):
            multiprocess.mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]


def _running(pid: int) -> bool:
    """Whether the process runs (a zombie, dead and not yet reaped by its parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel (another user's process runs too)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True


def _single(collector: Collector) -> CollectorRegistry:
    registry = CollectorRegistry()
    registry.register(collector)
    return registry
