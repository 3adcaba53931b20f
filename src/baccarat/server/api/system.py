"""Health, and the bare transaction the benchmark measures rounds against."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from .. import idempotency
from ..db.uow import UnitOfWork
from .deps import CallerDep, CasinoDep, IdempotencyKey, json_response
from .errors import documented
from .models import HealthOut, RoundIn

router = APIRouter(prefix="/api", tags=["system"])


@router.get("/health", response_model=HealthOut, responses=documented(), summary="Liveness")
async def health(casino: CasinoDep) -> Response:
    return json_response({"status": "ok", "database": casino.db.dialect})


bench_router = APIRouter(prefix="/api/bench", include_in_schema=False)


@bench_router.post("/commit", status_code=201)
async def bare_commit(
    body: RoundIn,
    request: Request,
    casino: CasinoDep,
    caller: CallerDep,
    key: IdempotencyKey = None,
) -> Response:
    """What a round costs without the game: the same body, the same authentication and
    idempotency lookup, and one committed write (the idempotency row), through the same
    writer. Served only with BACCARAT_BENCH=1."""
    checked = idempotency.check_key(key)
    hashed = idempotency.request_hash(request.method, request.url.path, body.model_dump())

    def job(uow: UnitOfWork) -> None:
        player_id = caller.player_id(uow)
        idempotency.recall(uow, player_id, checked, hashed)
        idempotency.remember(uow, player_id, checked, hashed, 201, '{"ok":true}')

    await casino.db.write(job)
    return json_response({"ok": True}, 201)
