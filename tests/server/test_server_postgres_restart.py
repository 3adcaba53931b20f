"""PostgreSQL restarted or crashed under running workers: once it is back, no request fails.

Each worker keeps its database connections (writers and readers) between requests. A
restart of PostgreSQL (``pg_ctl stop -m fast``, what ``systemctl restart postgresql``
does) or a crash of it (kill -9 of the postmaster, then crash recovery at start) ends every
one of those sessions, and a kept connection learns of it only when it is next used. The
players first play on both workers, so that the pools hold connections (counted in
``pg_stat_activity``); then PostgreSQL goes down and comes back with nobody playing; then
every player plays rounds and reads their wallet, all at once: every request must be
answered on its first try (no 503 for a stale connection), and the ledger checks out.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import LiveServer, free_port, uvicorn_argv
from . import postgres

PLAYERS = 6
THREADS = 2  # per worker: two writer and two reader connections at most
_keys = itertools.count()


def _cluster() -> postgres.Cluster:
    try:
        # Durable, as in production: without synchronous commits a crash would lose rounds
        # that were answered, which is not what this test is about.
        return postgres.Cluster(durable=True)
    except (FileNotFoundError, OSError) as error:
        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")


def _down_and_up(cluster: postgres.Cluster, how: str) -> None:
    if how == "restart":
        cluster._pg_ctl("-m", "fast", "-w", "stop")  # sessions told, then ended
    else:
        cluster.kill()  # kill -9 of the postmaster: its backends end with it
    cluster.start()  # returns once PostgreSQL accepts connections again


def _pooled_sessions(url: str) -> int:
    """The server's sessions on its database, apart from the workers' LISTEN ones."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND application_name NOT LIKE 'baccarat-worker %'"
        ).fetchone()
    assert row is not None
    return int(row[0])


async def _register(client: httpx.AsyncClient, nickname: str) -> str:
    body = {"nickname": nickname, "password": "a good password"}
    created = await client.post("/api/accounts", json=body)
    assert created.status_code == 201, created.text
    session = await client.post("/api/sessions", json=body)
    assert session.status_code == 201, session.text
    token: str = session.json()["token"]
    return token


async def _play(client: httpx.AsyncClient, token: str) -> list[tuple[str, int, str]]:
    """Two rounds and a read of the wallet, each request as it was answered."""
    headers = {"Authorization": f"Bearer {token}"}
    answers = []
    for _ in range(2):
        played = await client.post(
            "/api/tables/table-i/rounds",
            json={"mode": "fun", "bets": {"banker": 200}},
            headers=headers | {"Idempotency-Key": f"restart-{next(_keys)}"},
        )
        answers.append(("round", played.status_code, played.text))
    wallet = await client.get("/api/wallet", headers=headers)
    answers.append(("wallet", wallet.status_code, wallet.text))
    return answers


async def _everyone_plays(url: str, tokens: list[str]) -> list[tuple[str, int, str]]:
    # A new connection for every request: the workers share the listening socket, and
    # each new connection may go to either of them.
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        played = await asyncio.gather(*(_play(client, token) for token in tokens))
    return [answer for answers in played for answer in answers]


@pytest.mark.parametrize("how", ["restart", "crash"])
def test_after_postgres_restarts_or_crashes_no_request_fails_for_a_stale_connection(
    how: str, tmp_path: Path
) -> None:
    cluster = _cluster()
    try:
        url = postgres.create_database(cluster.start().url, "restart")
        port = free_port()
        env = {"BACCARAT_DATABASE_URL": url, "BACCARAT_DB_THREADS": str(THREADS),
               "BACCARAT_WEB_DIR": str(tmp_path / "none")}  # fmt: skip
        argv = uvicorn_argv("tests.server.apps:fair", port, workers=2)
        server = LiveServer(argv, port, env, tmp_path / "serve.log").start()
        try:

            async def before() -> tuple[list[str], list[tuple[str, int, str]]]:
                async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                    tokens = [await _register(client, f"restart{i}") for i in range(PLAYERS)]
                return tokens, await _everyone_plays(server.url, tokens)

            tokens, warm_up = asyncio.run(before())
            assert all(status in (200, 201) for _, status, _ in warm_up), warm_up
            # The pools hold connections: each of them is stale once PostgreSQL is back.
            assert _pooled_sessions(url) >= 2

            _down_and_up(cluster, how)

            after = asyncio.run(_everyone_plays(server.url, tokens))
            failed = [answer for answer in after if answer[1] not in (200, 201)]
            assert not failed, failed
            assert len(after) == PLAYERS * 3
        finally:
            server.stop()
        db = Database(DatabaseUrl.parse(url), clock=system_clock_us)
        try:
            report: Any = db.run_read(audit.check)
            assert report.ok, report.problems
            assert report.counts["rounds"] == PLAYERS * 4
        finally:
            db.close()
    finally:
        cluster.remove()
