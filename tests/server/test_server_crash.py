"""kill -9 under load: after a restart the ledger checks out and no round lacks its money.

The real command (``baccarat serve`` on SQLite, the fair derivation) is started, players
hammer it with rounds, the process group is killed with SIGKILL mid-flight, the server is
started again on the same data folder, and then ``baccarat admin check`` must pass, every
round the server acknowledged must be there, and each player's balance must equal the
starting play money plus the net of the rounds their history shows.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx

from ..harness import LiveServer, free_port, serve_argv, until_async

PLAYERS, LOOPS, ACKNOWLEDGED = 4, 16, 150


async def register(client: httpx.AsyncClient, nickname: str) -> str:
    body = {"nickname": nickname, "password": "a good password"}
    assert (await client.post("/api/accounts", json=body)).status_code == 201
    token: str = (await client.post("/api/sessions", json=body)).json()["token"]
    return token


async def load(url: str, tokens: list[str], acknowledged: list[tuple[str, str]],
               kill: Callable[[], None], *, settle_s: float = 0.0) -> None:  # fmt: skip
    """Players hammer ``url`` with rounds; once 150 are answered, ``kill`` runs (in a
    thread), and after ``settle_s`` (what was in flight is answered or fails) they stop. A
    failed request is tried again until then: what is killed may be the database alone."""
    keys = itertools.count()
    stop = asyncio.Event()

    async def player_loop(client: httpx.AsyncClient, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        while not stop.is_set():
            try:
                answer = await client.post(
                    "/api/tables/table-i/rounds",
                    json={"mode": "fun", "bets": {"player": 200, "tie": 200}},
                    headers=headers | {"Idempotency-Key": f"crash-{next(keys)}"},
                )
            except httpx.HTTPError:
                await asyncio.sleep(0.05)
                continue
            if answer.status_code == 201:
                acknowledged.append((token, answer.json()["id"]))

    async def killer() -> None:
        await until_async(lambda: len(acknowledged) >= ACKNOWLEDGED, "rounds acknowledged",
                          timeout=300, every=0.01)  # fmt: skip
        await asyncio.to_thread(kill)
        await asyncio.sleep(settle_s)
        stop.set()

    limits = httpx.Limits(max_connections=LOOPS)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        loops = [player_loop(client, tokens[i % len(tokens)]) for i in range(LOOPS)]
        await asyncio.wait_for(asyncio.gather(killer(), *loops), timeout=180)


async def check_answered(
    client: httpx.AsyncClient, tokens: list[str], acknowledged: list[tuple[str, str]]
) -> None:
    """Every answered round is there, and each player's play money is the 1,000.00 they
    started with plus the net of the rounds their history shows."""
    for token, round_id in acknowledged:
        got = await client.get(
            f"/api/rounds/{round_id}", headers={"Authorization": f"Bearer {token}"}
        )
        assert got.status_code == 200, (round_id, got.text)
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        export = await client.get("/api/history/export", headers=auth)
        assert export.status_code == 200, export.text
        rounds = [json.loads(line) for line in export.text.splitlines()]
        net = sum(r["win"] - sum(b["stake"] for b in r["bets"].values()) for r in rounds)
        wallet = (await client.get("/api/wallet", headers=auth)).json()
        assert wallet["fun"] == 100_000 + net


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
