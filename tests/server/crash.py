"""Helpers of the kill -9 tests (test_server_crash, test_server_postgres_crash,
test_shared_workers): players hammering a server with rounds while it or its database is
killed, and the check that every round it answered is there, its money with it."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable

import httpx

from ..harness import until_async

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
