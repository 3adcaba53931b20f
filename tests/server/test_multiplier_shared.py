"""Multiplier baccarat at the shared table, through the API: the fee held with the stake at
placement, the multiplier cards drawn at the close from the shoe's seeds (one draw a coup,
at its position in the shoe) and shown with the coup, every bettor settled with them, the
money exact; a void gives everything back, fees included."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.server import check as audit
from baccarat.server import voids
from baccarat.server.dealing import fair_lightning

from ..harness import Api
from .sharedtables import close_and_deal, open_window, put_bets, state
from .support import BANKER_WINS, StackedLightning, StackedShoes

pytestmark = pytest.mark.anyio
TABLE = "lightning-live"
START = 100_000  # a new player's play money


async def fun(api: Api, token: str) -> int:
    answer = await api.client.get("/api/wallet", headers=api.auth(token, None))
    value: int = answer.json()["fun"]
    return value


def ledger_ok(api: Api) -> None:
    report = api.casino.db.run_read(audit.check)
    assert report.ok, report.problems


async def test_a_shared_coup_takes_the_fee_at_placement_and_pays_with_its_multipliers(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # banker 9s Kc, a natural 9
    drawn = api.lightning.current = StackedLightning("9s:5 Kh:2")
    alice, bob = await api.player(), await api.player("bob")
    coup = await open_window(api, TABLE)
    placed = await put_bets(api, alice, coup, {"banker": 1000}, table=TABLE)
    assert placed.status_code == 200, placed.text
    assert (placed.json()["stake"], placed.json()["fee"]) == (1000, 200)
    assert await fun(api, alice) == START - 1200  # the fee goes with the stake
    # Replaced during the window: the difference, fee included, moves at once.
    assert (await put_bets(api, bob, coup, {"player": 1000}, table=TABLE)).status_code == 200
    assert (await put_bets(api, bob, coup, {"player": 500}, table=TABLE)).status_code == 200
    assert await fun(api, bob) == START - 600
    assert not drawn.calls  # nothing is drawn before the close
    position = (await state(api, table=TABLE))["shoe"]
    ledger_ok(api)

    await close_and_deal(api, TABLE)
    # One draw for the coup, from the shoe's seeds at the coup's position (not the nonce).
    ((_, client_seed, nonce, at),) = drawn.calls
    assert client_seed == position["client_seed"] and nonce == 0
    now = await state(api, alice, table=TABLE)
    assert now["result"]["lightning"] == [{"card": "9s", "multiplier": 5},
                                          {"card": "Kh", "multiplier": 2}]  # fmt: skip
    assert now["result"]["position"] == at
    won = 1000 + 1000 * 19 * 5 // 20  # banker 19:20 x 5
    assert now["you"] | {"round_id": None} == {
        "bets": {"banker": 1000}, "stake": 1000, "fee": 200, "round_id": None, "returned": won,
    }  # fmt: skip
    assert await fun(api, alice) == START - 1200 + won
    assert await fun(api, bob) == START - 600  # the player's Kh (2x) lost with its hand
    history = (await api.client.get("/api/history", headers=api.auth(alice, None))).json()
    (played,) = history["items"]
    assert played["lightning"] == now["result"]["lightning"] and played["fee"] == 200
    assert played["bets"]["banker"]["multiplier"] == 5
    coup_view = (await api.client.get(f"/api/tables/{TABLE}/coups/{coup}")).json()
    assert coup_view["result"]["lightning"] == now["result"]["lightning"]
    ledger_ok(api)

    # A void of the coup gives back every stake and every fee.
    dealer = api.casino.dealer
    api.casino.db.run_write(lambda uow: voids.void_coup(uow, dealer, coup, "a fault"))
    assert [await fun(api, token) for token in (alice, bob)] == [START, START]
    ledger_ok(api)


async def test_the_next_coup_of_the_shoe_draws_its_own_multiplier_cards(api: Api) -> None:
    calls: list[Any] = []

    def recorded(*args: Any) -> Any:
        calls.append(args)
        return fair_lightning(*args)

    api.lightning.current = recorded
    token = await api.player()
    results = []
    for _ in range(2):
        coup = await open_window(api, TABLE)
        assert (await put_bets(api, token, coup, {"player": 500}, table=TABLE)).status_code == 200
        await close_and_deal(api, TABLE)
        results.append((await state(api, table=TABLE))["result"])
    positions = [args[4] for args in calls]
    assert positions == [r["position"] for r in results] and positions[0] != positions[1]
    # The fair draw: from 1 to 5 distinct cards, each with a published multiplier.
    for result in results:
        cards = [one["card"] for one in result["lightning"]]
        assert 1 <= len(cards) <= 5 and len(set(cards)) == len(cards)
        assert {one["multiplier"] for one in result["lightning"]} <= {2, 3, 4, 5, 8}
    ledger_ok(api)
