"""``/api/tables/{table_id}/ws``: a shared table's events, for anyone watching it (``routes``
includes its route).

The first message is the table's state (``{"type": "state", ...}`` as ``GET
/api/tables/{id}/state`` answers, the caller's bets included); then the messages the table's
events make (``kinds.shared.feed``): ``open``, ``totals``, ``closed``, ``dealt``, ``settled``
(with ``you``, the caller's own bets on the coup and what they returned, for a logged-in
caller), ``shoe`` and ``idle``; and the state again whenever events may have been missed.
``?mode=real`` follows the real-money totals (default ``fun``). A socket may be opened
without a session (the lobby's view); with one it authenticates like every socket
(an ``Authorization: Bearer`` header or the session cookie, same origin only, never a token
in the URL) and counts against the account's sockets (and its connection is no longer an
anonymous one: ``api.guard``). The only message it takes is ``{"action": "ping"}``
(answered ``{"type": "pong"}``; anything else closes it, 1008, as do more messages than a
socket may send: ``sockets.answer_pings``): bets go through ``PUT
/api/tables/{id}/coups/{coup}/bets``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from baccarat.server import auth
from baccarat.server.api import guard, sockets
from baccarat.server.api.sockets import SocketClient
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.shared import views
from baccarat.server.kinds.shared.clock import require_shared
from baccarat.server.kinds.shared.runtime import SharedDesk
from baccarat.server.ledger import check_mode

router = APIRouter(prefix="/api")


class _StateFirst:
    """A socket as the feed sees it: what the feed tells before the socket's first state
    has been sent waits, and follows it."""

    def __init__(self, client: SocketClient, player_id: int | None) -> None:
        self.client = client
        self.player_id = player_id
        self.waiting: list[dict[str, Any] | str] | None = []

    def deliver(self, message: dict[str, Any] | str) -> None:
        if self.waiting is None:
            self.client.deliver(message)
        else:
            self.waiting.append(message)

    def start(self, state: dict[str, Any]) -> None:
        self.client.deliver(state)
        waiting, self.waiting = self.waiting or [], None
        for message in waiting:
            self.client.deliver(message)


@router.websocket("/tables/{table_id}/ws")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    app = websocket.app
    desk: SharedDesk = app.state.shared
    registry: sockets.Sockets = app.state.sockets
    casino = desk.casino
    await websocket.accept()
    counted = False
    try:
        table = casino.tables.require(table_id)
        require_shared(table)
        mode = check_mode(websocket.query_params.get("mode", "fun"))
        hashed = sockets.socket_token_hash(websocket)
        player_id = None
        if hashed is not None:
            player_id = await casino.db.read(lambda uow: auth.authenticate(uow, hashed))
        client = SocketClient(websocket, player_id or 0, hashed or "", None)
        client.player_id = player_id
        if player_id is not None:
            registry.admit(client)
            counted = True
            guard.logged_in(websocket.scope)
    except ServiceError as error:
        await sockets.refuse(websocket, error)
        return
    writer = asyncio.get_running_loop().create_task(client.write_forever())
    # Following before reading: no change between this state and the next event is lost
    # (what the feed tells meanwhile follows the state).
    follower = _StateFirst(client, player_id)
    desk.feed.add(table, mode, follower)
    try:
        desk.watch(table.id)
        first = await casino.db.read(lambda uow: views.state(uow, table, player_id, mode))
        follower.start({"type": "state", **first})
        await sockets.answer_pings(client, casino.settings.limits)
    except WebSocketDisconnect:
        pass
    finally:
        desk.feed.remove(table, mode, follower)
        if counted:
            registry.release(client)
        client.close_soon(1000, "bye")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 2)
        writer.cancel()
