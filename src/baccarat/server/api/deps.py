"""What every handler needs: the casino, the caller's credentials, idempotent writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .. import auth, idempotency
from ..casino import Casino
from ..db.uow import UnitOfWork
from ..errors import ServiceError

SESSION_COOKIE = "baccarat_session"
CSRF_COOKIE = "baccarat_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

bearer = HTTPBearer(auto_error=False, description="the token of POST /api/sessions")


def get_casino(request: Request) -> Casino:
    casino: Casino = request.app.state.casino
    return casino


CasinoDep = Annotated[Casino, Depends(get_casino)]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling: the hash of their session token (checked inside the unit of work)."""

    token_hash: str | None

    def player_id(self, uow: UnitOfWork) -> int:
        return auth.authenticate(uow, self.token_hash)


def get_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    """Bearer token, or the session cookie plus the CSRF header on state-changing requests."""
    if credentials is not None:
        return Caller(auth.token_hash(credentials.credentials))
    token = request.cookies.get(SESSION_COOKIE)
    if token is None:
        return Caller(None)
    if request.method not in SAFE_METHODS and not auth.csrf_matches(
        token, request.headers.get(CSRF_HEADER)
    ):
        raise ServiceError(
            "csrf_failed",
            f"a request made with the session cookie needs the {CSRF_HEADER} header",
        )
    return Caller(auth.token_hash(token))


CallerDep = Annotated[Caller, Depends(get_caller)]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=200,
        description="required: a retry with the same key gets the first answer",
    ),
]


def json_response(data: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(data, separators=(",", ":")), status_code=status, media_type="application/json"
    )


async def idempotent_write(
    request: Request,
    casino: Casino,
    caller: Caller,
    key: str | None,
    body: Any,
    status: int,
    work: Callable[[UnitOfWork, int], Any],
) -> Response:
    """Run ``work(uow, player_id)`` once per Idempotency-Key; replays get the stored answer."""
    key = idempotency.check_key(key)
    hashed = idempotency.request_hash(request.method, request.url.path, body)

    def job(uow: UnitOfWork) -> tuple[idempotency.StoredAnswer, bool]:
        player_id = caller.player_id(uow)
        stored = idempotency.recall(uow, player_id, key, hashed)
        if stored is not None:
            return stored, True
        text = json.dumps(work(uow, player_id), separators=(",", ":"))
        idempotency.remember(uow, player_id, key, hashed, status, text)
        return idempotency.StoredAnswer(status, text), False

    answer, replayed = await casino.db.write(job)
    headers = {"Idempotent-Replayed": "true"} if replayed else None
    return Response(
        answer.body, status_code=answer.status, media_type="application/json", headers=headers
    )
