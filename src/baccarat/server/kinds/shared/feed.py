"""A shared table's socket messages for this worker's sockets, told from the table's events.

Every worker follows, for each table and mode that one of its sockets watches, the table's
events (``events``): each is made by the transaction that did what it says and reaches
every worker through the event bus (``play.events``: PostgreSQL's NOTIFY at its commit,
heard by every worker's listening session; in one process, the event loop after the
commit). A follower tells its sockets, once for all of them:

- ``shoe`` (``ShoeChanged``: a new shoe, or the one that ended with its seed revealed);
- ``open`` (``WindowOpened``: the window, with its deadline and the server's clock), then
  ``totals`` (nobody on any spot yet);
- ``totals`` (``BetsChanged``: the players and the sum on each spot, read then, at most
  every ``TOTALS_EVERY_S``, when they changed);
- ``closed`` at the window's deadline (a close is the clock's, with no write), then the
  ``totals`` as they closed;
- ``dealt`` (``CoupDealt``: the cards), then ``settled`` (each logged-in watcher's own bets
  with what they returned: one read for all of them) and the ``totals``;
- ``idle``: a dealt coup's result has stood past its time and no window opened (nobody
  watches: the table rests), as a read of the table's clock then finds it.

What a follower knows of its table (the coup, its phase and deadlines, the shoe) comes from
those events, and from one read of the table's state when it starts (events it then hears
again are told once: a coup's are in order of its number). What the messages carry that
the events do not is read when they are told: the totals, and the settled bets. Nothing is
found by comparing two reads of the table. When events may have been lost (the listening
session was lost and is back, or a read failed), every socket gets the table's state again,
as a page that connects does; a socket that falls behind is closed (``Client.deliver``)
without slowing the others, and its page reconnects and starts from the state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.jsontext import compact
from baccarat.server.kinds.shared import clock, views
from baccarat.server.kinds.shared.events import (
    BetsChanged,
    CoupDealt,
    SharedEvent,
    ShoeChanged,
    WindowOpened,
    parse,
)
from baccarat.server.tables import Table

log = logging.getLogger("baccarat.server.kinds.shared")
TOTALS_EVERY_S = 0.5  # the totals are told at most twice a second
CHANNEL = "baccarat_shared"  # the shared tables' events, on the event bus (``play.events``)
QUIET_S = 5.0  # a follower wakes at least this often (it keeps its table watched)
DUE_S = 0.02  # a deadline is acted on this long after it, on the server's clock
IDLE_AFTER_US = 1_000_000  # a result stood this long past its time: is the table resting?


class Client(Protocol):
    player_id: int | None  # None: a watcher without a session

    def deliver(self, message: dict[str, Any] | str) -> None:
        """Queue a message (``str``: already encoded, the same for many sockets)."""
        ...


@dataclass(frozen=True, slots=True)
class Resync:
    """Events about the table may have been missed: its sockets get its state again."""

    table_id: str | None  # None: every table


def states(
    uow: UnitOfWork, table: Table, mode: str, player_ids: list[int]
) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The table's state as a watcher without a session sees it, and each player's own bets
    on its coup (the state's ``you``): the state of every socket, in one read."""
    seen = views.state(uow, table, None, mode)
    coup = seen["coup"]
    mine = {} if coup is None else views.own_bets(uow, coup, mode, player_ids)
    return seen, {p: mine.get(p) or views.no_bets() for p in player_ids}


@dataclass(slots=True)
class _Seen:
    """What a follower knows of its table: from its events, and its first read."""

    coup: int | None = None
    phase: str = "idle"
    closes_at: int = 0
    next_at: int | None = None
    shoe: tuple[int, bool] | None = None  # the shoe's id, and whether it ended

    @classmethod
    def of(cls, state: dict[str, Any]) -> _Seen:
        shoe = state["shoe"]
        return cls(state["coup"], state["phase"], state["closes_at"] or 0, state["next_at"],
                   None if shoe is None else (shoe["id"], shoe["finished"]))  # fmt: skip


class Feed:
    """This worker's sockets on shared tables, by table and mode, and their followers."""

    def __init__(self, db: Database, watch: Callable[[str], None]):
        self.db = db
        self.watch = watch
        self.clients: dict[tuple[str, str], set[Client]] = {}
        self._tasks: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._inboxes: dict[tuple[str, str], asyncio.Queue[SharedEvent | Resync]] = {}

    # -- the events (``play.events.Receiver``) ---------------------------------------------

    def dispatch(self, data: dict[str, Any]) -> None:
        """An event of a table (made in any worker), to its followers."""
        event: SharedEvent | Resync | None = parse(data)
        if event is None and data.get("type") == "refresh":  # too large for the bus
            event = Resync(data.get("table_id"))
        if event is None:
            return
        for (table_id, _), inbox in list(self._inboxes.items()):
            if table_id == event.table_id or event.table_id is None:
                inbox.put_nowait(event)

    def refresh_all(self) -> None:
        self.dispatch({"type": "refresh"})

    def add(self, table: Table, mode: str, client: Client) -> None:
        key = (table.id, mode)
        self.clients.setdefault(key, set()).add(client)
        if key not in self._tasks:
            # Its inbox from now: no event after this is lost to the follower's first read.
            self._inboxes[key] = asyncio.Queue()
            self._tasks[key] = asyncio.get_running_loop().create_task(self._follow(table, mode))

    def remove(self, table: Table, mode: str, client: Client) -> None:
        clients = self.clients.get((table.id, mode))
        if clients is not None:
            clients.discard(client)

    async def stop(self) -> None:
        # A follower ending removes itself from ``_tasks``: stop the ones there are now.
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def _follow(self, table: Table, mode: str) -> None:
        key = (table.id, mode)
        inbox = self._inboxes[key]
        follower = _Follower(self, table, mode)
        try:
            while self.clients.get(key):
                self.watch(table.id)
                wait = follower.wait()
                heard: list[SharedEvent | Resync] = []
                with contextlib.suppress(asyncio.TimeoutError):
                    heard.append(await asyncio.wait_for(inbox.get(), wait))
                while not inbox.empty():  # a burst (a crowd's bets) is handled at once
                    heard.append(inbox.get_nowait())
                try:
                    await follower.hear(heard)
                except Exception:
                    log.exception("following shared table %s failed; its state is sent again",
                                  table.id)  # fmt: skip
                    follower.lost = True
                    await asyncio.sleep(1.0)
        finally:
            self._tasks.pop(key, None)
            self.clients.pop(key, None)
            self._inboxes.pop(key, None)

    def tell(self, table: Table, mode: str, message: dict[str, Any]) -> None:
        text = compact(message)  # once for every socket
        for client in list(self.clients.get((table.id, mode), ())):
            client.deliver(text)


class _Follower:
    """One table and mode's messages, told from its events in their order."""

    def __init__(self, feed: Feed, table: Table, mode: str):
        self.feed, self.table, self.mode = feed, table, mode
        self.seen: _Seen | None = None  # None: its first read is to come
        self.lost = False  # events may have been missed: every socket gets the state again
        self.pending = False  # the bets changed: the totals are to be told
        self.told: tuple[int | None, dict[str, Any]] | None = None  # the last totals told
        self.told_at = -TOTALS_EVERY_S  # when (the event loop's time)
        self.look_at = 0  # a dealt coup's table is looked at again from then (server's us)

    def _now(self) -> int:
        return self.feed.db.clock()

    def wait(self) -> float:
        """Seconds until the follower has something to do without an event."""
        seen, wait = self.seen, QUIET_S
        if seen is None:
            return 0.0
        due = seen.closes_at if seen.phase == "betting" else None
        if seen.phase == "dealt" and seen.next_at is not None:
            due = max(seen.next_at + IDLE_AFTER_US, self.look_at)
        if due is not None:
            wait = min(wait, max(0.0, (due - self._now()) / 1e6) + DUE_S)
        if self.pending:
            loop = asyncio.get_running_loop()
            wait = min(wait, max(0.0, self.told_at + TOTALS_EVERY_S - loop.time()))
        return wait

    async def hear(self, heard: list[SharedEvent | Resync]) -> None:
        """Tell what the events say (in their order), and what the clock made due."""
        events = [e for e in heard if not isinstance(e, Resync)]
        if self.seen is None or self.lost or len(events) < len(heard):
            await self._resync(first=self.seen is None)
            self.lost = False
        for event in events:
            await self._event(event)
        await self._due()

    async def _resync(self, first: bool) -> None:
        """The table's state read: the follower starts from it (``first``), or every socket
        gets it again (events may have been missed)."""
        table, mode = self.table, self.mode
        clients = list(self.feed.clients.get((table.id, mode), ()))
        ids = [] if first else sorted({c.player_id for c in clients if c.player_id is not None})
        state, yours = await self.feed.db.read(lambda uow: states(uow, table, mode, ids))
        self.seen = _Seen.of(state)
        self.told = (state["coup"], {"players": state["players"], "totals": state["totals"]})
        self.pending = False
        if first:
            return
        for client in clients:
            you = {} if client.player_id is None else {"you": yours[client.player_id]}
            client.deliver({"type": "state", **state, **you})

    async def _event(self, event: SharedEvent) -> None:
        seen, table = self.seen, self.table
        assert seen is not None
        if isinstance(event, BetsChanged):
            self.pending = True
        elif isinstance(event, ShoeChanged):
            shoe = (event.shoe["id"], event.shoe["finished"])
            if shoe != seen.shoe:
                seen.shoe = shoe
                self.feed.tell(table, self.mode, {"type": "shoe", "table_id": table.id,
                                                  "shoe": event.shoe})  # fmt: skip
        elif isinstance(event, WindowOpened):
            if seen.coup is not None and event.coup <= seen.coup:
                return  # told already (or its first read found a later coup)
            seen.coup, seen.phase, seen.closes_at = event.coup, "betting", event.closes_at
            seen.next_at = None
            self.feed.tell(table, self.mode, {
                "type": "open", "table_id": table.id, "coup": event.coup,
                "number": event.number, "closes_at": event.closes_at,
                "server_time": self._now(),
            })  # fmt: skip
            self._totals({"players": 0, "totals": views.no_totals(table)})
        elif isinstance(event, CoupDealt):
            if seen.coup is not None and (event.coup < seen.coup or (
                    event.coup == seen.coup and seen.phase in ("dealt", "idle"))):  # fmt: skip
                return
            seen.coup, seen.phase, seen.next_at = event.coup, "dealt", event.next_at
            result = clock.cards_json(event.player_cards, event.banker_cards, event.winner,
                                      event.position, event.lightning)  # fmt: skip
            self.feed.tell(table, self.mode, {
                "type": "dealt", "table_id": table.id, "coup": event.coup, "result": result,
                "next_at": event.next_at, "server_time": self._now(),
            })  # fmt: skip
            await self._settled(event.coup)
            await self._read_totals()

    async def _due(self) -> None:
        """What the clock alone makes due: a window's close, a resting table; and the totals
        the bets changed, once their time has come."""
        seen, table, now = self.seen, self.table, self._now()
        assert seen is not None
        if seen.phase == "betting" and now >= seen.closes_at:
            seen.phase = "closed"
            self.feed.tell(table, self.mode, {"type": "closed", "table_id": table.id,
                                              "coup": seen.coup})  # fmt: skip
            await self._read_totals()
        due = None if seen.next_at is None else max(seen.next_at + IDLE_AFTER_US, self.look_at)
        if seen.phase == "dealt" and due is not None and now >= due and await self._resting():
            seen.phase = "idle"
            self.feed.tell(table, self.mode, {"type": "idle", "table_id": table.id,
                                              "coup": seen.coup})  # fmt: skip
            await self._read_totals()
        loop = asyncio.get_running_loop()
        if self.pending and loop.time() - self.told_at >= TOTALS_EVERY_S:
            await self._read_totals(changed_only=True)

    async def _resting(self) -> bool:
        """Whether the table rests (no window opened, nobody watches): read, at most every
        ``QUIET_S`` (a shoe may wait long for its beacon round)."""
        table = self.table
        self.look_at = self._now() + int(QUIET_S * 1_000_000)

        def read(uow: UnitOfWork) -> str:
            _, coup, watched = clock.clock_of(uow, table)
            return views.phase(coup, watched, uow.now)

        return await self.feed.db.read(read) == "idle"

    async def _read_totals(self, changed_only: bool = False) -> None:
        coup, table, mode = None if self.seen is None else self.seen.coup, self.table, self.mode
        if coup is None:
            self.pending = False
            return
        now = await self.feed.db.read(lambda uow: views.totals(uow, table, coup, mode, fresh=True))
        if changed_only and self.told == (coup, now):
            self.pending = False
            return
        self._totals(now)

    def _totals(self, now: dict[str, Any]) -> None:
        assert self.seen is not None
        table, coup = self.table, self.seen.coup
        self.pending, self.told = False, (coup, now)
        self.told_at = asyncio.get_running_loop().time()
        self.feed.tell(table, self.mode, {
            "type": "totals", "table_id": table.id, "coup": coup, "players": now["players"],
            "totals": now["totals"],
        })  # fmt: skip

    async def _settled(self, coup: int) -> None:
        """Each logged-in watcher's own bets on the dealt coup, with what they returned."""
        mode = self.mode
        clients = list(self.feed.clients.get((self.table.id, mode), ()))
        ids = sorted({c.player_id for c in clients if c.player_id is not None})
        mine = {} if not ids else await self.feed.db.read(
            lambda uow: views.own_bets(uow, coup, mode, ids))  # fmt: skip
        message = {"type": "settled", "table_id": self.table.id, "coup": coup, "mode": mode}
        anonymous = compact(message | {"you": None})
        for client in clients:
            you = None if client.player_id is None else mine.get(client.player_id)
            client.deliver(anonymous if you is None else message | {"you": you})
