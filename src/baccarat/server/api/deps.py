"""What every handler needs: the casino, the caller's credentials, idempotent writes."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from baccarat.server import auth
from baccarat.server.casino import Casino
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.kinds.banked.runtime import BankedDesk
from baccarat.server.observe import logs
from baccarat.server.play import idempotency
from baccarat.server.wallets.operator.launch import session_kind

SESSION_COOKIE = "baccarat_session"
CSRF_COOKIE = "baccarat_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

IDEMPOTENCY_HEADER = "Idempotency-Key"
# The Idempotency-Key header in the OpenAPI schema of the routes that move money (it is read
# by ``idempotent_write`` itself, which keeps FastAPI's per-request parameter work small).
IDEMPOTENT: dict[str, Any] = {
    "parameters": [
        {
            "name": IDEMPOTENCY_HEADER,
            "in": "header",
            "required": False,
            "description": "required: a retry with the same key gets the first answer and "
            "moves no money; the same key with another body is refused",
            "schema": {"type": "string", "minLength": 1, "maxLength": 200},
        }
    ]
}


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling: the hash of their session token (checked inside the unit of work)."""

    token_hash: str | None
    # A session an operator launched: "real" (on its wallet) or "demo"; "" for ours.
    operator: str = ""
    # The request's access-log notes (``observe.logs``): the player once authenticated.
    noted: object = None
    # A request that changes something (not GET): its player's action (``auth``'s idle time).
    acts: bool = False

    def player_id(self, uow: UnitOfWork, *, writes: bool = True) -> int:
        """The session's player (401 if none). An action's unit of work starts the
        session's idle time again; a read before it says ``writes=False``."""
        player = auth.authenticate(uow, self.token_hash, acts=self.acts and writes)
        logs.note_player(self.noted, player)
        return player


def session_token(
    connection: HTTPConnection, cookie_name: str = SESSION_COOKIE
) -> tuple[str | None, bool]:
    """The session token a request or socket carries, and whether it came in the cookie:
    the bearer token (an Authorization header of another scheme carries none), else the
    session cookie ``cookie_name``."""
    header = connection.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        token = token.strip()
        return (token if scheme.lower() == "bearer" and token else None), False
    cookie = connection.cookies.get(cookie_name)
    return cookie, cookie is not None


def caller_of(request: Request, cookie_name: str = SESSION_COOKIE) -> Caller:
    """Bearer token, or the session cookie plus the CSRF header on state-changing requests
    (the back office's staff have a cookie of their own)."""
    token, cookie = session_token(request, cookie_name)
    if token is None:
        return Caller(None)
    if (
        cookie
        and request.method not in SAFE_METHODS
        and not auth.csrf_matches(token, request.headers.get(CSRF_HEADER))
    ):
        raise ServiceError(
            "csrf_failed",
            f"a request made with the session cookie needs the {CSRF_HEADER} header",
        )
    noted, acts = request.scope.get(logs.SCOPE_KEY), request.method not in SAFE_METHODS
    return Caller(auth.token_hash(token), session_kind(token), noted, acts)


@dataclass(frozen=True, slots=True)
class RequestContext:
    """What a handler of an authenticated route gets: the request, the casino, the caller."""

    request: Request
    casino: Casino
    caller: Caller


def banked_desk(app: Any) -> BankedDesk:
    """The player-banked tables' service of this app (``create_app`` sets it up)."""
    desk: BankedDesk = app.state.banked
    return desk


async def get_casino(request: Request) -> Casino:
    casino: Casino = request.app.state.casino
    return casino


async def get_request_context(request: Request) -> RequestContext:
    return RequestContext(request, request.app.state.casino, caller_of(request))


CasinoDep = Annotated[Casino, Depends(get_casino)]
RequestDep = Annotated[RequestContext, Depends(get_request_context)]


def json_response(data: Any, status: int = 200) -> Response:
    return Response(compact(data), status_code=status, media_type="application/json")


# The ``responses=`` of a route answered by ``revalidated_json_response``, beside its errors.
NOT_MODIFIED: dict[int | str, dict[str, Any]] = {
    304: {"description": "Not Modified: the If-None-Match header named the answer's ETag"}
}

# The entity tags of an If-None-Match header, weak (W/) or not (RFC 9110, 8.8.3).
_ENTITY_TAG = re.compile(r'\s*(?:W/)?("[^"]*")\s*(?:,|$)')


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (``*``, or one of its tags by the weak
    comparison: ``W/"x"`` matches ``"x"``). A header that is not a list of tags names none."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    return any(tag == etag for tag in _ENTITY_TAG.findall(if_none_match))


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an Accept-Encoding header takes gzip: named (or ``x-gzip``, else ``*``) with
    a weight above 0 (RFC 9110, 12.5.3). A weight that is no number refuses it."""
    weights: dict[str, float] = {}
    for item in (accept_encoding or "").split(","):
        coding, *params = item.split(";")
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[coding.strip().lower()] = weight
    return weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0))) > 0


# Answers from this size are sent gzipped to a client that takes it; smaller ones are not
# worth it. (Only these answers: a middleware compressing every answer, the rounds' too,
# would cost every request on the hot path.)
GZIP_MIN = 1024
# zlib's fast levels (1-3) take about half the time of its default 6: the tables' 31.6 KB
# are 2.8 KB at 3 (2.3 KB at 6), in 0.1-0.2 ms on the machine measured.
GZIP_LEVEL = 3


def revalidated_json_response(request: Request, data: Any, vary: tuple[str, ...] = ()) -> Response:
    """``data`` as JSON that the client keeps and asks again with If-None-Match: a strong
    ETag of the body's bytes, ``Cache-Control: no-cache`` (always revalidated), and 304 with
    no body while the answer is the same; gzipped from ``GZIP_MIN`` bytes if the client takes
    it (another representation: its ETag is the same hash with ``-gzip``, which is all a
    304 needs, without compressing). ``vary``: the request headers the answer depends on."""
    body = compact(data).encode()
    etag = hashlib.blake2b(body, digest_size=16).hexdigest()
    gzipped = len(body) >= GZIP_MIN and accepts_gzip(request.headers.get("accept-encoding"))
    etag = f'"{etag}-gzip"' if gzipped else f'"{etag}"'
    headers = {
        "ETag": etag,
        "Cache-Control": "no-cache",
        "Vary": ", ".join((*vary, "Accept-Encoding")),
    }
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    if gzipped:
        body = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="application/json", headers=headers)


async def idempotent_write(
    ctx: RequestContext, body: Any, status: int, work: Callable[[UnitOfWork, int], Any]
) -> Response:
    """Run ``work(uow, player_id)`` once per Idempotency-Key; replays get the stored answer."""
    request, caller = ctx.request, ctx.caller
    key = idempotency.check_key(request.headers.get(IDEMPOTENCY_HEADER))
    hashed = idempotency.request_hash(request.method, request.url.path, body)

    def noted(uow: UnitOfWork, player_id: int) -> Any:
        logs.note_player(caller.noted, player_id)
        return work(uow, player_id)

    answer, replayed = await idempotency.written_once(
        ctx.casino.db, caller.token_hash, key, hashed, status, noted
    )
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(
        answer.body, status_code=answer.status, media_type="application/json", headers=headers
    )
