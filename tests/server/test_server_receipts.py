"""Receipts of the commitments a page shows beside the player's own: the casino signs, on
request, a commitment the player is shown (theirs, a seat's whose pair they are in, a
shared table's shoe's), and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.fairness.signing import PublicKeys, Receipt, parse_keys

from ..harness import Api
from .conftest import BACKENDS
from .sharedtables import open_window, state
from .support import error_code

pytestmark = pytest.mark.anyio


async def receipt(api: Api, token: str, commitment: str, mode: str = "fun") -> Any:
    return await api.client.get(
        "/api/fairness/receipt", params={"commitment": commitment, "mode": mode},
        headers=api.auth(token, None),
    )  # fmt: skip


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_shared_shoes_and_the_players_commitments_are_signed_as_receipts(
    api: Api,
) -> None:
    token, other = await api.player("ann"), await api.player("bob")
    shown = (await api.client.get("/api/fairness", headers=api.auth(token, None))).json()
    keys = PublicKeys(parse_keys(shown))
    await open_window(api)
    shoe = (await state(api, token))["shoe"]["commitment"]
    for commitment, mode in ((shoe, "fun"), (shoe, "real"), (shown["fun"]["commitment"], "fun"),
                             (shown["real"]["shoe"]["commitment"], "real")):  # fmt: skip
        answer = await receipt(api, token, commitment, mode)
        assert answer.status_code == 200, answer.text
        signed = answer.json()
        assert (signed["commitment"], signed["mode"]) == (commitment, mode)
        kept = Receipt(1, commitment, mode, signed["time"], signed["signature"], signed["key_id"])
        assert keys.check(kept.signature, kept.key_id, kept.message) is None
    # The player's own receipt is the one GET /api/fairness signs.
    own = (await receipt(api, token, shown["fun"]["commitment"])).json()
    assert own["signature"] == shown["fun"]["signature"]
    # Not another player's commitment, not one of another mode, not one that is nobody's.
    for commitment, mode in ((shown["fun"]["commitment"], "real"), ("ab" * 32, "fun")):
        refused = await receipt(api, token, commitment, mode)
        assert (refused.status_code, error_code(refused)) == (404, "unknown_commitment")
    refused = await receipt(api, other, shown["fun"]["commitment"])
    assert error_code(refused) == "unknown_commitment"
    assert error_code(await receipt(api, token, "not hex")) == "invalid_request"
