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
  431 ``request_head_too_large`` and the connection closed. It also counts the worker's
  open connections (``_Connections``; HTTP and WebSocket alike, from their first moment):
  at most ``Limits.max_connections`` in all; at most ``Limits.connections_per_address`` of
  one client address (an IPv6 client by its /64; past it 503 ``too_many_connections``, at
  once); and of the anonymous ones (no request on them carried a live session yet:
  ``logged_in``) at most ``Limits.anonymous_percent`` of the worker's. When the worker or
  the anonymous share is full, a new connection takes the place of an anonymous one with
  no request in flight (closed at no cost: an idle one, a slow head, an anonymous socket):
  the longest idle of the address that holds the most of them (``_Idle``), so that a
  visitor with a connection or two keeps them and a flood makes room. Without one, or
  when that would not even the shares out (the newcomer's own address would then hold as
  many: a flood's newcomers would close its older connections, which come back at once),
  it is answered 503 ``server_busy``. The trusted proxies
  (``Limits.forwarded_allow_ips``) count among the worker's only: they limit their clients.
  Reads (GET, HEAD) of the API and its documents on an anonymous connection spend its
  address's allowance (``Limits.anonymous_reads_per_s``; past it 429 ``rate_limited``).
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

from baccarat.server import auth
from baccarat.server.api import pacing
from baccarat.server.errors import RateLimited, ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.observe import metrics
from baccarat.server.settings import Limits

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
        status = 0

        async def sending(message: Any) -> None:
            nonlocal started, status
            started = True
            if message["type"] == "http.response.start":
                status = message["status"]
            elif 0 < status < 400 and not message.get("more_body"):
                # Before the answer ends: once the client has it, the connection is known.
                await _mark_if_logged_in(scope)
            await send(message)

        try:
            await self.app(scope, _counting(receive, limit, self.limits.body_timeout_s), sending)
        except _Refused as refused:
            if not started:
                await _refuse(send, refused.error)


async def _mark_if_logged_in(scope: Any) -> None:
    """Before the end of a successful answer on an anonymous connection to a request that
    carried a session (a bearer token, the player's or the staff's cookie): the connection
    is logged in if the session is live. Checked once per session and connection (one read
    through an index, on a connection's first request with a session)."""
    connection = anonymous_connection(scope)
    if connection is None:
        return
    found = _session_of(scope)
    if found is None or found[1] == connection._checked:
        return
    staff, hashed = found
    connection._checked = hashed
    if await scope["app"].state.casino.db.read(lambda uow: _live(uow, hashed, staff)):
        connection._forget(closed=False)


def _session_of(scope: Any) -> tuple[bool, str] | None:
    """Whether a request's session is a staff member's, and its token's hash; None without
    (read as ``deps.caller_of`` reads it: a bearer token, else the player's or the staff's
    cookie)."""
    from starlette.requests import HTTPConnection

    from baccarat.server.api.deps import SESSION_COOKIE, session_token
    from baccarat.server.api.office import STAFF_COOKIE

    request = HTTPConnection(scope)
    for staff, name in ((False, SESSION_COOKIE), (True, STAFF_COOKIE)):
        token, _ = session_token(request, name)
        if token is not None:
            return staff, auth.token_hash(token)
    return None


def _live(uow: Any, hashed: str, staff: bool) -> bool:
    if not staff:
        return bool(auth.live_sessions(uow, [hashed]))
    from baccarat.server.office import staff as staffing

    try:
        staffing.authenticate(uow, hashed)
    except ServiceError:
        return False
    return True


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


async def _refuse(send: Any, error: ServiceError, close: bool = True) -> None:
    metrics.refused(error.code)
    body = compact(error.to_json()).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]  # fmt: skip
    if isinstance(error, RateLimited):
        headers.append((b"retry-after", str(error.retry_after_s).encode()))
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _answer_refusal(error: ServiceError, scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app that answers ``error`` (the connection stays open)."""
    await _refuse(send, error, close=False)


# The anonymous reads that are paced: the API's and its documents' (not the web pages'
# files, which a browser loads by the dozen and keeps).
_PACED = ("/api/", "/admin/api/", "/openapi.json", "/docs")


class _HeadTooLarge(Exception):
    """Raised in a parser callback: httptools stops and reports a callback error."""


# How long a refused connection's further input is read and dropped before it closes.
_LINGER_S = 2.0
# Who ``_Connections.refused`` names for the whole worker (an address is never empty).
_WORKER = ""


def _answer(status: int, code: str, message: str, **details: Any) -> bytes:
    """A whole HTTP answer with the usual error body, for a refusal below the app (these
    codes are the transport's, not the API's: docs/server.md, "Limits"); a
    ``retry_after`` detail is also the Retry-After header."""
    metrics.refused(code)
    error = {"error": {"code": code, "message": message, "details": details}}
    body = compact(error).encode()
    reason = HTTPStatus(status).phrase.encode()
    retry = b"retry-after: %d\r\n" % details["retry_after"] if "retry_after" in details else b""
    return (
        b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
        b"%sconnection: close\r\n\r\n%s" % (status, reason, len(body), retry, body)
    )


@functools.cache
def worker_limits() -> Limits:
    """This worker's limits: from its settings (``BACCARAT_SETTINGS``, which ``baccarat
    serve`` hands its workers, else the BACCARAT_* variables), as ``app_from_env`` reads
    them. uvicorn builds the protocol itself and has no field for them."""
    from baccarat.server.settings import Settings

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


class _Idle:
    """The anonymous connections with no request in flight (closed to make room), by
    client address, each address's in the order they became idle (since they opened, or
    since their last answer); and the addresses by how many they hold, each count's in the
    order they reached it. A count moves by one at a time, so the highest is followed
    without a search: choosing, adding and removing are O(1)."""

    def __init__(self) -> None:
        self.of: dict[str, dict[GuardedHttpTools, None]] = {}
        self.holding: dict[int, dict[str, None]] = {}
        self.most = 0

    def add(self, connection: GuardedHttpTools, key: str) -> None:
        held = self.of.setdefault(key, {})
        if connection not in held:
            held[connection] = None
            self._moved(key, len(held) - 1)

    def discard(self, connection: GuardedHttpTools, key: str) -> None:
        held = self.of.get(key)
        if held is not None and connection in held:
            del held[connection]
            if not held:
                del self.of[key]
            self._moved(key, len(held) + 1)

    def _moved(self, key: str, before: int) -> None:
        after = len(self.of.get(key, ()))
        if before:
            addresses = self.holding[before]
            del addresses[key]
            if not addresses:
                del self.holding[before]
        if after:
            self.holding.setdefault(after, {})[key] = None
        if after > self.most:
            self.most = after
        elif before == self.most and before not in self.holding:
            self.most = after  # one down: this address holds the most now (or none any)

    def victim(self, newcomer: str | None) -> GuardedHttpTools | None:
        """The connection a newcomer from ``newcomer`` takes the place of: the longest idle
        of the address that holds the most. None when there is none, or when that would
        not make the shares more even: the newcomer's own address, with it, would hold at
        least as many as that one does (it is refused: else a flood's newcomers close its
        older connections, which come back at once and close the next, without end, and
        the worker spends itself accepting them). A trusted proxy's newcomer (``None``)
        takes the place of one whenever there is one."""
        if not self.most:
            return None
        if newcomer is not None and len(self.of.get(newcomer, ())) + 1 >= self.most:
            return None
        return next(iter(self.of[next(iter(self.holding[self.most]))]))


class _Connections:
    """The open connections (HTTP and WebSocket) of one server (a worker): how many, those of
    each client address, and the anonymous ones (no request on them carried a live session
    yet), those of them with no request in flight by address (``_Idle``), with the
    anonymous reads' allowance of each address."""

    def __init__(self, limits: Limits):
        self.per_address = limits.connections_per_address
        self.most = limits.max_connections
        self.anonymous_most = max(1, limits.max_connections * limits.anonymous_percent // 100)
        self.trusted = _Networks(limits.forwarded_allow_ips)
        self.reads = pacing.AccountRate(limits.anonymous_reads_per_s, limits.anonymous_reads_burst)
        self.held = 0
        self.counts: dict[str, int] = {}
        self.anonymous: set[GuardedHttpTools] = set()
        self.idle = _Idle()
        # Who was refused since they last had room, each logged once: the addresses (since
        # they last held no connection) and the worker (``_WORKER``).
        self.refused: set[str] = set()

    def admit(self, connection: GuardedHttpTools, host: str | None) -> bytes | None:
        """Count a new connection, making room for it if the worker is full (an anonymous
        connection with no request in flight is closed: ``_Idle.victim``); or the answer
        that refuses it (503 ``server_busy`` when ``_Idle.victim`` has none). A trusted
        proxy's connections (or a client without an address) count among the worker's
        only: they are neither anonymous nor an address's."""
        key = None if host is None or host in self.trusted else address_key(host)
        if key is not None and self.per_address > 0:
            held = self.counts.get(key, 0)
            if held >= self.per_address:
                return self._refuse(
                    key, "too_many_connections",
                    f"this address holds {self.per_address} connections to the server, the "
                    "most it may", self.per_address,
                    ("%s holds %d connections, the most an address may: refusing more", key, held),
                )  # fmt: skip
        crowded = self.held >= self.most or (
            key is not None and len(self.anonymous) >= self.anonymous_most
        )
        if crowded:
            victim = self.idle.victim(key)
            if victim is None:
                return self._refuse(
                    _WORKER, "server_busy",
                    f"the server holds {self.most} connections, the most it may: try again "
                    "soon", self.most,
                    ("the worker holds %d connections (%d anonymous), none that a newcomer may "
                     "take the place of: refusing more", self.held, len(self.anonymous)),
                )  # fmt: skip
            victim._drop()
        self.held += 1
        connection._counted = True
        if key is not None:
            connection._address = key
            self.counts[key] = self.counts.get(key, 0) + 1
            self.anonymous.add(connection)
            self.idle.add(connection, key)
        return None

    def _refuse(
        self, who: str, code: str, message: str, limit: int, warning: tuple[Any, ...]
    ) -> bytes:
        """The 503 answer ``code`` (``limit``: the most it may hold); its first since ``who``
        last had room is logged (``warning``: the message and its arguments)."""
        if who not in self.refused:
            self.refused.add(who)
            _logger.warning(*warning)
        return _answer(503, code, message, limit=limit)

    def busy(self, connection: GuardedHttpTools, busy: bool) -> None:
        """A request is in flight on the connection now, or none is."""
        key = connection._address
        if key is not None and connection in self.anonymous:
            if busy:
                self.idle.discard(connection, key)
            else:
                self.idle.add(connection, key)

    def known(self, connection: GuardedHttpTools) -> None:
        """No longer anonymous: logged in, or closing."""
        self.anonymous.discard(connection)
        if self.held < self.most and len(self.anonymous) < self.anonymous_most:
            self.refused.discard(_WORKER)  # room again, in the whole and the anonymous share
        if connection._address is not None:
            self.idle.discard(connection, connection._address)

    def release(self, connection: GuardedHttpTools) -> None:
        if not connection._counted:
            return
        connection._counted = False
        self.held -= 1
        self.known(connection)
        key, connection._address = connection._address, None
        if key is not None:
            held = self.counts.pop(key, 0) - 1
            if held > 0:
                self.counts[key] = held
            else:
                self.refused.discard(key)

    def paced(self, connection: GuardedHttpTools) -> RateLimited | None:
        """Spend one anonymous read of the connection's address; the refusal past them."""
        if connection not in self.anonymous or connection._address is None:
            return None
        try:
            self.reads.take(connection._address)
        except RateLimited as refusal:
            return refusal
        return None


_connections: weakref.WeakKeyDictionary[ServerState, _Connections] = weakref.WeakKeyDictionary()
# The anonymous connections of this process by their two ends (client, server), which an
# HTTP request's and a WebSocket's scope both name: how the app finds a connection to mark
# it logged in (``logged_in``).
_by_ends: dict[tuple[Any, Any], GuardedHttpTools] = {}


def _ends(scope: Any) -> tuple[Any, Any] | None:
    client, server = scope.get("client"), scope.get("server")
    if client is None or server is None:
        return None
    return tuple(client), tuple(server)


def anonymous_connection(scope: Any) -> GuardedHttpTools | None:
    """The connection of this request or socket if it is counted and still anonymous."""
    ends = _ends(scope)
    return None if ends is None else _by_ends.get(ends)


def logged_in(scope: Any) -> None:
    """A request or socket on this connection carried a live session: the connection is no
    longer anonymous (it is not closed to make room, and its reads are not paced)."""
    connection = anonymous_connection(scope)
    if connection is not None:
        connection._forget(closed=False)


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
    _address: str | None = None  # the client address it is counted under (None: a proxy's)
    _counted = False  # among the worker's connections
    _checked: str | None = None  # the last session checked

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        connections = _connections.get(self.server_state)
        if connections is None:
            connections = _connections[self.server_state] = _Connections(worker_limits())
        refusal = connections.admit(self, None if self.client is None else self.client[0])
        if refusal is not None:
            self._refuse_connection(refusal)
            return
        if self._address is not None:
            _by_ends[(self.client, self.server)] = self
        self._start_head()

    def _refuse_connection(self, answer: bytes) -> None:
        """Answered (503) at once, and closed: the connection does not count among the
        worker's, and is not kept waiting for its request."""
        self._refused = True
        self.connections.discard(self)
        self.transport.write(answer)
        self.transport.close()

    def _give_back(self) -> None:
        """Closed: its place in the worker's count is free."""
        self._forget(closed=True)

    def _idle(self) -> bool:
        """No request in flight (between requests, or a head still arriving; a WebSocket's
        connection has none): closing it loses no work."""
        return self.cycle is None or self.cycle.response_complete

    def _note_busy(self) -> None:
        """Tell the worker's count whether a request is in flight on the connection now."""
        if self._counted:
            _connections[self.server_state].busy(self, not self._idle())

    def _drop(self) -> None:
        """Closed to make room: its place is free at once."""
        self._give_back()
        self.transport.close()

    def _forget(self, closed: bool) -> None:
        """No longer anonymous: logged in, or ``closed`` (then out of the worker's count too);
        no longer found by its ends (``anonymous_connection``)."""
        if self._counted:
            count = _connections[self.server_state]
            (count.release if closed else count.known)(self)
        if _by_ends.get((self.client, self.server)) is self:
            del _by_ends[(self.client, self.server)]

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        """A read of the API or its documents on an anonymous connection spends its
        address's allowance: past it, the answer is 429 ``rate_limited`` (the app is not
        called)."""
        scope = cycle.scope
        if (
            self._address is not None
            and scope["method"] in ("GET", "HEAD")
            and scope["path"].startswith(_PACED)
        ):
            refusal = _connections[self.server_state].paced(self)
            if refusal is not None:
                app = functools.partial(_answer_refusal, refusal)
        super()._start_asgi_task(cycle, app)

    def handle_websocket_upgrade(self) -> None:
        if self._address is not None:
            # A socket's handshake is an anonymous read too.
            refusal = _connections[self.server_state].paced(self)
            if refusal is not None:
                self._refused = True
                self.transport.write(_answer(429, "rate_limited", refusal.message,
                                             retry_after=refusal.retry_after_s))  # fmt: skip
                self.transport.close()
                return
        super().handle_websocket_upgrade()
        protocol = self.transport.get_protocol()
        if self._counted and protocol is not self:
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
        self._note_busy()

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
        self._note_busy()

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
        # The protocol counts the worker's connections itself (``_Connections``): uvicorn's
        # count is checked only when a request's head is complete, and never for a
        # WebSocket's handshake, so that idle connections and sockets went past it (1,100
        # sockets were held with a limit of 1,000), and at its limit it refuses every
        # request, a logged-in player's too.
        "limit_concurrency": None,
        # X-Forwarded-For is believed from the configured proxies only (uvicorn's default
        # believes any loopback client).
        "proxy_headers": bool(limits.forwarded_allow_ips),
        "forwarded_allow_ips": list(limits.forwarded_allow_ips) or None,
        "ws_max_size": limits.ws_max_message,
        "ws_per_message_deflate": False,
    }
