"""Nothing of the back office holds the event loop: every page's reads (the reports above
all, which take milliseconds) run on the database's reader threads, on SQLite too."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any

import pytest

from baccarat.server.office import reports

from ..harness import Api
from .office import logged_in

pytestmark = pytest.mark.anyio


def recorded(calls: list[int], work: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.get_ident())
        return work(*args, **kwargs)

    return wrapped


async def test_every_back_office_read_runs_off_the_event_loop(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await api.player("alice")
    round_id = (await api.play(token, player=500)).json()["id"]
    player_id = (await api.client.get("/api/me", headers=api.auth(token, None))).json()["id"]
    admin = await logged_in(api, "ada", "admin")
    loop_thread = threading.get_ident()  # the test runs on the app's event loop
    report_calls: list[int] = []
    for name in ("ggr", "rtp", "liability"):
        monkeypatch.setattr(reports, name, recorded(report_calls, getattr(reports, name)))
    read_calls: list[int] = []
    db = api.casino.db
    read = db.read
    asking: contextvars.ContextVar[bool] = contextvars.ContextVar("asking", default=False)

    async def read_recorded(work: Callable[..., Any], **options: Any) -> Any:
        # The reads of the request (made in its context), not those the tables' own tasks
        # make on the loop meanwhile (a shared table's clock); where each one runs.
        if not asking.get():
            return await read(work, **options)

        def recorded_work(uow: Any) -> Any:
            read_calls.append(threading.get_ident())
            return work(uow)

        return await read(recorded_work, **options)

    monkeypatch.setattr(db, "read", read_recorded)
    filled = {"{kind}": "large_win", "{player_id}": str(player_id), "{round_id}": round_id}
    paths = sorted(
        route.path for route in api.app.routes
        if route.path.startswith("/admin/api/") and "GET" in getattr(route, "methods", ())
    )  # fmt: skip
    assert len(paths) >= 15, paths
    for path in paths:
        for hole, value in filled.items():
            path = path.replace(hole, value)
        query = {"/admin/api/players": "?q=al", "/admin/api/reports/ggr": "?by=table"}
        read_calls.clear()
        request = asking.set(True)
        try:
            answer = await api.client.get(path + query.get(path, ""), headers=admin.headers)
        finally:
            asking.reset(request)
        # A house round has no operator's calls: the read still runs, and answers so.
        expected = 404 if path.startswith("/admin/api/operators/rounds/") else 200
        assert answer.status_code == expected, (path, answer.text)
        assert read_calls, f"{path} read nothing through the database runner"
        assert loop_thread not in read_calls, f"{path} read the database on the event loop"
    for fmt in ("json", "csv"):
        answer = await api.client.get(f"/admin/api/reports/rtp?format={fmt}", headers=admin.headers)
        assert answer.status_code == 200
    assert len(report_calls) >= 4 and loop_thread not in report_calls
