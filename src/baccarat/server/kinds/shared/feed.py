"""A shared table's events for this worker's sockets, read from the table's state.

Every worker follows, for each table and mode that one of its sockets watches, the table's
state in the database (one read per table and mode, whatever the number of sockets) when
it changed, and tells its sockets what changed. A change is told by the transaction that
made it (``tell``: a transition, a bettor's bets) through the seats' events
(``banked.events``: PostgreSQL's NOTIFY at its commit, heard by every worker's listening
session; in one process, the event loop after the commit), and the phase's own deadline
(a window closes at its instant, with no write) wakes the follower too; a follower that
heard nothing reads again after ``QUIET_S`` at most. The events: ``open`` (a window,
with its deadline on the server's clock), ``totals`` (players and the sum on each spot, when
they changed), ``closed``, ``dealt`` (the cards), ``settled`` (each logged-in watcher's own
bets with what they returned: one read for all of them), ``shoe`` (a new shoe, or the one
that ended with its seed revealed) and ``idle``. So a coup advanced by any worker reaches
the sockets of every worker; a socket that falls behind is closed (``Client.deliver``)
without slowing the others, and a page that reconnects starts from the state again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.jsontext import compact
from baccarat.server.kinds.shared import views
from baccarat.server.tables import Table

log = logging.getLogger("baccarat.server.kinds.shared")
TOTALS_EVERY_S = 0.5  # the totals are told at most twice a second
CHANNEL = "baccarat_shared"  # the shared tables' events (``banked.events``)
QUIET_S = 5.0  # a follower that heard nothing reads the state again after this at most
MIN_READ_S = 0.1  # and, woken however often, reads it at most this often


class Client(Protocol):
    player_id: int | None  # None: a watcher without a session

    def deliver(self, message: dict[str, Any] | str) -> None:
        """Queue a message (``str``: already encoded, the same for many sockets)."""
        ...


def changes(before: dict[str, Any] | None, now: dict[str, Any]) -> list[dict[str, Any]]:
    """The events between two states of a table (the first state: none)."""
    if before is None:
        return []
    found: list[dict[str, Any]] = []
    table, coup, phase = now["table_id"], now["coup"], now["phase"]
    shoe, old_shoe = now["shoe"] or {}, before["shoe"] or {}
    if shoe.get("id") != old_shoe.get("id") or shoe.get("finished") != old_shoe.get("finished"):
        found.append({"type": "shoe", "table_id": table, "shoe": now["shoe"]})
    moved = coup != before["coup"] or phase != before["phase"]
    if moved and phase == "betting":
        found.append({"type": "open", "table_id": table, "coup": coup,
                      "number": now["number"], "closes_at": now["closes_at"],
                      "server_time": now["server_time"]})  # fmt: skip
    if moved and phase == "closed":
        found.append({"type": "closed", "table_id": table, "coup": coup})
    if moved and phase == "dealt":
        found.append({"type": "dealt", "table_id": table, "coup": coup, "result": now["result"],
                      "next_at": now["next_at"], "server_time": now["server_time"]})  # fmt: skip
        found.append({"type": "settled", "table_id": table, "coup": coup})
    if moved and phase == "idle":
        found.append({"type": "idle", "table_id": table, "coup": coup})
    if moved or (now["players"], now["totals"]) != (before["players"], before["totals"]):
        found.append({"type": "totals", "table_id": table, "coup": coup,
                      "players": now["players"], "totals": now["totals"]})  # fmt: skip
    return found


def own_results(
    uow: UnitOfWork, coup_id: int, mode: str, player_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """The watchers' own bets on a dealt coup in a mode, with what they returned."""
    found: dict[int, dict[str, Any]] = {}
    for start in range(0, len(player_ids), 500):
        chunk = player_ids[start : start + 500]
        names = ", ".join(f":p{i}" for i in range(len(chunk)))
        for player, stake, round_id, returned in uow.all(
            "SELECT b.player_id, b.stake, b.round_id, r.win FROM shared_bets b "
            "LEFT JOIN rounds r ON r.id = b.round_id WHERE b.coup_id = :c AND b.mode = :m "
            f"AND b.player_id IN ({names})",
            {"c": coup_id, "m": mode, **{f"p{i}": p for i, p in enumerate(chunk)}},
        ):
            back = None if returned is None else int(returned)
            found[int(player)] = {"stake": int(stake), "round_id": round_id, "returned": back}
    return found


def _until_due(state: dict[str, Any]) -> float:
    """Seconds until the phase changes by the clock alone (a window closes; a result's time
    is up), however briefly; ``QUIET_S`` when nothing is due."""
    at = state["closes_at"] if state["phase"] == "betting" else state.get("next_at")
    if state["phase"] not in ("betting", "dealt") or at is None:
        return QUIET_S
    return min(QUIET_S, max(0.02, (int(at) - int(state["server_time"])) / 1e6 + 0.02))


class Feed:
    """This worker's sockets on shared tables, by table and mode, and their followers."""

    def __init__(self, db: Database, watch: Callable[[str], None]):
        self.db = db
        self.watch = watch
        self.clients: dict[tuple[str, str], set[Client]] = {}
        self._tasks: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._wakes: dict[tuple[str, str], asyncio.Event] = {}

    # -- the events (``banked.events.Receiver``) -------------------------------------------

    def dispatch(self, event: dict[str, Any]) -> None:
        """A table changed (in any worker): its followers read its state."""
        table = event.get("table_id")
        for (table_id, _), wake in list(self._wakes.items()):
            if table_id == table:
                wake.set()

    def refresh_all(self) -> None:
        for wake in list(self._wakes.values()):
            wake.set()

    def add(self, table: Table, mode: str, client: Client) -> None:
        key = (table.id, mode)
        self.clients.setdefault(key, set()).add(client)
        if key not in self._tasks:
            self._tasks[key] = asyncio.get_running_loop().create_task(self._follow(table, mode))

    def remove(self, table: Table, mode: str, client: Client) -> None:
        clients = self.clients.get((table.id, mode))
        if clients is not None:
            clients.discard(client)

    async def stop(self) -> None:
        for task in self._tasks.values():
            task.cancel()
        for task in self._tasks.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    async def _follow(self, table: Table, mode: str) -> None:
        key = (table.id, mode)
        wake = self._wakes.setdefault(key, asyncio.Event())
        before: dict[str, Any] | None = None
        told = 0.0  # when the totals were last told
        read_at = 0.0  # when the state was last read
        trailing = False  # woken: read once more after the totals' cache (``views.TOTALS_S``)
        loop = asyncio.get_running_loop()
        try:
            while self.clients.get(key):
                self.watch(table.id)
                await asyncio.sleep(max(0.0, read_at + MIN_READ_S - loop.time()))
                read_at = loop.time()
                wait = QUIET_S
                try:
                    now = await self.db.read(lambda uow: views.state(uow, table, None, mode))
                    events = changes(before, now)
                    moment = loop.time()
                    totals_only = all(e["type"] == "totals" for e in events)
                    # The totals alone, too soon after the last: they wait (``before`` stays).
                    if events and totals_only and moment - told < TOTALS_EVERY_S:
                        wait = TOTALS_EVERY_S - (moment - told)
                    else:
                        if events:
                            told = moment
                            await self._tell(table, mode, events)
                        before = now
                    wait = min(wait, _until_due(now))
                except Exception:
                    log.exception("following shared table %s failed; retrying", table.id)
                    wait = 1.0
                if trailing:
                    wait, trailing = min(wait, views.TOTALS_S), False
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(wake.wait(), wait)
                if wake.is_set():
                    wake.clear()
                    trailing = True
        finally:
            self._tasks.pop(key, None)
            self.clients.pop(key, None)
            self._wakes.pop(key, None)

    async def _tell(self, table: Table, mode: str, events: list[dict[str, Any]]) -> None:
        clients = list(self.clients.get((table.id, mode), ()))
        for event in events:
            if event["type"] != "settled":
                text = compact(event)  # once for every socket
                for client in clients:
                    client.deliver(text)
                continue
            mine = await self._own(int(event["coup"]), mode, clients)
            for client in clients:
                you = None if client.player_id is None else mine.get(client.player_id)
                client.deliver(event | {"mode": mode, "you": you})

    async def _own(self, coup: int, mode: str, clients: list[Client]) -> dict[int, dict[str, Any]]:
        ids = sorted({c.player_id for c in clients if c.player_id is not None})
        if not ids:
            return {}
        return await self.db.read(lambda uow: own_results(uow, coup, mode, ids))
