"""The one round function: every kind of round through the same steps; the settlement
cache; the wallet port on the ledger, the only writer of its rows."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from baccarat.core import Bets, Card, get_rules, play_coup, settle
from baccarat.server import accounts, ledger, voids
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.history import StoredRound, get_round
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as house
from baccarat.server.ledger import LedgerError, Posting, SystemAccounts
from baccarat.server.money import Money, Move
from baccarat.server.play import round
from baccarat.server.play.round import STEPS, Dealer, Stake, settle_stake
from baccarat.server.settings import DatabaseUrl
from baccarat.server.wallets.ledger import LedgerWallet
from baccarat.server.wallets.operator.shared import CoupWallet

from .banked import serving
from .conftest import both_backends

SERVER = Path(round.__file__).parents[1]


def test_a_pair_bet_is_settled_by_the_cards_where_the_winner_alone_would_collide() -> None:
    rules = get_rules("online-8deck-tie8")
    bets = Bets(banker=1000, player_pair=500)
    # Both: the banker wins with a natural 9; only the first has a player pair.
    paired = play_coup(Card.parse_many("Kh 9s Kd Kc"))
    unpaired = play_coup(Card.parse_many("Kh 9s Qd Kc"))
    assert paired.winner == unpaired.winner
    stake = Stake(7, bets)
    for coup in (paired, unpaired, paired):
        settled = settle_stake(rules, stake, coup)
        expected = settle(rules, bets, coup)
        assert json.loads(settled.bets_json) == expected.to_json()
        assert (settled.player_id, settled.stake) == (7, 1_500)
        assert settled.returned == expected.returned
    assert (
        json.loads(settle_stake(rules, stake, paired).bets_json)["player_pair"]["returned"] == 6000
    )
    assert (
        json.loads(settle_stake(rules, stake, unpaired).bets_json)["player_pair"]["returned"] == 0
    )


def test_only_the_ledger_writes_ledger_rows_and_cached_balances() -> None:
    writes = re.compile(r"INSERT INTO ledger_|UPDATE accounts SET balance", re.IGNORECASE)
    offenders = [
        str(path.relative_to(SERVER))
        for path in SERVER.rglob("*.py")
        if path.relative_to(SERVER) != Path("ledger.py") and writes.search(path.read_text("utf-8"))
    ]
    assert offenders == []


def _player_account(db: Database, system: SystemAccounts) -> int:
    player = db.run_write(lambda uow: accounts.register(uow, "alice", "hash", system)).id
    return db.run_read(lambda uow: ledger.player_account(uow, player, "fun"))[0]


@both_backends
def test_a_posting_the_balance_does_not_cover_writes_nothing(
    db: Database, system: SystemAccounts
) -> None:
    account = _player_account(db, system)
    player = db.run_read(lambda uow: uow.scalar("SELECT player_id FROM accounts WHERE id = :a",
                                                {"a": account}))  # fmt: skip
    wallet = LedgerWallet(system)
    count = "SELECT COUNT(*) FROM ledger_transactions"
    before = db.run_read(lambda uow: uow.scalar(count))
    # The stake must be covered before anything returns, however much would come back.
    too_much = Money((Move(player, "house", 100_001), Move("house", player, 200_000)),
                     {player: 100_001})  # fmt: skip
    with pytest.raises(ServiceError) as short:
        db.run_write(lambda uow: wallet.settle(uow, "round", "fun", "r_x", too_much))
    assert short.value.code == "insufficient_funds"
    assert short.value.details == {"stake": 100_001, "balance": 100_000, "currency": "USD"}
    refused: dict[str, tuple[str, Money]] = {
        "nothing moves": ("round", Money((Move(player, "house", 0),))),
        "not a round's kind": ("deposit", Money((Move(player, "house", 5),))),
        "a cached casino account": ("round", Money((Move(player, "withdrawals", 5),))),
    }
    for kind, money in refused.values():
        with pytest.raises(LedgerError):
            db.run_write(
                lambda uow, k=kind, m=money: wallet.settle(uow, k, "fun", "r_x", m)  # type: ignore[misc]
            )
    with pytest.raises(LedgerError):  # a round's transaction goes through post_money only
        db.run_write(
            lambda uow: ledger.post(
                uow, "round", "fun", [Posting(account, -5), Posting(system.get("fun", "house"), 5)]
            )
        )
    assert db.run_read(lambda uow: uow.scalar(count)) == before
    assert db.run_read(lambda uow: wallet.balance(uow, player, "fun")) == 100_000

    lose = Money((Move(player, "house", 500), Move("house", player, 0)), {player: 500})
    posted = db.run_write(lambda uow: wallet.settle(uow, "round", "fun", "r_y", lose))
    assert posted.balances == {player: 100_000 - 500}
    rows = db.run_read(
        lambda uow: uow.all(
            "SELECT account_id, amount FROM ledger_entries WHERE transaction_id = :t "
            "ORDER BY amount",
            {"t": posted.transaction_id},
        )
    )
    assert [tuple(r) for r in rows] == [(account, -500), (system.get("fun", "house"), 500)]


@pytest.mark.anyio
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_house_and_player_banked_rounds_and_their_voids_pass_the_same_steps_in_order(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    async with serving(database_url, tmp_path) as server:
        seen: list[tuple[str, str]] = []
        server.casino.dealer.observe = lambda course, step: seen.append((course, step))
        alice, banker, player = [await server.player() for _ in range(3)]
        house = await alice.call("POST", "/api/tables/table-i/rounds",
                                 {"mode": "fun", "bets": {"banker": 500}},
                                 **{"Idempotency-Key": "house-1"})  # fmt: skip
        assert house.status_code == 201, house.text
        seat = await banker.sit("banked-i", "banker", auto_approve=True)
        await player.sit("banked-i", "player")
        dealt = await player.deal_rest(seat, player=500)
        assert dealt.status_code == 201, dealt.text
        # A refused round passes no step after the one that refused it: nothing was moved.
        broke = await server.player()
        refused = await broke.call("POST", "/api/tables/table-i/rounds",
                                   {"mode": "real", "bets": {"banker": 500}},
                                   **{"Idempotency-Key": "broke-1"})  # fmt: skip
        assert refused.json()["error"]["code"] == "insufficient_funds"
        dealer = server.casino.dealer
        for round_id in (house.json()["id"], dealt.json()["id"]):

            def void(uow: UnitOfWork, r: str = round_id) -> StoredRound:
                return voids.void_round(uow, dealer, r, "test")

            await server.write(void)
        await server.check()
    steps = list(STEPS)
    upto_money = steps[: steps.index("money") + 1]
    assert seen == [
        *(("play", s) for s in steps),  # the house round
        *(("play", s) for s in steps),  # the player-banked round
        *(("play", s) for s in upto_money),  # refused when the money moves
        *(("void", s) for s in steps),  # the house round's void
        *(("void", s) for s in steps),  # the player-banked round's void
    ]


def test_round_ids_are_in_the_order_of_time_and_unlike_within_a_millisecond() -> None:
    """``r_`` and 20 hex digits (as the CLI reads them), ordered by the millisecond."""
    now = 1_796_144_575_783_464
    ids = [round.new_round_id(now + 1000 * ms) for ms in range(50) for _ in range(20)]
    assert all(re.fullmatch(r"r_[0-9a-f]{20}", i) for i in ids)
    by_ms = [ids[i : i + 20] for i in range(0, len(ids), 20)]
    assert all(max(a) < min(b) for a, b in itertools.pairwise(by_ms))
    assert len(set(ids)) == len(ids)


@both_backends
def test_a_void_on_a_wallet_that_does_not_roll_rounds_back_is_refused_before_any_step(
    db: Database, system: SystemAccounts
) -> None:
    """The round function asks the wallet (``money.Reversing``); an operator's answers None
    (the operator settles its rounds), and the void is refused with nothing done."""
    account = _player_account(db, system)
    player = db.run_read(lambda uow: uow.scalar("SELECT player_id FROM accounts WHERE id = :a",
                                                {"a": account}))  # fmt: skip
    table = load_tables().require("table-i")
    ours = Dealer(FairShoes(), LedgerWallet(system))
    played = db.run_write(
        lambda uow: house.play_round(uow, ours, player, table, "fun", Bets(banker=500))
    )
    seen: list[tuple[str, str]] = []
    elsewhere = Dealer(FairShoes(), CoupWallet(), lambda course, step: seen.append((course, step)))
    assert elsewhere.wallet.reversing is None and ours.wallet.reversing is not None

    def void(uow: UnitOfWork) -> StoredRound:
        recorded = get_round(uow, None, played.id)
        return round.void(uow, elsewhere, house.HOUSE, recorded, player, "a test")

    with pytest.raises(ServiceError) as refused:
        db.run_write(void)
    assert refused.value.code == "void_not_possible" and seen == []
    assert db.run_read(lambda uow: get_round(uow, None, played.id)).void_reason is None
