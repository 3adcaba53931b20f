"""A shared coup is dealt once: its cards are dealt one time, stored with the coup, and every
batch of its bettors (fun money, real money, an operator's wallet) settles on them."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from baccarat import core
from baccarat.core import Bets, Shoe
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.wallets.operator import outbox
from baccarat.server.wallets.operator import shared as operator_coups
from baccarat.server.wallets.operator.outbox import Answer

from .conftest import Api, both_backends
from .sharedtables import TABLE, close_and_deal, open_window, put_bets
from .support import funded, operator_session

pytestmark = pytest.mark.anyio


async def operator_bettor(api: Api, coup: int, bets: Bets) -> str:
    """An operator's player whose bets on the coup its wallet applied (``placed``): their
    round on the operator's wallet."""
    casino = api.casino
    session, table = await operator_session(api, "USD"), casino.tables[TABLE]

    def place(uow: UnitOfWork) -> tuple[dict[str, Any], list[outbox.Call]]:
        return operator_coups.place(uow, session, table, session.player_id, 5.0,
                                    shoes=casino.shoes, coup_id=coup,
                                    bets=bets)  # fmt: skip

    answer, (call,) = await casino.db.write(place)
    state, _ = await casino.db.write(lambda uow: outbox.answered(uow, call, Answer("RS_OK"), 1))
    assert state == outbox.PLACED
    round_id: str = answer["operator_round"]
    return round_id


def count_deals(monkeypatch: pytest.MonkeyPatch) -> list[Shoe]:
    """Every call of core's ``deal_coup`` by the server from now on (wherever imported)."""
    calls: list[Shoe] = []
    dealt = core.deal_coup

    def counting(shoe: Shoe) -> core.Coup:
        calls.append(shoe)
        return dealt(shoe)

    for name, module in list(sys.modules.items()):
        if name.startswith("baccarat.server") and getattr(module, "deal_coup", None) is dealt:
            monkeypatch.setattr(module, "deal_coup", counting)
    return calls


@both_backends
async def test_a_coup_of_three_batches_is_dealt_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    fun, real = await api.player("anna"), await funded(api, "bert")
    coup = await open_window(api)
    for token, mode in ((fun, "fun"), (real, "real")):
        placed = await put_bets(api, token, coup, {"banker": 1000}, mode=mode)
        assert placed.status_code == 200, placed.text
    elsewhere = await operator_bettor(api, coup, Bets(player=500))
    deals = count_deals(monkeypatch)
    await close_and_deal(api)
    assert len(deals) == 1  # the table's one deal, for the fun, real and operator's batches

    def rounds(uow: UnitOfWork) -> list[tuple[Any, ...]]:
        return uow.all(
            "SELECT b.mode, b.operator_round IS NOT NULL, r.player_cards, r.banker_cards, "
            "c.player_cards, c.banker_cards FROM shared_bets b JOIN rounds r "
            "ON r.id = b.round_id JOIN shared_coups c ON c.id = b.coup_id "
            "WHERE b.coup_id = :c ORDER BY b.mode, b.player_id",
            {"c": coup},
        )

    found = await api.casino.db.read(rounds)
    assert [(mode, theirs) for mode, theirs, *_ in found] == [
        ("fun", False), ("real", False), ("real", True)]  # fmt: skip
    assert all((pc, bc) == (cpc, cbc) for *_, pc, bc, cpc, cbc in found)
    settled = await api.casino.db.read(lambda uow: outbox.state_of(uow, elsewhere))
    assert settled[0] == "win"  # the operator's round was settled on the same cards
