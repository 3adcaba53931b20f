"""Helpers of the shared-table tests: a table's state, its clock moved on and ticked, a
window opened and closed, bets placed (through an in-process ``Api``)."""

from __future__ import annotations

from typing import Any

from ..harness import Api

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
    api.clock.advance(api.casino.tables[table].shared.betting_s)
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
