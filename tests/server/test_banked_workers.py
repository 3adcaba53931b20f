"""Two server processes on one PostgreSQL database, the banker connected to one and the
player to the other: the seat's events cross between them (LISTEN/NOTIFY), and a round is
played, settled and seen by both."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.kinds.banked import seats
from baccarat.server.play.events import WORKER_APPLICATION
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import (
    FakeClock,
    LiveServer,
    free_port,
    http,
    live,
    serve_argv,
    until_async,
    uvicorn_argv,
)
from .banked import Worker, bearer, seat_of, seat_when, serving

HELP_PAGE = "Td Kh 3s Kd Tc Qh"


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_banker_and_a_player_on_two_postgres_workers_play_a_round(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    env = {"BACCARAT_DATABASE_URL": database_url.target, "BACCARAT_TEST_STACK": HELP_PAGE,
           "BACCARAT_WEB_DIR": str(tmp_path / "none"), "BACCARAT_DB_THREADS": "4"}  # fmt: skip
    ports = free_port(), free_port()
    db = Database(database_url, clock=system_clock_us)
    argv = [uvicorn_argv("tests.server.apps:stacked", port) for port in ports]
    try:
        with (
            live(argv[0], env, tmp_path / "a.log", ports[0]) as a,
            live(argv[1], env, tmp_path / "b.log", ports[1]) as b,
        ):
            asyncio.run(_scenario(Worker(a.url, db), Worker(b.url, db)))
        report = db.run_read(audit.check)
        assert report.ok, report.problems
        assert report.counts["banked_rounds"] == 1 and report.totals["fun"]["house"] == 15
    finally:
        db.close()


async def _scenario(a: Worker, b: Worker) -> None:
    banker = await a.player("banker-on-a")
    player = await b.player("player-on-b")
    lobby = await connect(a.url.replace("http", "ws") + "/api/seats/ws",
                          additional_headers=bearer(banker.token))  # fmt: skip
    assert json.loads(await lobby.recv())["type"] == "seats"

    seat = await banker.sit("banked-i", "banker")  # on worker A
    assert json.loads(await lobby.recv())["seat"]["needs"] == ["player"]
    assert await player.sit("banked-i", "player") == seat  # on worker B
    # B's join reaches the banker's socket and the lobby on A.
    joined = await banker.state(lambda m: seat_of(m)["needs"] == [])
    assert seat_of(joined)["player"]["nickname"] == "player-on-b"
    assert json.loads(await lobby.recv())["seat"]["needs"] == []
    # A's approval reaches the player on B.
    assert (await banker.send("approve"))["ok"]
    turn = await player.state(lambda m: seat_of(m)["phase"] == "betting")
    assert seat_of(turn)["timer"]["role"] == "player"
    # The player's deal on B reaches the banker on A: the help page's example.
    dealt = await player.send("deal", bets={"banker": 1_000}, key="cross")
    assert dealt["ok"], dealt
    result = await banker.event("round")
    assert result["you"] == "banker" and result["private"]["net"] == 985
    assert (await player.event("round"))["private"]["net"] == -1_000
    (banked,) = await banker.history()
    assert banked["id"] == dealt["result"]["id"] and banked["role"] == "banker"
    for who in (banker, player):
        await who.disconnect()
    await lobby.close()
    await a.http.aclose()
    await b.http.aclose()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_workers_of_baccarat_serve_use_the_operators_decision_times(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    """`baccarat serve --workers 2` with the timers set away from 45 s / 35 s: every worker
    shows them in the table terms, and the deadlines the workers set follow them."""
    env = {"BACCARAT_DATABASE_URL": database_url.target, "BACCARAT_WEB_DIR": str(tmp_path / "none"),
           "BACCARAT_DB_THREADS": "2", "BACCARAT_BANKED_PLAYER_S": "61",
           "BACCARAT_BANKED_BANKER_S": "23"}  # fmt: skip
    port = free_port()
    argv = [*serve_argv(port, tmp_path / "data"), "--workers", "2"]
    db = Database(database_url, clock=system_clock_us)
    try:
        with live(argv, env, tmp_path / "serve.log", port) as server:
            for _ in range(8):  # a new connection each time: both workers answer some
                (banked,) = [t for t in http().get(server.url + "/api/tables").json()
                             if t["id"] == "banked-i"]  # fmt: skip
                assert banked["banked"]["player_seconds"] == 61
                assert banked["banked"]["banker_seconds"] == 23
            asyncio.run(_timers(Worker(server.url, db)))
    finally:
        db.close()


async def _timers(worker: Worker) -> None:
    banker = await worker.player("slow-banker")
    player = await worker.player("quick-player")
    seat = await banker.sit("banked-i", "banker")
    assert await player.sit("banked-i", "player") == seat
    approval = seat_of(await banker.state(lambda m: seat_of(m)["phase"] == "approval"))
    assert approval["timer"]["seconds"] == 23 and approval["terms"]["banker_seconds"] == 23
    assert 0 < approval["timer"]["remaining_ms"] <= 23_000  # not the default 35 s
    assert (await banker.send("approve"))["ok"]
    betting = seat_of(await player.state(lambda m: seat_of(m)["phase"] == "betting"))
    assert betting["timer"]["seconds"] == 61
    assert betting["timer"]["remaining_ms"] > 45_000  # more than the default 45 s
    row = await worker.read(lambda uow: seats.load(uow, seat, lock=False))
    assert row.deadline_us is not None
    assert row.deadline_us // 1_000_000 == _seconds(betting["timer"]["deadline"])
    for who in (banker, player):
        await who.disconnect()
    await worker.http.aclose()


def _seconds(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


@pytest.mark.anyio
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_worker_killed_with_kill_9_lets_its_players_go_after_the_grace(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    """A banker waits for a player on worker A, which dies (kill -9): no clean exit tells
    anyone. Worker B sees A's session gone and counts A's connections as closed: the banker
    has the reconnect grace, then leaves, and the seat is free again."""
    grace, clock = 5, FakeClock()
    env = {"BACCARAT_DATABASE_URL": database_url.target,
           "BACCARAT_WEB_DIR": str(tmp_path / "none"), "BACCARAT_DB_THREADS": "2"}  # fmt: skip
    port = free_port()
    a = LiveServer(uvicorn_argv("tests.server.apps:fair", port), port, env, tmp_path / "a.log")
    a.start()
    try:
        async with serving(database_url, tmp_path, clock, poll_s=0.05,
                           reconnect_grace=grace, worker_gone_s=0.5) as b:  # fmt: skip
            on_a = Worker(a.url, b.casino.db)
            banker = await on_a.player("stranded-banker")
            seat = await banker.sit("banked-i", "banker")  # connected to A
            assert await b.read(_presence) == 1
            a.kill()
            await banker.disconnect()
            await on_a.http.aclose()
            row = await seat_when(b, seat, lambda s: s.grace_us["banker"] is not None)
            assert row.banker_id == banker.id
            assert row.grace_us["banker"] == clock.now + grace * 1_000_000
            assert await b.read(_presence) == 0
            await b.advance(grace)
            row = await seat_when(b, seat, lambda s: s.banker_id is None)
            assert row.notice is not None and row.notice["code"] == "banker_disconnected"
            await b.check()
    finally:
        a.kill()


@pytest.mark.anyio
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_worker_whose_session_is_back_soon_is_not_taken_for_dead(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    """When PostgreSQL restarts, every worker's session ends and each comes back in its own
    time: a worker back first must not take the others for dead while their players'
    sockets are still open. A session missing for less than ``worker_gone_s`` is not a
    death; one missing for longer is."""
    import psycopg

    from baccarat.server.kinds.banked import timing

    async with serving(database_url, tmp_path, poll_s=0.05, worker_gone_s=1.0) as b:
        player = await b.player("still-here")
        seat = await player.sit("banked-i", "banker")
        ghost = "a1b2c3d4e5f6"  # another worker, whose session is away for now

        def present(uow: Any) -> None:
            timing.connected(uow, "conn-elsewhere", seat, player.id, ghost)

        await b.desk.write(lambda uow, ctx: present(uow))
        # The resolver looks every 0.05 s: missing for half the window is not yet a death.
        await asyncio.sleep(0.5)
        assert await b.read(_presence) == 2  # ours and the one on the other worker
        # Its session comes back within the window (the worker reconnected to PostgreSQL).
        with psycopg.connect(
            database_url.target, autocommit=True,
            application_name=WORKER_APPLICATION + ghost,
        ):  # fmt: skip
            await asyncio.sleep(1.5)
            assert await b.read(_presence) == 2
        # Away again, and for longer than the window: now it is dead, its connection closed.
        await until_async(lambda: b.read(_presence), "the dead worker is dropped",
                          done=lambda present: present == 1, timeout=15, every=0.1)  # fmt: skip
        row = await b.read(lambda uow: seats.load(uow, seat, lock=False))
        assert row.banker_id == player.id  # their own socket here is still open


def _presence(uow: Any) -> int:
    return int(uow.scalar("SELECT COUNT(*) FROM banked_presence"))
