"""Players: registration, nicknames, password hashing (argon2id, never on a round's path)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import ledger, seeds
from .db.uow import UnitOfWork
from .errors import ServiceError
from .settings import PasswordHashing

FUN_START = 100_000  # 1,000.00 of play money
_NICKNAME = re.compile(r"^[A-Za-z0-9_-]{3,24}$")
PASSWORD_MIN, PASSWORD_MAX = 8, 256


def check_nickname(nickname: str) -> str:
    if not isinstance(nickname, str) or not _NICKNAME.match(nickname):
        raise ServiceError("invalid_nickname", "a nickname is 3 to 24 letters, digits, '_' or '-'")
    return nickname


def nickname_key(nickname: str) -> str:
    """Nicknames are unique regardless of case."""
    return nickname.casefold()


def check_password(password: str) -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise ServiceError(
            "invalid_password", f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters"
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


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    nickname: str
    created_us: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "nickname": self.nickname}


def register(
    uow: UnitOfWork, nickname: str, password_hash: str, system: ledger.SystemAccounts
) -> Player:
    """A new player with a fun balance of 1,000.00, a real balance of 0 and fresh seeds."""
    check_nickname(nickname)
    key = nickname_key(nickname)
    if uow.one("SELECT id FROM players WHERE nickname_key = :k", {"k": key}) is not None:
        raise ServiceError("nickname_taken", f"the nickname {nickname!r} is taken")
    player_id = int(
        uow.scalar(
            "INSERT INTO players (nickname, nickname_key, password_hash, created_us) "
            "VALUES (:n, :k, :h, :now) RETURNING id",
            {"n": nickname, "k": key, "h": password_hash, "now": uow.now},
        )
    )
    ledger.open_player_accounts(uow, player_id)
    fun_account, _ = ledger.player_account(uow, player_id, "fun")
    ledger.transfer(
        uow,
        "grant",
        "fun",
        system.get("fun", "cashier"),
        fun_account,
        FUN_START,
        reference=f"player:{player_id}",
        memo="play money on registration",
        system=system,
    )
    seeds.open_states(uow, player_id)
    return Player(player_id, nickname, uow.now)


def find(uow: UnitOfWork, nickname: str) -> tuple[Player, str] | None:
    """The player with this nickname (any case) and their password hash."""
    row = uow.one(
        "SELECT id, nickname, created_us, password_hash FROM players WHERE nickname_key = :k",
        {"k": nickname_key(nickname)},
    )
    if row is None:
        return None
    return Player(int(row[0]), row[1], int(row[2])), row[3]


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


def list_players(uow: UnitOfWork) -> list[PlayerSummary]:
    rows = uow.all(
        "SELECT p.id, p.nickname, p.created_us, "
        "SUM(CASE WHEN a.mode = 'fun' THEN a.balance ELSE 0 END), "
        "SUM(CASE WHEN a.mode = 'real' THEN a.balance ELSE 0 END), "
        "(SELECT COUNT(*) FROM rounds r WHERE r.player_id = p.id) "
        "FROM players p JOIN accounts a ON a.player_id = p.id "
        "GROUP BY p.id, p.nickname, p.created_us ORDER BY p.id"
    )
    return [
        PlayerSummary(Player(int(r[0]), r[1], int(r[2])), int(r[3]), int(r[4]), int(r[5]))
        for r in rows
    ]
