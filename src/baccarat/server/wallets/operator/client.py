"""The calls to operators' wallets over HTTP: signed, with the operator's timeout, never
blocking the event loop; every failure is an answer (the contract's "no answer": API v1's
``RS_ERROR_UNKNOWN``), never an exception. What a call's body, headers and answer are is
its contract's (``Call.contract``: its round's, ``contract.WalletProtocol``); this is the
transport.

A call is one small POST whose answer is one small JSON body, two of them for every round:
the client is an HTTP/1.1 client of that and nothing more, on asyncio's transports (TLS
for an ``https`` wallet) with httptools' parser (uvicorn's), which takes about a third of
the time a general client takes per call. It keeps connections per wallet and reuses
them; an idle one is closed after ``KEEPALIVE_S``, sooner than most servers close theirs
(uvicorn's 5 s), so that a call rarely meets a connection the operator has just closed;
one that does (the connection was closed before an answer came) is sent again at once on
a fresh connection: by the contract a repeated transaction id gets the first answer, so a
repeat is safe. At most ``max_connections`` calls are in flight at once.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import httptools

from baccarat.server.observe import metrics
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.contract import Answer, WalletProtocol
from baccarat.server.wallets.operator.outbox import Call

log = logging.getLogger("baccarat.server.wallets.operator")
KEEPALIVE_S = 4.0
MAX_ANSWER_BYTES = 1 << 20  # an answer is a few dozen bytes; a megabyte is a broken wallet


@dataclass(frozen=True, slots=True)
class _Target:
    """Where a wallet's calls of one kind go."""

    key: tuple[str, int, bool]  # host, port, TLS: the connections it may share
    path: str
    host_header: str


class _Closed(Exception):
    """The connection closed before its answer was whole."""


class _Connection(asyncio.Protocol):
    """One connection to a wallet: one call at a time on it."""

    def __init__(self) -> None:
        self.transport: Any = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: asyncio.Future[tuple[int, bytes | None, bytes | None]] | None = None
        self.open = True
        self.idle_since = 0.0
        self._signature: bytes | None = None
        self._signature_header = b""
        self._body = bytearray()
        self._framed = False  # a Content-Length or a chunked body: complete when parsed

    # -- the call ----------------------------------------------------------------------

    async def exchange(
        self, request: bytes, signature_header: bytes
    ) -> tuple[int, bytes | None, bytes | None]:
        """Send a request; (HTTP status, the signature header's value, the body: None past
        ``MAX_ANSWER_BYTES``)."""
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        self._signature, self._body, self._framed = None, bytearray(), False
        self._signature_header = signature_header
        self.transport.write(request)
        return await self.waiter

    @property
    def answered(self) -> bool:
        """The call's answer is whole and the connection may take another call."""
        waiter = self.waiter
        return (self.open and waiter is not None and waiter.done() and not waiter.cancelled()
                and waiter.exception() is None)  # fmt: skip

    def close(self) -> None:
        self.open = False
        if self.transport is not None:
            self.transport.close()

    # -- asyncio -----------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport  # asyncio's or uvloop's (not a subclass of asyncio's)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self._fail(_Closed("the answer is not HTTP"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if self.waiter is not None and not self.waiter.done() and not self._framed:
            # A body that runs until the connection closes (no length given).
            status = self.parser.get_status_code() if self._body else 0
            if status:
                self.waiter.set_result((status, self._signature, bytes(self._body)))
                return
        self._fail(_Closed("the connection closed"))

    def _fail(self, error: Exception) -> None:
        self.close()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(error)

    # -- httptools ---------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == self._signature_header:
            self._signature = value
        elif name in (b"content-length", b"transfer-encoding"):
            self._framed = True

    def on_body(self, body: bytes) -> None:
        self._body += body
        if len(self._body) > MAX_ANSWER_BYTES and self.waiter is not None:
            if not self.waiter.done():
                self.waiter.set_result((self.parser.get_status_code(), None, None))
            self.close()

    def on_message_complete(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(
                (self.parser.get_status_code(), self._signature, bytes(self._body))
            )
        if not self.parser.should_keep_alive():
            self.close()


class WalletClient:
    """``tls``: what an ``https`` wallet's certificate is checked against (by default the
    system's certificate authorities, and the wallet's host name)."""

    def __init__(self, max_connections: int = 100, tls: ssl.SSLContext | None = None) -> None:
        self._idle: dict[tuple[str, int, bool], list[_Connection]] = {}
        self._slots = asyncio.Semaphore(max_connections)
        self._targets: dict[str, _Target] = {}
        self._tls = tls

    async def close(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    async def send(self, operator: Operator, call: Call) -> Answer:
        with metrics.wallet_call(operator.id, call.call) as outcome:
            answer = await self._send(operator, call)
            outcome(answer.status)
        return answer

    async def _send(self, operator: Operator, call: Call) -> Answer:
        contract = call.contract
        body = contract.encode(call.body)
        target = self._target(contract.url(operator.wallet_url, call.call))
        signed = contract.headers(operator.id, operator.secret, body)
        head = "".join(f"{name}: {value}\r\n" for name, value in signed.items())
        request = (
            f"POST {target.path} HTTP/1.1\r\nHost: {target.host_header}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{head}\r\n"
        ).encode() + body
        async with self._slots:
            try:
                async with asyncio.timeout(operator.timeout_s):
                    return await self._call(operator, contract, target, request)
            except TimeoutError:
                return contract.no_answer("timeout")
            except _Closed as closed:
                return contract.no_answer(f"no answer: {closed}")
            except OSError as error:  # refused, unreachable, TLS
                return contract.no_answer(f"no answer: {type(error).__name__}")
            except Exception as error:  # a failure is an answer, whatever it is
                log.exception("a call to operator %s failed", operator.id)
                return contract.no_answer(f"no answer: {type(error).__name__}")

    async def _call(self, operator: Operator, contract: WalletProtocol, target: _Target,
                    request: bytes) -> Answer:  # fmt: skip
        header = contract.signature_header.lower().encode()
        for last in (False, True):
            connection = await self._connection(target)
            try:
                status, signature, content = await connection.exchange(request, header)
            except _Closed:
                if last:
                    raise
                continue  # closed before its answer: once more, on a fresh connection
            finally:
                if connection.answered:
                    connection.idle_since = time.monotonic()
                    self._idle.setdefault(target.key, []).append(connection)
                else:
                    connection.close()  # a timeout mid-call: its answer would come late
            if content is None:
                return contract.no_answer("the answer is too long", status)
            signed = None if signature is None else signature.decode("latin-1")
            return read_answer(operator, contract, status, content, signed)
        raise AssertionError("unreachable")

    async def _connection(self, target: _Target) -> _Connection:
        idle = self._idle.get(target.key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            if connection.open and now - connection.idle_since < KEEPALIVE_S:
                return connection
            connection.close()
        host, port, tls = target.key
        _, connection = await asyncio.get_running_loop().create_connection(
            _Connection, host, port, ssl=self._context() if tls else None
        )
        return connection

    def _target(self, url: str) -> _Target:
        target = self._targets.get(url)
        if target is None:
            parts = urlsplit(url)
            tls = parts.scheme == "https"
            host = parts.hostname or ""
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            target = self._targets[url] = _Target(
                (host, parts.port or (443 if tls else 80), tls), path or "/", parts.netloc
            )
        return target

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls


def read_answer(operator: Operator, contract: WalletProtocol, http_status: int, content: bytes,
                signature: str | None) -> Answer:  # fmt: skip
    """An answer as the call's contract has it, or its "no answer" saying what was wrong (a
    bad signature among it); with its body as received (kept with the call)."""
    signed = contract.signs(operator.secret, content, signature)
    answer = contract.read_answer(http_status, content, signed)
    return replace(answer, body=content.decode("utf-8", "replace"))
