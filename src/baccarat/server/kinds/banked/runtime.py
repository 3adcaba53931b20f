"""The player-banked tables' runtime in one worker: seats, events, the deadline resolver.

``start`` creates the seats of the configured tables (idempotent, safe with several workers
starting together), starts listening for seat events and starts the resolver: a task that
looks for passed deadlines every ``poll_s`` seconds (a read) and resolves them (a write).
Deadlines live in the database, so a restarted server resolves those that passed while it
was down, and several workers never resolve the same seat twice (see
``timing.resolve_due``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds.banked import seats, service, timing
from baccarat.server.kinds.banked.service import SeatServices
from baccarat.server.play.events import CHANNEL, Hub, PostgresEvents
from baccarat.server.play.kind import Given

log = logging.getLogger("baccarat.server.kinds.banked")
T = TypeVar("T")


class BankedDesk:
    def __init__(self, given: Given):
        """``given.bus``: the worker's event bus (``play.events.open_bus``), its seats'
        channel heard by this desk's hub; ``given.worker``: the worker's id (its bus's
        listening session names it: ``timing``)."""
        casino = self.casino = given.host
        worker, events = given.worker, given.bus
        self.settings = casino.settings.banked
        self.hub = Hub()
        self.hub.refresh = self._refresh
        self.worker = worker
        self.events = events
        events.add(CHANNEL, self.hub)
        self._ctx: SeatServices | None = None
        self._resolver: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.closing = False
        # Workers whose session was missing, since when (monotonic seconds): see
        # ``forget_dead_workers``.
        self._missing: dict[str, float] = {}

    @property
    def ctx(self) -> SeatServices:
        if self._ctx is None:
            raise RuntimeError("the player-banked tables are not started")
        return self._ctx

    @property
    def enabled(self) -> bool:
        return bool(self.ctx.banked_ids())

    async def start(self) -> None:
        casino = self.casino
        self._ctx = SeatServices(
            casino.tables, casino.dealer, self.events.emit,
            self.settings.reconnect_grace, self.settings.waiting_s,
        )  # fmt: skip
        self._wake = asyncio.Event()
        one_worker = casino.db.url.one_writer

        def prepare(uow: UnitOfWork) -> None:
            seats.ensure(uow, casino.tables)
            if one_worker:
                # Connections of an earlier run of this (only) worker are gone.
                timing.forget_worker(uow)

        await casino.db.write(prepare)
        self._resolver = asyncio.get_running_loop().create_task(self._resolve_forever())

    async def stop(self) -> None:
        """Close this worker's sockets without making anyone leave: after a restart the
        clients reconnect, and the deadlines still hold for those who do not."""
        self.closing = True
        if self._resolver is not None:
            self._resolver.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._resolver
        for client in self.hub.clients():
            close = getattr(client, "close_soon", None)
            if close is not None:
                close(1012, "server restarting")
        worker = self.worker
        with contextlib.suppress(Exception):
            await self.casino.db.write(lambda uow: timing.forget_worker(uow, worker))

    # -- running the service -------------------------------------------------------------

    async def write(
        self, work: Callable[[UnitOfWork, SeatServices], T], key: str | None = None
    ) -> T:
        """A write; ``key`` (a seat's id) keeps one seat's writes on one database writer."""
        ctx = self.ctx
        return await self.casino.db.write(lambda uow: work(uow, ctx), key)

    async def read(self, work: Callable[[UnitOfWork, SeatServices], T]) -> T:
        ctx = self.ctx
        return await self.casino.db.read(lambda uow: work(uow, ctx))

    async def _refresh(self, seat_id: str) -> dict[str, Any] | None:
        def read(uow: UnitOfWork, ctx: SeatServices) -> dict[str, Any]:
            return service.seat_view(uow, ctx, seat_id).event(seat_id)

        try:
            return await self.read(read)
        except Exception:
            log.exception("seat %s could not be re-read", seat_id)
            return None

    # -- deadlines -----------------------------------------------------------------------

    async def forget_dead_workers(self) -> int:
        """PostgreSQL: the connections of workers that died count as closed (a read first).

        A worker is dead once its session stays missing for ``worker_gone_s``, and only this
        worker's own session is there to see it: when PostgreSQL restarts, every worker's
        session ends and comes back within a second or so, in any order, and a worker that
        is back first must not take the others for dead (their players' sockets are open)."""
        db = self.casino.db
        events = self.events
        if not isinstance(events, PostgresEvents):
            return 0  # one worker: its earlier run's connections are forgotten at start
        if not events.listening.is_set():
            self._missing.clear()  # our own session is away: what we see now is in flux
            return 0
        missing = await db.read(timing.dead_workers)
        now = time.monotonic()
        self._missing = {worker: self._missing.get(worker, now) for worker in missing}
        gone = self.settings.worker_gone_s
        dead = [worker for worker, since in self._missing.items() if now - since >= gone]
        if not dead:
            return 0
        forgotten = await self.write(lambda uow, ctx: timing.forget_dead_workers(uow, ctx, dead))
        for worker in dead:
            self._missing.pop(worker, None)
        return forgotten

    async def resolve_due(self) -> int:
        """Resolve every passed deadline now (a read first, so an idle server never writes)."""
        db = self.casino.db
        resolved = 0
        while True:
            due = await db.read(timing.next_deadline)
            if due is None or due > self.casino.settings.clock():
                return resolved
            done = await self.write(timing.resolve_due)
            resolved += done
            if done == 0:
                # Another worker holds the due seats right now; it resolves them.
                return resolved

    def wake(self) -> None:
        self._wake.set()

    async def _resolve_forever(self) -> None:
        while not self.closing:
            try:
                await self.forget_dead_workers()
                await self.resolve_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("resolving seat deadlines failed; retrying")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.settings.poll_s)
            self._wake.clear()
