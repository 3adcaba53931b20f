"""The wallet: balances, the play-money top-up, deposit and withdrawal requests, statement."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from baccarat.server import ledger, wallet
from baccarat.server.accounts import FUN_START
from baccarat.server.api.deps import (
    IDEMPOTENT,
    RequestContext,
    RequestDep,
    idempotent_write,
    json_response,
)
from baccarat.server.api.errors import documented
from baccarat.server.api.models import (
    AmountIn,
    CashierRequestOut,
    ModeQuery,
    StatementOut,
    TopUpOut,
    WalletOut,
)
from baccarat.server.api.operators import operator_balance
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import iso_time

router = APIRouter(prefix="/api/wallet", tags=["wallet"])
WRITE_ERRORS = ("invalid_body", "not_authenticated", "csrf_failed", "idempotency_key_required",
                "idempotency_conflict")  # fmt: skip


def _wallet(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
    return wallet.balances(uow, player_id) | {
        "pending_withdrawals": wallet.pending_withdrawals(uow, player_id),
        "currency": ledger.currency_of(uow, player_id),
    }


@router.get("", response_model=WalletOut, responses=documented("not_authenticated"),
            summary="Both balances, in cents")  # fmt: skip
async def get_wallet(ctx: RequestDep) -> Response:
    found = await ctx.casino.db.read(lambda uow: _wallet(uow, ctx.caller.player_id(uow)))
    if ctx.caller.operator == "real":  # the real balance is the operator's, in its currency
        found["real"], found["currency"] = await operator_balance(ctx)
        found["fun"] = 0  # a session on the operator's wallet plays no fun money
    return json_response(found)


@router.post(
    "/fun/top-up",
    response_model=TopUpOut,
    openapi_extra=IDEMPOTENT,
    responses=documented(*WRITE_ERRORS),
    summary="Bring the play-money balance back up to its start (`up_to`: 100,000 of the "
    "currency's minor unit, 1,000.00 dollars or 100,000 yen)",
)
async def top_up(ctx: RequestDep) -> Response:
    system = ctx.casino.system

    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        added = wallet.top_up_fun(uow, player_id, system)
        return _wallet(uow, player_id) | {"added": added, "up_to": FUN_START}

    return await idempotent_write(ctx, None, 200, work)


@router.post(
    "/deposits",
    status_code=201,
    response_model=CashierRequestOut,
    openapi_extra=IDEMPOTENT,
    responses=documented(
        *WRITE_ERRORS, "invalid_amount", "deposit_limit_reached", "self_excluded", "timed_out"
    ),
    summary="Announce a real-money deposit; it is credited when an operator approves it",
)
async def request_deposit(
    body: AmountIn,
    ctx: RequestDep,
) -> Response:
    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        return wallet.request_deposit(uow, player_id, body.amount).to_json()

    return await idempotent_write(ctx, body.model_dump(), 201, work)


@router.post(
    "/withdrawals",
    status_code=201,
    response_model=CashierRequestOut,
    openapi_extra=IDEMPOTENT,
    responses=documented(*WRITE_ERRORS, "invalid_amount", "insufficient_funds"),
    summary="Ask to withdraw real money: the amount is reserved until an operator decides",
)
async def request_withdrawal(
    body: AmountIn,
    ctx: RequestDep,
) -> Response:
    system = ctx.casino.system

    def work(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
        return wallet.request_withdrawal(uow, player_id, body.amount, system).to_json()

    return await idempotent_write(ctx, body.model_dump(), 201, work)


async def _requests(ctx: RequestContext, kind: str) -> Response:
    def read(uow: UnitOfWork) -> list[dict[str, Any]]:
        player_id = ctx.caller.player_id(uow)
        return [r.to_json() for r in wallet.list_requests(uow, player_id=player_id, kind=kind)]

    return json_response(await ctx.casino.db.read(read))


@router.get("/deposits", response_model=list[CashierRequestOut],
            responses=documented("not_authenticated"), summary="Your deposit requests")  # fmt: skip
async def list_deposits(ctx: RequestDep) -> Response:
    return await _requests(ctx, "deposit")


@router.get(
    "/withdrawals",
    response_model=list[CashierRequestOut],
    responses=documented("not_authenticated"),
    summary="Your withdrawal requests",
)
async def list_withdrawals(ctx: RequestDep) -> Response:
    return await _requests(ctx, "withdrawal")


@router.get(
    "/statement",
    response_model=StatementOut,
    responses=documented("not_authenticated", "invalid_mode"),
    summary="Every movement of one balance, newest first (the ledger's view)",
)
async def statement(
    ctx: RequestDep,
    mode: ModeQuery = "fun",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    before: Annotated[int | None, Query(ge=1, le=2**62)] = None,
) -> Response:
    def read(uow: UnitOfWork) -> dict[str, Any]:
        account_id, _ = ledger.player_account(uow, ctx.caller.player_id(uow), mode)
        moves = ledger.statement(uow, account_id, limit=limit + 1, before=before)
        items = [
            {"id": m.transaction_id, "kind": m.kind, "mode": m.mode, "amount": m.amount,
             "time": iso_time(m.time_us), "reference": m.reference}
            for m in moves[:limit]
        ]  # fmt: skip
        return {"items": items, "next": items[-1]["id"] if len(moves) > limit else None}

    return json_response(await ctx.casino.db.read(read))
