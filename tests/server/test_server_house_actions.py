"""A house table's actions as data: what the player may do now (deal, rebet, double, new
game, cut) comes from the server, in the round's answer and in ``GET .../state``."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.server import accounts, voids, wallet

from ..harness import Api
from .support import BANKER_WINS, StackedShoes, error_code

pytestmark = pytest.mark.anyio


async def state(api: Api, token: str, table: str = "table-i", mode: str = "fun") -> Any:
    answer = await api.client.get(
        f"/api/tables/{table}/state", params={"mode": mode}, headers=api.auth(token, None)
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_a_new_player_may_only_deal_and_a_round_opens_rebet_double_and_new_game(
    api: Api,
) -> None:
    token = await api.player()
    first = await state(api, token)
    assert first["allowed_actions"] == ["deal"]
    assert (first["last_round"], first["shoe"], first["balance"]) == (None, None, 100_000)
    played = await api.play(token, banker=500)
    assert played.status_code == 201
    assert played.json()["allowed_actions"] == ["deal", "rebet", "double", "new_game"]
    again = await state(api, token)
    assert again["allowed_actions"] == played.json()["allowed_actions"]
    assert again["last_round"]["id"] == played.json()["id"]
    assert again["balance"] == played.json()["balance_after"]
    # The other mode and the other tables know nothing of it.
    assert (await state(api, token, mode="real"))["allowed_actions"] == ["deal"]
    assert (await state(api, token, table="table-ii"))["last_round"] is None


async def test_double_is_not_offered_when_twice_the_bets_pass_the_table_maximum(api: Api) -> None:
    token = await api.player()
    table = (await api.client.get("/api/tables/table-i")).json()
    top = table["limits"]["max"]
    assert table["bets"]["player"]["unit"] == 100  # what the browser's pre-check reads
    played = await api.play(token, player=top)
    assert played.json()["allowed_actions"] == ["deal", "rebet", "new_game"]


async def test_rebet_is_not_offered_when_the_balance_no_longer_covers_the_last_bets(
    api: Api,
) -> None:
    token = await api.player("bettor")
    system = api.casino.system

    def deposit(uow: Any) -> None:
        wallet.deposit(uow, accounts.require(uow, "bettor").id, 1_000, system)

    await api.casino.db.write(deposit)
    api.shoes.current = StackedShoes(BANKER_WINS)
    lost = await api.play(token, mode="real", player=600)
    assert lost.status_code == 201 and lost.json()["balance_after"] == 400
    assert lost.json()["allowed_actions"] == ["deal", "new_game"]
    assert (await state(api, token, mode="real"))["allowed_actions"] == ["deal", "new_game"]


async def test_a_voided_last_round_offers_no_rebet_and_is_not_on_the_felt(api: Api) -> None:
    token = await api.player()
    played = await api.play(token, banker=500)
    dealer = api.casino.dealer
    await api.casino.db.write(
        lambda uow: voids.void_round(uow, dealer, played.json()["id"], "misdeal")
    )
    assert (await state(api, token))["allowed_actions"] == ["deal"]


async def test_a_cut_shoe_table_offers_the_cut_before_any_deal(api: Api) -> None:
    token = await api.player()
    before = await state(api, token, table="mini")
    assert before["allowed_actions"] == ["cut"] and before["shoe"]["cut_due"] is True
    cut = await api.client.post(
        "/api/tables/mini/shoe", json={"mode": "fun", "cut": 100}, headers=api.auth(token, None)
    )
    assert cut.status_code == 200, cut.text
    after = await state(api, token, table="mini")
    assert after["allowed_actions"] == ["deal"] and after["shoe"]["cut_due"] is False
    played = await api.play(token, table="mini", banker=500)
    assert played.json()["allowed_actions"] == ["deal", "rebet", "double", "new_game"]


async def test_a_player_banked_table_has_no_house_state(api: Api) -> None:
    token = await api.player()
    refused = await api.client.get("/api/tables/banked-i/state", headers=api.auth(token, None))
    assert refused.status_code == 409 and error_code(refused) == "player_banked_table"
    stranger = await api.client.get(
        "/api/tables/table-i/state", headers={"Authorization": "Bearer not-a-session"}
    )
    assert error_code(stranger) == "not_authenticated"
