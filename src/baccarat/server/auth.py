"""Sessions and login throttling.

A session token is 32 random bytes (URL-safe text) given once to the client; the server
keeps only its sha256, with an expiry. API clients send it as ``Authorization: Bearer``;
the browser keeps it in an HttpOnly, SameSite=Strict cookie and must echo a CSRF token (a
second, readable cookie) in ``X-CSRF-Token`` on every state-changing request. The CSRF
token is derived from the session token, so it cannot be guessed or reused across sessions.

Failed logins are slowed down per (nickname, client address) and per client address:
after a few free failures, each further failure blocks that key for exponentially longer.
And per account, across addresses: guessing one nickname's password (or a staff member's
second factor) from a hundred addresses used to go unchecked, 300 guesses in 5.5 s. After
``LoginThrottle.account_free_failures`` in a day, the account is closed for exponentially
longer (15 minutes at most) to every address but its owner's: those of its successful
logins in the last 30 days, which are neither counted nor refused by the account's key
(they keep their own per-address allowance). So a stranger guessing from elsewhere never
locks the owner out at home; the owner on a new address waits like the stranger. A delay
rather than a proof of work: a proof of work costs a phone as much as it costs a
guesser's server, who has many and pays it gladly for a password; a delay per account
costs the guesser all their addresses at once, and the owner nothing where they log in
from. Registrations are limited per client address per hour.

A session may end sooner than its expiry: after its profile's inactivity time-out
(``Profile.inactivity_timeout_s``, Ontario's AGCO 4.30; 0: none), kept with the session as
it begins. A player's action (a request that changes something, never a read or a socket's
ping) starts its idle time again, written in the action's own transaction; past the
time-out every request of the session is refused ``session_inactive``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass
from typing import Any

from baccarat.server.daily import DAY_US
from baccarat.server.db.uow import Later, UnitOfWork
from baccarat.server.errors import RateLimited, ServiceError
from baccarat.server.settings import LoginThrottle

# A client address gets more free failures than a nickname: players may share an address.
CLIENT_FREE_FACTOR = 4


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def csrf_token(token: str) -> str:
    """The CSRF token that goes with a session token (double-submit, bound to the session)."""
    return hashlib.sha256(b"baccarat-csrf:" + token.encode("utf-8", "replace")).hexdigest()[:32]


def csrf_matches(token: str, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(csrf_token(token), presented)


@dataclass(frozen=True, slots=True)
class Session:
    token: str
    player_id: int
    expires_us: int

    @property
    def csrf(self) -> str:
        return csrf_token(self.token)


# A live session: not expired, and not past its inactivity time-out.
_LIVE = "expires_us > :now AND (idle_us = 0 OR acted_us + idle_us > :now)"


def create_session(
    uow: UnitOfWork, player_id: int, ttl_s: int, prefix: str = "", idle_s: int = 0
) -> Session:
    """A new session; ``prefix`` marks the token of a kind of session (an operator's);
    ``idle_s``: its inactivity time-out (the profile's it begins under; 0: none)."""
    token = prefix + new_token()
    expires = uow.now + ttl_s * 1_000_000
    uow.run(
        "INSERT INTO sessions (token_hash, player_id, created_us, expires_us, idle_us, "
        "acted_us) VALUES (:h, :p, :now, :exp, :idle, :now)",
        {"h": token_hash(token), "p": player_id, "now": uow.now, "exp": expires,
         "idle": idle_s * 1_000_000},
    )  # fmt: skip
    # Forget this player's ended sessions (expired, or past their time-out) while here.
    uow.run(f"DELETE FROM sessions WHERE player_id = :p AND NOT ({_LIVE})",
            {"p": player_id, "now": uow.now})  # fmt: skip
    return Session(token, player_id, expires)


# The columns of ``sessions`` that ``live_player`` reads, first in a row.
SESSION_COLUMNS = ("player_id", "expires_us", "idle_us", "acted_us")
_SESSION = f"SELECT {', '.join(SESSION_COLUMNS)} FROM sessions WHERE token_hash = :h"
# The codes that say a request's session has ended (a seat's socket closes on either).
ENDED = ("not_authenticated", "session_inactive")


def authenticate(uow: UnitOfWork, hashed: str | None, *, acts: bool = False) -> int:
    """The player id of a live session, or ``not_authenticated`` (``session_inactive`` past
    its inactivity time-out). ``acts``: the request is the player's action, in a unit of
    work that writes (``live_player``)."""
    row = None if hashed is None else uow.one(_SESSION, {"h": hashed})
    return live_player(uow, row, hashed if acts else None)


def still_authenticated(
    uow: UnitOfWork, hashed: str | None, player_id: int, *, acts: bool = False
) -> Later:
    """The session of a socket that authenticated as ``player_id`` must still be live: on
    PostgreSQL checked with the unit's next round trip, as soon as it answers (before
    anything sent after it is read), ``not_authenticated`` (or ``session_inactive``) if
    not. The lookup, for the caller to have answered first if the unit refuses before it
    read anything (``UnitOfWork.answered_first``). ``acts`` as for ``authenticate``."""
    if hashed is None:
        raise _not_authenticated()

    def live(cursor: Any) -> None:
        if live_player(uow, cursor.fetchone(), hashed if acts else None) != player_id:
            raise _not_authenticated()

    return uow.later(_SESSION, {"h": hashed}, live)


def live_player(uow: UnitOfWork, row: tuple[Any, ...] | None, acted: str | None = None) -> int:
    """The player of a session's row (its first columns ``SESSION_COLUMNS``) if it is live;
    else ``not_authenticated``, or ``session_inactive`` once its player has not acted for
    its inactivity time-out. ``acted``: the session's token hash when the request is its
    player's action, in a unit of work that writes: a session with a time-out starts its
    idle time again (one write, by its key, sent with the unit's next statement; none for
    a session without one). A refused action is rolled back with it, and does not count."""
    if row is None or row[1] <= uow.now:
        raise _not_authenticated()
    idle_us, acted_us = int(row[2]), int(row[3])
    if idle_us:
        if acted_us + idle_us <= uow.now:
            seconds = idle_us // 1_000_000
            minutes = -(-seconds // 60)
            raise ServiceError(
                "session_inactive",
                f"you were logged out after {minutes} minutes without play (the rules of "
                "this market): log in again",
                rule="inactivity_timeout_s", seconds=seconds, minutes=minutes,
            )  # fmt: skip
        if acted is not None:
            uow.send("UPDATE sessions SET acted_us = :now WHERE token_hash = :h",
                     {"now": uow.now, "h": acted})  # fmt: skip
    return int(row[0])


def _not_authenticated() -> ServiceError:
    return ServiceError("not_authenticated", "log in first: no valid session token")


def live_sessions(uow: UnitOfWork, hashes: list[str]) -> set[str]:
    """Which of these token hashes belong to live sessions (not expired, not inactive)."""
    live: set[str] = set()
    for start in range(0, len(hashes), 500):
        batch = hashes[start : start + 500]
        names = ", ".join(f":h{i}" for i in range(len(batch)))
        params: dict[str, object] = {f"h{i}": h for i, h in enumerate(batch)}
        params["now"] = uow.now
        live.update(
            str(row[0])
            for row in uow.all(
                f"SELECT token_hash FROM sessions WHERE token_hash IN ({names}) AND {_LIVE}",
                params,
            )
        )
    return live


def end_session(uow: UnitOfWork, hashed: str) -> None:
    uow.run("DELETE FROM sessions WHERE token_hash = :h", {"h": hashed})


def end_other_sessions(uow: UnitOfWork, player_id: int, keep: str | None) -> int:
    """End the player's sessions but ``keep`` (a token hash; None: all); how many ended."""
    return uow.run(
        "DELETE FROM sessions WHERE player_id = :p AND token_hash <> :keep",
        {"p": player_id, "keep": keep or ""},
    )


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str  # a short public id (a prefix of the token's hash, never the token)
    created_us: int
    expires_us: int
    current: bool


def list_sessions(uow: UnitOfWork, player_id: int, current: str | None) -> list[SessionInfo]:
    """The player's live sessions, newest first (at most ``MAX_LISTED``)."""
    rows = uow.all(
        "SELECT token_hash, created_us, expires_us FROM sessions "
        f"WHERE player_id = :p AND {_LIVE} ORDER BY created_us DESC LIMIT :n",
        {"p": player_id, "now": uow.now, "n": MAX_LISTED},
    )
    return [SessionInfo(str(h)[:12], int(c), int(e), h == current) for h, c, e in rows]


MAX_LISTED = 100


def end_session_by_id(uow: UnitOfWork, player_id: int, public_id: str) -> str:
    """End one of the player's own sessions by its public id; its token hash."""
    rows = uow.all("SELECT token_hash FROM sessions WHERE player_id = :p", {"p": player_id})
    for (hashed,) in rows:
        if len(public_id) == 12 and str(hashed).startswith(public_id):
            end_session(uow, str(hashed))
            return str(hashed)
    raise ServiceError("not_found", "no such session among yours")


@dataclass(frozen=True, slots=True)
class LoginKeys:
    """The throttle keys of a login attempt (rows of ``login_throttle``)."""

    # Per (nickname, address) and per address, with each one's free-failure multiplier.
    per_address: tuple[tuple[str, int], ...]
    # The account's failures from everywhere but its owner's recent addresses.
    account: str
    # Written at each successful login from this address: the owner's, while recent.
    home: str


def throttle_keys(nickname: str, client: str | None, prefix: str = "") -> LoginKeys:
    """The keys a login attempt counts against (``prefix``: a kind of account's own)."""
    source = (client or "unknown")[:64]
    name = nickname.casefold()[:64]
    return LoginKeys(
        ((f"{prefix}login:{name}@{source}", 1), (f"{prefix}client:{source}", CLIENT_FREE_FACTOR)),
        f"{prefix}account:{name}",
        f"{prefix}home:{name}@{source}",
    )


HOUR_US = 3600 * 1_000_000


def admit_registration(uow: UnitOfWork, client: str | None, policy: LoginThrottle) -> None:
    """Count a registration against the client's hourly allowance, or refuse it (429)."""
    key = "register:" + (client or "unknown")[:64]
    admit_hourly(uow, key, policy.registrations_per_hour, "registrations from this address")


def admit_hourly(uow: UnitOfWork, key: str, allowance: int, what: str) -> None:
    """Count one more against ``key``'s allowance for the hour that its first use began,
    or refuse it (429 ``rate_limited`` with the seconds until that hour ends)."""
    # Read locked: two uses at once on PostgreSQL count two, not one each from the same
    # count (a missing row is inserted by both, and the second's unique key fails: run again).
    row = uow.one(
        "SELECT failures, updated_us FROM login_throttle WHERE key = :k" + uow.for_update,
        {"k": key},
    )
    if row is None:
        uow.run(
            "INSERT INTO login_throttle (key, failures, blocked_until_us, updated_us) "
            "VALUES (:k, 1, 0, :now)",
            {"k": key, "now": uow.now},
        )
        return
    count, started = int(row[0]), int(row[1])
    if uow.now - started >= HOUR_US:
        count, started = 0, uow.now
    if count >= allowance:
        retry_after = max(1, math.ceil((started + HOUR_US - uow.now) / 1_000_000))
        raise RateLimited(
            f"too many {what} (at most {allowance} an hour): try again in {retry_after} s",
            retry_after_s=retry_after,
        )
    uow.run(
        "UPDATE login_throttle SET failures = :f, updated_us = :s WHERE key = :k",
        {"k": key, "f": count + 1, "s": started},
    )


def admit_attempt(uow: UnitOfWork, keys: LoginKeys, policy: LoginThrottle) -> None:
    """Refuse a login while any of its keys is blocked; otherwise count the attempt as a
    failure against each.

    The attempt is counted before the password is checked (and forgiven on success), so
    that parallel guesses cannot all slip through before the first failure is recorded; a
    staff member's second factor is checked after it, so a wrong code counts as well. Each
    key's row is read under its lock (PostgreSQL: guesses on both workers at once all
    count). The account's key is not counted nor checked from an address where the owner
    logged in within ``policy.home_days``: guessing from everywhere else cannot lock the
    owner out, whose address keeps its own (per-address) allowance.
    """
    counted = [(key, policy.free_failures * factor, 0) for key, factor in keys.per_address]
    if not is_home(uow, keys, policy):
        window_us = policy.account_window_s * 1_000_000
        counted.append((keys.account, policy.account_free_failures, window_us))
    rows = [(key, free, window_us, _locked(uow, key)) for key, free, window_us in counted]
    for key, _, _, (_, blocked, _) in rows:
        wait_us = blocked - uow.now
        if wait_us > 0:
            retry_after = max(1, math.ceil(wait_us / 1_000_000))
            if key == keys.account:
                raise RateLimited(
                    f"too many failed logins of this account: try again in {retry_after} s, "
                    "or from where you last logged in", retry_after_s=retry_after,
                    code="login_throttled",
                )  # fmt: skip
            raise RateLimited(
                f"too many failed logins: try again in {retry_after} s", retry_after_s=retry_after
            )
    for key, free, window_us, (failures, _, updated) in rows:
        if window_us and uow.now - updated >= window_us:
            failures = 0  # the last failure is older than the window: start again
        failures += 1
        excess = failures - free
        delay_s = (
            0.0
            if excess <= 0
            else min(policy.max_delay_s, policy.base_delay_s * 2 ** min(excess - 1, 40))
        )
        uow.run(
            "UPDATE login_throttle SET failures = :f, blocked_until_us = :b, "
            "updated_us = :now WHERE key = :k",
            {"k": key, "f": failures, "b": uow.now + int(delay_s * 1_000_000), "now": uow.now},
        )


def _locked(uow: UnitOfWork, key: str) -> tuple[int, int, int]:
    """A throttle key's failures, blocked-until and last update, its row (made if new)
    locked until the end of the transaction."""
    uow.run(
        "INSERT INTO login_throttle (key, failures, blocked_until_us, updated_us) "
        "VALUES (:k, 0, 0, :now) ON CONFLICT (key) DO NOTHING",
        {"k": key, "now": uow.now},
    )
    row = uow.one(
        "SELECT failures, blocked_until_us, updated_us FROM login_throttle WHERE key = :k"
        + uow.for_update,
        {"k": key},
    )
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def is_home(uow: UnitOfWork, keys: LoginKeys, policy: LoginThrottle) -> bool:
    """Whether the account's owner logged in from this address within ``home_days``."""
    row = uow.one("SELECT updated_us FROM login_throttle WHERE key = :k", {"k": keys.home})
    return row is not None and uow.now - int(row[0]) < policy.home_days * DAY_US


def forgive(uow: UnitOfWork, keys: LoginKeys) -> None:
    """A successful login clears the nickname's and the account's failures, takes one off
    the client's, and makes (or keeps) this address one of the owner's."""
    (login, _), (client, _) = keys.per_address
    uow.run("DELETE FROM login_throttle WHERE key IN (:l, :a)", {"l": login, "a": keys.account})
    uow.run(
        "UPDATE login_throttle SET failures = failures - 1, blocked_until_us = 0 "
        "WHERE key = :k AND failures > 0",
        {"k": client},
    )
    uow.run(
        "INSERT INTO login_throttle (key, failures, blocked_until_us, updated_us) "
        "VALUES (:k, 0, 0, :now) ON CONFLICT (key) DO UPDATE SET updated_us = :now",
        {"k": keys.home, "now": uow.now},
    )
