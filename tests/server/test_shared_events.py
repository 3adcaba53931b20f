"""A shared table's events: each transition says what it did as frozen records, which reach
every worker's feed through the event bus; the sockets are told from them, never from a
comparison of two reads of the table."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection

from baccarat.server.kinds.shared import clock, feed
from baccarat.server.kinds.shared.events import (
    BetsChanged,
    CoupDealt,
    ShoeChanged,
    WindowOpened,
    parse,
)
from baccarat.server.settings import DatabaseUrl

from ..harness import Api
from .banked import WAIT_S, SeatServer, bearer, serving
from .conftest import both_backends
from .sharedtables import TABLE, received, state, typed, watch

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> Any:
    async with serving(database_url, tmp_path) as running:
        yield running


def test_every_event_goes_over_the_bus_as_json_and_back() -> None:
    events = [
        ShoeChanged(TABLE, {"id": 3, "finished": True, "server_seed": "ab" * 32}),
        WindowOpened(TABLE, 7, 2, 1_790_000_012_000_000),
        BetsChanged(TABLE),
        CoupDealt(TABLE, 7, "9h Kd", "2c 3s 4d", "player", 17, 1_790_000_018_000_000),
    ]
    for event in events:
        data = json.loads(json.dumps(event.to_json()))
        assert data["table_id"] == TABLE and parse(data) == event
    assert parse({"type": "state", "seat_id": "s"}) is None


async def test_each_transition_says_what_it_did(api: Api) -> None:
    await api.app.state.shared.stop()  # no dealer task: the transitions are these alone
    table, dealer = api.casino.tables[TABLE], api.casino.dealer
    db = api.casino.db
    db.run_write(lambda uow: clock.watch(uow, [TABLE]))
    opened = db.run_write(lambda uow: clock.advance(uow, dealer, table))
    shoe, window = opened
    assert isinstance(shoe, ShoeChanged) and isinstance(window, WindowOpened)
    assert shoe.shoe["coups_dealt"] == 0 and shoe.shoe["server_seed"] is None
    now = await state(api)
    assert (window.coup, window.number, window.closes_at) == (
        now["coup"], now["number"], now["closes_at"])  # fmt: skip
    assert db.run_write(lambda uow: clock.advance(uow, dealer, table)) == []  # nothing due
    api.clock.advance(12)
    (dealt,) = db.run_write(lambda uow: clock.advance(uow, dealer, table))
    assert isinstance(dealt, CoupDealt) and dealt.coup == window.coup
    now = await state(api)
    assert clock.cards_json(dealt.player_cards, dealt.banker_cards, dealt.winner,
                            dealt.position) == now["result"]  # fmt: skip
    assert dealt.next_at == now["next_at"]


@both_backends
async def test_the_sockets_are_told_from_the_events_without_reading_the_table(
    server: SeatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed, "QUIET_S", 0.05)  # the follower looks at the clock often
    reads: list[list[int]] = []  # the feed's reads of the table's state
    read_states = feed.states

    def counted(uow: Any, table: Any, mode: str, player_ids: list[int]) -> Any:
        reads.append(player_ids)
        return read_states(uow, table, mode, player_ids)

    monkeypatch.setattr(feed, "states", counted)
    bettor = await server.player("alice")
    desk = server.app.state.shared
    async with watch(server) as anonymous, watch(server, bettor.token) as own:
        told: list[dict[str, Any]] = [await received(anonymous, typed("state"))]
        await received(own, typed("state"))
        await desk.tick()
        told += [await next_message(anonymous) for _ in range(3)]
        coup = told[2]["coup"]
        placed = await server.http.put(
            f"/api/tables/{TABLE}/coups/{coup}/bets",
            json={"mode": "fun", "bets": {"player": 500}},
            headers={**bearer(bettor.token), "Idempotency-Key": "k1"},
        )
        assert placed.status_code == 200, placed.text
        told.append(await next_message(anonymous))
        server.clock.advance(12)
        told += [await next_message(anonymous) for _ in range(2)]
        await desk.tick()
        told += [await next_message(anonymous) for _ in range(3)]
        assert [m["type"] for m in told] == [
            "state", "shoe", "open", "totals", "totals", "closed", "totals", "dealt", "settled",
            "totals"]  # fmt: skip
        assert told[1]["shoe"]["coups_dealt"] == 0
        assert told[3]["players"] == 0 and told[4]["players"] == 1
        assert told[4]["totals"]["player"] == {"players": 1, "amount": 500}
        assert told[7]["coup"] == coup and told[7]["result"]["winner"] is not None
        assert told[8]["you"] is None and told[9]["players"] == 1
        assert reads == [[]]  # its first: what changed since came with the events
        mine = await received(own, typed("settled"))
        assert mine["you"]["stake"] == 500 and mine["you"]["returned"] is not None
        # Events may have been lost (the listening session came back): every socket gets
        # the table's state again, each with its own bets and result (as settled told it).
        desk.feed.refresh_all()
        again = await received(own, typed("state"))
        assert again["coup"] == coup and again["you"] == {"bets": {"player": 500}} | mine["you"]
        assert "you" not in await received(anonymous, typed("state"))
        assert reads == [[], [bettor.id]]  # one read for every socket


async def next_message(ws: ClientConnection) -> dict[str, Any]:
    async with asyncio.timeout(WAIT_S):
        message: dict[str, Any] = json.loads(await ws.recv())
        return message
