"""Fifty simultaneous rounds on one account whose balance covers ten: exactly ten succeed.

The shoe is stacked so that every bet loses (the banker's natural 9 against player bets).
In-process on SQLite (one writer, group commit) and PostgreSQL (writer threads with group
commit, row locks); then with two real uvicorn worker processes on one PostgreSQL database.
In real money and in play money (whose rounds, on PostgreSQL, read before their
transaction and write with its commit, each write checked against what was read).
"""

from __future__ import annotations

import asyncio
import functools
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
# The two workers' players, by the money they play (at the same time).
PLAYERS = {"real": "mallory", "fun": "trudy"}


async def fifty_rounds(client: httpx.AsyncClient, token: str, mode: str = "real"
                       ) -> list[httpx.Response]:  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"}

    async def one(i: int) -> httpx.Response:
        return await client.post(
            "/api/tables/table-ii/rounds",
            json={"mode": mode, "bets": {"player": STAKE}},
            headers=headers | {"Idempotency-Key": f"concurrent-{i}"},
        )

    return await asyncio.gather(*(one(i) for i in range(ROUNDS)))


def covers_ten(uow: Any, nickname: str, mode: str, system: ledger.SystemAccounts) -> None:
    """The player's balance in ``mode`` made ten stakes: a deposit of real money, play
    money's 1,000.00 brought down."""
    player = accounts.require(uow, nickname).id
    if mode == "real":
        wallet.deposit(uow, player, COVERED * STAKE, system)
        return
    account, balance = ledger.player_account(uow, player, "fun")
    ledger.transfer(uow, "adjustment", "fun", account, system.get("fun", "cashier"),
                    balance - COVERED * STAKE)  # fmt: skip


def assert_exactly_ten(answers: list[httpx.Response]) -> None:
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] * COVERED + [409] * (ROUNDS - COVERED)
    refused = {a.json()["error"]["code"] for a in answers if a.status_code == 409}
    assert refused == {"insufficient_funds"}
    afters = sorted(a.json()["balance_after"] for a in answers if a.status_code == 201)
    assert afters == [STAKE * k for k in range(COVERED)]


def fund(uow: Any, nickname: str, mode: str) -> None:
    covers_ten(uow, nickname, mode, ledger.SystemAccounts.load(uow))


def assert_ledger(db: Database, nicknames: dict[str, str]) -> None:
    """The books hold, and each player (by mode) lost their ten stakes to the house."""
    report = db.run_read(audit.check)
    assert report.ok, report.problems
    assert report.counts["rounds"] == COVERED * len(nicknames)
    assert report.totals["real"]["house"] == COVERED * STAKE

    def balances(uow: Any) -> list[int]:
        return [wallet.balances(uow, accounts.require(uow, nickname).id)[mode]
                for mode, nickname in nicknames.items()]  # fmt: skip

    assert db.run_read(balances) == [0] * len(nicknames)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["real", "fun"])
@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_fifty_simultaneous_rounds_in_process(api: Api, mode: str) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)
    token = await api.player("eve")
    system = api.casino.system
    await api.casino.db.write(lambda uow: covers_ten(uow, "eve", mode, system))
    assert_exactly_ten(await fifty_rounds(api.client, token, mode))
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

            async def scenario() -> list[list[httpx.Response]]:
                limits = httpx.Limits(max_connections=2 * ROUNDS)
                async with httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60
                ) as client:
                    tokens = []
                    for mode, nickname in PLAYERS.items():
                        body = {"nickname": nickname, "password": "a good password"}
                        created = await client.post("/api/accounts", json=body)
                        assert created.status_code == 201
                        session = await client.post("/api/sessions", json=body)
                        tokens.append(session.json()["token"])
                        db.run_write(functools.partial(fund, nickname=nickname, mode=mode))
                    return list(await asyncio.gather(*(
                        fifty_rounds(client, token, mode)
                        for token, mode in zip(tokens, PLAYERS, strict=True)
                    )))  # fmt: skip

            for answers in asyncio.run(scenario()):
                assert_exactly_ten(answers)
        assert_ledger(db, PLAYERS)
    finally:
        db.close()
