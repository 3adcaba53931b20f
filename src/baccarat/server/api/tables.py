"""Tables, rounds and shoes: the game itself."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Response

from baccarat.server import ledger, roads, switches
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
from baccarat.server.api.models import (
    CutIn,
    HouseTableOut,
    ModeQuery,
    RoadsOut,
    RoundIn,
    RoundOut,
    SharedStateOut,
    ShoeOut,
    TableOut,
)
from baccarat.server.api.operators import operator_balance, operator_round, operator_tables
from baccarat.server.api.profiles import check_autoplay
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import KINDS, find_kind
from baccarat.server.kinds.house import service as rounds
from baccarat.server.profiles.position import after_round
from baccarat.server.profiles.rules import session_profile
from baccarat.server.tables import Table, bets_from

router = APIRouter(prefix="/api", tags=["tables"])
T = TypeVar("T")

# What a write of yours at a table may answer (its body, the mode in it, your session, the
# table), and a read of yours at one in a mode (``_read_at_table``); each route adds its own.
TABLE_WRITE = ("invalid_body", "invalid_mode", "not_authenticated", "csrf_failed", "unknown_table")
TABLE_READ = ("not_authenticated", "invalid_mode", "unknown_table")
# How each kind whose tables are played otherwise refuses a player's own round there.
OWN_ROUNDS_REFUSED = tuple(kind.own_rounds[0] for kind in KINDS.values() if kind.own_rounds)

ROUND_ERRORS = (
    *TABLE_WRITE, "idempotency_key_required", "idempotency_conflict", "no_bets",
    "bet_not_offered", "bet_below_table_min",
    "bet_above_table_max", "tie_below_min", "tie_above_max", "not_a_chip_multiple",
    "not_a_fee_multiple", "insufficient_funds", "cut_required", *OWN_ROUNDS_REFUSED,
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
    own = _kinds_read(table, "state")  # the kind's own: the table's, for anyone
    if own is not None:
        return await own(ctx, table, mode)
    # An operator's session plays real money on the operator's wallet: its balance is there.
    balance = None
    if ctx.caller.operator and mode == "real":
        balance, _ = await operator_balance(ctx)

    def view(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
        find_kind(table.kind).refuse_house_round(table)  # a player-banked one: take a seat
        here = table.for_currency(currency_of(ctx, uow, player_id))
        return rounds.table_state(uow, player_id, here, mode, balance)

    return json_response(await _read_at_table(ctx, table_id, mode, view))


@router.get(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented(*TABLE_READ, "not_a_cut_shoe_table", *OWN_ROUNDS_REFUSED),
    summary="The player's shoe at a cut-shoe table: cards left, and whether a cut is due",
)
async def get_shoe(table_id: str, ctx: RequestDep, mode: ModeQuery = "fun") -> Response:
    _refuse_the_tables_shoe(ctx.casino.tables.require(table_id))
    state = await _read_at_table(ctx, table_id, mode, rounds.shoe_state)
    return json_response(state.to_json())


@router.post(
    "/tables/{table_id}/shoe",
    response_model=ShoeOut,
    responses=documented(
        *TABLE_WRITE, "not_a_cut_shoe_table", "invalid_cut", "shoe_in_progress", *OWN_ROUNDS_REFUSED
    ),
    summary="Cut a new shoe (due before the first round and after each cut card)",
)
async def cut_shoe(table_id: str, body: CutIn, ctx: RequestDep) -> Response:
    table = ctx.casino.tables.require(table_id)
    _refuse_the_tables_shoe(table)
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
    own = _kinds_read(table, "roads")  # the kind's own: the table's, the same for everyone
    if own is not None:
        return await own(ctx, table, mode)
    # Paced like the other reads that grow with an account (a page asks after each round).
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def view(uow: UnitOfWork, player_id: int, table: Table, mode: str) -> dict[str, Any]:
        rate.take(player_id)
        return roads.table_roads(uow, player_id, table, mode)

    return json_response(await _read_at_table(ctx, table_id, mode, view))


def _refuse_the_tables_shoe(table: Table) -> None:
    """At a cut-shoe table of a kind played otherwise (a shared one) the shoe is the table's
    (its state shows it), not a player's to read or cut: refused before anything is read."""
    if table.is_cut_shoe:
        find_kind(table.kind).refuse_house_round(table)


async def _read_at_table(
    ctx: RequestContext, table_id: str, mode: str, view: Callable[[UnitOfWork, int, Table, str], T]
) -> T:
    """``view(uow, player_id, table, mode)`` of the caller at a table, in one read."""
    table = ctx.casino.tables.require(table_id)
    return await ctx.casino.db.read(lambda uow: view(uow, ctx.caller.player_id(uow), table, mode))


def _kinds_read(table: Table, read: str) -> Callable[..., Awaitable[Response]] | None:
    """The table's kind's own answer to this read of its tables (``KindRoutes.table_reads``:
    ``"state"``, ``"roads"``), or None: a house table's is this module's."""
    routes = find_kind(table.kind).routes()
    return None if routes is None else routes.table_reads.get(read)
