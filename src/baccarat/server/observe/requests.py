"""The ASGI middleware in front of the app: every HTTP request gets an id (its answer's
``X-Request-Id`` header, and every log line written while it is answered: ``logs``), and
is counted and timed by its route's template (``metrics``) and, with the access log on in
the JSON format, logged once its answer has gone."""

from __future__ import annotations

import logging
import re
import secrets
import time
from typing import Any

from baccarat.server.observe import logs, metrics

# The methods counted by name (another, however spelled, is ``other``: a bounded label).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
HEADER = b"x-request-id"
# A proxy's request id is kept if it is of this shape (nginx's ``$request_id``: 32 hex
# digits): the proxy's log and ours then name a request alike.
_GIVEN = re.compile(rb"[A-Za-z0-9._-]{8,64}")


def route_of(scope: Any) -> str:
    """The template of the route that answered (``/api/tables/{table_id}/rounds``): the
    app's routes are a bounded set, paths asked for are not. A request no route took is
    ``static`` (a file of the web folder, or none) or, outside the page, ``unmatched``."""
    route = scope.get("route")
    path = getattr(route, "path_format", None) or getattr(route, "path", None)
    if isinstance(path, str):
        return path
    asked = scope.get("path", "")
    if asked.startswith(("/api/", "/admin/api/")):
        return "unmatched"
    return "static"


def request_id(scope: Any) -> bytes:
    """The proxy's id of the request if it sent one of a sound shape, else a new one."""
    for name, value in scope["headers"]:
        if name == HEADER and _GIVEN.fullmatch(value):
            return bytes(value)
    return secrets.token_hex(8).encode()


class Observed:
    """Gives each HTTP request its id, then counts, times and logs it once its answer has
    gone (WebSockets pass)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        rid = request_id(scope)
        noted = scope[logs.SCOPE_KEY] = logs.Noted()

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (HEADER, rid)]
            await send(message)

        token = logs.REQUEST_ID.set(rid.decode())
        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - started
            route = route_of(scope)
            method = scope["method"] if scope["method"] in METHODS else "other"
            metrics.answered(route, method, status, seconds)
            if logs.ACCESS.isEnabledFor(logging.INFO):
                logs.ACCESS.info(
                    "%s %s %d", method, route, status,
                    extra={"route": route, "method": method, "status": status,
                           "latency_ms": round(seconds * 1000, 3),
                           "player_id": noted.player_id},
                )  # fmt: skip
            logs.REQUEST_ID.reset(token)
