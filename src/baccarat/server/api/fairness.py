"""Provably fair: the commitments, client seeds and nonces; set the client seed; rotate; a
signed receipt of a commitment shown at a seat or a shared table; the casino's public
signing keys, published to anyone (no session: a verifier needs them)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from baccarat.fairness.signing import Signer
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
    ModeIn,
    ModeQuery,
    RevealedSeedOut,
    RotationOut,
    ShownCommitmentOut,
    SigningKeyOut,
)
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.ledger import MODES

router = APIRouter(prefix="/api/fairness", tags=["fairness"])


def _signed(signer: Signer, committed: str, mode: str, created_us: int) -> dict[str, Any]:
    """A commitment as the casino shows it: signed, with the time it was made."""
    return {"commitment": committed, "mode": mode,
            **signer.sign_commitment(committed, mode, iso_time(created_us))}  # fmt: skip


def _shown(
    uow: UnitOfWork, signer: Signer, player_id: int, state: seeds.FairnessState
) -> dict[str, Any]:
    """A state as its player is shown it: both commitments signed (the browser keeps them as
    receipts), and the rotated seeds that wait for their cut shoes to end."""
    shoe = state.shoe
    return keys.signed_state(uow, signer, state) | {
        "shoe": None if shoe is None else
        _signed(signer, shoe.commitment, state.mode, shoe.created_us)
        | {"next_nonce": shoe.next_nonce},
        "pending": seeds.pending(uow, player_id, state.mode),
    }  # fmt: skip


@router.get(
    "",
    response_model=FairnessOut,
    responses=documented("not_authenticated"),
    summary="Per mode: the server seeds' commitments, the client seed and the next nonces",
)
async def get_fairness(ctx: RequestDep) -> Response:
    signer = ctx.casino.signer

    def read(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        shown = {mode: _shown(uow, signer, player_id, seeds.state(uow, player_id, mode))
                 for mode in MODES}  # fmt: skip
        return shown | {"signing_keys": signer.keys_json()}

    return json_response(await ctx.casino.db.read(read))


@router.get(
    "/receipt",
    response_model=ShownCommitmentOut,
    responses=documented("not_authenticated", "invalid_mode", "unknown_commitment"),
    summary="A commitment you are shown, signed, to keep as a receipt: your own, a seat's "
    "whose pair you are in, or a shared table's shoe's",
)
async def receipt(
    ctx: RequestDep,
    commitment: Annotated[str, Query(pattern="^[0-9a-f]{64}$")],
    mode: ModeQuery,
) -> Response:
    """The browser asks for it as it shows a seat's or a shared shoe's commitment, before the
    first deal from it (docs/fairness.md, "Receipts")."""

    def read(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        made = seeds.shown_time(uow, player_id, commitment, mode)
        if made is None:
            raise ServiceError(
                "unknown_commitment",
                f"{commitment} is not a commitment you are shown in {mode} mode: none of "
                "yours, of a seat whose pair you are in, or of a shared table's shoe",
                commitment=commitment, mode=mode,
            )  # fmt: skip
        return _signed(ctx.casino.signer, commitment, mode, made)

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
        return _shown(uow, ctx.casino.signer, player_id, state)

    return json_response(await ctx.casino.db.write(work))


@router.post(
    "/rotate",
    response_model=RotationOut,
    responses=documented(
        "invalid_body", "invalid_mode", "not_authenticated", "csrf_failed", "rate_limited"
    ),
    summary="Commit new server seeds and retire the current ones: the fresh-shuffle tables' "
    "revealed now, the cut shoes' now or when the cut shoes dealt from it end (30 an hour at "
    "most)",
)
async def rotate(body: ModeIn, ctx: RequestDep) -> Response:
    def work(uow: UnitOfWork) -> dict[str, Any]:
        player_id = ctx.caller.player_id(uow)
        auth.admit_hourly(uow, f"rotate:{player_id}", seeds.ROTATIONS_PER_HOUR, "rotations")
        rotation = seeds.rotate(uow, player_id, body.mode)
        shown = _shown(uow, ctx.casino.signer, player_id, rotation.state)
        return {
            "revealed": None if rotation.revealed is None else rotation.revealed.to_json(),
            "revealed_shoe_seed": None
            if rotation.shoe_revealed is None
            else rotation.shoe_revealed.to_json(),
            "pending": shown["pending"],
            "current": shown,
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
    mode: ModeQuery = "fun",
    limit: Annotated[int, Query(ge=1, le=seeds.MAX_REVEALED)] = seeds.MAX_REVEALED,
) -> Response:
    rate = pacing.before_reading(ctx.request.app, ctx.caller.token_hash)

    def read(uow: UnitOfWork) -> list[seeds.RevealedSeed]:
        player_id = ctx.caller.player_id(uow)
        rate.take(player_id)
        return seeds.revealed_seeds(uow, player_id, mode, limit)

    found = await ctx.casino.db.read(read)
    return json_response([seed.to_json() for seed in found])
