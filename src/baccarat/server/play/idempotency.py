"""Idempotency keys: a retried money-moving request gets the first answer; nothing moves.

The first successful answer to a key is stored with a hash of the request (method, path,
normalised body) in the same transaction as the work. A request with a known key and the
same hash gets the stored answer; with another hash it is refused (``idempotency_conflict``).
Refusals are not stored: a refused request moved nothing and may be retried as it is.

There is one idempotent write, ``once``, in the caller's unit of work (a seat's deal runs
it in the seat's); ``written_once`` runs it as a unit of work of its own, the caller's
session authenticated with the lookup (every REST write, the operators' rounds and bets).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from baccarat.server import auth
from baccarat.server.db.database import Database
from baccarat.server.db.uow import Stale, UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact

_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


def check_key(key: str | None) -> str:
    if key is None or not _KEY.match(key):
        raise ServiceError(
            "idempotency_key_required",
            "send an Idempotency-Key header (1 to 200 printable ASCII characters) with "
            "every request that moves money",
        )
    return key


def request_hash(method: str, path: str, body: Any) -> str:
    canonical = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    status: int
    body: str


def recall(uow: UnitOfWork, player_id: int, key: str, hashed: str) -> StoredAnswer | None:
    row = uow.one(
        "SELECT request_hash, status, response FROM idempotency_keys "
        "WHERE player_id = :p AND key = :k",
        {"p": player_id, "k": key},
    )
    if row is None:
        return None
    if row[0] != hashed:
        raise ServiceError(
            "idempotency_conflict",
            "this Idempotency-Key was already used with a different request",
            key=key,
        )
    return StoredAnswer(int(row[1]), row[2])


_LOOKUP = (
    f"SELECT {', '.join(f's.{name}' for name in auth.SESSION_COLUMNS)}, k.request_hash, "
    "k.status, k.response FROM sessions s LEFT JOIN idempotency_keys k "
    "ON k.player_id = s.player_id AND k.key = :k WHERE s.token_hash = :h"
)
# PostgreSQL: whose each session token is (a session's player never changes), by database
# (its vault), so that a request's lookup goes to the server with its work's first reads
# instead of a round trip before them (``once``). A full set is emptied.
_PLAYERS: dict[tuple[int, str], int] = {}
_PLAYERS_MAX = 100_000


def authenticate_and_recall(
    uow: UnitOfWork, token_hash: str | None, key: str, hashed: str
) -> tuple[int, StoredAnswer | None]:
    """The caller's player id and any stored answer to this key, in one statement.

    The same rules as ``auth.authenticate`` and ``recall``, joined: a money-moving request
    does both first, and it is the hottest path of the server.
    """
    row = None
    if token_hash is not None:
        row = uow.one(_LOOKUP, {"h": token_hash, "k": key})
    return _looked_up(uow, row, key, hashed, token_hash)


def _looked_up(
    uow: UnitOfWork, row: tuple[Any, ...] | None, key: str, hashed: str, token_hash: str | None
) -> tuple[int, StoredAnswer | None]:
    # A money-moving request is its player's action (the session's idle time starts again).
    player_id = auth.live_player(uow, row, token_hash)
    assert row is not None
    stored_hash, status, response = row[len(auth.SESSION_COLUMNS) :]
    if stored_hash is None:
        return player_id, None
    if stored_hash != hashed:
        raise ServiceError(
            "idempotency_conflict",
            "this Idempotency-Key was already used with a different request",
            key=key,
        )
    return player_id, StoredAnswer(int(status), response)


@dataclass(frozen=True, slots=True)
class Session:
    """A caller known by the hash of their session token, authenticated with the lookup."""

    token_hash: str | None


def once(
    uow: UnitOfWork,
    who: int | Session,
    key: str,
    hashed: str,
    status: int,
    work: Callable[[UnitOfWork, int], Any],
) -> tuple[StoredAnswer, bool]:
    """Run ``work(uow, player_id)`` once per key for every money-moving request, REST and
    WebSocket alike: the first answer is stored in the same transaction as the work, and a
    replay gets it without working again. ``who`` is the player (a socket's), or a session
    to authenticate in the same statement as the lookup. ``(answer, replayed)``."""
    if isinstance(who, Session):
        known = (id(uow.vault), who.token_hash or "")
        guessed = _PLAYERS.get(known) if uow.pipelines else None
        if guessed is not None:
            return _once_known(uow, known, guessed, key, hashed, status, work)
        player_id, stored = authenticate_and_recall(uow, who.token_hash, key, hashed)
        if uow.pipelines:
            if len(_PLAYERS) >= _PLAYERS_MAX:
                _PLAYERS.clear()
            _PLAYERS[known] = player_id
    else:
        player_id, stored = who, recall(uow, who, key, hashed)
    if stored is not None:
        return stored, True
    text = compact(work(uow, player_id))
    remember(uow, player_id, key, hashed, status, text)
    return StoredAnswer(status, text), False


async def written_once(
    db: Database,
    token_hash: str | None,
    key: str,
    hashed: str,
    status: int,
    work: Callable[[UnitOfWork, int], Any],
) -> tuple[StoredAnswer, bool]:
    """``once`` as a write of its own, for the caller of a session (by its token's hash):
    keyed by the session, so that one player's writes run one after another on one
    connection. ``(answer, replayed)``, once committed."""
    session = Session(token_hash)
    return await db.write(lambda uow: once(uow, session, key, hashed, status, work), token_hash)


def _once_known(
    uow: UnitOfWork,
    known: tuple[int, str],
    player_id: int,
    key: str,
    hashed: str,
    status: int,
    work: Callable[[UnitOfWork, int], Any],
) -> tuple[StoredAnswer, bool]:
    """``once`` for a session whose player this process knows (PostgreSQL): the lookup
    goes with the work's first reads, and its answer is checked as soon as it comes,
    before the work reads anything else. Not live, the unit is refused; a stored answer,
    the unit runs again (``Stale``), looking up first, so that the replay moves nothing."""

    def check(cursor: Any) -> None:
        rows = cursor.rows
        try:
            found, stored = _looked_up(uow, rows[0] if rows else None, key, hashed, known[1])
        except ServiceError:
            _PLAYERS.pop(known, None)
            raise
        if found != player_id or stored is not None:
            _PLAYERS.pop(known, None)
            raise Stale("a replay, or another player's session: looked up first")

    lookup = uow.later(_LOOKUP, {"h": known[1], "k": key}, check)
    with uow.answered_first(lookup):
        answer = work(uow, player_id)
    if lookup.cursor is None:
        lookup.all()
    text = compact(answer)
    remember(uow, player_id, key, hashed, status, text)
    return StoredAnswer(status, text), False


def remember(
    uow: UnitOfWork, player_id: int, key: str, hashed: str, status: int, body: str
) -> None:
    uow.send(
        "INSERT INTO idempotency_keys (player_id, key, request_hash, status, response, "
        "created_us) VALUES (:p, :k, :h, :s, :r, :now)",
        {"p": player_id, "k": key, "h": hashed, "s": status, "r": body, "now": uow.now},
    )
