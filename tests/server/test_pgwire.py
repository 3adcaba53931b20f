"""PostgreSQL statements through libpq's pipeline (``db.pgwire``): the same values and errors
as psycopg's cursors give, statements prepared once and only once the server said so, and a
connection that stays usable after a failure."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from baccarat.server.db import pgwire
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl

from ..harness import FakeClock

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

_VALUES = (
    "SELECT CAST(:i AS BIGINT), CAST(:t AS TEXT), CAST(:n AS TEXT), CAST(:b AS BOOLEAN), "
    "CAST(:a AS BIGINT[]), CAST(:y AS BYTEA), CAST(:j AS JSONB), 1.5::numeric, :i + 1"
)
_PARAMS = {"i": 10**12, "t": "ünïcode", "n": None, "b": True, "a": [1, 2], "y": b"\x00\x01",
           "j": '{"a": [1]}'}  # fmt: skip


@pytest.fixture
def session(database_url: DatabaseUrl) -> Iterator[Any]:
    """The database's own kind of connection: psycopg's, with a wire."""
    database = Database(database_url, clock=FakeClock(), threads=1)
    conn = database.connect()
    try:
        conn.execute("CREATE TABLE wire_test (id BIGINT PRIMARY KEY, v TEXT)")
        conn.commit()
        yield conn
    finally:
        conn.close()
        database.close()


def _psycopg(session: Any, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    query, names = pgwire._query(sql)
    text = query.decode()
    for i in reversed(range(len(names))):
        text = text.replace(f"${i + 1}", f"%({names[i]})s")
    rows: list[tuple[Any, ...]] = session._conn.execute(text, params).fetchall()
    return rows


def test_values_come_back_as_psycopgs_cursors_give_them(session: Any) -> None:
    (got,) = session.exchange([(_VALUES, _PARAMS)])
    expected = _psycopg(session, _VALUES, _PARAMS)
    assert got.fetchall() == expected
    assert expected[0][0] == 10**12 and expected[0][6] == {"a": [1]}
    # A second time, prepared: the same.
    (again,) = session.exchange([(_VALUES, _PARAMS)])
    assert again.rows == expected and again.rowcount == 1
    session.rollback()


def test_rows_changed_and_rows_read_in_one_round_trip(session: Any) -> None:
    insert = "INSERT INTO wire_test (id, v) VALUES (:id, :v)"
    results = session.exchange([
        (insert, {"id": 1, "v": "a"}), (insert, {"id": 2, "v": "b"}),
        ("UPDATE wire_test SET v = v || :x WHERE id >= :low", {"x": "!", "low": 1}),
        ("SELECT id, v FROM wire_test ORDER BY id", None),
    ])  # fmt: skip
    assert [r.rowcount for r in results] == [1, 1, 2, 2]
    assert results[3].fetchone() == (1, "a!")
    assert results[3].fetchall() == [(2, "b!")] and results[3].fetchone() is None
    session.commit()
    assert session._conn.execute("SELECT count(*) FROM wire_test").fetchone() == (2,)
    session.rollback()


def test_a_failure_is_raised_as_psycopgs_error_and_the_connection_goes_on(session: Any) -> None:
    insert = "INSERT INTO wire_test (id, v) VALUES (:id, :v)"
    session.exchange([(insert, {"id": 1, "v": "a"})])
    session.commit()
    never_prepared = "SELECT v FROM wire_test WHERE id = :id AND v <> :not"
    with pytest.raises(psycopg.errors.UniqueViolation) as raised:
        session.exchange(
            [(insert, {"id": 1, "v": "again"}), (never_prepared, {"id": 1, "not": "x"})]
        )
    assert raised.value.sqlstate == "23505"
    session.rollback()
    # The statement after the failure was not run, nor prepared: it is prepared now.
    (row,) = session.exchange([(never_prepared, {"id": 1, "not": "x"})])
    assert row.rows == [("a",)]
    session.rollback()


def test_statements_stay_prepared_across_rollbacks(session: Any) -> None:
    """psycopg deallocates every prepared statement of the session at a rollback if it had
    prepared any itself (after a statement's fifth use): on these connections it never
    does, so the wire's stay."""
    select = "SELECT v FROM wire_test WHERE id = :id"
    session.exchange([(select, {"id": 1})])
    session.exchange([(select, {"id": 1})])  # prepared at its second use
    for _ in range(8):
        session.execute("SELECT v FROM wire_test WHERE id = %s", [1])  # through psycopg
    session.rollback()
    prepared = session._conn.execute("SELECT name FROM pg_prepared_statements").fetchall()
    assert prepared == [("_w0",)]
    session.rollback()


def test_statements_are_prepared_at_their_second_use_up_to_a_maximum(
    session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A statement sent once (a list of values of a length seen once) is not kept on the
    server; past the maximum, statements are sent unprepared, and still answered."""
    monkeypatch.setattr(pgwire, "PREPARED_MAX", 2)
    once = "SELECT CAST(:x AS BIGINT) + 100"
    assert session.exchange([(once, {"x": 1})])[0].rows == [(101,)]
    answers = [
        [r.rows for r in session.exchange([(f"SELECT CAST(:x AS BIGINT) + {k}", {"x": 1})] * 2)]
        for k in range(4)
    ]
    assert answers == [[[(1 + k,)], [(1 + k,)]] for k in range(4)]
    names = session._conn.execute("SELECT name, statement FROM pg_prepared_statements")
    assert sorted(names.fetchall()) == [("_w0", "SELECT CAST($1 AS BIGINT) + 0"),
                                        ("_w1", "SELECT CAST($1 AS BIGINT) + 1")]  # fmt: skip
    session.rollback()


def test_a_missing_value_is_refused_before_anything_is_sent(session: Any) -> None:
    with pytest.raises(KeyError):
        session.exchange([("SELECT CAST(:a AS BIGINT), CAST(:b AS BIGINT)", {"a": 1})])
    # Nothing was sent: the connection is as it was, out of any transaction.
    assert session.exchange([("SELECT 1", None)])[0].rows == [(1,)]
    session.rollback()
