"""A seat's actions as data (DESIGN: verify / can / do): the seat's state tells each
participant what they may do now (``allowed_actions``), the same for REST and WebSocket,
and an action that is not allowed is refused with the reason the service gives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from baccarat.server.kinds.banked import service
from baccarat.server.settings import DatabaseUrl

from .banked import Participant, SeatServer, seat_of, serving
from .support import BANKER_WINS, StackedShoes

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)]


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    # The resolver looks for passed deadlines only when woken (or a minute on): a passed
    # deadline stays unresolved while the test looks at it.
    async with serving(database_url, tmp_path, poll_s=60) as running:
        yield running


async def refused(who: Participant, seat: str, allowed: list[str]) -> dict[str, str]:
    """Every action not in ``allowed``, tried over the socket: its error code."""
    codes = {}
    for action in service.ACTIONS:
        if action in allowed:
            continue
        reply = await who.send(action, on=True, bets={"player": 500}, key=f"k-{action}")
        assert not reply["ok"], (action, reply)
        codes[action] = reply["error"]["code"]
    return codes


async def test_each_participant_is_told_what_they_may_do_in_every_phase(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(BANKER_WINS)
    banker, player = await server.player("banker"), await server.player("player")
    seat = await banker.sit("banked-i", "banker")
    waiting = (await banker.call("GET", f"/api/seats/{seat}")).json()
    assert waiting["allowed_actions"] == ["auto_approve", "leave"]
    await player.sit("banked-i", "player")
    # The banker's approval: the banker may approve, the player only leave; both may set
    # their client seed for the pair's seed, committed as the pair formed.
    approval = await banker.state(lambda m: seat_of(m)["phase"] == "approval")
    assert approval["allowed_actions"] == ["approve", "auto_approve", "client_seed", "leave"]
    told = await player.state(lambda m: seat_of(m)["phase"] == "approval")
    assert told["allowed_actions"] == ["client_seed", "leave"]
    assert await refused(player, seat, told["allowed_actions"]) == {
        "approve": "not_your_turn", "auto_approve": "not_your_turn",
        "bets": "not_your_turn", "deal": "not_your_turn",
    }  # fmt: skip
    # Approved over REST: the same answer shape, the player's turn.
    approved = await banker.call("POST", f"/api/seats/{seat}/approve")
    assert approved.status_code == 200 and approved.json()["allowed_actions"] == [
        "auto_approve", "client_seed", "leave",
    ]  # fmt: skip
    turn = await player.state(lambda m: seat_of(m)["phase"] == "betting")
    assert turn["allowed_actions"] == ["bets", "deal", "client_seed", "leave"]
    assert await refused(banker, seat, ["auto_approve", "client_seed", "leave"]) == {
        "approve": "not_your_turn", "bets": "not_your_turn", "deal": "not_your_turn",
    }  # fmt: skip
    # Past the player's deadline (before the resolver acts) nothing of the turn is allowed.
    server.clock.advance(46)
    late = (await player.call("GET", f"/api/seats/{seat}")).json()
    assert late["allowed_actions"] == ["client_seed", "leave"]
    assert (await player.send("deal", bets={"player": 500}, key="late"))["error"]["code"] == (
        "deadline_passed"
    )
    # Nobody seated is told nothing.
    stranger = await server.player("stranger")
    assert (await stranger.call("GET", f"/api/seats/{seat}")).json()["allowed_actions"] == []
