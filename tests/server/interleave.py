"""Two units of work at once on PostgreSQL, in a set order: the first holds what it locked
(its transaction open) until the second either finished or waits for a lock, then commits;
the second then goes on. What a race on two workers does, made to happen every time."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork

from ..harness import until


def waiting_for_locks(db: Database) -> int:
    """The connections of this test's database that wait for a lock now."""
    return int(
        db.run_read(
            lambda uow: uow.scalar(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            )
        )
    )


def held_while(
    db: Database, first: Callable[[UnitOfWork], Any], second: Callable[[UnitOfWork], Any]
) -> tuple[Future[Any], Future[Any]]:
    """Run ``first``, and ``second`` while ``first``'s transaction is still open: their
    futures (``result()`` gives each one's value or raises what it raised)."""
    holding, release = threading.Event(), threading.Event()

    def hold(uow: UnitOfWork) -> Any:
        value = first(uow)
        holding.set()
        release.wait(30)
        return value

    with ThreadPoolExecutor(2) as pool:
        one = pool.submit(db.run_write, hold)
        if not holding.wait(30):
            release.set()
            one.result()
            raise AssertionError("the first unit of work did not get to its end")
        two = pool.submit(db.run_write, second)
        # Until the second ends or waits for the first (30 s at most: a second that never
        # waits is judged by the test's own assertions).
        with contextlib.suppress(AssertionError):
            until(lambda: two.done() or waiting_for_locks(db), "the second ends or waits",
                  timeout=30, every=0.01)  # fmt: skip
        release.set()
        for future in (one, two):
            future.exception()  # both ended (what they raised stays in the future)
    return one, two
