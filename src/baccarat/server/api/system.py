"""Health (with the game's version), and the bare transaction the benchmark measures."""

from __future__ import annotations

from fastapi import APIRouter, Response

from baccarat import __version__
from baccarat.server import ledger
from baccarat.server.api.deps import CasinoDep, RequestDep, idempotent_write, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.models import HealthOut, RoundIn
from baccarat.server.db.uow import UnitOfWork

router = APIRouter(prefix="/api", tags=["system"])


@router.get("/health", response_model=HealthOut, responses=documented(), summary="Liveness")
async def health(casino: CasinoDep) -> Response:
    return json_response({"status": "ok", "database": casino.db.url.scheme, "version": __version__})


bench_router = APIRouter(prefix="/api/bench", include_in_schema=False)


@bench_router.post("/commit", status_code=201)
async def bare_commit(body: RoundIn, ctx: RequestDep) -> Response:
    """A round's comparable transaction without the game, for ``bench/server.py``.

    The same body, authentication, idempotency lookup and storage as a round, and the
    same kind of money movement (one balanced ledger transaction: the player's account to
    the house, one cent, both balances updated), committed through the same writer; no
    nonce, no shuffle, no deal, no settlement, no round record. Served only with
    BACCARAT_BENCH=1 (it moves play money to the house).
    """
    system = ctx.casino.system

    def work(uow: UnitOfWork, player_id: int) -> dict[str, bool]:
        account_id, _ = ledger.player_account(uow, player_id, body.mode)
        house = system.get(body.mode, "house")
        ledger.transfer(uow, "bench", body.mode, account_id, house, 1, system=system)
        return {"ok": True}

    return await idempotent_write(ctx, body.model_dump(), 201, work)
