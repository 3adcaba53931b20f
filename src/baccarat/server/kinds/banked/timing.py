"""Deadlines and connections at player-banked seats.

A seat stores two kinds of deadline: the decision in play (the banker's 35 s to approve,
the player's 45 s to bet and deal; or, for one participant waiting alone for a partner,
``waiting_s``: ``deadline_us``), and for each role a reconnect
deadline (``grace_us``), set when that participant's last socket to the seat closes and
cleared when they connect again. Every worker's resolver (``desk``) calls ``resolve_due``,
which applies whatever has passed in the order it passed: a decision not made in time makes
its owner leave (``timeout``), a reconnect deadline makes the participant leave as a
disconnect did before there was a grace (``disconnected``: a banker who already approved
the round in play stays until it ends). With a grace of 0 the participant leaves as soon
as the last socket closes.
"""

from __future__ import annotations

import contextlib

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.banked.seats import ROLES, Seat, load
from baccarat.server.kinds.banked.service import SeatServices, _commit, _depart, _expired, _seat_for
from baccarat.server.kinds.banked.terms import is_banked
from baccarat.server.play.events import WORKER_APPLICATION


def _next_due(uow: UnitOfWork, seat: Seat) -> str | None:
    """What at this seat is due now (``"turn"`` or a role whose grace ran out), earliest
    first; None when nothing is."""
    due = [(at, role) for role, at in seat.grace_us.items() if at is not None and at <= uow.now]
    if _expired(uow, seat):
        assert seat.deadline_us is not None
        due.append((seat.deadline_us, "turn"))
    return min(due)[1] if due else None


def resolve_due(uow: UnitOfWork, ctx: SeatServices, limit: int = 50) -> int:
    """Resolve the seats with a deadline that has passed: the banker who did not approve,
    or the player who did not deal, leaves; so does a participant who did not reconnect.
    Two workers never resolve the same seat: on PostgreSQL the rows are taken with SKIP
    LOCKED (a row being changed is left for the next pass)."""
    rows = uow.all(
        "SELECT id FROM banked_seats WHERE deadline_us <= :now OR player_grace_us <= :now "
        "OR banker_grace_us <= :now ORDER BY id LIMIT :n" + uow.skip_locked,
        {"now": uow.now, "n": limit},
    )
    resolved = 0
    for (seat_id,) in rows:
        seat = load(uow, seat_id, lock=False)
        if seat.table_id not in ctx.tables or not is_banked(ctx.tables[seat.table_id]):
            continue
        table = ctx.tables[seat.table_id]
        while (what := _next_due(uow, seat)) is not None:
            if what == "turn":
                role = "banker" if seat.phase == "approval" else "player"
                if seat.phase == "waiting":  # alone too long: whoever waits leaves
                    role = "player" if seat.player_id is not None else "banker"
                _depart(uow, ctx, seat, role, "timeout")
            else:
                seat.grace_us[what] = None
                _depart(uow, ctx, seat, what, "disconnected")
            _commit(uow, ctx, seat, table)
            resolved += 1
    return resolved


def next_deadline(uow: UnitOfWork) -> int | None:
    row = uow.one(
        "SELECT MIN(deadline_us), MIN(player_grace_us), MIN(banker_grace_us) FROM banked_seats"
    )
    found = [int(value) for value in row or () if value is not None]
    return min(found) if found else None


def connected(uow: UnitOfWork, conn_id: str, seat_id: str, player_id: int, worker: str) -> None:
    """A participant's socket opened: they are present, and back in time if they were away."""
    uow.run(
        "INSERT INTO banked_presence (conn_id, seat_id, player_id, worker, created_us) "
        "VALUES (:c, :s, :p, :w, :now)",
        {"c": conn_id, "s": seat_id, "p": player_id, "w": worker, "now": uow.now},
    )
    for role in ROLES:
        uow.run(
            f"UPDATE banked_seats SET {role}_grace_us = NULL WHERE id = :s AND {role}_id = :p "
            f"AND {role}_grace_us IS NOT NULL",
            {"s": seat_id, "p": player_id},
        )


def disconnected(uow: UnitOfWork, ctx: SeatServices, conn_id: str, *, depart: bool = True) -> None:
    """A connection closed. If it was the participant's last one to the seat, they have
    ``ctx.reconnect_s`` seconds to come back (the resolver makes them leave then); with no
    grace they leave now (a banker who approved the round in play leaves when it ends)."""
    row = uow.one(
        "DELETE FROM banked_presence WHERE conn_id = :c RETURNING seat_id, player_id",
        {"c": conn_id},
    )
    if row is None or not depart:
        return
    seat_id, player_id = row[0], int(row[1])
    # The seat is locked before counting: two of the player's connections closing at once
    # (or swept at once, see ``forget_dead_workers``) count each other's deletion.
    seat, table = _seat_for(uow, ctx, seat_id)
    others = uow.scalar(
        "SELECT COUNT(*) FROM banked_presence WHERE seat_id = :s AND player_id = :p",
        {"s": seat_id, "p": player_id},
    )
    if others:
        return
    role = seat.role_of(player_id)
    if role is None:
        return
    if ctx.reconnect_s > 0:
        # Not a change anyone sees: the seat's version stays, nothing is emitted.
        uow.run(
            f"UPDATE banked_seats SET {role}_grace_us = :at WHERE id = :s",
            {"at": uow.now + ctx.reconnect_s * 1_000_000, "s": seat_id},
        )
        return
    _depart(uow, ctx, seat, role, "disconnected")
    _commit(uow, ctx, seat, table)


# A worker is alive while its own PostgreSQL session is: the connection that LISTENs for
# seat events carries this application name (``events.PostgresEvents``). A worker killed
# with kill -9 (or whose machine died) loses that session, and with it its presence rows.


def dead_workers(uow: UnitOfWork) -> list[str]:
    """The workers (PostgreSQL) with presence rows whose session has ended."""
    rows = uow.all(
        "SELECT DISTINCT p.worker FROM banked_presence p WHERE NOT EXISTS (SELECT 1 FROM "
        "pg_stat_activity a WHERE a.datname = current_database() "
        "AND a.application_name = :prefix || p.worker)",
        {"prefix": WORKER_APPLICATION},
    )
    return sorted(str(row[0]) for row in rows)


def forget_dead_workers(uow: UnitOfWork, ctx: SeatServices, workers: list[str]) -> int:
    """The connections of workers that died count as closed: each participant left with no
    connection has the reconnect grace, and leaves when it runs out, as with any
    disconnect (a participant reconnected to a live worker keeps their seat)."""
    rows = uow.all(
        "SELECT conn_id FROM banked_presence WHERE worker IN ("
        + ", ".join(f":w{i}" for i in range(len(workers)))
        + ") ORDER BY seat_id, conn_id",
        {f"w{i}": worker for i, worker in enumerate(workers)},
    )
    for (conn_id,) in rows:
        # A seat of a table no longer served: its presence row is gone, that is all.
        with contextlib.suppress(ServiceError):
            disconnected(uow, ctx, conn_id)
    return len(rows)


def forget_worker(uow: UnitOfWork, worker: str | None = None) -> int:
    """Drop the presence rows of one worker (or all, when one worker serves SQLite)."""
    if worker is None:
        return uow.run("DELETE FROM banked_presence")
    return uow.run("DELETE FROM banked_presence WHERE worker = :w", {"w": worker})
