"""The wallet: balances, play-money top-ups, and the cashier (deposits and withdrawals).

Real money enters only through a deposit an operator confirms (directly, or by approving a
player's deposit request) and leaves through a withdrawal: a player's request reserves the
amount (moved to the pending-withdrawals account) until an operator approves it (the money
leaves to the cashier) or rejects it (the money returns to the player).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from baccarat.server import accounts, ledger, responsible
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.ledger import SystemAccounts

MAX_AMOUNT = 10**13  # 100 billion in cents: far beyond any real movement, far below BIGINT


def check_amount(amount: int) -> int:
    if type(amount) is not int or not 0 < amount <= MAX_AMOUNT:
        raise ServiceError(
            "invalid_amount", "an amount is a positive whole number of cents", amount=amount
        )
    return amount


def balances(uow: UnitOfWork, player_id: int) -> dict[str, int]:
    rows = uow.all(
        "SELECT mode, balance FROM accounts WHERE player_id = :p AND kind = 'player'",
        {"p": player_id},
    )
    found = {mode: int(balance) for mode, balance in rows}
    return {mode: found.get(mode, 0) for mode in ledger.MODES}


def pending_withdrawals(uow: UnitOfWork, player_id: int) -> int:
    total = uow.scalar(
        "SELECT COALESCE(SUM(amount), 0) FROM cashier_requests "
        "WHERE player_id = :p AND kind = 'withdrawal' AND status = 'pending'",
        {"p": player_id},
    )
    return int(total)


def top_up_fun(uow: UnitOfWork, player_id: int, system: SystemAccounts) -> int:
    """Bring the play-money balance back up to 1,000.00; returns the amount added."""
    # Locked: two top-ups at once must not both see the same low balance and both add.
    account_id, balance = ledger.player_account(uow, player_id, "fun", lock=True)
    missing = accounts.FUN_START - balance
    if missing <= 0:
        return 0
    ledger.transfer(
        uow,
        "top_up",
        "fun",
        ledger.casino_account(uow, system, "fun", "cashier", player_id),
        account_id,
        missing,
        reference=f"player:{player_id}",
        system=system,
    )
    return missing


def _real_move(
    uow: UnitOfWork,
    kind: str,
    player_id: int,
    amount: int,
    system: SystemAccounts,
    *,
    paid_in: bool,
    casino: str = "cashier",
    memo: str | None = None,
) -> int:
    """Move ``amount`` (checked) into (``paid_in``) or out of a player's real account, from
    or to the casino's ``casino`` account; returns the ledger transaction id."""
    check_amount(amount)
    account_id, _ = ledger.player_account(uow, player_id, "real")
    other = ledger.casino_account(uow, system, "real", casino, player_id)
    source, target = (other, account_id) if paid_in else (account_id, other)
    return ledger.transfer(
        uow,
        kind,
        "real",
        source,
        target,
        amount,
        reference=f"player:{player_id}",
        memo=memo,
        system=system,
    )


def deposit(
    uow: UnitOfWork,
    player_id: int,
    amount: int,
    system: SystemAccounts,
    memo: str | None = None,
    *,
    confirm_excluded: bool = False,
) -> int:
    """An operator-confirmed deposit of real money; returns the ledger transaction id. A
    timed-out or self-excluded player is credited only with ``confirm_excluded`` (audited)."""
    responsible.admit_operator_credit(
        uow, player_id, "deposit", amount, confirm_excluded=confirm_excluded
    )
    return _real_move(uow, "deposit", player_id, amount, system, paid_in=True, memo=memo)


def withdraw(
    uow: UnitOfWork, player_id: int, amount: int, system: SystemAccounts, memo: str | None = None
) -> int:
    """An operator pays real money out to the player directly (no request)."""
    return _real_move(uow, "withdrawal", player_id, amount, system, paid_in=False, memo=memo)


@dataclass(frozen=True, slots=True)
class CashierRequest:
    id: int
    player_id: int
    nickname: str
    kind: str
    amount: int
    status: str
    created_us: int
    decided_us: int | None
    note: str | None
    # The currency of the amount: the player's accounts' (in its minor unit).
    currency: str

    def to_json(self) -> dict[str, Any]:
        from baccarat.server.history import iso_time

        return {
            "id": self.id,
            "kind": self.kind,
            "amount": self.amount,
            "currency": self.currency,
            "status": self.status,
            "time": iso_time(self.created_us),
            "decided": None if self.decided_us is None else iso_time(self.decided_us),
            "note": self.note,
        }


_REQUEST_COLUMNS = (
    "r.id, r.player_id, p.nickname, r.kind, r.amount, r.status, r.created_us, "
    "r.decided_us, r.note, a.currency FROM cashier_requests r "
    "JOIN players p ON p.id = r.player_id "
    "JOIN accounts a ON a.player_id = r.player_id AND a.mode = 'real' AND a.kind = 'player'"
)


def _request(row: tuple[Any, ...]) -> CashierRequest:
    return CashierRequest(
        int(row[0]),
        int(row[1]),
        row[2],
        row[3],
        int(row[4]),
        row[5],
        int(row[6]),
        None if row[7] is None else int(row[7]),
        row[8],
        row[9],
    )


def get_request(uow: UnitOfWork, request_id: int, *, lock: bool = False) -> CashierRequest:
    row = uow.one(
        f"SELECT {_REQUEST_COLUMNS} WHERE r.id = :id" + (uow.lock("r") if lock else ""),
        {"id": request_id},
    )
    if row is None:
        raise ServiceError("unknown_request", f"no cashier request {request_id}")
    return _request(row)


def list_requests(
    uow: UnitOfWork,
    *,
    player_id: int | None = None,
    kind: str | None = None,
    status: str | None = None,
    limit: int = 100,
) -> list[CashierRequest]:
    conditions, params = [], {"limit": limit}
    for column, value in (("r.player_id", player_id), ("r.kind", kind), ("r.status", status)):
        if value is not None:
            name = column.split(".")[1]
            conditions.append(f"{column} = :{name}")
            params[name] = value  # type: ignore[assignment]
    where = (" WHERE " + " AND ".join(conditions)) if conditions else ""
    rows = uow.all(f"SELECT {_REQUEST_COLUMNS}{where} ORDER BY r.id DESC LIMIT :limit", params)
    return [_request(row) for row in rows]


def _insert_request(
    uow: UnitOfWork, player_id: int, kind: str, amount: int, reserve_tx: int | None
) -> int:
    return int(
        uow.scalar(
            "INSERT INTO cashier_requests "
            "(player_id, kind, mode, amount, status, created_us, reserve_transaction_id) "
            "VALUES (:p, :k, 'real', :a, 'pending', :now, :tx) RETURNING id",
            {"p": player_id, "k": kind, "a": amount, "now": uow.now, "tx": reserve_tx},
        )
    )


def request_deposit(uow: UnitOfWork, player_id: int, amount: int) -> CashierRequest:
    """A player announces a deposit; no money moves until an operator approves it."""
    check_amount(amount)
    responsible.admit_deposit(uow, player_id, amount)
    return get_request(uow, _insert_request(uow, player_id, "deposit", amount, None))


def request_withdrawal(
    uow: UnitOfWork, player_id: int, amount: int, system: SystemAccounts
) -> CashierRequest:
    """A player asks to withdraw: the amount is reserved at once (refused if not covered)."""
    reserve_tx = _real_move(
        uow, "withdrawal_reserve", player_id, amount, system, paid_in=False, casino="withdrawals"
    )
    return get_request(uow, _insert_request(uow, player_id, "withdrawal", amount, reserve_tx))


def decide(
    uow: UnitOfWork,
    request_id: int,
    approve: bool,
    system: SystemAccounts,
    note: str | None = None,
    *,
    confirm_excluded: bool = False,
) -> CashierRequest:
    """An operator approves or rejects a pending deposit or withdrawal request (approving a
    deposit for a player excluded since needs ``confirm_excluded``, audited)."""
    request = get_request(uow, request_id, lock=True)
    if request.status != "pending":
        raise ServiceError(
            "request_not_pending",
            f"request {request_id} was already {request.status}",
            status=request.status,
        )
    if request.kind == "deposit" and approve:
        responsible.admit_operator_credit(
            uow, request.player_id, "deposit_request", request.amount,
            confirm_excluded=confirm_excluded,
        )  # fmt: skip
    account_id, _ = ledger.player_account(uow, request.player_id, "real")
    cashier = ledger.casino_account(uow, system, "real", "cashier", request.player_id)
    reference = f"request:{request_id}"
    tx_id: int | None = None
    if request.kind == "deposit" and approve:
        tx_id = ledger.transfer(
            uow, "deposit", "real", cashier, account_id, request.amount,
            reference=reference, memo=note, system=system,
        )  # fmt: skip
    elif request.kind == "withdrawal":
        pending = ledger.casino_account(uow, system, "real", "withdrawals", request.player_id)
        if approve:
            kind, target = "withdrawal", cashier
        else:
            kind, target = "withdrawal_return", account_id
        tx_id = ledger.transfer(
            uow, kind, "real", pending, target, request.amount,
            reference=reference, memo=note, system=system,
        )  # fmt: skip
    uow.run(
        "UPDATE cashier_requests SET status = :s, decided_us = :now, note = :note, "
        "decision_transaction_id = :tx WHERE id = :id",
        {
            "s": "approved" if approve else "rejected",
            "now": uow.now,
            "note": note,
            "tx": tx_id,
            "id": request_id,
        },
    )
    return get_request(uow, request_id)
