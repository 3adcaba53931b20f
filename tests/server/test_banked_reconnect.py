"""The reconnect grace at player-banked seats: a participant whose last socket closes keeps
the seat for ``reconnect_grace`` seconds (10 here, the default). Coming back in time
changes nothing; not coming back does exactly what a disconnect did without a grace (see
``test_banked_time``); the decision timers keep running meanwhile; a restart honours the
deadline. The clock is injected: no test waits for real seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from baccarat.server.kinds.banked import seats
from baccarat.server.settings import BankedSettings, DatabaseUrl

from ..harness import FakeClock, SwitchableShoes
from .banked import SeatServer, notice, pair, seat_of, seat_row, seat_when, serving
from .conftest import BACKENDS
from .support import PLAYER_WINS, StackedShoes

pytestmark = pytest.mark.anyio
FUN = 100_000
EXPOSURE_I = 18_090
GRACE = 10
US = 1_000_000


def test_the_default_grace_is_ten_seconds() -> None:
    assert BankedSettings().reconnect_grace == GRACE


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path, reconnect_grace=GRACE) as running:
        yield running


async def away(server: SeatServer, seat_id: str, role: str) -> seats.Seat:
    """Wait until the server has seen the socket close and recorded the deadline."""
    row = await seat_when(server, seat_id, lambda s: s.grace_us.get(role) is not None)
    assert row.grace_us[role] == server.clock.now + GRACE * US
    return row


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_player_who_reconnects_within_the_grace_keeps_the_seat_and_deals(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player, seat = await pair(server, approve=True, bets={"player": 1_000})
    version = (await seat_row(server, seat)).version
    await player.disconnect()
    row = await away(server, seat, "player")
    # Nobody left and nothing moved: the seat is as it was, the bets still held.
    assert (row.player_id, row.stake, row.version) == (player.id, 1_000, version)
    await server.advance(GRACE - 0.1)
    assert await server.desk.resolve_due() == 0
    first = await player.connect(seat)  # e.g. the page was reloaded
    assert first["you"] == "player" and seat_of(first)["phase"] == "betting"
    assert seat_of(first)["stake"] == 1_000
    assert (await seat_row(server, seat)).grace_us == {"player": None, "banker": None}
    # The deadline was cleared: long after it, the player still sits and deals.
    await server.advance(GRACE)
    assert await server.desk.resolve_due() == 0
    dealt = await player.send("deal", key="back")
    assert dealt["ok"], dealt
    result = await banker.event("round")
    assert result["private"]["net"] == -1_000 - 15
    assert await player.balance() == FUN + 1_000 and await banker.balance() == FUN - 1_015
    row = await seat_row(server, seat)
    assert (row.player_id, row.banker_id, row.phase) == (player.id, banker.id, "approval")
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_banker_who_reconnects_within_the_grace_approves(server: SeatServer) -> None:
    banker, player, seat = await pair(server, approve=False)
    await banker.disconnect()
    await away(server, seat, "banker")
    await server.advance(GRACE - 1)
    assert await server.desk.resolve_due() == 0
    await banker.connect(seat)
    assert (await banker.send("approve"))["ok"]
    await player.state(lambda m: seat_of(m)["phase"] == "betting")
    await server.advance(GRACE)
    assert await server.desk.resolve_due() == 0
    assert (await seat_row(server, seat)).banker_id == banker.id


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_player_who_does_not_come_back_leaves_with_the_bets_when_the_grace_ends(
    server: SeatServer,
) -> None:
    banker, player, seat = await pair(server, approve=True, bets={"player": 1_500})
    assert await player.balance() == FUN - 1_500
    await player.disconnect()
    await away(server, seat, "player")
    await server.advance(GRACE - 0.01)
    assert await server.desk.resolve_due() == 0
    assert (await seat_row(server, seat)).player_id == player.id
    await server.advance(0.01)
    state = await banker.state(notice("player_disconnected"))
    assert seat_of(state)["needs"] == ["player"] and seat_of(state)["stake"] == 0
    assert seat_of(state)["notice"]["nickname"] == player.nickname
    row = await seat_row(server, seat)
    assert row.stake == 0 and row.reserve == 0 and row.grace_us["player"] is None
    assert await player.balance() == FUN and await banker.balance() == FUN
    # Coming back too late: the seat is no longer theirs.
    player.ws = None
    answer = await player.call("GET", f"/api/seats/{seat}")
    assert answer.json()["you"] is None
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_banker_who_approved_and_does_not_come_back_stays_for_that_round(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player, seat = await pair(server, approve=True)
    await banker.disconnect()
    await away(server, seat, "banker")
    await server.advance(GRACE)
    state = seat_of(await player.state(notice("banker_disconnected")))
    assert state["phase"] == "betting" and state["banker"]["away"]
    assert state["notice"]["round_goes_on"]
    dealt = await player.send("deal", bets={"player": 1_000}, key="k")
    assert dealt["ok"], dealt
    after = seat_of(await player.state(notice("banker_left")))
    assert after["needs"] == ["banker"] and after["last_round"]["id"] == dealt["result"]["id"]
    assert await banker.balance() == FUN - 1_015 and await player.balance() == FUN + 1_000
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_decision_timer_keeps_running_while_a_player_is_away(
    server: SeatServer,
) -> None:
    banker, player, seat = await pair(server, approve=True, bets={"tie": 500})
    await server.advance(40)
    await player.disconnect()
    await away(server, seat, "player")
    # The 45 s run out 5 s into the grace: the player times out as without a grace.
    await server.advance(5)
    await banker.state(notice("player_timeout"))
    row = await seat_row(server, seat)
    assert row.player_id is None and row.grace_us["player"] is None
    await server.advance(GRACE)
    assert await server.desk.resolve_due() == 0
    assert await player.balance() == FUN and await banker.balance() == FUN
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("returns", [False, True])
async def test_a_restart_during_the_grace_honours_the_deadline(
    database_url: DatabaseUrl, tmp_path: Path, returns: bool
) -> None:
    clock, shoes = FakeClock(), SwitchableShoes()
    async with serving(database_url, tmp_path, clock, shoes, reconnect_grace=GRACE) as first:
        banker, player, seat = await pair(first, approve=True, bets={"banker": 2_000})
        await player.disconnect()
        await away(first, seat, "player")
    # The banker's socket closed with the shutdown (1012): only the player is away.
    async with serving(database_url, tmp_path, clock, shoes, poll_s=3600) as second:
        player.server = banker.server = second
        row = await seat_row(second, seat)
        assert row.grace_us == {"player": clock.now + GRACE * US, "banker": None}
        clock.advance(GRACE / 2)
        assert await second.desk.resolve_due() == 0
        if returns:
            await player.connect(seat)
        clock.advance(GRACE / 2)
        assert await second.desk.resolve_due() == (0 if returns else 1)
        row = await seat_row(second, seat)
        assert row.banker_id == banker.id
        if returns:
            assert (row.player_id, row.stake) == (player.id, 2_000)
            await player.disconnect()
            await seat_when(second, seat, lambda s: s.grace_us["player"] is not None)
        else:
            assert row.player_id is None and row.stake == 0
            assert await player.balance() == FUN
            assert row.notice is not None and row.notice["code"] == "player_disconnected"
        await second.check()
