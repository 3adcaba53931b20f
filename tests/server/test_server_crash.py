"""kill -9 under load: after a restart the ledger checks out and no round lacks its money.

The real command (``baccarat serve`` on SQLite, the fair derivation) is started, players
hammer it with rounds, the process group is killed with SIGKILL mid-flight, the server is
started again on the same data folder, and then ``baccarat admin check`` must pass, every
round the server acknowledged must be there, and each player's balance must equal the
starting play money plus the net of the rounds their history shows.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx

from ..harness import LiveServer, free_port, serve_argv
from .crash import ACKNOWLEDGED, PLAYERS, check_answered, load, register


def admin_check(data_dir: Path) -> subprocess.CompletedProcess[str]:
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    return subprocess.run(
        [baccarat, "admin", "--data-dir", str(data_dir), "check"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_kill_9_under_load_loses_no_money(tmp_path: Path) -> None:
    data_dir, port = tmp_path / "data", free_port()
    env = {"BACCARAT_WEB_DIR": str(tmp_path / "none")}
    first = LiveServer(serve_argv(port, data_dir), port, env, tmp_path / "first.log").start()
    acknowledged: list[tuple[str, str]] = []
    try:

        async def setup_and_load() -> list[str]:
            async with httpx.AsyncClient(base_url=first.url, timeout=30) as client:
                tokens = [await register(client, f"crash{i}") for i in range(PLAYERS)]
            await load(first.url, tokens, acknowledged, first.kill)
            return tokens

        tokens = asyncio.run(setup_and_load())
    finally:
        first.kill()
    assert len(acknowledged) >= ACKNOWLEDGED

    checked = admin_check(data_dir)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ledger OK" in checked.stdout

    second = LiveServer(serve_argv(port, data_dir), port, env, tmp_path / "second.log").start()
    try:

        async def verify() -> None:
            async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
                await check_answered(client, tokens, acknowledged)
                # The server plays on after the restart.
                again = await client.post(
                    "/api/tables/table-i/rounds",
                    json={"mode": "fun", "bets": {"banker": 500}},
                    headers={"Authorization": f"Bearer {tokens[0]}", "Idempotency-Key": "after"},
                )
                assert again.status_code == 201, again.text

        asyncio.run(verify())
    finally:
        second.stop()
    final = admin_check(data_dir)
    assert final.returncode == 0, final.stdout
