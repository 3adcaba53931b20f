"""Player-banked seats against the clock and the network (SPEC §7): every timeout, a
disconnect in every phase, deadlines that survive a restart, and two workers that never
resolve the same deadline. The clock is injected: no test waits for real seconds.

These run with no reconnect grace (a participant whose last socket closes leaves at once);
``test_banked_reconnect`` covers the grace, whose expiry must do exactly what is done here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.server.settings import DatabaseUrl

from ..harness import FakeClock, SwitchableShoes
from .banked import Participant, SeatServer, notice, pair, seat_of, seat_row, seat_when, serving
from .conftest import BACKENDS
from .support import PLAYER_WINS, StackedShoes

pytestmark = pytest.mark.anyio
FUN = 100_000
EXPOSURE_I = 18_090  # table I: the most a round can cost its banker


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path, reconnect_grace=0) as running:
        yield running


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_banker_who_does_not_approve_within_35_seconds_leaves(server: SeatServer) -> None:
    banker, player, seat = await pair(server, approve=False)
    await server.advance(34.9)
    assert await server.desk.resolve_due() == 0
    assert (await seat_row(server, seat)).banker_id == banker.id
    await server.advance(0.1)
    gone = await player.state(notice("banker_timeout"))
    assert seat_of(gone)["needs"] == ["banker"] and seat_of(gone)["phase"] == "waiting"
    assert seat_of(gone)["timer"] is None
    left = await banker.event("state", lambda m: m["you"] is None)
    assert seat_of(left)["notice"]["nickname"] == banker.nickname
    assert await banker.closed_with() == 4001
    assert await banker.balance() == FUN and await player.balance() == FUN
    await server.check()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_player_who_does_not_deal_within_45_seconds_leaves_and_the_bets_come_back(
    server: SeatServer,
) -> None:
    banker, player, seat = await pair(server, approve=True, bets={"player": 2_000, "tie": 500})
    assert await player.balance() == FUN - 2_500
    assert await banker.balance() == FUN - EXPOSURE_I
    await server.advance(44.99)
    assert await server.desk.resolve_due() == 0
    await server.advance(0.01)
    gone = await banker.state(notice("player_timeout"))
    assert seat_of(gone)["needs"] == ["player"] and seat_of(gone)["stake"] == 0
    await player.event("state", lambda m: m["you"] is None)
    assert await player.closed_with() == 4001
    # The undealt bets are back; so is the banker's reserve; nothing else moved.
    assert await player.balance() == FUN and await banker.balance() == FUN
    report = await server.check()
    assert report.totals["fun"]["escrow"] == 0 and report.totals["fun"]["house"] == 0
    assert await player.history() == []
    # The seat waits for a new player; a new player restarts the banker's 35 s.
    newcomer = await server.player()
    assert await newcomer.sit("banked-i", "player") == seat
    state = seat_of(await banker.state(lambda m: seat_of(m)["needs"] == []))
    assert state["phase"] == "approval" and state["timer"]["remaining_ms"] == 35_000


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_deadline_is_final_a_late_deal_is_refused_and_resolved(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    # poll_s=3600: no resolver passes.
    async with serving(database_url, tmp_path, poll_s=3600, reconnect_grace=0) as server:
        banker, player, _seat = await pair(server, approve=True, bets={"banker": 500})
        server.clock.advance(45)
        late = await player.send("deal")
        assert not late["ok"] and late["error"]["code"] == "deadline_passed"
        assert await server.desk.resolve_due() == 1
        await banker.state(notice("player_timeout"))
        assert await player.balance() == FUN


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("when", ["waiting", "approval", "betting"])
async def test_a_player_who_disconnects_before_dealing_leaves_with_the_bets(
    server: SeatServer, when: str
) -> None:
    banker, player = await server.player(), await server.player()
    if when == "waiting":
        seat = await player.sit("banked-i", "player")
    else:
        seat = await banker.sit("banked-i", "banker")
        await player.sit("banked-i", "player")
    if when == "betting":
        assert (await banker.send("approve"))["ok"]
        assert (await player.send("bets", bets={"player": 1_500}))["ok"]
        assert await player.balance() == FUN - 1_500
    await player.disconnect()
    row = await seat_when(server, seat, lambda s: s.player_id is None)
    assert row.stake == 0 and row.reserve == 0
    if when != "waiting":
        state = await banker.state(notice("player_disconnected"))
        assert seat_of(state)["needs"] == ["player"]
    assert await player.balance() == FUN and await banker.balance() == FUN
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_banker_who_disconnects_before_approving_leaves(server: SeatServer) -> None:
    banker, player, seat = await pair(server, approve=False)
    await banker.disconnect()
    state = await player.state(notice("banker_disconnected"))
    assert seat_of(state)["needs"] == ["banker"] and seat_of(state)["phase"] == "waiting"
    assert (await seat_row(server, seat)).banker_id is None
    # A banker alone at a seat, waiting for a player, leaves on disconnecting too.
    alone = await server.player()
    await alone.deposit(20_000)
    other = await alone.sit("banked-i", "banker", "real")
    await alone.disconnect()
    row = await seat_when(server, other, lambda s: s.banker_id is None)
    assert row.mode is None and row.phase == "waiting"
    await server.check()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_after_the_banker_approved_the_round_goes_on_without_them(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player, _seat = await pair(server, approve=True)
    await banker.disconnect()
    state = seat_of(await player.state(notice("banker_disconnected")))
    assert state["phase"] == "betting" and state["banker"]["away"]
    # The player still bets and deals; the banker's hand is played by the rules.
    dealt = await player.send("deal", bets={"player": 1_000}, key="k")
    assert dealt["ok"], dealt
    after = seat_of(await player.state(notice("banker_left")))
    assert after["needs"] == ["banker"] and after["last_round"]["id"] == dealt["result"]["id"]
    # The banker finds the round in the history after reconnecting.
    (banked,) = await banker.history()
    assert banked["role"] == "banker" and banked["banked"]["net"] == -1_000 - 15
    assert await banker.balance() == FUN - 1_015 and await player.balance() == FUN + 1_000
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_after_the_deal_the_round_is_complete_even_if_the_player_is_gone(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player, seat = await pair(server, approve=True)
    dealt = await player.deal_rest(seat, player=500)
    await player.disconnect()
    assert dealt.status_code == 201
    await banker.state(notice("player_disconnected"))
    (mine,) = await player.history()
    (theirs,) = await banker.history()
    assert mine["id"] == theirs["id"] == dealt.json()["id"]
    assert (mine["banked"]["net"], theirs["banked"]["net"]) == (500, -500 - 8)
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_second_connection_keeps_the_seat_when_the_first_closes(
    server: SeatServer,
) -> None:
    _banker, player, seat = await pair(server, approve=True, bets={"player": 300})
    other_tab = Participant(server, player.nickname, player.token, player.id)
    await other_tab.connect(seat)
    await player.disconnect()
    assert (await other_tab.send("ping"))["result"] == "pong"
    row = await seat_row(server, seat)
    assert row.player_id == player.id and row.stake == 300
    await other_tab.disconnect()
    await seat_when(server, seat, lambda s: s.player_id is None)
    assert await player.balance() == FUN


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_restart_keeps_the_seats_and_resolves_deadlines_that_passed_meanwhile(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    clock, shoes = FakeClock(), SwitchableShoes()
    async with serving(database_url, tmp_path, clock, shoes) as first:
        banker, player, seat = await pair(first, approve=True, bets={"banker": 2_000})
    # Shutting down made nobody leave: the seat and its deadline are in the database.
    async with serving(database_url, tmp_path, clock, shoes, poll_s=3600) as second:
        row = await seat_row(second, seat)
        assert (row.player_id, row.banker_id, row.stake) == (player.id, banker.id, 2_000)
        clock.advance(60)  # the player's 45 s ran out while the server was down
        assert await second.desk.resolve_due() == 1
        row = await seat_row(second, seat)
        assert row.player_id is None and row.banker_id == banker.id
        player.server = banker.server = second
        assert await player.balance() == FUN and await banker.balance() == FUN
        await second.check()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_two_workers_never_resolve_the_same_deadline(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    import asyncio

    clock, shoes = FakeClock(), SwitchableShoes()
    async with (
        serving(database_url, tmp_path / "a", clock, shoes, poll_s=3600) as one,
        serving(database_url, tmp_path / "b", clock, shoes, poll_s=3600) as two,
    ):
        pairs = []
        for table in ("banked-i", "banked-ii", "banked-iii"):
            for _ in range(2):
                banker, player = await one.player(), await one.player()
                await banker.give_points(300, "real")
                await banker.deposit(300_000)
                await player.deposit(10_000)
                seat = await banker.sit(table, "banker", "real")
                await player.sit(table, "player", "real")
                assert (await banker.send("approve"))["ok"]
                stake = {"banked-i": 500, "banked-ii": 1_000, "banked-iii": 2_500}[table]
                assert (await player.send("bets", bets={"banker": stake}))["ok"]
                pairs.append((banker, player, seat))
        clock.advance(46)
        done = await asyncio.gather(*(d.resolve_due() for d in (one.desk, two.desk) * 3))
        assert sum(done) == len(pairs)

        def returns(uow: Any) -> int:
            return int(uow.scalar("SELECT COUNT(*) FROM ledger_transactions "
                                  "WHERE kind = 'banked_bet_return'"))  # fmt: skip

        assert await one.read(returns) == len(pairs)
        for banker, player, _ in pairs:
            assert await player.balance("real") == 10_000
            assert await banker.balance("real") == 300_000
        await one.check()
