"""The demo operator's wallet: players, session tokens and transactions in SQLite, with the
operator's side of either contract (docs/operator-api.md): API v1 (``V1``) or the actions
contract (``ActionsWallet``).

What every contract asks of the operator, done here for both: a request sent again is
answered with its first answer, kept as it was sent (the same bytes), and applied once; the
same transaction (or action) id with another body is refused; a rollback of what was never
applied is remembered, and the original refused if it comes later; wins and rollbacks are
accepted with an expired token and for a disabled player (the money is owed); a bet is
refused for the player's own gambling limit (``set_limit``) with the operator's reason; a
message left for a player (``leave_message``: a reality check) goes with the next answer to
them, and their choice is kept.

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

# A balance may go below zero in one case: the rollback of a win the player spent before
# its request's answer was lost (the actions contract undoes a round's bet and win at once).
SCHEMA = """
CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, balance INTEGER NOT NULL,
    currency TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0, limit_reason TEXT);
CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, player TEXT NOT NULL,
    expires_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (uuid TEXT PRIMARY KEY, kind TEXT NOT NULL,
    player TEXT NOT NULL, round TEXT, amount INTEGER NOT NULL, reference TEXT,
    status TEXT NOT NULL, balance INTEGER, applied INTEGER NOT NULL,
    rolled_back INTEGER NOT NULL DEFAULT 0, created_us INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS ix_transactions_reference ON transactions (reference);
CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body_hash TEXT NOT NULL,
    status INTEGER NOT NULL, answer BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS requests (id INTEGER PRIMARY KEY, call TEXT NOT NULL,
    round TEXT, created_us INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, player TEXT NOT NULL,
    text TEXT NOT NULL, choices TEXT NOT NULL, history_url TEXT, sent INTEGER NOT NULL
    DEFAULT 0, choice TEXT, chosen_us INTEGER);
"""


def now_us() -> int:
    return time.time_ns() // 1000


def body_hash(body: dict[str, Any]) -> str:
    """What makes two attempts the same call: the body without its request id."""
    same = {k: v for k, v in body.items() if k != "request_uuid"}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()


def raw(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def _amount(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class DemoWallet:
    """The players and their money, whatever contract the wallet speaks."""

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

    # -- the platform's own ---------------------------------------------------------------

    def players(self) -> list[tuple[str, int, str, bool]]:
        rows = self.db.execute("SELECT id, balance, currency, disabled FROM players ORDER BY id")
        return [(p, int(b), c, bool(d)) for p, b, c, d in rows]

    def new_token(self, player: str, ttl_us: int = TOKEN_TTL_US) -> str:
        token = secrets.token_urlsafe(16)
        self.db.execute("INSERT INTO tokens (token, player, expires_us) VALUES (?, ?, ?)",
                        (token, player, now_us() + ttl_us))  # fmt: skip
        return token

    def expire_tokens(self, player: str) -> None:
        """The player's sessions end now (they logged out, or timed out, at the platform)."""
        self.db.execute("UPDATE tokens SET expires_us = ? WHERE player = ?", (now_us(), player))

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

    def set_limit(self, player: str, reason: str | None) -> None:
        """The player's own gambling limit is reached (``reason``, in the platform's words:
        every bet is refused with it), or no longer (None)."""
        self.db.execute("UPDATE players SET limit_reason = ? WHERE id = ?", (reason, player))

    def leave_message(self, player: str, text: str, choices: list[str],
                      history_url: str | None = None) -> int:  # fmt: skip
        """A message for the player (a reality check), sent with the next answer to them."""
        cursor = self.db.execute(
            "INSERT INTO messages (player, text, choices, history_url) VALUES (?, ?, ?, ?)",
            (player, text, json.dumps(choices), history_url),
        )
        return int(cursor.lastrowid or 0)

    def ledger(self) -> list[dict[str, Any]]:
        """Every transaction, for reconciliation."""
        rows = self.db.execute(
            "SELECT uuid, kind, player, round, amount, reference, status, applied, rolled_back "
            "FROM transactions ORDER BY created_us, rowid"
        )
        names = ("uuid", "kind", "player", "round", "amount", "reference", "status", "applied",
                 "rolled_back")  # fmt: skip
        return [dict(zip(names, row, strict=True)) for row in rows]

    def requests(self) -> dict[str, int]:
        """How many wallet requests each round's calls made (every one received)."""
        rows = self.db.execute(
            "SELECT round, COUNT(*) FROM requests WHERE round IS NOT NULL GROUP BY round"
        )
        return {str(r): int(n) for r, n in rows}

    def messages(self) -> list[dict[str, Any]]:
        """The messages left for players, whether they went, and the players' choices."""
        rows = self.db.execute("SELECT id, player, text, sent, choice FROM messages ORDER BY id")
        names = ("id", "player", "text", "sent", "choice")
        return [dict(zip(names, row, strict=True)) for row in rows]

    # -- for the contracts ----------------------------------------------------------------

    def received(self, call: str, round_id: Any) -> None:
        """A wallet request came (counted per round, whatever becomes of it)."""
        round_id = round_id if isinstance(round_id, str) else None
        self.db.execute("INSERT INTO requests (call, round, created_us) VALUES (?, ?, ?)",
                        (call, round_id, now_us()))  # fmt: skip

    def player(self, player: Any) -> tuple[int, str, bool, str | None] | None:
        """(balance, currency, disabled, limit reason) of a player, or None."""
        if not isinstance(player, str):
            return None
        row = self.db.execute(
            "SELECT balance, currency, disabled, limit_reason FROM players WHERE id = ?",
            (player,),
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), bool(row[2]), row[3])

    def balance(self, player: str) -> int:
        found = self.player(player)
        return found[0] if found else 0

    def token_refusal(self, player: str, token: Any) -> str | None:
        """ "invalid" or "expired" for this token of the player, or None."""
        row = self.db.execute("SELECT player, expires_us FROM tokens WHERE token = ?",
                              (token,)).fetchone()  # fmt: skip
        if row is None or row[0] != player:
            return "invalid"
        return "expired" if row[1] <= now_us() else None

    def with_message(self, player: str | None, answer: dict[str, Any]) -> dict[str, Any]:
        """The answer, with the oldest message for the player not sent yet (then sent)."""
        if player is None:
            return answer
        row = self.db.execute(
            "SELECT id, text, choices, history_url FROM messages WHERE player = ? AND sent = 0 "
            "ORDER BY id LIMIT 1",
            (player,),
        ).fetchone()
        if row is None:
            return answer
        self.db.execute("UPDATE messages SET sent = 1 WHERE id = ?", (row[0],))
        message = {"id": f"m-{row[0]}", "text": row[1], "choices": json.loads(row[2])}
        if row[3]:
            message["history_url"] = row[3]
        return answer | {"message": message}

    def choose(self, player: str, message: Any, choice: Any) -> bool:
        """The player's choice on a message of theirs (False: no such message)."""
        number = message[2:] if isinstance(message, str) and message.startswith("m-") else ""
        found = self.db.execute(
            "UPDATE messages SET choice = ?, chosen_us = ? WHERE id = ? AND player = ? "
            "AND choice IS NULL",
            (str(choice), now_us(), int(number) if number.isdigit() else -1, player),
        )
        return found.rowcount == 1

    def first_answer(self, key: str, hashed: str) -> tuple[int, bytes] | bool | None:
        """The answer a request was given first (HTTP status, its bytes), None if it is
        new, or False if its key came with another body."""
        row = self.db.execute("SELECT body_hash, status, answer FROM answers WHERE key = ?",
                              (key,)).fetchone()  # fmt: skip
        if row is None:
            return None
        return (int(row[1]), bytes(row[2])) if row[0] == hashed else False

    def keep_answer(self, key: str, hashed: str, status: int, answer: bytes) -> None:
        self.db.execute("INSERT INTO answers (key, body_hash, status, answer) VALUES (?, ?, ?, ?)",
                        (key, hashed, status, answer))  # fmt: skip

    def record(self, uuid: str, kind: str, player: str, round_id: Any, delta: int,
               reference: Any, status: str, applied: bool) -> int:  # fmt: skip
        """A transaction (applied: its ``delta`` moves the balance); the balance after."""
        if applied:
            self.db.execute("UPDATE players SET balance = balance + ? WHERE id = ?",
                            (delta, player))  # fmt: skip
        after = self.balance(player)
        self.db.execute(
            "INSERT INTO transactions (uuid, kind, player, round, amount, reference, status, "
            "balance, applied, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (uuid, kind, player, round_id if isinstance(round_id, str) else None, abs(delta),
             reference if isinstance(reference, str) else None, status, after, int(applied),
             now_us()),
        )  # fmt: skip
        if kind == "rollback" and applied:
            self.db.execute("UPDATE transactions SET rolled_back = 1 WHERE uuid = ?",
                            (reference,))  # fmt: skip
        return after

    def transaction(self, uuid: Any) -> tuple[str, int, bool, bool, str, str | None] | None:
        """(kind, amount, applied, rolled back, player, round) of a transaction, or None."""
        row = self.db.execute(
            "SELECT kind, amount, applied, rolled_back, player, round FROM transactions "
            "WHERE uuid = ?",
            (uuid,),
        ).fetchone()
        if row is None:
            return None
        return str(row[0]), int(row[1]), bool(row[2]), bool(row[3]), str(row[4]), row[5]

    def rolled_back_before(self, uuid: str) -> bool:
        """Whether a rollback of this transaction came before it (it is refused now)."""
        found = self.db.execute(
            "SELECT 1 FROM transactions WHERE kind = 'rollback' AND reference = ?", (uuid,)
        ).fetchone()
        return found is not None


class V1:
    """The operator's side of API v1: ``POST /wallet/{balance,bet,win,rollback,message}``,
    answered ``{"status", "balance", "currency"}`` (HTTP 200)."""

    calls = ("balance", "bet", "win", "rollback", "message")

    def __init__(self, wallet: DemoWallet) -> None:
        self.wallet = wallet

    def answer(self, status: str, player: str | None) -> dict[str, Any]:
        found = self.wallet.player(player)
        return {"status": status, "balance": found[0] if found else 0,
                "currency": found[1] if found else self.wallet.currency}  # fmt: skip

    def handle(self, call: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """One wallet call: its answer (HTTP status, body)."""
        w = self.wallet
        player = body.get("player")
        found = w.player(player)
        if found is None:
            return 200, raw(self.answer("RS_ERROR_INVALID_TOKEN", None))
        assert isinstance(player, str)
        balance, currency, disabled, limit = found
        if body.get("currency") != currency:
            return 200, raw(self.answer("RS_ERROR_WRONG_CURRENCY", player))
        if call in ("balance", "message"):
            refusal = w.token_refusal(player, body.get("token"))
            status = _V1_TOKEN.get(refusal or "", OK)
            if call == "message" and status == OK:
                w.choose(player, body.get("message_id"), body.get("choice"))
            return 200, raw(w.with_message(player, self.answer(status, player)))
        uuid = body.get("transaction_uuid")
        if not isinstance(uuid, str) or not uuid:
            return 200, raw(self.answer("RS_ERROR_UNKNOWN", player))
        hashed = body_hash(body | {"call": call})
        first = w.first_answer(uuid, hashed)
        if first is False:
            return 200, raw(self.answer("RS_ERROR_DUPLICATE_TRANSACTION", player))
        if isinstance(first, tuple):
            return first  # the first answer, as it was sent
        amount = _amount(body.get("amount", 0))
        if amount is None:
            return 200, raw(self.answer("RS_ERROR_UNKNOWN", player))
        reference = body.get("reference_transaction_uuid")
        w.db.execute("BEGIN IMMEDIATE")
        try:
            status, delta, why = self._decide(call, body, player, balance, disabled, limit,
                                              amount, reference)  # fmt: skip
            after = w.record(uuid, call, player, body.get("round"), delta, reference, status,
                             status == OK)  # fmt: skip
            answer = {"status": status, "balance": after, "currency": currency}
            if why is not None:
                answer["reason"] = why
            sent = raw(w.with_message(player, answer))
            w.keep_answer(uuid, hashed, 200, sent)
            w.db.execute("COMMIT")
        except BaseException:
            w.db.execute("ROLLBACK")
            raise
        return 200, sent

    def _decide(self, call: str, body: dict[str, Any], player: str, balance: int,
                disabled: bool, limit: str | None, amount: int, reference: Any,
                ) -> tuple[str, int, str | None]:  # fmt: skip
        """(status, what moves to the player, the operator's reason) of a new transaction."""
        w = self.wallet
        if call == "bet":
            if w.rolled_back_before(body["transaction_uuid"]):  # never applied
                return "RS_ERROR_DUPLICATE_TRANSACTION", 0, None
            refusal = w.token_refusal(player, body.get("token"))
            if refusal is not None:
                return _V1_TOKEN[refusal], 0, None
            if disabled:
                return "RS_ERROR_USER_DISABLED", 0, None
            if limit is not None:
                return "RS_ERROR_GAMBLING_LIMIT_EXCEEDED", 0, limit
            if amount > balance:
                return "RS_ERROR_NOT_ENOUGH_MONEY", 0, None
            return OK, -amount, None
        bet = w.transaction(reference)
        applied = bet is not None and bet[0] == "bet" and bet[2] and bet[4] == player
        if call == "rollback":
            if not applied or bet is None:
                return "RS_ERROR_TRANSACTION_DOES_NOT_EXIST", 0, None
            if w.db.execute("SELECT 1 FROM transactions WHERE kind = 'win' AND reference = ?",
                            (reference,)).fetchone():  # fmt: skip
                return "RS_ERROR_UNKNOWN", 0, None  # a settled bet is not rolled back
            return OK, bet[1], None
        if call == "win":  # the token is not asked for: the money is owed
            if not applied or bet is None or bet[3]:
                return "RS_ERROR_TRANSACTION_DOES_NOT_EXIST", 0, None
            return OK, amount, None
        return "RS_ERROR_UNKNOWN", 0, None


_V1_TOKEN = {"invalid": "RS_ERROR_INVALID_TOKEN", "expired": "RS_ERROR_TOKEN_EXPIRED"}


class Refused(Exception):
    """An actions request refused: its HTTP status, code and the operator's reason."""

    def __init__(self, status: int, code: str, reason: str | None = None) -> None:
        super().__init__(code)
        self.status, self.code, self.reason = status, code, reason


class ActionsWallet:
    """The operator's side of the actions contract: ``POST /wallet/play`` (a round's
    actions, applied whole or not at all), ``/wallet/balance``, ``/wallet/message``;
    answered 200 ``{"balance", ...}`` or a 4xx ``{"code", "reason", "balance"}``."""

    calls = ("play", "balance", "message")

    def __init__(self, wallet: DemoWallet) -> None:
        self.wallet = wallet

    def refusal(self, refused: Refused, player: str | None) -> tuple[int, bytes]:
        answer: dict[str, Any] = {"code": refused.code}
        if refused.reason is not None:
            answer["reason"] = refused.reason
        if player is not None:
            answer["balance"] = self.wallet.balance(player)
        return refused.status, raw(self.wallet.with_message(player, answer))

    def handle(self, call: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """One wallet request: its answer (HTTP status, body)."""
        w = self.wallet
        player = body.get("user_id")
        found = w.player(player)
        if found is None:
            return self.refusal(Refused(401, "session_invalid"), None)
        assert isinstance(player, str)
        if body.get("currency") != found[1]:
            return self.refusal(Refused(422, "wrong_currency"), player)
        if call in ("balance", "message"):
            refusal = w.token_refusal(player, body.get("session_token"))
            if refusal is not None:
                return self.refusal(Refused(401, f"session_{refusal}"), player)
            if call == "message" and not w.choose(player, body.get("message_id"),
                                                  body.get("choice")):  # fmt: skip
                return self.refusal(Refused(404, "unknown_message"), player)
            return 200, raw(w.with_message(player, {"balance": found[0]}))
        actions = body.get("actions")
        if (
            not isinstance(actions, list)
            or not actions
            or not all(isinstance(a, dict) and isinstance(a.get("action_id"), str) for a in actions)
        ):
            return self.refusal(Refused(400, "invalid_request"), player)
        key = "|".join(a["action_id"] for a in actions)
        hashed = body_hash(body)
        first = w.first_answer(key, hashed)
        if first is False or (first is None and any(w.transaction(a["action_id"])
                                                    for a in actions)):  # fmt: skip
            return self.refusal(Refused(409, "action_conflict"), player)
        if isinstance(first, tuple):
            return first  # the first answer, as it was sent
        w.db.execute("BEGIN IMMEDIATE")
        try:
            try:
                done = [self._apply(a, body, player, found, actions) for a in actions]
                status, answer = 200, {"balance": w.balance(player), "game_id": body.get("game_id"),
                                       "transactions": done}  # fmt: skip
            except Refused as refused:
                w.db.execute("ROLLBACK")  # nothing of the request is applied
                w.db.execute("BEGIN IMMEDIATE")
                status, sent = self.refusal(refused, player)
            else:
                sent = raw(w.with_message(player, answer))
            w.keep_answer(key, hashed, status, sent)
            w.db.execute("COMMIT")
        except BaseException:
            w.db.execute("ROLLBACK")
            raise
        return status, sent

    def _apply(self, action: dict[str, Any], body: dict[str, Any], player: str,
               found: tuple[int, str, bool, str | None], actions: list[dict[str, Any]],
               ) -> dict[str, Any]:  # fmt: skip
        """One action of a request (raises ``Refused`` for the whole request)."""
        w = self.wallet
        kind, action_id, game = action.get("action"), action["action_id"], body.get("game_id")
        _, _, disabled, limit = found
        if kind == "bet":
            amount = _amount(action.get("amount"))
            if amount is None:
                raise Refused(400, "invalid_request")
            if w.rolled_back_before(action_id):
                raise Refused(409, "action_conflict")  # its rollback came first
            refusal = w.token_refusal(player, body.get("session_token"))
            if refusal is not None:
                raise Refused(401, f"session_{refusal}")
            if disabled:
                raise Refused(403, "player_blocked")
            if limit is not None:
                raise Refused(403, "gambling_limit_exceeded", limit)
            if amount > w.balance(player):
                raise Refused(402, "insufficient_funds")
            w.record(action_id, "bet", player, game, -amount, None, "ok", True)
        elif kind == "win":  # the token is not asked for: the money is owed
            amount = _amount(action.get("amount"))
            bet = w.db.execute(
                "SELECT uuid FROM transactions WHERE kind = 'bet' AND round = ? AND applied = 1 "
                "AND rolled_back = 0 AND player = ?",
                (game, player),
            ).fetchone()
            if amount is None or bet is None:
                raise Refused(409, "action_conflict")  # no bet of the round to pay
            w.record(action_id, "win", player, game, amount, bet[0], "ok", True)
        elif kind == "rollback":
            original = action.get("original_action_id")
            if not isinstance(original, str):
                raise Refused(400, "invalid_request")
            seen = w.transaction(original)
            undone = [a.get("original_action_id") for a in actions if a.get("action") == kind]
            if (
                seen is not None
                and seen[0] == "bet"
                and w.db.execute(
                    "SELECT uuid FROM transactions WHERE kind = 'win' AND reference = ? "
                    "AND rolled_back = 0",
                    (original,),
                ).fetchone()
                not in (None, *((u,) for u in undone))
            ):
                raise Refused(409, "action_conflict")  # a bet paid is not undone alone
            applied = seen is not None and seen[2] and not seen[3] and seen[4] == player
            delta = 0 if seen is None else seen[1] if seen[0] == "bet" else -seen[1]
            w.record(action_id, "rollback", player, game, delta if applied else 0, original,
                     "ok", applied)  # fmt: skip
        else:
            raise Refused(400, "invalid_request")
        return {"action_id": action_id, "tx_id": f"demo-{action_id}"}
