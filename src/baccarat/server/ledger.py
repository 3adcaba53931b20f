"""The double-entry ledger: balanced transactions of entries between accounts.

Every movement of money is one ledger transaction with at least two entries whose amounts
sum to zero. A player's account (and the pending-withdrawals account) caches the sum of its
entries in its ``balance`` column, updated by the same statements that post them, in the
same database transaction, and must stay at or above zero: the update is conditional, and a
CHECK constraint backs it in the database. The house's and the cashier's balances are
derived (the sum of their entries, never cached): they are the other side of nearly every
movement, and one cached row for them would make every round of every player wait for the
previous one to commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core import format_money
from .db.uow import UnitOfWork
from .errors import ServiceError
from .money import Money, Move, Party, Posted

MODES = ("fun", "real")
# "escrow": what player-banked seats hold in play (banked/money.py).
SYSTEM_KINDS = ("house", "cashier", "withdrawals", "escrow")
# Accounts whose balance is the sum of their entries, computed when asked, never cached
# (the escrow is shared by every player-banked seat of its mode; the seats' own rows say
# what it holds, and the audit checks that it holds exactly that).
DERIVED_KINDS = ("house", "cashier", "escrow")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ServiceError("invalid_mode", f"mode must be 'fun' or 'real', not {mode!r}", mode=mode)
    return mode


@dataclass(frozen=True, slots=True)
class Posting:
    """One entry of a transaction: ``amount`` cents into (positive) or out of an account."""

    account_id: int
    amount: int


class LedgerError(AssertionError):
    """A transaction that does not balance: a bug in the caller, never a player's fault."""


@dataclass(frozen=True)
class SystemAccounts:
    """The ids of the casino's own accounts, per mode and kind (fixed by the first migration)."""

    ids: dict[tuple[str, str], int]

    @classmethod
    def load(cls, uow: UnitOfWork) -> SystemAccounts:
        rows = uow.all("SELECT mode, kind, id FROM accounts WHERE player_id IS NULL")
        return cls({(mode, kind): account_id for mode, kind, account_id in rows})

    def get(self, mode: str, kind: str) -> int:
        return self.ids[(mode, kind)]

    def derived(self) -> frozenset[int]:
        """The accounts whose balance is derived from their entries (house, cashier)."""
        return frozenset(i for (_, kind), i in self.ids.items() if kind in DERIVED_KINDS)


def player_account(
    uow: UnitOfWork, player_id: int, mode: str, *, lock: bool = False
) -> tuple[int, int]:
    """``(account id, balance)`` of a player's account in a mode; with ``lock``, the row
    stays locked until commit (a decision taken on the balance read)."""
    row = uow.one(
        "SELECT id, balance FROM accounts WHERE player_id = :p AND mode = :m AND kind = 'player'"
        + (uow.for_update if lock else ""),
        {"p": player_id, "m": mode},
    )
    if row is None:
        raise ServiceError("unknown_player", "the player has no account in this mode")
    return int(row[0]), int(row[1])


def open_player_accounts(uow: UnitOfWork, player_id: int) -> None:
    for mode in MODES:
        uow.run(
            "INSERT INTO accounts (player_id, mode, kind, balance, version) "
            "VALUES (:p, :m, 'player', 0, 0)",
            {"p": player_id, "m": mode},
        )


def _insert_transaction(
    uow: UnitOfWork,
    kind: str,
    mode: str,
    postings: Sequence[Posting],
    *,
    reference: str | None = None,
    memo: str | None = None,
) -> int:
    """Record a balanced transaction and its entries (balances are the caller's business)."""
    _check_balanced(kind, postings)
    tx_id = int(
        uow.scalar(
            "INSERT INTO ledger_transactions (kind, mode, created_us, reference, memo) "
            "VALUES (:kind, :mode, :now, :reference, :memo) RETURNING id",
            {"kind": kind, "mode": mode, "now": uow.now, "reference": reference, "memo": memo},
        )
    )
    params: dict[str, int] = {"tx": tx_id}
    for i, posting in enumerate(postings):
        params[f"a{i}"] = posting.account_id
        params[f"x{i}"] = posting.amount
    values = ", ".join(f"(:tx, :a{i}, :x{i})" for i in range(len(postings)))
    uow.run(
        f"INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES {values}", params
    )
    return tx_id


def _check_balanced(kind: str, postings: Sequence[Posting]) -> None:
    if len(postings) < 2:
        raise LedgerError(f"a transaction needs two entries or more, got {len(postings)}")
    amounts = [p.amount for p in postings]
    if sum(amounts) != 0:
        raise LedgerError(f"entries of a {kind} transaction do not sum to zero: {postings}")
    if 0 in amounts:
        raise LedgerError("an entry of zero moves nothing")


def _apply_delta(uow: UnitOfWork, account_id: int, delta: int) -> int | None:
    """Add ``delta`` to an account's cached balance; None if that would make it negative."""
    row = uow.one(
        "UPDATE accounts SET balance = balance + :d, version = version + 1 "
        "WHERE id = :id AND balance + :d >= 0 RETURNING balance",
        {"d": delta, "id": account_id},
    )
    return None if row is None else int(row[0])


def _apply(uow: UnitOfWork, postings: Sequence[Posting], system: SystemAccounts | None) -> None:
    """Update the cached balances the postings move (not the derived ones); refuses to
    overdraw.

    Cached balances are updated in the order of their account ids, so that two
    transactions never wait for each other's rows in opposite orders.
    """
    deltas: dict[int, int] = {}
    for posting in postings:
        deltas[posting.account_id] = deltas.get(posting.account_id, 0) + posting.amount
    derived = (system or SystemAccounts.load(uow)).derived()
    for account_id in sorted(set(deltas) - derived):
        if deltas[account_id] and _apply_delta(uow, account_id, deltas[account_id]) is None:
            balance = uow.scalar("SELECT balance FROM accounts WHERE id = :id", {"id": account_id})
            raise ServiceError(
                "insufficient_funds",
                "the balance does not cover this movement",
                balance=None if balance is None else int(balance),
                amount=-deltas[account_id],
            )


def post(
    uow: UnitOfWork,
    kind: str,
    mode: str,
    postings: Sequence[Posting],
    *,
    reference: str | None = None,
    memo: str | None = None,
    system: SystemAccounts | None = None,
) -> int:
    """Post a balanced transaction and update the cached balances; refuses to overdraw."""
    if kind in ROUND_KINDS:
        raise LedgerError(f"a {kind} transaction is posted by post_money")
    tx_id = _insert_transaction(uow, kind, mode, postings, reference=reference, memo=memo)
    _apply(uow, postings, system)
    return tx_id


# The transactions that settle a round (one per round, referenced by the round's id).
ROUND_KINDS = ("round", "banked_round", "shared_round")


def post_money(
    uow: UnitOfWork,
    kind: str,
    mode: str,
    reference: str,
    money: Money,
    *,
    system: SystemAccounts,
    memo: str | None = None,
) -> Posted:
    """Post ``money`` (moves between parties) as one balanced transaction.

    Each player's cached balance moves by their net in one conditional update, in player id
    order (so that two postings never wait for each other's rows in opposite orders):
    refused unless the balance covers what ``money.covers`` names for them (their stakes,
    before anything returns) and stays at or above zero. The casino's parties are its
    derived accounts of the mode (``house``, ``escrow``)."""
    accounts: dict[int, int] = {}
    balances: dict[int, int] = {}
    for player in money.players:
        net, cover = money.net(player), money.covers.get(player, 0)
        row = uow.one(
            "UPDATE accounts SET balance = balance + :net, version = version + 1 "
            "WHERE player_id = :p AND mode = :m AND kind = 'player' AND balance >= :cover "
            "AND balance + :net >= 0 RETURNING id, balance",
            {"net": net, "p": player, "m": mode, "cover": cover},
        )
        if row is None:
            raise _short(uow, player, mode, cover, net)
        accounts[player], balances[player] = int(row[0]), int(row[1])
    postings = _postings(money, mode, accounts, system)
    tx_id = _insert_transaction(uow, kind, mode, postings, reference=reference, memo=memo)
    return Posted(tx_id, balances)


def _postings(
    money: Money, mode: str, accounts: Mapping[int, int], system: SystemAccounts
) -> list[Posting]:
    """The entries of ``money``: each move from its source's account to its target's."""

    def account(party: Party) -> int:
        if isinstance(party, int):
            return accounts[party]
        if party not in DERIVED_KINDS:
            raise LedgerError(f"{party!r} is not an account a round moves money with")
        return system.get(mode, party)

    return [
        posting
        for move in money.moves
        if move.amount
        for posting in (Posting(account(move.source), -move.amount),
                        Posting(account(move.target), move.amount))
    ]  # fmt: skip


BATCH = 400  # rounds per statement of ``post_monies``


def post_monies(
    uow: UnitOfWork, kind: str, mode: str, monies: Sequence[tuple[str, Money]],
    *, system: SystemAccounts,
) -> list[Posted]:  # fmt: skip
    """Post many rounds' ``money`` (reference, money: each player in one of them only) as
    ``post_money`` posts one, one transaction each, in a few statements for them all: the
    players' accounts locked in id order, their balances moved by one conditional update,
    the transactions and their entries each inserted by one statement (of ``BATCH`` rounds
    at most). Refused, all of it, as ``post_money`` refuses one."""
    found: list[Posted] = []
    for start in range(0, len(monies), BATCH):
        found += _post_batch(uow, kind, mode, monies[start : start + BATCH], system)
    return found


def _post_batch(
    uow: UnitOfWork, kind: str, mode: str, monies: Sequence[tuple[str, Money]],
    system: SystemAccounts,
) -> list[Posted]:  # fmt: skip
    moved = [(player, money.net(player), money.covers.get(player, 0))
             for _, money in monies for player in money.players]  # fmt: skip
    if len({player for player, _, _ in moved}) != len(moved):
        raise LedgerError("post_monies moves each player's balance once")
    if uow.dialect == "postgresql":
        uow.all(
            "SELECT id FROM accounts WHERE player_id = ANY(:players::bigint[]) AND mode = :m "
            "AND kind = 'player' ORDER BY id FOR UPDATE",
            {"players": [player for player, _, _ in moved], "m": mode},
        )
    table, params = uow.rows("v", (("p", "bigint"), ("net", "bigint"), ("cover", "bigint")),
                             moved)  # fmt: skip
    rows = uow.all(
        f"WITH {table} UPDATE accounts SET balance = accounts.balance + v.net, "
        "version = accounts.version + 1 FROM v WHERE accounts.player_id = v.p "
        "AND accounts.mode = :m AND accounts.kind = 'player' AND accounts.balance >= v.cover "
        "AND accounts.balance + v.net >= 0 RETURNING accounts.player_id, accounts.id, "
        "accounts.balance",
        params | {"m": mode},
    )
    accounts = {int(p): int(a) for p, a, _ in rows}
    balances = {int(p): int(b) for p, _, b in rows}
    for player, net, cover in moved:
        if player not in accounts:
            raise _short(uow, player, mode, cover, net)
    entries = [_postings(money, mode, accounts, system) for _, money in monies]
    for postings in entries:
        _check_balanced(kind, postings)
    table, params = uow.rows("v", (("r", "text"),), [(reference,) for reference, _ in monies])
    rows = uow.all(
        f"WITH {table} INSERT INTO ledger_transactions (kind, mode, created_us, reference, "
        "memo) SELECT :kind, :m, CAST(:now AS BIGINT), v.r, NULL FROM v RETURNING id, reference",
        params | {"kind": kind, "m": mode, "now": uow.now},
    )
    ids = {str(reference): int(tx) for tx, reference in rows}
    lines = [
        (ids[reference], posting.account_id, posting.amount)
        for (reference, _), postings in zip(monies, entries, strict=True)
        for posting in postings
    ]
    table, params = uow.rows("v", (("t", "bigint"), ("a", "bigint"), ("x", "bigint")), lines)
    uow.run(
        f"WITH {table} INSERT INTO ledger_entries (transaction_id, account_id, amount) "
        "SELECT t, a, x FROM v",
        params,
    )
    return [
        Posted(ids[reference], {p: balances[p] for p in money.players})
        for reference, money in monies
    ]


# A round whose money lives on an operator's wallet (``operators``): its transaction here
# has no entries (nothing moves in this ledger); the round's row references it.
ELSEWHERE_KIND = "operator_round"


def record_elsewhere(uow: UnitOfWork, mode: str, reference: str, memo: str) -> int:
    """The transaction of a round whose money moves on another wallet: no entries."""
    return int(
        uow.scalar(
            "INSERT INTO ledger_transactions (kind, mode, created_us, reference, memo) "
            "VALUES (:kind, :mode, :now, :reference, :memo) RETURNING id",
            {"kind": ELSEWHERE_KIND, "mode": mode, "now": uow.now, "reference": reference,
             "memo": memo},
        )
    )  # fmt: skip


def _short(uow: UnitOfWork, player_id: int, mode: str, cover: int, net: int) -> ServiceError:
    """The refusal of a posting the player's balance does not cover."""
    balance = int(
        uow.scalar(
            "SELECT balance FROM accounts WHERE player_id = :p AND mode = :m AND kind = 'player'",
            {"p": player_id, "m": mode},
        )
        or 0
    )
    if cover > balance:
        return ServiceError(
            "insufficient_funds",
            f"the stake {format_money(cover)} exceeds the {mode} balance {format_money(balance)}",
            stake=cover,
            balance=balance,
        )
    return ServiceError(
        "insufficient_funds",
        "the balance does not cover this movement",
        balance=balance,
        amount=-net,
    )


class LedgerWallet:
    """The wallet port (``money.Wallet``) on our double-entry ledger: every call one
    balanced transaction of this database, in the caller's unit of work."""

    def __init__(self, system: SystemAccounts) -> None:
        self.system = system

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int:
        return player_account(uow, player_id, mode)[1]

    def reserve(
        self, uow: UnitOfWork, kind: str, mode: str, reference: str, player_id: int, amount: int
    ) -> None:
        if amount:
            held = Move(player_id, "escrow", amount)
            moved = Money((held if amount > 0 else Move("escrow", player_id, -amount),))
            post_money(uow, kind, mode, reference, moved, system=self.system)

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        if kind not in ROUND_KINDS:
            raise LedgerError(f"{kind!r} is not a round's transaction: {ROUND_KINDS}")
        return post_money(uow, kind, mode, reference, money, system=self.system)

    def settle_many(
        self, uow: UnitOfWork, kind: str, mode: str, monies: Sequence[tuple[str, Money]]
    ) -> list[Posted]:
        """Many rounds of one coup (each player in one), settled in one batch."""
        if kind not in ROUND_KINDS:
            raise LedgerError(f"{kind!r} is not a round's transaction: {ROUND_KINDS}")
        return post_monies(uow, kind, mode, monies, system=self.system)

    def reverse(
        self, uow: UnitOfWork, mode: str, reference: str, money: Money, memo: str
    ) -> Posted:
        return post_money(uow, "void", mode, reference, money.reversed(), system=self.system,
                          memo=memo)  # fmt: skip


def transfer(
    uow: UnitOfWork,
    kind: str,
    mode: str,
    source: int,
    target: int,
    amount: int,
    *,
    reference: str | None = None,
    memo: str | None = None,
    system: SystemAccounts | None = None,
) -> int:
    """Move ``amount`` cents from one account to another as a two-entry transaction."""
    return post(
        uow,
        kind,
        mode,
        [Posting(source, -amount), Posting(target, amount)],
        reference=reference,
        memo=memo,
        system=system,
    )


@dataclass(frozen=True, slots=True)
class Movement:
    """One line of a player's statement."""

    transaction_id: int
    kind: str
    mode: str
    amount: int
    time_us: int
    reference: str | None
    memo: str | None


def statement(
    uow: UnitOfWork, account_id: int, *, limit: int, before: int | None = None
) -> list[Movement]:
    """A player's movements, newest first: the sum of entries per transaction."""
    page = "" if before is None else "AND t.id < :before "
    rows = uow.all(
        "SELECT t.id, t.kind, t.mode, SUM(e.amount), t.created_us, t.reference, t.memo "
        "FROM ledger_entries e JOIN ledger_transactions t ON t.id = e.transaction_id "
        f"WHERE e.account_id = :a {page}"
        "GROUP BY t.id, t.kind, t.mode, t.created_us, t.reference, t.memo "
        "ORDER BY t.id DESC LIMIT :limit",
        {"a": account_id, "before": before, "limit": limit},
    )
    return [Movement(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), r[5], r[6]) for r in rows]


__all__ = [
    "MODES",
    "ROUND_KINDS",
    "SYSTEM_KINDS",
    "LedgerError",
    "LedgerWallet",
    "Movement",
    "Posting",
    "SystemAccounts",
    "check_mode",
    "open_player_accounts",
    "player_account",
    "post",
    "post_money",
    "post_monies",
    "statement",
    "transfer",
]
