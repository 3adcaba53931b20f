"""What stands between the network and the app: request limits that abuse cannot get around.

* ``Guard`` (ASGI middleware): a request body is counted as it arrives, however it is sent
  (``Content-Length`` or chunked), and refused with 413 ``payload_too_large`` past
  ``Limits.max_body``; the whole body must arrive within ``Limits.body_timeout_s`` (else 408
  ``request_timeout``); a path with a NUL byte or another character no route or file can
  have answers 404 ``not_found``. Refusals close the connection.
* ``GuardedHttpTools`` (uvicorn's HTTP protocol, subclassed): a connection must complete its
  request head (request line and headers) within ``timeout_keep_alive`` seconds of opening
  or of its first byte (uvicorn itself only times out idle connections *between*
  requests), and the head may not exceed ``h11_max_incomplete_event_size`` bytes
  (``Limits.max_head``), counted as they arrive, before parsing: a larger head is answered
  431 ``request_head_too_large`` and the connection closed.
* ``uvicorn_options``: the uvicorn settings that go with them (concurrency cap, WebSocket
  message size, keep-alive) for ``baccarat serve``.
"""

from __future__ import annotations

import asyncio
import json
import time
from http import HTTPStatus
from typing import Any

from starlette.exceptions import HTTPException
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..errors import ServiceError
from ..settings import Limits

# Characters no route and no file of ours has: control characters (NUL first of all).
_IMPOSSIBLE = frozenset(chr(c) for c in range(32)) | {"\x7f"}


class Guard:
    """Body size and time limits, and impossible paths, in front of every route."""

    def __init__(self, app: Any, limits: Limits):
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if any(char in _IMPOSSIBLE for char in path):
            if kind == "http":
                await _refuse(send, ServiceError("not_found", "no such resource"))
            else:
                await send({"type": "websocket.close", "code": 4404, "reason": "not_found"})
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        limit = self.limits.max_body
        for name, value in scope["headers"]:
            if name == b"content-length":
                if not value.isdigit() or int(value) > limit:
                    await _refuse(send, _too_large(limit))
                    return
                break
        started = False

        async def sending(message: Any) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, _counting(receive, limit, self.limits.body_timeout_s), sending)
        except _Refused as refused:
            if not started:
                await _refuse(send, refused.error)


class _Refused(HTTPException):
    """Raised from ``receive``: FastAPI passes HTTP exceptions through its body parsing."""

    def __init__(self, error: ServiceError):
        super().__init__(error.status, error.message, headers={"Connection": "close"})
        self.error = error


def _too_large(limit: int) -> ServiceError:
    return ServiceError(
        "payload_too_large", f"a request body is at most {limit} bytes", limit=limit
    )


def _counting(receive: Any, limit: int, timeout_s: float) -> Any:
    """``receive`` that counts body bytes and gives the whole body ``timeout_s`` seconds."""
    received = 0
    deadline = time.monotonic() + timeout_s

    async def counted() -> Any:
        nonlocal received
        remaining = deadline - time.monotonic()
        try:
            async with asyncio.timeout(max(remaining, 0.001)):
                message = await receive()
        except TimeoutError:
            raise _Refused(
                ServiceError(
                    "request_timeout", f"the request body did not arrive within {timeout_s:g} s"
                )
            ) from None
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _Refused(_too_large(limit))
        return message

    return counted


async def _refuse(send: Any, error: ServiceError) -> None:
    body = json.dumps(error.to_json()).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [(b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close")],
        }
    )  # fmt: skip
    await send({"type": "http.response.body", "body": body})


class _HeadTooLarge(Exception):
    """Raised in a parser callback: httptools stops and reports a callback error."""


# How long a refused connection's further input is read and dropped before it closes.
_LINGER_S = 2.0


def _answer(status: int, code: str, message: str, **details: Any) -> bytes:
    """A whole HTTP answer with the usual error body, for a refusal below the app (these
    codes are the transport's, not the API's: docs/server.md, "Limits")."""
    error = {"error": {"code": code, "message": message, "details": details}}
    body = json.dumps(error).encode()
    reason = HTTPStatus(status).phrase.encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n%s" % (status, reason, len(body), body)
    )


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline and a size bound on each request head.

    The head's bytes are counted as they arrive, before the parser sees them: the parser is
    never handed more than the limit of one head, so a head over it is refused whether it
    came in one packet or many. The parser's own pieces (URL, headers) are counted too, for
    a head that starts inside a packet after another request (pipelining)."""

    _head_timer: asyncio.TimerHandle | None = None
    _head_bytes = 0  # received of the current head
    _head_parsed = 0  # of the current head, as the parser hands it over
    _in_head = False
    _head_too_large = False
    # Refused: what still arrives is read and dropped until the connection closes.
    _refused = False
    _refusal: bytes | None = None  # waiting for the answers of earlier requests to go out
    _linger: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._start_head()

    def _max_head(self) -> int:
        limit: int = getattr(self.config, "h11_max_incomplete_event_size", None) or 16 * 1024
        return limit

    def _start_head(self) -> None:
        self._in_head = True
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.timeout_keep_alive, self._head_late)

    def _end_head(self) -> None:
        self._in_head = False
        self._head_bytes = 0
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        limit = self._max_head()
        while self._in_head:
            room = limit - self._head_bytes
            if len(data) <= room:
                self._head_bytes += len(data)
                super().data_received(data)
                return
            # Only what may still be head goes to the parser; the head must end in it.
            piece, data = data[:room], data[room:]
            self._head_bytes += len(piece)
            if piece:
                super().data_received(piece)
            if self._refused or self.transport.is_closing():
                return
            if self._in_head:
                self._refuse_head(limit)
                return
            # The head ended inside the piece: the rest is its body, or another request.
        super().data_received(data)

    def _count_parsed(self, size: int) -> None:
        self._head_parsed += size
        if self._head_parsed > self._max_head():
            self._head_too_large = True
            # The parser stops and uvicorn answers 400 through send_400_response (below).
            raise _HeadTooLarge

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_parsed = 0
        self._start_head()

    def on_url(self, url: bytes) -> None:
        self._count_parsed(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_parsed(len(name) + len(value) + 4)  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._end_head()
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        if self._head_too_large:
            self._refuse_head(self._max_head())
        else:
            super().send_400_response(msg)

    def _refuse_head(self, limit: int) -> None:
        """431 ``request_head_too_large`` once the earlier requests on this connection are
        answered; then the connection closes."""
        self._refused = True
        self._end_head()
        self._refusal = _answer(
            431,
            "request_head_too_large",
            f"a request head (request line and headers) is at most {limit} bytes",
            limit=limit,
        )
        if self.cycle is None or self.cycle.response_complete:
            self._send_refusal()
        # else on_response_complete sends it after the answers due before it.

    def _send_refusal(self) -> None:
        refusal, self._refusal = self._refusal, None
        if refusal is None or self.transport.is_closing():
            return
        self.transport.write(refusal)
        # The answer goes out with our end of the connection; what the client still sends
        # is read and dropped for a moment (closing with unread input would reset the
        # connection, and the client could lose the answer), then the connection closes.
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.flow.resume_reading()
        self._linger = self.loop.call_later(_LINGER_S, self.transport.close)

    def on_response_complete(self) -> None:
        if self._refusal is not None and not self.pipeline:
            self.server_state.total_requests += 1
            self._send_refusal()
            return
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._end_head()
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        super().connection_lost(exc)


def uvicorn_options(limits: Limits) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` that enforce these limits (per worker)."""
    return {
        "http": GuardedHttpTools,
        "timeout_keep_alive": limits.head_timeout_s,
        "h11_max_incomplete_event_size": limits.max_head,
        "limit_concurrency": limits.max_connections,
        "ws_max_size": limits.ws_max_message,
        "ws_per_message_deflate": False,
    }
