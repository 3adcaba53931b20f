"""The unit of work: one database transaction that services read and write through.

Services speak plain SQL with ``:name`` parameters; the unit of work translates it once per
dialect and runs it straight on the DB-API connection (SQLite's ``sqlite3`` or psycopg).
This keeps the round's hot path at a few microseconds a statement instead of the tens that
a query builder costs. The transaction is committed by whoever opened the unit of work, and
only if the work returned normally: anything raised rolls it back.

Counters that many units of work add to (the back office's daily aggregates) are not
written by each unit: a unit adds to its ``totals``, and whoever commits writes the sum of
every committed unit's totals just before the commit (``write_totals``), one statement per
counter row. A unit that fails takes its totals with it.
"""

from __future__ import annotations

import operator
import re
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..vault import Vault

Params = Mapping[str, Any] | None
Row = tuple[Any, ...]
# Writes summed totals: the counter rows (sorted keys: rows locked in one order) and what to
# add to each.
TotalsWriter = Callable[["UnitOfWork", list[tuple[Hashable, tuple[int, ...]]]], None]

_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_TRANSLATED: dict[tuple[str, str], str] = {}


def translate(sql: str, dialect: str) -> str:
    """``:name`` parameters for sqlite3 as they are; ``%(name)s`` for psycopg."""
    key = (sql, dialect)
    text = _TRANSLATED.get(key)
    if text is None:
        postgres = dialect == "postgresql"
        text = _PARAM.sub(r"%(\1)s", sql.replace("%", "%%")) if postgres else sql
        _TRANSLATED[key] = text
    return text


class UnitOfWork:
    """A transaction in progress on one connection; ``now`` is fixed for the whole of it.
    ``vault`` seals and opens the server seeds (``server.vault``): the database's."""

    __slots__ = ("_after_commit", "conn", "dialect", "now", "totals", "vault")

    def __init__(self, conn: Any, dialect: str, now: int, vault: Vault | None = None):
        self.conn = conn
        self.dialect = dialect
        self.now = now
        self.vault: Vault | None = vault
        self._after_commit: list[Callable[[], None]] = []
        self.totals: dict[TotalsWriter, dict[Hashable, tuple[int, ...]]] = {}

    @property
    def for_update(self) -> str:
        """Row lock suffix: PostgreSQL locks rows; SQLite has one writer, so needs none."""
        return " FOR UPDATE" if self.dialect == "postgresql" else ""

    def lock(self, alias: str) -> str:
        """Lock the rows of one table of a join (PostgreSQL); nothing to do on SQLite."""
        return f" FOR UPDATE OF {alias}" if self.dialect == "postgresql" else ""

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
        return self.conn.execute(translate(sql, self.dialect), params or {})

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
        rows = self.totals.setdefault(writer, {})
        old = rows.get(key)
        rows[key] = values if old is None else tuple(map(operator.add, old, values))

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once this work is committed (never if it is rolled back)."""
        self._after_commit.append(callback)

    def committed(self) -> None:
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()


def write_totals(into: UnitOfWork, units: Iterable[UnitOfWork | None]) -> None:
    """Write the summed totals of the committed ``units`` on ``into``'s transaction (just
    before its commit)."""
    merged: dict[TotalsWriter, dict[Hashable, tuple[int, ...]]] = {}
    for unit in units:
        if unit is None or not unit.totals:
            continue
        for writer, rows in unit.totals.items():
            into_rows = merged.setdefault(writer, {})
            for key, values in rows.items():
                old = into_rows.get(key)
                into_rows[key] = values if old is None else tuple(map(operator.add, old, values))
        unit.totals = {}
    for writer, rows in merged.items():
        writer(into, sorted(rows.items(), key=lambda row: repr(row[0])))


def is_unique_violation(error: BaseException) -> bool:
    if isinstance(error, sqlite3.IntegrityError):
        return "UNIQUE constraint failed" in str(error)
    return getattr(error, "sqlstate", None) == "23505"
