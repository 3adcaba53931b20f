"""Statements to PostgreSQL in one round trip each batch, on libpq's pipeline (psycopg's
``pq``), without psycopg's cursors.

psycopg's cursor spends about 25 µs of Python on each statement (its query conversion, its
cursor, its pipeline's bookkeeping): ten prepared updates and a commit in one pipeline took
290 µs of CPU through it and 41 µs through libpq straight, on this machine. A round's ten
statements made that most of a PostgreSQL worker's CPU. What is kept of psycopg is the
connection, its C adaptation of parameters and results (``Transformer``: the same types
both ways as its cursors) and its errors (the same classes and SQLSTATEs).

A statement is prepared on the connection the second time it is sent (named ``_w<n>``:
one sent once, a list of values of a length seen once, is not kept on the server), at most
``PREPARED_MAX`` of them (past that, sent unprepared), and known prepared only once the
server said so: a prepare that an earlier failure in its pipeline skipped is sent again
next time.
"""

from __future__ import annotations

import contextlib
import re
import select
from collections.abc import Mapping, Sequence
from typing import Any

from psycopg import errors, pq
from psycopg.adapt import PyFormat, Transformer

Row = tuple[Any, ...]
Statement = tuple[str, Mapping[str, Any] | None]

PREPARED_MAX = 256  # statements one connection keeps prepared
_SEEN_MAX = 4096  # statements counted towards their second use (a full count is emptied)
_QUERIES_MAX = 4096  # statement texts translated and kept (a full set is emptied)
_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_QUERIES: dict[str, tuple[bytes, tuple[str, ...]]] = {}
_TUPLES_OK, _COMMAND_OK = pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK
_FATAL, _SYNC = pq.ExecStatus.FATAL_ERROR, pq.ExecStatus.PIPELINE_SYNC
_ABORTED = pq.ExecStatus.PIPELINE_ABORTED


def _query(sql: str) -> tuple[bytes, tuple[str, ...]]:
    """``:name`` parameters as ``$n`` (a name used twice is one parameter), and the names
    in their order."""
    found = _QUERIES.get(sql)
    if found is None:
        names: list[str] = []

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in names:
                names.append(name)
            return f"${names.index(name) + 1}"

        if len(_QUERIES) >= _QUERIES_MAX:
            _QUERIES.clear()
        found = _QUERIES[sql] = (_PARAM.sub(number, sql).encode(), tuple(names))
    return found


class Result:
    """A statement's answer as a cursor gives it: its rows and how many it changed."""

    __slots__ = ("_at", "rowcount", "rows")

    def __init__(self, rows: list[Row], rowcount: int) -> None:
        self.rows, self.rowcount, self._at = rows, rowcount, 0

    def fetchone(self) -> Row | None:
        if self._at >= len(self.rows):
            return None
        self._at += 1
        return self.rows[self._at - 1]

    def fetchall(self) -> list[Row]:
        rest, self._at = self.rows[self._at :], len(self.rows)
        return rest


class Wire:
    """One psycopg connection's pipeline: its prepared statements and its adaptation."""

    __slots__ = ("_pg", "_prepared", "_seen", "_tx")

    def __init__(self, conn: Any) -> None:
        self._pg = conn.pgconn
        self._tx = Transformer(conn)
        self._prepared: dict[tuple[bytes, tuple[int, ...]], bytes] = {}
        self._seen: set[tuple[bytes, tuple[int, ...]]] = set()  # sent once, not prepared

    def exchange(self, statements: Sequence[Statement], begin: bool) -> list[Result]:
        """Send the statements (after a BEGIN if ``begin``) in one pipeline and read their
        answers, one per statement; the first failure is raised once all are read, with
        the index of its statement (``statement_index``; -1: the BEGIN)."""
        pg, tx, prepared, seen = self._pg, self._tx, self._prepared, self._seen
        # Adapted before anything is sent: a value that cannot be leaves the connection as
        # it was.
        adapted: list[tuple[bytes, Any, tuple[int, ...], Any]] = []
        for sql, params in statements:
            query, names = _query(sql)
            if not names:
                adapted.append((query, None, (), None))
                continue
            if params is None:
                raise TypeError(f"no values for the parameters {', '.join(names)}")
            values = tx.dump_sequence([params[n] for n in names], [PyFormat.AUTO] * len(names))
            adapted.append((query, values, tuple(tx.types or ()), tx.formats))
        # What each answer will be: None, a statement's; a key and a name, a prepare's.
        sent: list[tuple[tuple[bytes, tuple[int, ...]], bytes] | None] = []
        preparing: dict[tuple[bytes, tuple[int, ...]], bytes] = {}
        pg.enter_pipeline_mode()
        try:
            if begin:
                pg.send_query_params(b"BEGIN", None)
                sent.append(None)
            for query, values, types, formats in adapted:
                key = (query, types)
                name = prepared.get(key) or preparing.get(key)
                if name is None and key not in seen:
                    if len(seen) >= _SEEN_MAX:
                        seen.clear()
                    seen.add(key)
                elif name is None and len(prepared) + len(preparing) < PREPARED_MAX:
                    name = preparing[key] = b"_w%d" % (len(prepared) + len(preparing))
                    pg.send_prepare(name, query, param_types=types)
                    sent.append((key, name))
                if name is None:
                    pg.send_query_params(query, values, param_types=types, param_formats=formats)
                else:
                    pg.send_query_prepared(name, values, param_formats=formats)
                sent.append(None)
            pg.pipeline_sync()
            results = _answers(pg)
        finally:
            if pg.pipeline_status != pq.PipelineStatus.OFF:
                # Answers left unread (an exception): the connection is broken anyway.
                with contextlib.suppress(Exception):
                    pg.exit_pipeline_mode()
        failure: errors.Error | None = None
        out: list[Result] = []
        index = -1 if begin else 0  # the statement an answer is of (a prepare's: the next)
        for what, result in zip(sent, results, strict=True):
            status = result.status
            if status == _FATAL:
                if failure is None:
                    failure = errors.error_from_result(result)
                    failure.statement_index = index  # type: ignore[attr-defined]
            elif what is not None:  # a prepare: known prepared once the server said so
                if status == _COMMAND_OK:
                    prepared[what[0]] = what[1]
            elif status == _TUPLES_OK:
                tx.set_pgresult(result)
                rows = tx.load_rows(0, result.ntuples, tuple)
                out.append(Result(rows, len(rows)))
            elif status != _ABORTED:
                out.append(Result([], result.command_tuples or 0))
            if what is None:
                index += 1
        if failure is not None:
            raise failure
        if begin:
            del out[0]
        return out


def _answers(pg: Any) -> list[pq.abc.PGresult]:
    """Every answer of a pipeline up to its sync, waiting on the socket as needed."""
    poll = select.poll()
    poll.register(pg.socket, select.POLLIN | select.POLLOUT)
    while pg.flush():  # what is left to send
        if any(event & select.POLLIN for _, event in poll.poll()):
            pg.consume_input()
    poll.modify(pg.socket, select.POLLIN)
    answers: list[pq.abc.PGresult] = []
    while True:
        while pg.is_busy():
            poll.poll()
            pg.consume_input()
        result = pg.get_result()
        if result is None:
            continue
        if result.status == _SYNC:
            return answers
        answers.append(result)
