"""Staff accounts, separate from players: a role, a password (argon2, as players') and a
second factor (TOTP, RFC 6238, by ``pyotp``; or one of ten single-use recovery codes).

Sessions expire 8 hours after login, or after 30 minutes without a request; the token is
kept hashed, as players' are. Logins count against the players' throttles (``auth``) under
keys of their own. Roles (``PERMISSIONS``): a viewer reads the reports and the events;
support: players and rounds, and proposes voids; finance: the reports and the cashier;
admin: everything, tables, settings and staff. Every staff action is a row of the
append-only ``staff_audit``: who, when, what (``action`` on ``target``), why (``reason``).

An admin (or the operator at the command line) disables and enables accounts, changes
roles and resets a password or a second factor, each with a reason, audited and a
significant event (``staff_changed``); a disabled account's sessions end at once, and the
last active admin can be neither disabled nor demoted (``last_admin``). Every staff member
changes their own password (the current one first).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from baccarat.server import auth, significant
from baccarat.server.accounts import check_nickname
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.play.round import MAX_REASON  # the one length of an audited reason
from baccarat.server.settings import LoginThrottle

ROLES = ("viewer", "support", "finance", "admin")
PERMISSIONS: dict[str, frozenset[str]] = {
    "reports": frozenset({"viewer", "finance", "admin"}),
    "events": frozenset({"viewer", "support", "finance", "admin"}),
    "tables": frozenset({"viewer", "support", "finance", "admin"}),
    "players": frozenset({"support", "admin"}),
    "rounds": frozenset({"support", "admin"}),
    "void_propose": frozenset({"support", "admin"}),
    "void_approve": frozenset({"admin"}),
    "cashier": frozenset({"finance", "admin"}),
    "tables_change": frozenset({"admin"}),
    "settings": frozenset({"admin"}),
    "staff": frozenset({"admin"}),
    "own_password": frozenset(ROLES),
}
SESSION_TTL_S = 8 * 3600
IDLE_S = 30 * 60
SEEN_EVERY_US = 60 * 1_000_000  # a session's last request is written at most once a minute
RECOVERY_CODES = 10
TOTP_STEP_S = 30


@dataclass(frozen=True, slots=True)
class Staff:
    id: int
    name: str
    role: str

    def may(self, permission: str) -> bool:
        return self.role in PERMISSIONS[permission]

    def require(self, permission: str) -> None:
        if not self.may(permission):
            raise ServiceError("forbidden", f"a {self.role} may not do this ({permission})",
                               role=self.role, permission=permission)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        allowed = sorted(p for p in PERMISSIONS if self.may(p))
        return {"id": self.id, "name": self.name, "role": self.role, "permissions": allowed}

    @property
    def actor(self) -> str:
        return f"staff:{self.id}"


@dataclass(frozen=True, slots=True)
class Enrolment:
    """What a new staff member is given once: the TOTP secret (and its URI for an
    authenticator app) and the recovery codes."""

    staff: Staff
    totp_secret: str
    recovery_codes: tuple[str, ...]

    @property
    def totp_uri(self) -> str:
        import pyotp

        totp = pyotp.TOTP(self.totp_secret)
        return totp.provisioning_uri(name=self.staff.name, issuer_name="baccarat")

    def to_json(self) -> dict[str, Any]:
        return {"staff": self.staff.to_json(), "totp_secret": self.totp_secret,
                "totp_uri": self.totp_uri, "recovery_codes": list(self.recovery_codes)}  # fmt: skip


def check_name(name: str) -> str:
    try:
        return check_nickname(name)
    except ServiceError:
        raise ServiceError(
            "invalid_staff_name", "a staff name is 3 to 24 letters, digits, '_' or '-'"
        ) from None


def check_role(role: str) -> str:
    if role not in ROLES:
        raise ServiceError("invalid_role", f"a role is one of {', '.join(ROLES)}, not {role!r}")
    return role


def check_reason(reason: str | None) -> str:
    text = (reason or "").strip()
    if not text or len(text) > MAX_REASON or not text.isprintable():
        raise ServiceError("reason_required",
                           f"give a reason: 1 to {MAX_REASON} printable characters")  # fmt: skip
    return text


def _code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().lower().replace("-", "").encode()).hexdigest()


def _second_factor() -> tuple[str, tuple[str, ...]]:
    """A new TOTP secret and recovery codes."""
    import pyotp

    codes = tuple(f"{secrets.token_hex(3)}-{secrets.token_hex(3)}" for _ in range(RECOVERY_CODES))
    return pyotp.random_base32(), codes


def create(uow: UnitOfWork, name: str, role: str, password_hash: str) -> Enrolment:
    """A new staff account (the password hashed by the caller, outside the transaction)."""
    check_name(name)
    check_role(role)
    if uow.one("SELECT 1 FROM staff WHERE name_key = :k", {"k": name.casefold()}) is not None:
        raise ServiceError("staff_name_taken", f"a staff account {name!r} exists already")
    secret, codes = _second_factor()
    staff_id = int(uow.scalar(
        "INSERT INTO staff (name, name_key, role, password_hash, totp_secret, recovery_codes, "
        "created_us) VALUES (:n, :k, :r, :p, :s, :c, :now) RETURNING id",
        {"n": name, "k": name.casefold(), "r": role, "p": password_hash, "s": secret,
         "c": json.dumps([_code_hash(c) for c in codes]), "now": uow.now},
    ))  # fmt: skip
    return Enrolment(Staff(staff_id, name, role), secret, codes)


# -- administration: by an admin (``by``) or the operator at the command line (None) ------

CHANGES = ("disabled", "enabled", "role_changed", "password_reset", "second_factor_reset")


@dataclass(frozen=True, slots=True)
class Member:
    """A staff account as the administration sees it (disabled or not)."""

    staff: Staff
    disabled: bool


def member(uow: UnitOfWork, name: str) -> Member:
    """The staff account of this name (any case), live or disabled; or 404 ``unknown_staff``."""
    row = uow.one(
        "SELECT id, name, role, disabled_us FROM staff WHERE name_key = :k" + uow.for_update,
        {"k": name.casefold()[:64]},
    )
    if row is None:
        raise ServiceError("unknown_staff", f"no staff account {name[:64]!r}")
    return Member(Staff(int(row[0]), str(row[1]), str(row[2])), row[3] is not None)


def _keep_an_admin(uow: UnitOfWork, target: Member, what: str) -> None:
    """Refuse to take away the last active admin (``last_admin``). The active admins' rows
    are locked first: two admins disabling each other at once cannot both succeed."""
    if target.disabled or target.staff.role != "admin":
        return
    admins = uow.all(
        "SELECT id FROM staff WHERE role = 'admin' AND disabled_us IS NULL" + uow.for_update
    )
    if all(int(i) == target.staff.id for (i,) in admins):
        raise ServiceError("last_admin", f"{target.staff.name} is the last active admin: "
                           f"make another admin before you {what} this one")  # fmt: skip


def _changed(
    uow: UnitOfWork, by: Staff | None, target: Member, change: str, reason: str, **details: Any
) -> dict[str, Any]:
    """The change's row of the audit log and its significant event; the account as now."""
    assert change in CHANGES, change
    where = {} if by is not None else {"by": "command line"}
    audit(uow, by, f"staff_{change}", target.staff.actor, reason, **details, **where)
    significant.record(uow, "staff_changed", by.actor if by is not None else "system",
                  target.staff.actor, change=change, reason=reason, **details,
                  **where)  # fmt: skip
    (shown,) = [s for s in listed(uow) if s["id"] == target.staff.id]
    return shown


def _administered(uow: UnitOfWork, by: Staff | None, name: str, reason: str) -> tuple[Member, str]:
    """The account an admin (or the command line, ``by`` None) changes, and the reason."""
    if by is not None:
        by.require("staff")
    return member(uow, name), check_reason(reason)


def _end_sessions(uow: UnitOfWork, staff_id: int, keep: str | None = None) -> None:
    uow.run("DELETE FROM staff_sessions WHERE staff_id = :s AND token_hash <> :k",
            {"s": staff_id, "k": keep or ""})  # fmt: skip


def set_disabled(
    uow: UnitOfWork, by: Staff | None, name: str, disabled: bool, reason: str
) -> dict[str, Any]:
    """Disable (its sessions end at once) or enable again a staff account."""
    target, reason = _administered(uow, by, name, reason)
    if target.disabled == disabled:
        state = "disabled" if disabled else "active"
        raise ServiceError("staff_unchanged", f"{target.staff.name} is {state} already")
    if disabled:
        _keep_an_admin(uow, target, "disable")
        _end_sessions(uow, target.staff.id)
    uow.run("UPDATE staff SET disabled_us = :d WHERE id = :i",
            {"d": uow.now if disabled else None, "i": target.staff.id})  # fmt: skip
    return _changed(uow, by, target, "disabled" if disabled else "enabled", reason)


def set_role(
    uow: UnitOfWork, by: Staff | None, name: str, role: str, reason: str
) -> dict[str, Any]:
    """Give a staff account another role (from its next request)."""
    check_role(role)
    target, reason = _administered(uow, by, name, reason)
    if target.staff.role == role:
        raise ServiceError("staff_unchanged", f"{target.staff.name} is a {role} already")
    if role != "admin":
        _keep_an_admin(uow, target, "demote")
    uow.run("UPDATE staff SET role = :r WHERE id = :i", {"r": role, "i": target.staff.id})
    return _changed(uow, by, target, "role_changed", reason, role=role,
                    was=target.staff.role)  # fmt: skip


def reset_password(
    uow: UnitOfWork, by: Staff | None, name: str, password_hash: str, reason: str
) -> dict[str, Any]:
    """A new password (hashed by the caller) for a staff account; its sessions end."""
    target, reason = _administered(uow, by, name, reason)
    uow.run("UPDATE staff SET password_hash = :p WHERE id = :i",
            {"p": password_hash, "i": target.staff.id})  # fmt: skip
    _end_sessions(uow, target.staff.id)
    return _changed(uow, by, target, "password_reset", reason)


def reset_second_factor(uow: UnitOfWork, by: Staff | None, name: str, reason: str) -> Enrolment:
    """A new TOTP secret and recovery codes (the old ones stop working); sessions end."""
    target, reason = _administered(uow, by, name, reason)
    secret, codes = _second_factor()
    uow.run(
        "UPDATE staff SET totp_secret = :s, totp_step = 0, recovery_codes = :c WHERE id = :i",
        {"s": secret, "c": json.dumps([_code_hash(c) for c in codes]), "i": target.staff.id},
    )
    _end_sessions(uow, target.staff.id)
    _changed(uow, by, target, "second_factor_reset", reason)
    return Enrolment(target.staff, secret, codes)


def temporary_password() -> str:
    """A password an admin hands on once (the member then changes it): 20 random letters
    and digits (about 119 bits)."""
    import string

    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(20))


def password_hash_of(uow: UnitOfWork, staff: Staff) -> str:
    return str(uow.scalar("SELECT password_hash FROM staff WHERE id = :i", {"i": staff.id}))


def change_own_password(uow: UnitOfWork, staff: Staff, password_hash: str, keep: str) -> None:
    """A staff member's new password (they gave the current one): their other sessions end,
    this one stays."""
    staff.require("own_password")
    uow.run("UPDATE staff SET password_hash = :p WHERE id = :i",
            {"p": password_hash, "i": staff.id})  # fmt: skip
    _end_sessions(uow, staff.id, keep)
    audit(uow, staff, "own_password_changed", staff.actor, "changed by its owner")
    significant.record(uow, "staff_changed", staff.actor, staff.actor,
                       change="own_password_changed", reason="changed by its owner")  # fmt: skip


def listed(uow: UnitOfWork) -> list[dict[str, Any]]:
    from baccarat.server.history import iso_time

    return [
        {"id": int(i), "name": str(n), "role": str(r), "created": iso_time(int(c)),
         "disabled": d is not None}
        for i, n, r, c, d in uow.all(
            "SELECT id, name, role, created_us, disabled_us FROM staff ORDER BY id"
        )
    ]  # fmt: skip


def find(uow: UnitOfWork, name: str) -> tuple[Staff, str] | None:
    """The live staff account of this name and its password hash."""
    row = uow.one(
        "SELECT id, name, role, password_hash FROM staff "
        "WHERE name_key = :k AND disabled_us IS NULL",
        {"k": name.casefold()[:64]},
    )
    return None if row is None else (Staff(int(row[0]), str(row[1]), str(row[2])), str(row[3]))


def throttle_keys(name: str, client: str | None) -> auth.LoginKeys:
    """The players' throttle keys (``auth.throttle_keys``), as a staff login's."""
    return auth.throttle_keys(name, client, prefix="staff-")


def admit(uow: UnitOfWork, name: str, client: str | None, policy: LoginThrottle) -> Any:
    """Count the attempt (refused while throttled); the account and hash, if any."""
    auth.admit_attempt(uow, throttle_keys(name, client), policy)
    return find(uow, name)


def second_factor(uow: UnitOfWork, staff_id: int, code: str) -> bool:
    """A TOTP code of now (one step either side), each step good once; or an unused
    recovery code (then spent)."""
    import pyotp

    secret, last_step, stored = uow.one(
        "SELECT totp_secret, totp_step, recovery_codes FROM staff WHERE id = :i" + uow.for_update,
        {"i": staff_id},
    ) or ("", 0, "[]")
    code = code.strip()
    if code.isdigit() and len(code) == 6:
        totp = pyotp.TOTP(secret)
        now_s = uow.now // 1_000_000
        for offset in (0, -1, 1):
            step = now_s // TOTP_STEP_S + offset
            if step > int(last_step) and hmac.compare_digest(totp.at(step * TOTP_STEP_S), code):
                uow.run("UPDATE staff SET totp_step = :s WHERE id = :i", {"s": step, "i": staff_id})
                return True
        return False
    hashes = json.loads(stored)
    hashed = _code_hash(code)
    if hashed not in hashes:
        return False
    hashes.remove(hashed)
    uow.run("UPDATE staff SET recovery_codes = :c WHERE id = :i",
            {"c": json.dumps(hashes), "i": staff_id})  # fmt: skip
    audit(uow, Staff(staff_id, "", ""), "recovery_code_used", f"staff:{staff_id}", None,
          left=len(hashes))  # fmt: skip
    return True


def login(uow: UnitOfWork, staff: Staff, code: str, name: str, client: str | None) -> auth.Session:
    """The second step of a login (the password was right): the code, then a session."""
    keys = throttle_keys(name, client)
    if not second_factor(uow, staff.id, code):
        failed(uow, name, client, "second factor")
        raise ServiceError("invalid_credentials", "wrong name, password or code")
    auth.forgive(uow, keys)
    token = auth.new_token()
    expires = uow.now + SESSION_TTL_S * 1_000_000
    uow.run(
        "INSERT INTO staff_sessions (token_hash, staff_id, created_us, expires_us, seen_us) "
        "VALUES (:h, :s, :now, :exp, :now)",
        {"h": auth.token_hash(token), "s": staff.id, "now": uow.now, "exp": expires},
    )
    uow.run("DELETE FROM staff_sessions WHERE staff_id = :s AND expires_us <= :now",
            {"s": staff.id, "now": uow.now})  # fmt: skip
    audit(uow, staff, "login", staff.actor, None, client=client)
    return auth.Session(token, staff.id, expires)


def failed(uow: UnitOfWork, name: str, client: str | None, what: str) -> None:
    """A failed staff login: a significant event."""
    significant.record(uow, "staff_login_failed", f"client:{client or 'unknown'}",
                  f"staff:{name[:24]}", failed=what)  # fmt: skip


def authenticate(uow: UnitOfWork, hashed: str | None) -> tuple[Staff, bool]:
    """The staff member of a live session, and whether its last request should be written
    again (``touch``: at most once a minute); or 401."""
    if hashed is not None:
        row = uow.one(
            "SELECT s.id, s.name, s.role, t.expires_us, t.seen_us FROM staff_sessions t "
            "JOIN staff s ON s.id = t.staff_id "
            "WHERE t.token_hash = :h AND s.disabled_us IS NULL",
            {"h": hashed},
        )
        if row is not None and row[3] > uow.now and uow.now - row[4] < IDLE_S * 1_000_000:
            return Staff(int(row[0]), str(row[1]), str(row[2])), uow.now - row[4] >= SEEN_EVERY_US
    raise ServiceError("not_authenticated", "log in to the back office first")


def touch(uow: UnitOfWork, hashed: str) -> None:
    """The session's last request is now (its idle time starts again)."""
    uow.run("UPDATE staff_sessions SET seen_us = :now WHERE token_hash = :h",
            {"now": uow.now, "h": hashed})  # fmt: skip


def logout(uow: UnitOfWork, staff: Staff, hashed: str) -> None:
    uow.run("DELETE FROM staff_sessions WHERE token_hash = :h", {"h": hashed})
    audit(uow, staff, "logout", staff.actor, None)


def audit(
    uow: UnitOfWork, staff: Staff | None, action: str, target: str, reason: str | None,
    **details: Any,
) -> None:  # fmt: skip
    """One row of the append-only staff audit log (in the action's own transaction)."""
    uow.run(
        "INSERT INTO staff_audit (staff_id, created_us, action, target, reason, details) "
        "VALUES (:s, :now, :a, :t, :r, :d)",
        {"s": None if staff is None else staff.id, "now": uow.now, "a": action,
         "t": target[:200], "r": reason,
         "d": json.dumps(details, separators=(",", ":"), sort_keys=True)},
    )  # fmt: skip


def audit_log(uow: UnitOfWork, target: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Staff actions, newest first (on one target, or all)."""
    from baccarat.server.history import iso_time

    where = " WHERE a.target = :t" if target is not None else ""
    rows = uow.all(
        "SELECT a.id, a.created_us, s.name, a.action, a.target, a.reason, a.details "
        f"FROM staff_audit a LEFT JOIN staff s ON s.id = a.staff_id{where} "
        "ORDER BY a.id DESC LIMIT :n",
        {"t": target, "n": min(max(limit, 1), 1000)},
    )
    answer = []
    for i, t, n, a, g, r, d in rows:
        details = json.loads(d)
        # An act of no staff member: the operator's at the command line, or the system's.
        who = n if n is not None else str(details.get("by", "system"))
        answer.append({"id": int(i), "time": iso_time(int(t)), "staff": who, "action": a,
                       "target": g, "reason": r, "details": details})  # fmt: skip
    return answer
