"""What a player changes about their own protection, and the overview they read.

Every change is written to the audit log in the same transaction. Nothing here can shorten
a time-out or a self-exclusion, nor raise a limit sooner than 24 hours after it was asked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.responsible import persons
from baccarat.server.responsible.checks import (
    LIMITS,
    MAX_LIMIT,
    MAX_MINUTES,
    MINUTE_US,
    RAISE_DELAY_US,
    SELF_EXCLUSION_MONTHS,
    SESSION_BREAK_US,
    TIME_OUT_DAYS,
    Profile,
    Session,
    audit,
    current_session,
    locked_profile,
    next_pending,
    pending_changes,
    save_profile,
    session_result,
    settled_profile,
    usage,
)
from baccarat.server.responsible.periods import DAY_US, PERIODS, add_months


def _check_limit(name: str, value: object) -> int | None:
    if value is None:
        return None
    top = MAX_MINUTES if name == "session_minutes" else MAX_LIMIT
    low = 1 if name == "session_minutes" else 0
    if type(value) is not int or not low <= value <= top:
        what = "minutes" if name == "session_minutes" else "cents"
        raise ServiceError(
            "invalid_limit",
            f"the {name.replace('_', ' ')} limit is a whole number of {what} from {low} to "
            f"{top}, or null for none",
            limit=name, value=value,
        )  # fmt: skip
    return value


def set_limits(uow: UnitOfWork, player_id: int, changes: dict[str, int | None]) -> dict[str, Any]:
    """Set limits (``deposit_day`` ... ``session_minutes``). A lower limit applies at once; a
    higher one, or none, is pending for 24 hours; setting the one in force cancels a pending
    change."""
    for name in changes:
        if name not in LIMITS:
            raise ServiceError("invalid_limit", f"there is no limit {name!r}", limit=name)
    wanted = {name: _check_limit(name, value) for name, value in changes.items()}
    profile = locked_profile(uow, player_id)
    limits, since = dict(profile.limits), profile.session_limit_us
    pending = {name for name, _, _ in pending_changes(uow, player_id)}
    for name, value in wanted.items():
        current = limits[name]
        if value == current or (value is not None and (current is None or value < current)):
            if value != current:
                limits[name] = value
                since = uow.now if name == "session_minutes" else since
                audit(uow, player_id, "limit_set", limit=name, before=current, amount=value)
            if name in pending:
                uow.run(
                    "DELETE FROM responsible_pending WHERE player_id = :p AND name = :n",
                    {"p": player_id, "n": name},
                )
                audit(uow, player_id, "pending_cancelled", limit=name)
            continue
        applies = uow.now + RAISE_DELAY_US
        uow.run(
            "DELETE FROM responsible_pending WHERE player_id = :p AND name = :n",
            {"p": player_id, "n": name},
        )
        uow.run(
            "INSERT INTO responsible_pending (player_id, name, amount, applies_us) "
            "VALUES (:p, :n, :a, :at)",
            {"p": player_id, "n": name, "a": value, "at": applies},
        )
        audit(uow, player_id, "limit_raise_requested", limit=name, before=current, amount=value,
              applies=iso_time(applies))  # fmt: skip
    save_profile(uow, player_id, replace(profile, limits=limits, session_limit_us=since,
                                         pending_us=next_pending(uow, player_id)))  # fmt: skip
    return overview(uow, player_id)


def set_reality_check(uow: UnitOfWork, player_id: int, minutes: int) -> dict[str, Any]:
    if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
        raise ServiceError(
            "invalid_reality_check",
            f"a reality check comes every 1 to {MAX_MINUTES} minutes",
            minutes=minutes,
        )
    profile = locked_profile(uow, player_id)
    if minutes != profile.reality_minutes:
        save_profile(uow, player_id, replace(profile, reality_minutes=minutes))
        audit(uow, player_id, "reality_check_set", before=profile.reality_minutes, minutes=minutes)
    return overview(uow, player_id)


def acknowledge(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
    """The player saw the reality check: the next one is due a full interval from now."""
    profile, session = current_session(uow, player_id, locked_profile(uow, player_id))
    save_profile(uow, player_id, replace(profile, checked_us=uow.now))
    audit(uow, player_id, "reality_check_ack", **session_result(uow, player_id, session))
    return overview(uow, player_id)


def _exclude(
    uow: UnitOfWork, player_id: int, kind: str, until: int, **asked: int
) -> dict[str, Any]:
    # The person's: an operator's player's other currencies too (``persons``).
    persons.exclude(uow, player_id, kind, until, **asked)
    return overview(uow, player_id)


def time_out(uow: UnitOfWork, player_id: int, days: int) -> dict[str, Any]:
    if type(days) is not int or days not in TIME_OUT_DAYS:
        raise ServiceError(
            "invalid_exclusion", "a time-out lasts 1, 7 or 30 days", days=days,
            choices=list(TIME_OUT_DAYS),
        )  # fmt: skip
    return _exclude(uow, player_id, "time_out", uow.now + days * DAY_US, days=days)


def self_exclude(uow: UnitOfWork, player_id: int, months: int) -> dict[str, Any]:
    if type(months) is not int or months not in SELF_EXCLUSION_MONTHS:
        raise ServiceError(
            "invalid_exclusion", "a self-exclusion lasts 6, 12 or 60 months", months=months,
            choices=list(SELF_EXCLUSION_MONTHS),
        )  # fmt: skip
    return _exclude(uow, player_id, "self_exclusion", add_months(uow.now, months), months=months)


# -- reading -------------------------------------------------------------------------------


def _grouped(values: dict[str, int | None]) -> dict[str, Any]:
    grouped: dict[str, Any] = {
        kind: {period: values[f"{kind}_{period}"] for period in PERIODS}
        for kind in ("deposit", "loss", "wager")
    }
    return grouped | {"session_minutes": values["session_minutes"]}


def overview(uow: UnitOfWork, player_id: int) -> dict[str, Any]:
    """Everything the player's responsible-gaming page shows (pending changes due are
    applied first, so this runs in a write transaction)."""
    profile: Profile = locked_profile(uow, player_id)
    profile, session = current_session(uow, player_id, profile)
    return _overview(uow, player_id, profile, session)


def peek(uow: UnitOfWork, player_id: int) -> dict[str, Any] | None:
    """``overview`` in a read transaction, when it would write nothing (the usual case: a
    page that reads its limits again); None when it has something to write first."""
    settled = settled_profile(uow, player_id)
    return None if settled is None else _overview(uow, player_id, *settled)


def _overview(
    uow: UnitOfWork, player_id: int, profile: Profile, session: Session
) -> dict[str, Any]:
    used = usage(uow, player_id)
    pending = []
    for name, amount, applies in pending_changes(uow, player_id):
        kind, _, period = name.partition("_")
        pending.append({
            "limit": name, "kind": kind, "period": None if name == "session_minutes" else period,
            "amount": amount, "applies": iso_time(applies),
        })  # fmt: skip
    minutes, ends = profile.limits["session_minutes"], profile.limit_ends(session.started_us)
    due = session.checked_us + profile.reality_minutes * MINUTE_US
    exclusion = None
    if profile.excluded(uow.now):
        assert profile.excluded_until_us is not None
        exclusion = {"kind": profile.exclusion, "until": iso_time(profile.excluded_until_us)}
    return {
        "limits": _grouped(profile.limits),
        "pending": pending,
        "usage": {
            period: {
                "start": iso_time(u.start_us),
                "resets": iso_time(u.end_us),
                "deposit": u.deposit,
                "loss": u.loss,
                "wager": u.wager,
            }
            for period, u in used.items()
        },
        "reality_check": {
            "minutes": profile.reality_minutes,
            "due": uow.now >= due,
            "next": iso_time(due),
        },
        "session": session_result(uow, player_id, session)
        | {
            "limit_minutes": minutes,
            # When the limit ends play, and when a new session may begin after its break.
            "ends": None if ends is None else iso_time(ends),
            "resumes": None if ends is None else iso_time(ends + SESSION_BREAK_US),
        },
        "exclusion": exclusion,
        "server_time": iso_time(uow.now),
    }
