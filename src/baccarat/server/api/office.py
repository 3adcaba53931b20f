"""The back office's API (``/admin/api``): staff login with a second factor, who am I,
the significant events and the staff audit log. Every route checks the caller's role
(``office.staff.PERMISSIONS``) inside its unit of work; see docs/back-office.md."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Concatenate, ParamSpec, TypeVar

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from pydantic import Field

from baccarat.server import significant, software
from baccarat.server.accounts import check_password
from baccarat.server.api.deps import CasinoDep, caller_of, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.ids import Before
from baccarat.server.api.login import SessionCookies, client_address, logout_route
from baccarat.server.api.models import Body, PasswordChangeIn
from baccarat.server.casino import Casino
from baccarat.server.daily import DAY_US
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.office import reports
from baccarat.server.office import staff as staffing
from baccarat.server.office.staff import Staff
from baccarat.server.wallets.operator import report

router = APIRouter(prefix="/admin/api", tags=["back office"])

STAFF_COOKIE = "baccarat_staff"
STAFF_CSRF_COOKIE = "baccarat_staff_csrf"
COOKIE_PATH = "/admin"
STAFF_COOKIES = SessionCookies(STAFF_COOKIE, STAFF_CSRF_COOKIE, COOKIE_PATH, "staff")
T = TypeVar("T")
P = ParamSpec("P")
READ = documented("not_authenticated", "forbidden")
# What every staff change may answer; each route adds its own: documented(*CHANGE, ...).
CHANGE = ("not_authenticated", "forbidden", "csrf_failed", "invalid_body", "reason_required")


class StaffLogin(Body):
    name: str = Field(max_length=64, examples=["carol"])
    password: str = Field(max_length=256)
    code: str = Field(max_length=32, description="a TOTP code (6 digits) or a recovery code")


async def as_staff(
    request: Request, permission: str, work: Callable[[UnitOfWork, Staff], T],
    *, write: bool = False,
) -> T:  # fmt: skip
    """``work(uow, staff)`` for a caller with a live staff session whose role has the
    ``permission`` (401 / 403 otherwise); a write runs in one transaction with the check.
    A read runs on a reader thread (``heavy``): a report takes milliseconds, and nothing
    of the back office may hold the event loop that serves the tables."""
    casino: Casino = request.app.state.casino
    hashed = caller_of(request, STAFF_COOKIE).token_hash

    def checked(uow: UnitOfWork) -> tuple[T, bool]:
        staff, stale = staffing.authenticate(uow, hashed)
        staff.require(permission)
        if write and stale and hashed is not None:
            staffing.touch(uow, hashed)
            stale = False
        return work(uow, staff), stale

    answer, stale = await (
        casino.db.write(checked) if write else casino.db.read(checked, heavy=True)
    )
    if stale and hashed is not None:
        await casino.db.write(lambda uow: staffing.touch(uow, hashed))
    return answer


async def staff_change(
    request: Request, permission: str, change: Callable[Concatenate[UnitOfWork, Staff, P], Any],
    *args: P.args, **kwargs: P.kwargs,
) -> Response:  # fmt: skip
    """A change's answer: what ``change(uow, staff, *args, **kwargs)`` returns, done in the
    one transaction that checks the caller's ``permission``."""
    return json_response(await as_staff(
        request, permission, lambda uow, staff: change(uow, staff, *args, **kwargs), write=True
    ))  # fmt: skip


def role_first(permission: str) -> Any:
    """A write's dependency: the caller is staff whose role has ``permission`` (401 / 403
    otherwise), checked before FastAPI validates the body, which it does after a route's
    dependencies (a caller without the role is refused whatever the body, and learns
    nothing of it). The route checks again in the unit of work that writes."""

    async def check(request: Request) -> None:
        await as_staff(request, permission, lambda uow, staff: None)

    return Depends(check)


@router.post(
    "/sessions",
    status_code=201,
    responses=documented("invalid_body", "invalid_credentials", "rate_limited", "login_throttled"),
    summary="Staff login: name, password and a TOTP or recovery code",
)
async def login(body: StaffLogin, request: Request, casino: CasinoDep) -> Response:
    client = client_address(request)
    policy = casino.settings.login_throttle
    found = await casino.db.write(lambda uow: staffing.admit(uow, body.name, client, policy))
    valid = await casino.hashing.run(
        casino.passwords.verify, found[1] if found else None, body.password
    )
    if found is None or not valid:
        await casino.db.write(lambda uow: staffing.failed(uow, body.name, client, "password"))
        raise ServiceError("invalid_credentials", "wrong name, password or code")
    member: Staff = found[0]
    try:
        session = await casino.db.write(
            lambda uow: staffing.login(uow, member, body.code, body.name, client)
        )
    except ServiceError as error:
        if error.code == "invalid_credentials":
            # The failure's event, in a transaction of its own (the login's rolled back).
            await casino.db.write(
                lambda uow: staffing.failed(uow, body.name, client, "second factor")
            )
        raise
    return STAFF_COOKIES.logged_in(
        session.token, session.csrf, session.expires_us, member.to_json(),
        max_age=staffing.SESSION_TTL_S, secure=casino.settings.cookie_secure,
    )  # fmt: skip


@logout_route(router, "/sessions", "Staff logout")
async def logout(request: Request) -> Response:
    hashed = caller_of(request, STAFF_COOKIE).token_hash

    def end(uow: UnitOfWork, staff: Staff) -> None:
        assert hashed is not None
        staffing.logout(uow, staff, hashed)

    await as_staff(request, "events", end, write=True)
    return STAFF_COOKIES.cleared()


@router.get("/me", responses=documented("not_authenticated"), summary="The logged-in staff")
async def me(request: Request) -> Response:
    member = await as_staff(request, "events", lambda uow, staff: staff)
    return json_response(member.to_json())


@router.get(
    "/session",
    responses=documented(),
    summary="Is this caller logged in to the back office? Always 200 (the page asks on load)",
)
async def session_state(request: Request) -> Response:
    try:
        member = await as_staff(request, "events", lambda uow, staff: staff)
    except ServiceError as error:
        if error.code != "not_authenticated":
            raise
        return json_response({"logged_in": False})
    return json_response({"logged_in": True, "staff": member.to_json()})


def _day_us(day: date | None, end: bool = False) -> int | None:
    if day is None:
        return None
    start = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1 if end else 0)
    return int(start.timestamp()) * 1_000_000


@router.get("/events", responses=READ, summary="Significant events, newest first, filtered")
async def listed_events(
    request: Request,
    kind: Annotated[str | None, Query(max_length=40)] = None,
    since: Annotated[date | None, Query(description="from this day (UTC)")] = None,
    until: Annotated[date | None, Query(description="to this day (UTC), included")] = None,
    actor: Annotated[str | None, Query(max_length=80)] = None,
    subject: Annotated[str | None, Query(max_length=200)] = None,
    before: Before = None,
    limit: Annotated[int, Query(ge=1, le=significant.MAX_LISTED)] = 100,
) -> Response:
    def read(uow: UnitOfWork, staff: Staff) -> list[dict[str, Any]]:
        found = significant.listed(uow, kind=kind, since_us=_day_us(since),
                              until_us=_day_us(until, end=True), actor=actor, subject=subject,
                              before_id=before, limit=limit)  # fmt: skip
        return [event.to_json() for event in found]

    return json_response({"events": await as_staff(request, "events", read),
                          "kinds": list(significant.KINDS)})  # fmt: skip


@router.get(
    "/audit",
    responses=READ,
    summary="The staff audit log: who did what, when and why (admins)",
)
async def audit_log(
    request: Request,
    target: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> Response:
    found = await as_staff(request, "staff", lambda uow, s: staffing.audit_log(uow, target, limit))
    return json_response({"audit": found})


@router.get("/staff", responses=READ, summary="The staff accounts (admins)")
async def staff_list(request: Request) -> Response:
    return json_response({"staff": await as_staff(request, "staff", lambda uow, s:
                                                  staffing.listed(uow))})  # fmt: skip


StaffName = Annotated[str, Path(min_length=1, max_length=64)]
Reason = Annotated[
    str, Field(min_length=1, max_length=staffing.MAX_REASON, description="why (audited)")
]
STAFF_CHANGE = (*CHANGE, "unknown_staff")


class StaffSwitchIn(Body):
    enabled: bool = Field(description="false: the account is disabled, its sessions end")
    reason: Reason


class StaffRoleIn(Body):
    role: str = Field(pattern="^(viewer|support|finance|admin)$")
    reason: Reason


class StaffResetIn(Body):
    reason: Reason


@router.put(
    "/staff/{name}/switch",
    responses=documented(*STAFF_CHANGE, "staff_unchanged", "last_admin"),
    dependencies=[role_first("staff")],
    summary="Disable a staff account (its sessions end at once) or enable it again (admins)",
)
async def switch_staff(request: Request, name: StaffName, body: StaffSwitchIn) -> Response:
    return await staff_change(
        request, "staff", staffing.set_disabled, name, not body.enabled, body.reason
    )


@router.put(
    "/staff/{name}/role",
    responses=documented(*STAFF_CHANGE, "staff_unchanged", "last_admin", "invalid_role"),
    dependencies=[role_first("staff")],
    summary="Give a staff account another role, from its next request (admins)",
)
async def staff_role(request: Request, name: StaffName, body: StaffRoleIn) -> Response:
    return await staff_change(request, "staff", staffing.set_role, name, body.role, body.reason)


@router.post(
    "/staff/{name}/password",
    responses=documented(*STAFF_CHANGE, "rate_limited"),
    dependencies=[role_first("staff")],
    summary="Reset a staff password: a new one, shown once; the account's sessions end",
)
async def reset_staff_password(
    request: Request, casino: CasinoDep, name: StaffName, body: StaffResetIn
) -> Response:
    await as_staff(request, "staff", lambda uow, s: staffing.member(uow, name))
    password = staffing.temporary_password()
    hashed = await casino.hashing.run(casino.passwords.hash, password)
    done = await as_staff(
        request, "staff",
        lambda uow, s: staffing.reset_password(uow, s, name, hashed, body.reason), write=True,
    )  # fmt: skip
    return json_response({"staff": done, "password": password})


@router.post(
    "/staff/{name}/second-factor",
    responses=documented(*STAFF_CHANGE),
    dependencies=[role_first("staff")],
    summary="Reset a second factor: a new TOTP secret and recovery codes, shown once",
)
async def reset_staff_second_factor(
    request: Request, name: StaffName, body: StaffResetIn
) -> Response:
    enrolled = await as_staff(
        request, "staff",
        lambda uow, s: staffing.reset_second_factor(uow, s, name, body.reason), write=True,
    )  # fmt: skip
    return json_response(enrolled.to_json())


@router.put(
    "/me/password",
    status_code=204,
    responses=documented(*STAFF_CHANGE, "invalid_password", "invalid_credentials", "rate_limited"),
    dependencies=[role_first("own_password")],
    summary="Change your own password: your other sessions end (this one stays)",
)
async def change_own_password(
    request: Request, casino: CasinoDep, body: PasswordChangeIn
) -> Response:
    member, stored = await as_staff(
        request, "own_password", lambda uow, s: (s, staffing.password_hash_of(uow, s))
    )
    check_password(body.new, member.name)
    if not await casino.hashing.run(casino.passwords.verify, stored, body.current):
        raise ServiceError("invalid_credentials", "the current password is wrong")
    hashed = await casino.hashing.run(casino.passwords.hash, body.new)
    keep = caller_of(request, STAFF_COOKIE).token_hash or ""

    def change(uow: UnitOfWork, staff: Staff) -> None:
        if staff.id != member.id:
            raise ServiceError("not_authenticated", "log in to the back office first")
        staffing.change_own_password(uow, staff, hashed, keep)

    await as_staff(request, "own_password", change, write=True)
    return Response(status_code=204)


# -- reports -------------------------------------------------------------------------------

Format = Annotated[str, Query(pattern="^(json|csv)$", description="json, or csv to download")]
RoundId = Annotated[str, Path(pattern=r"^r_[0-9a-f]{20}$")]


Rows = list[dict[str, Any]]


def _table(name: str, rows: Rows, fmt: str) -> Response:
    """A report's table as JSON (``{name: rows}``) or as a CSV download."""
    if fmt == "json":
        return json_response({name: rows})
    import csv
    import io

    out = io.StringIO()
    columns = list(rows[0]) if rows else []
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row[c]) for c in columns])
    download = {"Content-Disposition": f'attachment; filename="{name}.csv"'}
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=download)


def _cell(value: Any) -> Any:
    """Text that a spreadsheet would take for a formula is quoted with a leading '."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    if isinstance(value, dict | list):
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return value


async def _report(
    request: Request, name: str, fmt: str, read: Callable[Concatenate[UnitOfWork, P], Rows],
    *args: P.args, **kwargs: P.kwargs,
) -> Response:  # fmt: skip
    """A report: ``read(uow, *args, **kwargs)`` by staff whose role has ``reports`` (on a
    reader thread: ``as_staff``), as the table ``name`` (``_table``: JSON or CSV)."""
    rows = await as_staff(request, "reports", lambda uow, staff: read(uow, *args, **kwargs))
    return _table(name, rows, fmt)


def _days(first: date | None, last: date | None, casino: Casino) -> tuple[int, int]:
    today = casino.settings.clock() // DAY_US
    low = today - 29 if first is None else int(_day_us(first) or 0) // DAY_US
    high = today if last is None else int(_day_us(last) or 0) // DAY_US
    reports.check_days(low, high)
    return low, high


@router.get(
    "/reports/ggr",
    responses=READ,
    summary="Gross gaming revenue and rounds by day, table, bet, mode or currency, each row of "
    "one mode and currency (default: 30 days)",
)
async def report_ggr(
    request: Request,
    casino: CasinoDep,
    by: Annotated[str, Query(pattern="^(day|table|bet|mode|currency)$")] = "day",
    first: Annotated[date | None, Query(alias="from")] = None,
    last: Annotated[date | None, Query(alias="to")] = None,
    format: Format = "json",
) -> Response:
    """Each row is also of one banker: the house (GGR: stakes - returns) or a player, at a
    player-banked table (the stakes and returns are the players'; GGR: the casino's fees)."""
    low, high = _days(first, last, casino)
    return await _report(request, f"ggr-by-{by}", format, reports.ggr, casino.tables, low, high, by)


@router.get(
    "/reports/rtp",
    responses=READ,
    summary="RTP actual against theoretical per table and bet, with the band and alarms",
)
async def report_rtp(
    request: Request,
    casino: CasinoDep,
    period: Annotated[str, Query(pattern="^(day|month|life)$")] = "month",
    mode: Annotated[str | None, Query(pattern="^(fun|real)$")] = None,
    format: Format = "json",
) -> Response:
    """Per mode and currency, of the bets the house covers: the player-banked tables' are
    left out (a player covers them; the casino's revenue there is its fee, in GGR)."""
    low, high = reports.period_days(period, casino.settings.clock() // DAY_US)
    return await _report(
        request, f"rtp-{period}", format, reports.rtp, casino.tables, low, high, mode
    )


@router.get(
    "/reports/liability",
    responses=READ,
    summary="Players' balances, withdrawals reserved, deposits pending, bets in play",
)
async def report_liability(request: Request, format: Format = "json") -> Response:
    return await _report(request, "liability", format, reports.liability)


@router.get(
    "/reports/events/{kind}",
    responses=documented("not_authenticated", "forbidden", "not_found"),
    summary="The latest large wins, large wagers or voids (significant events) as a table",
)
async def report_events(
    request: Request,
    kind: Annotated[str, Path(pattern="^(large_win|large_wager|void)$")],
    limit: Annotated[int, Query(ge=1, le=significant.MAX_LISTED)] = 100,
    format: Format = "json",
) -> Response:
    def read(uow: UnitOfWork) -> Rows:
        found = significant.listed(uow, kind=kind, limit=limit)
        return [{k: v for k, v in e.to_json().items() if k != "details"} | e.details
                for e in found]  # fmt: skip

    return await _report(request, kind, format, read)


@router.get(
    "/software",
    responses=READ,
    summary="The software id and the last verification of the installed files",
)
async def software_state(request: Request, casino: CasinoDep) -> Response:
    # The check made at start (hashing every file again per page view would cost seconds).
    checked = casino.software
    last = await as_staff(request, "events", lambda uow, s: software.last(uow))
    return json_response({"software_id": checked and checked.software_id, "last": last})


# -- rounds on operators' wallets (docs/operator-api.md) -------------------------------------


@router.get(
    "/operators/rounds",
    responses=READ,
    summary="Rounds on operators' wallets still to finish: stuck, retried or rolling back",
)
async def operator_rounds(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    format: Format = "json",
) -> Response:
    def read(uow: UnitOfWork) -> Rows:
        found = report.listing(uow, None, None, True, limit)  # by the index on their state
        return [{k: v for k, v in r.items() if not k.endswith("_us")}
                | {"created": iso_time(r["created_us"]), "next_attempt": iso_time(r["next_us"])}
                for r in found]  # fmt: skip

    return await _report(request, "operator_rounds", format, read)


@router.get(
    "/operators/rounds/{round_id}/calls",
    responses=documented("not_authenticated", "forbidden", "unknown_round"),
    summary="Every call of a round on an operator's wallet: sent, answered, retried",
)
async def operator_calls(request: Request, round_id: RoundId, format: Format = "json") -> Response:
    def read(uow: UnitOfWork) -> Rows:
        return [{k: v for k, v in c.items() if not k.endswith("_us")}
                | {"sent": iso_time(c["sent_us"]),
                   "answered": iso_time(c["answered_us"]) if c["answered_us"] else None}
                for c in report.calls(uow, round_id)]  # fmt: skip

    return await _report(request, "operator_calls", format, read)
