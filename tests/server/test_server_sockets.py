"""WebSockets under abuse: login required, a cap per account, bounded messages, and a socket
whose session ended is closed before it can move money."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from baccarat.server.settings import DatabaseUrl, Limits

from ..harness import until_async
from .banked import WAIT_S, Participant, SeatServer, bearer, seat_of, serving

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


def lobby(server: SeatServer, token: str | None, **options: Any) -> Any:
    """Open the seat lobby's socket with this token (none: no header)."""
    url = server.url.replace("http://", "ws://") + "/api/seats/ws"
    return connect(url, additional_headers=bearer(token), open_timeout=WAIT_S, **options)


async def close_code(ws: ClientConnection) -> int | None:
    """How the server closed the socket (a socket it leaves open fails the test)."""
    async with asyncio.timeout(WAIT_S):
        try:
            while True:
                await ws.recv()
        except Exception:
            pass
    return ws.close_code


async def test_the_lobby_socket_needs_a_login(server: SeatServer) -> None:
    async with lobby(server, None) as ws:
        error = json.loads(await ws.recv())
        assert error["error"]["code"] == "not_authenticated"
        assert await close_code(ws) == 4401
    async with lobby(server, "not-a-token") as ws:
        assert await close_code(ws) == 4401


async def test_an_account_holds_a_limited_number_of_sockets(server: SeatServer) -> None:
    alice, bob = await server.player("alice"), await server.player("bobby")
    held = []
    for _ in range(Limits.ws_per_account):
        ws = await lobby(server, alice.token)
        assert json.loads(await ws.recv())["type"] == "seats"
        held.append(ws)
    async with lobby(server, alice.token) as extra:
        assert json.loads(await extra.recv())["error"]["code"] == "too_many_sockets"
        assert await close_code(extra) == 4429
    # Another account is not affected, and a closed socket frees its place.
    async with lobby(server, bob.token) as other:
        assert json.loads(await other.recv())["type"] == "seats"
    await held.pop().close()

    async def first_message() -> dict[str, Any]:
        again = await lobby(server, alice.token)
        first: dict[str, Any] = json.loads(await again.recv())
        await again.close()
        return first

    # The server notices the close as soon as it reads it.
    first = await until_async(first_message, "a socket of alice's is let in again",
                              done=lambda first: first["type"] == "seats", every=0)  # fmt: skip
    assert first["type"] == "seats"
    for ws in held:
        await ws.close()


async def seated(server: SeatServer) -> tuple[Participant, Participant, str]:
    banker, player = await server.player("banker1"), await server.player("player1")
    seat = await banker.sit("banked-i", "banker")
    assert await player.sit("banked-i", "player") == seat
    approved = await banker.send("approve")
    assert approved["ok"], approved
    await player.state(lambda m: seat_of(m)["phase"] == "betting")
    return banker, player, seat


async def test_messages_are_bounded_in_size_and_depth_without_an_exception(
    server: SeatServer,
) -> None:
    _, player, _ = await seated(server)
    assert player.ws is not None
    deep = "[" * 1000 + "]" * 1000
    await player.ws.send(json.dumps({"id": 1, "action": "ping"})[:-1] + f', "x": {deep}}}')
    reply = await player.event("reply")
    assert not reply["ok"] and reply["error"]["code"] == "invalid_body"
    assert "nested" in reply["error"]["message"]
    await player.ws.send(b"\x00binary")
    reply = await player.event("reply")
    assert not reply["ok"] and reply["error"]["code"] == "invalid_body"
    assert (await player.send("ping"))["result"] == "pong"  # still open
    await player.ws.send(json.dumps({"id": 2, "action": "ping", "pad": "x" * 20_000}))
    assert await player.closed_with() == 1009


def watch(server: SeatServer, token: str | None = None) -> Any:
    """Open a shared table's socket (anonymous without a token)."""
    url = server.url.replace("http://", "ws://") + "/api/tables/speed/ws"
    return connect(url, additional_headers=bearer(token), open_timeout=WAIT_S)


# What a shared table's socket sends as its clock goes on (kinds/shared/feed.py).
TABLE_EVENTS = ("state", "open", "totals", "closed", "dealt", "settled", "shoe", "idle")


async def _pong(ws: Any) -> dict[str, Any]:
    """The answer to a ping: the next message that is not one of the table's own events
    (its clock goes on: a coup or a shoe may come between the ping and its pong)."""
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] not in TABLE_EVENTS:
            return message


async def test_the_lobby_and_table_sockets_take_pings_only(server: SeatServer) -> None:
    # They have nothing to receive: anything but a ping closes them (before, any text was
    # read, up to 8 KiB, and a binary frame went unanswered).
    alice = await server.player("alice")
    for opened, first, junk, code in (
        (lambda: lobby(server, alice.token), "seats", b"\x00binary", 1008),
        (lambda: watch(server), "state", '{"action": "bets"}', 1008),
        (lambda: watch(server, alice.token), "state", "ping" + "x" * 200, 1009),
    ):
        async with opened() as ws:
            assert json.loads(await ws.recv())["type"] == first
            await ws.send("ping")
            assert await _pong(ws) == {"type": "pong"}
            await ws.send(json.dumps({"id": 3, "action": "ping"}))
            assert await _pong(ws) == {"type": "pong"}
            await ws.send(junk)
            assert await close_code(ws) == code, junk


async def test_a_socket_sending_past_its_rate_is_closed(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    limits = Limits(ws_messages_per_s=0.01, ws_messages_burst=3)
    async with serving(database_url, tmp_path, limits=limits) as server:
        alice = await server.player("alice")
        async with watch(server) as ws, lobby(server, alice.token) as other:
            assert json.loads(await ws.recv())["type"] == "state"
            assert json.loads(await other.recv())["type"] == "seats"
            for _ in range(limits.ws_messages_burst):
                await ws.send("ping")
                assert await _pong(ws) == {"type": "pong"}
            await ws.send("ping")
            assert await close_code(ws) == 1008
            # Each socket has its own allowance.
            await other.send("ping")
            assert json.loads(await other.recv()) == {"type": "pong"}


async def balances(server: SeatServer, *who: Participant) -> list[Any]:
    return [await p.balance() for p in who]


async def test_a_logged_out_seat_socket_is_closed_before_it_can_deal(server: SeatServer) -> None:
    banker, player, _ = await seated(server)
    placed = await player.send("bets", bets={"player": 200})
    assert placed["ok"], placed
    before = await balances(server, banker, player)
    assert (await player.call("DELETE", "/api/sessions")).status_code == 204
    assert await player.closed_with() == 4401
    assert await balances(server, banker, player) == before
    assert (await player.call("GET", "/api/me")).status_code == 401


async def test_a_socket_whose_session_ended_elsewhere_cannot_deal(server: SeatServer) -> None:
    """Ended by another worker or expired: the action's own session check refuses it."""
    banker, player, _ = await seated(server)
    before = await balances(server, banker, player)
    await server.write(
        lambda uow: uow.run("DELETE FROM sessions WHERE player_id = :p", {"p": player.id})
    )
    reply = await player.send("deal", bets={"player": 200}, key="after-logout")
    assert not reply["ok"] and reply["error"]["code"] == "not_authenticated"
    assert await player.closed_with() == 4401
    assert await balances(server, banker, player) == before


async def test_the_sweep_closes_sockets_of_expired_sessions(server: SeatServer) -> None:
    alice = await server.player("alice")
    async with lobby(server, alice.token) as ws:
        assert json.loads(await ws.recv())["type"] == "seats"
        server.clock.advance(server.casino.settings.session_ttl_s + 1)
        await server.app.state.sockets.sweep(server.casino.db)
        assert await close_code(ws) == 4401


async def test_a_late_event_from_before_the_player_sat_leaves_their_socket_open(
    server: SeatServer,
) -> None:
    """With several workers, a seat's event can reach a worker after newer ones: a state
    older than what the socket has sent says nothing about the caller now."""
    from baccarat.server.kinds.banked import service
    from baccarat.server.kinds.banked.api.socket import LEAVE_GRACE_S

    banker, player = await server.player("banker1"), await server.player("player1")
    seat = await banker.sit("banked-i", "banker")
    # The seat as every worker heard of it before the player sat: no player in it.
    earlier = await server.desk.read(lambda uow, ctx: service.seat_view(uow, ctx, seat))
    assert earlier.ids["player"] is None
    assert await player.sit("banked-i", "player") == seat
    server.desk.hub.dispatch(earlier.event(seat))  # arriving late
    await asyncio.sleep(2 * LEAVE_GRACE_S)
    approved = await banker.send("approve")
    assert approved["ok"], approved
    await player.state(lambda m: seat_of(m)["phase"] == "betting")
    placed = await player.send("bets", bets={"player": 200})
    assert placed["ok"], placed
    # A newer state without the caller (they left) still closes the socket.
    assert (await player.send("leave"))["ok"]
    assert await player.closed_with() == 4001


async def test_a_message_that_cannot_be_encoded_closes_the_socket_as_a_server_error(
    server: SeatServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A program error in a message for a socket is said in the log and closes the socket
    with 1011 (the page connects again), instead of leaving it open and silent."""
    alice = await server.player("alice")
    async with lobby(server, alice.token) as ws:
        assert json.loads(await ws.recv())["type"] == "seats"
        (client,) = server.app.state.sockets.by_player[alice.id]
        client.deliver({"type": "seats", "oops": object()})  # not JSON
        assert await close_code(ws) == 1011
    assert any(
        "could not be encoded" in record.getMessage() and record.exc_info
        for record in caplog.records
    )
