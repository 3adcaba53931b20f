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
from typing import Any

from baccarat.server.db.jobs import Job as _Job
from baccarat.server.db.jobs import unavailable as _unavailable
from baccarat.server.db.uow import Carried, UnitOfWork, is_unique_violation, write_totals
from baccarat.server.errors import ServiceError
from baccarat.server.observe import metrics

log = logging.getLogger("baccarat.server.db")

# How long a unit of work after the first of a batch waits for a row lock held elsewhere.
LOCK_WAIT = "'20ms'"
# Another try in the next batch: a lock not had in time, a deadlock, a serialization
# failure, or a unique key taken meanwhile.
_AGAIN = {"55P03", "40P01", "40001"}
TRIES = 8


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
        """Run the batch and commit; the jobs to run again in the next batch."""
        again: list[_Job[Any]] = []
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
