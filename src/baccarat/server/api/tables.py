"""Tables, rounds and shoes: the game itself."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Query, Response

from baccarat.server import auth, ledger, roads, switches
from baccarat.server.api import pacing
from baccarat.server.api.deps import (
    IDEMPOTENT,
    NOT_MODIFIED,
    RequestContext,
    RequestDep,
    idempotent_write,
    json_response,
    revalidated_json_response,
)
from baccarat.server.api.errors import RESPONSIBLE_ERRORS, documented
from baccarat.server.api.ids import Id
from baccarat.server.api.models import (
    CutIn,
    HouseTableOut,
    ModeQuery,
    RoadsOut,
    RoundIn,
    RoundOut,
    SharedBetsOut,
    SharedCoupOut,
    SharedStateOut,
    ShoeOut,
    TableOut,
)
from baccarat.server.api.operators import (
    operator_balance,
    operator_coup_bets,
    operator_round,
    operator_tables,
)
from baccarat.server.api.profiles import check_autoplay
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.kinds import find_kind
from baccarat.server.kinds.house import service as rounds
from baccarat.server.kinds.shared import bets as shared_bets
from baccarat.server.kinds.shared import tablelog
from baccarat.server.kinds.shared import views as shared
from baccarat.server.kinds.shared.clock import require_shared
from baccarat.server.kinds.shared.kind import SharedKind
from baccarat.server.kinds.shared.runtime import SharedDesk
from baccarat.server.profiles.position import after_round
from baccarat.server.profiles.rules import session_profile
from baccarat.server.tables import Table, bets_from

router = APIRouter(prefix="/api", tags=["tables"])
T = TypeVar("T")

# What a write of yours at a table may answer (its body, the mode in it, your session, the
# table), and a read of yours at one in a mode (``_read_at_table``); each route adds its own.
TABLE_WRITE = ("invalid_body", "invalid_mode", "not_authenticated", "csrf_failed", "unknown_table")
TABLE_READ = ("not_authenticated", "invalid_mode", "unknown_table")
# What a shared table's routes answer for a table that is none (``require_shared``).
SHARED_TABLE = ("unknown_table", "not_a_shared_table")

ROUND_ERRORS = (
    *TABLE_WRITE, "idempotency_key_required", "idempotency_conflict", "no_bets",
    "bet_not_offered", "bet_below_table_min",
    "bet_above_table_max", "tie_below_min", "tie_above_max", "not_a_chip_multiple",
    "not_a_fee_multiple", "insufficient_funds", "cut_required", "player_banked_table",
    "shared_table",
    "operator_refused", "operator_unavailable", "mode_not_in_session", "table_disabled",
    "unsupported_currency", "cycle_too_soon", "autoplay_not_allowed",
    *RESPONSIBLE_ERRORS,
)  # fmt: skip


# The lobby's tables depend on the caller's session (their currency, an operator's offer).
LOBBY_VARY = ("Authorization", "Cookie")


@router.get(
    "/tables",
    response_model=list[TableOut],
    responses=NOT_MODIFIED,
    summary="The tables, with exact RTP per bet",
)
async def list_tables(ctx: RequestDep) -> Response:
    return revalidated_json_response(ctx.request, await _tables_of(ctx), LOBBY_VARY)


async def _tables_of(ctx: RequestContext) -> list[dict[str, Any]]:
    if ctx.caller.operator:
        return await operator_tables(ctx)

    def read(uow: UnitOfWork) -> list[dict[str, Any]]:
        currency = currency_of(ctx, uow, _player_or_visitor(ctx, uow))
        return switches.lobby(uow, [t.for_currency(currency) for t in ctx.casino.tables.values()
                                    if currency in t.offered_currencies])  # fmt: skip

    return await ctx.casino.db.read(read)


def currency_of(ctx: RequestContext, uow: UnitOfWork, player_id: int | None) -> str:
    """The currency of a player's amounts, their accounts' (a session an operator launched
    has its accounts in the session's currency); ``HOME`` for a visitor. A table's chips and
    limits are read in it (``Table.for_currency``) wherever the player sees or plays it:
    the lobby, the table, their state at it, their rounds."""
    if player_id is None:
        return HOME
    return ledger.player_currency(uow, ctx.casino.system, player_id)


def _player_or_visitor(ctx: RequestContext, uow: UnitOfWork) -> int | None:
    """The caller's player, or None for a visitor (a session no longer live reads as one)."""
    if ctx.caller.token_hash is None:
        return None
    with contextlib.suppress(ServiceError):
        return ctx.caller.player_id(uow)
    return None


@router.get(
    "/tables/{table_id}",
    response_model=TableOut,
    responses=documented("unknown_table", "unsupported_currency") | NOT_MODIFIED,
    summary="One table (in the caller's currency)",
)
async def get_table(table_id: str, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)

    def read(uow: UnitOfWork) -> list[dict[str, Any]]:
        currency = currency_of(ctx, uow, _player_or_visitor(ctx, uow))
        return switches.lobby(uow, [table.for_currency(currency)])

    (found,) = await ctx.casino.db.read(read)
    return revalidated_json_response(ctx.request, found, LOBBY_VARY)


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
    find_kind(table.kind).refuse_house_round(table)
    bets = bets_from(body.bets.root)
    await check_autoplay(ctx, body.autoplay)
    dealer, mode, profiles = ctx.casino.dealer, body.mode, ctx.casino.profiles

    payload = {"mode": mode, "bets": bets.to_json()}
    if ctx.caller.operator:
        answer = await operator_round(ctx, table, mode, bets, payload)
        if answer is not None:
            return answer

    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        here = table.for_currency(currency_of(ctx, uow, player_id))
        profile = session_profile(uow, profiles, ctx.caller.token_hash, bool(ctx.caller.operator))
        played = rounds.play_round(uow, dealer, player_id, here, mode, bets, profile)
        answer = rounds.round_answer(uow, player_id, here, played, bets)
        return answer | after_round(uow, profile, player_id, mode)

    return await idempotent_write(ctx, payload, 201, work)


@router.get(
    "/tables/{table_id}/state",
    response_model=HouseTableOut | SharedStateOut,
    responses=documented(*TABLE_READ, "player_banked_table", "unsupported_currency"),
    summary="You at a house table: the actions allowed now, your balance, last round and "
    "shoe; a shared table's phase, countdown, totals and shoe (no session needed)",
)
async def get_table_state(table_id: str, ctx: RequestDep, mode: ModeQuery = "fun") -> Response:
    table = ctx.casino.tables.require(table_id)
    if SharedKind.of(table):
        _desk(ctx).watch(table.id)
        found = await ctx.casino.db.read(
            lambda uow: shared.state(uow, table, _maybe_player(ctx, uow), mode)
        )
        return json_response(found | {"currency": table.currency})  # one pot, in HOME
    # An operator's session plays real money on the operator's wallet: its balance is there.
    balance = None
    if ctx.caller.operator and mode == "real":
        balance, _ = await operator_balance(ctx)

    def view(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
        find_kind(table.kind).refuse_house_round(table)  # a player-banked one: take a seat
        here = table.for_currency(currency_of(ctx, uow, player_id))
        return rounds.table_state(uow, player_id, here, mode, balance)

    return json_response(await _read_at_table(ctx, table_id, mode, view))


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
            lambda uow: shared.coup_view(uow, table, coup, _maybe_player(ctx, uow))
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
    lines = await ctx.casino.db.read(lambda uow: shared.shoe_record(uow, table, shoe))
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


@router.get(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented("not_authenticated", "unknown_table", "not_a_cut_shoe_table"),
    summary="The player's shoe at a cut-shoe table: cards left, and whether a cut is due",
)
async def get_shoe(table_id: str, ctx: RequestDep, mode: ModeQuery = "fun") -> Response:
    state = await _read_at_table(ctx, table_id, mode, rounds.shoe_state)
    return json_response(state.to_json())


@router.post(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented(*TABLE_WRITE, "not_a_cut_shoe_table", "invalid_cut", "shoe_in_progress"),
    summary="Cut a new shoe (due before the first round and after each cut card)",
)
async def cut_shoe(table_id: str, body: CutIn, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    if SharedKind.of(table):
        SharedKind.refuse_house_round(table)
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
    responses=documented(*TABLE_READ, "rate_limited"),
    summary="Your roads (scoreboards) and statistics at a table: its current shoe, or your "
    "last 100 rounds at a fresh-shuffle table",
)
async def get_roads(table_id: str, ctx: RequestDep, mode: ModeQuery = "fun") -> Response:
    table = ctx.casino.tables.require(table_id)
    if SharedKind.of(table):
        # The table's roads, the same for every caller (bounded by a shoe's coups).
        return json_response(
            await ctx.casino.db.read(lambda uow: shared.table_roads(uow, table, mode))
        )
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
