"""The round pipeline: the settlement cache, and the ledger as the only writer of its rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from baccarat.core import Bets, Card, get_rules, play_coup, settle
from baccarat.server import accounts, ledger, pipeline
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.ledger import LedgerError, Posting, SystemAccounts

from .conftest import both_backends

SERVER = Path(pipeline.__file__).parent


def test_a_pair_bet_is_settled_by_the_cards_where_the_winner_alone_would_collide() -> None:
    rules = get_rules("online-8deck-tie8")
    bets = Bets(banker=1000, player_pair=500)
    # Both: the banker wins with a natural 9; only the first has a player pair.
    paired = play_coup(Card.parse_many("Kh 9s Kd Kc"))
    unpaired = play_coup(Card.parse_many("Kh 9s Qd Kc"))
    assert paired.winner == unpaired.winner
    for coup in (paired, unpaired, paired):
        text, returned = pipeline.settled(rules, bets, coup)
        expected = settle(rules, bets, coup)
        assert json.loads(text) == expected.to_json()
        assert returned == expected.returned
    assert json.loads(pipeline.settled(rules, bets, paired)[0])["player_pair"]["returned"] == 6000
    assert json.loads(pipeline.settled(rules, bets, unpaired)[0])["player_pair"]["returned"] == 0


def test_only_the_ledger_writes_ledger_rows_and_cached_balances() -> None:
    writes = re.compile(r"INSERT INTO ledger_|UPDATE accounts SET balance", re.IGNORECASE)
    offenders = [
        str(path.relative_to(SERVER))
        for path in SERVER.rglob("*.py")
        if path.name != "ledger.py" and writes.search(path.read_text("utf-8"))
    ]
    assert offenders == []


def _player_account(db: Database, system: SystemAccounts) -> int:
    player = db.run_write(lambda uow: accounts.register(uow, "alice", "hash", system)).id
    return db.run_read(lambda uow: ledger.player_account(uow, player, "fun"))[0]


@both_backends
def test_post_round_has_the_checks_of_post_and_writes_nothing_it_refuses(
    db: Database, system: SystemAccounts
) -> None:
    account = _player_account(db, system)
    house = system.get("fun", "house")
    count = "SELECT COUNT(*) FROM ledger_transactions"
    before = db.run_read(lambda uow: uow.scalar(count))
    refused = {
        "unbalanced": [Posting(account, -500), Posting(house, 499)],
        "zero entry": [Posting(account, -500), Posting(house, 500), Posting(house, 0)],
        "one entry": [Posting(account, 0)],
    }
    for postings in refused.values():
        with pytest.raises(LedgerError):
            db.run_write(
                lambda uow, p=postings: ledger.post_round(  # type: ignore[misc]
                    uow, "round", "fun", "r_x", p, system=system
                )
            )
    with pytest.raises(LedgerError):  # a round's transaction goes through post_round only
        db.run_write(lambda uow: ledger.post(uow, "round", "fun", refused["unbalanced"]))
    with pytest.raises(LedgerError):  # and post_round posts nothing but a round's
        db.run_write(
            lambda uow: ledger.post_round(
                uow, "deposit", "fun", "r_x", ledger.moves((account, house, 5)), system=system
            )
        )
    assert db.run_read(lambda uow: uow.scalar(count)) == before

    def lose(uow: UnitOfWork) -> int:
        postings = ledger.moves((account, house, 500), (house, account, 0))
        return ledger.post_round(uow, "round", "fun", "r_y", postings, system=system)

    tx = db.run_write(lose)
    rows = db.run_read(
        lambda uow: uow.all(
            "SELECT account_id, amount FROM ledger_entries WHERE transaction_id = :t "
            "ORDER BY amount",
            {"t": tx},
        )
    )
    assert [tuple(r) for r in rows] == [(account, -500), (house, 500)]
    balance = "SELECT balance FROM accounts WHERE id = :a"
    assert db.run_read(lambda uow: uow.scalar(balance, {"a": account})) == 100_000 - 500
