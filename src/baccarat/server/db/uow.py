"""The unit of work: one database transaction that services read and write through.

Services speak plain SQL with ``:name`` parameters; the unit of work runs it as it is on
SQLite's ``sqlite3``, and on PostgreSQL through libpq's pipeline (``pgwire``: every
statement prepared once per connection, no cursor). This keeps the round's hot path at a
few microseconds a statement instead of the tens that a query builder costs. The transaction
is committed by whoever opened the unit of work, and only if the work returned normally:
anything raised rolls it back.

On PostgreSQL a statement whose result nobody reads (``send``: an insert, an upsert of a
counter) does not wait for its answer: it is kept and goes to the server in one pipeline
with the next statement whose result is read (or with ``flush``), so that a round's
writes cost one round trip, not one each. Its failure is raised there, still inside the
same unit of work (whoever runs units of work flushes each before it ends). On SQLite,
which has no round trips, ``send`` executes at once.

Counters that many units of work add to (the back office's daily aggregates) are not
written by each unit: a unit adds to its ``totals``, and whoever commits writes the sum of
every committed unit's totals just before the commit (``write_totals``), one statement per
counter row. A unit that fails takes its totals with it.

The one writer of an SQLite database keeps a ``Memo`` across its transactions: rows read
by primary key that seldom change (a table's switch) are read once, not once per round,
for as long as no other connection has written the database (``PRAGMA data_version``,
read once per transaction) and no unit of work of the writer has changed them (it calls
``forget``). Elsewhere (PostgreSQL's many workers, a reader) ``memo`` is None: read it.
"""

from __future__ import annotations

import contextlib
import operator
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baccarat.server.vault import Vault

Params = Mapping[str, Any] | None
Row = tuple[Any, ...]
# Writes summed totals: the counter rows (sorted keys: rows locked in one order) and what to
# add to each.
TotalsWriter = Callable[["UnitOfWork", list[tuple[Hashable, tuple[int, ...]]]], None]
# Per writer, the counter rows and what to add to each.
Totals = dict[TotalsWriter, dict[Hashable, tuple[int, ...]]]


class Stale(Exception):
    """What a unit of work took from a cache was no longer so in the database (``expect``
    found no row): nothing of it stands, and it is tried again (as a serialization failure
    is), reading the database this time."""

    sqlstate = "40001"


class Memo:
    """What the one writer of an SQLite database read in earlier transactions, kept while
    nothing else wrote the database (module doc)."""

    __slots__ = ("off", "values", "version")

    def __init__(self) -> None:
        self.values: dict[Hashable, Any] = {}
        self.version: int | None = None
        self.off = False  # a unit changed what it may hold: unused to the transaction's end

    def begin(self, conn: Any) -> None:
        """A transaction of the writer begins (the database locked): anything another
        connection committed since the last one empties the memo."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self.version:
            self.values.clear()
            self.version = version

    def end(self) -> None:
        """The transaction is over, committed or not."""
        if self.off:
            self.values.clear()
            self.off = False


class Later:
    """The answer of a statement that goes to the server with the next round trip
    (``UnitOfWork.later``): read it once it is needed (which sends it then if need be)."""

    __slots__ = ("_uow", "check", "cursor", "stale")

    def __init__(self, uow: UnitOfWork, check: Callable[[Any], None] | None = None) -> None:
        self._uow = uow
        self.cursor: Any = None
        self.check = check  # given the answer as soon as it comes (it may raise)
        self.stale: Callable[[], None] | None = None  # ``expect``: told before Stale is raised

    def all(self) -> list[Row]:
        if self.cursor is None:
            self._uow.flush()
        rows: list[Row] = self.cursor.fetchall()
        return rows


Pending = tuple[str, Params, Later | None]


class Carried:
    """The last statements of the unit of work before this one in a writer's batch (its
    writes, then the statements between the two units): they go to the server ahead of this
    unit's first round trip, not in one of their own. Once they went, ``error`` is what they
    raised (None: they were carried out). When they fail, ``recover`` (without parameters:
    the savepoint's rollback and what follows it) is sent before this unit's own statements,
    which then go again; with no ``recover`` the failure is raised to this unit instead."""

    __slots__ = ("error", "recover", "statements")

    def __init__(self, statements: list[Pending], recover: tuple[str, ...] | None) -> None:
        self.statements = statements
        self.recover = recover
        self.error: BaseException | None = None


class UnitOfWork:
    """A transaction in progress on one connection; ``now`` is fixed for the whole of it.
    ``vault`` seals and opens the server seeds (``server.vault``): the database's."""

    __slots__ = ("_after_commit", "_ahead", "_carried", "_memo", "_pending", "conn", "dialect",
                 "known", "now", "totals", "vault")  # fmt: skip

    def __init__(
        self, conn: Any, dialect: str, now: int, vault: Vault | None = None,
        memo: Memo | None = None, carried: Carried | None = None,
    ) -> None:  # fmt: skip
        self.conn = conn
        self.dialect = dialect
        self.now = now
        self.vault: Vault | None = vault
        self._memo = memo
        self._after_commit: list[Callable[[], None]] = []
        self.totals: Totals = {}
        # PostgreSQL: statements sent (``send``, ``later``) and not yet on the server.
        self._pending: list[Pending] = []
        # PostgreSQL: the unit before's last statements, sent with this one's first (``carry``).
        self._carried = carried
        # PostgreSQL: reads sent ahead (``prefetch``), by statement and parameters.
        self._ahead: dict[tuple[str, tuple[tuple[str, Any], ...]], Later] = {}
        # What this transaction knows of rows it holds locked or that it alone can change
        # (a balance it read FOR UPDATE and moved since, a player's exclusion), kept by the
        # service that reads and writes them, so that it needs no round trip to read them
        # again: the rows' value as this transaction will commit them.
        self.known: dict[Hashable, Any] = {}

    @property
    def memo(self) -> dict[Hashable, Any] | None:
        """Values read by earlier transactions of the writer that still hold (module doc),
        or None: read the database."""
        memo = self._memo
        return None if memo is None or memo.off else memo.values

    def forget(self) -> None:
        """This unit changes what the memo may hold: it is emptied, and unused until the
        transaction ends (committed or not, the next one reads the database again)."""
        if self._memo is not None:
            self._memo.values.clear()
            self._memo.off = True

    # What the services may ask of the database they are on (never which one it is).

    @property
    def pipelines(self) -> bool:
        """Statements go to the server in round trips that can carry many (PostgreSQL's
        pipeline): a read sent ahead (``prefetch``, ``Lookup.ahead``) or a write whose
        answer nobody waits for (``send``, ``expect``) costs no round trip of its own, so a
        value kept by this process and checked by the write that uses it saves one. Else
        (SQLite, in the process) a statement is a call: read it when it is needed."""
        return self.dialect == "postgresql"

    @property
    def locks_rows(self) -> bool:
        """Other writers change the database while this unit runs (PostgreSQL's many
        workers): it locks the rows it reads to change, in one order. SQLite has one
        writer at a time, which needs no lock."""
        return self.dialect == "postgresql"

    @property
    def for_update(self) -> str:
        """Row lock suffix: PostgreSQL locks rows; SQLite has one writer, so needs none."""
        return " FOR UPDATE" if self.dialect == "postgresql" else ""

    @property
    def for_share(self) -> str:
        """Shared row lock suffix: the row cannot change until the commit, and other units
        may hold it too (PostgreSQL); SQLite's one writer needs none."""
        return " FOR SHARE" if self.dialect == "postgresql" else ""

    @property
    def skip_locked(self) -> str:
        """Row lock suffix that leaves out the rows another writer holds locked (they are
        being changed: left for a later pass), so that two writers never take the same row
        (PostgreSQL); SQLite's one writer takes them all."""
        return " FOR UPDATE SKIP LOCKED" if self.dialect == "postgresql" else ""

    def lock(self, alias: str) -> str:
        """Lock the rows of one table of a join (PostgreSQL); nothing to do on SQLite."""
        return f" FOR UPDATE OF {alias}" if self.dialect == "postgresql" else ""

    def shard(self, shards: int) -> str:
        """An SQL expression of the writing connection's shard of ``shards``: counters that
        every unit adds to are kept in a row per shard, so that writers on different
        connections never wait for each other on one row (PostgreSQL: the connection's
        server process; SQLite's one writer: 0)."""
        return f"pg_backend_pid() % {shards}" if self.dialect == "postgresql" else "0"

    def rows(
        self, name: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Any]]
    ) -> tuple[str, dict[str, Any]]:
        """A common table expression of ``rows`` for a batch statement: ``name (columns) AS
        (...)`` and its parameters. ``columns``: (name, PostgreSQL type). On PostgreSQL the
        ``unnest`` of one array per column, so the statement is the same short text however
        many rows it carries (a driver parses it once); on SQLite ``VALUES``."""
        names = ", ".join(column for column, _ in columns)
        if self.dialect == "postgresql":
            arrays = ", ".join(f":{name}_{i}::{kind}[]" for i, (_, kind) in enumerate(columns))
            params = {f"{name}_{i}": [row[i] for row in rows] for i in range(len(columns))}
            return f"{name} ({names}) AS (SELECT * FROM unnest({arrays}))", params
        params, values = {}, []
        for r, row in enumerate(rows):
            values.append("(" + ", ".join(f":{name}_{r}_{i}" for i in range(len(row))) + ")")
            params |= {f"{name}_{r}_{i}": value for i, value in enumerate(row)}
        return f"{name} ({names}) AS (VALUES {', '.join(values)})", params

    def execute(self, sql: str, params: Params = None) -> Any:
        if self.dialect != "postgresql":
            return self.conn.execute(sql, params or {})
        if self._ahead:
            ahead = self._ahead.pop((sql, _key(params)), None)
            if ahead is not None:
                if ahead.cursor is None:
                    self.flush()
                return ahead.cursor
        return self._pipelined((sql, params, None))

    def prefetch(self, sql: str, params: Params = None) -> None:
        """A statement this unit will execute (a read, or a row it will lock or take), sent
        now so that it goes to the server with the next round trip: on PostgreSQL, the next
        ``execute`` (``one``, ``all``, ``scalar``, ``run``) of the same statement with the same
        parameters takes its answer instead of a round trip of its own. Sent once however
        often it is asked for; on SQLite, which has no round trips, nothing is done."""
        if self.dialect == "postgresql":
            key = (sql, _key(params))
            if key not in self._ahead:
                self._ahead[key] = self.later(sql, params)

    def prefetched(self, sql: str, params: Params = None) -> bool:
        """Whether ``prefetch`` sent this statement ahead and its answer is not taken yet."""
        return bool(self._ahead) and (sql, _key(params)) in self._ahead

    def send(self, sql: str, params: Params = None) -> None:
        """Execute a statement whose result is not read: on PostgreSQL it goes to the server
        with the next statement that is (one round trip for both)."""
        if self.dialect == "postgresql":
            self._pending.append((sql, params, None))
        else:
            self.conn.execute(sql, params or {})

    def later(
        self, sql: str, params: Params = None, check: Callable[[Any], None] | None = None
    ) -> Later:
        """Execute a statement whose result is read later: on PostgreSQL it goes to the
        server with the next statement whose result is read now. ``check`` is given the
        answer (a cursor) as soon as it comes, before anything sent after it is read: what
        it raises is raised there."""
        later = Later(self, check)
        if self.dialect == "postgresql":
            self._pending.append((sql, params, later))
        else:
            later.cursor = self.conn.execute(sql, params or {})
            if check is not None:
                check(later.cursor)
        return later

    @contextlib.contextmanager
    def answered_first(self, later: Later) -> Iterator[None]:
        """Whatever the block raises before ``later`` went to the server (a refusal before
        any read), ``later`` is answered first, and what its ``check`` raises comes
        instead: a lookup's refusal is never hidden by one that came after it."""
        try:
            yield
        except Exception:
            if any(item is later for _, _, item in self._pending):
                later.all()
            raise

    def expect(self, sql: str, params: Params, stale: Callable[[], None]) -> None:
        """Execute a statement that must change a row (an UPDATE of a value kept by this
        process, checked where it is used), sent with the next round trip; if it changes
        none, ``stale()`` is told and ``Stale`` raised there. On PostgreSQL the statement
        itself fails then (``baccarat_stale``, migration 0018), so that nothing pipelined
        after it runs."""
        if self.dialect != "postgresql":
            if self.conn.execute(sql, params or {}).rowcount == 0:
                stale()
                raise Stale(sql)
            return
        later = Later(self)
        later.stale = stale
        self._pending.append((_GUARDED.format(sql), params, later))

    def flush(self, *then: str) -> None:
        """Have the statements sent so far executed (their failure raised here), and the
        statements ``then`` after them (without parameters), in one round trip: two if an
        answer is still to be checked here (``later``'s ``check``), before ``then`` runs."""
        self._checked()
        if self._pending or then or self._carried is not None:
            self._pipelined(*((sql, None, None) for sql in then))

    def carry(self, then: Sequence[str], recover: tuple[str, ...] | None) -> Carried:
        """The work is done: what it has not sent yet, and the statements ``then`` after it,
        go to the server with the next unit of work's first round trip (``Carried``). A
        statement whose answer is checked here goes first, as ``flush`` sends it; so does
        what the unit before left, if this one sent nothing."""
        self._checked()
        if self._carried is not None:
            self._pipelined()
        statements, self._pending = self._pending, []
        return Carried([*statements, *((sql, None, None) for sql in then)], recover)

    def drop_pending(self) -> None:
        """The work failed: what it has not sent never goes. What the unit before left goes
        now, if it has not (its outcome is then known)."""
        self._pending = []
        if self._carried is not None:
            self._pipelined()

    def _checked(self) -> None:
        if any(later is not None and later.check for _, _, later in self._pending):
            self._pipelined()

    def _pipelined(self, *last: Pending) -> Any:
        """What the unit before left (``Carried``), the pending statements and ``last`` in
        one round trip: the last one's result."""
        statements, self._pending = [*self._pending, *last], []
        carried, self._carried = self._carried, None
        if carried is None:
            return self._exchanged(statements)
        ahead = carried.statements
        try:
            return self._exchanged([*ahead, *statements], len(ahead))
        except _CarriedFailed as failed:
            carried.error = failed.error
            if carried.recover is None or not failed.rolled_back:
                raise failed.error from failed.error.__cause__
        redo = [(sql, None, None) for sql in carried.recover]
        return self._exchanged([*redo, *statements])

    def _exchanged(self, statements: list[Pending], ahead: int = 0) -> Any:
        """``statements`` in one round trip, the first ``ahead`` of them another unit's (a
        failure that is not of this unit's own statements comes as ``_CarriedFailed``): the
        last one's result."""
        try:
            results = self.conn.exchange([(sql, params) for sql, params, _ in statements])
        except Exception as error:
            index = getattr(error, "statement_index", None)
            if index is None or index < 0:
                if ahead:  # not a statement's own failure: the carried ones went or not
                    raise _CarriedFailed(error, rolled_back=False) from None
                raise
            failure = error
            later = statements[index][2]
            if later is not None and later.stale is not None:
                later.stale()
                failure = Stale("a value kept by this process changed in the database")
                failure.__cause__ = error
            if index < ahead:
                raise _CarriedFailed(failure, rolled_back=True) from None
            if failure is error:
                raise
            raise failure from error
        for (_, _, later), result in zip(statements, results, strict=True):
            if later is not None:
                later.cursor = result
                if later.check is not None:
                    later.check(result)
        return results[-1] if results else None

    def one(self, sql: str, params: Params = None) -> Row | None:
        row: Row | None = self.execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: Params = None) -> list[Row]:
        rows: list[Row] = self.execute(sql, params).fetchall()
        return rows

    def scalar(self, sql: str, params: Params = None) -> Any:
        row = self.one(sql, params)
        return None if row is None else row[0]

    def run(self, sql: str, params: Params = None) -> int:
        """Execute a statement; the number of rows it changed."""
        count: int = self.execute(sql, params).rowcount
        return count

    def add_totals(self, writer: TotalsWriter, key: Hashable, values: tuple[int, ...]) -> None:
        """Add ``values`` to the counter row ``key``, written by ``writer`` at the commit."""
        _add(self.totals, writer, key, values)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once this work is committed (never if it is rolled back)."""
        self._after_commit.append(callback)

    def committed(self) -> None:
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()


class _CarriedFailed(Exception):
    """A round trip that carried another unit's statements failed, not in this unit's own
    statements (``UnitOfWork._exchanged``): in one of the carried ones (``rolled_back``:
    the transaction goes back to their savepoint), or before any statement ran."""

    def __init__(self, error: BaseException, rolled_back: bool) -> None:
        super().__init__(str(error))
        self.error, self.rolled_back = error, rolled_back


# PostgreSQL: an UPDATE that fails when it changes no row (``expect``).
_GUARDED = (
    "WITH changed AS ({} RETURNING 1) SELECT CASE WHEN EXISTS (SELECT 1 FROM changed) "
    "THEN 1 ELSE baccarat_stale('a value kept by a worker') END"
)


def _key(params: Params) -> tuple[tuple[str, Any], ...]:
    return tuple(params.items()) if params else ()


def _add(totals: Totals, writer: TotalsWriter, key: Hashable, values: tuple[int, ...]) -> None:
    rows = totals.setdefault(writer, {})
    old = rows.get(key)
    rows[key] = values if old is None else tuple(map(operator.add, old, values))


def write_totals(into: UnitOfWork, units: Iterable[UnitOfWork | None]) -> None:
    """Write the summed totals of the committed ``units`` on ``into``'s transaction (just
    before its commit)."""
    merged: Totals = {}
    for unit in units:
        if unit is None or not unit.totals:
            continue
        for writer, rows in unit.totals.items():
            for key, values in rows.items():
                _add(merged, writer, key, values)
        unit.totals = {}
    for writer, rows in merged.items():
        writer(into, sorted(rows.items(), key=lambda row: repr(row[0])))


def sql_list(values: Iterable[str]) -> str:
    """Constants of ours as an SQL list, for ``IN (...)`` (never input: no value is escaped)."""
    return ", ".join(f"'{value}'" for value in values)


def is_unique_violation(error: BaseException) -> bool:
    if isinstance(error, sqlite3.IntegrityError):
        return "UNIQUE constraint failed" in str(error)
    return getattr(error, "sqlstate", None) == "23505"
