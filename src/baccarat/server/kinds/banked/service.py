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
from dataclasses import dataclass, replace
from typing import Any

from baccarat.core import Bets
from baccarat.server import history, responsible, switches
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.banked import escrow
from baccarat.server.kinds.banked import seed as seat_seed
from baccarat.server.kinds.banked.bank import PlayerBank
from baccarat.server.kinds.banked.seats import (
    LOCKED_POINTS,
    ROLES,
    Seat,
    SeatView,
    banker_problem,
    last_round,
    load,
    load_all,
    load_table,
    points_of,
    save,
    summary,
    view,
)
from baccarat.server.kinds.banked.terms import is_banked, terms_of
from baccarat.server.ledger import check_mode
from baccarat.server.play import idempotency
from baccarat.server.play.round import Dealer, Stake, play, prefetch
from baccarat.server.tables import Table, TableSet

Emit = Callable[[UnitOfWork, dict[str, Any]], None]


@dataclass(frozen=True)
class SeatServices:
    """What the seat's actions need besides the database."""

    tables: TableSet
    dealer: Dealer
    emit: Emit
    reconnect_s: int = 0  # how long a participant whose last socket closed may come back
    waiting_s: int = 300  # how long one participant waits alone for a partner

    def table(self, table_id: str) -> Table:
        table = self.tables.require(table_id)
        if not is_banked(table):
            raise ServiceError(
                "not_a_banked_table",
                f"table {table_id} is banked by the casino: play it with POST "
                f"/api/tables/{table_id}/rounds",
                table=table_id,
            )
        return table

    def banked_ids(self) -> list[str]:
        return [t.id for t in self.tables.values() if is_banked(t)]


def _nickname(uow: UnitOfWork, player_id: int) -> str:
    return str(uow.scalar("SELECT nickname FROM players WHERE id = :p", {"p": player_id}))


def _other(role: str) -> str:
    return "banker" if role == "player" else "player"


def _expired(uow: UnitOfWork, seat: Seat) -> bool:
    return seat.deadline_us is not None and uow.now >= seat.deadline_us


def _seat_for(uow: UnitOfWork, ctx: SeatServices, seat_id: str) -> tuple[Seat, Table]:
    seat = load(uow, seat_id)
    if seat.table_id not in ctx.tables or not is_banked(ctx.tables[seat.table_id]):
        raise ServiceError("unknown_seat", f"there is no seat {seat_id!r}", seat=seat_id)
    return seat, ctx.tables[seat.table_id]


# -- the actions (PokerKit's verify / can / do) ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Params:
    """What an action takes besides the seat: bets (``bets``, ``deal``), on or off
    (``auto_approve``), an idempotency key (``deal``)."""

    bets: Bets | None = None
    on: bool = False
    key: str | None = None
    client_seed: str = ""


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a participant may do at a seat: who (a role, or either), when (a phase,
    before its deadline), and how it is done; the answer is for the caller, with whether it
    is a replay of an earlier answer (an idempotent deal)."""

    role: str | None
    phase: str | None
    do: Callable[[UnitOfWork, SeatServices, int, str, Params], tuple[dict[str, Any], bool]]


def verify(uow: UnitOfWork, seat: Seat, player_id: int, action: str) -> None:
    """Raise why this participant may not take this action at this seat now."""
    rule = ACTIONS[action]
    _require_role(seat, player_id, rule.role)
    if rule.phase is not None:
        _require_phase(uow, seat, rule.phase)
    if action == "auto_approve" and seat.banker_away:
        raise ServiceError("not_your_turn", "you are leaving this seat", seat=seat.id)
    if action == "client_seed":
        seat_seed.check_open(seat)


def can(uow: UnitOfWork, seat: Seat, player_id: int, action: str) -> bool:
    try:
        verify(uow, seat, player_id, action)
    except ServiceError:
        return False
    return True


def allowed_actions(uow: UnitOfWork, seat: Seat, player_id: int) -> list[str]:
    """The actions this participant may take now (the browser enables its buttons by them;
    a bet or a balance may still refuse one)."""
    return [name for name in ACTIONS if can(uow, seat, player_id, name)]


def perform(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, action: str, params: Params
) -> tuple[dict[str, Any], bool]:
    """Any action by name (REST and WebSocket both come here): ``(answer, replayed)``."""
    rule = ACTIONS.get(action)
    if rule is None:
        raise ServiceError(
            "invalid_body",
            f"action is {', '.join(ACTIONS)}, state or ping",
            action=str(action)[:40],
        )
    return rule.do(uow, ctx, player_id, seat_id, params)


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


# -- publishing ----------------------------------------------------------------------------


def _commit(uow: UnitOfWork, ctx: SeatServices, seat: Seat, table: Table) -> SeatView:
    """Save the seat and emit its new state (delivered once the transaction commits)."""
    save(uow, seat)
    seen = _view(uow, seat, table)
    ctx.emit(uow, seen.event(seat.id))
    return seen


def _view(uow: UnitOfWork, seat: Seat, table: Table) -> SeatView:
    """The seat's view, with what each participant may do now."""
    allowed = {
        role: allowed_actions(uow, seat, holder)
        for role, holder in (("player", seat.player_id), ("banker", seat.banker_id))
        if holder is not None
    }
    return replace(view(uow, seat, table), allowed=allowed)


# -- the cycle -----------------------------------------------------------------------------


def _approve(uow: UnitOfWork, ctx: SeatServices, seat: Seat, table: Table) -> None:
    """The banker approved (requirements already checked): reserve, and the player's turn."""
    assert seat.banker_id is not None and seat.mode is not None
    exposure = terms_of(table).exposure
    escrow.reserve(uow, ctx.dealer.wallet, seat.id, seat.mode, seat.banker_id, exposure)
    seat.reserve = exposure
    seat.phase = "betting"
    seat.deadline_us = uow.now + terms_of(table).player_seconds * 1_000_000
    seat.notice = {"code": "approved", "role": "banker", "auto": seat.auto_approve}


def _begin(uow: UnitOfWork, ctx: SeatServices, seat: Seat, table: Table) -> None:
    """Both sides are seated and no round is open: the banker's approval is next."""
    assert seat.banker_id is not None and seat.mode is not None
    if seat.auto_approve:
        problem = banker_problem(uow, table, seat.banker_id, seat.mode)
        if problem is None:
            _approve(uow, ctx, seat, table)
            return
        seat.notice = {"code": problem.code, "role": "banker", **problem.details}
    seat.phase = "approval"
    seat.deadline_us = uow.now + terms_of(table).banker_seconds * 1_000_000


def _end_open_round(uow: UnitOfWork, ctx: SeatServices, seat: Seat) -> None:
    """Bets not dealt go back to the player; the banker's reserve goes back to the banker."""
    assert seat.mode is not None
    if seat.stake:
        assert seat.player_id is not None
        escrow.hold_bets(uow, ctx.dealer.wallet, seat.id, seat.mode, seat.player_id, -seat.stake)
    if seat.reserve:
        assert seat.banker_id is not None
        escrow.release(uow, ctx.dealer.wallet, seat.id, seat.mode, seat.banker_id, seat.reserve)
    seat.bets, seat.stake, seat.reserve = {}, 0, 0


def _remove(uow: UnitOfWork, ctx: SeatServices, seat: Seat, role: str, reason: str) -> None:
    """A participant leaves the seat; any open round ends undealt."""
    holder = seat.holder(role)
    if holder is None:
        return
    _end_open_round(uow, ctx, seat)
    seat_seed.end(uow, seat)  # the pair ends: its seed is revealed to both
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


def _wait(uow: UnitOfWork, ctx: SeatServices, seat: Seat) -> None:
    """One participant waits for a partner: not forever (a seat is not to be blocked)."""
    seat.deadline_us = uow.now + ctx.waiting_s * 1_000_000


def _depart(uow: UnitOfWork, ctx: SeatServices, seat: Seat, role: str, how: str) -> None:
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
    ctx: SeatServices,
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
    # The table's seats locked first: every join of the table waits here, so the check
    # below sees a seat another join of the same player just took (read before the lock,
    # both joins of one player at once, one as player and one as banker, sat twice).
    seats = load_table(uow, table.id)
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
        seat_seed.form(uow, seat)  # the pair's seed, committed before either client seed
        _begin(uow, ctx, seat, table)
    else:
        _wait(uow, ctx, seat)
    return _commit(uow, ctx, seat, table)


def leave(uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str) -> SeatView:
    """Stand up. Bets not dealt go back to the player; a banker who approved the round in
    play stays until it ends."""
    seat, table = _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "leave")
    _depart(uow, ctx, seat, _require_role(seat, player_id), "left")
    return _commit(uow, ctx, seat, table)


def stand_up_everywhere(uow: UnitOfWork, ctx: SeatServices, player_id: int) -> int:
    """The player leaves every seat at once (a time-out or a self-exclusion): a round open
    at the seat ends undealt, even one a banker approved (bets back to the player, the
    reserve back to the banker). The other side is told the player left, not why. How many
    seats they left."""
    # Locked as read: a seat the player left meanwhile (another worker) drops out here
    # rather than failing the time-out as ``not_seated`` below.
    seat_ids = uow.all(
        "SELECT id FROM banked_seats WHERE player_id = :p OR banker_id = :p ORDER BY id"
        + uow.for_update,
        {"p": player_id},
    )
    for (seat_id,) in seat_ids:
        seat, table = _seat_for(uow, ctx, seat_id)
        role = _require_role(seat, player_id)
        _remove(uow, ctx, seat, role, f"{role}_left")
        _commit(uow, ctx, seat, table)
    return len(seat_ids)


def approve(uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str) -> SeatView:
    """The banker approves the next round (points and balance are checked again)."""
    seat, table = _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "approve")
    assert seat.mode is not None
    problem = banker_problem(uow, table, player_id, seat.mode)
    if problem is not None:
        raise problem
    _approve(uow, ctx, seat, table)
    return _commit(uow, ctx, seat, table)


def set_client_seed(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, client_seed: str
) -> SeatView:
    """A participant's client seed for the pair's rounds, after the pair's seed was
    committed and before its first deal (``seat_seed``)."""
    seat, table = _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "client_seed")
    role = _require_role(seat, player_id)
    seat_seed.set_client_seed(seat, role, client_seed)
    seat.notice = {"code": "client_seed", "role": role}
    return _commit(uow, ctx, seat, table)


def set_auto_approve(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, on: bool
) -> SeatView:
    """AUTO-APPROVE on or off; turned on while a round waits for approval, it approves it."""
    seat, table = _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "auto_approve")
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


def _place(uow: UnitOfWork, ctx: SeatServices, seat: Seat, table: Table, bets: Bets) -> None:
    assert seat.mode is not None and seat.player_id is not None
    if bets.total:
        table.check_bets(bets)
        responsible.check_stake(uow, seat.player_id, seat.mode, bets.total)
    escrow.hold_bets(
        uow, ctx.dealer.wallet, seat.id, seat.mode, seat.player_id, bets.total - seat.stake
    )
    seat.bets = bets.to_json()
    seat.stake = bets.total


def place_bets(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, bets: Bets
) -> SeatView:
    """The player's bets on the table (replacing those placed), held in escrow until dealt;
    no bets takes them all back."""
    seat, table = _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "bets")
    _place(uow, ctx, seat, table, bets)
    seat.notice = {"code": "bets", "role": "player"}
    return _commit(uow, ctx, seat, table)


def deal(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, bets: Bets | None,
    loaded: tuple[Seat, Table] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """DEAL: the bets placed (or these bets) are dealt, settled and paid in this transaction
    (``round.play`` with the seat's banker as the ``PlayerBank``); ``loaded``: the seat as
    this transaction loaded (and locked) it already.

    The answer is the round as the player's history shows it.
    """
    seat, table = loaded or _seat_for(uow, ctx, seat_id)
    verify(uow, seat, player_id, "deal")
    _prefetch_deal(uow, ctx, seat, table, player_id)
    if bets is not None:
        _place(uow, ctx, seat, table, bets)
    if not seat.stake:
        raise ServiceError("no_bets", "place at least one bet before dealing")
    table = switches.in_play(uow, table)
    assert seat.mode is not None and seat.banker_id is not None
    placed = Bets(**seat.bets)
    table.check_bets(placed)
    mode, banker_id = seat.mode, seat.banker_id
    seat_seed.form(uow, seat)  # (a pair seated before seats had seeds gets one now)
    both = seat_seed.fix(seat)  # the first deal fixes both client seeds
    bank = PlayerBank(seat.id, banker_id, seat.reserve, terms_of(table).fee_rate,
                      banker_seed_source=both["banker"]["source"])  # fmt: skip
    (played,) = play(
        uow, ctx.dealer, bank, table_id=table.id, rules=table.rules, mode=mode,
        source=seat_seed.SeatShuffle(seat), stakes=[Stake(player_id, placed)],
    )  # fmt: skip
    banked = bank.recorded
    assert banked is not None
    history.MINE.ahead(uow, (player_id, played.id))  # the answer, with the next read
    seat.bets, seat.stake, seat.reserve = {}, 0, 0
    seat.last_round_id = played.id
    seat.shown = last_round(uow, played.id)
    seat.notice = {"code": "dealt", "role": "player", "round": played.id}
    ctx.emit(uow, {
        "type": "round", "seat_id": seat.id, "version": seat.version + 1,
        "round": seat.shown, "ids": {"player": player_id, "banker": banker_id},
        "private": {
            "player": {"balance": played.balance_after, "net": played.win - played.stake,
                       "points": banked.player_points},
            "banker": {"balance": banked.banker_after, "net": banked.banker_net,
                       "points": banked.banker_points},
        },
    })  # fmt: skip
    if seat.banker_away:
        _remove(uow, ctx, seat, "banker", "banker_left")
    else:
        _begin(uow, ctx, seat, table)
    _commit(uow, ctx, seat, table)
    return history.get_round(uow, player_id, played.id).to_json()


def _prefetch_deal(
    uow: UnitOfWork, ctx: SeatServices, seat: Seat, table: Table, player_id: int
) -> None:
    """Where the database pipelines, what a deal reads goes with the next round trip (sent
    once, however often asked for): the switch, the seat's seed, both players' exclusions
    and balances (locked: each posting of the deal is then sent without waiting for its
    answer), the banker's points (locked: the deal takes some) and the round's ``seq``."""
    switches.SWITCH.ahead(uow, table.id)
    seat_seed.SEED.ahead(uow, seat)
    if seat.mode is not None:
        responsible.STAKE_CHECK.ahead(uow, (player_id, seat.mode))
        if seat.banker_id is not None:
            responsible.STAKE_CHECK.ahead(uow, (seat.banker_id, seat.mode))
            prefetch(uow, ctx.dealer, seat.mode, player_id, fresh=False, others=[seat.banker_id])
            LOCKED_POINTS.ahead(uow, (seat.banker_id, seat.mode))


DEAL_PATH = "/api/seats/{seat_id}/deal"


def deal_request(seat_id: str, bets: Bets | None) -> str:
    """The hash a deal's Idempotency-Key is recorded with (REST and WebSocket alike)."""
    body = {"bets": None if bets is None else bets.to_json()}
    return idempotency.request_hash("POST", DEAL_PATH.format(seat_id=seat_id), body)


def _seen(
    act: Callable[[UnitOfWork, SeatServices, int, str, Params], SeatView],
) -> Callable[[UnitOfWork, SeatServices, int, str, Params], tuple[dict[str, Any], bool]]:
    """An action whose answer is the seat as the caller sees it."""

    def do(
        uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, params: Params
    ) -> tuple[dict[str, Any], bool]:
        return act(uow, ctx, player_id, seat_id, params).for_player(player_id), False

    return do


def _deal(
    uow: UnitOfWork, ctx: SeatServices, player_id: int, seat_id: str, params: Params
) -> tuple[dict[str, Any], bool]:
    """``deal`` once per idempotency key; a deal sent without one (a WebSocket message) gets
    one the server derives from the seat's state, recorded the same way."""
    key, loaded = params.key, None
    if key is None:
        loaded = _seat_for(uow, ctx, seat_id)
        key = f"seat:{loaded[0].id}:{loaded[0].version}"
        _prefetch_deal(uow, ctx, *loaded, player_id)  # with the key's lookup
    answer, replayed = idempotency.once(
        uow, player_id, idempotency.check_key(key), deal_request(seat_id, params.bets), 201,
        lambda u, p: deal(u, ctx, p, seat_id, params.bets, loaded),
    )  # fmt: skip
    return json.loads(answer.body), replayed


# The one table of a seat's actions, for REST and WebSocket alike (in the order shown).
ACTIONS: dict[str, Action] = {
    "approve": Action("banker", "approval", _seen(lambda u, c, p, s, _: approve(u, c, p, s))),
    "auto_approve": Action(
        "banker", None, _seen(lambda u, c, p, s, a: set_auto_approve(u, c, p, s, a.on))
    ),
    "bets": Action(
        "player", "betting", _seen(lambda u, c, p, s, a: place_bets(u, c, p, s, a.bets or Bets()))
    ),
    "deal": Action("player", "betting", _deal),
    "client_seed": Action(
        None, None, _seen(lambda u, c, p, s, a: set_client_seed(u, c, p, s, a.client_seed))
    ),
    "leave": Action(None, None, _seen(lambda u, c, p, s, _: leave(u, c, p, s))),
}


# -- reading -------------------------------------------------------------------------------


def seat_view(uow: UnitOfWork, ctx: SeatServices, seat_id: str) -> SeatView:
    seat, table = _seat_for(uow, ctx, seat_id)
    return _view(uow, seat, table)


def lobby(uow: UnitOfWork, ctx: SeatServices, player_id: int | None) -> dict[str, Any]:
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
