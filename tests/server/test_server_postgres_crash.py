"""kill -9 of PostgreSQL itself under load: every round a client was answered survives.

A durable throwaway cluster (fsync and synchronous_commit on, as in production: the suite's
shared cluster turns them off, which would make this test meaningless) serves two
``baccarat serve`` workers. Players hammer them with rounds; the postmaster is killed with
SIGKILL mid-flight (its backends die with it, the workers' batches are cut off anywhere);
PostgreSQL is started again (crash recovery from the WAL). Then ``baccarat admin check``
must pass, every round acknowledged with a 201 must be in the database, each player's
balance must equal the play money plus the net of their rounds, and the workers, which
outlived the database, must play on.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ..harness import LiveServer, free_port, until_async
from .crash import ACKNOWLEDGED, check_answered, load, register
from .postgres import Cluster, create_database

PLAYERS = 4


def _cluster() -> Cluster:
    try:
        return Cluster(durable=True)
    except (FileNotFoundError, OSError) as error:
        from . import postgres

        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")


def test_kill_9_of_the_postmaster_under_load_loses_no_answered_round(tmp_path: Path) -> None:
    cluster = _cluster()
    try:
        url = create_database(cluster.start().url, "crash")
        baccarat = str(Path(sys.executable).with_name("baccarat"))
        port = free_port()
        argv = [baccarat, "serve", "--port", str(port), "--database", url, "--workers", "2"]
        env = {"BACCARAT_WEB_DIR": str(tmp_path / "none")}
        server = LiveServer(argv, port, env, tmp_path / "serve.log").start()
        acknowledged: list[tuple[str, str]] = []
        try:

            async def setup_and_load() -> list[str]:
                async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                    tokens = [await register(client, f"pgcrash{i}") for i in range(PLAYERS)]
                await load(server.url, tokens, acknowledged, cluster.kill, settle_s=0.5)
                return tokens

            tokens = asyncio.run(setup_and_load())
            assert len(acknowledged) >= ACKNOWLEDGED
            cluster.start()  # crash recovery

            checked = subprocess.run(
                [baccarat, "admin", "--database", url, "check"],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            assert checked.returncode == 0, checked.stdout + checked.stderr
            assert "ledger OK" in checked.stdout
            asyncio.run(_verify(server.url, tokens, acknowledged))
        finally:
            server.stop()
    finally:
        cluster.remove()


async def _verify(url: str, tokens: list[str], acknowledged: list[tuple[str, str]]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        # The workers reconnect by themselves once PostgreSQL is back.
        again = await until_async(
            lambda: client.post(
                "/api/tables/table-i/rounds",
                json={"mode": "fun", "bets": {"banker": 500}},
                headers={"Authorization": f"Bearer {tokens[0]}", "Idempotency-Key": "after"},
            ),
            "a round played after the restart", done=lambda again: again.status_code == 201,
            timeout=60, every=0.2,
        )  # fmt: skip
        assert again.status_code == 201, again.text
        await check_answered(client, tokens, acknowledged)
