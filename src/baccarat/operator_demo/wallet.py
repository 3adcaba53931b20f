"""The demo operator's wallet: players, session tokens and transactions in SQLite, with the
operator's side of the contract (docs/operator-api.md): a repeated transaction id with the
same body gets the first answer, with another body ``RS_ERROR_DUPLICATE_TRANSACTION``; a
rollback of a bet never applied is remembered, and the bet refused if it comes later; wins
and rollbacks are accepted with an expired token and for a disabled player.

Every call runs on the one thread of the app's event loop, each one whole before the next:
the wallet needs no locks (a demo; a real platform has its own ledger).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import time
from pathlib import Path
from typing import Any

OK = "RS_OK"
PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
           "mallory", "niaj")  # fmt: skip
START_BALANCE = 100_000  # of the currency's minor unit: 1,000.00 dollars, 100,000 yen
TOKEN_TTL_US = 3600 * 1_000_000

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, balance INTEGER NOT NULL
    CHECK (balance >= 0), currency TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, player TEXT NOT NULL,
    expires_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (uuid TEXT PRIMARY KEY, kind TEXT NOT NULL,
    player TEXT NOT NULL, round TEXT, amount INTEGER NOT NULL, reference TEXT,
    body_hash TEXT NOT NULL, status TEXT NOT NULL, balance INTEGER, applied INTEGER NOT NULL,
    rolled_back INTEGER NOT NULL DEFAULT 0, created_us INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ix_transactions_reference ON transactions (reference);
"""


def now_us() -> int:
    return time.time_ns() // 1000


def body_hash(body: dict[str, Any]) -> str:
    """What makes two attempts the same call: the body without its request id."""
    same = {k: v for k, v in body.items() if k != "request_uuid"}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()


class DemoWallet:
    def __init__(self, folder: Path, currency: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.currency = currency
        self.db = sqlite3.connect(folder / "wallet.db", isolation_level=None,
                                  check_same_thread=False)  # fmt: skip
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a demo: durable enough, and fast
        self.db.executescript(SCHEMA)
        for player in PLAYERS:
            self.db.execute(
                "INSERT OR IGNORE INTO players (id, balance, currency) VALUES (?, ?, ?)",
                (player, START_BALANCE, currency),
            )

    def players(self) -> list[tuple[str, int, str, bool]]:
        rows = self.db.execute("SELECT id, balance, currency, disabled FROM players ORDER BY id")
        return [(p, int(b), c, bool(d)) for p, b, c, d in rows]

    def new_token(self, player: str, ttl_us: int = TOKEN_TTL_US) -> str:
        token = secrets.token_urlsafe(16)
        self.db.execute("INSERT INTO tokens (token, player, expires_us) VALUES (?, ?, ?)",
                        (token, player, now_us() + ttl_us))  # fmt: skip
        return token

    def player_of(self, token: str | None) -> str | None:
        row = self.db.execute(
            "SELECT player FROM tokens WHERE token = ? AND expires_us > ?", (token, now_us())
        ).fetchone()
        return None if row is None else str(row[0])

    def disable(self, player: str, disabled: bool = True) -> None:
        self.db.execute("UPDATE players SET disabled = ? WHERE id = ?", (int(disabled), player))

    def set_balance(self, player: str, balance: int) -> None:
        """A demonstration's deposit or withdrawal (the platform's cashier, not the game's)."""
        self.db.execute("UPDATE players SET balance = ? WHERE id = ?", (balance, player))

    def _player(self, player: str) -> tuple[int, str, bool] | None:
        row = self.db.execute(
            "SELECT balance, currency, disabled FROM players WHERE id = ?", (player,)
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), bool(row[2]))

    def answer(self, status: str, player: str | None) -> dict[str, Any]:
        found = None if player is None else self._player(player)
        return {"status": status, "balance": found[0] if found else 0,
                "currency": found[1] if found else self.currency}  # fmt: skip

    def _token_status(self, player: str, token: Any) -> str | None:
        """A refusal for this token, or None."""
        row = self.db.execute("SELECT player, expires_us FROM tokens WHERE token = ?",
                              (token,)).fetchone()  # fmt: skip
        if row is None or row[0] != player:
            return "RS_ERROR_INVALID_TOKEN"
        if row[1] <= now_us():
            return "RS_ERROR_TOKEN_EXPIRED"
        return None

    def handle(self, call: str, body: dict[str, Any]) -> dict[str, Any]:
        """One wallet call (``balance``, ``bet``, ``win``, ``rollback``): its answer."""
        player = body.get("player")
        if not isinstance(player, str) or self._player(player) is None:
            return self.answer("RS_ERROR_INVALID_TOKEN", None)
        balance, currency, disabled = self._player(player) or (0, "", False)
        if body.get("currency") != currency:
            return self.answer("RS_ERROR_WRONG_CURRENCY", player)
        if call == "balance":
            return self.answer(self._token_status(player, body.get("token")) or OK, player)
        uuid = body.get("transaction_uuid")
        if not isinstance(uuid, str) or not uuid:
            return self.answer("RS_ERROR_UNKNOWN", player)
        hashed = body_hash(body)
        seen = self.db.execute(
            "SELECT body_hash, status, balance, kind FROM transactions WHERE uuid = ?", (uuid,)
        ).fetchone()
        if seen is not None:
            if seen[0] != hashed or seen[3] != call:
                return self.answer("RS_ERROR_DUPLICATE_TRANSACTION", player)
            return {"status": seen[1], "balance": seen[2], "currency": currency}
        amount = body.get("amount", 0)
        if call in ("bet", "win") and (isinstance(amount, bool) or not isinstance(amount, int)
                                       or amount < 0):  # fmt: skip
            return self.answer("RS_ERROR_UNKNOWN", player)
        reference = body.get("reference_transaction_uuid")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            status, applied, delta = self._decide(call, body, player, balance, disabled,
                                                  int(amount or 0), reference)  # fmt: skip
            if applied:
                self.db.execute("UPDATE players SET balance = balance + ? WHERE id = ?",
                                (delta, player))  # fmt: skip
            after = balance + (delta if applied else 0)
            self.db.execute(
                "INSERT INTO transactions (uuid, kind, player, round, amount, reference, "
                "body_hash, status, balance, applied, created_us) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (uuid, call, player, body.get("round"), abs(delta), reference, hashed, status,
                 after, int(applied), now_us()),
            )  # fmt: skip
            if call == "rollback" and applied:
                self.db.execute("UPDATE transactions SET rolled_back = 1 WHERE uuid = ?",
                                (reference,))  # fmt: skip
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return {"status": status, "balance": after, "currency": currency}

    def _decide(self, call: str, body: dict[str, Any], player: str, balance: int,
                disabled: bool, amount: int, reference: Any) -> tuple[str, bool, int]:  # fmt: skip
        """(status, applied, what moves to the player) of a new transaction."""
        if call == "bet":
            rolled = self.db.execute(
                "SELECT 1 FROM transactions WHERE kind = 'rollback' AND reference = ?",
                (body["transaction_uuid"],),
            ).fetchone()
            if rolled is not None:  # its rollback came first: never applied
                return "RS_ERROR_DUPLICATE_TRANSACTION", False, 0
            refusal = self._token_status(player, body.get("token"))
            if refusal is not None:
                return refusal, False, 0
            if disabled:
                return "RS_ERROR_USER_DISABLED", False, 0
            if amount > balance:
                return "RS_ERROR_NOT_ENOUGH_MONEY", False, 0
            return OK, True, -amount
        bet = self.db.execute(
            "SELECT amount, applied, rolled_back, player FROM transactions "
            "WHERE uuid = ? AND kind = 'bet'",
            (reference,),
        ).fetchone()
        applied = bet is not None and bet[1] and bet[3] == player
        if call == "rollback":
            if not applied:
                return "RS_ERROR_TRANSACTION_DOES_NOT_EXIST", False, 0
            settled = self.db.execute(
                "SELECT 1 FROM transactions WHERE kind = 'win' AND reference = ?", (reference,)
            ).fetchone()
            if settled is not None:
                return "RS_ERROR_UNKNOWN", False, 0  # a settled bet is not rolled back
            return OK, True, int(bet[0])
        if call == "win":
            if not applied or bet[2]:
                return "RS_ERROR_TRANSACTION_DOES_NOT_EXIST", False, 0
            return OK, True, amount
        return "RS_ERROR_UNKNOWN", False, 0

    def ledger(self) -> list[dict[str, Any]]:
        """Every transaction, for reconciliation."""
        rows = self.db.execute(
            "SELECT uuid, kind, player, round, amount, reference, status, applied, rolled_back "
            "FROM transactions ORDER BY created_us"
        )
        names = ("uuid", "kind", "player", "round", "amount", "reference", "status", "applied",
                 "rolled_back")  # fmt: skip
        return [dict(zip(names, row, strict=True)) for row in rows]
