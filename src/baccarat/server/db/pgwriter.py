"""The PostgreSQL writers of one worker: group commit, each unit of work in its own savepoint.

A worker runs several writer threads, each with its own connection and queue. The units of
work queued while a writer was busy run one after another in one transaction, each inside
a savepoint, and share one COMMIT (one WAL flush: ``synchronous_commit`` stays on, and no
answer is given before its commit returns). A unit of work that raises is rolled back to
its savepoint alone; the others are unaffected.

A unit's last statements, those whose answer it does not wait for (its writes), go to the
server with the next unit's first round trip, after them the statements between the two
(the savepoint's release, the next one's), and the last unit's with the counters and the
commit (``UnitOfWork.carry``): a batch of n units that each read once and then write takes
n + 1 round trips, not 2n + 2. Their failure is still their unit's alone: the transaction
goes back to that unit's savepoint, and the next unit's statements go again.

Units of work with the same key (the caller's session) go to the same writer, so one
player's rounds never wait for each other's row locks inside a worker.

Units that defer their writes (``Database.write(..., deferred=True)``: a house round of
play money) run first in a batch, each reading outside any transaction; then their writes
(each checked against what was read), each unit's in a savepoint, the counters and the
commit go in one round trip, the transaction's only one (``_deferred``): no transaction
is open while their Python runs. One unit per key goes in a batch (the next of the same
key would read what the first is changing: it waits for the next batch).

Several workers write to one database, so a batch may need a row that another batch holds
until it commits (the same player's balance, on another worker). Only the first unit of a
batch waits for a row lock as long as it takes; the others give up after ``LOCK_WAIT``
(``lock_timeout``), are rolled back to their savepoint and run again first in the next
batch. So a batch never holds other units' locks while it waits long, and a deadlock
(PostgreSQL's detector ends it) or a unique key taken meanwhile (an idempotency key another
worker just answered) also just means another try, which then finds the first answer.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baccarat.server.db.jobs import Job as _Job
from baccarat.server.db.jobs import unavailable as _unavailable
from baccarat.server.db.uow import (
    Carried,
    Pending,
    Stale,
    Undeferred,
    UnitOfWork,
    is_unique_violation,
    write_totals,
)
from baccarat.server.errors import ServiceError
from baccarat.server.observe import metrics

log = logging.getLogger("baccarat.server.db")

# How long a unit of work after the first of a batch waits for a row lock held elsewhere.
LOCK_WAIT = "'20ms'"
# Another try in the next batch: a lock not had in time, a deadlock, a serialization
# failure, or a unique key taken meanwhile.
_AGAIN = {"55P03", "40P01", "40001"}
TRIES = 8
# Tries of a unit that defers its writes before it runs in the transaction (``_deferred``).
DEFERRED_TRIES = 2


def _again(error: BaseException) -> bool:
    return is_unique_violation(error) or getattr(error, "sqlstate", None) in _AGAIN


def _operational(error: BaseException) -> bool:
    import psycopg

    return isinstance(error, psycopg.OperationalError) and not _again(error)


class _Queue:
    """The jobs of one writer thread, how many it is running now, and its thread's wake-up
    (on the writer's one lock: a job wakes its own thread, not every writer thread)."""

    def __init__(self, lock: threading.Lock) -> None:
        self.pending: collections.deque[_Job[Any]] = collections.deque()
        self.running = 0
        self.ready = threading.Condition(lock)


class PostgresWriter:
    """Writer threads, each with its own connection and queue. Jobs with the same key (the
    caller's session, a seat) go to the same thread: they run one after another, in one
    batch or the next, and never wait for each other's row locks."""

    def __init__(self, connect: Callable[[], Any], clock: Callable[[], int], max_batch: int,
                 threads: int = 1, vault: Any = None):  # fmt: skip
        self.connect, self.clock, self.max_batch = connect, clock, max_batch
        self.vault = vault
        self.lock = threading.Lock()
        self.stopping = False
        self.queues = [_Queue(self.lock) for _ in range(max(1, threads))]
        self.threads = [
            threading.Thread(target=self._main, args=(queue,), name=f"db-writer-{i}",
                             daemon=True)
            for i, queue in enumerate(self.queues)
        ]  # fmt: skip
        for thread in self.threads:
            thread.start()

    def submit(self, job: _Job[Any], key: str | None = None) -> None:
        with self.lock:
            if key is None:
                queue = min(self.queues, key=lambda q: len(q.pending) + q.running)
            else:
                queue = self.queues[zlib.crc32(key.encode()) % len(self.queues)]
            job.key = key
            queue.pending.append(job)
            queue.ready.notify()

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for queue in self.queues:
                queue.ready.notify()
        for thread in self.threads:
            thread.join(timeout=30)

    def _main(self, queue: _Queue) -> None:
        conn: Any = None
        try:
            while True:
                with self.lock:
                    while not queue.pending and not self.stopping:
                        queue.ready.wait()
                    if self.stopping and not queue.pending:
                        return
                    count = min(len(queue.pending), self.max_batch)
                    batch = [queue.pending.popleft() for _ in range(count)]
                    queue.running = count
                conn, again = self._run(conn, batch)
                with self.lock:
                    queue.running = 0
                    # First in the next batch: the first unit of a batch waits for its locks.
                    queue.pending.extendleft(reversed(again))
        finally:
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()

    def _run(self, conn: Any, batch: list[_Job[Any]]) -> tuple[Any, list[_Job[Any]]]:
        """Run one batch on ``conn`` (connected if need be): the connection to use next,
        and the jobs to run again."""
        again: list[_Job[Any]] = []
        try:
            if conn is None or conn.closed:
                conn = self.connect()
            again = self._transact(conn, batch)
        except Exception as error:
            # The whole transaction is lost: every job of the batch fails with it.
            log.warning("a batch of %d units of work failed: %s", len(batch), error)
            with contextlib.suppress(Exception):
                conn.rollback()
            failure = error if isinstance(error, ServiceError) else _unavailable(error)
            for job in batch:
                job.error, job.uow = failure, None
            if _operational(error) or conn is None or conn.closed:
                with contextlib.suppress(Exception):
                    conn.close()
                conn = None
        for job in batch:
            if job in again:
                continue
            if job.uow is not None:
                # A cache hook must never lose a committed answer.
                with contextlib.suppress(Exception):
                    job.uow.committed()
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                job.loop.call_soon_threadsafe(job.resolve)
        return conn, again

    def _transact(self, conn: Any, batch: list[_Job[Any]]) -> list[_Job[Any]]:
        """Run the batch and commit; the jobs to run again in the next batch. The units that
        defer their writes go first, in a transaction of their own (``_deferred``); the
        others after them, in the transaction of their batch."""
        again: list[_Job[Any]] = []
        if any(job.deferred for job in batch):
            # One unit a key: the next ones of the same key (a player's) would read what the
            # first is about to change; they wait for the next batch (no try is counted).
            ready: list[_Job[Any]] = []
            keys: set[str] = set()
            for job in batch:
                if not job.deferred:
                    continue
                if job.key is not None and job.key in keys:
                    again.append(job)
                    continue
                ready.append(job)
                if job.key is not None:
                    keys.add(job.key)
            batch = [job for job in batch if not job.deferred]
            batch += self._deferred(conn, ready, again)
            if not batch:
                return again
        if len(batch) == 1:
            self._alone(conn, batch[0], again)
            return again
        last = len(batch) - 1
        # The batch's first savepoint goes with its first unit's first round trip, and each
        # unit's last statements (its writes, then the next unit's savepoint) with the next
        # unit's first (``UnitOfWork.carry``): a batch of n units that read once each takes
        # n + 1 round trips, the last one's writes going with the counters and the commit.
        carried: Carried | None = Carried([("SAVEPOINT unit", None, None)], None)
        before: tuple[_Job[Any], UnitOfWork] | None = None
        for index, job in enumerate(batch):
            uow = UnitOfWork(conn, "postgresql", self.clock(), self.vault, carried=carried)
            # What follows the unit of work: the next one's savepoint (from the second unit
            # on, lock waits are short: see the module's docstring), or before the commit,
            # the lock waits as long as they must (a transaction that sent NOTIFY takes a
            # database-wide lock to commit: it must not give up on it after LOCK_WAIT).
            then = _between(index, last)
            following: Carried | None = None
            done: tuple[_Job[Any], UnitOfWork] | None = None
            try:
                job.result = job.work(uow)
                # Its failure rolls back to its savepoint, then the next unit's statements
                # go again; the last unit's is undone by the commit's round trip below.
                following = uow.carry(then, ("ROLLBACK TO unit", *then) if index < last else None)
                done = (job, uow)
            except Exception as error:
                if _operational(error):
                    raise  # the connection itself is gone
                uow.drop_pending()
                conn.execute("ROLLBACK TO unit")
                for statement in then:
                    conn.execute(statement)
                self._failed(job, error, again)
            self._settle(before, carried, again)
            before, carried = done, following
        committed = [job.uow for job in batch if job.uow is not None]
        kept = [unit.totals for unit in committed]
        totals = UnitOfWork(conn, "postgresql", self.clock(), self.vault, carried=carried)
        try:
            # The last unit's last statements, the counters of the units committed, and the
            # commit, in one round trip.
            write_totals(totals, [*committed, None if before is None else before[1]])
            totals.flush("COMMIT")
        except Exception:
            if carried is None or carried.error is None or before is None:
                raise
            # The last unit's last statements failed: it alone is rolled back.
            self._failed(before[0], carried.error, again)
            conn.execute("ROLLBACK TO unit")
            conn.execute("SET LOCAL lock_timeout = DEFAULT")
            for unit, sums in zip(committed, kept, strict=True):
                unit.totals = sums
            totals = UnitOfWork(conn, "postgresql", self.clock(), self.vault)
            write_totals(totals, committed)
            totals.flush("COMMIT")
        else:
            self._settle(before, carried, again)
        return again

    def _deferred(self, conn: Any, jobs: list[_Job[Any]], again: list[_Job[Any]]
                  ) -> list[_Job[Any]]:  # fmt: skip
        """Units that defer their writes: each runs its work, reading before any
        transaction; then their writes go in one round trip, each unit's in a savepoint,
        with the counters and the commit (``_commit_deferred``): no transaction is open
        while their Python runs, and their row locks last that round trip. The jobs that
        needed more (``Undeferred``), to run in the batch's transaction."""
        units: list[_Deferred] = []
        undeferred: list[_Job[Any]] = []
        for job in jobs:
            uow = UnitOfWork(conn, "postgresql", self.clock(), self.vault, deferred=True)
            try:
                job.result = job.work(uow)
                writes = uow.deferred_writes()
            except Undeferred:
                job.deferred = False
                undeferred.append(job)
                continue
            except Exception as error:
                if _operational(error):
                    raise  # the connection itself is gone
                self._failed(job, error, again)
                continue
            units.append(_Deferred(job, uow, writes))
        if units:
            self._commit_deferred(conn, units, again)
        return undeferred

    def _commit_deferred(self, conn: Any, units: list[_Deferred], again: list[_Job[Any]]
                         ) -> None:  # fmt: skip
        """The units' writes, the counters of those committed and the commit, in one round
        trip. A unit whose writes fail (a value read changed meanwhile, a lock not had in
        time) is rolled back to its savepoint and the rest sent again after it."""
        kept = [unit.uow.totals for unit in units]
        done: list[_Deferred] = []
        rest = units
        # The first unit waits for its row locks as long as it takes; once a unit's writes
        # are in, the others wait LOCK_WAIT (module doc).
        statements, spans = _chain(rest, waits=True, savepoints=len(units) > 1)
        while True:
            for unit, sums in zip(units, kept, strict=True):
                unit.uow.totals = sums
            totals = UnitOfWork(conn, "postgresql", self.clock(), self.vault)
            write_totals(totals, [unit.uow for unit in (*done, *rest)])
            statements += [*totals.deferred_writes(), ("COMMIT", None, None)]
            try:
                results = conn.exchange([(sql, params) for sql, params, _ in statements])
            except Exception as error:
                index = getattr(error, "statement_index", None)
                failed = next((i for i, (start, end) in enumerate(spans)
                               if index is not None and start <= index < end), None)  # fmt: skip
                if failed is None or index is None:
                    raise  # not a unit's own statements: the batch fails
                failure: BaseException = error
                later = statements[index][2]
                if later is not None and later.stale is not None:
                    later.stale()
                    failure = Stale("a value read before the transaction changed")
                    failure.__cause__ = error
                job = rest[failed].job
                if job.tries + 1 >= DEFERRED_TRIES:
                    # Tried again in the transaction: the rows it changes are then locked as
                    # they are read (a contended row never keeps it retrying).
                    job.deferred = False
                self._failed(job, failure, again)
                if len(units) == 1:
                    conn.rollback()
                    return
                done += rest[:failed]
                rest = rest[failed + 1 :]
                statements, spans = _chain(rest, waits=not done, savepoints=True)
                statements[:0] = [("ROLLBACK TO unit", None, None), ("RELEASE unit", None, None)]
                spans = [(start + 2, end + 2) for start, end in spans]
                continue
            for (_, _, later), result in zip(statements, results, strict=True):
                if later is not None:
                    later.cursor = result
            for unit in (*done, *rest):
                unit.job.uow = unit.uow
            return

    def _alone(self, conn: Any, job: _Job[Any], again: list[_Job[Any]]) -> None:
        """A unit alone in its batch: its last statements, its counters and the commit in
        one round trip."""
        uow = UnitOfWork(conn, "postgresql", self.clock(), self.vault)
        try:
            job.result = job.work(uow)
            write_totals(uow, [uow])
            uow.flush("COMMIT")
        except Exception as error:
            if _operational(error):
                raise  # the connection itself is gone
            conn.rollback()
            self._failed(job, error, again)
        else:
            job.uow = uow

    def _settle(self, before: tuple[_Job[Any], UnitOfWork] | None, carried: Carried | None,
                again: list[_Job[Any]]) -> None:  # fmt: skip
        """The unit before commits with the batch, unless its last statements (carried with
        the next round trip) failed: then it was rolled back to its savepoint."""
        if before is None:
            return
        if carried is not None and carried.error is not None:
            self._failed(before[0], carried.error, again)
        else:
            before[0].uow = before[1]

    @staticmethod
    def _failed(job: _Job[Any], error: BaseException, again: list[_Job[Any]]) -> None:
        """A unit of work failed and was rolled back: another try in the next batch (a lock
        not had in time, a deadlock, a stale value, a key taken meanwhile), or its error."""
        job.tries += 1
        if isinstance(error, ServiceError) or not _again(error):
            job.error = error
        elif job.tries < TRIES:
            again.append(job)
            metrics.retried()
        else:
            log.warning("a unit of work gave up after %d tries: %s", job.tries, error)
            job.error = _unavailable(error)


@dataclass(frozen=True, slots=True)
class _Deferred:
    """A unit that deferred its writes, done with its work: its writes to send."""

    job: _Job[Any]
    uow: UnitOfWork
    writes: list[Pending]


def _chain(units: list[_Deferred], waits: bool, savepoints: bool
           ) -> tuple[list[Pending], list[tuple[int, int]]]:  # fmt: skip
    """The units' writes one after another, each in a savepoint (if ``savepoints``), and
    where each unit's are. ``waits``: the first unit waits for its row locks as long as it
    takes, the others LOCK_WAIT (else all of them)."""
    statements: list[Pending] = []
    spans: list[tuple[int, int]] = []
    if not waits:
        statements.append((f"SET LOCAL lock_timeout = {LOCK_WAIT}", None, None))
    for index, unit in enumerate(units):
        if savepoints:
            statements.append(("SAVEPOINT unit", None, None))
        spans.append((len(statements), len(statements) + len(unit.writes)))
        statements += unit.writes
        if savepoints:
            statements.append(("RELEASE unit", None, None))
        if index == 0 and waits and len(units) > 1:
            statements.append((f"SET LOCAL lock_timeout = {LOCK_WAIT}", None, None))
    if len(units) > 1 or not waits:
        statements.append(("SET LOCAL lock_timeout = DEFAULT", None, None))
    return statements, spans


def _between(index: int, last: int) -> tuple[str, ...]:
    """The statements after unit ``index`` of a batch of ``last + 1``: none after a unit
    alone; the next unit's savepoint (the first unit's ends with short lock waits from then
    on); the full lock wait again before the commit."""
    if last == 0:
        return ()
    if index == last:
        return ("SET LOCAL lock_timeout = DEFAULT",)
    if index == 0:
        return ("RELEASE unit", f"SET LOCAL lock_timeout = {LOCK_WAIT}", "SAVEPOINT unit")
    return ("RELEASE unit", "SAVEPOINT unit")
