"""A player-banked table cannot be blocked by empty accounts: a participant waiting alone
for a partner leaves after ``BankedSettings.waiting_s``, and an account takes at most one
seat per table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.server.settings import BankedSettings, DatabaseUrl

from ..harness import until_async
from .banked import SeatServer, seat_of, serving

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]
WAIT = BankedSettings.waiting_s


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


async def test_four_lone_players_do_not_block_a_table_for_long(server: SeatServer) -> None:
    squatters = [await server.player(f"squat{i}") for i in range(4)]
    for who in squatters:
        assert (await who.join("banked-i", "player")).status_code == 201
    late = await server.player("late")
    answer = await late.join("banked-i", "player")
    assert answer.json()["error"]["code"] == "table_full"
    await server.advance(WAIT - 1)
    first = await squatters[0].call("GET", "/api/seats")
    assert all(
        s["player"] is not None for s in first.json()["seats"] if s["table_id"] == "banked-i"
    )
    await server.advance(2)

    async def seats_now() -> list[dict[str, Any]]:
        await server.advance(0)  # the resolver runs in the background
        listed: list[dict[str, Any]] = (await late.call("GET", "/api/seats")).json()["seats"]
        return listed

    seats = await until_async(seats_now, "the squatters are gone", every=0.02,
                              done=lambda seats: all(s["player"] is None for s in seats
                                                     if s["table_id"] == "banked-i"))  # fmt: skip
    assert all(s["player"] is None for s in seats if s["table_id"] == "banked-i")
    assert (await late.join("banked-i", "player")).status_code == 201
    await server.check()


async def test_a_matched_pair_has_no_waiting_deadline(server: SeatServer) -> None:
    banker, player = await server.player("bank"), await server.player("play")
    seat = await banker.sit("banked-i", "banker")
    waiting = seat_of(await banker.state(lambda m: seat_of(m)["phase"] == "waiting"))
    assert waiting["timer"] is None  # the waiting deadline is not a decision anyone owes
    assert await player.sit("banked-i", "player") == seat
    approval = seat_of(await banker.state(lambda m: seat_of(m)["phase"] == "approval"))
    assert approval["timer"]["role"] == "banker"


async def test_an_account_takes_one_seat_per_table(server: SeatServer) -> None:
    who = await server.player("greedy")
    await who.give_points(100)
    assert (await who.join("banked-i", "player")).status_code == 201
    twice = await who.join("banked-i", "banker")
    assert twice.json()["error"]["code"] == "already_seated"
    again = await who.join("banked-i", "player")
    assert again.json()["error"]["code"] == "already_seated"
    elsewhere = await who.join("banked-ii", "banker")
    assert elsewhere.status_code in (201, 409)
    if elsewhere.status_code == 409:  # the banker minimum of table II, not the seat rule
        assert elsewhere.json()["error"]["code"].startswith("banker_")
