"""A value read and then used to compute a write is read under the lock that keeps it
(PostgreSQL at READ COMMITTED, several workers): two units of work at once, the second
started while the first holds its rows, compute from what the first committed.

Each test failed before its fix: the second read the value as it was before the first
committed (no lock to wait for), and wrote or decided from it.
"""

from __future__ import annotations

import pytest

from baccarat.server import auth, switches
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables

from .interleave import held_while

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


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
