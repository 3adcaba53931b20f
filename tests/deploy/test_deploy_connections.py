"""How many PostgreSQL connections a worker holds: what docs/deploy.md counts for
``max_connections``.

A worker's database runner opens a connection per reader thread and per writer thread when
each first needs one, and keeps it: ``2 x BACCARAT_DB_THREADS`` at most (the guide adds the
worker's LISTEN connection). The connection the worker's start used on its event loop's
thread (it reads the casino's accounts, as ``Casino.start`` does) is closed once the
runners start: kept, it would sit idle for the worker's life, one more than the guide
counts. Every reader and every writer is made busy at once, and the runner's sessions are
counted in ``pg_stat_activity``.
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest

from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import until
from ..server import postgres

THREADS = 3


def _sessions(admin_url: str) -> int:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = 'counted'"
        ).fetchone()
    assert row is not None
    return int(row[0])


def _sessions_become(admin_url: str, count: int) -> int:
    """The sessions once they are ``count`` (a closed connection's backend leaves
    ``pg_stat_activity`` a moment after the client closed it), or after 30 s."""
    return until(lambda: _sessions(admin_url), f"{count} sessions", done=lambda n: n == count)


def _keys_for_every_writer() -> list[str]:
    """One key per writer thread (a key's writer is its CRC-32 modulo the threads)."""
    keys: dict[int, str] = {}
    candidate = 0
    while len(keys) < THREADS:
        key = f"key-{candidate}"
        keys.setdefault(zlib.crc32(key.encode()) % THREADS, key)
        candidate += 1
    return list(keys.values())


def test_a_worker_holds_two_connections_a_database_thread_and_none_from_its_start(
    tmp_path: Path,
) -> None:
    try:
        cluster = postgres.Cluster()
    except (FileNotFoundError, OSError) as error:
        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")
    try:
        url = DatabaseUrl.parse(postgres.create_database(cluster.start().url, "counted"))
        migrate.upgrade(url)
        db = Database(url, clock=system_clock_us, threads=THREADS)
        try:
            db.run_read(SystemAccounts.load)  # the worker's start, on the loop's thread
            db.start()
            assert _sessions_become(cluster.url, 0) == 0

            async def all_busy() -> None:
                together = threading.Barrier(THREADS)

                def read(uow: Any) -> int:
                    together.wait(timeout=30)  # every reader thread at once
                    return int(uow.scalar("SELECT 1"))

                def one(uow: Any) -> int:
                    return int(uow.scalar("SELECT 1"))

                reads = [db.read(read) for _ in range(THREADS)]
                writes = [db.write(one, key) for key in _keys_for_every_writer()]
                assert await asyncio.gather(*reads, *writes) == [1] * (2 * THREADS)
                # More work than threads opens nothing more.
                more = [db.read(one) for _ in range(4 * THREADS)]
                more += [db.write(one, f"more-{i}") for i in range(4 * THREADS)]
                await asyncio.gather(*more)

            asyncio.run(all_busy())
            assert _sessions(cluster.url) == 2 * THREADS
        finally:
            db.close()
        assert _sessions_become(cluster.url, 0) == 0
    finally:
        cluster.remove()
