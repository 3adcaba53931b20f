"""Two `baccarat serve` processes started separately (their own ports, as on two hosts) on
one PostgreSQL database are one casino: a player-banked seat whose banker is on one and
whose player is on the other plays a round; a retried request that lands on the other
process gets the first answer; a deadline is resolved once although both processes run a
resolver."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import free_port, live
from .banked import Participant, Worker, seat_of

PLAYER_S = 4


def serve(port: int, url: str) -> list[str]:
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    return [baccarat, "serve", "--port", str(port), "--database", url, "--workers", "1"]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_two_serve_processes_on_one_postgres_are_one_casino(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    env = {"BACCARAT_WEB_DIR": str(tmp_path / "none"), "BACCARAT_DB_THREADS": "2",
           "BACCARAT_BANKED_PLAYER_S": str(PLAYER_S)}  # fmt: skip
    ports = free_port(), free_port()
    db = Database(database_url, clock=system_clock_us)
    try:
        with (
            live(serve(ports[0], database_url.target), env, tmp_path / "a.log", ports[0]) as a,
            live(serve(ports[1], database_url.target), env, tmp_path / "b.log", ports[1]) as b,
        ):
            asyncio.run(_scenario(Worker(a.url, db), Worker(b.url, db)))
        report = db.run_read(audit.check)
        assert report.ok, report.problems

        def kinds(uow: Any) -> dict[str, int]:
            rows = uow.all("SELECT kind, COUNT(*) FROM ledger_transactions GROUP BY kind")
            return {kind: int(count) for kind, count in rows}

        counted = db.run_read(kinds)
        # Two approvals; one round dealt; the player's bets of the second round returned
        # and the banker's reserve released once, by whichever process came first.
        assert counted["banked_reserve"] == 2 and counted["banked_round"] == 1
        assert counted["banked_bet_return"] == 1 and counted["banked_release"] == 1
        assert counted["round"] == 1  # the house round, retried on the other process
    finally:
        db.close()


async def _scenario(a: Worker, b: Worker) -> None:
    banker = await a.player("banker-on-a")
    player = await b.player("player-on-b")
    try:
        seat = await banker.sit("banked-i", "banker")
        assert await player.sit("banked-i", "player") == seat
        await banker.state(lambda m: seat_of(m)["needs"] == [])
        assert (await banker.send("approve"))["ok"]
        await player.state(lambda m: seat_of(m)["phase"] == "betting")

        # DEAL on B, the same request again on A: the first answer, nothing dealt twice.
        first = await player.deal_rest(seat, key="deal-once", player=500)
        assert first.status_code == 201, first.text
        on_a = Participant(a, player.nickname, player.token, player.id)  # type: ignore[arg-type]
        again = await on_a.deal_rest(seat, key="deal-once", player=500)
        assert again.status_code == 201 and again.json() == first.json()
        assert again.headers.get("Idempotent-Replayed") == "true"
        await banker.event("round")

        # A house round on A, retried on B.
        body = {"mode": "fun", "bets": {"banker": 500}}
        played = await banker.call("POST", "/api/tables/table-i/rounds", body,
                                   **{"Idempotency-Key": "house-once"})  # fmt: skip
        assert played.status_code == 201, played.text
        banker_on_b = Participant(b, banker.nickname, banker.token, banker.id)  # type: ignore[arg-type]
        replay = await banker_on_b.call("POST", "/api/tables/table-i/rounds", body,
                                        **{"Idempotency-Key": "house-once"})  # fmt: skip
        assert replay.status_code == 201 and replay.json() == played.json()

        # The player bets and never deals: the deadline passes; one of the two resolvers
        # makes the player leave, the bets come back once.
        assert (await banker.send("approve"))["ok"]
        await player.state(lambda m: seat_of(m)["phase"] == "betting")
        assert (await player.send("bets", bets={"banker": 500}))["ok"]
        timed_out = await banker.state(
            lambda m: (seat_of(m)["notice"] or {}).get("code") == "player_timeout"
        )
        assert seat_of(timed_out)["player"] is None
    finally:
        for who in (banker, player):
            await who.disconnect()
        await a.http.aclose()
        await b.http.aclose()
