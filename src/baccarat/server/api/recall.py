"""Game recall (docs/jurisdictions.md): the player's last rounds step by step."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from baccarat.server import ledger, recall
from baccarat.server.api import pacing
from baccarat.server.api.deps import RequestDep, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import Mode
from baccarat.server.db.uow import UnitOfWork

router = APIRouter(prefix="/api", tags=["history"])


@router.get(
    "/history/recall",
    responses=documented("not_authenticated", "invalid_mode", "rate_limited"),
    summary="Your last rounds (the last and the nine before it), newest first, step by step: "
    "the bets and the balance before, each card as dealt with its hand's score, the result "
    "and the balance after (as in the export)",
)
async def get_recall(
    ctx: RequestDep,
    last: Annotated[int, Query(ge=1, le=recall.LAST)] = recall.LAST,
    mode: Annotated[Mode | None, Query()] = None,
) -> Response:
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def read(uow: UnitOfWork) -> dict[str, Any]:
        player = ctx.caller.player_id(uow)
        rate.take(player)
        return {"rounds": recall.recall(uow, player, mode, last),
                "currency": ledger.currency_of(uow, player)}  # fmt: skip

    return json_response(await ctx.casino.db.read(read))
