"""The operator's reconciliation report: every round on its wallet, with its transactions
and their final states (``GET /operator/v1/rounds``), oldest first, a page at a time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from baccarat.server.db.uow import UnitOfWork, sql_list
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.wallets.operator import protocols
from baccarat.server.wallets.operator.contract import Outcome
from baccarat.server.wallets.operator.outbox import SHOWN, UNFINISHED

PAGE = 500


def iso_us(value: str) -> int | None:
    """An ISO 8601 time (UTC unless it says otherwise) in microseconds; None if it is not one."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000)


def _time(value: str | None, name: str) -> int | None:
    if value is None or value == "":
        return None
    moment = iso_us(value)
    if moment is None:
        raise ServiceError(
            "invalid_request", f"{name} is an ISO 8601 time, like 2026-12-01T00:00:00Z",
            parameter=name,
        )  # fmt: skip
    return moment


# A transaction's state in the report, by what its answer meant (``contract.Outcome``).
_STATES: dict[Outcome, str] = {
    "ok": "ok", "refused": "refused", "not_applied": "does_not_exist", "unknown": "no_answer",
}  # fmt: skip


def rounds(
    uow: UnitOfWork, operator_id: str, start: str | None, end: str | None,
    player: str | None, after: str | None,
) -> dict[str, Any]:  # fmt: skip
    """A page of the operator's rounds (each one's contract names its transactions and
    reads their statuses)."""
    conditions = ["o.operator_id = :o"]
    params: dict[str, Any] = {"o": operator_id, "n": PAGE + 1}
    for name, value, op in (("from", _time(start, "from"), ">="), ("to", _time(end, "to"), "<")):
        if value is not None:
            conditions.append(f"o.created_us {op} :{name}")
            params[name] = value
    if player:
        conditions.append("o.external_player = :x")
        params["x"] = player[:64]
    if after:
        created = uow.scalar(
            "SELECT created_us FROM operator_rounds WHERE round_id = :r AND operator_id = :o",
            {"r": after[:64], "o": operator_id},
        )
        if created is None:
            raise ServiceError("invalid_request", f"{after!r} is not a round", parameter="after")
        # In the order of their creation (a shared coup's round not played has no row of
        # ``rounds``): the rounds created at the same microsecond in the order of their ids.
        conditions.append("(o.created_us > :at OR (o.created_us = :at AND o.round_id > :after))")
        params |= {"at": int(created), "after": after[:64]}
    rows = uow.all(
        "SELECT o.round_id, o.external_player, o.currency, o.table_id, o.created_us, o.state, "
        "o.stake, o.win, o.bet_status, o.win_status, o.rollback_status, "
        "(SELECT COUNT(*) FROM operator_calls c WHERE c.round_id = o.round_id "
        "AND c.call = 'bet'), "
        "(SELECT COUNT(*) FROM operator_calls c WHERE c.round_id = o.round_id "
        "AND c.call = 'win'), "
        "(SELECT COUNT(*) FROM operator_calls c WHERE c.round_id = o.round_id "
        "AND c.call = 'rollback'), o.protocol "
        f"FROM operator_rounds o WHERE {' AND '.join(conditions)} "
        "ORDER BY o.created_us, o.round_id LIMIT :n",
        params,
    )
    listed = [_line(row) for row in rows[:PAGE]]
    return {"rounds": listed, "next": listed[-1]["round"] if len(rows) > PAGE else None}


def _line(row: Any) -> dict[str, Any]:
    round_id, player, currency, table, created, state, stake, win = row[:8]
    bet, won, rolled, bets, wins, rollbacks, protocol = row[8:]
    contract = protocols.contract(protocol)
    if won is not None and not wins:
        wins = bets  # the win went with the bet, in its calls (a house round, ``actions``)

    def answered(status: str | None) -> str:
        return "pending" if status is None else _STATES[contract.outcome(status)]

    transactions = [{"type": "bet", "transaction_uuid": contract.transaction_id("bet", round_id),
                     "amount": int(stake), "state": answered(bet), "status": bet,
                     "attempts": int(bets)}]  # fmt: skip
    if wins:
        transactions.append({"type": "win",
                             "transaction_uuid": contract.transaction_id("win", round_id),
                             "amount": int(win), "state": answered(won), "status": won,
                             "attempts": int(wins)})  # fmt: skip
    if rollbacks:
        transactions.append({"type": "rollback",
                             "transaction_uuid": contract.transaction_id("rollback", round_id),
                             "state": answered(rolled), "status": rolled,
                             "attempts": int(rollbacks)})  # fmt: skip
    return {
        "round": round_id, "player": player, "currency": currency, "table": table,
        "created": iso_time(int(created)), "state": state, "stake": int(stake), "win": int(win),
        "transactions": transactions,
    }  # fmt: skip


# -- for ``baccarat admin operators`` --------------------------------------------------------


def listing(
    uow: UnitOfWork, operator_id: str | None, state: str | None, unfinished: bool, limit: int
) -> list[dict[str, Any]]:
    """The newest rounds on operators' wallets (unfinished ones: the stuck and retried).

    ``win`` is what the round pays once its bet was applied and it was played (``SHOWN``),
    else None: a round refused, rolled back or not yet answered pays nothing, whatever its
    settlement computed."""
    conditions: list[str] = ["1 = 1"]
    params: dict[str, Any] = {"n": limit, "now": uow.now}
    if operator_id:
        conditions.append("operator_id = :o")
        params["o"] = operator_id
    if state:
        conditions.append("state = :s")
        params["s"] = state
    if unfinished:
        # A shared coup's bet applied and not dealt yet (``placed``) is unfinished too.
        conditions.append(f"state IN ({sql_list(UNFINISHED)})")
    shown = sql_list(SHOWN)
    rows = uow.all(
        "SELECT round_id, operator_id, external_player, currency, state, stake, "
        f"CASE WHEN state IN ({shown}) THEN win END, attempts, created_us, next_us, lease_us, "
        "(SELECT COUNT(*) FROM operator_calls c WHERE c.round_id = o.round_id) "
        f"FROM operator_rounds o WHERE {' AND '.join(conditions)} "
        "ORDER BY created_us DESC LIMIT :n",
        params,
    )
    names = ("round", "operator", "player", "currency", "state", "stake", "win", "attempts",
             "created_us", "next_us", "lease_us", "calls")  # fmt: skip
    return [dict(zip(names, row, strict=True)) for row in rows]


def calls(uow: UnitOfWork, round_id: str) -> list[dict[str, Any]]:
    """Every call of a round, in order: sent when, answered when and how."""
    found = find_calls(uow, round_id=round_id)
    if not found and uow.one("SELECT 1 FROM operator_rounds WHERE round_id = :r",
                             {"r": round_id}) is None:  # fmt: skip
        raise ServiceError("unknown_round", f"no round {round_id} on an operator's wallet")
    return [{name: c[name] for name in _CALL_FIELDS[:11]} for c in found]


_CALL_FIELDS = ("id", "call", "transaction_uuid", "request_uuid", "attempt", "sent_us",
                "answered_us", "http_status", "status", "balance", "error", "round", "operator",
                "player", "reason", "body", "answer")  # fmt: skip


def find_calls(
    uow: UnitOfWork, *, round_id: str | None = None, player: str | None = None,
    operator_id: str | None = None, start: int | None = None, end: int | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """The calls to operators' wallets (every one is kept, with its body and its answer's)
    of a round, of an operator's player, sent from ``start`` until before ``end``
    (microseconds): the oldest first, at most ``limit``."""
    conditions: list[str] = ["1 = 1"]
    params: dict[str, Any] = {}
    for column, value, op in (("round_id", round_id, "="), ("player", player, "="),
                              ("operator_id", operator_id, "="), ("sent_us", start, ">="),
                              ("sent_us", end, "<")):  # fmt: skip
        if value is not None:
            name = f"v{len(params)}"
            conditions.append(f"{column} {op} :{name}")
            params[name] = value
    rows = uow.all(
        f"SELECT {', '.join(_CALL_COLUMNS)} FROM operator_calls "
        f"WHERE {' AND '.join(conditions)} ORDER BY id"
        + ("" if limit is None else f" LIMIT {int(limit)}"),
        params,
    )
    return [dict(zip(_CALL_FIELDS, row, strict=True)) for row in rows]


_CALL_COLUMNS = (*_CALL_FIELDS[:11], "round_id", "operator_id", "player", "reason", "body",
                 "answer")  # fmt: skip
