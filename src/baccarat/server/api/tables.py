"""Tables, rounds and shoes: the game itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Query, Response

from .. import roads, rounds
from ..db.uow import UnitOfWork
from ..errors import ServiceError
from ..tables import Table, bets_from
from . import pacing
from .deps import IDEMPOTENT, CasinoDep, RequestContext, RequestDep, idempotent_write, json_response
from .errors import RESPONSIBLE_ERRORS, documented
from .models import CutIn, HouseTableOut, Mode, RoadsOut, RoundIn, RoundOut, ShoeOut, TableOut
from .operators import operator_balance, operator_round, operator_tables

router = APIRouter(prefix="/api", tags=["tables"])
T = TypeVar("T")

ROUND_ERRORS = (
    "invalid_body", "invalid_mode", "not_authenticated", "csrf_failed", "unknown_table",
    "idempotency_key_required", "idempotency_conflict", "no_bets", "bet_not_offered",
    "bet_below_table_min",
    "bet_above_table_max", "tie_below_min", "tie_above_max", "not_a_chip_multiple",
    "insufficient_funds", "cut_required", "player_banked_table", "operator_refused",
    "operator_unavailable", "mode_not_in_session", *RESPONSIBLE_ERRORS,
)  # fmt: skip


@router.get("/tables", response_model=list[TableOut], summary="The tables, with exact RTP per bet")
async def list_tables(ctx: RequestDep) -> Response:
    if ctx.caller.operator:
        return json_response(await operator_tables(ctx))
    return json_response([table.to_json() for table in ctx.casino.tables.values()])


@router.get(
    "/tables/{table_id}",
    response_model=TableOut,
    responses=documented("unknown_table"),
    summary="One table",
)
async def get_table(table_id: str, casino: CasinoDep) -> Response:
    return json_response(casino.tables.require(table_id).to_json())


@router.post(
    "/tables/{table_id}/rounds",
    status_code=201,
    response_model=RoundOut,
    responses=documented(*ROUND_ERRORS),
    openapi_extra=IDEMPOTENT,
    summary="Play a round: debit, shuffle, deal, settle and credit in one transaction",
)
async def play_round(
    table_id: str,
    body: RoundIn,
    ctx: RequestDep,
) -> Response:
    table = ctx.casino.tables.require(table_id)
    if table.banked is not None:
        raise ServiceError(
            "player_banked_table",
            f"table {table_id} is player-banked: take a seat (POST /api/seats)",
            table=table_id,
        )
    bets = bets_from(body.bets.root)
    dealer, mode = ctx.casino.dealer, body.mode

    payload = {"mode": mode, "bets": bets.to_json()}
    if ctx.caller.operator:
        answer = await operator_round(ctx, table, mode, bets, payload)
        if answer is not None:
            return answer

    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        played = rounds.play_round(uow, dealer, player_id, table, mode, bets)
        return rounds.round_answer(uow, player_id, table, played, bets)

    return await idempotent_write(ctx, payload, 201, work)


@router.get(
    "/tables/{table_id}/state",
    response_model=HouseTableOut,
    responses=documented(
        "not_authenticated", "invalid_mode", "unknown_table", "player_banked_table"
    ),
    summary="You at a house table: the actions allowed now, your balance, last round and shoe",
)
async def get_table_state(
    table_id: str, ctx: RequestDep, mode: Annotated[Mode, Query()] = "fun"
) -> Response:
    # An operator's session plays real money on the operator's wallet: its balance is there.
    balance, currency = None, None
    if ctx.caller.operator and mode == "real":
        balance, currency = await operator_balance(ctx)

    def view(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
        here = (table.in_currency(currency) if currency else None) or table
        return rounds.table_state(uow, player_id, here, mode, balance)

    return json_response(await _read_at_table(ctx, table_id, mode, view))


@router.get(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented("not_authenticated", "unknown_table", "not_a_cut_shoe_table"),
    summary="The player's shoe at a cut-shoe table: cards left, and whether a cut is due",
)
async def get_shoe(
    table_id: str, ctx: RequestDep, mode: Annotated[Mode, Query()] = "fun"
) -> Response:
    state = await _read_at_table(ctx, table_id, mode, rounds.shoe_state)
    return json_response(state.to_json())


@router.post(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented(
        "invalid_body",
        "invalid_mode",
        "not_authenticated",
        "csrf_failed",
        "unknown_table",
        "not_a_cut_shoe_table",
        "invalid_cut",
        "shoe_in_progress",
    ),
    summary="Cut a new shoe (due before the first round and after each cut card)",
)
async def cut_shoe(table_id: str, body: CutIn, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    dealer = ctx.casino.dealer
    state = await ctx.casino.db.write(
        lambda uow: rounds.cut_shoe(
            uow, dealer, ctx.caller.player_id(uow), table, body.mode, body.cut
        )
    )
    return json_response(state.to_json())


@router.get(
    "/tables/{table_id}/roads",
    response_model=RoadsOut,
    responses=documented("not_authenticated", "invalid_mode", "unknown_table", "rate_limited"),
    summary="Your roads (scoreboards) and statistics at a table: its current shoe, or your "
    "last 100 rounds at a fresh-shuffle table",
)
async def get_roads(
    table_id: str, ctx: RequestDep, mode: Annotated[Mode, Query()] = "fun"
) -> Response:
    # Paced like the other reads that grow with an account (a page asks after each round).
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def view(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
        rate.take(player_id)
        return roads.table_roads(uow, player_id, table, mode)

    return json_response(await _read_at_table(ctx, table_id, mode, view))


async def _read_at_table(
    ctx: RequestContext, table_id: str, mode: str, view: Callable[[UnitOfWork, int, Table, str], T]
) -> T:
    """``view(uow, player_id, table, mode)`` of the caller at a table, in one read."""
    table = ctx.casino.tables.require(table_id)
    return await ctx.casino.db.read(lambda uow: view(uow, ctx.caller.player_id(uow), table, mode))
