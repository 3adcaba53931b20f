"""Significant events (GLI-19 2.8.8): an append-only log of what a regulator asks to see.

Failed logins (players and staff), program errors, configuration and limit changes, a
table switched on or off, large wins and wagers above the thresholds, adjustments of an
account, voids and software verification results. The database refuses UPDATE and DELETE
on ``significant_events`` (migration 0012). The large-win and large-wager thresholds are
back-office settings (``office_settings``), read once a minute per process by the round.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError

KINDS = (
    "login_failed",
    "staff_login_failed",
    "program_error",
    "configuration_changed",
    "limits_changed",
    "table_enabled",
    "table_disabled",
    "large_win",
    "large_wager",
    "adjustment",
    "void",
    "void_proposed",
    "software_verification",
    "staff_changed",
)
MAX_LISTED = 1000

# Real money in HOME's cents: a net win / a round's stake at or above it is a significant
# event. A round in another currency is compared with that currency's own thresholds (in its
# minor units; settings ``large_win.SEK``...), set by an admin: there are no exchange rates
# here. Until they are, HOME's figures stand for it, as a number of its minor units.
THRESHOLDS = {"large_win": 1_000_000, "large_wager": 500_000}
_CACHE_S = 60.0
_cached: tuple[float, dict[str, int]] = (-_CACHE_S, dict(THRESHOLDS))


@dataclass(frozen=True, slots=True)
class Event:
    id: int
    created_us: int
    kind: str
    actor: str
    subject: str
    details: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        from baccarat.server.history import iso_time

        return {"id": self.id, "time": iso_time(self.created_us), "kind": self.kind,
                "actor": self.actor, "subject": self.subject, "details": self.details}  # fmt: skip


def record(uow: UnitOfWork, kind: str, actor: str, subject: str, **details: Any) -> None:
    """Append one event (inside the caller's transaction: it stands or falls with it)."""
    assert kind in KINDS, kind
    uow.run(
        "INSERT INTO significant_events (created_us, kind, actor, subject, details) "
        "VALUES (:now, :k, :a, :s, :d)",
        {"now": uow.now, "k": kind, "a": actor[:80], "s": subject[:200],
         "d": json.dumps(details, separators=(",", ":"), sort_keys=True)},
    )  # fmt: skip


def listed(
    uow: UnitOfWork,
    *,
    kind: str | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
    actor: str | None = None,
    subject: str | None = None,
    before_id: int | None = None,
    limit: int = 100,
) -> list[Event]:
    """Events newest first, filtered; at most ``MAX_LISTED``."""
    if kind is not None and kind not in KINDS:
        raise ServiceError("invalid_request", f"no event kind {kind!r} (one of {', '.join(KINDS)})")
    if not 1 <= limit <= MAX_LISTED:
        raise ServiceError("invalid_request", f"a limit is 1 to {MAX_LISTED}")
    where: list[str] = []
    params: dict[str, object] = {"n": limit}
    filters: tuple[tuple[str, str, object], ...] = (
        ("kind", "=", kind), ("created_us", ">=", since_us), ("created_us", "<", until_us),
        ("actor", "=", actor), ("subject", "=", subject), ("id", "<", before_id),
    )  # fmt: skip
    for column, op, value in filters:
        if value is not None:
            name = f"p{len(params)}"
            where.append(f"{column} {op} :{name}")
            params[name] = value
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    rows = uow.all(
        "SELECT id, created_us, kind, actor, subject, details FROM significant_events"
        f"{clause} ORDER BY id DESC LIMIT :n",
        params,
    )
    return [Event(int(i), int(t), str(k), str(a), str(s), json.loads(d))
            for i, t, k, a, s, d in rows]  # fmt: skip


def thresholds(uow: UnitOfWork, currency: str = HOME) -> dict[str, int]:
    """The large-win and large-wager thresholds of a currency (its minor units), as
    ``THRESHOLDS`` says them; the settings are cached for a minute."""
    values = settings(uow)
    return {key: values.get(threshold_key(key, currency), values[key]) for key in THRESHOLDS}


def threshold_key(name: str, currency: str) -> str:
    """The setting of a threshold in a currency: ``large_win`` (HOME), ``large_win.SEK``."""
    return name if currency == HOME else f"{name}.{currency}"


def settings(uow: UnitOfWork, cached: bool = True) -> dict[str, int]:
    """Every threshold set, by ``threshold_key`` (HOME's always there), as cached for a
    minute (``cached``) or read now."""
    global _cached
    read_at, values = _cached
    if cached and time.monotonic() - read_at < _CACHE_S:
        return values
    values = dict(THRESHOLDS)
    for key, value in uow.all("SELECT key, value FROM office_settings WHERE key LIKE 'large_%'"):
        if str(key).partition(".")[0] in THRESHOLDS:
            values[str(key)] = int(value)
    _cached = (time.monotonic(), values)
    return values


def forget_thresholds() -> None:
    """Read the thresholds again at the next round (after a change in this process)."""
    global _cached
    _cached = (-_CACHE_S, _cached[1])
