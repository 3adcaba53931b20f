"""Fifty simultaneous rounds on one account whose balance covers ten: exactly ten succeed.

The shoe is stacked so that every bet loses (the banker's natural 9 against player bets).
In-process on SQLite (one writer, group commit) and PostgreSQL (writer threads with group
commit, row locks); then with two real uvicorn worker processes on one PostgreSQL database.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.server import accounts, ledger, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import Api, free_port, live, uvicorn_argv
from .conftest import BACKENDS
from .support import BANKER_WINS, StackedShoes

ROUNDS, COVERED, STAKE = 50, 10, 1_000  # $10 on table II ($5-50); $100 covers ten


async def fifty_rounds(client: httpx.AsyncClient, token: str) -> list[httpx.Response]:
    headers = {"Authorization": f"Bearer {token}"}

    async def one(i: int) -> httpx.Response:
        return await client.post(
            "/api/tables/table-ii/rounds",
            json={"mode": "real", "bets": {"player": STAKE}},
            headers=headers | {"Idempotency-Key": f"concurrent-{i}"},
        )

    return await asyncio.gather(*(one(i) for i in range(ROUNDS)))


def assert_exactly_ten(answers: list[httpx.Response]) -> None:
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * COVERED + [409] * (ROUNDS - COVERED)
    refused = {a.json()["error"]["code"] for a in answers if a.status_code == 409}
    assert refused == {"insufficient_funds"}
    afters = sorted(a.json()["balance_after"] for a in answers if a.status_code == 201)
    assert afters == [STAKE * k for k in range(COVERED)]


def assert_ledger(db: Database, nickname: str) -> None:
    report = db.run_read(audit.check)
    assert report.ok, report.problems
    assert report.counts["rounds"] == COVERED
    assert report.totals["real"]["house"] == COVERED * STAKE

    def balance(uow: Any) -> int:
        return wallet.balances(uow, accounts.require(uow, nickname).id)["real"]

    assert db.run_read(balance) == 0


@pytest.mark.anyio
@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_fifty_simultaneous_rounds_in_process(api: Api) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)
    token = await api.player("eve")
    system = api.casino.system

    def fund(uow: Any) -> None:
        wallet.deposit(uow, accounts.require(uow, "eve").id, COVERED * STAKE, system)

    await api.casino.db.write(fund)
    assert_exactly_ten(await fifty_rounds(api.client, token))
    report = await api.casino.db.read(audit.check)
    assert report.ok, report.problems
    assert report.counts["rounds"] == COVERED


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_fifty_simultaneous_rounds_on_two_postgres_workers(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    port = free_port()
    env = {"BACCARAT_DATABASE_URL": database_url.target, "BACCARAT_TEST_STACK": BANKER_WINS,
           "BACCARAT_DB_THREADS": "8", "BACCARAT_WEB_DIR": str(tmp_path / "none")}  # fmt: skip
    db = Database(database_url, clock=system_clock_us)
    try:
        with live(uvicorn_argv("tests.server.apps:stacked", port, workers=2), env,
                  tmp_path / "server.log", port):  # fmt: skip

            async def scenario() -> list[httpx.Response]:
                limits = httpx.Limits(max_connections=ROUNDS)
                async with httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60
                ) as client:
                    body = {"nickname": "mallory", "password": "a good password"}
                    assert (await client.post("/api/accounts", json=body)).status_code == 201
                    token = (await client.post("/api/sessions", json=body)).json()["token"]

                    def fund(uow: Any) -> None:
                        player = accounts.require(uow, "mallory").id
                        wallet.deposit(
                            uow, player, COVERED * STAKE, ledger.SystemAccounts.load(uow)
                        )

                    db.run_write(fund)
                    return await fifty_rounds(client, token)

            assert_exactly_ten(asyncio.run(scenario()))
        assert_ledger(db, "mallory")
    finally:
        db.close()
