"""What happens at a player-banked seat: each action is one unit of work on a locked seat.

The cycle of a seat (SPEC §7): a player and a banker sit down (matched by the server);
the banker APPROVES the round (or has AUTO-APPROVE on), which reserves the round's
exposure from the banker's balance; the player then bets (bets placed are held in escrow)
and DEALS; the round is settled at once (the banker covers every bet, the casino takes its
fee from the banker), and the next round waits for the banker's approval again.

Time limits are deadlines stored with the seat: 35 s for the banker's approval, 45 s for
the player's bets and deal. Whoever runs out of time leaves the seat (``resolve_due``,
called by every worker's resolver, see ``timing``); bets not dealt go back to the player,
the reserve back to the banker. A participant whose last connection closes and who does not
reconnect within the grace leaves the same way, except a banker who already approved: that
round goes on without them (the banker's hand is played by the rules anyway) and they leave
when it ends. A deal is atomic: once dealt, the round is complete, and both find it in
their history.

Every change saves the seat (its version goes up) and emits its events, delivered after
the commit (see ``events``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...core import Bets
from .. import history, idempotency, pipeline, responsible, seeds
from ..db.uow import UnitOfWork
from ..dealing import ShoeFactory
from ..errors import ServiceError
from ..ledger import SystemAccounts, check_mode
from ..tables import Table, TableSet
from . import money
from .seats import (
    ROLES,
    Seat,
    SeatView,
    add_points,
    last_round,
    load,
    load_all,
    load_table,
    points,
    points_of,
    save,
    summary,
    view,
)
from .terms import settle_banked

Emit = Callable[[UnitOfWork, dict[str, Any]], None]


@dataclass(frozen=True)
class Context:
    """What the seat's actions need besides the database."""

    tables: TableSet
    system: SystemAccounts
    shoes: ShoeFactory
    emit: Emit
    reconnect_s: int = 0  # how long a participant whose last socket closed may come back
    waiting_s: int = 300  # how long one participant waits alone for a partner

    def table(self, table_id: str) -> Table:
        table = self.tables.require(table_id)
        if table.banked is None:
            raise ServiceError(
                "not_a_banked_table",
                f"table {table_id} is banked by the casino: play it with POST "
                f"/api/tables/{table_id}/rounds",
                table=table_id,
            )
        return table

    def banked_ids(self) -> list[str]:
        return [t.id for t in self.tables.values() if t.banked is not None]


def _nickname(uow: UnitOfWork, player_id: int) -> str:
    return str(uow.scalar("SELECT nickname FROM players WHERE id = :p", {"p": player_id}))


def _other(role: str) -> str:
    return "banker" if role == "player" else "player"


def _expired(uow: UnitOfWork, seat: Seat) -> bool:
    return seat.deadline_us is not None and uow.now >= seat.deadline_us


def _seat_for(uow: UnitOfWork, ctx: Context, seat_id: str) -> tuple[Seat, Table]:
    seat = load(uow, seat_id)
    if seat.table_id not in ctx.tables or ctx.tables[seat.table_id].banked is None:
        raise ServiceError("unknown_seat", f"there is no seat {seat_id!r}", seat=seat_id)
    return seat, ctx.tables[seat.table_id]


def _require_role(seat: Seat, player_id: int, role: str | None = None) -> str:
    mine = seat.role_of(player_id)
    if mine is None:
        raise ServiceError("not_seated", f"you do not sit at seat {seat.id}", seat=seat.id)
    if role is not None and mine != role:
        raise ServiceError(
            "not_your_turn", f"only the {role} may do this at seat {seat.id}", role=mine
        )
    return mine


def _require_phase(uow: UnitOfWork, seat: Seat, phase: str) -> None:
    if seat.phase != phase:
        raise ServiceError(
            "not_your_turn",
            f"seat {seat.id} is in its {seat.phase} phase, not {phase}",
            phase=seat.phase,
        )
    if _expired(uow, seat):
        raise ServiceError("deadline_passed", "the time for this decision ran out", seat=seat.id)


# -- requirements --------------------------------------------------------------------------


def banker_problem(uow: UnitOfWork, table: Table, banker_id: int, mode: str) -> ServiceError | None:
    """Why this player may not bank a round at this table now (None if they may).

    The balance is read with its row locked, so that the reservation that follows is sure
    to be covered.
    """
    terms = table.banked
    assert terms is not None
    refused = responsible.banker_problem(uow, banker_id, mode, terms.exposure)
    if refused is not None:
        return refused
    have = points(uow, banker_id, mode)
    if have < terms.min_points:
        return ServiceError(
            "banker_points_too_low",
            f"banking at {table.name} needs {terms.min_points} loyalty points; you have {have}",
            points=have, required=terms.min_points, table=table.id,
        )  # fmt: skip
    balance = int(
        uow.scalar(
            "SELECT balance FROM accounts WHERE player_id = :p AND mode = :m AND kind = 'player'"
            + uow.for_update,
            {"p": banker_id, "m": mode},
        )
        or 0
    )
    if balance < terms.min_balance:
        return ServiceError(
            "banker_balance_too_low",
            f"banking at {table.name} needs a {mode} balance of at least "
            f"{terms.min_balance / 100:.2f}",
            balance=balance, min_balance=terms.min_balance, table=table.id,
        )  # fmt: skip
    return None


# -- publishing ----------------------------------------------------------------------------


def _commit(uow: UnitOfWork, ctx: Context, seat: Seat, table: Table) -> SeatView:
    """Save the seat and emit its new state (delivered once the transaction commits)."""
    save(uow, seat)
    seen = view(uow, seat, table)
    ctx.emit(uow, {"type": "state", "seat_id": seat.id, "version": seat.version,
                   "public": seen.public, "ids": seen.ids, "private": seen.private})  # fmt: skip
    return seen


# -- the cycle -----------------------------------------------------------------------------


def _approve(uow: UnitOfWork, ctx: Context, seat: Seat, table: Table) -> None:
    """The banker approved (requirements already checked): reserve, and the player's turn."""
    assert table.banked is not None and seat.banker_id is not None and seat.mode is not None
    exposure = table.banked.exposure
    money.reserve(uow, ctx.system, seat.id, seat.mode, seat.banker_id, exposure)
    seat.reserve = exposure
    seat.phase = "betting"
    seat.deadline_us = uow.now + table.banked.player_seconds * 1_000_000
    seat.notice = {"code": "approved", "role": "banker", "auto": seat.auto_approve}


def _begin(uow: UnitOfWork, ctx: Context, seat: Seat, table: Table) -> None:
    """Both sides are seated and no round is open: the banker's approval is next."""
    assert table.banked is not None and seat.banker_id is not None and seat.mode is not None
    if seat.auto_approve:
        problem = banker_problem(uow, table, seat.banker_id, seat.mode)
        if problem is None:
            _approve(uow, ctx, seat, table)
            return
        seat.notice = {"code": problem.code, "role": "banker", **problem.details}
    seat.phase = "approval"
    seat.deadline_us = uow.now + table.banked.banker_seconds * 1_000_000


def _end_open_round(uow: UnitOfWork, ctx: Context, seat: Seat) -> None:
    """Bets not dealt go back to the player; the banker's reserve goes back to the banker."""
    assert seat.mode is not None
    if seat.stake:
        assert seat.player_id is not None
        money.hold_bets(uow, ctx.system, seat.id, seat.mode, seat.player_id, -seat.stake)
    if seat.reserve:
        assert seat.banker_id is not None
        money.release(uow, ctx.system, seat.id, seat.mode, seat.banker_id, seat.reserve)
    seat.bets, seat.stake, seat.reserve = {}, 0, 0


def _remove(uow: UnitOfWork, ctx: Context, seat: Seat, role: str, reason: str) -> None:
    """A participant leaves the seat; any open round ends undealt."""
    holder = seat.holder(role)
    if holder is None:
        return
    _end_open_round(uow, ctx, seat)
    gone = [(role, holder)]
    if role == "player":
        seat.player_id = None
        if seat.banker_away and seat.banker_id is not None:
            gone.append(("banker", seat.banker_id))
            seat.banker_id = None
    else:
        seat.banker_id = None
    if seat.banker_id is None:
        seat.auto_approve = seat.banker_away = False
    seat.phase, seat.deadline_us = "waiting", None
    seat.notice = {"code": reason, "role": role, "nickname": _nickname(uow, holder)}
    if seat.is_empty:
        seat.mode = None
    else:
        _wait(uow, ctx, seat)


def _wait(uow: UnitOfWork, ctx: Context, seat: Seat) -> None:
    """One participant waits for a partner: not forever (a seat is not to be blocked)."""
    seat.deadline_us = uow.now + ctx.waiting_s * 1_000_000


def _depart(uow: UnitOfWork, ctx: Context, seat: Seat, role: str, how: str) -> None:
    """``how`` is left / disconnected / timeout. An approved round outlives its banker."""
    if role == "banker" and seat.phase == "betting" and how != "timeout":
        seat.banker_away = True
        seat.auto_approve = False
        seat.notice = {"code": f"banker_{how}", "role": "banker", "round_goes_on": True,
                       "nickname": _nickname(uow, seat.banker_id or 0)}  # fmt: skip
        return
    _remove(uow, ctx, seat, role, f"{role}_{how}")


# -- actions -------------------------------------------------------------------------------


def join(
    uow: UnitOfWork,
    ctx: Context,
    player_id: int,
    table_id: str,
    role: str,
    mode: str,
    *,
    seat_id: str | None = None,
    auto_approve: bool = False,
) -> SeatView:
    """Sit down as player or banker: at the given seat, or where the server matches you
    with someone waiting for your role in your mode, or at an empty seat."""
    check_mode(mode)
    table = ctx.table(table_id)
    if role not in ROLES:
        raise ServiceError("invalid_body", "role is 'player' or 'banker'", role=role)
    responsible.admit_seat(uow, player_id, mode)
    # One seat per role, and one seat per table (a few accounts cannot fill a table).
    sitting = uow.scalar(
        f"SELECT id FROM banked_seats WHERE {role}_id = :p OR (table_id = :t AND "
        "(player_id = :p OR banker_id = :p)) ORDER BY id LIMIT 1",
        {"p": player_id, "t": table.id},
    )
    if sitting is not None:
        raise ServiceError(
            "already_seated", f"you already sit at seat {sitting}", seat=sitting, role=role,
        )  # fmt: skip
    if role == "banker":
        problem = banker_problem(uow, table, player_id, mode)
        if problem is not None:
            raise problem
    seats = load_table(uow, table.id)
    other = _other(role)
    if seat_id is not None:
        seat = next((s for s in seats if s.id == seat_id), None)
        if seat is None:
            raise ServiceError(
                "unknown_seat", f"table {table.id} has no seat {seat_id!r}", seat=seat_id
            )
        if seat.holder(role) is not None:
            raise ServiceError("seat_taken", f"seat {seat.id} has its {role}", seat=seat.id)
        if seat.mode not in (None, mode):
            raise ServiceError(
                "seat_mode_mismatch", f"seat {seat.id} plays in {seat.mode} mode",
                seat=seat.id, mode=seat.mode,
            )  # fmt: skip
        if seat.holder(other) == player_id:
            raise ServiceError(
                "already_seated", f"you are this seat's {other}", seat=seat.id, role=other
            )
    else:
        waiting = [
            s
            for s in seats
            if s.mode == mode
            and s.holder(role) is None
            and s.holder(other) not in (None, player_id)
        ]
        empty = [s for s in seats if s.is_empty]
        if not waiting and not empty:
            raise ServiceError(
                "table_full",
                f"no seat of {table.name} needs a {role} in {mode} mode",
                table=table.id, role=role, mode=mode,
            )  # fmt: skip
        seat = (waiting or empty)[0]
    seat.mode = mode
    if role == "player":
        seat.player_id = player_id
    else:
        seat.banker_id, seat.auto_approve, seat.banker_away = player_id, auto_approve, False
    seat.notice = {"code": "joined", "role": role, "nickname": _nickname(uow, player_id)}
    # A new pair: the last round shown is one of theirs (the others' is in their history).
    seat.last_round_id = None
    if seat.player_id is not None and seat.banker_id is not None:
        _begin(uow, ctx, seat, table)
    else:
        _wait(uow, ctx, seat)
    return _commit(uow, ctx, seat, table)


def leave(uow: UnitOfWork, ctx: Context, player_id: int, seat_id: str) -> SeatView:
    """Stand up. Bets not dealt go back to the player; a banker who approved the round in
    play stays until it ends."""
    seat, table = _seat_for(uow, ctx, seat_id)
    role = _require_role(seat, player_id)
    _depart(uow, ctx, seat, role, "left")
    return _commit(uow, ctx, seat, table)


def approve(uow: UnitOfWork, ctx: Context, player_id: int, seat_id: str) -> SeatView:
    """The banker approves the next round (points and balance are checked again)."""
    seat, table = _seat_for(uow, ctx, seat_id)
    _require_role(seat, player_id, "banker")
    _require_phase(uow, seat, "approval")
    assert seat.mode is not None
    problem = banker_problem(uow, table, player_id, seat.mode)
    if problem is not None:
        raise problem
    _approve(uow, ctx, seat, table)
    return _commit(uow, ctx, seat, table)


def set_auto_approve(
    uow: UnitOfWork, ctx: Context, player_id: int, seat_id: str, on: bool
) -> SeatView:
    """AUTO-APPROVE on or off; turned on while a round waits for approval, it approves it."""
    seat, table = _seat_for(uow, ctx, seat_id)
    _require_role(seat, player_id, "banker")
    if seat.banker_away:
        raise ServiceError("not_your_turn", "you are leaving this seat", seat=seat.id)
    seat.auto_approve = on
    seat.notice = {"code": "auto_approve", "role": "banker", "on": on}
    if on and seat.phase == "approval" and not _expired(uow, seat):
        assert seat.mode is not None
        problem = banker_problem(uow, table, player_id, seat.mode)
        if problem is None:
            _approve(uow, ctx, seat, table)
        else:
            seat.notice = {"code": problem.code, "role": "banker", **problem.details}
    return _commit(uow, ctx, seat, table)


def _place(uow: UnitOfWork, ctx: Context, seat: Seat, table: Table, bets: Bets) -> None:
    assert seat.mode is not None and seat.player_id is not None
    if bets.total:
        table.check_bets(bets)
        responsible.check_stake(uow, seat.player_id, seat.mode, bets.total)
    money.hold_bets(uow, ctx.system, seat.id, seat.mode, seat.player_id, bets.total - seat.stake)
    seat.bets = bets.to_json()
    seat.stake = bets.total


def place_bets(uow: UnitOfWork, ctx: Context, player_id: int, seat_id: str, bets: Bets) -> SeatView:
    """The player's bets on the table (replacing those placed), held in escrow until dealt;
    no bets takes them all back."""
    seat, table = _seat_for(uow, ctx, seat_id)
    _require_role(seat, player_id, "player")
    _require_phase(uow, seat, "betting")
    _place(uow, ctx, seat, table, bets)
    seat.notice = {"code": "bets", "role": "player"}
    return _commit(uow, ctx, seat, table)


def deal(
    uow: UnitOfWork, ctx: Context, player_id: int, seat_id: str, bets: Bets | None
) -> dict[str, Any]:
    """DEAL: the bets placed (or these bets) are dealt, settled and paid in this transaction.

    The answer is the round as the player's history shows it.
    """
    seat, table = _seat_for(uow, ctx, seat_id)
    _require_role(seat, player_id, "player")
    _require_phase(uow, seat, "betting")
    if bets is not None:
        _place(uow, ctx, seat, table, bets)
    if not seat.stake:
        raise ServiceError("no_bets", "place at least one bet before dealing")
    assert table.banked is not None and seat.mode is not None and seat.banker_id is not None
    placed = Bets(**seat.bets)
    table.check_bets(placed)
    mode, banker_id, rules = seat.mode, seat.banker_id, table.rules
    drawn = seeds.take_nonce(uow, player_id, mode)
    dealt = pipeline.deal(
        ctx.shoes(rules, drawn.server_seed, drawn.client_seed, drawn.nonce, None),
        seed_id=drawn.seed_id, commitment=drawn.commitment, client_seed=drawn.client_seed,
        nonce=drawn.nonce, cut=None,
    )  # fmt: skip
    result = settle_banked(rules, placed, dealt.coup.winner, table.banked.fee_rate)
    responsible.admit_banked_round(uow, player_id, banker_id, mode, result.stake,
                                   result.returned, result.banker_net)  # fmt: skip
    round_id = pipeline.new_round_id()
    tx_id = money.settle_round(
        uow, ctx.system, round_id, mode, player_id=player_id, banker_id=banker_id,
        reserve=seat.reserve, stake=result.stake, returned=result.returned, fee=result.fee,
    )  # fmt: skip
    balances: dict[int, int] = dict(
        uow.all(
            "SELECT player_id, balance FROM accounts WHERE player_id IN (:p, :b) "
            "AND mode = :m AND kind = 'player'",
            {"p": player_id, "b": banker_id, "m": mode},
        )
    )
    player_after, banker_after = int(balances[player_id]), int(balances[banker_id])
    settled = pipeline.Settled(
        json.dumps(result.settlement.to_json(), separators=(",", ":")), result.stake,
        result.returned, player_after,
    )  # fmt: skip
    seq = pipeline.record(uow, round_id, player_id, table.id, mode, rules, dealt, settled, tx_id)
    earned = add_points(uow, player_id, mode, result.points)
    lost = -add_points(uow, banker_id, mode, -result.points)
    uow.run(
        "INSERT INTO banked_rounds (round_id, round_seq, seat_id, mode, player_id, banker_id, "
        "fee, reserve, banker_before, banker_after, player_points, banker_points, created_us) "
        "VALUES (:id, :seq, :seat, :m, :p, :b, :fee, :reserve, :before, :after, :pp, :bp, :now)",
        {
            "id": round_id, "seq": seq, "seat": seat.id, "m": mode, "p": player_id,
            "b": banker_id, "fee": result.fee, "reserve": seat.reserve,
            "before": banker_after - result.banker_net, "after": banker_after, "pp": earned,
            "bp": lost, "now": uow.now,
        },
    )  # fmt: skip
    seat.bets, seat.stake, seat.reserve = {}, 0, 0
    seat.last_round_id = round_id
    seat.notice = {"code": "dealt", "role": "player", "round": round_id}
    ctx.emit(uow, {
        "type": "round", "seat_id": seat.id, "version": seat.version + 1,
        "round": last_round(uow, round_id), "ids": {"player": player_id, "banker": banker_id},
        "private": {
            "player": {"balance": player_after, "net": result.player_net, "points": earned},
            "banker": {"balance": banker_after, "net": result.banker_net, "points": -lost},
        },
    })  # fmt: skip
    if seat.banker_away:
        _remove(uow, ctx, seat, "banker", "banker_left")
    else:
        _begin(uow, ctx, seat, table)
    _commit(uow, ctx, seat, table)
    return history.get_round(uow, player_id, round_id).to_json()


DEAL_PATH = "/api/seats/{seat_id}/deal"


def deal_once(
    uow: UnitOfWork,
    ctx: Context,
    player_id: int,
    seat_id: str,
    bets: Bets | None,
    key: str,
) -> tuple[dict[str, Any], bool]:
    """``deal`` once per Idempotency-Key (REST and WebSocket share the keys): a replay gets
    the first answer and deals nothing. ``(answer, replayed)``."""
    key = idempotency.check_key(key)
    body = {"bets": None if bets is None else bets.to_json()}
    hashed = idempotency.request_hash("POST", DEAL_PATH.format(seat_id=seat_id), body)
    stored = idempotency.recall(uow, player_id, key, hashed)
    if stored is not None:
        return json.loads(stored.body), True
    answer = deal(uow, ctx, player_id, seat_id, bets)
    idempotency.remember(
        uow, player_id, key, hashed, 201, json.dumps(answer, separators=(",", ":"))
    )
    return answer, False


# -- reading -------------------------------------------------------------------------------


def seat_view(uow: UnitOfWork, ctx: Context, seat_id: str) -> SeatView:
    seat, table = _seat_for(uow, ctx, seat_id)
    return view(uow, seat, table)


def lobby(uow: UnitOfWork, ctx: Context, player_id: int | None) -> dict[str, Any]:
    """Every player-banked seat: who sits there and which role it needs; and the caller's
    own points and seats."""
    found = load_all(uow, ctx.banked_ids())
    me = None
    if player_id is not None:
        me = {
            "points": points_of(uow, player_id),
            "seats": [
                {"seat": s.id, "role": s.role_of(player_id)}
                for s in found
                if s.role_of(player_id) is not None
            ],
        }
    return {"seats": [summary(uow, s) for s in found], "me": me}
