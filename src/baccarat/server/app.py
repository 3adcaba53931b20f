"""The application factory: ``create_app(settings)`` builds the casino and its HTTP API."""

from __future__ import annotations

import functools
import gc
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, Depends, FastAPI

from baccarat import __version__
from baccarat.server.api.guard import Guard
from baccarat.server.casino import Casino
from baccarat.server.settings import Settings

DESCRIPTION = """
Punto Banco baccarat: accounts, a double-entry wallet (fun and real money), tables, rounds,
history and provably fair shuffles.

* Authenticate with `Authorization: Bearer TOKEN` (from `POST /api/sessions`), or in a
  browser with the session cookie plus the `X-CSRF-Token` header on state-changing requests.
* Money is always integer cents. Money-moving requests need an `Idempotency-Key` header.
* Every refusal is `{"error": {"code", "message", "details"}}` with a stable `code`.
* Player-banked tables (`player-banked`): besides these routes, each seat has a WebSocket,
  `/api/seats/{seat_id}/ws` (authenticated by an `Authorization: Bearer` header or the
  session cookie, never a token in the URL), carrying the seat's events
  (`state`, `round`) and the same actions (`{"id", "action": "approve" | "auto_approve" |
  "bets" | "deal" | "leave" | "state" | "ping", ...}`, each answered by a `reply`); and
  `/api/seats/ws` streams the lobby's seat changes. See docs/player-banked.md.
* Responsible gaming (`/api/responsible`): limits, reality checks, time-out and
  self-exclusion; rounds, deposits and seats they refuse answer `deposit_limit_reached`,
  `loss_limit_reached`, `wager_limit_reached`, `session_limit_reached`, `reality_check_due`,
  `self_excluded` or `timed_out`. See docs/responsible-gaming.md.
"""


# The garbage collector's thresholds while serving (``gc.set_threshold``).
GC_THRESHOLDS = (50_000, 20, 20)


def create_app(settings: Settings) -> FastAPI:
    """The server for these settings (nothing is opened until the app starts)."""
    from fastapi.staticfiles import StaticFiles

    from baccarat.server.api import access, errors
    from baccarat.server.api.sockets import Sockets
    from baccarat.server.kinds import KINDS
    from baccarat.server.observe import metrics
    from baccarat.server.observe.requests import Observed
    from baccarat.server.play.events import open_bus
    from baccarat.server.play.kind import Given
    from baccarat.server.wallets.operator.engine import OperatorDesk
    from baccarat.server.wallets.operator.shared import OperatorCoups

    casino = Casino(settings)
    worker = secrets.token_hex(6)
    bus = open_bus(settings.database, worker)
    operator_desk = OperatorDesk(casino)
    # Each kind's runtime in this worker (the shared tables' clock, the seats' deadlines),
    # handed the bus and, for a shared coup's bettors on operators' wallets, their coups.
    given = Given(casino, bus, worker, elsewhere=lambda: OperatorCoups(casino.shoes))
    runtimes = {name: runtime for name, kind in KINDS.items()
                if (runtime := kind.make_runtime(given)) is not None}  # fmt: skip
    sockets = Sockets(settings.limits)
    metrics.know_tables({table.id: table.kind for table in casino.tables.values()})
    sampler = metrics.Sampler(casino.db.pool_use, sockets.count)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        casino.start()
        await bus.start()  # every runtime's receivers are on it: events reach them from now on
        for runtime in runtimes.values():
            await runtime.start()
        await operator_desk.start()
        sockets.start(casino.db)
        sampler.start()
        # What was built so far (modules, tables, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, which would stall requests.
        gc.collect()
        gc.freeze()
        # Under load every young collection finds dozens of requests in flight, whose
        # objects it promotes: with the default thresholds that set off a full pass every
        # few hundred milliseconds. Younger collections less often: 4-6% more rounds a
        # second (bench/server.py), and a lower p99.
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            yield
        finally:
            await app.state.program_errors.flush()  # the counts of bursts still open
            await sampler.stop()
            await operator_desk.stop()
            await sockets.stop()
            for runtime in reversed(runtimes.values()):
                await runtime.stop()
            await bus.stop()
            casino.close()

    # Every route admits the kinds of session its entry of one table names (api.access):
    # those of ``api_router`` have it from their router, this one's own from the app.
    app = FastAPI(
        dependencies=[Depends(access.admit_session)],
        title="Baccarat",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.casino = casino
    for name, runtime in runtimes.items():  # app.state.banked, app.state.shared
        setattr(app.state, name, runtime)
    app.state.operators = operator_desk
    app.state.sockets = sockets
    errors.install(app)
    app.router.routes.extend(api_router(settings.bench_endpoint).routes)
    _document_security(app)
    _serve_docs(app)
    web = casino.web_dir()
    if web is not None:
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    app.add_middleware(Guard, limits=settings.limits)
    app.add_middleware(Observed)
    return app


@functools.cache
def api_router(bench: bool) -> APIRouter:
    """The API's routes, in the order a request is matched against them: built once per
    process (FastAPI analyses each route's parameters and models as it is included, an
    eighth of a second for all of them) and shared by the apps built in it, which hold no
    state of theirs in a route. Every route admits the kinds of session its entry of one
    table names (``api.access``)."""
    from baccarat.server.api import (
        access,
        accounts,
        fairness,
        favourites,
        history,
        office,
        office_desk,
        operators,
        profiles,
        recall,
        responsible,
        system,
        tables,
        wallet,
    )
    from baccarat.server.api import metrics as metrics_api
    from baccarat.server.kinds import KINDS

    api = APIRouter(dependencies=[Depends(access.admit_session)])
    # The players' routes first.
    playing = (accounts, tables, wallet, history, fairness, responsible, system)
    for module in (*playing, profiles, recall, favourites):  # the profiles' (docs/jurisdictions.md)
        api.include_router(module.router)
    for kind in KINDS.values():  # each kind's own routes (a shared table's, the seats)
        routes = kind.routes()
        if routes is not None:
            for router in routes.routers:
                api.include_router(router)
            access.admit_routes(routes.session_kinds)
    if bench:
        api.include_router(system.bench_router)
    for module in (operators, office, office_desk, metrics_api):
        api.include_router(module.router)
    return api


DOCS_ASSETS = "/docs-assets"


def _serve_docs(app: FastAPI) -> None:
    """Swagger UI at /docs with its scripts and styles from the installed swagger-ui-py
    package (FastAPI's default loads them from a CDN: a blank page without internet)."""
    from importlib.util import find_spec
    from pathlib import Path

    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    spec = find_spec("swagger_ui")  # located, not imported: only its static files are served
    assert spec is not None and spec.origin is not None, "swagger-ui-py is not installed"
    static = Path(spec.origin).parent / "static"
    app.mount(DOCS_ASSETS, StaticFiles(directory=static), name="docs")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
        )


def _document_security(app: FastAPI) -> None:
    """Declare the bearer token (and the browser's cookie) on every route that answers 401.

    The handlers read the credentials themselves (one cheap step instead of FastAPI's
    security dependencies on the hot path); the schema still says what they accept.
    """
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {})
        components["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "the token of POST /api/sessions"},
            "cookie": {"type": "apiKey", "in": "cookie", "name": "baccarat_session",
                       "description": "the browser's session; state-changing requests also "
                       "need the X-CSRF-Token header (the baccarat_csrf cookie's value)"},
        }  # fmt: skip
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                if "401" in operation.get("responses", {}):
                    operation["security"] = [{"bearer": []}, {"cookie": []}]
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def app_from_env() -> FastAPI:
    """For ``uvicorn --factory``: the settings come from BACCARAT_* variables."""
    return create_app(Settings.from_env())
