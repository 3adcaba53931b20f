"""A player-banked seat as stored, and how its participants (and the lobby) see it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from baccarat.server import ledger, responsible
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import hand_json, iso_time
from baccarat.server.kinds.banked.terms import is_banked, terms_of
from baccarat.server.tables import Table, TableSet

ROLES = ("player", "banker")
_COLUMNS = (
    "id, table_id, number, mode, player_id, banker_id, phase, deadline_us, auto_approve, "
    "banker_away, bets, stake, reserve, notice, last_round_id, version, player_grace_us, "
    "banker_grace_us, seed_id, seed_nonce, client_seeds"
)


def seat_id_for(table_id: str, number: int) -> str:
    return f"{table_id}.{number}"


@dataclass
class Seat:
    """One row of ``banked_seats``; changed by the service, written back by ``save``."""

    id: str
    table_id: str
    number: int
    mode: str | None
    player_id: int | None
    banker_id: int | None
    phase: str  # waiting | approval (the banker decides) | betting (the player decides)
    deadline_us: int | None
    auto_approve: bool
    banker_away: bool  # the banker left after approving: the round goes on without them
    bets: dict[str, int]
    stake: int  # the player's bets placed, held in escrow
    reserve: int  # the banker's exposure, held in escrow while a round is open
    notice: dict[str, Any] | None
    last_round_id: str | None
    version: int
    # Until when each role may reconnect after its last socket closed (then it leaves).
    grace_us: dict[str, int | None] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list, repr=False)
    # The last round as ``last_round`` gave it in this transaction (not a column): the
    # round's event and the seat's view show the same without reading it twice.
    shown: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    # The pair's own seed (``seat_seed``): committed when the pair forms, revealed when it
    # ends; its next nonce; each role's client seed {"seed", "source"} once set.
    seed_id: int | None = None
    seed_nonce: int = 0
    client_seeds: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Seat:
        (id_, table_id, number, mode, player, banker, phase, deadline, auto, away, bets, stake,
         reserve, notice, last, version, player_grace, banker_grace, seed_id, seed_nonce,
         client_seeds) = row  # fmt: skip
        return cls(
            id_, table_id, int(number), mode,
            None if player is None else int(player), None if banker is None else int(banker),
            phase, None if deadline is None else int(deadline), bool(auto), bool(away),
            json.loads(bets), int(stake), int(reserve),
            None if notice is None else json.loads(notice), last, int(version),
            {"player": None if player_grace is None else int(player_grace),
             "banker": None if banker_grace is None else int(banker_grace)},
            seed_id=None if seed_id is None else int(seed_id), seed_nonce=int(seed_nonce or 0),
            client_seeds=json.loads(client_seeds) if client_seeds else {},
        )  # fmt: skip

    def role_of(self, player_id: int) -> str | None:
        if self.player_id == player_id:
            return "player"
        if self.banker_id == player_id:
            return "banker"
        return None

    def holder(self, role: str) -> int | None:
        return self.player_id if role == "player" else self.banker_id

    @property
    def needs(self) -> list[str]:
        return [role for role in ROLES if self.holder(role) is None]

    @property
    def is_empty(self) -> bool:
        return self.player_id is None and self.banker_id is None


def load(uow: UnitOfWork, seat_id: str, *, lock: bool = True) -> Seat:
    row = uow.one(
        f"SELECT {_COLUMNS} FROM banked_seats WHERE id = :id" + (uow.for_update if lock else ""),
        {"id": seat_id},
    )
    if row is None:
        raise ServiceError("unknown_seat", f"there is no seat {seat_id!r}", seat=seat_id)
    return Seat.from_row(row)


def load_table(uow: UnitOfWork, table_id: str, *, lock: bool = True) -> list[Seat]:
    rows = uow.all(
        f"SELECT {_COLUMNS} FROM banked_seats WHERE table_id = :t ORDER BY number"
        + (uow.for_update if lock else ""),
        {"t": table_id},
    )
    return [Seat.from_row(row) for row in rows]


def load_all(uow: UnitOfWork, table_ids: list[str]) -> list[Seat]:
    if not table_ids:
        return []
    names = {f"t{i}": table_id for i, table_id in enumerate(table_ids)}
    rows = uow.all(
        f"SELECT {_COLUMNS} FROM banked_seats WHERE table_id IN "
        f"({', '.join(':' + n for n in names)}) ORDER BY table_id, number",
        names,
    )
    return [Seat.from_row(row) for row in rows]


def save(uow: UnitOfWork, seat: Seat) -> None:
    """Write the seat back; its version goes up by one (clients order events by it). A role
    nobody holds has no reconnect deadline."""
    seat.version += 1
    grace = {role: seat.grace_us.get(role) if seat.holder(role) else None for role in ROLES}
    uow.send(  # the row is locked (``load``): sent with the next statement, unawaited
        "UPDATE banked_seats SET mode = :mode, player_id = :player, banker_id = :banker, "
        "phase = :phase, deadline_us = :deadline, auto_approve = :auto, banker_away = :away, "
        "bets = :bets, stake = :stake, reserve = :reserve, notice = :notice, "
        "last_round_id = :last, version = :version, updated_us = :now, "
        "player_grace_us = :pg, banker_grace_us = :bg, seed_id = :seed, "
        "seed_nonce = :nonce, client_seeds = :cs WHERE id = :id",
        {
            "mode": seat.mode, "player": seat.player_id, "banker": seat.banker_id,
            "phase": seat.phase, "deadline": seat.deadline_us, "auto": int(seat.auto_approve),
            "away": int(seat.banker_away), "bets": json.dumps(seat.bets, sort_keys=True),
            "stake": seat.stake, "reserve": seat.reserve,
            "notice": None if seat.notice is None else json.dumps(seat.notice),
            "last": seat.last_round_id, "version": seat.version, "now": uow.now, "id": seat.id,
            "pg": grace["player"], "bg": grace["banker"], "seed": seat.seed_id,
            "nonce": seat.seed_nonce if seat.seed_id is not None else None,
            "cs": json.dumps(seat.client_seeds, sort_keys=True) if seat.seed_id else None,
        },
    )  # fmt: skip


def ensure(uow: UnitOfWork, tables: TableSet) -> int:
    """Create the seats of every player-banked table that has none yet; how many were made."""
    made = 0
    for table in tables.values():
        if not is_banked(table):
            continue
        for number in range(1, terms_of(table).seats + 1):
            made += uow.run(
                "INSERT INTO banked_seats (id, table_id, number, mode, player_id, banker_id, "
                "phase, deadline_us, auto_approve, banker_away, bets, stake, reserve, notice, "
                "last_round_id, version, updated_us) VALUES (:id, :t, :n, NULL, NULL, NULL, "
                "'waiting', NULL, 0, 0, '{}', 0, 0, NULL, NULL, 0, :now) "
                "ON CONFLICT (id) DO NOTHING",
                {"id": seat_id_for(table.id, number), "t": table.id, "n": number, "now": uow.now},
            )
    return made


# -- points --------------------------------------------------------------------------------


# ``UnitOfWork.known``: the points this transaction holds locked, by (player, mode).
_KNOWN = "banked.points"


def _points_kept(uow: UnitOfWork, key: tuple[int, str]) -> bool:
    return key in uow.known.get(_KNOWN, {})


_POINTS = "SELECT points FROM banked_points WHERE player_id = :p AND mode = :m"
# A player's points by (player, mode) (``points``), and locked until the commit
# (``points(lock=True)``): asked for ahead (``Lookup.ahead``) unless this transaction holds
# them.
POINTS: Lookup[tuple[int, str]] = Lookup(_POINTS, "p", "m", kept=_points_kept)
LOCKED_POINTS: Lookup[tuple[int, str]] = Lookup(_POINTS, "p", "m", kept=_points_kept, lock=True)


def points(uow: UnitOfWork, player_id: int, mode: str, *, lock: bool = False) -> int:
    """The player's points; ``lock``: their row locked until the commit (and the value kept
    for this transaction's next reads)."""
    known = uow.known.setdefault(_KNOWN, {})
    if (player_id, mode) in known:
        return int(known[(player_id, mode)])
    value = (LOCKED_POINTS if lock else POINTS).scalar(uow, (player_id, mode))
    found = 0 if value is None else int(value)
    if lock:
        known[(player_id, mode)] = found
    return found


def points_of(uow: UnitOfWork, player_id: int) -> dict[str, int]:
    rows = uow.all("SELECT mode, points FROM banked_points WHERE player_id = :p", {"p": player_id})
    found = {mode: int(value) for mode, value in rows}
    return {mode: found.get(mode, 0) for mode in ("fun", "real")}


def add_points(uow: UnitOfWork, player_id: int, mode: str, delta: int) -> int:
    """Add (or take, never below zero) points; the change actually made."""
    known = uow.known.setdefault(_KNOWN, {})
    if delta >= 0:
        # Added in one statement whose answer nobody waits for: the change is the delta.
        if (player_id, mode) in known:
            known[(player_id, mode)] += delta
        uow.send(
            "INSERT INTO banked_points (player_id, mode, points, updated_us) "
            "VALUES (:p, :m, :d, :now) ON CONFLICT (player_id, mode) "
            "DO UPDATE SET points = banked_points.points + excluded.points, updated_us = :now",
            {"p": player_id, "m": mode, "d": delta, "now": uow.now},
        )
        return delta
    current = points(uow, player_id, mode, lock=True)
    new = known[(player_id, mode)] = max(0, current + delta)
    uow.send(
        "INSERT INTO banked_points (player_id, mode, points, updated_us) "
        "VALUES (:p, :m, :v, :now) ON CONFLICT (player_id, mode) "
        "DO UPDATE SET points = :v, updated_us = :now",
        {"p": player_id, "m": mode, "v": new, "now": uow.now},
    )
    return new - current


# -- requirements --------------------------------------------------------------------------


_BALANCE = "SELECT balance FROM accounts WHERE player_id = :p AND mode = :m AND kind = 'player'"


def banker_problem(uow: UnitOfWork, table: Table, banker_id: int, mode: str) -> ServiceError | None:
    """Why this player may not bank a round at this table now (None if they may).

    The balance is read with its row locked, so that the reservation that follows is sure
    to be covered.
    """
    terms = terms_of(table)
    # PostgreSQL: the points and the balance go with the limits' first read (unless this
    # transaction holds them already: a deal that begins the next round).
    balance_sql = _BALANCE + uow.for_update
    balance = ledger.held_balance(uow, banker_id, mode)
    POINTS.ahead(uow, (banker_id, mode))
    if balance is None:
        uow.prefetch(balance_sql, {"p": banker_id, "m": mode})
    refused = responsible.banker_limits_problem(uow, banker_id, mode, terms.exposure)
    if refused is not None:
        return refused
    have = points(uow, banker_id, mode)
    if have < terms.min_points:
        return ServiceError(
            "banker_points_too_low",
            f"banking at {table.name} needs {terms.min_points} loyalty points; you have {have}",
            points=have, required=terms.min_points, table=table.id,
        )  # fmt: skip
    if balance is None:
        balance = int(uow.scalar(balance_sql, {"p": banker_id, "m": mode}) or 0)
    if balance < terms.min_balance:
        return ServiceError(
            "banker_balance_too_low",
            f"banking at {table.name} needs a {mode} balance of at least "
            f"{terms.min_balance / 100:.2f}",
            balance=balance, min_balance=terms.min_balance, table=table.id,
        )  # fmt: skip
    return None


# -- views ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatView:
    """What an event about a seat carries: the public state, who holds which role, and what
    only that role may see (its own balance)."""

    public: dict[str, Any]
    ids: dict[str, int | None]
    private: dict[str, dict[str, Any]]
    # By role: the actions its holder may take now (``service.allowed_actions``).
    allowed: dict[str, list[str]] = field(default_factory=dict)

    def for_player(self, player_id: int) -> dict[str, Any]:
        role = next((r for r, i in self.ids.items() if i == player_id), None)
        return {"seat": self.public, "you": role, "private": self.private.get(role or "", {}),
                "allowed_actions": self.allowed.get(role or "", [])}  # fmt: skip

    def event(self, seat_id: str) -> dict[str, Any]:
        """The seat's state as an event (``events.personal`` gives each receiver its part)."""
        return {"type": "state", "seat_id": seat_id, "version": self.public["version"],
                "public": self.public, "ids": self.ids, "private": self.private,
                "allowed": self.allowed}  # fmt: skip


def _person(uow: UnitOfWork, player_id: int | None, mode: str | None) -> dict[str, Any] | None:
    if player_id is None:
        return None
    nickname = uow.scalar("SELECT nickname FROM players WHERE id = :p", {"p": player_id})
    return {"nickname": nickname, "points": points(uow, player_id, mode) if mode else 0}


def last_round(uow: UnitOfWork, round_id: str | None) -> dict[str, Any] | None:
    """The seat's last round as both sides see it: cards, bets, and each role's result."""
    if round_id is None:
        return None
    row = uow.one(
        "SELECT r.id, r.player_cards, r.banker_cards, r.winner, r.bets, r.stake, r.win, "
        "b.fee, b.player_points, b.banker_points, r.created_us, r.void_reason "
        "FROM rounds r JOIN banked_rounds b ON b.round_id = r.id WHERE r.id = :id",
        {"id": round_id},
    )
    if row is None:
        return None
    (id_, pc, bc, winner, bets, stake, win, fee, player_points, banker_points, created,
     void) = row  # fmt: skip
    stake, win, fee = int(stake), int(win), int(fee)
    return {
        "id": id_,
        "time": iso_time(int(created)),
        "player": hand_json(pc),
        "banker": hand_json(bc),
        "winner": winner,
        "bets": json.loads(bets),
        "stake": stake,
        "win": win,
        "fee": fee,
        "results": {
            "player": {"net": win - stake, "points": int(player_points)},
            "banker": {"net": stake - win - fee, "points": -int(banker_points)},
        },
        "void_reason": void,
    }


def _people(uow: UnitOfWork, seat: Seat) -> dict[int, tuple[dict[str, Any], int]]:
    """Both participants' nickname, points and balance, in one statement."""
    ids = [i for i in (seat.player_id, seat.banker_id) if i is not None]
    if not ids or seat.mode is None:
        return {}
    rows = uow.all(
        "SELECT p.id, p.nickname, COALESCE(bp.points, 0), a.balance FROM players p "
        "LEFT JOIN banked_points bp ON bp.player_id = p.id AND bp.mode = :m "
        "LEFT JOIN accounts a ON a.player_id = p.id AND a.mode = :m AND a.kind = 'player' "
        "WHERE p.id IN (:a, :b)",
        {"m": seat.mode, "a": ids[0], "b": ids[-1]},
    )
    return {
        int(i): ({"nickname": name, "points": int(pts)}, int(balance or 0))
        for i, name, pts, balance in rows
    }


_COMMITMENT = "SELECT commitment FROM fairness_seeds WHERE id = :id"


def _fairness(uow: UnitOfWork, seat: Seat) -> dict[str, Any] | None:
    """The pair's seed as both see it: its commitment, the next nonce, and for each role
    whether its client seed is set, and by whom (the seeds themselves once the first deal
    fixed them: before, neither sees the other's)."""
    if seat.seed_id is None:
        return None
    committed = uow.scalar(_COMMITMENT, {"id": seat.seed_id})
    fixed = seat.seed_nonce > 0
    given = seat.client_seeds
    return {
        "commitment": committed,
        "next_nonce": seat.seed_nonce,
        "fixed": fixed,
        "client_seeds": {
            role: None if role not in given else
            {"source": given[role]["source"], "seed": given[role]["seed"] if fixed else None}
            for role in ROLES
        },
    }  # fmt: skip


def view(uow: UnitOfWork, seat: Seat, table: Table) -> SeatView:
    terms = terms_of(table)
    now = uow.now
    if seat.seed_id is not None:  # with the people's read
        uow.prefetch(_COMMITMENT, {"id": seat.seed_id})
    people = _people(uow, seat)
    remaining = None if seat.deadline_us is None else max(0, seat.deadline_us - now) // 1000
    timer = None
    if seat.deadline_us is not None and seat.phase != "waiting":
        role = "banker" if seat.phase == "approval" else "player"
        timer = {"role": role, "seconds": terms.seconds(role), "remaining_ms": remaining,
                 "deadline": iso_time(seat.deadline_us)}  # fmt: skip
    banker = None if seat.banker_id is None else dict(people[seat.banker_id][0])
    if banker is not None:
        banker |= {"auto_approve": seat.auto_approve, "away": seat.banker_away}
    public = {
        "id": seat.id,
        "table_id": seat.table_id,
        "number": seat.number,
        "mode": seat.mode,
        "phase": seat.phase,
        "version": seat.version,
        "needs": seat.needs,
        "player": None if seat.player_id is None else people[seat.player_id][0],
        "banker": banker,
        "timer": timer,
        "bets": seat.bets,
        "stake": seat.stake,
        "fee": terms.fee(seat.stake),
        "reserved": seat.reserve,
        "terms": terms.to_json(),
        "notice": seat.notice,
        "last_round": seat.shown
        if seat.shown is not None and seat.shown["id"] == seat.last_round_id
        else last_round(uow, seat.last_round_id),
        "fairness": _fairness(uow, seat),
    }
    private: dict[str, dict[str, Any]] = {}
    for role in ROLES:
        holder = seat.holder(role)
        if holder is not None:
            private[role] = {"balance": people[holder][1]}
    return SeatView(public, {"player": seat.player_id, "banker": seat.banker_id}, private)


def summary(uow: UnitOfWork, seat: Seat) -> dict[str, Any]:
    """A seat as the lobby lists it."""
    return {
        "id": seat.id,
        "table_id": seat.table_id,
        "number": seat.number,
        "mode": seat.mode,
        "phase": seat.phase,
        "needs": seat.needs,
        "player": _person(uow, seat.player_id, seat.mode),
        "banker": _person(uow, seat.banker_id, seat.mode),
        "version": seat.version,
    }
