"""The least CPU a worker can spend on a PostgreSQL round with its design, measured alone
(no server, no other thread, warm caches): what ``bench/pg_breakdown.py``'s figures
should be set against.

* a round trip through the wire (``server/db/pgwire.py``: libpq's pipeline), with one
  statement (``SELECT 1``) and with a round's eleven-odd statements shaped as a house
  round's (a savepoint, reads by key returning a row, a nonce's ``UPDATE ... RETURNING``,
  a balance read with a sequence's value, a posting's update, the round's row of 25 values,
  the idempotency record with an answer of 700 bytes, a commit);
* the adaptation of those statements' parameters alone;
* the hand-off of a unit of work from the event loop (uvloop) to a writer thread and its
  answer back (``Condition`` and ``call_soon_threadsafe``, as ``db/pgwriter.py`` does), with
  1, 8 and 32 units in flight, against a callback on the loop itself (SQLite's way).

    .venv/bin/python bench/pg_floor.py [--count 3000]

Set against SQLite's whole round (``bench/pg_breakdown.py``'s SQLite phase): the target of
a PostgreSQL round at most 1.25x its workers' CPU leaves a quarter of it for everything
PostgreSQL adds (round trips, their statements, the hand-off, the GIL between threads).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server import postgres  # noqa: E402

_COLUMNS = [f"c{i}" for i in range(12)] + [f"s{i}" for i in range(12)]
_SCHEMA = (
    "CREATE TABLE t (id bigint PRIMARY KEY, a text, b bigint, c bigint, d text)",
    "CREATE TABLE r (seq bigserial, id text, "
    + ", ".join(f"{c} {'bigint' if c[0] == 'c' else 'text'}" for c in _COLUMNS)
    + ")",
    "CREATE TABLE k (player bigint, key text, response text)",
    "INSERT INTO t SELECT g, 'x' || g, g, g, repeat('y', 40) FROM generate_series(1, 1000) g",
)
_ROW = {"id": "r_0123456789abcdef0123"} | {
    c: (i * 1000 if c[0] == "c" else f"value {i}") for i, c in enumerate(_COLUMNS)
}
# A house round's statements, by their shape (the first unit of a batch: its savepoint).
ROUND = [
    ("SAVEPOINT unit", None),
    ("SELECT a, b, c, d FROM t WHERE id = :p AND a <> :k", {"p": 1, "k": "key"}),
    ("SELECT b, d FROM t WHERE id = :t", {"t": 2}),
    ("SELECT a, c FROM t WHERE id = :p", {"p": 3}),
    ("UPDATE t SET c = c + 1 WHERE id = :p AND a <> :m RETURNING a, b, c, d", {"p": 4, "m": "f"}),
    (
        "SELECT b, nextval(pg_get_serial_sequence('r', 'seq')) FROM t WHERE id = :p FOR UPDATE",
        {"p": 5},
    ),
    ("SELECT nextval(pg_get_serial_sequence('r', 'seq'))", None),
    ("UPDATE t SET b = b + :n WHERE id = :p AND b = :before", {"p": 5, "n": 1, "before": 5}),
    (
        f"INSERT INTO r (id, {', '.join(_COLUMNS)}) VALUES "
        f"(:id, {', '.join(':' + c for c in _COLUMNS)})",
        _ROW,
    ),
    (
        "INSERT INTO k (player, key, response) VALUES (:p, :k, :r)",
        {"p": 5, "k": "an idempotency key", "r": "x" * 700},
    ),
    ("RELEASE unit", None),
    ("COMMIT", None),
]


def _cpu_us(label: str, work: Callable[[], object], count: int) -> float:
    """``work``'s CPU (this thread's) and wall time, each in microseconds a call."""
    for _ in range(count // 10):
        work()
    wall, cpu = time.perf_counter(), time.thread_time()
    for _ in range(count):
        work()
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    print(f"  {label:<58} CPU {1e6 * cpu / count:6.1f} us, wall {1e6 * wall / count:6.1f} us")
    return 1e6 * cpu / count


def wire(count: int) -> None:
    import psycopg
    from psycopg.adapt import PyFormat

    from baccarat.server.db import pgwire

    cluster = postgres.Cluster()
    cluster.start()
    try:
        url = postgres.create_database(cluster.url, "floor")
        with psycopg.connect(url, autocommit=False) as conn:
            conn.prepare_threshold = None  # the wire prepares, as the server's does
            for sql in _SCHEMA:
                conn.execute(sql)
            conn.commit()
            pipe = pgwire.Wire(conn)
            print(f"a round trip through the wire ({len(ROUND)} statements of a round):")
            conn.execute("BEGIN")
            one = [("SELECT 1", None)]
            _cpu_us("SELECT 1, in a transaction", lambda: pipe.exchange(one, begin=False), count)
            conn.rollback()
            _cpu_us("BEGIN and a round's statements, to its COMMIT",
                    lambda: pipe.exchange(ROUND, begin=True), count)  # fmt: skip
            transformer = pipe._tx

            def adapt() -> None:
                for sql, params in ROUND:
                    _, names = pgwire._query(sql)
                    if names and params is not None:
                        transformer.dump_sequence([params[n] for n in names],
                                                  [PyFormat.AUTO] * len(names))  # fmt: skip

            _cpu_us("their parameters' adaptation alone", adapt, count * 5)
    finally:
        cluster.remove()


class _Writer:
    """A writer thread's queue and wake-up, as ``db/pgwriter.py`` has them: each unit of
    work answered on its loop with ``call_soon_threadsafe``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready = threading.Condition(self.lock)
        self.pending: collections.deque[tuple[asyncio.AbstractEventLoop, Any]] = collections.deque()
        self.stopping = False
        self.cpu = 0.0
        self.thread = threading.Thread(target=self._main, name="floor-writer")
        self.thread.start()

    def submit(self, loop: asyncio.AbstractEventLoop, future: Any) -> None:
        with self.lock:
            self.pending.append((loop, future))
            self.ready.notify()

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            self.ready.notify()
        self.thread.join()

    def _main(self) -> None:
        started = time.thread_time()
        while True:
            with self.lock:
                while not self.pending and not self.stopping:
                    self.ready.wait()
                if self.stopping and not self.pending:
                    break
                batch = list(self.pending)
                self.pending.clear()
            for loop, future in batch:
                loop.call_soon_threadsafe(future.set_result, None)
        self.cpu = time.thread_time() - started


async def _handed(count: int, flight: int, thread: bool) -> tuple[float, float]:
    """CPU per unit of work, in microseconds, of the loop and of the writer thread (0 on
    the loop alone)."""
    loop = asyncio.get_running_loop()
    writer = _Writer() if thread else None

    async def player() -> None:
        for _ in range(count // flight):
            future = loop.create_future()
            if writer is None:
                loop.call_soon(future.set_result, None)
            else:
                writer.submit(loop, future)
            await future

    started = time.thread_time()
    await asyncio.gather(*(player() for _ in range(flight)))
    cpu = time.thread_time() - started
    if writer is None:
        return 1e6 * cpu / count, 0.0
    writer.stop()
    return 1e6 * cpu / count, 1e6 * writer.cpu / count


def hand_off(count: int) -> None:
    import uvloop

    print("a unit of work handed to a writer thread and answered on the loop (no database):")
    for flight in (1, 8, 32):
        loop_us, thread_us = uvloop.run(_handed(count * 5, flight, True))
        alone_us, _ = uvloop.run(_handed(count * 5, flight, False))
        print(f"  {flight:2} in flight: loop {loop_us:5.1f} us + writer thread {thread_us:5.1f} "
              f"us a unit; on the loop alone {alone_us:5.1f} us")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="calls timed a figure (3000)")
    args = parser.parse_args()
    wire(args.count)
    hand_off(args.count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
