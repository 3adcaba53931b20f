"""Jurisdiction profiles (docs/jurisdictions.md): the profiles the server knows, and the
player features that depend on them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from baccarat.server.api.deps import CasinoDep, RequestContext, RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import Mode
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.profiles import position
from baccarat.server.profiles.rules import admit_autoplay, session_profile

router = APIRouter(prefix="/api", tags=["profiles"])


@router.get(
    "/profiles",
    responses=documented(),
    summary="The jurisdiction profiles this server knows, and the one its deployment plays "
    "(an operator's launch names another with `market`)",
)
async def list_profiles(casino: CasinoDep) -> Response:
    profiles = casino.profiles
    return json_response({
        "deployment": profiles.deployment.name,
        "profiles": [profile.to_json() for profile in profiles.values()],
    })  # fmt: skip


@router.get(
    "/session/position",
    responses=documented("not_authenticated", "invalid_mode"),
    summary="Your net position and the time spent in this session, in a mode (what the felt "
    "shows where the profile says so): rounds, wagered, net (won minus lost) in the "
    "session's currency",
)
async def session_position(ctx: RequestDep, mode: Annotated[Mode, Query()] = "fun") -> Response:
    def read(uow: UnitOfWork) -> dict[str, Any] | None:
        return position.peek(uow, ctx.caller.player_id(uow), mode)

    def write(uow: UnitOfWork) -> dict[str, Any]:
        return position.position(uow, ctx.caller.player_id(uow), mode)

    found = await ctx.casino.db.read(read)
    if found is None:  # a new session begins: written first, as GET /api/responsible does
        found = await ctx.casino.db.write(write)
    return json_response(found)


async def check_autoplay(ctx: RequestContext, number: int | None) -> None:
    """A round or a coup's bets sent by an autoplay (their ``autoplay`` number): refused
    before anything else where the session's profile does not allow it."""
    if number is None:
        return
    caller, profiles = ctx.caller, ctx.casino.profiles
    profile = await ctx.casino.db.read(
        lambda uow: session_profile(uow, profiles, caller.token_hash, bool(caller.operator))
    )
    admit_autoplay(profile, number)
