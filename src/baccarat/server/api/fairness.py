"""Provably fair: the commitments, client seeds and nonces; set the client seed; rotate; the
casino's public signing keys, published to anyone (no session: a verifier needs them)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from baccarat.server import auth, keys, seeds
from baccarat.server.api import pacing
from baccarat.server.api.deps import (
    NOT_MODIFIED,
    CasinoDep,
    RequestDep,
    json_response,
    revalidated_json_response,
)
from baccarat.server.api.errors import documented
from baccarat.server.api.models import (
    ClientSeedIn,
    FairnessOut,
    FairnessStateOut,
    Mode,
    ModeIn,
    RevealedSeedOut,
    RotationOut,
    SigningKeyOut,
)
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.ledger import MODES

router = APIRouter(prefix="/api/fairness", tags=["fairness"])


@router.get(
    "",
    response_model=FairnessOut,
    responses=documented("not_authenticated"),
    summary="Per mode: the server seed's commitment, the client seed and the next nonce",
)
async def get_fairness(ctx: RequestDep) -> Response:
    signer = ctx.casino.signer

    def read(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        shown = {mode: keys.signed_state(uow, signer, seeds.state(uow, player_id, mode))
                 for mode in MODES}  # fmt: skip
        return shown | {"signing_keys": signer.keys_json()}

    return json_response(await ctx.casino.db.read(read))


@router.get(
    "/keys",
    response_model=list[SigningKeyOut],
    responses=NOT_MODIFIED,
    summary="The casino's public signing keys, the current one first, then the retired ones "
    "(no session needed)",
)
async def signing_keys(request: Request, casino: CasinoDep) -> Response:
    """The keys a verifier checks the signatures with, for anyone (a regulator, a player not
    logged in, the verifier page opened from anywhere on this origin): the same list as
    ``signing_keys`` in ``GET /api/fairness``, from the casino's signer in memory (no
    database read). Revalidated with an ETag rather than kept for a while: a new signing key
    (after a restart) is published at once, so that a cache never hands a verifier a list
    without the key of the lines it checks."""
    return revalidated_json_response(request, casino.signer.keys_json())


@router.put(
    "/client-seed",
    response_model=FairnessStateOut,
    responses=documented(
        "invalid_body", "invalid_mode", "invalid_client_seed", "not_authenticated", "csrf_failed"
    ),
    summary="Choose the client seed of the next shuffles (after every new commitment)",
)
async def set_client_seed(body: ClientSeedIn, ctx: RequestDep) -> Response:
    def work(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        state = seeds.set_client_seed(uow, player_id, body.mode, body.client_seed)
        return keys.signed_state(uow, ctx.casino.signer, state)

    return json_response(await ctx.casino.db.write(work))


@router.post(
    "/rotate",
    response_model=RotationOut,
    responses=documented(
        "invalid_body", "invalid_mode", "not_authenticated", "csrf_failed", "rate_limited"
    ),
    summary="Commit a new server seed and retire the current one: revealed now, or when the "
    "cut shoes dealt from it end (30 an hour at most)",
)
async def rotate(body: ModeIn, ctx: RequestDep) -> Response:
    def work(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        auth.admit_hourly(uow, f"rotate:{player_id}", seeds.ROTATIONS_PER_HOUR, "rotations")
        revealed, state = seeds.rotate(uow, player_id, body.mode)
        return {
            "revealed": None if revealed is None else revealed.to_json(),
            "pending": seeds.pending(uow, player_id, body.mode),
            "current": keys.signed_state(uow, ctx.casino.signer, state),
        }

    return json_response(await ctx.casino.db.write(work))


@router.get(
    "/seeds",
    response_model=list[RevealedSeedOut],
    responses=documented("not_authenticated", "invalid_mode", "rate_limited"),
    summary="Your revealed server seeds, oldest first (the newest `limit`, at most 1000)",
)
async def revealed(
    ctx: RequestDep,
    mode: Annotated[Mode, Query()] = "fun",
    limit: Annotated[int, Query(ge=1, le=seeds.MAX_REVEALED)] = seeds.MAX_REVEALED,
) -> Response:
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def read(uow: UnitOfWork) -> list[seeds.RevealedSeed]:
        player_id = ctx.caller.player_id(uow)
        rate.take(player_id)
        return seeds.revealed_seeds(uow, player_id, mode, limit)

    found = await ctx.casino.db.read(read)
    return json_response([seed.to_json() for seed in found])
