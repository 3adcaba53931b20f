"""Jurisdiction profiles (docs/jurisdictions.md): the profiles the server knows, and the
player features that depend on them."""

from __future__ import annotations

from fastapi import APIRouter, Response

from baccarat.server.api.deps import CasinoDep, json_response
from baccarat.server.api.errors import documented

router = APIRouter(prefix="/api", tags=["profiles"])


@router.get(
    "/profiles",
    responses=documented(),
    summary="The jurisdiction profiles this server knows, and the one its deployment plays "
    "(an operator's launch names another with `market`)",
)
async def list_profiles(casino: CasinoDep) -> Response:
    profiles = casino.profiles
    return json_response({
        "deployment": profiles.deployment.name,
        "profiles": [profile.to_json() for profile in profiles.values()],
    })  # fmt: skip
