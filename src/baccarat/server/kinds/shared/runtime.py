"""The shared tables' runtime in one worker: the clock rows, the watchers, the dealer task,
the sockets' feed (``feed.Feed``).

``start`` creates the clock rows of the configured shared tables (idempotent) and starts a
task that, every ``TICK_S`` at most, reads when each table's next transition is due and
applies those that are (``clock.advance``, one write each, which emits what the transition
did: ``events``). The deadlines live in the database and every transition checks them
under the table's row lock, so several workers may all run this task: each transition
happens once, and when the worker that would have made it dies, another makes it at its
next tick.

A table deals while it is watched: a read of its state in this worker marks it
(``watch``), and the task writes ``watched_until_us`` (60 s on) at most every
``WATCH_WRITE_US`` per table, so a crowd's reads cost no writes.

With a beacon configured (``beacon.from_settings``), a shoe committed to a round waits for
it: the task fetches the round once it is due (every ``BEACON_RETRY_S`` while it is late,
never dealing without it) and enters it (``clock.enter_beacon``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import TYPE_CHECKING

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds.shared import clock
from baccarat.server.kinds.shared.beacon import Beacon, BeaconError, from_settings
from baccarat.server.kinds.shared.clock import Elsewhere, ShoeRow
from baccarat.server.kinds.shared.events import BetsChanged, SharedEvent
from baccarat.server.kinds.shared.feed import CHANNEL, Feed
from baccarat.server.kinds.shared.terms import is_shared
from baccarat.server.play.kind import Given
from baccarat.server.tables import Table

if TYPE_CHECKING:
    pass

log = logging.getLogger("baccarat.server.kinds.shared")

TICK_S = 0.1
IDLE_S = 1.0  # the longest sleep: a table watched again is noticed within it
WATCH_WRITE_US = 10_000_000
BEACON_RETRY_S = 0.5
BEACON_CONNECT_S = 5.0


class SharedDesk:
    def __init__(self, given: Given) -> None:
        """``given.bus``: the worker's event bus (``play.events``), which carries the tables'
        events (``shared.events``) to the feed of every worker; ``given.elsewhere``: makes,
        once the casino has started, the bettors on other wallets
        (``wallets.operator.shared.OperatorCoups``)."""
        casino = self.casino = given.host
        events = self.events = given.bus
        elsewhere = given.elsewhere
        self.tables: list[Table] = [t for t in casino.tables.values() if is_shared(t)]
        self._seen: dict[str, int] = {}  # table -> when this worker last saw it watched
        self._written: dict[str, int] = {}  # table -> when this worker last wrote it
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.closing = False
        self.feed = Feed(casino.db, self.watch)
        if events is not None:
            events.add(CHANNEL, self.feed)
        self.with_beacon = bool(casino.settings.beacon_url)
        self.beacon: Beacon | None = None
        self._connect_at = 0.0  # when to try reaching the beacon again
        self._connecting = asyncio.Lock()
        self._elsewhere = elsewhere
        self.elsewhere: Elsewhere | None = None  # made at start

    async def start(self) -> None:
        tables, dealer = self.tables, self.casino.dealer
        elsewhere = self.elsewhere = None if self._elsewhere is None else self._elsewhere()

        def prepare(uow: UnitOfWork) -> None:
            clock.ensure(uow, tables)
            for gone in clock.retire(uow, dealer, (t.id for t in tables), elsewhere):
                log.warning("shared table %s is no longer served: its shoe is cancelled", gone)

        await self.casino.db.write(prepare)
        if not tables:
            return
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run_forever())

    async def stop(self) -> None:
        self.closing = True
        await self.feed.stop()
        close = getattr(self.beacon, "close", None)
        if close is not None:
            await close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def tell(self, uow: UnitOfWork, table_id: str) -> None:
        """The bets on the table's coup changed in this transaction: at its commit, the feed
        of every worker tells its sockets the new totals."""
        self.emit(uow, [BetsChanged(table_id)])

    def emit(self, uow: UnitOfWork, done: list[SharedEvent]) -> None:
        """What this transaction did, to every worker's feed at its commit."""
        if self.events is not None:
            for event in done:
                self.events.emit(uow, event, CHANNEL)

    def watch(self, table_id: str) -> None:
        """Someone in this worker looks at the table (a read of its state, a socket)."""
        now = self._now()
        first = now - self._seen.get(table_id, -(10**18)) > WATCH_WRITE_US
        self._seen[table_id] = now
        if first:
            self._wake.set()

    async def _beacon(self) -> Beacon | None:
        """The configured beacon, reached (None: offline, or not reached yet: tried again
        every ``BEACON_CONNECT_S``)."""
        if not self.with_beacon or self.beacon is not None:
            return self.beacon
        async with self._connecting:  # one attempt at a time: the others wait for it
            moment = asyncio.get_running_loop().time()
            if self.beacon is None and moment >= self._connect_at:
                self._connect_at = moment + BEACON_CONNECT_S
                try:
                    self.beacon = await from_settings(self.casino.settings)
                except Exception as error:
                    log.warning("the randomness beacon is not reached (%s): the tables wait",
                                error)  # fmt: skip
        return self.beacon

    async def _enter(self, table: Table, shoe: ShoeRow, db_now: int) -> float:
        """Fetch and enter the round the shoe waits for; how long to wait before trying
        again (s)."""
        beacon = await self._beacon()
        if beacon is None or shoe.beacon_round is None:
            return BEACON_RETRY_S
        if shoe.beacon_chain != beacon.chain.hash:
            log.error("shoe %s waits for chain %s, not the configured one", shoe.id,
                      shoe.beacon_chain)  # fmt: skip
            return IDLE_S
        due = beacon.chain.time_of(shoe.beacon_round) * 1_000_000
        if db_now < due:
            return max(TICK_S, (due - db_now) / 1e6)
        try:
            signature = await beacon.fetch(shoe.beacon_round)
        except BeaconError as error:
            log.error("table %s: %s (the table waits)", table.id, error)
            return BEACON_RETRY_S
        if signature is None:
            return BEACON_RETRY_S
        dealer, shoe_id = self.casino.dealer, shoe.id

        def enter(uow: UnitOfWork) -> None:
            # The shoe's order is complete; its next window tells the sockets (``advance``).
            clock.enter_beacon(uow, dealer, table, shoe_id, signature)

        await self.casino.db.write(enter, table.id)
        return TICK_S

    async def tick(self) -> float:
        """Mark the watched tables, apply what is due; how long until the next is due (s)."""
        db = self.casino.db
        now = self._now()
        marked = [
            t.id
            for t in self.tables
            if now - self._seen.get(t.id, -(10**18)) < clock.WATCH_US
            and now - self._written.get(t.id, -(10**18)) >= WATCH_WRITE_US
        ]
        for table_id in marked:
            # Keyed by the table, as its advances are: on PostgreSQL the two never meet in
            # one worker, where the advance would skip the row this write holds locked (and
            # deal a tick later).
            await db.write(functools.partial(clock.watch, table_ids=[table_id]), table_id)
            self._written[table_id] = now
        tables = self.tables

        def due(uow: UnitOfWork) -> list[tuple[Table, int | None, ShoeRow | None, int]]:
            return [(t, clock.next_due(uow, t), clock.waiting(uow, t), uow.now) for t in tables]

        wait = IDLE_S
        for table, at, shoe, db_now in await db.read(due):
            if shoe is not None:
                wait = min(wait, await self._enter(table, shoe, db_now))
                continue
            if at is None:
                continue
            if at <= db_now:
                for _ in range(2):  # a close then, at most, the next window
                    if not await self.advance(table):
                        break
                wait = TICK_S
            else:
                wait = min(wait, max(TICK_S, (at - db_now) / 1e6))
        return wait

    def _now(self) -> int:
        """The server's clock (the database's ``now``), in microseconds."""
        return self.casino.settings.clock()

    async def advance(self, table: Table) -> list[SharedEvent]:
        """The table's due transition (``clock.advance``), one write; what it did."""
        dealer, with_beacon, elsewhere = self.casino.dealer, self.with_beacon, self.elsewhere
        beacon = await self._beacon()
        chain = None if beacon is None else beacon.chain

        def step(uow: UnitOfWork) -> list[SharedEvent]:
            done = clock.advance(uow, dealer, table, chain, beacon=with_beacon,
                                 elsewhere=elsewhere)  # fmt: skip
            self.emit(uow, done)
            return done

        return await self.casino.db.write(step, table.id)

    async def _run_forever(self) -> None:
        while not self.closing:
            wait = IDLE_S
            try:
                wait = await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("advancing the shared tables failed; retrying")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait)
            self._wake.clear()
