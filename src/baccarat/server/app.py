"""The application factory: ``create_app(settings)`` builds the casino and its HTTP API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from .. import __version__
from .casino import Casino
from .errors import ServiceError
from .settings import Settings

MAX_BODY = 64 * 1024

DESCRIPTION = """
Punto Banco baccarat: accounts, a double-entry wallet (fun and real money), tables, rounds,
history and provably fair shuffles.

* Authenticate with `Authorization: Bearer TOKEN` (from `POST /api/sessions`), or in a
  browser with the session cookie plus the `X-CSRF-Token` header on state-changing requests.
* Money is always integer cents. Money-moving requests need an `Idempotency-Key` header.
* Every refusal is `{"error": {"code", "message", "details"}}` with a stable `code`.
"""


class BodyLimit:
    """Refuse request bodies announced larger than MAX_BODY (pure ASGI: no per-request cost)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"content-length":
                    if not value.isdigit() or int(value) > MAX_BODY:
                        await _refuse(send, ServiceError("payload_too_large", "body too large"))
                        return
                    break
        await self.app(scope, receive, send)


async def _refuse(send: Any, error: ServiceError) -> None:
    import json

    body = json.dumps(error.to_json()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [(b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())],
        }
    )  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def create_app(settings: Settings) -> FastAPI:
    """The server for these settings (nothing is opened until the app starts)."""
    from fastapi.staticfiles import StaticFiles

    from .api import accounts, errors, fairness, history, seats, system, tables, wallet
    from .banked.desk import BankedDesk

    casino = Casino(settings)
    banked = BankedDesk(casino)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        casino.start()
        await banked.start()
        try:
            yield
        finally:
            await banked.stop()
            casino.close()

    app = FastAPI(
        title="Baccarat",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.casino = casino
    app.state.banked = banked
    errors.install(app)
    for module in (accounts, tables, wallet, history, fairness, seats, system):
        app.include_router(module.router)
    if settings.bench_endpoint:
        app.include_router(system.bench_router)

    web = casino.web_dir()
    if web is not None:
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    app.add_middleware(BodyLimit)
    return app


def app_from_env() -> FastAPI:
    """For ``uvicorn --factory``: the settings come from BACCARAT_* variables."""
    return create_app(Settings.from_env())
