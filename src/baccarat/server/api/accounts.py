"""Accounts and sessions: register, log in (token and browser cookie), log out, who am I."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from .. import accounts, auth
from ..db.uow import UnitOfWork
from ..errors import ServiceError
from ..history import iso_time
from .deps import CSRF_COOKIE, SESSION_COOKIE, CasinoDep, ContextDep, json_response
from .errors import documented
from .models import Credentials, PlayerOut, SessionOut, SessionStateOut

router = APIRouter(prefix="/api", tags=["accounts"])


@router.post(
    "/accounts",
    status_code=201,
    response_model=PlayerOut,
    responses=documented("invalid_body", "invalid_nickname", "invalid_password", "nickname_taken"),
    summary="Register a player (fun balance 1,000.00, real balance 0)",
)
async def register(body: Credentials, casino: CasinoDep) -> Response:
    accounts.check_nickname(body.nickname)
    accounts.check_password(body.password)
    # Argon2 is slow on purpose: hash on a worker thread, outside any transaction.
    hashed = await run_in_threadpool(casino.passwords.hash, body.password)
    player = await casino.db.write(
        lambda uow: accounts.register(uow, body.nickname, hashed, casino.system)
    )
    return json_response(player.to_json(), 201)


@router.post(
    "/sessions",
    status_code=201,
    response_model=SessionOut,
    responses=documented("invalid_body", "invalid_credentials", "rate_limited"),
    summary="Log in: a bearer token, and the browser's session and CSRF cookies",
)
async def login(body: Credentials, request: Request, casino: CasinoDep) -> Response:
    client = request.client.host if request.client else None
    keys = auth.throttle_keys(body.nickname, client)
    policy = casino.settings.login_throttle

    def admit(uow: UnitOfWork) -> tuple[accounts.Player, str] | None:
        auth.admit_attempt(uow, keys, policy)
        return accounts.find(uow, body.nickname)

    found = await casino.db.write(admit)
    valid = await run_in_threadpool(
        casino.passwords.verify, found[1] if found else None, body.password
    )
    if found is None or not valid:
        raise ServiceError("invalid_credentials", "wrong nickname or password")
    player = found[0]

    def open_session(uow: UnitOfWork) -> auth.Session:
        auth.forgive(uow, keys)
        return auth.create_session(uow, player.id, casino.settings.session_ttl_s)

    session = await casino.db.write(open_session)
    response = json_response(
        {
            "token": session.token,
            "csrf_token": session.csrf,
            "expires": iso_time(session.expires_us),
            "player": player.to_json(),
        },
        201,
    )
    secure = casino.settings.cookie_secure
    max_age = casino.settings.session_ttl_s
    response.set_cookie(SESSION_COOKIE, session.token, max_age=max_age, httponly=True,
                        samesite="strict", secure=secure, path="/")  # fmt: skip
    response.set_cookie(CSRF_COOKIE, session.csrf, max_age=max_age, httponly=False,
                        samesite="strict", secure=secure, path="/")  # fmt: skip
    return response


@router.delete(
    "/sessions",
    status_code=204,
    responses=documented("not_authenticated", "csrf_failed"),
    summary="Log out: the session ends and the cookies are cleared",
)
async def logout(ctx: ContextDep) -> Response:
    def end(uow: UnitOfWork) -> None:
        ctx.caller.player_id(uow)
        assert ctx.caller.token_hash is not None
        auth.end_session(uow, ctx.caller.token_hash)

    await ctx.casino.db.write(end)
    assert ctx.caller.token_hash is not None
    ctx.request.app.state.sockets.end_session(ctx.caller.token_hash)
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/", samesite="strict")
    response.delete_cookie(CSRF_COOKIE, path="/", samesite="strict")
    return response


@router.get(
    "/me",
    response_model=PlayerOut,
    responses=documented("not_authenticated"),
    summary="The logged-in player",
)
async def me(ctx: ContextDep) -> Response:
    player = await ctx.casino.db.read(lambda uow: accounts.get(uow, ctx.caller.player_id(uow)))
    return json_response(player.to_json())


@router.get(
    "/session",
    response_model=SessionStateOut,
    responses=documented(),
    summary="Is this caller logged in? Always 200: `logged_in` says (the page asks on load)",
)
async def session_state(ctx: ContextDep) -> Response:
    def read(uow: UnitOfWork) -> dict[str, object]:
        try:
            player = accounts.get(uow, ctx.caller.player_id(uow))
        except ServiceError as error:
            if error.code != "not_authenticated":
                raise
            return {"logged_in": False}
        return {"logged_in": True, "player": player.to_json()}

    if ctx.caller.token_hash is None:
        return json_response({"logged_in": False})
    return json_response(await ctx.casino.db.read(read))
