"""A shared table over HTTP (SPEC §9): your bets on its coup, a coup, a finished shoe's
record and the table's log (``routes``), its socket (``socket``); and what it answers to the
table routes every kind's tables share (``api.tables``): its state and its roads, the
table's, the same for every caller (``table_state``, ``table_roads``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from baccarat.server import auth
from baccarat.server.api.deps import (
    IDEMPOTENT,
    RequestContext,
    RequestDep,
    idempotent_write,
    json_response,
)
from baccarat.server.api.errors import RESPONSIBLE_ERRORS, documented
from baccarat.server.api.ids import Id
from baccarat.server.api.models import RoundIn
from baccarat.server.api.operators import operator_coup_bets
from baccarat.server.api.profiles import check_autoplay
from baccarat.server.api.tables import TABLE_WRITE, currency_of
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.jsontext import compact
from baccarat.server.kinds.shared import bets as shared_bets
from baccarat.server.kinds.shared import tablelog, views
from baccarat.server.kinds.shared.api.models import SharedBetsOut, SharedCoupOut
from baccarat.server.kinds.shared.clock import require_shared
from baccarat.server.kinds.shared.runtime import SharedDesk
from baccarat.server.tables import Table, bets_from

router = APIRouter(prefix="/api", tags=["tables"])

# What a shared table's routes answer for a table that is none (``require_shared``).
SHARED_TABLE = ("unknown_table", "not_a_shared_table")


async def table_state(ctx: RequestContext, table: Table, mode: str) -> Response:
    """``GET /api/tables/{id}/state`` at a shared table: its phase, countdown, totals and
    shoe, the caller's bets added (no session needed); it keeps the table's clock going."""
    _desk(ctx).watch(table.id)
    found = await ctx.casino.db.read(
        lambda uow: views.state(uow, table, _maybe_player(ctx, uow), mode)
    )
    return json_response(found | {"currency": table.currency})  # one pot, in HOME


async def table_roads(ctx: RequestContext, table: Table, mode: str) -> Response:
    """``GET /api/tables/{id}/roads`` at a shared table: the table's roads, the same for every
    caller (bounded by a shoe's coups)."""
    return json_response(await ctx.casino.db.read(lambda uow: views.table_roads(uow, table, mode)))


BETTING_ERRORS = (
    *TABLE_WRITE, "not_a_shared_table", "unknown_coup", "betting_closed",
    "idempotency_key_required", "idempotency_conflict", "bet_not_offered",
    "bet_below_table_min", "bet_above_table_max",
    "tie_below_min", "tie_above_max", "not_a_chip_multiple", "not_a_fee_multiple",
    "insufficient_funds",
    "table_disabled", "unsupported_currency", "operator_refused", "operator_unavailable",
    "mode_not_in_session", "table_not_offered", "autoplay_not_allowed", *RESPONSIBLE_ERRORS,
)  # fmt: skip


@router.put(
    "/tables/{table_id}/coups/{coup}/bets",
    response_model=SharedBetsOut,
    responses=documented(*BETTING_ERRORS, "not_found"),
    openapi_extra=IDEMPOTENT,
    summary="Your bets on a shared table's coup, replacing yours (an empty map withdraws "
    "them): the stake is taken at once; refused once the window has closed",
)
async def put_coup_bets(table_id: str, coup: Id, body: RoundIn, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    bets = bets_from(body.bets.root)
    await check_autoplay(ctx, body.autoplay)
    dealer, mode, desk = ctx.casino.dealer, body.mode, _desk(ctx)
    if ctx.caller.operator:
        # On the operator's wallet (docs/operator-api.md, "Shared tables").
        payload = {"mode": mode, "bets": bets.to_json()}
        answer = await operator_coup_bets(ctx, table, coup, mode, bets, payload, desk.tell)
        if answer is not None:
            return answer

    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        table.for_currency(currency_of(ctx, uow, player_id))  # one pot: in HOME alone
        placed = shared_bets.place(uow, dealer, table, coup, player_id, mode, bets)
        desk.tell(uow, table.id)  # the totals changed: every worker's sockets hear of it
        return placed

    return await idempotent_write(ctx, {"mode": mode, "bets": bets.to_json()}, 200, work)


@router.get(
    "/tables/{table_id}/coups/{coup}",
    response_model=SharedCoupOut,
    responses=documented(*SHARED_TABLE, "unknown_coup", "not_found"),
    summary="A shared table's coup: its cards, winner and scores once dealt, and your bets "
    "on it with what they returned once settled",
)
async def get_coup(table_id: str, coup: Id, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    return json_response(
        await ctx.casino.db.read(
            lambda uow: views.coup_view(uow, table, coup, _maybe_player(ctx, uow))
        )
    )


@router.get(
    "/tables/{table_id}/shoes/{shoe}",
    responses=documented(*SHARED_TABLE, "unknown_shoe", "not_found"),
    summary="A shared table's shoe as baccarat-history/1 lines (one per coup, no bets), its "
    "seed revealed once it ended: `baccarat verify` checks every coup and the contiguity",
)
async def get_shoe_record(table_id: str, shoe: Id, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    lines = await ctx.casino.db.read(lambda uow: views.shoe_record(uow, table, shoe))
    text = "".join(compact(line) + "\n" for line in lines)
    return Response(text, media_type="application/x-ndjson")


@router.get(
    "/tables/{table_id}/log",
    responses=documented(*SHARED_TABLE),
    summary="A shared table's append-only, hash-chained log (its shoes' commitments, beacon "
    "rounds and reveals: docs/fairness.md), the entries after `after`, 500 at most",
)
async def get_table_log(
    table_id: str, ctx: RequestDep, after: Annotated[int, Query(ge=0, le=2**31)] = 0
) -> Response:
    table = ctx.casino.tables.require(table_id)
    require_shared(table)
    entries = await ctx.casino.db.read(lambda uow: tablelog.page(uow, table.id, after))
    return json_response({"table_id": table.id, "entries": entries})


def _desk(ctx: RequestContext) -> SharedDesk:
    desk: SharedDesk = ctx.request.app.state.shared
    return desk


def _maybe_player(ctx: RequestContext, uow: UnitOfWork) -> int | None:
    """The caller if they sent credentials (a shared table is readable without)."""
    token = ctx.caller.token_hash
    return None if token is None else auth.authenticate(uow, token)
