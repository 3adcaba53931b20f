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
  431 ``request_head_too_large`` and the connection closed. It also counts the open
  connections of each client address (HTTP and WebSocket alike, an IPv6 client by its /64):
  past ``Limits.connections_per_address`` a new one is answered 503
  ``too_many_connections`` and closed at once, so that one client holding idle
  connections cannot take the worker's ``limit_concurrency`` from everyone else. The
  trusted proxies (``Limits.forwarded_allow_ips``) are not counted: they limit their clients.
* ``uvicorn_options``: the uvicorn settings that go with them (concurrency cap, WebSocket
  message size, keep-alive, whose ``X-Forwarded-For`` to believe) for ``baccarat serve``.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import time
import weakref
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from starlette.exceptions import HTTPException
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from ..errors import ServiceError
from ..jsontext import compact
from ..settings import Limits

_logger = logging.getLogger("uvicorn.error")

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
        if not _IMPOSSIBLE.isdisjoint(path):
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
    body = compact(error.to_json()).encode()
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
    body = compact(error).encode()
    reason = HTTPStatus(status).phrase.encode()
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"connection: close\r\n\r\n%s" % (status, reason, len(body), body)
    )


@functools.cache
def worker_limits() -> Limits:
    """This worker's limits: from its settings (``BACCARAT_SETTINGS``, which ``baccarat
    serve`` hands its workers, else the BACCARAT_* variables), as ``app_from_env`` reads
    them. uvicorn builds the protocol itself and has no field for them."""
    from ..settings import Settings

    return Settings.from_env().limits


class _Networks:
    """Addresses and networks (the trusted proxies)."""

    def __init__(self, entries: tuple[str, ...]):
        self.networks = [ipaddress.ip_network(entry) for entry in entries]

    def __contains__(self, host: str) -> bool:
        if not self.networks:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def address_key(host: str) -> str:
    """What the connections of one client are counted under: its IPv4 address, or the /64
    of its IPv6 address (one subscriber's share: an attacker has all of it)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class _PerAddress:
    """The open connections (HTTP and WebSocket) of each client address in one server."""

    def __init__(self, limits: Limits):
        self.limit = limits.connections_per_address
        self.trusted = _Networks(limits.forwarded_allow_ips)
        self.counts: dict[str, int] = {}
        # The addresses refused since they last held no connection (logged once each).
        self.refused: set[str] = set()

    def take(self, host: str) -> tuple[bool, str | None]:
        """Whether a new connection from ``host`` may open, and the key it is counted
        under (None: not counted, for a trusted proxy or without a limit)."""
        if self.limit <= 0 or host in self.trusted:
            return True, None
        key = address_key(host)
        held = self.counts.get(key, 0)
        if held >= self.limit:
            if key not in self.refused:
                self.refused.add(key)
                _logger.warning(
                    "%s holds %d connections, the most an address may: refusing more",
                    key, held,
                )  # fmt: skip
            return False, None
        self.counts[key] = held + 1
        return True, key

    def give_back(self, key: str) -> None:
        held = self.counts.pop(key, 0) - 1
        if held > 0:
            self.counts[key] = held
        else:
            self.refused.discard(key)


_per_address: weakref.WeakKeyDictionary[ServerState, _PerAddress] = weakref.WeakKeyDictionary()


class _Counted(asyncio.Protocol):
    """A WebSocket's protocol, in front of which the connection's place among its address's
    connections is given back when it closes (uvicorn hands the connection over to the
    WebSocket protocol, whose own ``connection_lost`` we do not own)."""

    def __init__(self, inner: asyncio.Protocol, give_back: Callable[[], None]):
        self.inner = inner
        self.give_back = give_back

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.give_back()
        self.inner.connection_lost(exc)


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
    # After a chunk's size line until its first data: the trailers, if it is the last
    # chunk (head-like lines that httptools keeps whole until each ends); counted as a head.
    _in_trailer = False
    _head_too_large = False
    # Refused: what still arrives is read and dropped until the connection closes.
    _refused = False
    _refusal: bytes | None = None  # waiting for the answers of earlier requests to go out
    _linger: asyncio.TimerHandle | None = None
    _address: str | None = None  # what this connection is counted under

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        if self.client is not None:
            addresses = _per_address.get(self.server_state)
            if addresses is None:
                addresses = _per_address[self.server_state] = _PerAddress(worker_limits())
            allowed, self._address = addresses.take(self.client[0])
            if not allowed:
                self._refuse_connection(addresses.limit)
                return
        self._start_head()

    def _refuse_connection(self, limit: int) -> None:
        """503 ``too_many_connections`` at once, and closed: the connection does not count
        among the worker's, and is not kept waiting for its request."""
        self._refused = True
        self.connections.discard(self)
        self.transport.write(
            _answer(
                503,
                "too_many_connections",
                f"this address holds {limit} connections to the server, the most it may",
                limit=limit,
            )
        )
        self.transport.close()

    def _give_back(self) -> None:
        key, self._address = self._address, None
        if key is not None:
            _per_address[self.server_state].give_back(key)

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        protocol = self.transport.get_protocol()
        if self._address is not None and protocol is not self:
            # The connection is the WebSocket's now: it keeps its place until it closes.
            assert isinstance(protocol, asyncio.Protocol)
            self.transport.set_protocol(_Counted(protocol, self._give_back))

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
        while self._in_head or self._in_trailer:
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
            if self.transport.get_protocol() is not self:
                return  # upgraded to a WebSocket (uvicorn drops what followed the head)
            if self._in_head:
                self._refuse_head(limit)
                return
            if self._in_trailer:
                # The app is reading this request's body: no answer can come before its
                # own; the connection ends (the app sees the client gone).
                self._refused = True
                self.transport.close()
                return
            # The head (or trailer) ended inside the piece: what follows is a body, or
            # another request.
        super().data_received(data)

    def _count_parsed(self, size: int) -> None:
        if not self._in_head:
            return  # a chunked body's trailers
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

    def on_chunk_header(self) -> None:
        self._in_trailer = True
        self._head_bytes = 0

    def on_chunk_complete(self) -> None:
        self._in_trailer = False
        self._head_bytes = 0

    def on_body(self, body: bytes) -> None:
        if self._in_trailer:  # the chunk has data: it was not the last
            self._in_trailer = False
            self._head_bytes = 0
        super().on_body(body)

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
        self._give_back()
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
        # X-Forwarded-For is believed from the configured proxies only (uvicorn's default
        # believes any loopback client).
        "proxy_headers": bool(limits.forwarded_allow_ips),
        "forwarded_allow_ips": list(limits.forwarded_allow_ips) or None,
        "ws_max_size": limits.ws_max_message,
        "ws_per_message_deflate": False,
    }
