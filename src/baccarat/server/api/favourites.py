"""Favourite bets (docs/jurisdictions.md): the player's named bet layouts per table kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Path, Response
from pydantic import Field

from baccarat.server.api.deps import RequestContext, RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import BetsIn, Body
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.kinds import KINDS
from baccarat.server.profiles import favourites
from baccarat.server.profiles.rules import session_profile

router = APIRouter(prefix="/api/favourites", tags=["favourites"])

Kind = Annotated[str, Path(pattern=f"^({'|'.join(KINDS)})$", description="a table kind")]
Name = Annotated[str, Path(min_length=1, max_length=favourites.NAME_MOST)]
READ = ("not_authenticated", "favourites_not_allowed", "not_found")
WRITE = (*READ, "csrf_failed", "invalid_body", "invalid_favourite", "bet_not_offered")


class FavouriteIn(Body):
    bets: BetsIn = Field(description="stakes by bet name, as a round's")


async def _answer(
    ctx: RequestContext, kind: str, work: Callable[[UnitOfWork, int], list[dict[str, Any]]],
    *, write: bool = False,
) -> Response:  # fmt: skip
    profiles, caller = ctx.casino.profiles, ctx.caller

    def run(uow: UnitOfWork) -> dict[str, Any]:
        player = caller.player_id(uow)
        favourites.require(session_profile(uow, profiles, caller.token_hash, bool(caller.operator)))
        return {"kind": kind, "most": favourites.MOST, "favourites": work(uow, player)}

    db = ctx.casino.db
    return json_response(await (db.write(run) if write else db.read(run)))


@router.get(
    "/{kind}", responses=documented(*READ), summary="Your favourite bets at a kind of table"
)
async def list_favourites(kind: Kind, ctx: RequestDep) -> Response:
    return await _answer(ctx, kind, lambda uow, player: favourites.listed(uow, player, kind))


@router.put(
    "/{kind}/{name}",
    responses=documented(*WRITE, "favourites_full"),
    summary="Save a bet layout under a name (five at most per kind of table; the same name "
    "replaces it)",
)
async def save_favourite(kind: Kind, name: Name, body: FavouriteIn, ctx: RequestDep) -> Response:
    stakes = dict(body.bets.root)

    def save(uow: UnitOfWork, player: int) -> list[dict[str, Any]]:
        return favourites.save(uow, player, kind, name, stakes)

    return await _answer(ctx, kind, save, write=True)


@router.delete(
    "/{kind}/{name}",
    responses=documented(*READ, "csrf_failed"),
    summary="Delete one of your favourite bets",
)
async def delete_favourite(kind: Kind, name: Name, ctx: RequestDep) -> Response:
    def delete(uow: UnitOfWork, player: int) -> list[dict[str, Any]]:
        return favourites.delete(uow, player, kind, name)

    return await _answer(ctx, kind, delete, write=True)
