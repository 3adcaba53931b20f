"""A value read and then used to compute a write is read under the lock that keeps it
(PostgreSQL at READ COMMITTED, several workers): two units of work at once, the second
started while the first holds its rows, compute from what the first committed.

Each test failed before its fix: the second read the value as it was before the first
committed (no lock to wait for), and wrote or decided from it. Where one unit of work reads
two values unlocked, one after the other, the test makes it wait for the other's rows
between the two reads: the other commits there.
"""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.core import Bets
from baccarat.fairness.beacon import QUICKNET
from baccarat.server import accounts, auth, responsible, seeds, switches, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.banked import seats as banked
from baccarat.server.kinds.banked import service
from baccarat.server.kinds.banked.service import SeatServices
from baccarat.server.kinds.house import service as house
from baccarat.server.kinds.shared import bets as shared_bets
from baccarat.server.kinds.shared import clock as table_clock
from baccarat.server.kinds.shared import tablelog
from baccarat.server.kinds.shared.terms import terms_of
from baccarat.server.ledger import SystemAccounts
from baccarat.server.play.round import Dealer
from baccarat.server.responsible import checks
from baccarat.server.tables import Table
from baccarat.server.wallets.ledger import LedgerWallet

from ..harness import FakeClock
from .interleave import held_while
from .support import BANKER_WINS, StackedShoes

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


@pytest.fixture
def dealer(system: SystemAccounts) -> Dealer:
    """The fair deal source and the casino's ledger."""
    return Dealer(FairShoes(), LedgerWallet(system))


def test_two_uses_of_an_hourly_allowance_at_once_count_two(db: Database) -> None:
    """Registrations from one address, seed rotations: an hourly allowance of two, one used;
    two more at once: one passes, the other is refused (both passed, counting one)."""

    def use(uow: UnitOfWork) -> None:
        auth.admit_hourly(uow, "rotate:7", 2, "rotations")

    db.run_write(use)
    first, second = held_while(db, use, use)
    first.result()
    with pytest.raises(ServiceError) as refused:
        second.result()
    assert refused.value.code == "rate_limited"
    count = db.run_read(
        lambda uow: uow.scalar("SELECT failures FROM login_throttle WHERE key = 'rotate:7'")
    )
    assert count == 2


def test_two_switches_of_a_table_at_once_each_tell_what_they_changed(db: Database) -> None:
    """Off and on again at once: each changed the table (what the back office's audit log
    records); the second read the table on, as it was before the first committed, and
    said it changed nothing: the table on, the log's last word 'disabled'."""
    table = load_tables().require("table-i")
    db.run_write(lambda uow: switches.switch(uow, table, True))
    off, on = held_while(
        db,
        lambda uow: switches.switch(uow, table, False),
        lambda uow: switches.switch(uow, table, True),
    )
    assert (off.result(), on.result()) == (True, True)
    assert db.run_read(lambda uow: switches.in_play(uow, table)) is not None


def test_two_retirements_of_a_shared_table_at_once_reveal_its_shoe_once(
    db: Database, dealer: Dealer
) -> None:
    """A shared table gone from the tables file, retired by two workers starting at once,
    its shoe waiting for its beacon round (no coup): both read the shoe unfinished, the
    second's write waits for the first's and finds it ended. Revealed by the read, the
    table's log had two reveals of one shoe."""
    table = load_tables().require("speed")
    served = [t for t in load_tables() if t != table.id]

    def waiting_shoe(uow: UnitOfWork) -> int:
        table_clock.ensure(uow, [table])
        table_clock.watch(uow, [table.id])
        table_clock.advance(uow, dealer, table, QUICKNET, beacon=True)
        shoe = table_clock.waiting(uow, table)
        assert shoe is not None
        return shoe.id

    shoe_id = db.run_write(waiting_shoe)
    for done in held_while(
        db,
        lambda uow: table_clock.retire(uow, dealer, served),
        lambda uow: table_clock.retire(uow, dealer, served),
    ):
        assert done.result() == [table.id]
    log = db.run_read(lambda uow: tablelog.of_shoe(uow, shoe_id))
    assert [entry["type"] for entry in log] == ["commit", "reveal"]


@pytest.mark.parametrize("first", ["the shoe's end", "the rotation"])
def test_a_rotation_and_the_end_of_the_last_cut_shoe_at_once_reveal_the_seed(
    db: Database, system: SystemAccounts, dealer: Dealer, first: str
) -> None:
    """A player rotates their seeds while the last coup of their cut shoe is dealt (two
    workers): the retired shoe seed is revealed by whichever comes second. Read unlocked,
    each saw the other's change uncommitted: the seed retired, its last shoe ended, and
    never revealed (nothing reveals it later)."""
    table = load_tables().require("mini")
    player = db.run_write(lambda uow: accounts.register(uow, "alice", "hash", system)).id

    def last_coup_due(uow: UnitOfWork) -> int:
        house.cut_shoe(uow, dealer, player, table, "fun", 100)
        # The shoe dealt on to its cut card but for one card: its next coup ends it.
        return int(
            uow.scalar(
                "UPDATE shoes SET position = cut_card - 1 WHERE player_id = :p AND table_id = :t "
                "RETURNING seed_id",
                {"p": player, "t": table.id},
            )
        )

    seed_id = db.run_write(last_coup_due)

    def end(uow: UnitOfWork) -> Any:
        return house.play_round(uow, dealer, player, table, "fun", Bets(banker=200))

    def rotate(uow: UnitOfWork) -> Any:
        return seeds.rotate(uow, player, "fun")

    for done in held_while(db, *((end, rotate) if first == "the shoe's end" else (rotate, end))):
        done.result()
    shoe = db.run_read(lambda uow: house.shoe_state(uow, player, table, "fun"))
    assert shoe.cut_due  # the coup ended the shoe
    revealed = db.run_read(lambda uow: uow.scalar(
        "SELECT revealed_us FROM fairness_seeds WHERE id = :id", {"id": seed_id}))  # fmt: skip
    assert revealed is not None, "the retired seed, its last shoe ended, is not revealed"
    assert db.run_read(lambda uow: seeds.pending(uow, player, "fun")) == []
    assert db.run_read(audit.check).ok


def test_a_seat_left_while_a_time_out_stands_the_player_up_drops_out_of_it(
    db: Database, system: SystemAccounts, dealer: Dealer
) -> None:
    """A player sits at two player-banked tables (as banker at one, as player at the other)
    and takes a time-out while leaving the player's seat (two workers): the time-out stands
    them up from the banker's seat. Its seats read unlocked, it found the seat left meanwhile
    and failed as ``not_seated`` (no time-out taken)."""
    tables = load_tables()
    ctx = SeatServices(tables, dealer, lambda uow, event: None)

    def seated(uow: UnitOfWork) -> tuple[int, str]:
        banked.ensure(uow, tables)
        player = accounts.register(uow, "alice", "hash", system).id
        service.join(uow, ctx, player, "banked-i", "banker", "fun")
        view = service.join(uow, ctx, player, "banked-ii", "player", "fun")
        return player, str(view.public["id"])

    player, seat = db.run_write(seated)

    def time_out(uow: UnitOfWork) -> int:  # as POST /api/responsible/time-out does
        responsible.time_out(uow, player, 1)
        return service.stand_up_everywhere(uow, ctx, player)

    left, timed_out = held_while(db, lambda uow: service.leave(uow, ctx, player, seat), time_out)
    left.result()
    assert timed_out.result() == 1  # the banker's seat: the other was left already
    sitting = db.run_read(lambda uow: uow.scalar(
        "SELECT COUNT(*) FROM banked_seats WHERE player_id = :p OR banker_id = :p",
        {"p": player}))  # fmt: skip
    assert sitting == 0
    shown = db.run_write(lambda uow: responsible.overview(uow, player))
    assert shown["exclusion"]["kind"] == "time_out"


def test_a_coup_dealt_between_the_reads_of_a_loss_limits_usage_leaves_no_stake_uncounted(
    db: Database,
    system: SystemAccounts,
    dealer: Dealer,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real-money bet on a shared coup counts against the daily loss limit while it waits
    (as lost already), and once dealt as what it lost. A bet on another shared table's coup
    is checked while the first coup is dealt (another worker), the deal committing after
    the check read what was used: it must still see the first bet held. Read what was used
    before what is held, the check saw the first bet in neither: a stake passed the limit."""
    tables = load_tables()
    speed, live = tables.require("speed"), tables.require("live")  # betting 12 s and 20 s
    dealer.shoes = StackedShoes(BANKER_WINS)  # every player bet loses

    def open_coup(uow: UnitOfWork, table: Table) -> int:
        table_clock.ensure(uow, [table])
        table_clock.watch(uow, [table.id])
        table_clock.advance(uow, dealer, table)
        _, coup, _ = table_clock.clock_of(uow, table)
        assert coup is not None
        return coup.id

    def bet_on_two_coups(uow: UnitOfWork) -> tuple[int, int, int]:
        player = accounts.register(uow, "alice", "hash", system).id
        wallet.deposit(uow, player, 100_000, system)
        responsible.set_limits(uow, player, {"loss_day": 1_000})
        first, second = open_coup(uow, speed), open_coup(uow, live)
        shared_bets.place(uow, dealer, speed, first, player, "real", Bets(player=600))
        return player, first, second

    player, first, second = db.run_write(bet_on_two_coups)
    clock.advance(terms_of(speed).betting_s)  # the first coup is due, the second still open
    read = checks.usage

    def then_the_deal_commits(uow: UnitOfWork, player_id: int, **kwargs: Any) -> Any:
        used = read(uow, player_id, **kwargs)
        # Waits for the deal's transaction (the coup's row): it commits now.
        uow.one("SELECT id FROM shared_coups WHERE id = :c" + uow.for_update, {"c": first})
        return used

    def deal(uow: UnitOfWork) -> Any:
        return table_clock.advance(uow, dealer, speed)

    def bet_on_the_second(uow: UnitOfWork) -> Any:
        return shared_bets.place(uow, dealer, live, second, player, "real", Bets(player=500))

    monkeypatch.setattr(checks, "usage", then_the_deal_commits)
    dealt, placed = held_while(db, deal, bet_on_the_second)
    assert [type(event).__name__ for event in dealt.result()] == ["CoupDealt"]
    with pytest.raises(ServiceError) as refused:
        placed.result()  # 600 lost and 500 more: past the limit of 1,000
    assert refused.value.code == "loss_limit_reached"
    assert db.run_read(audit.check).ok
