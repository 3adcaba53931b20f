"""Player-banked seats over HTTP (SPEC §7): the lobby's seat list, join, the seat as you
see it, and its actions (leave, approve, auto-approve, bets, deal), which are the seat
socket's too (``service.ACTIONS``, one table for both; ``api.socket``). A seat's state
carries ``allowed_actions``: what the caller may do now.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request, Response

from baccarat.core import Bets
from baccarat.server import auth, ledger
from baccarat.server.api.deps import (
    IDEMPOTENCY_HEADER,
    IDEMPOTENT,
    banked_desk,
    caller_of,
    json_response,
)
from baccarat.server.api.errors import RESPONSIBLE_ERRORS, documented, routes
from baccarat.server.api.models import BetsIn, RoundOut
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.banked import service
from baccarat.server.kinds.banked.api.models import (
    AutoApproveIn,
    DealIn,
    JoinIn,
    LobbyOut,
    PlaceBetsIn,
    SeatClientSeedIn,
    SeatStateOut,
)
from baccarat.server.kinds.banked.service import Params, SeatServices
from baccarat.server.play import idempotency
from baccarat.server.tables import bets_from

router = APIRouter(prefix="/api", tags=["player-banked"])

SeatId = Annotated[str, Path(max_length=80, description="a seat id, such as banked-ii.1")]
AUTH = ("not_authenticated", "csrf_failed")
SEAT = (*AUTH, "unknown_seat", "not_seated", "not_your_turn")


# A seat action's route (``/seats/{seat_id}/<action>``): the seat as you see it after it.
_action = routes(router, *SEAT, response_model=SeatStateOut)


async def _act(request: Request, work: Any, status: int = 200) -> Response:
    """Authenticate and run ``work(uow, ctx, player_id)`` in one write; the seat as JSON."""
    hashed = caller_of(request).token_hash

    def job(uow: UnitOfWork, ctx: SeatServices) -> Any:
        player_id = auth.authenticate(uow, hashed, acts=True)
        return work(uow, ctx, player_id).for_player(player_id)

    return json_response(await banked_desk(request.app).write(job), status)


async def _perform(
    request: Request, seat_id: str, action: str, params: Params, status: int = 200
) -> Response:
    """An action of the seat (``service.ACTIONS``) for the caller, in one write."""
    hashed = caller_of(request).token_hash

    def job(uow: UnitOfWork, ctx: SeatServices) -> tuple[dict[str, Any], bool]:
        player_id = auth.authenticate(uow, hashed, acts=True)
        return service.perform(uow, ctx, player_id, seat_id, action, params)

    answer, replayed = await banked_desk(request.app).write(job, seat_id)
    response = json_response(answer, status)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


# -- REST ----------------------------------------------------------------------------------


@router.get(
    "/seats",
    response_model=LobbyOut,
    responses=documented("csrf_failed"),
    summary="The player-banked seats: who sits where, and which seats need a player or a "
    "banker; with a session, your own points and seats",
)
async def list_seats(request: Request) -> Response:
    hashed = caller_of(request).token_hash

    def read(uow: UnitOfWork, ctx: SeatServices) -> dict[str, Any]:
        player_id = None
        if hashed is not None:
            with contextlib.suppress(ServiceError):
                player_id = auth.authenticate(uow, hashed)
        return service.lobby(uow, ctx, player_id)

    return json_response(await banked_desk(request.app).read(read))


@router.post(
    "/seats",
    status_code=201,
    response_model=SeatStateOut,
    responses=documented(
        *AUTH,
        "invalid_body",
        "invalid_mode",
        "unknown_table",
        "not_a_banked_table",
        "unknown_seat",
        "already_seated",
        "seat_taken",
        "seat_mode_mismatch",
        "table_full",
        "banker_points_too_low",
        "banker_balance_too_low",
        "unsupported_currency",
        *RESPONSIBLE_ERRORS,
    ),
    summary="Sit down as player or banker (the server matches you with someone waiting)",
)
async def join(body: JoinIn, request: Request) -> Response:
    def in_home(uow: UnitOfWork, player_id: int) -> int:
        currency = ledger.currency_of(uow, player_id)
        if currency != HOME:  # the banker covers every bet: one currency at a seat
            raise ServiceError("unsupported_currency", f"player-banked tables play in {HOME}, "
                               f"not in {currency}", currency=currency)  # fmt: skip
        return player_id

    return await _act(
        request,
        lambda uow, ctx, player_id: service.join(
            uow,
            ctx,
            in_home(uow, player_id),
            body.table_id,
            body.role,
            body.mode,
            seat_id=body.seat_id,
            auto_approve=body.auto_approve,
        ),
        201,
    )


@router.get(
    "/seats/{seat_id}",
    response_model=SeatStateOut,
    responses=documented("not_authenticated", "unknown_seat"),
    summary="A seat as you see it",
)
async def get_seat(seat_id: SeatId, request: Request) -> Response:
    hashed = caller_of(request).token_hash

    def read(uow: UnitOfWork, ctx: SeatServices) -> dict[str, Any]:
        player_id = auth.authenticate(uow, hashed)
        return service.seat_view(uow, ctx, seat_id).for_player(player_id)

    return json_response(await banked_desk(request.app).read(read))


@_action(
    "POST", "/seats/{seat_id}/leave",
    "Stand up (bets not dealt come back; a banker who approved stays to the round's end)",
)  # fmt: skip
async def leave(seat_id: SeatId, request: Request) -> Response:
    return await _perform(request, seat_id, "leave", Params())


@_action(
    "POST", "/seats/{seat_id}/approve",
    "APPROVE the next round (bankers; reserves the round's exposure)",
    "deadline_passed", "banker_points_too_low", "banker_balance_too_low", *RESPONSIBLE_ERRORS,
)  # fmt: skip
async def approve(seat_id: SeatId, request: Request) -> Response:
    return await _perform(request, seat_id, "approve", Params())


@_action("PUT", "/seats/{seat_id}/auto-approve", "AUTO-APPROVE on or off (bankers)", "invalid_body")
async def auto_approve(seat_id: SeatId, body: AutoApproveIn, request: Request) -> Response:
    return await _perform(request, seat_id, "auto_approve", Params(on=body.on))


@_action(
    "PUT", "/seats/{seat_id}/client-seed",
    "Your client seed for the pair's rounds (after the seat's commitment, before its first "
    "deal)",
    "invalid_body", "invalid_client_seed", "no_seat_seed", "client_seed_fixed",
)  # fmt: skip
async def client_seed(seat_id: SeatId, body: SeatClientSeedIn, request: Request) -> Response:
    return await _perform(request, seat_id, "client_seed", Params(client_seed=body.client_seed))


BET_ERRORS = ("invalid_body", "no_bets", "bet_not_offered", "bet_below_table_min",
              "bet_above_table_max", "tie_below_min", "tie_above_max", "not_a_chip_multiple",
              "insufficient_funds", "deadline_passed")  # fmt: skip


@_action(
    "PUT", "/seats/{seat_id}/bets",
    "Place your bets (players; held until dealt, returned if not); no bets clears them",
    *BET_ERRORS, *RESPONSIBLE_ERRORS,
)  # fmt: skip
async def place_bets(seat_id: SeatId, body: PlaceBetsIn, request: Request) -> Response:
    return await _perform(request, seat_id, "bets", Params(bets=_bets(body.bets)))


@router.post(
    "/seats/{seat_id}/deal",
    status_code=201,
    response_model=RoundOut,
    responses=documented(
        *SEAT,
        *BET_ERRORS,
        *RESPONSIBLE_ERRORS,
        "idempotency_key_required",
        "idempotency_conflict",
        "table_disabled",
    ),
    openapi_extra=IDEMPOTENT,
    summary="DEAL (players): bet (optional) and deal; settled between you, the banker and "
    "the casino's fee in one transaction",
)
async def deal(seat_id: SeatId, body: DealIn, request: Request) -> Response:
    key = idempotency.check_key(request.headers.get(IDEMPOTENCY_HEADER))
    bets = None if body.bets is None else _bets(body.bets)
    return await _perform(request, seat_id, "deal", Params(bets=bets, key=key), 201)


def _bets(body: BetsIn) -> Bets:
    return bets_from(body.root)
