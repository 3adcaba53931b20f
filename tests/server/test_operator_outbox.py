"""The round on an operator's wallet as a state machine, in-process on SQLite and
PostgreSQL: every call written before it is sent, answers move the state, retries wait,
and a stopped process's rounds are taken over by exactly one other."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.ledger import SystemAccounts
from baccarat.server.play.round import Dealer
from baccarat.server.wallets.ledger import LedgerWallet
from baccarat.server.wallets.operator import outbox
from baccarat.server.wallets.operator.outbox import Call

from ..harness import FakeClock
from .conftest import both_backends
from .support import OPERATOR_TIMEOUT_S, operator_answer, operator_player, operator_round

TABLES = load_tables()
TABLE = TABLES["table-i"]
TIMEOUT_S = OPERATOR_TIMEOUT_S


def calls_of(db: Database, round_id: str | None) -> list[tuple[str, str | None]]:
    return [
        (str(row[0]), row[1])
        for row in db.run_read(lambda uow: uow.all(
            "SELECT call, status FROM operator_calls WHERE round_id = :r ORDER BY id",
            {"r": round_id}))
    ]  # fmt: skip


@both_backends
def test_a_bet_answered_ok_sends_its_win_until_it_lands(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    bet = operator_round(db, operator_player(db, system))
    assert (bet.call, bet.body["amount"], bet.body["bets"]) == ("bet", 1000, {"banker": 1000})
    assert calls_of(db, bet.round_id) == [("bet", None)]  # written before it is sent
    state, win = operator_answer(db, bet, "RS_OK")
    assert state == "win" and win is not None and win.call == "win"
    assert win.body["reference_transaction_uuid"] == bet.body["transaction_uuid"]
    assert operator_answer(db, win, "RS_ERROR_UNKNOWN") == ("win", None)  # retried later, not now
    assert db.run_write(lambda uow: outbox.claim_due(uow, 10, 5)) == []
    clock.advance(TIMEOUT_S)
    (again,) = db.run_write(lambda uow: outbox.claim_due(uow, 10, 5))
    assert (again.call, again.body["transaction_uuid"]) == ("win", win.body["transaction_uuid"])
    assert again.body["request_uuid"] != win.body["request_uuid"]
    assert operator_answer(db, again, "RS_OK") == ("settled", None)
    assert [c for c, _ in calls_of(db, bet.round_id)] == ["bet", "win", "win"]
    assert db.run_read(audit.check).ok


@both_backends
def test_an_unanswered_bet_is_rolled_back_and_a_refused_one_is_final(
    db: Database, system: SystemAccounts
) -> None:
    s = operator_player(db, system)
    bet = operator_round(db, s)
    state, rollback = operator_answer(db, bet, "RS_ERROR_UNKNOWN", None)
    assert state == "rollback" and rollback is not None and rollback.call == "rollback"
    assert operator_answer(db, rollback, "RS_ERROR_TRANSACTION_DOES_NOT_EXIST") == (
        "rolled_back",
        None,
    )
    refused = operator_round(db, s)
    assert operator_answer(db, refused, "RS_ERROR_NOT_ENOUGH_MONEY") == ("refused", None)
    assert db.run_read(lambda uow: outbox.state_of(uow, refused.round_id or "")) == (
        "refused", "RS_ERROR_NOT_ENOUGH_MONEY",
    )  # fmt: skip
    assert db.run_read(audit.check).ok


@both_backends
def test_a_stopped_processs_rounds_are_taken_over_by_exactly_one_other(
    db: Database, system: SystemAccounts, clock: FakeClock
) -> None:
    s = operator_player(db, system)
    bets = [operator_round(db, s) for _ in range(12)]
    assert db.run_write(lambda uow: outbox.claim_due(uow, 50, 5)) == []  # still leased
    clock.advance(outbox.lease_for(TIMEOUT_S))

    def claim(_: int) -> list[Call]:
        return db.run_write(lambda uow: outbox.claim_due(uow, 50, 5))

    with ThreadPoolExecutor(4) as pool:
        taken = [call for calls in pool.map(claim, range(4)) for call in calls]
    # Nobody knows whether the bets were applied: each is rolled back, by one process.
    assert sorted(c.round_id or "" for c in taken) == sorted(b.round_id or "" for b in bets)
    assert {c.call for c in taken} == {"rollback"}
    for call in taken:
        assert operator_answer(db, call, "RS_OK") == ("rolled_back", None)
    assert db.run_read(audit.check).ok


def test_a_rolled_back_or_refused_round_is_not_in_the_players_history(
    db: Database, system: SystemAccounts
) -> None:
    from baccarat.server import history, roads

    s = operator_player(db, system)
    shown, pending, refused = (operator_round(db, s) for _ in range(3))
    operator_answer(db, shown, "RS_OK")
    operator_answer(db, refused, "RS_ERROR_USER_DISABLED")
    found, _ = db.run_read(lambda uow: history.page(uow, s.player_id, "real", 10, None))
    assert [r.id for r in found] == [shown.round_id]
    assert pending.round_id not in [r.id for r in found]
    # Nor are its cards in the roads of the table.
    seen = db.run_read(lambda uow: roads.results(uow, s.player_id, TABLE, "real"))
    assert len(seen) == 1


@both_backends
def test_a_refused_or_rolled_back_round_leaves_the_daily_reports_as_if_never_played(
    db: Database, system: SystemAccounts
) -> None:
    def totals(uow: UnitOfWork) -> tuple[int, int, int, int]:
        row = uow.one(
            "SELECT COALESCE(SUM(rounds), 0), COALESCE(SUM(stake), 0), "
            "COALESCE(SUM(returned), 0), COALESCE(SUM(voided), 0) FROM daily_stats "
            "WHERE bet = '*' AND mode = 'real'"
        )
        assert row is not None
        return (int(row[0]), int(row[1]), int(row[2]), int(row[3]))

    s = operator_player(db, system)
    shown, refused, unanswered = (operator_round(db, s) for _ in range(3))
    assert db.run_read(totals)[:2] == (3, 3000)  # counted when recorded, like every round
    operator_answer(db, shown, "RS_OK")
    operator_answer(db, refused, "RS_ERROR_NOT_ENOUGH_MONEY")
    _, rollback = operator_answer(db, unanswered, "RS_ERROR_UNKNOWN", None)
    assert rollback is not None
    operator_answer(db, rollback, "RS_OK")
    # Only the round whose bet the operator applied counts, and nothing counts as a void.
    played = db.run_read(lambda uow: uow.scalar(
        "SELECT win FROM rounds WHERE id = :r", {"r": shown.round_id}))  # fmt: skip
    assert db.run_read(totals) == (1, 1000, int(played), 0)


@pytest.mark.parametrize("attempts", [1, 2, 3, 10])
def test_retries_wait_longer_each_time_up_to_the_cap(attempts: int) -> None:
    waited = outbox.backoff_us(0.5, attempts, cap_s=2.0)
    assert waited == min(0.5 * 2 ** (attempts - 1), 2.0) * 1_000_000


def test_a_round_on_an_operators_wallet_is_not_voided_on_ours(
    db: Database, system: SystemAccounts
) -> None:
    from baccarat.server import voids

    bet = operator_round(db, operator_player(db, system))
    operator_answer(db, bet, "RS_OK")
    dealer = Dealer(FairShoes(), LedgerWallet(system))
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: voids.void_round(uow, dealer, bet.round_id or "", "a test"))
    assert refused.value.code == "void_not_possible"
    assert db.run_read(audit.check).ok
