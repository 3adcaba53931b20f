"""``/api/tables/{id}/ws``: a shared table's events reach every watcher, each bettor's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.server.kinds.shared import feed
from baccarat.server.settings import DatabaseUrl

from .banked import SeatServer, bearer, serving
from .conftest import both_backends
from .sharedtables import TABLE, received, typed, watch

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> Any:
    async with serving(database_url, tmp_path) as running:
        yield running


@both_backends
async def test_every_watcher_gets_the_coup_and_each_bettor_their_own_result(
    server: SeatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No reading on a timer: what a bet or a deal changes reaches the sockets because the
    # transaction that made it told every worker (NOTIFY on PostgreSQL).
    monkeypatch.setattr(feed, "QUIET_S", 60.0)
    bettor = await server.player("alice")
    desk = server.app.state.shared
    async with watch(server) as anonymous, watch(server, bettor.token) as own:
        first = await received(anonymous, typed("state"))
        assert first["table_id"] == TABLE and "you" not in first
        assert "you" in await received(own, typed("state"))
        await desk.tick()  # watched: the window opens
        opened = await received(anonymous, typed("open"))
        assert opened["closes_at"] - opened["server_time"] == 12_000_000
        await received(own, typed("open"))
        coup = opened["coup"]
        placed = await server.http.put(
            f"/api/tables/{TABLE}/coups/{coup}/bets",
            json={"mode": "fun", "bets": {"banker": 1000}},
            headers={**bearer(bettor.token), "Idempotency-Key": "k1"},
        )
        assert placed.status_code == 200, placed.text
        totals = await received(anonymous, lambda m: m.get("type") == "totals" and m["players"])
        assert totals["totals"]["banker"] == {"players": 1, "amount": 1000}
        server.clock.advance(12)
        await desk.tick()
        seen = [await received(ws, typed("dealt")) for ws in (anonymous, own)]
        assert seen[0]["result"] == seen[1]["result"] and seen[0]["coup"] == coup
        settled = await received(own, typed("settled"))
        assert settled["you"]["stake"] == 1000 and settled["you"]["returned"] is not None
        assert (await received(anonymous, typed("settled")))["you"] is None
        await anonymous.send(json.dumps({"action": "ping"}))
        assert (await received(anonymous, typed("pong")))["type"] == "pong"


async def test_a_house_table_has_no_socket_and_a_bad_token_is_refused(server: SeatServer) -> None:
    async with watch(server, table="table-i") as ws:
        refused = json.loads(await ws.recv())
        assert refused["error"]["code"] == "not_a_shared_table"
    async with watch(server, "not-a-token") as ws:
        assert json.loads(await ws.recv())["error"]["code"] == "not_authenticated"
