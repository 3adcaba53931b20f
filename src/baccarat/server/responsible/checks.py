"""Responsible gaming: limits, reality checks, time-out and self-exclusion (real money).

What a player sets for themselves (docs/responsible-gaming.md says which regulators' rules
this follows):

* Limits per calendar period in UTC (``periods``): deposits, net losses and total wagered,
  per day, week and month; and a session time limit. Lowering a limit (or setting a new
  one) applies at once; raising or removing one waits 24 hours as a pending change.
* A reality check every N minutes (60 unless the player chose otherwise) of the session
  (play time, across logins: ``_session_start``): rounds are refused with
  ``reality_check_due`` until the player acknowledges it.
* A time-out (1, 7 or 30 days) or a self-exclusion (6, 12 or 60 months): no round in either
  mode, no deposit, no seat, until it ends; nobody can end it early.

The checks run inside the transaction of the round or the deposit request, before any money
moves (a refusal rolls everything back). A real-money round costs one primary-key read of
the player's row (locked, so that two rounds of one player cannot both pass a limit), one
indexed read of their newest session, at most 37 day rows of usage when a loss or wager
limit is set, and one upsert of today's usage. A fun round only checks the exclusion.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.responsible.periods import DAY_US, PERIODS, day_of, period_bounds

KINDS = ("deposit", "loss", "wager")
PERIOD_LIMITS = tuple(f"{kind}_{period}" for kind in KINDS for period in PERIODS)
LIMITS = (*PERIOD_LIMITS, "session_minutes")
RAISE_DELAY_US = DAY_US  # raising or removing a limit takes effect after 24 hours
MINUTE_US = 60 * 1_000_000
# The break that ends a session (docs/responsible-gaming.md): no real-money play for this
# long, counted from the last round, or from the moment the session limit ended play.
SESSION_BREAK_MINUTES = 30
SESSION_BREAK_US = SESSION_BREAK_MINUTES * MINUTE_US
REALITY_DEFAULT = 60
MAX_MINUTES = 24 * 60
MAX_LIMIT = 10**13  # cents, as the wallet's largest amount
TIME_OUT_DAYS = (1, 7, 30)
SELF_EXCLUSION_MONTHS = (6, 12, 60)

_COLUMNS = (*LIMITS, "reality_minutes", "pending_us", "excluded_until_us", "exclusion",
            "session_us", "session_seq", "checked_us", "session_limit_us")  # fmt: skip
# The player's row and, in the same round trip, the start of their newest live session.
_SELECT = (
    f"SELECT {', '.join(_COLUMNS)}, (SELECT MAX(created_us) FROM sessions s "
    "WHERE s.player_id = rp.player_id AND s.expires_us > :now) "
    "FROM responsible_players rp WHERE rp.player_id = :p"
)


@dataclass(frozen=True, slots=True)
class Profile:
    """A player's settings as stored (a player without a row has the defaults)."""

    limits: dict[str, int | None]
    reality_minutes: int = REALITY_DEFAULT
    pending_us: int | None = None
    excluded_until_us: int | None = None
    exclusion: str | None = None
    session_us: int | None = None
    session_seq: int | None = None
    checked_us: int | None = None
    session_limit_us: int | None = None  # when the session limit in force took effect
    login_us: int | None = None  # the newest live login session's start, as read

    @classmethod
    def default(cls) -> Profile:
        return cls(dict.fromkeys(LIMITS))

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Profile:
        n = len(LIMITS)
        values = zip(LIMITS, row[:n], strict=True)
        limits = {name: None if v is None else int(v) for name, v in values}
        rest = [None if v is None or isinstance(v, str) else int(v) for v in row[n:]]
        return cls(limits, int(row[n]), rest[1], rest[2], row[n + 3], rest[4], rest[5], rest[6],
                   rest[7], rest[8])  # fmt: skip

    def excluded(self, now_us: int) -> bool:
        return self.excluded_until_us is not None and now_us < self.excluded_until_us

    def limit_ends(self, started_us: int) -> int | None:
        """When the session limit ends play in a session that began at ``started_us``: its
        minutes after the start, but never before the limit took effect (a limit set when
        the session is longer already ends play then, not in the past)."""
        minutes = self.limits["session_minutes"]
        if minutes is None:
            return None
        return max(started_us + minutes * MINUTE_US, self.session_limit_us or 0)


# -- storage -------------------------------------------------------------------------------


def audit(uow: UnitOfWork, player_id: int, action: str, **details: Any) -> None:
    """Append one change to the audit log (the database refuses updates and deletes)."""
    uow.run(
        "INSERT INTO responsible_audit (player_id, created_us, action, details) "
        "VALUES (:p, :now, :a, :d)",
        {"p": player_id, "now": uow.now, "a": action,
         "d": json.dumps(details, separators=(",", ":"), sort_keys=True)},
    )  # fmt: skip


def _load(uow: UnitOfWork, player_id: int, *, lock: bool) -> Profile | None:
    row = uow.one(_SELECT + (uow.lock("rp") if lock else ""), {"p": player_id, "now": uow.now})
    return None if row is None else Profile.from_row(row)


def locked_profile(uow: UnitOfWork, player_id: int) -> Profile:
    """The player's row, created with the defaults if missing, locked for this transaction;
    pending changes whose time has come are applied first."""
    profile = _load(uow, player_id, lock=True)
    if profile is None:
        uow.run(
            "INSERT INTO responsible_players (player_id, reality_minutes, updated_us) "
            "VALUES (:p, :r, :now) ON CONFLICT (player_id) DO NOTHING",
            {"p": player_id, "r": REALITY_DEFAULT, "now": uow.now},
        )
        profile = _load(uow, player_id, lock=True)
        assert profile is not None
    if profile.pending_us is not None and profile.pending_us <= uow.now:
        profile = _apply_due(uow, player_id, profile)
    return profile


def save_profile(uow: UnitOfWork, player_id: int, profile: Profile) -> None:
    uow.known.get(_EXCLUSIONS, {}).pop(player_id, None)
    values = {name: profile.limits[name] for name in LIMITS} | {
        "reality_minutes": profile.reality_minutes, "pending_us": profile.pending_us,
        "excluded_until_us": profile.excluded_until_us, "exclusion": profile.exclusion,
        "session_us": profile.session_us, "session_seq": profile.session_seq,
        "checked_us": profile.checked_us, "session_limit_us": profile.session_limit_us,
    }  # fmt: skip
    sets = ", ".join(f"{name} = :{name}" for name in values)
    uow.run(
        f"UPDATE responsible_players SET {sets}, updated_us = :now WHERE player_id = :p",
        values | {"p": player_id, "now": uow.now},
    )


def pending_changes(uow: UnitOfWork, player_id: int) -> list[tuple[str, int | None, int]]:
    rows = uow.all(
        "SELECT name, amount, applies_us FROM responsible_pending WHERE player_id = :p "
        "ORDER BY applies_us, name",
        {"p": player_id},
    )
    return [(name, None if a is None else int(a), int(at)) for name, a, at in rows]


def next_pending(uow: UnitOfWork, player_id: int) -> int | None:
    value = uow.scalar(
        "SELECT MIN(applies_us) FROM responsible_pending WHERE player_id = :p", {"p": player_id}
    )
    return None if value is None else int(value)


def _apply_due(uow: UnitOfWork, player_id: int, profile: Profile) -> Profile:
    limits, since = dict(profile.limits), profile.session_limit_us
    for name, amount, applies in pending_changes(uow, player_id):
        if applies <= uow.now:
            limits[name] = amount
            since = uow.now if name == "session_minutes" else since
            audit(uow, player_id, "pending_applied", limit=name, amount=amount,
                  applies=iso_time(applies))  # fmt: skip
    uow.run(
        "DELETE FROM responsible_pending WHERE player_id = :p AND applies_us <= :now",
        {"p": player_id, "now": uow.now},
    )
    profile = replace(profile, limits=limits, pending_us=next_pending(uow, player_id),
                      session_limit_us=since)  # fmt: skip
    save_profile(uow, player_id, profile)
    return profile


# -- usage ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Usage:
    """What the player used in one period: deposits requested (not rejected), net loss
    (stakes minus returns; negative when ahead) and total wagered."""

    period: str
    start_us: int
    end_us: int
    deposit: int
    loss: int
    wager: int

    def used(self, kind: str) -> int:
        value: int = getattr(self, kind)
        return value


def usage(uow: UnitOfWork, player_id: int, *, deposits: bool = True) -> dict[str, Usage]:
    """The player's usage in the current day, week and month (their own rows only)."""
    now = uow.now
    bounds = {period: period_bounds(period, now) for period in PERIODS}
    first = min(start for start, _ in bounds.values())
    days = uow.all(
        "SELECT day, wagered, lost FROM responsible_usage WHERE player_id = :p AND day >= :d",
        {"p": player_id, "d": day_of(first)},
    )
    requests = (
        uow.all(
            "SELECT amount, created_us FROM cashier_requests WHERE player_id = :p "
            "AND kind = 'deposit' AND status <> 'rejected' AND created_us >= :s",
            {"p": player_id, "s": first},
        )
        if deposits
        else []
    )
    result = {}
    for period, (start, end) in bounds.items():
        day = day_of(start)
        result[period] = Usage(
            period, start, end,
            sum(int(a) for a, at in requests if int(at) >= start),
            sum(int(lost) for d, _, lost in days if int(d) >= day),
            sum(int(w) for d, w, _ in days if int(d) >= day),
        )  # fmt: skip
    return result


def _record(uow: UnitOfWork, player_id: int, wagered: int, lost: int) -> None:
    uow.run(
        "INSERT INTO responsible_usage (player_id, day, wagered, lost) VALUES (:p, :d, :w, :l) "
        "ON CONFLICT (player_id, day) DO UPDATE SET "
        "wagered = responsible_usage.wagered + excluded.wagered, "
        "lost = responsible_usage.lost + excluded.lost",
        {"p": player_id, "d": day_of(uow.now), "w": wagered, "l": lost},
    )


def _check_limits(profile: Profile, used: dict[str, Usage], amounts: dict[str, int]) -> None:
    """Refuse if adding ``amounts`` (per kind) would pass any limit: the tightest one is named,
    with what is left and when its period resets."""
    worst: tuple[int, int, str, str, int, int] | None = None
    for kind, amount in amounts.items():
        for period in PERIODS:
            limit = profile.limits[f"{kind}_{period}"]
            if limit is None:
                continue
            spent = used[period].used(kind)
            if spent + amount > limit:
                left = max(0, limit - spent)
                candidate = (left, -used[period].end_us, kind, period, limit, spent)
                worst = candidate if worst is None or candidate < worst else worst
    if worst is None:
        return
    left, end, kind, period, limit, spent = worst
    adjective = {"day": "daily", "week": "weekly", "month": "monthly"}[period]
    raise ServiceError(
        f"{kind}_limit_reached",
        f"this would pass your {adjective} {kind} limit of {limit / 100:.2f}: "
        f"{left / 100:.2f} left until {iso_time(-end)}",
        kind=kind, period=period, limit=limit, used=spent, left=left,
        requested=amounts[kind], resets=iso_time(-end),
    )  # fmt: skip


# -- the checks on the money paths --------------------------------------------------------


def refuse_excluded(profile: Profile, now_us: int) -> None:
    if not profile.excluded(now_us):
        return
    assert profile.excluded_until_us is not None
    until = iso_time(profile.excluded_until_us)
    if profile.exclusion == "self_exclusion":
        raise ServiceError(
            "self_excluded", f"you excluded yourself from play until {until}", until=until
        )
    raise ServiceError("timed_out", f"you took a time-out from play until {until}", until=until)


def refuse_exclusion(until_us: int, kind: str, now_us: int) -> None:
    """``refuse_excluded`` for an exclusion read without its profile: its end and kind."""
    refuse_excluded(replace(Profile.default(), excluded_until_us=until_us, exclusion=kind), now_us)


@dataclass(frozen=True, slots=True)
class Session:
    """The login session the session limit and the reality checks count in."""

    started_us: int
    seq: int
    checked_us: int


def _session_start(uow: UnitOfWork, player_id: int, profile: Profile) -> int:
    """When the player's current session began.

    A session begins at a login and carries on across further logins and tokens: logging
    in again starts a new session only after a break of ``SESSION_BREAK_MINUTES`` without
    play, counted from the session's last real-money round, or from the moment its session
    limit ended play; and never while a reality check is due (it stays due until it is
    acknowledged). After a session limit and its break, play resumes in a new session even
    on the old token."""
    current, newest = profile.session_us, profile.login_us
    if current is None or profile.session_seq is None or profile.checked_us is None:
        return newest if newest is not None else uow.now
    if uow.now >= profile.checked_us + profile.reality_minutes * MINUTE_US:
        return current  # the reality check is due: the same session until acknowledged
    limit_end = profile.limit_ends(current)
    if limit_end is not None and uow.now >= limit_end:
        resumes = limit_end + SESSION_BREAK_US
        return max(resumes, newest or 0) if uow.now >= resumes else current
    if newest is None or newest <= current:
        return current
    resumes = _last_play(uow, player_id, profile.session_seq, current) + SESSION_BREAK_US
    return max(resumes, newest) if uow.now >= resumes else current


def _last_play(uow: UnitOfWork, player_id: int, after_seq: int, since: int) -> int:
    """When the player last played real money (as player or banker) since the round
    ``after_seq``; ``since`` if not at all."""
    row = uow.one(
        "SELECT (SELECT MAX(created_us) FROM rounds WHERE player_id = :p AND mode = 'real' "
        "AND seq > :s), (SELECT MAX(created_us) FROM banked_rounds WHERE banker_id = :p "
        "AND mode = 'real' AND round_seq > :s)",
        {"p": player_id, "s": after_seq},
    )
    assert row is not None
    return max([since, *(int(v) for v in row if v is not None)])


def current_session(uow: UnitOfWork, player_id: int, profile: Profile) -> tuple[Profile, Session]:
    """The player's newest live login session; a new one restarts the reality-check clock."""
    started = _session_start(uow, player_id, profile)
    if started != profile.session_us or profile.session_seq is None:
        seq = int(uow.scalar("SELECT COALESCE(MAX(seq), 0) FROM rounds"))
        profile = replace(profile, session_us=started, session_seq=seq, checked_us=started)
        save_profile(uow, player_id, profile)
    assert profile.session_seq is not None and profile.checked_us is not None
    return profile, Session(started, profile.session_seq, profile.checked_us)


def settled_profile(uow: UnitOfWork, player_id: int) -> tuple[Profile, Session] | None:
    """The player's profile and session as ``locked_profile`` and ``current_session`` give
    them, when they would write nothing (the row exists, no pending change is due, the
    session is the current one): then a read transaction can show them. None otherwise."""
    profile = _load(uow, player_id, lock=False)
    if profile is None or (profile.pending_us is not None and profile.pending_us <= uow.now):
        return None
    started = _session_start(uow, player_id, profile)
    if started != profile.session_us or profile.session_seq is None or profile.checked_us is None:
        return None
    return profile, Session(started, profile.session_seq, profile.checked_us)


def session_result(
    uow: UnitOfWork, player_id: int, session: Session, mode: str = "real"
) -> dict[str, Any]:
    """Time played and the net result of the session's real-money rounds (or the ``mode``'s:
    the net position a jurisdiction profile shows, docs/jurisdictions.md), as player or
    banker; a voided round is not among them (its money went back, as it leaves the day's
    usage)."""
    played = uow.one(
        "SELECT COUNT(*), COALESCE(SUM(stake), 0), COALESCE(SUM(win - stake), 0) FROM rounds "
        "WHERE player_id = :p AND mode = :m AND seq > :s AND void_reason IS NULL",
        {"p": player_id, "s": session.seq, "m": mode},
    )
    banked = uow.one(
        "SELECT COUNT(*), COALESCE(SUM(b.banker_after - b.banker_before), 0) "
        "FROM banked_rounds b JOIN rounds r ON r.id = b.round_id WHERE b.banker_id = :p "
        "AND b.mode = :m AND b.round_seq > :s AND r.void_reason IS NULL",
        {"p": player_id, "s": session.seq, "m": mode},
    )
    assert played is not None and banked is not None
    return {
        "started": iso_time(session.started_us),
        "played_seconds": max(0, (uow.now - session.started_us) // 1_000_000),
        "rounds": int(played[0]) + int(banked[0]),
        "wagered": int(played[1]),
        "net": int(played[2]) + int(banked[1]),
    }


def _check_session(uow: UnitOfWork, player_id: int, profile: Profile) -> Profile:
    profile, session = current_session(uow, player_id, profile)
    minutes, ended_us = profile.limits["session_minutes"], profile.limit_ends(session.started_us)
    if ended_us is not None and uow.now >= ended_us:
        ended, resumes = iso_time(ended_us), iso_time(ended_us + SESSION_BREAK_US)
        raise ServiceError(
            "session_limit_reached",
            f"your session limit of {minutes} minutes ended play at {ended}: a new session "
            f"begins after a break of {SESSION_BREAK_MINUTES} minutes, at {resumes} (logging "
            "in again does not start one sooner)",
            limit_minutes=minutes, left=0, ended=ended, resumes=resumes,
            **session_result(uow, player_id, session),
        )  # fmt: skip
    due = session.checked_us + profile.reality_minutes * MINUTE_US
    if uow.now >= due:
        raise ServiceError(
            "reality_check_due",
            "reality check: see your time played and net result, and acknowledge "
            "(POST /api/responsible/reality-check/ack) to play on",
            minutes=profile.reality_minutes, **session_result(uow, player_id, session),
        )  # fmt: skip
    return profile


# ``UnitOfWork.known``: the exclusions read by this transaction, by player (nothing but
# ``save_profile`` changes one).
_EXCLUSIONS = "responsible.exclusions"


def _stake_kept(uow: UnitOfWork, key: tuple[int, str]) -> bool:
    player_id, mode = key
    return mode == "real" or player_id in uow.known.get(_EXCLUSIONS, {})


# What ``check_stake`` reads first, by (player, mode), which a round asks for ahead
# (``Lookup.ahead``): in play money the player's exclusion, once per transaction (real
# money reads the player's whole row, locked: ``locked_profile``).
STAKE_CHECK: Lookup[tuple[int, str]] = Lookup(
    "SELECT excluded_until_us, exclusion FROM responsible_players WHERE player_id = :p",
    params=lambda key: {"p": key[0]},
    kept=_stake_kept,
)


def _exclusion(uow: UnitOfWork, player_id: int, mode: str) -> Any:
    """The player's exclusion row (or None), read once per transaction."""
    known = uow.known.setdefault(_EXCLUSIONS, {})
    if player_id not in known:
        known[player_id] = STAKE_CHECK.one(uow, (player_id, mode))
    return known[player_id]


def check_stake(uow: UnitOfWork, player_id: int, mode: str, stake: int) -> Profile | None:
    """Refuse a stake if the player is excluded (either mode) or, in real money, if the
    session, a reality check or a limit forbids it (the whole stake counts against the loss
    and wager limits). The player's row stays locked (real money) until the commit."""
    if mode != "real":
        row = _exclusion(uow, player_id, mode)
        if row is not None and row[0] is not None:
            refuse_exclusion(int(row[0]), row[1], uow.now)
        return None
    profile = locked_profile(uow, player_id)
    refuse_excluded(profile, uow.now)
    _check_session(uow, player_id, profile)
    if any(profile.limits[name] is not None for name in PERIOD_LIMITS[3:]):
        _check_limits(profile, _play_usage(uow, player_id), {"loss": stake, "wager": stake})
    return profile


def _play_usage(uow: UnitOfWork, player_id: int) -> dict[str, Usage]:
    """The usage a stake or an approval is checked against: what was lost and wagered, and
    as lost already what the player's approved, undealt player-banked round can still cost
    them as its banker (the exposure reserved at approval, until the round settles or the
    approval lapses), so that no loss lands on top of a limit used up meanwhile."""
    # What is still held (reserved, pending) is read before what was used: a deal that
    # moves a stake from the one to the other between two reads (another worker's, at
    # READ COMMITTED) is then counted twice, never missed.
    reserved = int(
        uow.scalar(
            "SELECT COALESCE(SUM(reserve), 0) FROM banked_seats WHERE banker_id = :p "
            "AND mode = 'real'",
            {"p": player_id},
        )
    )
    # Bets on shared tables' coups not settled yet count as wagered and lost already (with
    # a multiplier table's fee, held with them).
    pending = int(
        uow.scalar(
            "SELECT COALESCE(SUM(stake + fee), 0) FROM shared_bets WHERE player_id = :p "
            "AND mode = 'real' AND round_id IS NULL",
            {"p": player_id},
        )
    )
    used = usage(uow, player_id, deposits=False)
    return {
        period: replace(u, loss=u.loss + reserved + pending, wager=u.wager + pending)
        for period, u in used.items()
    }


def admit_round(uow: UnitOfWork, player_id: int, mode: str, stake: int, returned: int) -> None:
    """Before a round's money moves: ``check_stake``, then count the round in today's usage
    (real money: the stake wagered, the stake less what it returned lost)."""
    if check_stake(uow, player_id, mode, stake) is not None:
        _record(uow, player_id, stake, stake - returned)


def count(uow: UnitOfWork, player_id: int, mode: str, wagered: int, lost: int) -> None:
    """Count a result in today's usage (real money) without checking it: a banker's result,
    whose round the banker approved (``banker_limits_problem``)."""
    if mode == "real" and (wagered or lost):
        _record(uow, player_id, wagered, lost)


def uncount(
    uow: UnitOfWork, player_id: int, mode: str, played_us: int, wagered: int, lost: int
) -> None:
    """A voided round counts no more: what it wagered and lost leaves the usage of the day
    it was played (real money; a day with no usage never counted it)."""
    if mode == "real" and (wagered or lost):
        _unrecord(uow, player_id, played_us, wagered, lost)


def _unrecord(uow: UnitOfWork, player_id: int, played_us: int, wagered: int, lost: int) -> None:
    # The wagered total never goes below zero (a round played before usage was counted).
    uow.run(
        "UPDATE responsible_usage SET lost = lost - :l, "
        "wagered = CASE WHEN wagered > :w THEN wagered - :w ELSE 0 END "
        "WHERE player_id = :p AND day = :d",
        {"p": player_id, "d": day_of(played_us), "w": wagered, "l": lost},
    )


def banker_limits_problem(
    uow: UnitOfWork, banker_id: int, mode: str, exposure: int
) -> ServiceError | None:
    """Why this banker may not approve a round now: excluded, the session, or a loss limit
    the round's exposure (the most the banker can lose) would pass."""
    try:
        if mode != "real":
            check_stake(uow, banker_id, mode, 0)
            return None
        profile = locked_profile(uow, banker_id)
        refuse_excluded(profile, uow.now)
        _check_session(uow, banker_id, profile)
        if any(profile.limits[f"loss_{period}"] is not None for period in PERIODS):
            _check_limits(profile, _play_usage(uow, banker_id), {"loss": exposure})
    except ServiceError as error:
        return error
    return None


def admit_seat(uow: UnitOfWork, player_id: int, mode: str) -> None:
    """Taking a seat: refused while excluded (either mode) or, in real money, when the
    session or a reality check stops play."""
    if mode != "real":
        check_stake(uow, player_id, mode, 0)
        return
    profile = locked_profile(uow, player_id)
    refuse_excluded(profile, uow.now)
    _check_session(uow, player_id, profile)


def admit_deposit(uow: UnitOfWork, player_id: int, amount: int) -> None:
    """A deposit request: refused while excluded or if it would pass a deposit limit (a
    request counts from the moment it is made; a rejected one stops counting)."""
    profile = locked_profile(uow, player_id)
    refuse_excluded(profile, uow.now)
    if any(profile.limits[name] is not None for name in PERIOD_LIMITS[:3]):
        _check_limits(profile, usage(uow, player_id), {"deposit": amount})


def admit_operator_credit(
    uow: UnitOfWork, player_id: int, kind: str, amount: int, *, confirm_excluded: bool
) -> None:
    """An operator credits a player (a deposit, an approved deposit request): refused while
    the player is timed out or self-excluded unless the operator confirms it explicitly
    (``--confirm-excluded``), and then recorded in the player's audit log."""
    profile = _load(uow, player_id, lock=True)
    if profile is None or not profile.excluded(uow.now):
        return
    assert profile.excluded_until_us is not None
    until = iso_time(profile.excluded_until_us)
    if not confirm_excluded:
        raise ServiceError(
            "player_excluded",
            f"the player is excluded ({profile.exclusion}) until {until}: crediting them needs "
            "an explicit confirmation (--confirm-excluded), which the audit log records",
            exclusion=profile.exclusion, until=until,
        )  # fmt: skip
    audit(uow, player_id, "operator_credit_while_excluded", kind=kind, amount=amount,
          exclusion=profile.exclusion, until=until)  # fmt: skip


def audit_log(uow: UnitOfWork, player_id: int, limit: int = 50) -> list[dict[str, Any]]:
    """The player's latest audit entries, newest first."""
    rows = uow.all(
        "SELECT id, created_us, action, details FROM responsible_audit WHERE player_id = :p "
        "ORDER BY id DESC LIMIT :n",
        {"p": player_id, "n": limit},
    )
    return [{"id": int(i), "time": iso_time(int(t)), "action": a, "details": json.loads(d)}
            for i, t, a, d in rows]  # fmt: skip
