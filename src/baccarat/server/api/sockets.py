"""WebSockets: who may open one, how many, what a message may be, and when one is closed.

* A socket authenticates with an ``Authorization: Bearer`` header (API clients) or the
  session cookie (the browser; same origin only); without a live session it is closed with
  4401. A token is never taken from the URL (``?token=`` is refused, 4400 ``token_in_url``):
  URLs end up in access logs, the proxy's and the server's.
* One account holds at most ``Limits.ws_per_account`` sockets per worker (4429 past it).
* A message is text of at most ``Limits.ws_max_message`` bytes (1009 past it; uvicorn also
  refuses frames past it) and JSON nested at most ``Limits.ws_max_depth`` deep (an
  ``invalid_body`` reply); a binary frame is an ``invalid_body`` reply. A socket sends at
  most ``Limits.ws_messages_per_s`` messages a second, in bursts of
  ``Limits.ws_messages_burst`` (1008 past them). A socket that has nothing to receive (the
  table's, the lobby's) takes pings only, of at most ``PING_MAX`` bytes (``answer_pings``):
  anything else closes it (1008, or 1009 for a larger message).
* When a session ends (log out, log out everywhere, a password change) its sockets in this
  worker are closed at once (4401); a sweep every ``SWEEP_S`` seconds closes those whose
  session expired or was ended by another worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect

from baccarat.server import auth
from baccarat.server.api.deps import SESSION_COOKIE
from baccarat.server.api.pacing import Allowance
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.play.events import QUEUE_LIMIT
from baccarat.server.settings import Limits

if TYPE_CHECKING:
    from baccarat.server.db.database import Database

log = logging.getLogger("baccarat.server.sockets")

_CLOSE = object()
SESSION_ENDED = 4401
TOO_MANY = 4429
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
INTERNAL_ERROR = 1011
# A ping (``{"action": "ping"}``, perhaps with an id) is far smaller.
PING_MAX = 128
SWEEP_S = 5.0


class SocketClient:
    """One WebSocket: a bounded queue of messages, written by one task in order."""

    def __init__(self, websocket: WebSocket, player_id: int, token_hash: str, seat_id: str | None):
        self.websocket = websocket
        self.account = player_id
        self.player_id: int | None = player_id  # (as the seat events' Client protocol has it)
        self.token_hash = token_hash
        self.seat_id = seat_id
        self.seat_version = -1  # the newest seat state this socket has sent (seat sockets)
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.closed = False

    def deliver(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.close_soon(1013, "too slow to read the seat's events")
            return
        self.queue.put_nowait(message)

    def close_soon(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait((_CLOSE, code, reason))

    async def write_forever(self, on_sent: Any = None) -> None:
        while True:
            message = await self.queue.get()
            if isinstance(message, tuple) and message and message[0] is _CLOSE:
                with contextlib.suppress(Exception):
                    await self.websocket.close(message[1], message[2])
                return
            try:
                # A message many sockets share may come encoded once (``str``).
                text = message if isinstance(message, str) else compact(message)
            except Exception:
                # A program error, not the client's: said, and the socket closed as a server
                # error (the page connects again and reads the state), not left silent.
                log.exception("a socket's message could not be encoded: the socket is closed")
                self.closed = True
                with contextlib.suppress(Exception):
                    await self.websocket.close(INTERNAL_ERROR, "internal error")
                return
            try:
                await self.websocket.send_text(text)
            except Exception as error:
                self.closed = True  # the socket is gone; its reader sees the disconnect
                log.info("a socket's send failed, the socket is closed: %r", error)
                return
            if on_sent is not None:
                on_sent(self, message)


class Sockets:
    """This worker's open sockets by account: the per-account cap and closing by session."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.by_player: dict[int, set[SocketClient]] = {}
        self._sweeper: asyncio.Task[None] | None = None

    def admit(self, client: SocketClient) -> None:
        held = self.by_player.setdefault(client.account, set())
        if len(held) >= self.limits.ws_per_account:
            raise ServiceError(
                "too_many_sockets",
                f"an account may hold {self.limits.ws_per_account} sockets at once",
                limit=self.limits.ws_per_account,
            )
        held.add(client)

    def count(self) -> int:
        """The sockets open in this worker."""
        return sum(map(len, self.by_player.values()))

    def release(self, client: SocketClient) -> None:
        held = self.by_player.get(client.account)
        if held is not None:
            held.discard(client)
            if not held:
                del self.by_player[client.account]

    def end_sessions(self, player_id: int, keep: str | None = None) -> None:
        """Close the player's sockets except those of the session ``keep`` (a token hash)."""
        for client in list(self.by_player.get(player_id, ())):
            if client.token_hash != keep:
                client.close_soon(SESSION_ENDED, "the session ended")

    def end_session(self, token_hash: str) -> None:
        for held in list(self.by_player.values()):
            for client in list(held):
                if client.token_hash == token_hash:
                    client.close_soon(SESSION_ENDED, "the session ended")

    def start(self, db: Database) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(db))

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper

    async def _sweep_forever(self, db: Database) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            try:
                await self.sweep(db)
            except Exception:  # a database hiccup: try again at the next sweep
                log.exception("the socket session sweep failed")

    async def sweep(self, db: Database) -> None:
        """Close every socket whose session is no longer live."""
        hashes = sorted({c.token_hash for held in self.by_player.values() for c in held})
        if not hashes:
            return
        live = await db.read(lambda uow: auth.live_sessions(uow, hashes))
        for held in list(self.by_player.values()):
            for client in list(held):
                if client.token_hash not in live:
                    client.close_soon(SESSION_ENDED, "the session ended")


def socket_token_hash(websocket: WebSocket) -> str | None:
    if "token" in websocket.query_params:
        raise ServiceError(
            "token_in_url",
            "a session token is never sent in a URL (logs keep URLs): send it in an "
            "Authorization: Bearer header, or open the socket from this site's pages",
        )
    scheme, _, token = websocket.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return auth.token_hash(token.strip())
    cookie = websocket.cookies.get(SESSION_COOKIE)
    if cookie is None:
        return None
    origin = websocket.headers.get("origin")
    if origin is not None and not same_origin(origin, websocket.headers.get("host")):
        # A cookie comes with a cross-site socket too: only same-origin pages may use it.
        raise ServiceError("csrf_failed", "a socket opened with the session cookie must come "
                           "from this site's pages")  # fmt: skip
    return auth.token_hash(cookie)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def same_origin(origin: str, host: str | None) -> bool:
    """Whether a page of ``origin`` (the Origin header) is of the site that the ``Host``
    header names: the same host and port, a port left out being the default one of the
    origin's scheme (``https://casino.example`` is ``casino.example:443``: a proxy or client
    may add or leave out ``:443``). A proxy must pass the Host header as the browser sent it,
    port included (nginx: ``$http_host``, not ``$host``; docs/deploy.md)."""
    page, site = urlsplit(origin), urlsplit("//" + (host or ""))
    default = _DEFAULT_PORTS.get(page.scheme)
    if default is None or origin != f"{page.scheme}://{page.netloc}" or site.netloc != host:
        return False  # not an http(s) origin ("null", one with a path), or a bad Host
    if "@" in page.netloc or "@" in site.netloc or not page.hostname or not site.hostname:
        return False
    try:
        return page.hostname == site.hostname and (page.port or default) == (site.port or default)
    except ValueError:  # a port out of range or not a number
        return False


async def refuse(websocket: WebSocket, error: ServiceError) -> None:
    code = {401: SESSION_ENDED, 429: TOO_MANY}.get(error.status, 4000 + error.status)
    with contextlib.suppress(Exception):
        await websocket.send_text(compact({"type": "error", **error.to_json()}))
        await websocket.close(code, error.code)


class MessageTooBig(Exception):
    pass


async def receive_text(websocket: WebSocket, largest: int) -> str:
    """The next text message; ``MessageTooBig`` past ``largest``; binary is ``invalid_body``."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    if text is None:
        raise ServiceError("invalid_body", "a message is JSON text, not binary")
    if len(text) > largest:
        raise MessageTooBig()
    return str(text)


async def messages(
    client: SocketClient,
    limits: Limits,
    refused: Callable[[ServiceError], None],
    largest: int | None = None,
) -> AsyncIterator[str]:
    """The client's text messages until it is closed; a message too big (past ``largest``,
    by default ``Limits.ws_max_message``) closes it (1009), and so do messages past the
    socket's rate (1008); a binary frame goes to ``refused``; a disconnect raises
    ``WebSocketDisconnect``."""
    allowance = Allowance(limits.ws_messages_per_s, limits.ws_messages_burst)
    largest = limits.ws_max_message if largest is None else largest
    while not client.closed:
        refusal = None
        try:
            text = await receive_text(client.websocket, largest)
        except MessageTooBig:
            client.close_soon(MESSAGE_TOO_BIG, "message too big")
            return
        except ServiceError as error:
            text, refusal = "", error
        if not allowance.take():
            client.close_soon(
                POLICY_VIOLATION, f"more than {limits.ws_messages_per_s:g} messages a second"
            )
            return
        if refusal is not None:
            refused(refusal)
            continue
        yield text


async def answer_pings(client: SocketClient, limits: Limits) -> None:
    """A socket that has nothing to receive: each ping is answered ``{"type": "pong"}``;
    anything else (another message, a binary frame) closes it (1008)."""

    def refused(error: ServiceError) -> None:
        client.close_soon(POLICY_VIOLATION, "this socket takes pings only")

    async for text in messages(client, limits, refused, PING_MAX):
        if _is_ping(text):
            client.deliver({"type": "pong"})
        else:
            refused(ServiceError("invalid_body", "a ping"))
            return


def _is_ping(text: str) -> bool:
    if text.strip() == "ping":
        return True
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("action") == "ping"


def parse(text: str, limits: Limits) -> dict[str, Any]:
    """A message as a JSON object, refused (never raising otherwise) if too deeply nested."""
    if too_deep(text, limits.ws_max_depth):
        raise ServiceError(
            "invalid_body", f"a message is nested at most {limits.ws_max_depth} deep"
        )
    try:
        message = json.loads(text)
    except ValueError:
        raise ServiceError("invalid_body", "a message is a JSON object") from None
    if not isinstance(message, dict):
        raise ServiceError("invalid_body", "a message is a JSON object")
    return message


def too_deep(text: str, limit: int) -> bool:
    """Whether JSON text opens more than ``limit`` arrays or objects inside each other."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False
