"""Hypothesis: whatever the sequence of operations, the ledger sums to zero and checks out.

Random sequences of registrations, deposits, withdrawals, withdrawal requests and their
decisions, play-money top-ups, rounds (fair shuffles, random bets and tables) and voids run
against a fresh SQLite database each; refusals are allowed, but afterwards every
transaction balances, every cached balance equals its entries, nothing is negative, and
the money of the casino and the players adds up to zero in each mode.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baccarat.core import Bets
from baccarat.server import accounts, voids, wallet
from baccarat.server import check as audit
from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl
from baccarat.server.tables import TableSet
from baccarat.server.wallets.ledger import LedgerWallet

from ..harness import FakeClock

TABLES = ("table-i", "tie-limits-5-500", "single-deck", "mini")

operation = st.one_of(
    st.tuples(st.just("deposit"), st.integers(0, 2), st.integers(1, 50_000)),
    st.tuples(st.just("withdraw"), st.integers(0, 2), st.integers(1, 50_000)),
    st.tuples(st.just("request"), st.integers(0, 2), st.integers(1, 50_000)),
    st.tuples(st.just("decide"), st.booleans(), st.integers(0, 5)),
    st.tuples(st.just("top_up"), st.integers(0, 2), st.just(0)),
    st.tuples(
        st.just("round"),
        st.integers(0, 2),
        st.tuples(
            st.sampled_from(TABLES),
            st.sampled_from(("fun", "real")),
            st.sampled_from((0, 100, 500, 2_000)),
            st.sampled_from((0, 100, 500, 2_000)),
            st.sampled_from((0, 100, 500)),
        ),
    ),
    st.tuples(st.just("void"), st.integers(0, 30), st.just(0)),
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("template")
    url = DatabaseUrl.sqlite_in(folder)
    migrate.upgrade(url)
    return Path(url.target)


@pytest.fixture(scope="module")
def tables() -> TableSet:
    return load_tables()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations=st.lists(operation, min_size=1, max_size=40))
def test_the_ledger_sums_to_zero_after_any_operations(
    template: Path, tables: TableSet, tmp_path_factory: pytest.TempPathFactory, operations: list
) -> None:
    folder = tmp_path_factory.mktemp("ledger")
    shutil.copy(template, folder / template.name)
    db = Database(DatabaseUrl.sqlite_in(folder), clock=FakeClock())
    try:
        run(db, tables, operations)
        report = db.run_read(audit.check)
        assert report.ok, report.problems
        for mode, kinds in report.totals.items():
            assert sum(kinds.values()) == 0, (mode, kinds)
            assert kinds["player"] >= 0 and kinds["withdrawals"] >= 0
    finally:
        db.close()


def run(db: Database, tables: TableSet, operations: list) -> None:
    system = db.run_read(SystemAccounts.load)
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    players = [
        db.run_write(lambda uow, i=i: accounts.register(uow, f"player{i}", "hash", system)).id  # type: ignore[misc]
        for i in range(3)
    ]
    played: list[str] = []
    for step in operations:
        # Refusals (limits, balance, already decided, ...) move nothing and are allowed.
        with contextlib.suppress(ServiceError):
            apply(db, tables, dealer, system, players, played, step)


def apply(
    db: Database,
    tables: TableSet,
    dealer: rounds.Dealer,
    system: SystemAccounts,
    players: list[int],
    played: list[str],
    step: tuple,
) -> None:
    name, a, b = step
    if name == "deposit":
        db.run_write(lambda uow: wallet.deposit(uow, players[a], b, system))
    elif name == "withdraw":
        db.run_write(lambda uow: wallet.withdraw(uow, players[a], b, system))
    elif name == "request":
        db.run_write(lambda uow: wallet.request_withdrawal(uow, players[a], b, system))
    elif name == "decide":
        pending = db.run_read(lambda uow: wallet.list_requests(uow, status="pending"))
        if pending:
            chosen = pending[b % len(pending)].id
            db.run_write(lambda uow: wallet.decide(uow, chosen, a, system))
    elif name == "top_up":
        db.run_write(lambda uow: wallet.top_up_fun(uow, players[a], system))
    elif name == "round":
        table_id, mode, player, banker, tie = b
        table = tables.require(table_id)
        bets = Bets(player=player, banker=banker, tie=tie)
        if table.is_cut_shoe:
            state = db.run_read(lambda uow: rounds.shoe_state(uow, players[a], table, mode))
            if state.cut_due:
                db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, players[a], table, mode, 7))
        record = db.run_write(
            lambda uow: rounds.play_round(uow, dealer, players[a], table, mode, bets)
        )
        played.append(record.id)
    elif name == "void" and played:
        chosen = played[a % len(played)]
        db.run_write(lambda uow: voids.void_round(uow, dealer, chosen, "property test"))
