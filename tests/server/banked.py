"""Helpers of the player-banked tests: a real server in the test's event loop (uvicorn on a
loopback port, with the injected clock and deal source), and participants that talk to it
over HTTP and WebSocket like any client."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from baccarat.server import accounts, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.kinds.banked import seats
from baccarat.server.play.check import Report
from baccarat.server.settings import BankedSettings, DatabaseUrl, Limits

from ..harness import FakeClock, Running, SwitchableShoes, in_loop, server_settings, until_async

PASSWORD = "a good password"
WAIT_S = 10.0


class SeatServer(Running):
    """A server in the test's event loop (``in_loop``) and its player-banked desk."""

    def __init__(self, app: Any, client: httpx.AsyncClient, url: str | None = None):
        super().__init__(app, client, url)
        self.url: str = url or ""
        self.desk = app.state.banked
        self._names = itertools.count()

    @property
    def http(self) -> httpx.AsyncClient:
        client: httpx.AsyncClient = self.client
        return client

    async def player(self, nickname: str | None = None) -> Participant:
        nickname = nickname or f"player{next(self._names)}"
        body = {"nickname": nickname, "password": PASSWORD}
        created = await self.http.post("/api/accounts", json=body)
        assert created.status_code == 201, created.text
        session = await self.http.post("/api/sessions", json=body)
        assert session.status_code == 201, session.text
        player = Participant(self, nickname, session.json()["token"], created.json()["id"])
        return player

    async def check(self) -> Report:
        report: Report = await self.read(audit.check)
        assert report.ok, report.problems
        return report

    async def advance(self, seconds: float) -> None:
        """Move the clock on; the server's own resolver takes it from there."""
        self.clock.advance(seconds)
        self.desk.wake()


@contextlib.asynccontextmanager
async def serving(
    database_url: DatabaseUrl,
    tmp_path: Path,
    clock: FakeClock | None = None,
    shoes: SwitchableShoes | None = None,
    poll_s: float = 0.02,
    reconnect_grace: int = BankedSettings.reconnect_grace,
    tables_file: Path | None = None,
    worker_gone_s: float = BankedSettings.worker_gone_s,
    limits: Limits | None = None,
) -> AsyncIterator[SeatServer]:
    """A ``SeatServer`` on this database with these banked settings (harness.in_loop)."""
    banked = BankedSettings(
        poll_s=poll_s, reconnect_grace=reconnect_grace, worker_gone_s=worker_gone_s
    )
    settings = server_settings(
        database_url, tmp_path, clock or FakeClock(), shoes or SwitchableShoes(),
        banked=banked, tables_file=tables_file, limits=limits or Limits(),
    )  # fmt: skip
    async with in_loop(settings, SeatServer, timeout=WAIT_S) as server:
        yield server


class Participant:
    """One player: HTTP calls with their token, and their WebSocket at a seat."""

    def __init__(self, server: SeatServer, nickname: str, token: str, player_id: int):
        self.server = server
        self.nickname = nickname
        self.token = token
        self.id = player_id
        self.ws: ClientConnection | None = None
        self.backlog: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._keys = itertools.count(1)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def call(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        return await self.server.http.request(
            method, path, json=body, headers=self.headers | headers
        )

    async def join(self, table: str = "banked-i", role: str = "player", mode: str = "fun",
                   **extra: Any) -> httpx.Response:  # fmt: skip
        body = {"table_id": table, "role": role, "mode": mode} | extra
        answer: httpx.Response = await self.call("POST", "/api/seats", body)
        return answer

    async def sit(self, table: str = "banked-i", role: str = "player", mode: str = "fun",
                  **extra: Any) -> str:  # fmt: skip
        """Join and connect; the seat id."""
        answer = await self.join(table, role, mode, **extra)
        assert answer.status_code == 201, answer.text
        seat_id: str = answer.json()["seat"]["id"]
        await self.connect(seat_id)
        return seat_id

    async def deal_rest(self, seat_id: str, key: str | None = None, **bets: int) -> Any:
        body = {"bets": bets} if bets else {}
        key = key or f"{self.nickname}-{next(self._keys)}"
        return await self.call("POST", f"/api/seats/{seat_id}/deal", body,
                               **{"Idempotency-Key": key})  # fmt: skip

    # -- the socket ----------------------------------------------------------------------

    def ws_url(self, seat_id: str) -> str:
        return f"{self.server.url.replace('http://', 'ws://')}/api/seats/{seat_id}/ws"

    async def connect(self, seat_id: str) -> dict[str, Any]:
        self.ws = await connect(
            self.ws_url(seat_id), additional_headers=bearer(self.token), open_timeout=WAIT_S
        )
        self.backlog = []
        first = await self.event("state")
        self.backlog.append(first)  # kept: ``state(where)`` may be looking for it
        return first

    async def disconnect(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def _receive(self, timeout: float) -> dict[str, Any]:
        assert self.ws is not None, "not connected"
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        return message

    async def event(
        self, kind: str, where: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = WAIT_S,
    ) -> dict[str, Any]:  # fmt: skip
        """The next message of this type (and matching ``where``), keeping the others."""

        def wanted(message: dict[str, Any]) -> bool:
            return message.get("type") == kind and (where is None or where(message))

        for i, message in enumerate(self.backlog):
            if wanted(message):
                return self.backlog.pop(i)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self._receive(max(0.01, deadline - loop.time()))
            if wanted(message):
                return message
            self.backlog.append(message)

    async def state(self, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first seat state (received or to come) for which ``where(seat, message)``."""
        return await self.event("state", lambda m: where(m))

    async def send(self, action: str, **params: Any) -> dict[str, Any]:
        """An action over the socket; its reply (events meanwhile are kept)."""
        assert self.ws is not None
        ref = next(self._ids)
        await self.ws.send(json.dumps({"id": ref, "action": action} | params))
        return await self.event("reply", lambda m: m.get("id") == ref)

    async def closed_with(self) -> int | None:
        """Wait for the server to close this socket; its close code."""
        assert self.ws is not None
        with contextlib.suppress(Exception):
            while True:
                await asyncio.wait_for(self.ws.recv(), WAIT_S)
        return self.ws.close_code

    # -- money and points ----------------------------------------------------------------

    async def balance(self, mode: str = "fun") -> int:
        balances = await self.server.read(lambda uow: wallet.balances(uow, self.id))
        return int(balances[mode])

    async def points(self, mode: str = "fun") -> int:
        return int(await self.server.read(lambda uow: seats.points(uow, self.id, mode)))

    async def give_points(self, points: int, mode: str = "fun") -> None:
        await self.server.write(lambda uow: seats.add_points(uow, self.id, mode, points))

    async def deposit(self, cents: int) -> None:
        system = self.server.casino.system

        def move(uow: Any) -> None:
            wallet.deposit(uow, accounts.require(uow, self.nickname).id, cents, system)

        await self.server.write(move)

    async def history(self, mode: str = "fun") -> list[dict[str, Any]]:
        answer = await self.call("GET", f"/api/history?mode={mode}")
        assert answer.status_code == 200, answer.text
        items: list[dict[str, Any]] = answer.json()["items"]
        return items

    async def export(self, mode: str = "fun") -> str:
        answer = await self.call("GET", f"/api/history/export?mode={mode}")
        assert answer.status_code == 200, answer.text
        return answer.text


async def seat_row(server: Running, seat_id: str) -> seats.Seat:
    """The seat's row as it stands."""
    row: seats.Seat = await server.read(lambda uow: seats.load(uow, seat_id, lock=False))
    return row


async def seat_when(server: Running, seat_id: str, done: Callable[[seats.Seat], object],
                    timeout: float = 30) -> seats.Seat:  # fmt: skip
    """The seat's row once ``done(row)``: what the server does by itself, awaited."""
    return await until_async(lambda: seat_row(server, seat_id), f"seat {seat_id} gets there",
                             done=done, timeout=timeout, every=0.01)  # fmt: skip


def bearer(token: str | None) -> dict[str, str]:
    """The headers a socket authenticates with (none without a token)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def seat_of(message: dict[str, Any]) -> dict[str, Any]:
    seat: dict[str, Any] = message["seat"]
    return seat


def phase(name: str) -> Any:
    """A wait condition: the seat is in this phase."""
    return lambda m: seat_of(m)["phase"] == name


def notice(code: str) -> Any:
    """A wait condition: the seat's notice has this code."""
    return lambda m: (seat_of(m)["notice"] or {}).get("code") == code


async def pair(server: SeatServer, *, approve: bool, bets: dict[str, int] | None = None
               ) -> tuple[Participant, Participant, str]:  # fmt: skip
    """A banker and a player seated at banked-i; approved and with bets placed if asked."""
    banker, player = await server.player(), await server.player()
    seat = await banker.sit("banked-i", "banker")
    await player.sit("banked-i", "player")
    if approve:
        assert (await banker.send("approve"))["ok"]
        await player.state(phase("betting"))
    if bets:
        assert (await player.send("bets", bets=bets))["ok"]
    return banker, player, seat


class Worker:
    """A running server process, seen as ``banked.SeatServer`` is by ``Participant``."""

    def __init__(self, url: str, db: Database):
        self.url = url
        self.db = db
        self.http = httpx.AsyncClient(base_url=url, timeout=30)

    async def read(self, work: Any) -> Any:
        return await asyncio.to_thread(self.db.run_read, work)

    async def write(self, work: Any) -> Any:
        return await asyncio.to_thread(self.db.run_write, work)

    async def player(self, nickname: str) -> Participant:
        body = {"nickname": nickname, "password": "a good password"}
        created = await self.http.post("/api/accounts", json=body)
        assert created.status_code == 201, created.text
        token = (await self.http.post("/api/sessions", json=body)).json()["token"]
        return Participant(self, nickname, token, created.json()["id"])  # type: ignore[arg-type]
