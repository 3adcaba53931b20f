"""The event bus: events, from the transaction that made them to the WebSocket clients of
every worker.

A seat's actions emit events inside their unit of work; they leave only once it commits:
- PostgreSQL: ``pg_notify`` in the transaction itself (PostgreSQL delivers a notification
  at commit, never for a rolled-back transaction, in commit order); every worker LISTENs
  on one dedicated connection and hands what it hears to its own clients. So the two
  players of a seat may be connected to different workers.
- SQLite (one worker): the same events, handed to the event loop after the commit.

Both sit behind one interface: ``emit(uow, event)``, ``start()``, ``stop()``. The ``Hub``
holds this worker's clients by seat, and gives each one the event as its role sees it.

The same bus carries the shared tables' events (``kinds.shared.events``: typed records,
``Event``, sent as their JSON) to their feed (``kinds.shared.feed``) on a channel of its own
(``add(channel, receiver)`` before ``start``; ``emit(uow, event, channel)``): one listening
session per worker for both. A receiver gets an event as JSON, decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.db.url import DatabaseUrl
from baccarat.server.jsontext import compact

log = logging.getLogger("baccarat.server.kinds.banked")

CHANNEL = "baccarat_seats"
# PostgreSQL's limit on a notification's payload is 8000 bytes; a larger event (none is,
# with nicknames of 24 characters) is sent as "refresh": each worker reads the seat itself.
MAX_PAYLOAD = 7900
QUEUE_LIMIT = 256


class Event(Protocol):
    """A typed event (a frozen record of what a transaction did), sent as its JSON."""

    def to_json(self) -> dict[str, Any]: ...


class Receiver(Protocol):
    """What hears a channel's events in this worker (the ``Hub`` for the seats)."""

    def dispatch(self, event: dict[str, Any]) -> None: ...

    def refresh_all(self) -> None:
        """Events may have been missed (the listening session was lost): re-read."""
        ...


class Client(Protocol):
    """A WebSocket client of this worker (see ``api.seats``)."""

    player_id: int | None  # None for the lobby

    def deliver(self, message: dict[str, Any]) -> None: ...


def personal(event: dict[str, Any], player_id: int) -> dict[str, Any]:
    """An event as one participant receives it: its role, and only its own private part."""
    ids = event.get("ids", {})
    role = next((r for r, i in ids.items() if i == player_id), None)
    private = event.get("private", {}).get(role or "", {})
    if event["type"] == "round":
        return {"type": "round", "seat_id": event["seat_id"], "round": event["round"],
                "you": role, "private": private}  # fmt: skip
    allowed = event.get("allowed", {}).get(role or "", [])
    return {"type": "state", "seat": event["public"], "you": role, "private": private,
            "allowed_actions": allowed}  # fmt: skip


class Hub:
    """This worker's clients: by seat, and the lobby's (which see every seat's changes)."""

    def __init__(self) -> None:
        self.seats: dict[str, set[Client]] = {}
        self.lobby: set[Client] = set()
        self.refresh: Callable[[str], Awaitable[dict[str, Any] | None]] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def add(self, seat_id: str | None, client: Client) -> None:
        if seat_id is None:
            self.lobby.add(client)
        else:
            self.seats.setdefault(seat_id, set()).add(client)

    def remove(self, seat_id: str | None, client: Client) -> None:
        if seat_id is None:
            self.lobby.discard(client)
            return
        clients = self.seats.get(seat_id)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self.seats[seat_id]

    def clients(self) -> list[Client]:
        return [c for clients in self.seats.values() for c in clients] + list(self.lobby)

    def dispatch(self, event: dict[str, Any]) -> None:
        if event.get("type") == "refresh":
            self._refresh(str(event["seat_id"]))
            return
        seat_id = event["seat_id"]
        for client in list(self.seats.get(seat_id, ())):
            if client.player_id is not None:
                client.deliver(personal(event, client.player_id))
        if event["type"] == "state" and self.lobby:
            message = {"type": "seat", "seat": _lobby_seat(event["public"])}
            for client in list(self.lobby):
                client.deliver(message)

    def _refresh(self, seat_id: str) -> None:
        if self.refresh is None:
            return
        refresh = self.refresh

        async def run() -> None:
            event = await refresh(seat_id)
            if event is not None:
                self.dispatch(event)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def refresh_all(self) -> None:
        for seat_id in list(self.seats):
            self._refresh(seat_id)


def _lobby_seat(public: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "table_id", "number", "mode", "phase", "needs", "player", "banker", "version")
    seat = {key: public.get(key) for key in keys}
    if seat["banker"]:
        seat["banker"] = {"nickname": seat["banker"]["nickname"],
                          "points": seat["banker"]["points"]}  # fmt: skip
    return seat


def encode(event: dict[str, Any] | Event) -> str:
    """An event as the bus carries it; one too large for a notification as ``refresh`` (of
    its seat, or its table: the receivers read it themselves)."""
    data = event if isinstance(event, dict) else event.to_json()
    text = compact(data)
    if len(text.encode()) > MAX_PAYLOAD:
        about = {key: data[key] for key in ("seat_id", "table_id") if key in data}
        text = compact({"type": "refresh", **about})
    return text


class SeatEvents(Protocol):
    def add(self, channel: str, receiver: Receiver) -> None: ...

    def emit(
        self, uow: UnitOfWork, event: dict[str, Any] | Event, channel: str = CHANNEL
    ) -> None: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class LocalEvents:
    """One worker (SQLite): events go to the hub after the commit, on the event loop."""

    def __init__(self) -> None:
        self.receivers: dict[str, Receiver] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    def add(self, channel: str, receiver: Receiver) -> None:
        self.receivers[channel] = receiver

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        self.loop = None

    def emit(self, uow: UnitOfWork, event: dict[str, Any] | Event, channel: str = CHANNEL) -> None:
        text = encode(event)
        loop = self.loop
        if loop is None:
            return
        receiver = self.receivers[channel]

        def deliver() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(receiver.dispatch, json.loads(text))

        uow.after_commit(deliver)


class PostgresEvents:
    """Several workers (PostgreSQL): NOTIFY in the transaction, LISTEN in every worker."""

    RETRY_S = 1.0

    def __init__(self, conninfo: str, application_name: str = "baccarat"):
        self.receivers: dict[str, Receiver] = {}
        self.conninfo = conninfo
        # The listening session names its worker: other workers see it alive (timing.py).
        self.application_name = application_name
        self.task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        self._stopping = False

    def add(self, channel: str, receiver: Receiver) -> None:
        self.receivers[channel] = receiver

    def emit(self, uow: UnitOfWork, event: dict[str, Any] | Event, channel: str = CHANNEL) -> None:
        # Sent with the unit's next statement: nothing waits for its answer.
        uow.send("SELECT pg_notify(:channel, :payload)",
                 {"channel": channel, "payload": encode(event)})  # fmt: skip

    async def start(self) -> None:
        self.listening = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._listen())
        # Events committed from now on reach this worker's clients.
        await asyncio.wait_for(self.listening.wait(), timeout=30)

    async def stop(self) -> None:
        self._stopping = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _listen(self) -> None:
        from baccarat.server.db.listen import listening_connection

        first = True
        while not self._stopping:
            try:
                conn = await listening_connection(self.conninfo, self.application_name)
                async with conn:
                    for channel in self.receivers:
                        await conn.execute(f"LISTEN {channel}")
                    self.listening.set()
                    if not first:
                        # Events may have been missed while reconnecting: re-read.
                        for receiver in self.receivers.values():
                            receiver.refresh_all()
                    first = False
                    async for notify in conn.notifies():
                        try:
                            self.receivers[notify.channel].dispatch(json.loads(notify.payload))
                        except Exception:
                            log.exception("an event could not be delivered")
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.listening.clear()  # until the session is back (timing.py counts it)
                if self._stopping:
                    return
                log.warning("seat events: listening failed (%s); retrying", error)
                await asyncio.sleep(self.RETRY_S)


# The listening session of a worker's bus names the worker (``application_name``): other
# workers see it alive (``kinds.banked.timing``).
WORKER_APPLICATION = "baccarat-worker "


def open_bus(url: DatabaseUrl, worker: str) -> SeatEvents:
    """This worker's event bus: in the process where one writer is one worker (SQLite);
    through the database's notifications where there are many (PostgreSQL). Each kind's
    runtime adds its receivers (``add``) before the bus starts."""
    if url.one_writer:
        return LocalEvents()
    return PostgresEvents(url.target, WORKER_APPLICATION + worker)
