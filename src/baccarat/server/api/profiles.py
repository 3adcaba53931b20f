"""Jurisdiction profiles (docs/jurisdictions.md): the profiles the server knows, and the
player features that depend on them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from pydantic import Field

from baccarat.server.api.deps import CasinoDep, RequestContext, RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import Body, ModeQuery
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds import find_kind
from baccarat.server.profiles import position
from baccarat.server.profiles.rules import (
    admit_autoplay,
    admit_tables_at_once,
    session_profile,
)

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
async def session_position(ctx: RequestDep, mode: ModeQuery = "fun") -> Response:
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


class TablesAtOnceIn(Body):
    tables: list[str] = Field(min_length=1, max_length=16, description="the tables' ids")


@router.post(
    "/tables-at-once",
    responses=documented("not_authenticated", "csrf_failed", "invalid_body", "unknown_table",
                         "player_banked_table", "multi_table_not_allowed"),
    summary="Ask to play several tables on one screen: allowed up to the profile's "
    "`tables_at_once` (none of them player-banked), else `multi_table_not_allowed`",
)  # fmt: skip
async def tables_at_once(body: TablesAtOnceIn, ctx: RequestDep) -> Response:
    casino, caller = ctx.casino, ctx.caller
    tables = [casino.tables.require(table_id) for table_id in dict.fromkeys(body.tables)]
    for table in tables:
        kind = find_kind(table.kind)
        if not kind.several_at_once:
            kind.refuse_house_round(table)  # a player-banked table: take a seat there

    def read(uow: UnitOfWork) -> Any:
        caller.player_id(uow, writes=False)  # asks, changes nothing: not an action
        return session_profile(uow, casino.profiles, caller.token_hash, bool(caller.operator))

    profile = await casino.db.read(read)
    admit_tables_at_once(profile, len(tables))
    return json_response({"tables": [t.id for t in tables], "most": profile.tables_at_once})
