"""The ASGI middleware in front of the app that counts and times every HTTP request by its
route's template (``metrics``)."""

from __future__ import annotations

import time
from typing import Any

from baccarat.server.observe import metrics

# The methods counted by name (another, however spelled, is ``other``: a bounded label).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


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


class Observed:
    """Counts and times each HTTP request once its answer has gone (WebSockets pass)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            method = scope["method"] if scope["method"] in METHODS else "other"
            metrics.answered(route_of(scope), method, status,
                             time.perf_counter() - started)  # fmt: skip
