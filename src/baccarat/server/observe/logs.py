"""The server's log: uvicorn's text, or one JSON object a line (``baccarat serve
--log-format json``).

A JSON line has ``time`` (UTC, ISO 8601 to the millisecond), ``level``, ``worker`` (the
process id), ``logger`` and ``message``; a line written while a request is answered has its
``request_id`` too (the ``X-Request-Id`` of its answer); the access log's line of a request
(``--access-log``) adds its ``route`` (the template, never the path asked for: a path may
carry what a client should not have put there), ``method``, ``status``, ``latency_ms`` and
``player_id`` once the request's session named its player. Nothing else of a request is
logged: no header, no query, no body, so never a token, a password or a seed.
"""

from __future__ import annotations

import contextvars
import logging
import os
import traceback
from datetime import UTC, datetime
from typing import Any

from baccarat.server.jsontext import compact

FORMATS = ("text", "json")
ACCESS = logging.getLogger("baccarat.access")
# The request being answered in this context (its id), for every line logged meanwhile.
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# What a request's access line says besides the record's own fields.
_FIELDS = ("request_id", "route", "method", "status", "latency_ms", "player_id")


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON (the module doc)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "worker": record.process or os.getpid(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = REQUEST_ID.get()
        if request_id is not None:
            line["request_id"] = request_id
        for name in _FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return compact(line)


def config(log_format: str, access_log: bool) -> dict[str, Any] | None:
    """uvicorn's ``log_config`` for this format (None: uvicorn's own, the text format). In
    JSON, the server's loggers, uvicorn's and any other library's warnings go to standard
    output, a line each; the access log is the server's own (``baccarat.access``, which
    knows the route and the request id), uvicorn's is off."""
    if log_format == "text":
        return None
    handler = {"json": {"class": "logging.StreamHandler", "formatter": "json",
                        "stream": "ext://sys.stdout"}}  # fmt: skip
    alone = {"handlers": ["json"], "level": "INFO", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": handler,
        "loggers": {
            "uvicorn": alone,
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": [], "propagate": False},
            "baccarat": alone,
            "baccarat.access": {"level": "INFO" if access_log else "WARNING"},
        },
        "root": {"handlers": ["json"], "level": "WARNING"},
    }


class Noted:
    """What the access line of a request learns while it is answered (its player)."""

    __slots__ = ("player_id",)

    def __init__(self) -> None:
        self.player_id: int | None = None


# The key of a request's ``Noted`` in its ASGI scope.
SCOPE_KEY = "baccarat.noted"


def note_player(scope_value: object, player_id: int) -> None:
    """The request's session named its player (``scope_value``: the scope's ``SCOPE_KEY``
    entry, None outside a request)."""
    if isinstance(scope_value, Noted):
        scope_value.player_id = player_id
