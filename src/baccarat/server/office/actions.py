"""What staff do in the back office, each in the action's own transaction with its row of
the staff audit log (who, when, what, why) and, where GLI-19 asks, a significant event:
cashier decisions, voids (a real-money void needs a second admin: the two-person rule),
tables switched on or off and their limits, the large-win and large-wager thresholds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from baccarat.server import currencies, significant, switches, voids, wallet
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import get_round
from baccarat.server.ledger import SystemAccounts
from baccarat.server.office.staff import Staff, audit, check_reason
from baccarat.server.play.round import Dealer
from baccarat.server.tables import Table


def decide_request(
    uow: UnitOfWork, staff: Staff | None, system: SystemAccounts, request_id: int,
    approve: bool, reason: str | None, *, confirm_excluded: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Approve or reject a pending deposit or withdrawal, with the reason: by staff in the
    back office, or (``staff`` None) by the operator at the command line, whose note is
    optional. Either way audited and an ``adjustment`` event."""
    where: dict[str, str] = {}
    if staff is not None:
        staff.require("cashier")
        reason = check_reason(reason)
    else:
        where = {"by": "command line"}
    decided = wallet.decide(uow, request_id, approve, system, reason,
                            confirm_excluded=confirm_excluded)  # fmt: skip
    target = f"player:{decided.player_id}"
    action = f"{decided.kind}_{decided.status}"
    audit(uow, staff, action, target, reason, request=request_id, amount=decided.amount, **where)
    significant.record(uow, "adjustment", staff.actor if staff is not None else "system",
                       target, request=request_id, request_kind=decided.kind,
                       status=decided.status, amount=decided.amount, **where)  # fmt: skip
    return decided.to_json() | {"nickname": decided.nickname}


def move_money(
    uow: UnitOfWork, system: SystemAccounts, player_id: int, amount: int, deposit: bool,
    memo: str | None, *, confirm_excluded: bool = False,
) -> None:  # fmt: skip
    """A deposit or a withdrawal made by the operator at the command line (no request):
    audited and an ``adjustment`` event, as a cashier decision is."""
    if deposit:
        wallet.deposit(uow, player_id, amount, system, memo, confirm_excluded=confirm_excluded)
    else:
        wallet.withdraw(uow, player_id, amount, system, memo)
    kind = "deposit" if deposit else "withdrawal"
    target = f"player:{player_id}"
    audit(uow, None, f"{kind}_made", target, memo, amount=amount, by="command line")
    significant.record(uow, "adjustment", "system", target, request_kind=kind,
                       status="made", amount=amount, by="command line")  # fmt: skip


def void(
    uow: UnitOfWork, staff: Staff, dealer: Dealer, round_id: str, reason: str
) -> dict[str, Any]:
    """Void a play-money round at once; a real-money round's void is proposed, for another
    admin to approve."""
    staff.require("void_propose")
    reason = check_reason(reason)
    record = get_round(uow, None, round_id)
    if record.void_reason is not None:
        raise ServiceError("void_not_possible", f"round {round_id} is already void")
    if record.mode == "real":
        pending = uow.scalar(
            "SELECT id FROM void_proposals WHERE round_id = :r AND status = 'pending'",
            {"r": round_id},
        )
        if pending is not None:
            raise ServiceError("void_not_possible", f"a void of {round_id} is proposed already",
                               proposal=int(pending))  # fmt: skip
        proposal = int(uow.scalar(
            "INSERT INTO void_proposals (round_id, reason, proposed_by, proposed_us, status) "
            "VALUES (:r, :why, :s, :now, 'pending') RETURNING id",
            {"r": round_id, "why": reason, "s": staff.id, "now": uow.now},
        ))  # fmt: skip
        audit(uow, staff, "void_proposed", f"round:{round_id}", reason, proposal=proposal)
        significant.record(
            uow, "void_proposed", staff.actor, f"round:{round_id}", proposal=proposal
        )
        return {"status": "proposed", "proposal": proposal}
    return _voided(uow, staff, dealer, round_id, reason)


def _voided(
    uow: UnitOfWork, staff: Staff, dealer: Dealer, round_id: str, reason: str, **more: Any
) -> dict[str, Any]:
    done = voids.void_round(uow, dealer, round_id, reason)
    audit(uow, staff, "void", f"round:{round_id}", reason, **more)
    significant.record(uow, "void", staff.actor, f"round:{round_id}", mode=done.mode,
                  stake=done.stake, returned=done.win, **more)  # fmt: skip
    return {"status": "void", "round": done.to_json()}


def decide_void(
    uow: UnitOfWork, staff: Staff, dealer: Dealer, proposal_id: int, approve: bool,
    reason: str,
) -> dict[str, Any]:  # fmt: skip
    """A second admin approves (the round is voided) or rejects a proposed void."""
    staff.require("void_approve")
    reason = check_reason(reason)
    row = uow.one(
        "SELECT round_id, reason, proposed_by, status FROM void_proposals WHERE id = :i"
        + uow.for_update,
        {"i": proposal_id},
    )
    if row is None:
        raise ServiceError("not_found", f"no void proposal {proposal_id}")
    round_id, proposed_reason, proposer, status = str(row[0]), str(row[1]), int(row[2]), row[3]
    if status != "pending":
        raise ServiceError("void_not_possible", f"proposal {proposal_id} was {status} already")
    if proposer == staff.id:
        raise ServiceError("same_person", "another admin must approve the void you proposed")
    uow.run(
        "UPDATE void_proposals SET status = :s, decided_by = :by, decided_us = :now "
        "WHERE id = :i",
        {"s": "approved" if approve else "rejected", "by": staff.id, "now": uow.now,
         "i": proposal_id},
    )  # fmt: skip
    if not approve:
        audit(uow, staff, "void_rejected", f"round:{round_id}", reason, proposal=proposal_id)
        return {"status": "rejected", "proposal": proposal_id}
    return _voided(uow, staff, dealer, round_id, proposed_reason, proposal=proposal_id,
                   approval=reason, proposed_by=proposer)  # fmt: skip


def pending_voids(uow: UnitOfWork) -> list[dict[str, Any]]:
    from baccarat.server.history import iso_time

    return [
        {"id": int(i), "round": r, "reason": why, "proposed_by": by, "proposed": iso_time(int(t))}
        for i, r, why, by, t in uow.all(
            "SELECT v.id, v.round_id, v.reason, s.name, v.proposed_us FROM void_proposals v "
            "JOIN staff s ON s.id = v.proposed_by WHERE v.status = 'pending' ORDER BY v.id "
            "LIMIT 200"
        )
    ]


def switch_table(
    uow: UnitOfWork, staff: Staff, table: Table, enabled: bool, reason: str
) -> dict[str, Any]:
    """The kill switch: a table off starts no new round (those in flight finish: each is
    one transaction); on again, it plays."""
    staff.require("tables_change")
    reason = check_reason(reason)
    if switches.switch(uow, table, enabled):
        kind = "table_enabled" if enabled else "table_disabled"
        audit(uow, staff, kind, f"table:{table.id}", reason)
        significant.record(uow, kind, staff.actor, f"table:{table.id}", reason=reason)
    return {"table": table.id, "enabled": enabled}


def change_limits(
    uow: UnitOfWork, staff: Staff, table: Table, values: dict[str, Any] | None, reason: str
) -> dict[str, Any]:
    """New main limits from the table's next round (None: back to the tables file's)."""
    staff.require("tables_change")
    reason = check_reason(reason)
    limits = None if values is None else switches.check_limits(table, values)
    switches.set_limits(uow, table, limits)
    shown = (limits or table.limits).to_json()
    audit(uow, staff, "limits_changed", f"table:{table.id}", reason, limits=shown)
    significant.record(uow, "limits_changed", staff.actor, f"table:{table.id}", limits=shown,
                  reason=reason)  # fmt: skip
    return {"table": table.id, "limits": shown}


def set_thresholds(
    uow: UnitOfWork, staff: Staff, values: dict[str, int], reason: str, currency: str = HOME,
    offered: Iterable[str] = (),
) -> dict[str, Any]:  # fmt: skip
    """The large-win and large-wager thresholds of real money in a currency (its minor
    units: HOME's cents unless ``currency`` says another)."""
    staff.require("settings")
    reason = check_reason(reason)
    if currency not in currencies.known():
        raise ServiceError("unsupported_currency", f"no currency {currency!r} (ISO 4217)",
                           currency=str(currency)[:8])  # fmt: skip
    for name, value in values.items():
        if name not in significant.THRESHOLDS or type(value) is not int or not 0 < value <= 10**12:
            raise ServiceError(
                "invalid_limit", "thresholds are large_win and large_wager: minor units"
            )
        key = significant.threshold_key(name, currency)
        if uow.run("UPDATE office_settings SET value = :v, updated_us = :now WHERE key = :k",
                   {"k": key, "v": str(value), "now": uow.now}) == 0:  # fmt: skip
            uow.run("INSERT INTO office_settings (key, value, updated_us) VALUES (:k, :v, :now)",
                    {"k": key, "v": str(value), "now": uow.now})  # fmt: skip
    audit(uow, staff, "thresholds_changed", "settings", reason, currency=currency, **values)
    significant.record(uow, "configuration_changed", staff.actor, "settings", reason=reason,
                  currency=currency, **values)  # fmt: skip
    uow.after_commit(significant.forget_thresholds)
    return current_thresholds(uow, offered)


def current_thresholds(uow: UnitOfWork, offered: Iterable[str] = ()) -> dict[str, Any]:
    """HOME's thresholds (cents), and those of every other currency the tables offer or that
    has its own: ``own`` false while HOME's figures stand for it (as its minor units)."""
    values = significant.settings(uow, cached=False)
    answer: dict[str, Any] = {name: values[name] for name in significant.THRESHOLDS}
    others = {key.partition(".")[2] for key in values if "." in key} | set(offered)
    answer["currencies"] = {
        code: {name: values.get(significant.threshold_key(name, code), values[name])
               for name in significant.THRESHOLDS}
        | {"own": any(significant.threshold_key(name, code) in values
                      for name in significant.THRESHOLDS)}
        for code in sorted(others - {HOME})
    }  # fmt: skip
    return answer
