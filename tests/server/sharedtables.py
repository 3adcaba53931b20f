"""Helpers of the shared-table tests: a table's state, its clock moved on and ticked, a
window opened and closed, bets placed (through an in-process ``Api``); a table's socket
and the messages it receives (on a served ``SeatServer``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from baccarat.server.kinds.shared.terms import terms_of

from ..harness import Api
from .banked import WAIT_S, SeatServer, bearer

TABLE = "speed"  # betting 12 s, result 6 s


async def state(api: Api, token: str | None = None, table: str = TABLE) -> dict[str, Any]:
    headers = None if token is None else {"Authorization": f"Bearer {token}"}
    answer = await api.client.get(f"/api/tables/{table}/state", headers=headers)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


async def tick(api: Api) -> None:
    await api.app.state.shared.tick()


async def open_window(api: Api, table: str = TABLE) -> int:
    """Someone watches the table; the next window opens; its coup."""
    await state(api, table=table)
    await tick(api)
    now = await state(api, table=table)
    if now["phase"] != "betting":
        api.clock.advance(30)
        await tick(api)
        now = await state(api, table=table)
    assert now["phase"] == "betting", now
    coup: int = now["coup"]
    return coup


async def close_and_deal(api: Api, table: str = TABLE) -> None:
    api.clock.advance(terms_of(api.casino.tables[table]).betting_s)
    await tick(api)
    assert (await state(api, table=table))["phase"] == "dealt"


async def bet(api: Api, token: str, coup: int, key: str | None = "auto", **bets: int) -> Any:
    return await put_bets(api, token, coup, bets, key=key)


async def put_bets(api: Api, token: str, coup: int, bets: dict[str, int], *, table: str = TABLE,
                   mode: str = "fun", key: str | None = "auto") -> Any:  # fmt: skip
    return await api.client.put(
        f"/api/tables/{table}/coups/{coup}/bets",
        json={"mode": mode, "bets": bets},
        headers=api.auth(token, key),
    )


def watch(server: SeatServer, token: str | None = None, table: str = TABLE) -> Any:
    url = server.url.replace("http", "ws") + f"/api/tables/{table}/ws"
    return connect(url, additional_headers=bearer(token), open_timeout=WAIT_S)


async def received(
    ws: ClientConnection, wanted: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first message that is ``wanted`` (those before it are skipped)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            message: dict[str, Any] = json.loads(await ws.recv())
            if wanted(message):
                return message


def typed(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == kind
