"""``create_app``: the API's routes are built once per process and shared by its apps; each
app still serves its own casino."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from baccarat.server.settings import DatabaseUrl

from ..harness import Api, FakeClock, SwitchableShoes, in_process, server_settings

pytestmark = pytest.mark.anyio


async def test_two_apps_share_their_routes_and_serve_their_own_casinos(
    api: Api, sqlite_template: Path, tmp_path: Path, clock: FakeClock
) -> None:
    folder = tmp_path / "other"
    shutil.copytree(sqlite_template, folder)
    settings = server_settings(DatabaseUrl.sqlite_in(folder), tmp_path, clock, SwitchableShoes())
    async with in_process(settings, Api) as other:
        ours = {route.path: route for route in api.app.routes if route.path.startswith("/api/")}
        theirs = {r.path: r for r in other.app.routes if r.path.startswith("/api/")}
        assert len(ours) >= 50 and ours.keys() == theirs.keys()
        assert all(ours[path] is theirs[path] for path in ours)  # built once
        token = await api.player("alice")
        assert (await api.client.get("/api/me", headers=api.auth(token, None))).status_code == 200
        # The other casino has no alice: its own database, its own sessions.
        unknown = await other.client.get("/api/me", headers=other.auth(token, None))
        assert unknown.status_code == 401
        assert (await other.player("alice")) != token
