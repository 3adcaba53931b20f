"""Program errors (any 500) as significant events and log lines, a burst written once.

A bug that one request can set off, any client can set off a thousand times a second: one
``program_error`` row and an 8 KB traceback each filled ``significant_events`` (which is
append-only) and the log with 3,524 rows and 30 MB in 15 s (issue 43). So the same error
(the same route, exception type and innermost line of code) from the same client within
``WINDOW_S`` of its first is a burst: its first is written in full (the event, the
traceback in the log), the others only counted; when the window ends a closing
``program_error`` row says how many more there were (``repeated``), with one log line.

The window is per worker (the counts live in its memory): N workers write at most N
bursts of one error a window. The closing row is written by a timer at the window's end,
or earlier by the next program error after it (the injected clock decides which bursts
are over: tests move it), or at shutdown (``flush``). A worker killed mid-window loses
the count of the burst (its first is written). The bursts tracked at once are bounded
(``MAX_BURSTS``): beyond them, the clients of the new ones share one burst per error.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from fastapi import Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from baccarat.server import significant
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import iso_time

log = logging.getLogger("baccarat.server")

WINDOW_S = 60
MAX_BURSTS = 1000
OTHERS = "others"  # the client of a burst shared by the clients beyond ``MAX_BURSTS``


@dataclass(frozen=True, slots=True)
class Key:
    client: str
    route: str  # the route's path template (``/api/tables/{table_id}/shoes/{shoe}``)
    error: str  # the exception's type
    at: str  # its innermost line: ``uow.py:194 execute``


@dataclass(slots=True)
class Burst:
    key: Key
    where: str  # the method and path of its first request
    first_us: int
    repeated: int = 0


def key_of(request: Request, error: Exception) -> tuple[Key, str]:
    """What makes two program errors the same, and where the first one happened."""
    frames = traceback.extract_tb(error.__traceback__)
    at = (
        f"{PurePath(frames[-1].filename).name}:{frames[-1].lineno} {frames[-1].name}"
        if frames
        else "?"
    )
    route = getattr(request.scope.get("route"), "path", None) or request.url.path
    client = request.client.host if request.client else "unknown"
    where = f"{request.method} {request.url.path}"[:200]
    return Key(client[:64], f"{request.method} {route}"[:200], type(error).__name__, at), where


class ProgramErrors:
    """The bursts of program errors of one worker (``app.state.program_errors``)."""

    def __init__(self, db: Database, clock: Callable[[], int], window_s: int = WINDOW_S,
                 max_bursts: int = MAX_BURSTS):  # fmt: skip
        self.db = db
        self.clock = clock
        self.window_us = window_s * 1_000_000
        self.max_bursts = max_bursts
        self.bursts: dict[Key, Burst] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def record(self, request: Request, error: Exception) -> None:
        """Count a program error; write (and log) it if it begins a burst, and close the
        bursts that are over."""
        key, where = key_of(request, error)
        now = self.clock()
        closed = self._over(now)
        if key not in self.bursts and len(self.bursts) >= self.max_bursts:
            key = Key(OTHERS, key.route, key.error, key.at)
        burst = self.bursts.get(key)
        if burst is None:
            self.bursts[key] = burst = Burst(key, where, now)
            log.error("unexpected error on %s (%s from %s; the same again within %d s is "
                      "only counted)", where, key.at, key.client, self.window_us // 1_000_000,
                      exc_info=error)  # fmt: skip
        else:
            burst.repeated += 1
            self._close_later()
        await self._write(closed, burst if burst.repeated == 0 else None)

    async def flush(self) -> None:
        """Close every burst (at shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        closed, self.bursts = list(self.bursts.values()), {}
        await self._write(closed, None)

    def _over(self, now: int) -> list[Burst]:
        over = [b for b in self.bursts.values() if now - b.first_us >= self.window_us]
        for burst in over:
            del self.bursts[burst.key]
        return over

    def _close_later(self) -> None:
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.window_us / 1_000_000, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        task = asyncio.get_running_loop().create_task(self.close_due())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close_due(self) -> None:
        """Close the bursts whose window is over (the timer's work); look again later
        while others have repeats to report."""
        closed = self._over(self.clock())
        if any(b.repeated for b in self.bursts.values()):
            self._close_later()
        await self._write(closed, None)

    async def _write(self, closed: list[Burst], first: Burst | None) -> None:
        """The first of a new burst and the closing rows of the bursts over (best effort:
        the database may be the error)."""
        closing = [b for b in closed if b.repeated]
        for burst in closing:
            log.error("the unexpected error on %s (%s from %s) happened %d more times from "
                      "%s", burst.key.route, burst.key.at, burst.key.client, burst.repeated,
                      iso_time(burst.first_us))  # fmt: skip
        if first is None and not closing:
            return

        def work(uow: UnitOfWork) -> None:
            for burst in closing:
                _event(uow, burst, repeated=burst.repeated, since=iso_time(burst.first_us))
            if first is not None:
                _event(uow, first)

        try:
            await self.db.write(work)
        except Exception:
            log.exception("the program error could not be recorded as a significant event")


class Answer500:
    """The ASGI middleware that answers a program error (``internal_error``) and records it
    (``ProgramErrors``) without raising it on: Starlette's outermost middleware raises every
    exception again once answered, for the server to log, and uvicorn would log the whole
    traceback of each request of a burst. (An error once the answer has begun is raised on:
    only the server can end that connection.)"""

    def __init__(self, app: ASGIApp, recorder: ProgramErrors,
                 answer: Callable[[], Response]):  # fmt: skip
        self.app = app
        self.recorder = recorder
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as error:
            await self.recorder.record(Request(scope), error)
            if started:
                raise
            await self.answer()(scope, receive, send)


def _event(uow: UnitOfWork, burst: Burst, **more: Any) -> None:
    key = burst.key
    significant.record(uow, "program_error", "system", burst.where, error=key.error, at=key.at,
                  route=key.route, client=key.client, **more)  # fmt: skip
