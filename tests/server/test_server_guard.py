"""The guard in front of every route, in-process: bodies are counted however they are sent,
slow bodies time out, impossible paths answer 404."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from baccarat.server.api.guard import Guard, _Connections
from baccarat.server.settings import Limits

from ..harness import Api
from .support import error_code

pytestmark = pytest.mark.anyio


async def chunks(count: int, size: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield b" " * size


async def test_a_chunked_body_is_counted_and_refused_past_the_limit(api: Api) -> None:
    answer = await api.client.post(
        "/api/accounts", content=chunks(20, 8192), headers={"Content-Type": "application/json"}
    )
    assert (answer.status_code, error_code(answer)) == (413, "payload_too_large")
    assert answer.json()["error"]["details"]["limit"] == Limits.max_body
    # Just under the limit is read (and refused for what it is, not for its size).
    answer = await api.client.post(
        "/api/accounts", content=chunks(7, 8192), headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 422 and error_code(answer) == "invalid_body"


@pytest.mark.parametrize(
    "path", ["/api/tables/%00", "/%00", "/index.html%00.js", "/api/rounds/a%0Ab", "/x%7F"]
)
async def test_impossible_paths_answer_404(api: Api, path: str) -> None:
    answer = await api.client.get(path)
    assert (answer.status_code, error_code(answer)) == (404, "not_found")


async def test_a_body_that_does_not_arrive_in_time_is_refused() -> None:
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await receive()  # the client never sends the rest

    async def receive() -> dict[str, Any]:
        if not sent:
            sent.append({})
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    out: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        out.append(message)

    guard = Guard(app, Limits(body_timeout_s=0.05))
    await guard({"type": "http", "path": "/api/accounts", "headers": []}, receive, send)
    assert out[0]["status"] == 408 and b"request_timeout" in out[1]["body"]
    assert (b"connection", b"close") in out[0]["headers"]


class Held:
    """A connection as the worker's count sees it (``_Connections``): closed to make room."""

    _counted = False
    _address: str | None = None

    def __init__(self, connections: _Connections):
        self.connections = connections
        self.closed = False

    def _drop(self) -> None:
        self.connections.release(cast(Any, self))
        self.closed = True


def test_room_is_made_from_the_address_holding_the_most_idle_anonymous_connections() -> None:
    connections = _Connections(Limits(max_connections=6, anonymous_percent=100))
    visitor, other = "192.0.2.1", "198.51.100.1"

    def admit(host: str | None) -> tuple[Held, bytes | None]:
        held = Held(connections)
        return held, connections.admit(cast(Any, held), host)

    def opened(host: str | None) -> Held:
        held, refusal = admit(host)
        assert refusal is None
        return held

    def busy(*held: Held) -> None:
        for one in held:
            connections.busy(cast(Any, one), True)

    first = opened(visitor)
    # One client: the addresses of an IPv6 /64.
    crowd = [opened(f"2001:db8::{n}") for n in range(1, 6)]
    busy(crowd[0])  # a request in flight: not closed
    second = opened(visitor)
    assert [held.closed for held in [first, *crowd]] == [False, False, True, False, False, False]
    # Answered, it waits again, behind the crowd's others (which have waited longer).
    connections.busy(cast(Any, crowd[0]), False)
    others = [opened(other) for _ in range(2)]
    assert [held.closed for held in crowd] == [False, True, True, True, False]
    # 2, 2 and 2: the crowd's newcomer would not even the shares out. Refused, nothing
    # closed.
    _, refusal = admit("2001:db8::ff")
    assert refusal is not None and b" 503 " in refusal and b"server_busy" in refusal
    kept = [first, second, crowd[0], crowd[4], *others]
    assert not any(held.closed for held in kept)
    # A logged-in connection is never closed; the one idle anonymous connection left is
    # (for a client without an address); with none left, 503.
    connections.known(cast(Any, first))
    busy(second, crowd[4], *others)
    opened(None)
    assert crowd[0].closed and not any(held.closed for held in kept if held is not crowd[0])
    _, refusal = admit(None)
    assert refusal is not None and b"server_busy" in refusal


def test_a_full_worker_is_logged_once_each_time_it_fills_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The anonymous share full, a newcomer is refused and the worker says so once; once the
    share has room again (one logs in), the next time it fills is logged again."""
    connections = _Connections(Limits(max_connections=10, anonymous_percent=20))
    caplog.set_level(logging.WARNING, logger="uvicorn.error")

    def admit() -> tuple[Held, bytes | None]:
        held = Held(connections)
        return held, connections.admit(cast(Any, held), "192.0.2.7")

    def full_warnings() -> int:
        return sum("refusing more" in record.getMessage() for record in caplog.records)

    anonymous = [admit()[0] for _ in range(2)]
    for held in anonymous:
        connections.busy(cast(Any, held), True)  # a request in flight: not closed
    for _ in range(3):
        assert b"server_busy" in (admit()[1] or b"")
    assert full_warnings() == 1
    connections.known(cast(Any, anonymous[0]))  # logged in: the share has room
    newcomer, refusal = admit()
    assert refusal is None
    connections.busy(cast(Any, newcomer), True)
    assert b"server_busy" in (admit()[1] or b"")
    assert full_warnings() == 2
