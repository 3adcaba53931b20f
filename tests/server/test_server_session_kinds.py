"""Which kinds of session each route admits (api.access): an operator's session plays on
the operator's wallet and reaches nothing of our own (cashier, player-banked seats, a
registered player's account), route by route, over HTTP and WebSocket; a route added
without an entry in the table fails here."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute
from starlette.routing import Mount
from websockets.asyncio.client import connect

from baccarat.server import wallet
from baccarat.server.api import access
from baccarat.server.app import create_app
from baccarat.server.history import iso_time
from baccarat.server.kinds.banked import seats
from baccarat.server.settings import DatabaseUrl
from baccarat.server.wallets.operator import launch
from baccarat.server.wallets.operator.config import Operator

from ..harness import FakeClock, SwitchableShoes, server_settings
from .banked import WAIT_S, Participant, SeatServer, bearer, serving

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

ACME = Operator("acme", "sixteen-chars-or-more", "http://127.0.0.1:9/wallet", ("USD",), None, 1)
REFUSED = "operator_session_not_allowed"
# A value for each path parameter of the app's routes (any will do: a refusal comes first).
PATH_VALUES = {"table_id": "table-i", "coup": "1", "shoe": "1", "seat_id": "banked-i.1",
               "session_id": "0" * 12, "round_id": "r_" + "0" * 20, "code": "no-such-code",
               "name": "nobody", "proposal_id": "1", "request_id": "1", "player_id": "1",
               "kind": "void", "message_id": "1"}  # fmt: skip
BANKED = ("banked-i", "banked-ii", "banked-iii")
_players = itertools.count()


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


async def launched(server: SeatServer, demo: bool = False, player: str = "u42") -> Participant:
    """A session that operator ACME launched for its player (real: on its wallet)."""
    casino = server.casino
    body = {"request_uuid": f"r{next(_players)}", "timestamp": iso_time(server.clock()),
            "player": player, "token": "t", "currency": "USD", "language": "en",
            "demo": demo}  # fmt: skip
    code = await server.write(lambda uow: launch.create(uow, ACME, casino.tables, body))
    started = await server.write(lambda uow: launch.redeem(uow, code, casino.system, 3600))
    assert access.kind_of(started.token) == (access.OPERATOR_DEMO if demo else access.OPERATOR)
    return Participant(server, f"acme:{player}", started.token, started.session.player_id)


def routes(app: Any) -> list[tuple[str, str]]:
    """Every route of the app that a dependency runs on, as (method or WS, path)."""
    found = []
    for route in app.routes:
        if isinstance(route, APIWebSocketRoute):
            found.append(("WS", route.path))
        elif isinstance(route, APIRoute):
            found += [(method, route.path) for method in sorted(route.methods)]
    return found


def app_of(database_url: DatabaseUrl, tmp_path: Path) -> Any:
    settings = server_settings(
        database_url, tmp_path, FakeClock(), SwitchableShoes(), bench_endpoint=True
    )
    return create_app(settings)


async def test_every_route_of_the_app_has_an_entry_in_the_table_of_session_kinds(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    app = app_of(database_url, tmp_path)
    listed = {f"{method} {path}" for method, path in routes(app)}
    assert sorted(listed - set(access.SESSION_KINDS)) == []  # a new route needs its entry
    assert sorted(set(access.SESSION_KINDS) - listed) == []  # and no entry names no route
    for route in app.routes:
        if isinstance(route, APIRoute | APIWebSocketRoute):
            assert route.dependant.dependencies[0].call is access.admit_session, route.path
        else:  # no dependency runs there: the schema, and static files
            assert route.path == "/openapi.json" or isinstance(route, Mount), route.path


def request_of(method: str, path: str) -> tuple[str, str]:
    return method, path.format(**{name: PATH_VALUES[name] for name in _names(path)})


def _names(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


async def answer(server: SeatServer, who: Participant, method: str, path: str) -> Any:
    """(status, code) of a request with an empty JSON body; a socket's close code and
    its error's code, or (None, its first message's type) if it stays open."""
    method, path = request_of(method, path)
    if method == "WS":
        url = server.url.replace("http://", "ws://") + path
        async with connect(url, additional_headers=bearer(who.token),
                           open_timeout=WAIT_S) as ws:  # fmt: skip
            first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            if first["type"] != "error":
                return None, first["type"]  # open (the test closes it)
            with contextlib.suppress(Exception):
                while True:
                    await asyncio.wait_for(ws.recv(), WAIT_S)
            return ws.close_code, first["error"]["code"]
    body: dict[str, Any] | None = {} if method in ("POST", "PUT") else None
    reply = await server.http.request(method, path, json=body, headers=who.headers)
    try:
        error = reply.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):  # an answer that is no refusal
        error = None
    return reply.status_code, error


def not_for(kind: str) -> list[tuple[str, str]]:
    return sorted(
        (key.split(" ", 1)[0], key.split(" ", 1)[1])
        for key, kinds in access.SESSION_KINDS.items()
        if kind not in kinds and key != "POST /api/bench/commit"  # not served here
    )


def documenting(schema: dict[str, Any], status: int, code: str) -> set[tuple[str, str]]:
    """The routes whose answers of ``status`` list ``code`` in the app's OpenAPI document."""
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if f"`{code}`:" in operation["responses"].get(str(status), {}).get("description", "")
    }


async def test_every_route_not_open_to_an_operators_session_refuses_it_whatever_the_body(
    server: SeatServer,
) -> None:
    """Refused, and documented so in the OpenAPI document, there alone (a socket is not in
    it: docs/operator-api.md tells its refusal)."""
    real, demo = await launched(server), await launched(server, demo=True, player="u43")
    refused = not_for(access.OPERATOR)
    # Our cashier, player-banked seats (their sockets too) and a player's account at least.
    assert {("POST", "/api/wallet/deposits"), ("POST", "/api/wallet/withdrawals"),
            ("POST", "/api/seats"), ("PUT", "/api/password"),
            ("WS", "/api/seats/{seat_id}/ws")} <= set(refused)  # fmt: skip
    for method, path in refused:
        expected = (4403, REFUSED) if method == "WS" else (403, REFUSED)
        assert await answer(server, real, method, path) == expected, (method, path)
    for method, path in not_for(access.OPERATOR_DEMO):
        expected = (4403, REFUSED) if method == "WS" else (403, REFUSED)
        assert await answer(server, demo, method, path) == expected, (method, path)
    either = {route for route in refused + not_for(access.OPERATOR_DEMO) if route[0] != "WS"}
    assert documenting(server.app.openapi(), 403, REFUSED) == either


async def test_an_operators_session_cannot_deposit_withdraw_sit_or_change_a_password(
    server: SeatServer,
) -> None:
    """The attack of the report, with well-formed requests: each refused, nothing done."""
    for who in (await launched(server), await launched(server, demo=True, player="u44")):
        for path in ("/api/wallet/deposits", "/api/wallet/withdrawals"):
            key = {"Idempotency-Key": f"{path}-{who.token[-8:]}"}
            refused = await who.call("POST", path, {"amount": 50_000}, **key)
            assert (refused.status_code, refused.json()["error"]["code"]) == (403, REFUSED)
            assert refused.json()["error"]["details"] == {"session": access.kind_of(who.token)}
        seated = await who.join("banked-i", "player", "real")
        assert (seated.status_code, seated.json()["error"]["code"]) == (403, REFUSED)
        body = {"current": "a good password", "new": "another good password"}
        changed = await who.call("PUT", "/api/password", body)
        assert (changed.status_code, changed.json()["error"]["code"]) == (403, REFUSED)
        asked = await server.read(lambda uow: wallet.list_requests(uow))
        assert [r for r in asked if r.player_id == who.id] == []
        found = await server.read(lambda uow: seats.load_all(uow, list(BANKED)))
        assert [seat.id for seat in found if seat.role_of(who.id)] == []
    await server.check()


async def test_an_operators_session_still_reaches_every_route_open_to_it(
    server: SeatServer,
) -> None:
    real, demo = await launched(server), await launched(server, demo=True)
    for who, kind in ((real, access.OPERATOR), (demo, access.OPERATOR_DEMO)):
        for key, kinds in sorted(access.SESSION_KINDS.items()):
            method, path = key.split(" ", 1)
            if kind in kinds and key not in ("DELETE /api/sessions", "POST /api/bench/commit"):
                status, code = await answer(server, who, method, path)
                assert code != REFUSED, key
                # No 500 (a socket's refusals are 4000 + status; ACME has no wallet here).
                fine = status is None or not 500 <= status < 4000
                assert fine or code == "operator_unavailable", (key, status, code)
    # A round on fun money of ours in the demo session; the real one's reads and the reality
    # check (the operator's wallet itself is tests/operators/').
    played = await demo.call("POST", "/api/tables/table-i/rounds",
                             {"mode": "fun", "bets": {"banker": 1000}},
                             **{"Idempotency-Key": "demo-round"})  # fmt: skip
    assert played.status_code == 201, played.text
    for method, path in (("GET", "/api/history"), ("GET", "/api/responsible"),
                         ("POST", "/api/responsible/reality-check/ack"),
                         ("GET", "/api/session")):  # fmt: skip
        assert (await real.call(method, path)).status_code == 200, path
    ended = await real.call("DELETE", "/api/sessions")
    assert ended.status_code == 204
    assert (await real.call("GET", "/api/history")).status_code == 401


async def test_a_player_of_ours_is_refused_nowhere_and_still_deposits_and_sits(
    server: SeatServer,
) -> None:
    alice = await server.player("alice")
    for key in sorted(access.SESSION_KINDS):
        method, path = key.split(" ", 1)
        if key not in ("DELETE /api/sessions", "DELETE /api/sessions/all",
                       "POST /api/bench/commit"):  # fmt: skip
            assert (await answer(server, alice, method, path))[1] != REFUSED, key
    deposit = await alice.call("POST", "/api/wallet/deposits", {"amount": 5000},
                               **{"Idempotency-Key": "d1"})  # fmt: skip
    assert deposit.status_code == 201, deposit.text
    assert (await alice.join("banked-i", "player", "fun")).status_code == 201
