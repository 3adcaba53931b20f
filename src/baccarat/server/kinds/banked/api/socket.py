"""The player-banked seat sockets (``api.seats`` includes their routes).

``/api/seats/{seat_id}/ws``: the seat's events (state after every change, each round's
result) and its actions, as messages: ``{"id": any, "action": "approve" | "auto_approve"
(with "on") | "bets" (with "bets") | "deal" (with optional "bets" and "key", an idempotency
key) | "leave" | "state" | "ping"}`` (at most ``Limits.ws_messages_per_s`` a second:
``api.sockets``); each is answered ``{"type": "reply", "id", "ok": true,
"result"}`` or ``{"type": "reply", "id", "ok": false, "error": {code, message, details}}``.
The actions are the REST routes' (``service.ACTIONS``, one table for both). Events:
``{"type": "state", "seat", "you", "private", "allowed_actions"}`` and ``{"type": "round",
"seat_id", "round", "you", "private"}``, where ``you`` is the receiver's role, ``private``
what only the receiver sees (its balance; after a round, its net and points) and
``allowed_actions`` what it may do now. ``/api/seats/ws``: the lobby's seat changes (it
takes pings only).

A socket authenticates with an ``Authorization: Bearer`` header or the session cookie (same
origin only), never a token in the URL; its session is checked again before every action
(``api.sockets``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from functools import partial
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from baccarat.core import Bets
from baccarat.server import auth
from baccarat.server.api import guard, sockets
from baccarat.server.api.deps import banked_desk
from baccarat.server.api.models import BetsIn
from baccarat.server.api.sockets import SocketClient
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.banked import service, timing
from baccarat.server.kinds.banked.runtime import BankedDesk
from baccarat.server.kinds.banked.service import SeatServices
from baccarat.server.tables import bets_from

router = APIRouter(prefix="/api")

SERVICE_RESTART = 1012
LEFT = 4001
LEAVE_GRACE_S = 0.5


def _close_when_left(client: SocketClient, message: dict[str, Any]) -> None:
    if message.get("type") != "state" or client.seat_id is None:
        return
    version = int(message["seat"]["version"])
    if version < client.seat_version:
        # An older state than this socket has sent (an event that reached this worker
        # late, from before the caller sat down): it says nothing about the caller now.
        return
    client.seat_version = version
    if message.get("you") is None:
        # No longer seated here (left, timed out): the seat's events are not ours.
        # (A moment's grace lets the reply to a "leave" out first.)
        asyncio.get_running_loop().call_later(
            LEAVE_GRACE_S, client.close_soon, LEFT, "you left the seat"
        )


def _sockets(app: Any) -> sockets.Sockets:
    registry: sockets.Sockets = app.state.sockets
    return registry


async def _open(websocket: WebSocket, seat_id: str | None) -> SocketClient | None:
    """Accept, authenticate (and for a seat, check the caller sits there), count the socket."""
    desk = banked_desk(websocket.app)
    await websocket.accept()
    try:
        hashed = sockets.socket_token_hash(websocket)

        def enter(uow: UnitOfWork, ctx: SeatServices) -> int:
            player_id = auth.authenticate(uow, hashed)
            if seat_id is not None:
                seen = service.seat_view(uow, ctx, seat_id)
                if player_id not in seen.ids.values():
                    raise ServiceError(
                        "not_seated", f"take seat {seat_id} first (POST /api/seats)", seat=seat_id
                    )
            return player_id

        player_id = await desk.read(enter)
        assert hashed is not None
        client = SocketClient(websocket, player_id, hashed, seat_id)
        _sockets(websocket.app).admit(client)
        guard.logged_in(websocket.scope)
    except ServiceError as error:
        await sockets.refuse(websocket, error)
        return None
    return client


@router.websocket("/seats/{seat_id}/ws")
async def seat_socket(websocket: WebSocket, seat_id: str) -> None:
    desk = banked_desk(websocket.app)
    client = await _open(websocket, seat_id)
    if client is None:
        return
    player_id, limits = client.account, desk.casino.settings.limits
    conn_id = secrets.token_hex(12)
    desk.hub.add(seat_id, client)
    writer = asyncio.get_running_loop().create_task(client.write_forever(_close_when_left))
    restarting = False
    try:
        await desk.casino.db.write(
            lambda uow: timing.connected(uow, conn_id, seat_id, player_id, desk.worker)
        )
        # Registered before reading: no event between this state and the next is lost.
        first = await desk.read(lambda uow, ctx: service.seat_view(uow, ctx, seat_id))
        client.deliver({"type": "state", **first.for_player(player_id)})
        async for text in sockets.messages(client, limits, partial(_refused, client)):
            reply = await _answer(desk, client, text)
            client.deliver(reply)
            if reply.get("error", {}).get("code") in auth.ENDED:
                client.close_soon(sockets.SESSION_ENDED, "the session ended")
    except WebSocketDisconnect as gone:
        # 1012: the server is shutting down (a restart); nobody leaves their seat for that.
        restarting = gone.code == SERVICE_RESTART
    finally:
        await _close(desk, client, writer)
        depart = not (desk.closing or restarting)
        with contextlib.suppress(Exception):
            await desk.write(lambda uow, ctx: timing.disconnected(uow, ctx, conn_id, depart=depart))


def _refused(client: SocketClient, error: ServiceError) -> None:
    client.deliver({"type": "reply", "id": None, "ok": False, **error.to_json()})


async def _answer(desk: BankedDesk, client: SocketClient, text: str) -> dict[str, Any]:
    ref: Any = None
    try:
        message = sockets.parse(text, desk.casino.settings.limits)
        ref = message.get("id")
        result = await _perform(desk, client, message)
        return {"type": "reply", "id": ref, "ok": True, "result": result}
    except ServiceError as error:
        return {"type": "reply", "id": ref, "ok": False, **error.to_json()}


def _params(action: Any, message: dict[str, Any]) -> service.Params:
    """A message's parameters for ``service.perform``, checked before any transaction."""
    if action not in service.ACTIONS:
        raise ServiceError(
            "invalid_body",
            f"action is {', '.join(service.ACTIONS)}, state or ping",
            action=str(action)[:40],
        )
    raw = message.get("bets")
    bets = None if raw is None and action != "bets" else _message_bets(raw)
    on = message.get("on")
    if action == "auto_approve" and not isinstance(on, bool):
        raise ServiceError("invalid_body", "auto_approve needs on: true or false")
    key = message.get("key")
    client_seed = message.get("client_seed", "")
    if action == "client_seed" and not isinstance(client_seed, str):
        raise ServiceError("invalid_body", "client_seed needs client_seed: a string")
    return service.Params(
        bets, bool(on), None if key is None else str(key), str(client_seed)[: 2 * 64]
    )


def _message_bets(raw: Any) -> Bets:
    try:
        return bets_from(BetsIn.model_validate(raw).root)
    except ValidationError as error:
        raise ServiceError("invalid_body", f"bets: {error.errors()[0]['msg']}") from None


async def _perform(desk: BankedDesk, client: SocketClient, message: dict[str, Any]) -> Any:
    """One action; every action but ping first checks, in its transaction, that the
    socket's session is still live (a logged-out or expired session moves no money)."""
    player_id, seat_id, hashed = client.account, client.seat_id, client.token_hash
    assert seat_id is not None
    action = message.get("action")
    if action == "ping":
        return "pong"
    if action == "state":

        def view(uow: UnitOfWork, ctx: SeatServices) -> Any:
            auth.authenticate(uow, hashed)
            return service.seat_view(uow, ctx, seat_id)

        return (await desk.read(view)).for_player(player_id)
    params = _params(action, message)

    def act(uow: UnitOfWork, ctx: SeatServices) -> Any:
        # Checked with the action's first read (PostgreSQL: in the same round trip).
        with uow.answered_first(auth.still_authenticated(uow, hashed, player_id, acts=True)):
            return service.perform(uow, ctx, player_id, seat_id, str(action), params)[0]

    return await desk.write(act, seat_id)


@router.websocket("/seats/ws")
async def lobby_socket(websocket: WebSocket) -> None:
    """The lobby: every seat's changes, as ``{"type": "seat", "seat": ...}`` (logged in)."""
    desk = banked_desk(websocket.app)
    client = await _open(websocket, None)
    if client is None:
        return
    limits = desk.casino.settings.limits
    desk.hub.add(None, client)
    writer = asyncio.get_running_loop().create_task(client.write_forever())
    try:
        first = await desk.read(lambda uow, ctx: service.lobby(uow, ctx, None))
        client.deliver({"type": "seats", "seats": first["seats"]})
        await sockets.answer_pings(client, limits)
    except WebSocketDisconnect:
        pass
    finally:
        await _close(desk, client, writer)


async def _close(desk: BankedDesk, client: SocketClient, writer: asyncio.Task[None]) -> None:
    """A socket's end: uncounted, out of the hub, closed once its queue is written."""
    _sockets(client.websocket.app).release(client)
    desk.hub.remove(client.seat_id, client)
    client.close_soon(1000, "bye")
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer, 2)
    writer.cancel()
