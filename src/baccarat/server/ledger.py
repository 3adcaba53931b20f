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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from baccarat.server.currencies import HOME, format_amount
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.money import Money, Party, Posted

MODES = ("fun", "real")
# "escrow": what player-banked seats hold in play (banked/money.py).
SYSTEM_KINDS = ("house", "cashier", "withdrawals", "escrow")
# Accounts whose balance is the sum of their entries, computed when asked, never cached
# (the escrow is shared by every player-banked seat of its mode; the seats' own rows say
# what it holds, and the audit checks that it holds exactly that).
DERIVED_KINDS = ("house", "cashier", "escrow")
# Players whose currency a process keeps at most (a full set is emptied).
PLAYER_CURRENCIES_KEPT = 100_000


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
    """The ids of the casino's own accounts, per mode and kind: in ``HOME`` (fixed by the
    first migration) and in each other currency a table has limits in (``others``, made
    when the casino starts: ``open_currencies``)."""

    ids: dict[tuple[str, str], int]
    others: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # Players' currencies as rounds learn them (``player_currency``).
    player_currencies: dict[int, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, uow: UnitOfWork) -> SystemAccounts:
        rows = uow.all("SELECT mode, kind, currency, id FROM accounts WHERE player_id IS NULL")
        return cls(
            {(mode, kind): int(i) for mode, kind, currency, i in rows if currency == HOME},
            {(mode, kind, c): int(i) for mode, kind, c, i in rows if c != HOME},
        )

    def get(self, mode: str, kind: str, currency: str = HOME) -> int:
        if currency == HOME:
            return self.ids[(mode, kind)]
        found = self.others.get((mode, kind, currency))
        if found is None:
            raise ServiceError("unsupported_currency", f"the casino keeps no {currency} accounts",
                               currency=currency)  # fmt: skip
        return found

    @property
    def currencies(self) -> frozenset[str]:
        """The currencies the casino keeps its accounts in (a player's may be any of them)."""
        return frozenset({HOME, *(c for _, _, c in self.others)})

    def derived(self) -> frozenset[int]:
        """The accounts whose balance is derived from their entries (house, cashier)."""
        return frozenset(
            [i for (_, kind), i in self.ids.items() if kind in DERIVED_KINDS]
            + [i for (_, kind, _), i in self.others.items() if kind in DERIVED_KINDS]
        )


def open_currencies(uow: UnitOfWork, currencies: Iterable[str]) -> None:
    """The casino's own accounts in each of these currencies, those it lacks made (by
    several workers starting at once too: the unique index keeps one of each)."""
    for currency in sorted(set(currencies) - {HOME}):
        for mode in MODES:
            for kind in SYSTEM_KINDS:
                uow.run(
                    "INSERT INTO accounts (player_id, mode, kind, balance, version, currency) "
                    "VALUES (NULL, :m, :k, 0, 0, :c) ON CONFLICT DO NOTHING",
                    {"m": mode, "k": kind, "c": currency},
                )


def currency_of(uow: UnitOfWork, player_id: int) -> str:
    """The currency of a player's accounts (one for both modes)."""
    found = uow.scalar(
        "SELECT currency FROM accounts WHERE player_id = :p AND mode = 'real' AND kind = 'player'",
        {"p": player_id},
    )
    if found is None:
        raise ServiceError("unknown_player", "the player has no account")
    return str(found)


def player_currency(uow: UnitOfWork, system: SystemAccounts, player_id: int) -> str:
    """``currency_of``, kept by the casino's accounts (it is set when the player registers
    and never changes): a round does not read it again."""
    known = system.player_currencies
    found = known.get(player_id)
    if found is None:
        if len(known) >= PLAYER_CURRENCIES_KEPT:
            known.clear()
        found = known[player_id] = currency_of(uow, player_id)
    return found


def casino_account(uow: UnitOfWork, system: SystemAccounts, mode: str, kind: str,
                   player_id: int) -> int:  # fmt: skip
    """The casino's account of a kind facing a player: in the player's currency."""
    return system.get(mode, kind, currency_of(uow, player_id))


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


def open_player_accounts(uow: UnitOfWork, player_id: int, currency: str = HOME) -> None:
    for mode in MODES:
        uow.run(
            "INSERT INTO accounts (player_id, mode, kind, balance, version, currency) "
            "VALUES (:p, :m, 'player', 0, 0, :c)",
            {"p": player_id, "m": mode, "c": currency},
        )


def _check(kind: str, amounts: Sequence[int]) -> None:
    """A transaction's entries must balance: a LedgerError (a bug) if they do not."""
    if len(amounts) < 2:
        raise LedgerError(f"a transaction needs two entries or more, got {len(amounts)}")
    if sum(amounts) != 0:
        raise LedgerError(f"entries of a {kind} transaction do not sum to zero: {amounts}")
    if 0 in amounts:
        raise LedgerError("an entry of zero moves nothing")


def _insert_transaction(
    uow: UnitOfWork, kind: str, mode: str, postings: Sequence[Posting], *,
    reference: str | None = None, memo: str | None = None,
) -> int:  # fmt: skip
    """Record a balanced transaction and its entries (balances are the caller's business)."""
    _check(kind, [p.amount for p in postings])
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
    uow.send(
        f"INSERT INTO ledger_entries (transaction_id, account_id, amount) VALUES {values}", params
    )
    return tx_id


# A posting on PostgreSQL, in one statement: the conditional update of each player's
# balance (``{moved}``: player, net, cover; refused unless the balance covers ``cover`` and
# stays at or above zero), then, only if every one was made, the transaction and its
# entries (``{entries}``: account, or NULL and the player whose account it is; amount).
# A row per player updated, with the transaction's id (NULL: refused, nothing written that
# the refusal's rollback does not undo).
# With the players' balances known (``{before}``: a fourth column, the balance each must
# be; ``{exact}``: it must be that; ``{last}``: ``_AHEAD``) it fails when refused: nothing
# pipelined after it runs (``_held``); the transaction's id taken ahead (``{id}``:
# ``id, ``; ``{tx}``: ``CAST(:tx AS BIGINT), ``) or the sequence's next.
_POST = (
    "WITH moved (player, net, cover{before}) AS (VALUES {moved}), "
    "debit AS (UPDATE accounts a SET balance = a.balance + m.net, version = a.version + 1 "
    "FROM moved m WHERE a.player_id = m.player AND a.mode = :mode AND a.kind = 'player' "
    "AND a.balance >= m.cover AND a.balance + m.net >= 0{exact} "
    "RETURNING a.player_id, a.id, a.balance), "
    "tx AS (INSERT INTO ledger_transactions ({id}kind, mode, created_us, reference, memo) "
    "SELECT {tx}:kind, :mode, :now, :reference, :memo "
    "WHERE (SELECT COUNT(*) FROM debit) = :players RETURNING id), "
    "entries AS (INSERT INTO ledger_entries (transaction_id, account_id, amount) "
    "SELECT tx.id, COALESCE(e.account, d.id), e.amount FROM tx, "
    "(VALUES {entries}) AS e (account, player, amount) "
    "LEFT JOIN debit d ON d.player_id = e.player) "
    "{last}"
)
_ANSWER = "SELECT d.player_id, d.balance, tx.id FROM debit d LEFT JOIN tx ON TRUE"
_TX, _EXACT = "CAST(:tx AS BIGINT), ", " AND a.balance = m.before"
_AHEAD = (
    "SELECT CASE WHEN EXISTS (SELECT 1 FROM tx) THEN 1 "
    "ELSE baccarat_stale('a balance read ahead and locked') END"
)
# ``UnitOfWork.known``: the balances this transaction holds locked, by (player, mode).
_BALANCES = "ledger.balances"


def _balance_kept(uow: UnitOfWork, key: tuple[int, str]) -> bool:
    return key in uow.known.get(_BALANCES, {})


# A posting of a player's money is coming, by (player, mode): where the database pipelines
# (``Lookup.ahead``), their balance is read and locked ahead, with the round's other reads,
# and a transaction's id taken. The posting then needs no answer before the round goes on:
# it is sent with the round's writes, and its conditional debit, still in the database,
# must find the balance as read (locked, but this unit may have moved it since): else the
# statement fails (``baccarat_stale``) and the unit is tried again, reading it then. Read
# only if it was sent ahead (``_held``); not sent when this transaction holds the balance.
POSTING: Lookup[tuple[int, str]] = Lookup(
    "SELECT balance, nextval(pg_get_serial_sequence('ledger_transactions', 'id')) "
    "FROM accounts WHERE player_id = :p AND mode = :m AND kind = 'player' FOR UPDATE",
    "p", "m", kept=_balance_kept,
)  # fmt: skip


def held_balance(uow: UnitOfWork, player_id: int, mode: str) -> int | None:
    """The player's balance as this transaction holds it locked after moving it (a posting
    on PostgreSQL), or None: read it."""
    known: int | None = uow.known.get(_BALANCES, {}).get((player_id, mode))
    return known


def _held(uow: UnitOfWork, mode: str, players: Sequence[int]) -> tuple[dict[int, int], list[int]]:
    """Of these players, the balances this transaction holds locked (read ahead, with a
    transaction's id taken each, or moved by its own postings since), and the ids taken."""
    known = uow.known.get(_BALANCES, {})
    balances: dict[int, int] = {}
    ids: list[int] = []
    for player in players:
        key = (player, mode)
        if key in known:
            balances[player] = known[key]
        elif POSTING.sent(uow, key) and (row := POSTING.one(uow, key)) is not None:
            balances[player] = int(row[0])
            ids.append(int(row[1]))
    return balances, ids


def _forget_balances(uow: UnitOfWork) -> None:
    """A balance moved other than by ``_post_pipelined``: none is known any more."""
    uow.known.pop(_BALANCES, None)


def _bigints(count: int, *names: str) -> str:
    """``count`` rows of VALUES, row ``i`` of the parameters ``:<name><i>`` as BIGINTs."""
    return ", ".join(
        "(" + ", ".join(f"CAST(:{name}{i} AS BIGINT)" for name in names) + ")" for i in range(count)
    )


def _post_pipelined(
    uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money, system: SystemAccounts,
    memo: str | None, with_id: bool,
) -> Posted:  # fmt: skip
    """``post_money`` on PostgreSQL: one statement, sent without waiting for its answer when
    every player's balance is held (``_held``) and, if ``with_id``, a transaction's id was
    taken with one of them; else one round trip."""
    players = money.players
    currency = _players_currency(uow, system, players)
    params: dict[str, object] = {
        "mode": mode, "kind": kind, "now": uow.now, "reference": reference, "memo": memo,
        "players": len(players),
    }  # fmt: skip
    for i, player in enumerate(players):
        params |= {f"p{i}": player, f"n{i}": money.net(player),
                   f"c{i}": money.covers.get(player, 0)}  # fmt: skip
    amounts: list[int] = []
    for move in money.moves:
        if move.amount:
            for party, amount in ((move.source, -move.amount), (move.target, move.amount)):
                i = len(amounts)
                if isinstance(party, int):
                    params |= {f"a{i}": None, f"w{i}": party}
                else:
                    params |= {f"a{i}": _system(system, mode, party, currency), f"w{i}": None}
                params[f"x{i}"] = amount
                amounts.append(amount)
    _check(kind, amounts)
    entries = _bigints(len(amounts), "a", "w", "x")
    known = uow.known.setdefault(_BALANCES, {})
    before, ids = _held(uow, mode, players)
    if len(before) == len(players) and (ids or not with_id):
        for player in players:
            cover, net = money.covers.get(player, 0), money.net(player)
            if before[player] < cover or before[player] + net < 0:
                raise _short(uow, player, mode, cover, net)
        moved = _bigints(len(players), "p", "n", "c", "b")
        params |= {f"b{i}": before[player] for i, player in enumerate(players)}
        tx_id = ids[0] if ids else None
        if tx_id is not None:
            params["tx"] = tx_id
        sql = _POST.format(before=", before", moved=moved, entries=entries, exact=_EXACT,
                           id="" if tx_id is None else "id, ", tx="" if tx_id is None else _TX,
                           last=_AHEAD)  # fmt: skip
        uow.send(sql, params)
        after = {player: before[player] + money.net(player) for player in players}
        known.update({(player, mode): balance for player, balance in after.items()})
        return Posted(0 if tx_id is None else tx_id, after, currency)
    moved = _bigints(len(players), "p", "n", "c")
    sql = _POST.format(before="", moved=moved, entries=entries, id="", tx="", exact="",
                       last=_ANSWER)  # fmt: skip
    rows = uow.all(sql, params)
    balances = {int(player): int(balance) for player, balance, _ in rows}
    if len(rows) < len(players) or rows[0][2] is None:
        player = next(p for p in players if p not in balances)
        raise _short(uow, player, mode, money.covers.get(player, 0), money.net(player))
    known.update({(player, mode): balance for player, balance in balances.items()})
    return Posted(int(rows[0][2]), balances, currency)


def _system(system: SystemAccounts, mode: str, party: Party, currency: str) -> int:
    """The casino's account a round moves money with (a derived one: house, escrow), in the
    round's currency."""
    if isinstance(party, int) or party not in DERIVED_KINDS:
        raise LedgerError(f"{party!r} is not an account a round moves money with")
    return system.get(mode, party, currency)


def _players_currency(uow: UnitOfWork, system: SystemAccounts, players: Sequence[int]) -> str:
    """The one currency of these players' accounts (kept: it is set when they register and
    never changes), for a posting that names the casino's accounts before it is sent."""
    if not system.others:
        return HOME
    return _one_currency({player_currency(uow, system, p) for p in players})


def _one_currency(found: set[str]) -> str:
    """The one currency of a posting's players (none: HOME)."""
    if len(found) > 1:  # the tables of several players offer HOME alone
        raise ServiceError("unsupported_currency", "these players' accounts are in different "
                           "currencies: they play at different tables")  # fmt: skip
    return found.pop() if found else HOME


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
    uow: UnitOfWork, kind: str, mode: str, postings: Sequence[Posting], *,
    reference: str | None = None, memo: str | None = None, system: SystemAccounts | None = None,
) -> int:  # fmt: skip
    """Post a balanced transaction and update the cached balances; refuses to overdraw."""
    if kind in ROUND_KINDS:
        raise LedgerError(f"a {kind} transaction is posted by post_money")
    tx_id = _insert_transaction(uow, kind, mode, postings, reference=reference, memo=memo)
    _forget_balances(uow)
    _apply(uow, postings, system)
    return tx_id


# The transactions that settle a round (one per round, referenced by the round's id).
ROUND_KINDS = ("round", "banked_round", "shared_round")


def post_money(
    uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money, *,
    system: SystemAccounts, memo: str | None = None, with_id: bool = True,
) -> Posted:  # fmt: skip
    """Post ``money`` (moves between parties) as one balanced transaction (``with_id``
    False: its id is not asked for, and may be given as 0).

    Each player's cached balance moves by their net in one conditional update, in player id
    order (so that two postings never wait for each other's rows in opposite orders):
    refused unless the balance covers what ``money.covers`` names for them (their stakes,
    before anything returns) and stays at or above zero. The casino's parties are its
    derived accounts of the mode (``house``, ``escrow``). On PostgreSQL the posting is one
    statement (one round trip; its rows locked in the order the server finds them: a
    deadlock between two postings is ended by the server and the unit of work tried again)."""
    if uow.pipelines and money.players:
        return _post_pipelined(uow, kind, mode, reference, money, system, memo, with_id)
    accounts: dict[int, int] = {}
    balances: dict[int, int] = {}
    currencies = set()
    for player in money.players:
        net, cover = money.net(player), money.covers.get(player, 0)
        row = uow.one(
            "UPDATE accounts SET balance = balance + :net, version = version + 1 "
            "WHERE player_id = :p AND mode = :m AND kind = 'player' AND balance >= :cover "
            "AND balance + :net >= 0 RETURNING id, balance, currency",
            {"net": net, "p": player, "m": mode, "cover": cover},
        )
        if row is None:
            raise _short(uow, player, mode, cover, net)
        accounts[player], balances[player] = int(row[0]), int(row[1])
        currencies.add(str(row[2]))
    currency = _one_currency(currencies)
    postings = _postings(money, mode, accounts, system, currency)
    tx_id = _insert_transaction(uow, kind, mode, postings, reference=reference, memo=memo)
    return Posted(tx_id, balances, currency)


def _postings(
    money: Money, mode: str, accounts: Mapping[int, int], system: SystemAccounts, currency: str
) -> list[Posting]:
    """The entries of ``money``: each move from its source's account to its target's."""

    def account(party: Party) -> int:
        return accounts[party] if isinstance(party, int) else _system(system, mode, party, currency)

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
    at most). Refused, all of it, as ``post_money`` refuses one. In ``HOME`` (the coup of a
    shared table: one pot for every player)."""
    found: list[Posted] = []
    _forget_balances(uow)
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
    if uow.locks_rows:
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
        "AND accounts.balance + v.net >= 0 AND accounts.currency = :c "
        "RETURNING accounts.player_id, accounts.id, accounts.balance",
        params | {"m": mode, "c": HOME},
    )
    accounts = {int(p): int(a) for p, a, _ in rows}
    balances = {int(p): int(b) for p, _, b in rows}
    for player, net, cover in moved:
        if player not in accounts:
            raise _short(uow, player, mode, cover, net)
    entries = [_postings(money, mode, accounts, system, HOME) for _, money in monies]
    for postings in entries:
        _check(kind, [p.amount for p in postings])
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
    row = uow.one(
        "SELECT balance, currency FROM accounts "
        "WHERE player_id = :p AND mode = :m AND kind = 'player'",
        {"p": player_id, "m": mode},
    )
    balance, code = (0, HOME) if row is None else (int(row[0]), str(row[1]))
    if cover > balance:
        return ServiceError(
            "insufficient_funds",
            f"the stake {format_amount(cover, code)} exceeds the {mode} balance "
            f"{format_amount(balance, code)}",
            stake=cover, balance=balance, currency=code,
        )  # fmt: skip
    return ServiceError(
        "insufficient_funds",
        "the balance does not cover this movement",
        balance=balance,
        amount=-net,
    )


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
    "Movement",
    "Posting",
    "SystemAccounts",
    "casino_account",
    "check_mode",
    "currency_of",
    "open_currencies",
    "open_player_accounts",
    "player_account",
    "player_currency",
    "post",
    "post_money",
    "post_monies",
    "statement",
    "transfer",
]
