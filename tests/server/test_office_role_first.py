"""The back office's writes check the caller's role before the body: a caller without it is
refused (401 / 403) whatever the body, and learns nothing of it; staff with the role
still get the body's 422."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.routing import APIRoute

from baccarat.server.office.staff import PERMISSIONS

from ..harness import Api
from .office import logged_in

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("database_url", ["sqlite"],
                                                         indirect=True)]  # fmt: skip
# A value for each path parameter of the back office's writes.
PATH_VALUES = {"name": "nobody", "round_id": "r_" + "0" * 20, "proposal_id": "1",
               "request_id": "1", "table_id": "table-i"}  # fmt: skip
# Bodies that are no write's: none of the fields, wrong types, an empty reason.
INVALID: tuple[Any, ...] = (
    {},
    {"reason": ""},
    {"approve": "perhaps", "enabled": 7, "reason": 3},
    [1, 2],
)


def writes(api: Api) -> list[tuple[str, str]]:
    """Every back-office route that takes a body, but the login: (method, path)."""
    return sorted(
        (method, route.path.format(**PATH_VALUES))
        for route in api.app.routes
        if isinstance(route, APIRoute) and route.path.startswith("/admin/api/")
        and route.body_field is not None and route.path != "/admin/api/sessions"
        for method in route.methods
    )  # fmt: skip


def code(answer: Any) -> Any:
    return answer.json()["error"]["code"]


async def test_staff_without_the_role_are_refused_whatever_the_body(api: Api) -> None:
    viewer = await logged_in(api, "vera", "viewer")  # reads the reports and events alone
    admin = await logged_in(api, "ada", "admin")
    routes = writes(api)
    assert len(routes) == 11
    for method, path in routes:
        for body in INVALID:
            answer = await api.client.request(method, path, json=body, headers=viewer.headers)
            if path == "/admin/api/me/password":  # every role's: the body is checked
                assert (answer.status_code, code(answer)) == (422, "invalid_body"), path
                continue
            assert (answer.status_code, code(answer)) == (403, "forbidden"), (path, body)
            # The role's holder is told what is wrong with the body.
            held = await api.client.request(method, path, json=body, headers=admin.headers)
            assert held.status_code == 422, (path, body, held.text)
    assert "viewer" not in PERMISSIONS["cashier"]


async def test_a_player_or_nobody_is_refused_a_back_office_write_whatever_the_body(
    api: Api,
) -> None:
    player = api.auth(await api.player("alice"), key=None)
    for method, path in writes(api):
        for headers in (player, {}):
            for body in INVALID:
                answer = await api.client.request(method, path, json=body, headers=headers)
                assert (answer.status_code, code(answer)) == (401, "not_authenticated"), path
