"""A shared table on PostgreSQL with two server processes: kill -9 of one around the close.

Both processes run the table's clock (every transition is taken under the table's row lock
and checks the deadlines stored in the rows). One process is killed with SIGKILL at the
coup's close; the other deals and settles the coup within seconds, exactly once: each
bettor has one round of it, and ``baccarat admin check`` passes.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from ..harness import LiveServer, free_port, until_async
from .crash import register
from .postgres import create_database

TABLES = """
[[table]]
id = "quick"
name = "Quick"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = { betting_s = 3, result_s = 1 }
"""


def test_kill_9_of_a_worker_at_the_close_deals_the_coup_once(
    tmp_path: Path, postgres_admin_url: str
) -> None:
    url = create_database(postgres_admin_url, "shared_kill")
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    env = {"BACCARAT_WEB_DIR": str(tmp_path / "none")}
    servers = []
    for name in ("a", "b"):
        port = free_port()
        argv = [baccarat, "serve", "--port", str(port), "--database", url, "--workers", "1",
                "--tables", str(tables)]  # fmt: skip
        servers.append(LiveServer(argv, port, env, tmp_path / f"{name}.log").start())
    first, second = servers
    try:
        asyncio.run(_play(first, second))
        checked = subprocess.run(
            [baccarat, "admin", "--database", url, "check"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "3 shared rounds" in checked.stdout
    finally:
        for server in servers:
            server.stop()


async def _state(client: httpx.AsyncClient) -> dict[str, Any]:
    answer = await client.get("/api/tables/quick/state")
    assert answer.status_code == 200, answer.text
    value: dict[str, Any] = answer.json()
    return value


async def _play(first: LiveServer, second: LiveServer) -> None:
    async with (
        httpx.AsyncClient(base_url=first.url, timeout=30) as a,
        httpx.AsyncClient(base_url=second.url, timeout=30) as b,
    ):
        tokens = [await register(a, name) for name in ("kim", "lou", "max")]

        async def both_watch() -> dict[str, Any]:
            now, _ = await _state(a), await _state(b)
            return now

        now = await until_async(  # both watch the table; a fresh window with time to bet
            both_watch, "a fresh window with time to bet", every=0.1,
            done=lambda now: now["phase"] == "betting"
            and now["closes_at"] - now["server_time"] > 1_500_000,
        )  # fmt: skip
        coup = now["coup"]
        for i, token in enumerate(tokens):
            placed = await a.put(
                f"/api/tables/quick/coups/{coup}/bets",
                json={"mode": "fun", "bets": {"banker": 500}},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"k{i}"},
            )
            assert placed.status_code == 200, placed.text
        now = await _state(a)
        await asyncio.sleep(max(0.0, (now["closes_at"] - now["server_time"]) / 1e6 - 0.05))
        first.kill()  # around the close: whichever was dealing, the other must finish

        async def seen_coup() -> dict[str, Any]:
            seen: dict[str, Any] = (await b.get(f"/api/tables/quick/coups/{coup}")).json()
            return seen

        await until_async(seen_coup, "the coup is dealt on the other worker", timeout=15,
                          every=0.1, done=lambda seen: seen["result"] is not None)  # fmt: skip
        for token in tokens:
            mine = await b.get(
                f"/api/tables/quick/coups/{coup}", headers={"Authorization": f"Bearer {token}"}
            )
            assert mine.json()["bets"]["fun"]["returned"] is not None
            page = await b.get("/api/history", headers={"Authorization": f"Bearer {token}"})
            assert [r["shared"]["coup"] for r in page.json()["items"]] == [coup]
        # The table goes on: the next window opens on the surviving worker.
        await until_async(lambda: _state(b), "the next window opens", timeout=15, every=0.1,
                          done=lambda now: now["coup"] != coup)  # fmt: skip
