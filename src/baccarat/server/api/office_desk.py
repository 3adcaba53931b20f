"""The back office's desk (``/admin/api``): players and game recall, any round, voids with
the two-person rule, cashier approvals, tables (kill switch and limits) and the
thresholds. Each route checks the caller's role; each change is audited."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import Field

from baccarat.server import switches, wallet
from baccarat.server.api.deps import json_response
from baccarat.server.api.errors import Handler, documented, routes
from baccarat.server.api.ids import Id
from baccarat.server.api.models import Body
from baccarat.server.api.office import (
    CHANGE,
    READ,
    Reason,
    RoundId,
    as_staff,
    role_first,
    staff_change,
)
from baccarat.server.casino import Casino
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.office import actions, players
from baccarat.server.office.staff import Staff, audit

router = APIRouter(prefix="/admin/api", tags=["back office"])


def _change(
    method: str, path: str, role: str, summary: str, *codes: str
) -> Callable[[Handler], Handler]:
    """A staff change's route: for staff of ``role`` (checked first), with the error codes
    every change has and its own."""
    return routes(router, *CHANGE, dependencies=[role_first(role)])(method, path, summary, *codes)


class ReasonIn(Body):
    reason: Reason


class DecisionIn(Body):
    approve: bool
    reason: Reason
    confirm_excluded: bool = False


class SwitchIn(Body):
    enabled: bool
    reason: Reason


class LimitsIn(Body):
    limits: dict[str, int] | None = Field(
        description="min, max, tie_min, tie_min_alone, tie_max in cents (given ones change); "
        "null: back to the tables file's"
    )
    reason: Reason


class ThresholdsIn(Body):
    large_win: int | None = Field(default=None, gt=0, le=10**12)
    large_wager: int | None = Field(default=None, gt=0, le=10**12)
    currency: str = Field(
        default=HOME, min_length=3, max_length=3,
        description="ISO 4217: the thresholds of real money in this currency, in its minor "
        "units (USD: cents)",
    )  # fmt: skip
    reason: Reason


def _casino(request: Request) -> Casino:
    casino: Casino = request.app.state.casino
    return casino


@router.get("/players", responses=READ, summary="Find players by nickname prefix or id")
async def find_players(
    request: Request, q: Annotated[str, Query(min_length=1, max_length=24)]
) -> Response:
    found = await as_staff(request, "players", lambda uow, s: players.find(uow, q))
    return json_response({"players": found})


@router.get(
    "/players/{player_id}",
    responses=documented("not_authenticated", "forbidden", "unknown_player", "not_found"),
    summary="A player: balances, limits, exclusion, sessions, requests, audit, game recall",
)
async def player_card(request: Request, player_id: Id) -> Response:
    # Read on a reader thread; then the view is audited (and, when the player's limits had
    # something to settle first, the card is read again in that write, as theirs would be).
    shown = await as_staff(request, "players", lambda uow, s: players.card(uow, player_id))

    def viewed(uow: UnitOfWork, staff: Staff) -> dict[str, Any] | None:
        settled = players.settle(uow, player_id) if shown is None else None
        audit(uow, staff, "player_viewed", f"player:{player_id}", None)
        return settled

    settled = await as_staff(request, "players", viewed, write=True)
    return json_response(settled or shown)


@router.get(
    "/rounds/{round_id}",
    responses=documented("not_authenticated", "forbidden", "unknown_round"),
    summary="Any round by id, as it was played, with its player and void proposals",
)
async def round_card(request: Request, round_id: RoundId) -> Response:
    found = await as_staff(request, "rounds", lambda uow, s: players.round_card(uow, round_id))
    return json_response(found)


@_change(
    "POST", "/rounds/{round_id}/void", "void_propose",
    "Void a round (play money at once; real money: proposed for a second admin)",
    "unknown_round", "void_not_possible",
)  # fmt: skip
async def void_round(request: Request, round_id: RoundId, body: ReasonIn) -> Response:
    dealer = _casino(request).dealer
    return await staff_change(request, "void_propose", actions.void, dealer, round_id, body.reason)


@router.get("/voids", responses=READ, summary="Voids proposed and waiting for an admin")
async def pending_voids(request: Request) -> Response:
    found = await as_staff(request, "void_propose", lambda uow, s: actions.pending_voids(uow))
    return json_response({"proposals": found})


@_change(
    "POST", "/voids/{proposal_id}", "void_approve",
    "Approve (the round is voided) or reject a proposed void: another admin",
    "not_found", "same_person", "void_not_possible",
)  # fmt: skip
async def decide_void(request: Request, proposal_id: Id, body: DecisionIn) -> Response:
    dealer = _casino(request).dealer
    return await staff_change(
        request, "void_approve", actions.decide_void, dealer, proposal_id, body.approve, body.reason
    )


@router.get("/cashier", responses=READ, summary="Deposit and withdrawal requests")
async def cashier_requests(
    request: Request,
    status: Annotated[str | None, Query(pattern="^(pending|approved|rejected)$")] = "pending",
    kind: Annotated[str | None, Query(pattern="^(deposit|withdrawal)$")] = None,
) -> Response:
    def read(uow: UnitOfWork, staff: Staff) -> list[dict[str, Any]]:
        found = wallet.list_requests(uow, kind=kind, status=status, limit=200)
        return [r.to_json() | {"nickname": r.nickname} for r in found]

    return json_response({"requests": await as_staff(request, "cashier", read)})


@_change(
    "POST", "/cashier/{request_id}", "cashier",
    "Approve or reject a deposit or withdrawal request, with the reason",
    "unknown_request", "request_not_pending", "player_excluded", "not_found",
)  # fmt: skip
async def decide_request(request: Request, request_id: Id, body: DecisionIn) -> Response:
    system = _casino(request).system
    return await staff_change(
        request, "cashier", actions.decide_request, system, request_id, body.approve,
        body.reason, confirm_excluded=body.confirm_excluded,
    )  # fmt: skip


@router.get("/tables", responses=READ, summary="Every table: open or closed, its limits")
async def tables(request: Request) -> Response:
    known = _casino(request).tables
    found = await as_staff(request, "tables", lambda uow, s: switches.state(uow, known))
    return json_response({"tables": found})


@_change(
    "PUT", "/tables/{table_id}/switch", "tables_change",
    "The kill switch: no new rounds while off (rounds in flight finish)",
    "unknown_table",
)  # fmt: skip
async def switch_table(request: Request, table_id: str, body: SwitchIn) -> Response:
    table = _casino(request).tables.require(table_id)
    return await staff_change(
        request, "tables_change", actions.switch_table, table, body.enabled, body.reason
    )


@_change(
    "PUT", "/tables/{table_id}/limits", "tables_change",
    "Change a table's main limits from its next round (a significant event)",
    "unknown_table", "invalid_limit",
)  # fmt: skip
async def table_limits(request: Request, table_id: str, body: LimitsIn) -> Response:
    table = _casino(request).tables.require(table_id)
    return await staff_change(
        request, "tables_change", actions.change_limits, table, body.limits, body.reason
    )


@router.get(
    "/settings",
    responses=READ,
    summary="The large-win and large-wager thresholds: HOME's, and each currency's",
)
async def settings(request: Request) -> Response:
    offered = _offered(request)
    found = await as_staff(
        request, "events", lambda uow, s: actions.current_thresholds(uow, offered)
    )
    return json_response(found)


def _offered(request: Request) -> set[str]:
    """The currencies the tables offer (each has its thresholds)."""
    return {code for t in _casino(request).tables.values() for code in t.offered_currencies}


@_change(
    "PUT", "/settings", "settings",
    "Change the thresholds of a currency (a configuration change: a significant event)",
    "invalid_limit", "unsupported_currency",
)  # fmt: skip
async def change_settings(request: Request, body: ThresholdsIn) -> Response:
    values = {k: v for k, v in (("large_win", body.large_win),
                                ("large_wager", body.large_wager)) if v is not None}  # fmt: skip
    offered, currency = _offered(request), body.currency.upper()
    return await staff_change(
        request, "settings", actions.set_thresholds, values, body.reason, currency, offered
    )
