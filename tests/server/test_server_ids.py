"""Integer ids in paths and queries (issue 43, item 6): an id beyond the database's BIGINT is
no row, never a 500. Every route of the app with an integer path parameter is walked, with a
player's and an admin's session and a body it accepts, so that the id reaches the database."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.routing import APIRoute

from ..harness import Api
from .conftest import both_backends
from .office import logged_in
from .support import error_code

pytestmark = pytest.mark.anyio

HUGE = (2**63, 10**20)
# The other path parameters of the routes walked: what each names (a new one must be added).
SAMPLES = {"table_id": "live", "kind": "large_win"}
# A body each walked route accepts, by its route's path.
BODIES: dict[str, dict[str, Any]] = {
    "/api/tables/{table_id}/coups/{coup}/bets": {"mode": "fun", "bets": {"banker": 500}},
    "/admin/api/voids/{proposal_id}": {"approve": True, "reason": "checking"},
    "/admin/api/cashier/{request_id}": {"approve": True, "reason": "checking"},
}


def integer_parameters(route: APIRoute, where: str) -> list[str]:
    """The names of a route's integer parameters in the path or the query (its own and its
    dependencies')."""
    found: list[str] = []
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        params = dependant.path_params if where == "path" else dependant.query_params
        found += [p.name for p in params if p.field_info.annotation in (int, int | None)]
        pending += dependant.dependencies
    return found


def routes_with(api: Api, where: str) -> list[tuple[str, str, list[str]]]:
    """(method, path, integer parameters) of every route with one ``where``."""
    assert api.app is not None
    found = []
    for route in api.app.routes:
        if isinstance(route, APIRoute) and (names := integer_parameters(route, where)):
            found += [(method, route.path, names) for method in sorted(route.methods)]
    return found


async def sessions(api: Api) -> dict[str, dict[str, str]]:
    """A player's headers for /api, an admin's for /admin/api (each with an idempotency key)."""
    player = await api.player("alice")
    admin = await logged_in(api, "carol", "admin")
    return {"/api/": api.auth(player), "/admin/": {**admin.headers, "Idempotency-Key": "k"}}


async def send(api: Api, method: str, path: str, headers: dict[str, dict[str, str]],
               params: dict[str, int] | None = None, ids: dict[str, int] | None = None,
               ) -> Any:  # fmt: skip
    url = path.format(**SAMPLES, **(ids or {}))
    (mine,) = [h for prefix, h in headers.items() if path.startswith(prefix)]
    return await api.client.request(
        method, url, headers=mine, params=params, json=BODIES.get(path) if method != "GET" else None
    )


@both_backends
async def test_every_id_in_a_path_beyond_a_bigint_is_not_found(api: Api) -> None:
    walked = routes_with(api, "path")
    assert {path for _, path, _ in walked} >= {
        "/api/tables/{table_id}/coups/{coup}",
        "/api/tables/{table_id}/shoes/{shoe}",
        "/admin/api/players/{player_id}",
    }
    headers = await sessions(api)
    for method, path, names in walked:
        for huge in (*HUGE, 0, -1):
            answer = await send(api, method, path, headers, ids=dict.fromkeys(names, huge))
            assert answer.status_code == 404, (method, path, huge, answer.text)
            assert error_code(answer) == "not_found", (method, path, huge)
    # Nothing went wrong, so nothing was recorded as a program error.
    kinds = await api.casino.db.read(
        lambda uow: uow.all("SELECT kind FROM significant_events WHERE kind = 'program_error'")
    )
    assert kinds == []


@both_backends
async def test_every_integer_in_a_query_beyond_a_bigint_is_refused_as_invalid(api: Api) -> None:
    walked = routes_with(api, "query")
    assert {path for _, path, _ in walked} >= {"/admin/api/events", "/api/wallet/statement"}
    headers = await sessions(api)
    for method, path, names in walked:
        for name in names:
            for huge in HUGE:
                answer = await send(api, method, path, headers, params={name: huge})
                assert answer.status_code == 422, (method, path, name, huge, answer.text)
                assert error_code(answer) == "invalid_request", (method, path, name)


async def test_every_route_with_a_path_parameter_documents_its_not_found(api: Api) -> None:
    """Any of them can answer it (a character no path holds, an id out of range), so the
    schema says so on each, the next route's included."""
    schema = (await api.client.get("/openapi.json")).json()
    missing = [
        (method, path)
        for path, operations in schema["paths"].items()
        if "{" in path
        for method, operation in operations.items()
        if "`not_found`" not in operation["responses"].get("404", {}).get("description", "")
    ]
    assert missing == []
