"""The database runner's writers: several units of work share a commit (group commit), and
each one's outcome is still its own, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from baccarat.core import Bets
from baccarat.server import accounts, ledger, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as house
from baccarat.server.ledger import SystemAccounts
from baccarat.server.play.round import Dealer
from baccarat.server.settings import DatabaseUrl
from baccarat.server.wallets.ledger import LedgerWallet

from ..harness import FakeClock, until_async
from .conftest import BACKENDS

pytestmark = pytest.mark.anyio


def _register(db: Database, system: SystemAccounts, nickname: str) -> int:
    return db.run_write(lambda uow: accounts.register(uow, nickname, "hash", system)).id


def _fun(db: Database, player: int) -> int:
    return db.run_read(lambda uow: wallet.balances(uow, player))["fun"]


def _house_rounds(system: SystemAccounts) -> Callable[[int], Any]:
    """A player's house round (5.00 on Player at table I) as a unit of work."""
    dealer, table = Dealer(FairShoes(), LedgerWallet(system)), load_tables().require("table-i")
    return lambda player: (
        lambda uow: house.play_round(uow, dealer, player, table, "fun", Bets(player=500))
    )


def _pay(system: SystemAccounts, player: int, cents: int, refuse: bool) -> Any:
    """A unit of work that moves money to the player, then is refused (or not)."""

    def work(uow: UnitOfWork) -> int:
        account, _ = ledger.player_account(uow, player, "fun")
        ledger.transfer(uow, "adjustment", "fun", system.get("fun", "cashier"), account, cents)
        if refuse:
            raise ServiceError("invalid_amount", "refused after moving money")
        return cents

    return work


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_refused_unit_of_work_in_a_batch_undoes_only_itself(
    database_url: DatabaseUrl, clock: FakeClock
) -> None:
    db = Database(database_url, clock=clock, threads=2, max_batch=16)
    system = db.run_read(SystemAccounts.load)
    players = [_register(db, system, f"batch{i}") for i in range(3)]
    db.start()
    try:
        jobs = [
            db.write(_pay(system, players[i % 3], 1 + i, refuse=i % 4 == 1), key=f"k{i % 2}")
            for i in range(40)
        ]
        outcomes = await asyncio.gather(*jobs, return_exceptions=True)
        for i, outcome in enumerate(outcomes):
            if i % 4 == 1:
                assert isinstance(outcome, ServiceError) and outcome.code == "invalid_amount"
            else:
                assert outcome == 1 + i
        for n, player in enumerate(players):
            paid = sum(1 + i for i in range(n, 40, 3) if i % 4 != 1)
            assert _fun(db, player) == 100_000 + paid
        count = db.run_read(
            lambda uow: uow.scalar(
                "SELECT COUNT(*) FROM ledger_transactions WHERE kind = 'adjustment'"
            )
        )
        assert count == 30
    finally:
        db.close()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_round_on_a_nonce_taken_elsewhere_is_played_again_whole_in_its_batch(
    database_url: DatabaseUrl, clock: FakeClock
) -> None:
    """A worker keeps each player's next nonce (PostgreSQL): a nonce another process took
    meanwhile fails the round's update of it, and the round is tried again, whole, even in
    a batch where the next unit's savepoint went to the server with its writes. No nonce
    is dealt twice."""
    db = Database(database_url, clock=clock, threads=1, max_batch=16)
    system = db.run_read(SystemAccounts.load)
    alice, bob = (_register(db, system, name) for name in ("alice", "bob"))
    round_of = _house_rounds(system)
    db.start()
    try:
        assert (await db.write(round_of(alice), key="k")).nonce == 0  # its next nonce kept
        db.run_write(lambda uow: uow.run(
            "UPDATE fairness_states SET next_nonce = next_nonce + 1 "
            "WHERE player_id = :p AND mode = 'fun'", {"p": alice},
        ))  # fmt: skip
        played = await asyncio.gather(*(db.write(round_of(p), key="k")
                                        for p in (alice, bob, alice, bob)))  # fmt: skip
        assert sorted(r.nonce for r in played[::2]) == [2, 3]
        assert sorted(r.nonce for r in played[1::2]) == [0, 1]
        dealt = db.run_read(lambda uow: uow.all(
            "SELECT player_id, nonce FROM rounds ORDER BY player_id, nonce"
        ))  # fmt: skip
        assert dealt == [(alice, 0), (alice, 2), (alice, 3), (bob, 0), (bob, 1)]
        report = db.run_read(audit.check)
        assert report.ok, report.problems
    finally:
        db.close()


async def _queued(db: Database, works: list[Any]) -> list[asyncio.Task[Any]]:
    """``works`` queued to one writer while it is busy, so that they make one batch: their
    jobs, the writer free again."""
    busy, free = threading.Event(), threading.Event()

    def block(uow: UnitOfWork) -> None:
        busy.set()
        free.wait(10)

    first = asyncio.ensure_future(db.write(block, key="b"))
    await until_async(busy.is_set, "the writer is busy", every=0.01)
    jobs = [asyncio.ensure_future(db.write(work, key="b")) for work in works]
    await asyncio.sleep(0.05)
    free.set()
    await first
    return jobs


async def _one_batch(db: Database, works: list[Any]) -> list[Any]:
    """Run ``works`` as one batch of a writer: their outcomes."""
    return await asyncio.gather(*await _queued(db, works), return_exceptions=True)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_units_of_work_that_meet_another_workers_row_lock_run_once_it_is_free(
    database_url: DatabaseUrl, clock: FakeClock
) -> None:
    """Worker A holds a player's account row; worker B's batch pays that player between two
    others. Nothing waits in a cycle, and every payment lands exactly once."""
    other = Database(database_url, clock=clock)
    db = Database(database_url, clock=clock, threads=1, max_batch=16)
    system = db.run_read(SystemAccounts.load)
    players = [_register(db, system, f"lock{i}") for i in range(3)]
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        def work(uow: UnitOfWork) -> None:
            ledger.player_account(uow, players[1], "fun", lock=True)
            held.set()
            release.wait(10)

        other.run_write(work)

    holder = threading.Thread(target=hold)
    holder.start()
    db.start()
    try:
        assert held.wait(10)
        # One batch, the held player second.
        jobs = await _queued(db, [_pay(system, players[i % 3], 100, False) for i in range(9)])
        await until_async(lambda: sum(job.done() for job in jobs) == 6, "six payments done")
        # The payments to the two free players are committed while the third's wait.
        assert [job.done() for job in jobs] == [True, False, True] * 3
        release.set()
        assert await asyncio.gather(*jobs) == [100] * 9
        assert [_fun(db, p) for p in players] == [100_300] * 3
    finally:
        release.set()
        holder.join()
        db.close()
        other.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_batch_of_units_that_read_once_takes_a_round_trip_each_and_one_more(
    database_url: DatabaseUrl, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each unit's writes go to the server with the next unit's reads, and the last one's
    with the counters and the commit: n units that read once take n + 1 round trips."""
    from baccarat.server.db import pgwire

    trips: list[int] = []
    exchange = pgwire.Wire.exchange

    def counted(self: Any, statements: Any, begin: bool) -> Any:
        trips.append(len(statements))
        return exchange(self, statements, begin)

    db = Database(database_url, clock=clock, threads=1, max_batch=16)
    system = db.run_read(SystemAccounts.load)
    players = [_register(db, system, f"trip{i}") for i in range(3)]
    round_of = _house_rounds(system)
    db.start()
    try:
        for player in players:  # each one's nonce kept, the statements prepared
            await db.write(round_of(player), key="b")
        monkeypatch.setattr(pgwire.Wire, "exchange", counted)
        played = await _one_batch(db, [round_of(players[i % 3]) for i in range(8)])
        assert sorted(r.nonce for r in played) == [1, 1, 1, 2, 2, 2, 3, 3]
        assert len(trips) == 1 + 8 + 1, trips  # the blocker's commit, one per unit, the last
        assert db.run_read(audit.check).ok
    finally:
        db.close()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_unit_whose_last_writes_fail_in_its_batch_is_undone_alone(
    database_url: DatabaseUrl, clock: FakeClock
) -> None:
    """A unit's last statements go to the server with the next unit's first round trip (and
    the last unit's with the commit): when they fail, that unit alone is rolled back and
    gets its error, and the next one's statements go again."""
    import psycopg

    db = Database(database_url, clock=clock, threads=1, max_batch=16)
    system = db.run_read(SystemAccounts.load)
    players = [_register(db, system, f"last{i}") for i in range(3)]

    def pay(i: int) -> Any:
        paying = _pay(system, players[i % 3], 1 + i, False)

        def work(uow: UnitOfWork) -> int:
            paid: int = paying(uow)
            if i in (2, 5, 7):  # the middle, the one before the last, the last
                uow.send("SELECT CAST(:x AS INTEGER)", {"x": "not a number"})
            return paid

        return work

    db.start()
    try:
        outcomes = await _one_batch(db, [pay(i) for i in range(8)])
        for i, outcome in enumerate(outcomes):
            if i in (2, 5, 7):
                assert isinstance(outcome, psycopg.errors.InvalidTextRepresentation), outcome
            else:
                assert outcome == 1 + i
        for n, player in enumerate(players):
            paid = sum(1 + i for i in range(n, 8, 3) if i not in (2, 5, 7))
            assert _fun(db, player) == 100_000 + paid
        assert db.run_read(audit.check).ok
    finally:
        db.close()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_totals_of_a_batch_are_summed_and_written_once_before_the_commit(
    database_url: DatabaseUrl, clock: FakeClock
) -> None:
    """Counters many units add to (the daily aggregates) are written once per row for the
    units committed together; a refused unit's additions are not."""
    writes: list[int] = []

    def writer(uow: UnitOfWork, rows: list[tuple[Any, tuple[int, ...]]]) -> None:
        writes.append(len(rows))
        for (day, bet), (rounds, stake) in rows:
            uow.run(
                "INSERT INTO daily_stats (day, table_id, mode, bet, currency, shard, rounds, "
                "stake, returned, stake_sq, voided) "
                "VALUES (:d, 't', 'fun', :b, 'USD', 0, :n, :s, 0, 0, 0) "
                "ON CONFLICT (day, table_id, mode, bet, currency, shard) DO UPDATE SET "
                "rounds = daily_stats.rounds + :n, stake = daily_stats.stake + :s",
                {"d": day, "b": bet, "n": rounds, "s": stake},
            )

    def unit(i: int) -> Any:
        def work(uow: UnitOfWork) -> int:
            uow.add_totals(writer, (1, "banker" if i % 2 else "player"), (1, i))
            uow.add_totals(writer, (1, "*"), (1, i))
            if i % 5 == 3:
                raise ServiceError("invalid_amount", "refused after adding")
            return i

        return work

    db = Database(database_url, clock=clock, threads=1, max_batch=64)
    db.start()
    try:
        outcomes = await asyncio.gather(*(db.write(unit(i)) for i in range(30)),
                                        return_exceptions=True)  # fmt: skip
        kept = [i for i in range(30) if i % 5 != 3]
        assert [o for o in outcomes if not isinstance(o, ServiceError)] == kept
        rows = db.run_read(
            lambda uow: uow.all("SELECT bet, rounds, stake FROM daily_stats ORDER BY bet")
        )
        assert [tuple(r) for r in rows] == [
            ("*", len(kept), sum(kept)),
            ("banker", len([i for i in kept if i % 2]), sum(i for i in kept if i % 2)),
            ("player", len([i for i in kept if not i % 2]), sum(i for i in kept if not i % 2)),
        ]
        # Written per batch, not per unit: fewer writes than units, each of the rows once.
        assert len(writes) < len(kept) and all(n <= 3 for n in writes)
    finally:
        db.close()


async def test_a_steady_write_load_does_not_grow_the_wal_without_end(
    tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passive checkpoints alone never start the WAL again while writes keep coming (it
    grew by tens of MB a second): past its limit the writer starts it again between two
    batches, and the file stays near the limit."""
    import os

    from baccarat.server.db import database, migrate

    limit = 1 << 20
    monkeypatch.setattr(database._Checkpointer, "WAL_LIMIT_BYTES", limit)
    monkeypatch.setattr(database._Checkpointer, "INTERVAL_S", 0.05)
    url = DatabaseUrl.sqlite_in(tmp_path / "data")
    migrate.upgrade(url)
    db = Database(url, clock=clock)
    db.start()
    wal = tmp_path / "data" / "baccarat.db-wal"
    blob = os.urandom(3000).hex()

    def work(uow: UnitOfWork) -> None:
        uow.run("INSERT INTO scratch (k, d) VALUES (:k, :d)", {"k": os.urandom(8).hex(), "d": blob})

    try:
        db.run_write(
            lambda uow: uow.run(
                "CREATE TABLE scratch (id INTEGER PRIMARY KEY, k TEXT UNIQUE, d TEXT)"
            )
        )
        sizes = []
        for _ in range(400):
            await asyncio.gather(*(db.write(work) for _ in range(16)))
            sizes.append(wal.stat().st_size)
            await asyncio.sleep(0)
        # Without the restart it reached 62 MB; with it, 3 to 10 MB.
        assert max(sizes) < 24 * limit, max(sizes)
    finally:
        db.close()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_lookup_asked_for_ahead_goes_with_the_next_round_trip_where_it_pipelines(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Lookup.ahead`` sends the read with the unit's next round trip (once, however often
    asked for; not when the unit keeps the answer), and the lookup's read takes its answer
    without a round trip of its own; where the database does not pipeline (SQLite) nothing
    is sent ahead and the read is made when it is needed, with the same answer."""
    from baccarat.server.db import pgwire
    from baccarat.server.db.lookup import Lookup

    trips: list[int] = []
    exchange = pgwire.Wire.exchange

    def counted(self: Any, statements: Any, begin: bool) -> Any:
        trips.append(len(statements))
        return exchange(self, statements, begin)

    switch: Lookup[str] = Lookup(
        "SELECT enabled FROM table_switches WHERE table_id = :t", "t",
        kept=lambda uow, table_id: table_id == "kept",
    )  # fmt: skip
    db.run_write(lambda uow: uow.run("INSERT INTO table_switches (table_id, enabled, limits, "
                                     "updated_us) VALUES ('a', 1, NULL, 0)"))  # fmt: skip
    monkeypatch.setattr(pgwire.Wire, "exchange", counted)

    def work(uow: UnitOfWork) -> tuple[bool, list[bool], Any, list[int], bool, Any]:
        for table_id in ("a", "a", "kept"):
            switch.ahead(uow, table_id)
        sent = [switch.sent(uow, "a"), switch.sent(uow, "kept")]
        uow.scalar("SELECT 1")
        enabled = switch.scalar(uow, "a")  # the answer sent ahead
        return (
            uow.pipelines,
            sent,
            enabled,
            list(trips),
            switch.sent(uow, "a"),
            switch.one(uow, "b"),
        )

    pipelines, sent, enabled, trips_then, still_sent, missing = db.run_read(work)
    assert sent == [pipelines, False]
    assert enabled == 1 and missing is None and not still_sent
    # PostgreSQL: the read ahead and the next one in one round trip, the lookup's none.
    assert trips_then == ([2] if pipelines else [])
