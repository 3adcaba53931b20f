"""The database runner: connections, transactions, and the threads that run them.

SQLite (the default): a file in WAL mode with synchronous=FULL. The server writes from one
place, its event loop's own thread (no thread hand-offs, no lock contention), in
``BEGIN IMMEDIATE`` transactions (which also serialise writers across processes, such as
``baccarat admin`` beside a running server). It practises group commit: the units of work
submitted while the loop was busy run one after another, each inside its own savepoint,
and share one commit (one fsync). A unit of work that raises is rolled back to its
savepoint alone; the others are unaffected; no answer is given before the commit is durable.
Reads run inline too, on their own connection (WAL readers never wait for the writer),
except the reads that take milliseconds (``read(..., heavy=True)``: the back office's
reports and pages): those run on the pool of reader threads, as every read does on
PostgreSQL, so that nothing slow runs on the event loop.

Read-only (``read_only=True``, the operator's commands that only read): SQLite opens the
file with ``mode=ro`` and ``query_only`` (it creates nothing, not even the folder, and sets
no journal mode: the PRAGMAs that change a database are the read-write open's); PostgreSQL
runs every transaction of the session read-only (``default_transaction_read_only``).

PostgreSQL: one writer thread and connection per worker with the same group commit, each
unit of work in its own savepoint (``pgwriter.py``); several workers write concurrently and
rely on row locks (conditional updates, ``FOR UPDATE``); a unit of work that meets a lock
conflict, a deadlock or a unique violation runs again in the next batch. Reads run on a
pool of threads, each holding one connection.

PostgreSQL connections are opened when first needed and kept for the worker's life: per
worker at most ``threads`` writer connections, ``threads`` reader connections (and the
LISTEN connection of ``banked/events.py``), which is what docs/deploy.md counts for
``max_connections``. A kept connection outlives a restart of PostgreSQL only as a dead
socket: each one is found broken when its next transaction begins, and replaced then
(``_Session``), so that a restart costs the requests that were in flight, not one more
request per pooled connection afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from baccarat.server.db.jobs import Job as _Job
from baccarat.server.db.jobs import Work
from baccarat.server.db.jobs import unavailable as _unavailable
from baccarat.server.db.pgwriter import PostgresWriter
from baccarat.server.db.uow import Memo, UnitOfWork, is_unique_violation, write_totals
from baccarat.server.db.url import DatabaseUrl
from baccarat.server.errors import ServiceError
from baccarat.server.observe import metrics
from baccarat.server.vault import Vault, default_vault

T = TypeVar("T")
log = logging.getLogger("baccarat.server.db")

SQLITE_BUSY_TIMEOUT_S = 30.0
# The server's writer runs on the event loop: it waits less for another process's lock.
SQLITE_WRITER_BUSY_TIMEOUT_S = 5.0
WRITER_BUSY_TIMEOUT_MS = int(SQLITE_WRITER_BUSY_TIMEOUT_S * 1000)
RETRIES = 4
_RETRY_SQLSTATES = {"40001", "40P01"}


def _should_retry(error: BaseException) -> bool:
    return is_unique_violation(error) or getattr(error, "sqlstate", None) in _RETRY_SQLSTATES


def _is_operational(error: BaseException) -> bool:
    if isinstance(error, sqlite3.OperationalError):
        return True
    import psycopg

    return isinstance(error, psycopg.OperationalError)


class Database:
    """Opens connections, runs units of work, and owns the threads that run them."""

    def __init__(
        self,
        url: DatabaseUrl,
        *,
        clock: Callable[[], int],
        threads: int = 8,
        max_batch: int = 64,
        read_only: bool = False,
        vault: Vault | None = None,
    ):
        self.url = url
        # The key of the server seeds at rest (the casino's, from its settings); opened
        # without one, an SQLite file's folder keeps it and PostgreSQL has none.
        self.vault: Vault = vault or default_vault(url.file)
        self.read_only = read_only
        self.dialect = url.dialect
        self.clock = clock
        self.threads = max(1, threads)
        self.max_batch = max(1, max_batch)
        self._local = threading.local()
        self._connections: list[Any] = []
        self._lock = threading.Lock()
        self._readers: ThreadPoolExecutor | None = None
        self._sqlite_writer: _SqliteWriter | None = None
        self._pg_writer: PostgresWriter | None = None
        self._checkpointer: _Checkpointer | None = None
        self._closed = False

    # -- connections -------------------------------------------------------------------

    def connect(self, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S) -> Any:
        """A new DB-API connection, configured for this server."""
        if self.read_only:
            return self._connect_read_only(busy_timeout_s)
        if self.dialect == "sqlite":
            path = Path(self.url.target)
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                path,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_s,
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            return conn
        return _Session(self._connect_postgres)

    def _connect_postgres(self) -> Any:
        import psycopg

        return psycopg.connect(self.url.target, autocommit=False)

    def _connect_read_only(self, busy_timeout_s: float) -> Any:
        if self.dialect == "sqlite":
            uri = "file:" + urllib.parse.quote(str(Path(self.url.target).absolute())) + "?mode=ro"
            conn = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False, timeout=busy_timeout_s
            )
            conn.execute("PRAGMA query_only=ON")
            return conn
        return _Session(self._connect_postgres_read_only)

    def _connect_postgres_read_only(self) -> Any:
        import psycopg

        session = psycopg.connect(self.url.target, autocommit=False)
        session.execute("SET default_transaction_read_only = on")
        session.commit()
        return session

    def _thread_connection(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(conn, "closed", False):
            conn = self.connect()
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def _drop_thread_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            with self._lock, contextlib.suppress(ValueError):
                self._connections.remove(conn)
            with contextlib.suppress(Exception):
                conn.close()

    # -- synchronous transactions (CLI, tests, startup) ----------------------------------

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[UnitOfWork]:
        """A unit of work on this thread's connection: committed if the block succeeds."""
        if write and self.read_only:
            raise RuntimeError(f"the database {self.url} was opened read-only")
        conn = self._thread_connection()
        self._begin(conn, write)
        uow = UnitOfWork(conn, self.dialect, self.clock(), self.vault)
        try:
            yield uow
            if write:
                write_totals(uow, (uow,))
            uow.flush()
        except BaseException:
            self._rollback(conn)
            raise
        if write:
            conn.commit() if self.dialect == "postgresql" else conn.execute("COMMIT")
            uow.committed()
        else:
            self._rollback(conn)

    def run_write(self, work: Work[T]) -> T:
        """Run a unit of work that writes, on this thread, retrying transient conflicts."""
        for attempt in range(RETRIES):
            try:
                with self.transaction(write=True) as uow:
                    return work(uow)
            except ServiceError:
                raise
            except Exception as error:
                if attempt + 1 < RETRIES and _should_retry(error):
                    metrics.retried()
                    continue
                raise
        raise AssertionError("unreachable")

    def run_read(self, work: Work[T]) -> T:
        with self.transaction(write=False) as uow:
            return work(uow)

    def _begin(self, conn: Any, write: bool) -> None:
        if self.dialect == "sqlite":
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        # psycopg opens a transaction implicitly on the first statement.

    def _rollback(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            if self.dialect == "postgresql":
                conn.rollback()
            elif conn.in_transaction:
                conn.execute("ROLLBACK")

    # -- asynchronous runners (the HTTP handlers) -----------------------------------------

    def start(self) -> None:
        if self.dialect == "sqlite":
            self._sqlite_writer = _SqliteWriter(self)
            self._checkpointer = _Checkpointer(self, self._sqlite_writer)
            self._checkpointer.start()
            # The heavy reads' threads (started when first needed, each its own connection).
            self._readers = ThreadPoolExecutor(self.threads, thread_name_prefix="db-read")
        else:
            # The thread that starts the runners (the event loop's: it read the casino's
            # accounts) leaves the database to them: its connection would sit idle for the
            # worker's life, one more than the pools below (docs/deploy.md counts them).
            self._drop_thread_connection()
            self._readers = ThreadPoolExecutor(self.threads, thread_name_prefix="db-read")
            self._pg_writer = PostgresWriter(
                self.connect, self.clock, self.max_batch, self.threads, self.vault
            )

    async def write(self, work: Work[T], key: str | None = None) -> T:
        """Run a unit of work that writes; its answer comes once it is committed. Units of
        work with the same ``key`` (a session, a seat) touch the same rows: on PostgreSQL
        they run on the same connection, one after another."""
        if self._sqlite_writer is not None:
            loop = asyncio.get_running_loop()
            job: _Job[T] = _Job(work, loop, loop.create_future())
            self._sqlite_writer.submit(job)
            return await job.future
        if self._pg_writer is None:
            raise RuntimeError("the database runner is not started")
        loop = asyncio.get_running_loop()
        job = _Job(work, loop, loop.create_future())
        self._pg_writer.submit(job, key)
        return await job.future

    async def read(self, work: Work[T], *, heavy: bool = False) -> T:
        """Run a read-only unit of work on a snapshot, on a reader thread; on SQLite inline
        unless ``heavy`` (a read that may take milliseconds: it must not hold the loop)."""
        if self._sqlite_writer is not None and not heavy:
            # SQLite reads take microseconds and never wait for the writer (WAL): inline.
            return self._pooled(work, False)
        if self._readers is None:
            raise RuntimeError("the database runner is not started")
        return await asyncio.get_running_loop().run_in_executor(
            self._readers, self._pooled, work, False
        )

    def _pooled(self, work: Work[T], write: bool) -> T:
        try:
            return self.run_write(work) if write else self.run_read(work)
        except ServiceError:
            raise
        except Exception as error:
            if _is_operational(error):
                self._drop_thread_connection()
                raise _unavailable(error) from error
            raise

    def pool_use(self) -> metrics.PoolUse:
        """The writer threads (SQLite: the one on the loop), how many run a batch now, the
        units of work and the reads waiting for one."""
        reads = 0 if self._readers is None else self._readers._work_queue.qsize()
        writer = self._pg_writer
        if writer is None:
            sqlite = self._sqlite_writer
            queued = 0 if sqlite is None else len(sqlite.pending)
            return metrics.PoolUse(1, 0, queued, reads)
        with writer.lock:
            busy = sum(1 for queue in writer.queues if queue.running)
            queued = sum(len(queue.pending) for queue in writer.queues)
        return metrics.PoolUse(len(writer.queues), busy, queued, reads)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._sqlite_writer is not None:
            self._sqlite_writer.stop()
        if self._checkpointer is not None:
            self._checkpointer.stop()
        if self._pg_writer is not None:
            self._pg_writer.stop()
        if self._readers is not None:
            self._readers.shutdown(wait=True)
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with contextlib.suppress(Exception):
                conn.close()


class _Session:
    """A PostgreSQL connection (psycopg, never in autocommit) that replaces itself when the
    first statement of a transaction finds it broken.

    PostgreSQL ends every session when it restarts (or crashes, or fails over), but a kept
    connection learns of it only when it is next used. When that use is the first statement
    of a transaction, nothing of the transaction has happened: psycopg begins it with that
    statement, and whatever reached the server before the break dies uncommitted with the
    server's end of the session. So the statement is sent again, once, on a new connection,
    and the caller never knows: after a restart no request fails for a stale connection.

    Later breaks are not hidden. One in the middle of a transaction loses the statements
    before it, which only the caller could run again: its unit of work fails (the writer
    fails its batch, a read fails) and the request is answered 503 ``service_unavailable``
    (the database is going away right then; the next transaction reconnects). One at COMMIT
    is worse: the COMMIT may have been carried out before the connection broke, and doing
    the work again could do it twice. Neither is retried here; a client retries a
    money-moving request with the same ``Idempotency-Key``, which returns the first answer
    if it was committed and runs the work if it was not.
    """

    __slots__ = ("_conn", "_connect", "_idle", "_wire")

    def __init__(self, connect: Callable[[], Any]):
        from psycopg.pq import TransactionStatus

        self._idle = TransactionStatus.IDLE
        self._connect = connect
        self._conn, self._wire = self._open()

    def _open(self) -> tuple[Any, Any]:
        from baccarat.server.db.pgwire import Wire

        conn = self._connect()
        # Statements are prepared by the wire, never by psycopg: psycopg deallocates every
        # prepared statement of the session when it sees a ROLLBACK, and that would be ours.
        conn.prepare_threshold = None
        return conn, Wire(conn)

    def _reopen(self, error: BaseException) -> None:
        log.info("a PostgreSQL connection was found broken (%s): reconnecting", error)
        with contextlib.suppress(Exception):
            self._conn.close()
        self._conn, self._wire = self._open()

    @property
    def closed(self) -> bool:
        return bool(self._conn.closed)

    def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
        """A statement through psycopg (a transaction's control: SAVEPOINT, ROLLBACK TO)."""
        return self._first(lambda idle: self._conn.execute(query, params, **options))

    def exchange(self, statements: Any) -> Any:
        """Statements (``:name`` parameters) in one round trip (``pgwire``): their results."""
        return self._first(lambda idle: self._wire.exchange(statements, begin=idle))

    def _first(self, send: Callable[[bool], Any]) -> Any:
        """``send(idle)``: inside a transaction as it is; as a transaction's first, sent
        once more on a new connection if it found this one broken (the class's doc)."""
        conn = self._conn
        if conn.pgconn.transaction_status != self._idle:
            return send(False)
        try:
            return send(True)
        except Exception as error:
            if not _is_operational(error) or not conn.broken:
                raise  # the statement's own failure (a lock timeout, a cancel): not the link
            self._reopen(error)
            return send(True)

    def commit(self) -> None:
        self._conn.commit()

    def rollback(self) -> None:
        self._conn.rollback()

    def close(self) -> None:
        self._conn.close()


class _SqliteWriter:
    """The one writer of an SQLite database, on the event loop's own thread, with group
    commit: the units of work submitted while the loop was busy are run together."""

    def __init__(self, db: Database):
        self.db = db
        self.pending: list[_Job[Any]] = []
        self.scheduled = False
        self.conn: Any = None
        # Set by the checkpointer: the WAL is to be emptied between two batches.
        self.wal_full = False
        self.memo = Memo()

    def submit(self, job: _Job[Any]) -> None:
        self.pending.append(job)
        if not self.scheduled:
            self.scheduled = True
            # After the callbacks already due: the requests that arrived together are
            # parsed and queue their work first, so they share the commit.
            job.loop.call_soon(self._flush)

    def _flush(self) -> None:
        batch = self.pending[: self.db.max_batch]
        del self.pending[: self.db.max_batch]
        if self.pending:
            # The rest waits for the next turn of the loop, so that the answers of this
            # batch go out first (first come, first served, in batches).
            asyncio.get_running_loop().call_soon(self._flush)
        else:
            self.scheduled = False
        self._run(batch)
        if self.wal_full:
            # After the callbacks that answer this batch.
            asyncio.get_running_loop().call_soon(self.empty_wal)

    def empty_wal(self) -> None:
        """Copy the rest of the WAL into the database and start it again from its beginning
        (the file is kept, and written over), if no reader is using it: else a later batch
        tries again (it never waits for the readers)."""
        if not self.wal_full or self.conn is None or self.conn.in_transaction:
            return
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("PRAGMA busy_timeout = 0")
            try:
                busy = self.conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]
            finally:
                self.conn.execute(f"PRAGMA busy_timeout = {WRITER_BUSY_TIMEOUT_MS}")
            if not busy:
                self.wal_full = False

    def stop(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
            self.conn = None

    def _run(self, batch: list[_Job[Any]]) -> None:
        try:
            if self.conn is None:
                self.conn = self.db.connect(busy_timeout_s=SQLITE_WRITER_BUSY_TIMEOUT_S)
                # Checkpoints are the checkpointer thread's job, not the commit's (they would
                # stall the event loop while the database file is written and synced).
                self.conn.execute("PRAGMA wal_autocheckpoint=0")
            self._transact(self.conn, batch)
        except Exception as error:
            # The whole transaction is lost: every job of the batch fails with it.
            with contextlib.suppress(Exception):
                if self.conn is not None and self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            failure = error if isinstance(error, ServiceError) else _unavailable(error)
            for job in batch:
                job.error, job.uow = failure, None
            if _is_operational(error):
                self.stop()
        for job in batch:
            if job.uow is not None:
                # A cache hook must never lose a committed answer.
                with contextlib.suppress(Exception):
                    job.uow.committed()
            job.resolve()

    def _transact(self, conn: Any, batch: list[_Job[Any]]) -> None:
        conn.execute("BEGIN IMMEDIATE")
        memo = self.memo
        try:
            memo.begin(conn)
            self._units(conn, batch, memo)
        finally:
            memo.end()

    def _units(self, conn: Any, batch: list[_Job[Any]], memo: Memo) -> None:
        alone = len(batch) == 1
        for job in batch:
            uow = UnitOfWork(conn, "sqlite", self.db.clock(), self.db.vault, memo)
            if not alone:
                conn.execute("SAVEPOINT unit")
            try:
                job.result = job.work(uow)
            except Exception as error:
                if _is_operational(error):
                    raise  # the transaction itself may be gone
                job.error = error
                # A refusal (or a bug) in one unit of work undoes that unit alone; if even
                # that fails, the exception escapes and the whole batch fails.
                if alone:
                    conn.execute("ROLLBACK")
                    return
                conn.execute("ROLLBACK TO unit")
                conn.execute("RELEASE unit")
            else:
                job.uow = uow
                if not alone:
                    conn.execute("RELEASE unit")
        write_totals(uow, (job.uow for job in batch))
        conn.execute("COMMIT")


class _Checkpointer:
    """Copies the WAL into the database file in the background (passive checkpoints), and
    keeps the WAL from growing without end under a steady load.

    A passive checkpoint never blocks the writer, but the WAL starts again from its
    beginning only when a write begins with every frame of it copied, which a steady load
    never allows (the file grew by about 90 MB a second under sustained writes). So once
    the file is above ``WAL_LIMIT_BYTES``, each passive checkpoint is followed by the
    writer starting the WAL again between two batches (``_SqliteWriter.empty_wal``): only
    the frames written since the checkpoint are left to copy then, and the file is written
    over from its beginning (it keeps its size: the next half second of writes fits in it).
    A restart each ``INTERVAL_S``, not more often: each one copies the hot pages again."""

    INTERVAL_S = 0.5
    WAL_LIMIT_BYTES = 64 * 1024 * 1024

    def __init__(self, db: Database, writer: _SqliteWriter):
        self.db = db
        self.writer = writer
        self.wal = Path(f"{db.url.target}-wal")
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._main, name="db-checkpoint", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()

    def _main(self) -> None:
        conn = self.db.connect()
        try:
            while not self.stopping.wait(self.INTERVAL_S):
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.writer.wal_full = self._wal_size() > self.WAL_LIMIT_BYTES
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.close()

    def _wal_size(self) -> int:
        try:
            return self.wal.stat().st_size
        except OSError:
            return 0
