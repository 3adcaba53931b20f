"""Endpoint costs bounded by what the caller owns: revealed seeds, history without a mode,
the export (paged, serialised off the event loop); rotations are rate-limited. The query
plans are checked on SQLite and PostgreSQL: no scan of all rounds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.server import history, seeds, wallet
from baccarat.server.db.uow import UnitOfWork

from ..harness import Api
from .conftest import BACKENDS
from .support import error_code

pytestmark = pytest.mark.anyio


async def rotate(api: Api, token: str, mode: str = "fun") -> Any:
    return await api.client.post(
        "/api/fairness/rotate", json={"mode": mode}, headers=api.auth(token, None)
    )


async def test_revealed_seeds_carry_the_nonces_recorded_at_rotation(api: Api) -> None:
    token = await api.player()
    for rounds in (3, 0, 2):
        for _ in range(rounds):
            assert (await api.play(token, player=200)).status_code == 201
        answer = await rotate(api, token)
        assert answer.json()["revealed"]["nonces_used"] == rounds
    # Each rotation revealed the fresh shuffles' seed and the cut shoes' (no shoe was cut).
    listed = await api.client.get("/api/fairness/seeds", headers=api.auth(token, None))
    assert [s["nonces_used"] for s in listed.json()] == [3, 0, 0, 0, 2, 0]
    newest = await api.client.get("/api/fairness/seeds?limit=3", headers=api.auth(token, None))
    assert [s["nonces_used"] for s in newest.json()] == [0, 2, 0]  # the newest, oldest first


async def test_rotations_are_limited_per_hour(api: Api) -> None:
    token = await api.player()
    for _ in range(seeds.ROTATIONS_PER_HOUR):
        assert (await rotate(api, token)).status_code == 200
    refused = await rotate(api, token, "real")
    assert (refused.status_code, error_code(refused)) == (429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    api.clock.advance(3600)
    assert (await rotate(api, token)).status_code == 200


async def test_history_without_a_mode_merges_both_modes_newest_first(api: Api) -> None:
    token = await api.player()
    player_id = int((await api.client.get("/api/me", headers=api.auth(token, None))).json()["id"])
    await api.casino.db.write(lambda uow: wallet.deposit(uow, player_id, 10_000, api.casino.system))
    played = []
    for i in range(7):
        mode = "real" if i % 3 == 0 else "fun"
        answer = await api.play(token, mode=mode, player=200)
        played.append((answer.json()["id"], mode))
    seen: list[tuple[str, str]] = []
    before = None
    while True:
        query = "/api/history?limit=3" + (f"&before={before}" if before else "")
        page = (await api.client.get(query, headers=api.auth(token, None))).json()
        seen += [(r["id"], r["mode"]) for r in page["items"]]
        before = page["next"]
        if before is None:
            break
    assert seen == played[::-1]


async def test_the_export_is_paged_and_complete(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "EXPORT_PAGE", 3)
    token = await api.player()
    ids = [(await api.play(token, player=200)).json()["id"] for _ in range(7)]
    answer = await api.client.get("/api/history/export", headers=api.auth(token, None))
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["id"] for line in lines] == ids


def _plan(uow: UnitOfWork, sql: str, params: dict[str, Any]) -> str:
    if uow.dialect == "sqlite":
        rows = uow.all("EXPLAIN QUERY PLAN " + sql, params)
        return "\n".join(str(row[-1]) for row in rows)
    uow.run("SET LOCAL enable_seqscan = off")
    return "\n".join(str(row[0]) for row in uow.all("EXPLAIN " + sql, params))


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_query_plans_read_only_the_callers_rows(api: Api) -> None:
    token = await api.player()
    for _ in range(3):
        await api.play(token, player=200)
    sql, params = history._both_sides(1, None, None, None, newest_first=True)
    params |= {"limit": 51}
    seeds_sql = (
        "SELECT s.server_seed, s.commitment, s.created_us, s.revealed_us, s.nonces_used "
        "FROM fairness_seeds s WHERE s.player_id = :p AND s.mode = :m "
        "AND s.revealed_us IS NOT NULL ORDER BY s.id DESC LIMIT :n"
    )

    def plans(uow: UnitOfWork) -> tuple[str, str]:
        return _plan(uow, sql, params), _plan(uow, seeds_sql, {"p": 1, "m": "fun", "n": 10})

    history_plan, seeds_plan = await api.casino.db.write(plans)
    if api.casino.db.dialect == "sqlite":
        assert "SCAN r\n" not in history_plan + "\n" and "SCAN b\n" not in history_plan + "\n"
        assert "ix_rounds_player" in history_plan and "ix_banked_rounds_banker" in history_plan
        assert "ix_fairness_seeds_player" in seeds_plan
    else:
        assert "Seq Scan on rounds" not in history_plan, history_plan
        assert "Seq Scan on banked_rounds" not in history_plan, history_plan
        assert "Seq Scan on fairness_seeds" not in seeds_plan, seeds_plan
    assert "rounds" not in seeds_plan


async def test_an_account_runs_one_export_at_a_time(api: Api) -> None:
    import time

    token = await api.player()
    await api.play(token, player=200)
    me = (await api.client.get("/api/me", headers=api.auth(token, None))).json()["id"]
    api.app.state.exporting = {me: time.monotonic()}  # as if one of its exports were running
    busy = await api.client.get("/api/history/export", headers=api.auth(token, None))
    assert (busy.status_code, error_code(busy)) == (429, "rate_limited")
    assert busy.headers["Retry-After"] == "5"
    other = await api.player("other")
    assert (await api.client.get("/api/history/export", headers=api.auth(other, None))).is_success
    api.app.state.exporting = {}
    done = await api.client.get("/api/history/export", headers=api.auth(token, None))
    assert done.status_code == 200 and len(done.text.splitlines()) == 1
    assert api.app.state.exporting == {}  # the finished stream let go


async def test_large_reads_are_rate_limited_per_account(api: Api) -> None:
    from baccarat.server.api import pacing

    token, other = await api.player(), await api.player("other")
    for path in ("/api/history", "/api/fairness/seeds", "/api/tables/table-i/roads"):
        api.app.state.reads = pacing.AccountRate(per_s=0.001, burst=3)
        answers = [await api.client.get(path, headers=api.auth(token, None)) for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        assert error_code(answers[3]) == "rate_limited" and "Retry-After" in answers[3].headers
        # Another account has its own allowance.
        assert (await api.client.get(path, headers=api.auth(other, None))).status_code == 200


async def test_a_read_past_the_sessions_allowance_is_refused_without_a_query(api: Api) -> None:

    from baccarat.server.api import pacing

    token = await api.player()
    api.app.state.reads = pacing.AccountRate(per_s=0.001, burst=2)
    db = api.casino.db
    reads = 0
    read = db.read

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal reads
        reads += 1
        return await read(*args, **kwargs)

    db.read = counted
    for path in ("/api/history", "/api/fairness/seeds", "/api/tables/table-i/roads"):
        answer = await api.client.get(path, headers=api.auth(token, None))
        assert answer.status_code in (200, 429)
    assert reads == 2  # the third request was refused before its read
