"""Accounts and sessions: register, log in (token and browser cookie), log out (here or
everywhere), the session list, password change, who am I. Argon2 runs through the casino's
hash gate (a few at once, on worker threads)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from baccarat.server import accounts, auth, significant
from baccarat.server.api.deps import CasinoDep, RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.login import PLAYER_COOKIES, client_address, logout_route
from baccarat.server.api.models import (
    Credentials,
    PasswordChangeIn,
    PlayerOut,
    Registration,
    SessionOut,
    SessionsOut,
    SessionStateOut,
)
from baccarat.server.casino import Casino
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.profiles.rules import session_profile
from baccarat.server.wallets.operator import launch

router = APIRouter(prefix="/api", tags=["accounts"])


@router.post(
    "/accounts",
    status_code=201,
    response_model=PlayerOut,
    responses=documented(
        "invalid_body",
        "invalid_nickname",
        "invalid_password",
        "nickname_taken",
        "rate_limited",
        "unsupported_currency",
    ),
    summary="Register a player (fun balance 1,000.00, real balance 0)",
)
async def register(body: Registration, request: Request, casino: CasinoDep) -> Response:
    accounts.check_nickname(body.nickname)
    accounts.check_password(body.password, body.nickname)
    accounts.check_currency(body.currency, casino.system)
    client = client_address(request)
    await casino.db.write(
        lambda uow: auth.admit_registration(uow, client, casino.settings.login_throttle)
    )
    # Argon2 is slow on purpose: hash on a worker thread, outside any transaction.
    hashed = await casino.hashing.run(casino.passwords.hash, body.password)
    player = await casino.db.write(
        lambda uow: accounts.register(uow, body.nickname, hashed, casino.system, body.currency)
    )
    return json_response(player.to_json(), 201)


@router.post(
    "/sessions",
    status_code=201,
    response_model=SessionOut,
    responses=documented("invalid_body", "invalid_credentials", "rate_limited", "login_throttled"),
    summary="Log in: a bearer token, and the browser's session and CSRF cookies",
)
async def login(body: Credentials, request: Request, casino: CasinoDep) -> Response:
    keys = auth.throttle_keys(body.nickname, client_address(request))
    policy = casino.settings.login_throttle

    def admit(uow: UnitOfWork) -> tuple[accounts.Player, str] | None:
        auth.admit_attempt(uow, keys, policy)
        return accounts.find(uow, body.nickname)

    found = await casino.db.write(admit)
    valid = await casino.hashing.run(
        casino.passwords.verify, found[1] if found else None, body.password
    )
    if found is None or not valid:
        client = client_address(request)
        await casino.db.write(lambda uow: significant.record(
            uow, "login_failed", f"client:{client or 'unknown'}", f"nickname:{body.nickname}"
        ))  # fmt: skip
        raise ServiceError("invalid_credentials", "wrong nickname or password")
    player = found[0]

    def open_session(uow: UnitOfWork) -> auth.Session:
        auth.forgive(uow, keys)
        idle_s = casino.profiles.deployment.inactivity_timeout_s  # (ours play under it)
        return auth.create_session(uow, player.id, casino.settings.session_ttl_s, idle_s=idle_s)

    session = await casino.db.write(open_session)
    return _logged_in(casino, session, player)


def _logged_in(casino: Casino, session: auth.Session, player: accounts.Player) -> Response:
    settings = casino.settings
    return PLAYER_COOKIES.logged_in(
        session.token, session.csrf, session.expires_us, player.to_json(),
        max_age=settings.session_ttl_s, secure=settings.cookie_secure,
    )  # fmt: skip


def session_cookies(response: Response, casino: Casino, token: str, csrf: str) -> Response:
    """The browser's session: the token's HttpOnly cookie and the readable CSRF cookie."""
    settings = casino.settings
    return PLAYER_COOKIES.set(
        response, token, csrf, max_age=settings.session_ttl_s, secure=settings.cookie_secure
    )


@logout_route(router, "/sessions", "Log out: the session ends and the cookies are cleared")
async def logout(ctx: RequestDep) -> Response:
    def end(uow: UnitOfWork) -> None:
        try:
            ctx.caller.player_id(uow)
        except ServiceError as error:
            if error.code != "session_inactive":  # ended by its time-out: its cookies go too
                raise
        assert ctx.caller.token_hash is not None
        auth.end_session(uow, ctx.caller.token_hash)

    await ctx.casino.db.write(end)
    assert ctx.caller.token_hash is not None
    ctx.request.app.state.sockets.end_session(ctx.caller.token_hash)
    return PLAYER_COOKIES.cleared()


@router.get(
    "/sessions",
    response_model=SessionsOut,
    responses=documented("not_authenticated"),
    summary="Your live sessions (newest first, at most 100), the current one marked",
)
async def sessions(ctx: RequestDep) -> Response:
    def read(uow: UnitOfWork) -> list[auth.SessionInfo]:
        return auth.list_sessions(uow, ctx.caller.player_id(uow), ctx.caller.token_hash)

    listed = await ctx.casino.db.read(read)
    return json_response(
        {
            "sessions": [
                {"id": s.id, "created": iso_time(s.created_us), "expires": iso_time(s.expires_us),
                 "current": s.current}
                for s in listed
            ]
        }
    )  # fmt: skip


@logout_route(
    router,
    "/sessions/all",
    "Log out everywhere: every session of yours ends (this one too), their sockets close",
)
async def logout_everywhere(ctx: RequestDep) -> Response:
    def end(uow: UnitOfWork) -> int:
        player_id = ctx.caller.player_id(uow)
        auth.end_other_sessions(uow, player_id, keep=None)
        return player_id

    player_id = await ctx.casino.db.write(end)
    ctx.request.app.state.sockets.end_sessions(player_id)
    return PLAYER_COOKIES.cleared()


SessionId = Annotated[str, Path(min_length=12, max_length=12, pattern="^[0-9a-f]{12}$")]


@router.delete(
    "/sessions/{session_id}",
    status_code=204,
    responses=documented("not_authenticated", "csrf_failed", "not_found"),
    summary="End one of your sessions (by the id of the session list)",
)
async def end_one(session_id: SessionId, ctx: RequestDep) -> Response:
    def end(uow: UnitOfWork) -> str:
        return auth.end_session_by_id(uow, ctx.caller.player_id(uow), session_id)

    hashed = await ctx.casino.db.write(end)
    ctx.request.app.state.sockets.end_session(hashed)
    return Response(status_code=204)


@router.put(
    "/password",
    status_code=204,
    responses=documented(
        "not_authenticated", "csrf_failed", "invalid_body", "invalid_password",
        "invalid_credentials", "rate_limited",
    ),
    summary="Change your password: the other sessions end (this one stays)",
)  # fmt: skip
async def change_password(body: PasswordChangeIn, ctx: RequestDep) -> Response:
    casino = ctx.casino

    def current(uow: UnitOfWork) -> tuple[accounts.Player, str]:
        player = accounts.get(uow, ctx.caller.player_id(uow, writes=False))
        found = accounts.find(uow, player.nickname)
        if found is None or found[0].id != player.id:
            # An operator's player has no password of ours (api.access refuses its session
            # here first): a refusal, never an error of the program.
            raise ServiceError("invalid_credentials", "this account has no password to change")
        return found

    player, stored = await casino.db.read(current)
    accounts.check_password(body.new, player.nickname)
    if not await casino.hashing.run(casino.passwords.verify, stored, body.current):
        raise ServiceError("invalid_credentials", "the current password is wrong")
    hashed = await casino.hashing.run(casino.passwords.hash, body.new)

    def change(uow: UnitOfWork) -> None:
        if ctx.caller.player_id(uow) != player.id:
            raise ServiceError("not_authenticated", "log in first: no valid session token")
        accounts.set_password(uow, player.id, hashed)
        auth.end_other_sessions(uow, player.id, keep=ctx.caller.token_hash)

    await casino.db.write(change)
    ctx.request.app.state.sockets.end_sessions(player.id, keep=ctx.caller.token_hash)
    return Response(status_code=204)


@router.get(
    "/me",
    response_model=PlayerOut,
    responses=documented("not_authenticated"),
    summary="The logged-in player",
)
async def me(ctx: RequestDep) -> Response:
    player = await ctx.casino.db.read(lambda uow: accounts.get(uow, ctx.caller.player_id(uow)))
    return json_response(player.to_json())


@router.get(
    "/session",
    response_model=SessionStateOut,
    responses=documented("session_inactive"),
    summary="Is this caller logged in? `logged_in` says (the page asks on load); `profile`: "
    "the jurisdiction profile the session plays under (docs/jurisdictions.md). 401 "
    "`session_inactive` alone: the profile's inactivity time-out ended the session (an "
    "operator's: its `lobby_url` in the details)",
)
async def session_state(ctx: RequestDep) -> Response:
    profiles = ctx.casino.profiles
    visitor = {"logged_in": False, "profile": profiles.deployment.to_json()}

    def read(uow: UnitOfWork) -> dict[str, object]:
        try:
            player = accounts.get(uow, ctx.caller.player_id(uow))
        except ServiceError as error:
            if error.code == "session_inactive" and ctx.caller.operator:
                error.details["lobby_url"] = launch.lobby_of(uow, ctx.caller.token_hash)
            if error.code != "not_authenticated":
                raise
            return visitor
        answer: dict[str, object] = {"logged_in": True, "player": player.to_json()}
        if ctx.caller.operator:  # the page plays in the session's mode alone
            answer["operator"] = launch.page_session(launch.session_of(uow, ctx.caller.token_hash))
        profile = session_profile(uow, profiles, ctx.caller.token_hash, bool(ctx.caller.operator))
        return answer | {"profile": profile.to_json()}

    if ctx.caller.token_hash is None:
        return json_response(visitor)
    return json_response(await ctx.casino.db.read(read))
