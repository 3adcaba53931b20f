"""Players: registration, nicknames, passwords and their hashing (argon2id, bounded).

Nicknames are 3-24 ASCII letters, digits, '_' or '-' (nothing else: no control character,
no other script, so no cross-script look-alike). Two nicknames that look alike are one:
each has a normalised key (NFKC, case-folded, with the look-alikes of this alphabet mapped
to one letter: 0/o, 1/l/i, rn/m, vv/w, _/-), unique in the database.

Passwords are 10-256 characters and not among the 30,000 most common ones (the leaked-
password frequency list that ships with the ``zxcvbn`` package; no network), nor the
nickname itself.
"""

from __future__ import annotations

import asyncio
import functools
import math
import re
import threading
import unicodedata
from dataclasses import dataclass
from typing import Any

from baccarat.server import ledger, seeds
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import RateLimited, ServiceError
from baccarat.server.settings import Limits, PasswordHashing

FUN_START = 100_000  # 1,000.00 of play money
_NICKNAME = re.compile(r"[A-Za-z0-9_-]{3,24}", re.ASCII)
PASSWORD_MIN, PASSWORD_MAX = 10, 256
# Look-alikes within the nickname alphabet, after case folding (longest first).
_LOOKALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("_", "-"))


def check_nickname(nickname: str) -> str:
    # fullmatch: "alice\n" is not "alice" ($ would let a trailing newline through).
    if not isinstance(nickname, str) or not _NICKNAME.fullmatch(nickname):
        raise ServiceError("invalid_nickname", "a nickname is 3 to 24 letters, digits, '_' or '-'")
    return nickname


def nickname_key(nickname: str) -> str:
    """How a nickname is found at login: regardless of case."""
    return nickname.casefold()


def nickname_norm(nickname: str) -> str:
    """The key two look-alike nicknames share (unique among players)."""
    text = unicodedata.normalize("NFKC", nickname).casefold()
    for look, like in _LOOKALIKES:
        text = text.replace(look, like)
    return text


@functools.cache
def _common_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    return frozenset(FREQUENCY_LISTS["passwords"])


def check_password(password: str, nickname: str | None = None) -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ServiceError(
            "invalid_password", f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            reason="length", min=PASSWORD_MIN, max=PASSWORD_MAX,
        )  # fmt: skip
    folded = password.casefold()
    if folded in _common_passwords() or folded.strip() in _common_passwords():
        raise ServiceError(
            "invalid_password", "this password is among the most commonly used: choose another",
            reason="common",
        )  # fmt: skip
    if nickname is not None and nickname.casefold() in folded:
        raise ServiceError(
            "invalid_password", "a password may not contain the nickname", reason="nickname"
        )
    return password


class Passwords:
    """Argon2id hashing; slow on purpose, so it runs on a worker thread, never a writer."""

    def __init__(self, params: PasswordHashing):
        from argon2 import PasswordHasher

        self._hasher = PasswordHasher(
            time_cost=params.time_cost,
            memory_cost=params.memory_cost,
            parallelism=params.parallelism,
        )
        # Verified against when the nickname is unknown, so that both cases take as long.
        self._dummy = self._hasher.hash("not a password of anyone")

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        from argon2.exceptions import InvalidHashError, VerificationError

        try:
            return bool(self._hasher.verify(password_hash or self._dummy, password)) and (
                password_hash is not None
            )
        except (VerificationError, InvalidHashError):
            return False


class HashGate:
    """At most ``Limits.hashes_at_once`` argon2 hashes at once, each on a worker thread.

    Argon2id takes ``memory_cost`` KiB per hash: the gate bounds what a burst of
    registrations or logins can take. A request waits up to ``Limits.hash_wait_s`` for its
    turn, else is refused 429 ``rate_limited`` (``Retry-After: 1``). ``active`` and ``peak``
    count the hashes running (for tests and monitoring).
    """

    def __init__(self, limits: Limits):
        self.limits = limits
        self._slots = asyncio.Semaphore(limits.hashes_at_once)
        self._lock = threading.Lock()
        self.active = 0
        self.peak = 0

    async def run(self, work: Any, *args: Any) -> Any:
        # The call Starlette's run_in_threadpool wraps (the same worker threads), without
        # the web framework in a service.
        import anyio.to_thread

        try:
            async with asyncio.timeout(self.limits.hash_wait_s):
                await self._slots.acquire()
        except TimeoutError:
            raise RateLimited(
                "the server is busy: try again in a moment",
                retry_after_s=max(1, math.ceil(self.limits.hash_wait_s)),
            ) from None
        try:
            return await anyio.to_thread.run_sync(self._counted, work, *args)
        finally:
            self._slots.release()

    def _counted(self, work: Any, *args: Any) -> Any:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            return work(*args)
        finally:
            with self._lock:
                self.active -= 1


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    nickname: str
    created_us: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "nickname": self.nickname}


def check_currency(currency: str, system: ledger.SystemAccounts) -> str:
    """A currency a player's accounts may be in: one the casino keeps accounts in (a table
    has limits in it)."""
    if currency not in system.currencies:
        raise ServiceError(
            "unsupported_currency",
            f"no table has limits in {currency}: choose one of "
            f"{', '.join(sorted(system.currencies))}",
            currency=currency,
        )
    return currency


def register(
    uow: UnitOfWork, nickname: str, password_hash: str, system: ledger.SystemAccounts,
    currency: str = HOME,
) -> Player:  # fmt: skip
    """A new player with a fun balance of 1,000.00, a real balance of 0 and fresh seeds, with
    accounts in ``currency`` (for good)."""
    check_currency(currency, system)
    check_nickname(nickname)
    key, norm = nickname_key(nickname), nickname_norm(nickname)
    if (
        uow.one(
            "SELECT id FROM players WHERE nickname_key = :k OR nickname_norm = :n",
            {"k": key, "n": norm},
        )
        is not None
    ):
        raise ServiceError("nickname_taken", f"the nickname {nickname!r} (or one like it) is taken")
    player_id = int(
        uow.scalar(
            "INSERT INTO players (nickname, nickname_key, nickname_norm, password_hash, "
            "created_us) VALUES (:n, :k, :norm, :h, :now) RETURNING id",
            {"n": nickname, "k": key, "norm": norm, "h": password_hash, "now": uow.now},
        )
    )
    open_player(uow, player_id, system, currency)
    return Player(player_id, nickname, uow.now)


def open_player(
    uow: UnitOfWork, player_id: int, system: ledger.SystemAccounts, currency: str = HOME
) -> None:
    """A new player's accounts in a currency (a fun balance of ``FUN_START`` of its minor
    unit: 1,000.00 USD or EUR, 100,000 JPY; a real balance of 0) and seeds."""
    ledger.open_player_accounts(uow, player_id, currency)
    fun_account, _ = ledger.player_account(uow, player_id, "fun")
    ledger.transfer(
        uow,
        "grant",
        "fun",
        system.get("fun", "cashier", currency),
        fun_account,
        FUN_START,
        reference=f"player:{player_id}",
        memo="play money on registration",
        system=system,
    )
    seeds.open_states(uow, player_id)


def find(uow: UnitOfWork, nickname: str) -> tuple[Player, str] | None:
    """The player with this nickname (any case) and their password hash."""
    row = uow.one(
        "SELECT id, nickname, created_us, password_hash FROM players WHERE nickname_key = :k",
        {"k": nickname_key(nickname)},
    )
    if row is None:
        return None
    return Player(int(row[0]), row[1], int(row[2])), row[3]


def set_password(uow: UnitOfWork, player_id: int, password_hash: str) -> None:
    uow.run(
        "UPDATE players SET password_hash = :h WHERE id = :id",
        {"h": password_hash, "id": player_id},
    )


def require(uow: UnitOfWork, nickname: str) -> Player:
    found = find(uow, nickname)
    if found is None:
        raise ServiceError("unknown_player", f"no player is called {nickname!r}")
    return found[0]


def get(uow: UnitOfWork, player_id: int) -> Player:
    row = uow.one("SELECT id, nickname, created_us FROM players WHERE id = :id", {"id": player_id})
    if row is None:
        raise ServiceError("unknown_player", "no such player")
    return Player(int(row[0]), row[1], int(row[2]))


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    player: Player
    fun: int
    real: int
    rounds: int
    currency: str  # of both balances (minor units of it)


def list_players(uow: UnitOfWork) -> list[PlayerSummary]:
    rows = uow.all(
        "SELECT p.id, p.nickname, p.created_us, "
        "SUM(CASE WHEN a.mode = 'fun' THEN a.balance ELSE 0 END), "
        "SUM(CASE WHEN a.mode = 'real' THEN a.balance ELSE 0 END), "
        "(SELECT COUNT(*) FROM rounds r WHERE r.player_id = p.id), MAX(a.currency) "
        "FROM players p JOIN accounts a ON a.player_id = p.id "
        "GROUP BY p.id, p.nickname, p.created_us ORDER BY p.id"
    )
    return [
        PlayerSummary(Player(int(r[0]), r[1], int(r[2])), int(fun), int(real), int(n), str(c))
        for *r, fun, real, n, c in rows
    ]
