"""The cut shoes have a seed of their own, committed with the fresh shuffles' one: a
rotation while a cut shoe is dealt reveals the fresh-shuffle tables' rounds at once, and
says which tables' shoes the other seed waits for and how many rounds they have left."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Status, verify_history

from ..harness import Api
from .conftest import BACKENDS

pytestmark = pytest.mark.anyio


async def call(api: Api, token: str, method: str, path: str, body: Any = None) -> Any:
    answer = await api.client.request(method, path, json=body, headers=api.auth(token, None))
    assert answer.status_code == 200, answer.text
    return answer.json()


async def statuses(api: Api, token: str) -> dict[str, Status]:
    export = await api.client.get("/api/history/export", headers=api.auth(token, None))
    report = verify_history(parse_history(export.text.splitlines()))
    assert report.ok, [str(f) for f in report.findings]
    return {r.round_id: r.status for r in report.rounds}


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_rotation_with_a_cut_shoe_in_play_reveals_the_fresh_tables_rounds_at_once(
    api: Api,
) -> None:
    token = await api.player()
    shown = await call(api, token, "PUT", "/api/fairness/client-seed",
                       {"mode": "fun", "client_seed": "mine"})  # fmt: skip
    fresh = [(await api.play(token, player=500)).json() for _ in range(3)]
    await call(api, token, "POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 100})
    mini = [(await api.play(token, table="mini", banker=200)).json() for _ in range(2)]
    # Each kind of table deals from its own seed, both shown before the client seed was set.
    assert {r["fairness"]["commitment"] for r in fresh} == {shown["commitment"]}
    assert {r["fairness"]["commitment"] for r in mini} == {shown["shoe"]["commitment"]}

    rotated = await call(api, token, "POST", "/api/fairness/rotate", {"mode": "fun"})
    assert rotated["revealed"]["commitment"] == shown["commitment"]
    assert rotated["revealed"]["nonces_used"] == 3
    assert rotated["revealed_shoe_seed"] is None  # the shoe in play keeps its seed
    (waiting,) = rotated["pending"]
    assert (waiting["commitment"], waiting["tables"]) == (shown["shoe"]["commitment"], ["mini"])
    # Which table waits, and how much of its shoe is left.
    shoe = mini[-1]["shoe"]
    (left,) = waiting["shoes"]
    assert left["table_id"] == "mini"
    assert left["cards_left"] == shoe["cut_card"] - shoe["position"]
    assert 0 < left["rounds_at_least"] <= left["rounds_at_most"]
    # The fairness panel's answer says the same, for as long as it waits.
    assert (await call(api, token, "GET", "/api/fairness"))["fun"]["pending"] == [waiting]
    found = await statuses(api, token)
    assert {found[r["id"]] for r in fresh} == {Status.VERIFIED}
    assert {found[r["id"]] for r in mini} == {Status.UNVERIFIABLE}

    dealt = 0
    while not mini[-1]["shoe"]["cut_due"]:
        mini.append((await api.play(token, table="mini", banker=200)).json())
        dealt += 1
    assert left["rounds_at_least"] <= dealt <= left["rounds_at_most"]
    assert (await call(api, token, "GET", "/api/fairness"))["fun"]["pending"] == []
    found = await statuses(api, token)
    assert {found[r["id"]] for r in fresh + mini} == {Status.VERIFIED}
    revealed = await call(api, token, "GET", "/api/fairness/seeds?mode=fun")
    assert [s["nonces_used"] for s in revealed] == [3, 1]
