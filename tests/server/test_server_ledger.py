"""The ledger and the wallet services on SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from baccarat.server import accounts, ledger, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.ledger import Posting, SystemAccounts
from baccarat.server.money import Money, Move
from baccarat.server.play.check import Report

from .conftest import both_backends


def register(db: Database, system: SystemAccounts, nickname: str = "alice") -> int:
    return db.run_write(lambda uow: accounts.register(uow, nickname, "hash", system)).id


def check(db: Database) -> Report:
    return db.run_read(audit.check)


@both_backends
def test_migration_creates_the_casino_accounts_of_each_mode(db: Database) -> None:
    system = db.run_read(SystemAccounts.load)
    assert sorted(system.ids) == [
        (mode, kind)
        for mode in ("fun", "real")
        for kind in ("cashier", "escrow", "house", "withdrawals")
    ]
    assert check(db).ok


@both_backends
def test_the_casinos_accounts_in_another_currency_are_made_once(db: Database) -> None:
    for _ in range(2):  # a second start (or worker) makes none
        db.run_write(lambda uow: ledger.open_currencies(uow, ["JPY", "USD"]))
    system = db.run_read(SystemAccounts.load)
    assert sorted(system.others) == [
        (mode, kind, "JPY")
        for mode in ("fun", "real")
        for kind in ("cashier", "escrow", "house", "withdrawals")
    ]
    assert system.currencies == {"USD", "JPY"} and len(system.ids) == 8


@both_backends
def test_a_new_player_has_1000_of_play_money_and_no_real_money(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)
    assert db.run_read(lambda uow: wallet.balances(uow, player)) == {"fun": 100_000, "real": 0}
    report = check(db)
    assert report.ok, report.problems
    assert report.totals["fun"] == {"cashier": -100_000, "escrow": 0, "house": 0,
                                    "player": 100_000, "withdrawals": 0}  # fmt: skip


@both_backends
def test_nicknames_are_unique_regardless_of_case(db: Database, system: SystemAccounts) -> None:
    register(db, system, "Alice")
    with pytest.raises(ServiceError) as refused:
        register(db, system, "aLICE")
    assert refused.value.code == "nickname_taken"


@both_backends
def test_an_unbalanced_transaction_is_a_bug_and_writes_nothing(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)

    def unbalanced(uow: UnitOfWork) -> None:
        account, _ = ledger.player_account(uow, player, "fun")
        ledger.post(uow, "bad", "fun", [Posting(account, 5), Posting(account, -4)])

    with pytest.raises(ledger.LedgerError):
        db.run_write(unbalanced)
    assert db.run_read(lambda uow: uow.scalar("SELECT COUNT(*) FROM ledger_transactions")) == 1


@both_backends
def test_a_player_balance_cannot_go_below_zero(db: Database, system: SystemAccounts) -> None:
    player = register(db, system)
    db.run_write(lambda uow: wallet.deposit(uow, player, 2_500, system))
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: wallet.withdraw(uow, player, 2_501, system))
    assert refused.value.code == "insufficient_funds"
    assert refused.value.details == {"balance": 2_500, "amount": 2_501}
    db.run_write(lambda uow: wallet.withdraw(uow, player, 2_500, system))
    assert db.run_read(lambda uow: wallet.balances(uow, player))["real"] == 0
    assert check(db).ok


@both_backends
def test_the_database_itself_refuses_a_negative_player_balance(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)
    with pytest.raises(Exception, match=r"(?i)check"):
        db.run_write(
            lambda uow: uow.run(
                "UPDATE accounts SET balance = -1 WHERE player_id = :p AND mode = 'real'",
                {"p": player},
            )
        )


@both_backends
def test_ledger_entries_cannot_be_changed_or_deleted(db: Database, system: SystemAccounts) -> None:
    register(db, system)
    for statement in ("UPDATE ledger_entries SET amount = 1", "DELETE FROM ledger_transactions"):
        with pytest.raises(Exception, match="append-only"):
            db.run_write(lambda uow, sql=statement: uow.run(sql))  # type: ignore[misc]


@both_backends
def test_fun_top_up_restores_exactly_1000(db: Database, system: SystemAccounts) -> None:
    player = register(db, system)
    assert db.run_write(lambda uow: wallet.top_up_fun(uow, player, system)) == 0

    def lose(uow: UnitOfWork) -> None:
        account, _ = ledger.player_account(uow, player, "fun")
        ledger.transfer(uow, "adjustment", "fun", account, system.get("fun", "house"), 12_345)

    db.run_write(lose)
    assert db.run_write(lambda uow: wallet.top_up_fun(uow, player, system)) == 12_345
    assert db.run_read(lambda uow: wallet.balances(uow, player))["fun"] == 100_000
    assert check(db).ok


@both_backends
def test_a_hundred_simultaneous_top_ups_from_zero_credit_1000_once(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)

    def lose_everything(uow: UnitOfWork) -> None:
        account, balance = ledger.player_account(uow, player, "fun")
        ledger.transfer(uow, "adjustment", "fun", account, system.get("fun", "house"), balance)

    db.run_write(lose_everything)
    start = threading.Barrier(20)

    def top_up(_: int) -> int:
        with contextlib.suppress(threading.BrokenBarrierError):
            start.wait(timeout=5)
        return db.run_write(lambda uow: wallet.top_up_fun(uow, player, system))

    with ThreadPoolExecutor(20) as pool:
        added = list(pool.map(top_up, range(100)))
    assert sorted(added, reverse=True)[:2] == [100_000, 0]
    assert sum(added) == 100_000
    assert db.run_read(lambda uow: wallet.balances(uow, player))["fun"] == 100_000
    assert check(db).ok


@both_backends
def test_a_withdrawal_request_reserves_until_approved_or_rejected(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)
    db.run_write(lambda uow: wallet.deposit(uow, player, 10_000, system))
    first = db.run_write(lambda uow: wallet.request_withdrawal(uow, player, 3_000, system))
    second = db.run_write(lambda uow: wallet.request_withdrawal(uow, player, 5_000, system))
    assert db.run_read(lambda uow: wallet.balances(uow, player))["real"] == 2_000
    with pytest.raises(ServiceError) as refused:
        db.run_write(lambda uow: wallet.request_withdrawal(uow, player, 2_001, system))
    assert refused.value.code == "insufficient_funds"
    assert check(db).ok
    db.run_write(lambda uow: wallet.decide(uow, first.id, True, system))
    db.run_write(lambda uow: wallet.decide(uow, second.id, False, system, "bank details"))
    assert db.run_read(lambda uow: wallet.balances(uow, player))["real"] == 7_000
    with pytest.raises(ServiceError) as twice:
        db.run_write(lambda uow: wallet.decide(uow, first.id, False, system))
    assert twice.value.code == "request_not_pending"
    report = check(db)
    assert report.ok, report.problems
    assert report.totals["real"]["cashier"] == -7_000
    assert report.totals["real"]["withdrawals"] == 0


@both_backends
def test_a_deposit_request_moves_money_only_when_approved(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)
    request = db.run_write(lambda uow: wallet.request_deposit(uow, player, 25_000))
    assert db.run_read(lambda uow: wallet.balances(uow, player))["real"] == 0
    approved = db.run_write(lambda uow: wallet.decide(uow, request.id, True, system))
    assert approved.status == "approved"
    assert db.run_read(lambda uow: wallet.balances(uow, player))["real"] == 25_000
    assert check(db).ok


def test_check_reports_a_cached_balance_that_disagrees_with_the_ledger(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)
    db.run_write(
        lambda uow: uow.run(
            "UPDATE accounts SET balance = balance + 1 WHERE player_id = :p AND mode = 'fun'",
            {"p": player},
        )
    )
    report = check(db)
    assert not report.ok
    assert "cached balance 100001 but its entries sum to 100000" in report.problems[0]


def test_check_reports_an_entry_written_around_the_ledger(
    db: Database, system: SystemAccounts
) -> None:
    player = register(db, system)

    def sneak(uow: UnitOfWork) -> None:
        account, _ = ledger.player_account(uow, player, "fun")
        uow.run(
            "INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES (1, :a, 7)",
            {"a": account},
        )

    db.run_write(sneak)
    problems = check(db).problems
    assert any("does not balance" in p for p in problems)
    assert any("sums to 7, not 0" in p for p in problems)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_posting_on_a_balance_read_ahead_refuses_a_balance_moved_since(db: Database) -> None:
    """PostgreSQL reads a round's balance ahead (``ledger.POSTING``) and posts without
    waiting: if the unit moved the balance in between, the posting fails in the database
    and nothing of the unit stands, rather than record a balance computed from the old one."""
    system = db.run_read(SystemAccounts.load)
    alice = register(db, system)
    cashier = system.get("fun", "cashier")

    def work(uow: UnitOfWork) -> None:
        ledger.POSTING.ahead(uow, (alice, "fun"))
        account, _ = ledger.player_account(uow, alice, "fun")
        ledger.transfer(uow, "adjustment", "fun", cashier, account, 100)
        posted = ledger.post_money(uow, "round", "fun", "r_1", Money((Move(alice, "house", 500),)),
                                   system=system)  # fmt: skip
        assert posted.balances == {alice: 100_000 - 500}  # computed from the balance read ahead
        uow.flush()

    with pytest.raises(psycopg.errors.SerializationFailure), db.transaction() as uow:
        work(uow)
    assert db.run_read(lambda uow: wallet.balances(uow, alice))["fun"] == 100_000
    assert check(db).ok


@both_backends
def test_postings_of_one_unit_each_move_the_balance_the_one_before_left(db: Database) -> None:
    """Several postings of one player in one unit of work (a player-banked deal: the bets
    held, the round settled, the next reserve): on PostgreSQL the second and later go on the
    balance the unit holds locked, without waiting for an answer; a movement of another kind
    in between (a transfer) is taken into account, and a posting the balance no longer
    covers is refused as it would be on its own."""
    system = db.run_read(SystemAccounts.load)
    alice = register(db, system)
    cashier = system.get("fun", "cashier")

    def post(uow: UnitOfWork, reference: str, money: Money) -> dict[int, int]:
        # Their ids not asked for (an escrow's hold): the postings need no id taken ahead.
        return dict(ledger.post_money(uow, "adjustment", "fun", reference, money,
                                      system=system, with_id=False).balances)  # fmt: skip

    def work(uow: UnitOfWork) -> list[dict[int, int]]:
        ledger.POSTING.ahead(uow, (alice, "fun"))
        found = [post(uow, "r_1", Money((Move(alice, "house", 500),))),
                 post(uow, "r_2", Money((Move("house", alice, 200),)))]  # fmt: skip
        account, _ = ledger.player_account(uow, alice, "fun")
        ledger.transfer(uow, "adjustment", "fun", cashier, account, 100)
        found.append(post(uow, "r_3", Money((Move(alice, "house", 50),))))
        return found

    assert db.run_write(work) == [{alice: 99_500}, {alice: 99_700}, {alice: 99_750}]

    def too_much(uow: UnitOfWork) -> None:
        ledger.POSTING.ahead(uow, (alice, "fun"))
        post(uow, "r_4", Money((Move(alice, "house", 99_000),)))
        post(uow, "r_5", Money((Move(alice, "house", 1_000),), covers={alice: 1_000}))

    with pytest.raises(ServiceError) as refused:
        db.run_write(too_much)
    assert refused.value.code == "insufficient_funds"
    assert refused.value.details["balance"] == 750
    assert db.run_read(lambda uow: wallet.balances(uow, alice))["fun"] == 99_750
    assert check(db).ok


@both_backends
def test_the_check_finds_an_escrow_that_holds_what_no_table_kind_has_in_play(
    db: Database, system: SystemAccounts
) -> None:
    """The escrow's balance is the sum of what every table kind holds in it (the seats' bets
    and reserves, the shared coups' stakes): money moved into it by nothing a kind knows of
    is reported, with what each kind holds."""
    escrow, house = system.ids[("fun", "escrow")], system.ids[("fun", "house")]
    db.run_write(lambda uow: ledger.transfer(uow, "adjustment", "fun", house, escrow, 250,
                                             system=system))  # fmt: skip
    report = check(db)
    assert report.problems == ["the fun escrow holds 250 but nothing is in play"]
