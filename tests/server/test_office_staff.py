"""The back office's staff: separate accounts, a second factor, expiring sessions, the
login throttle, CSRF, roles on every route, the audit log and the significant events."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.server import significant
from baccarat.server.office import staff

from ..harness import Api
from .conftest import both_backends
from .office import PASSWORD, enrol, kinds, log_in, logged_in
from .support import error_code as code

pytestmark = pytest.mark.anyio


@both_backends
async def test_a_staff_login_needs_the_password_and_a_fresh_totp_code(api: Api) -> None:
    carol = await enrol(api, "carol", "support")
    wrong = await log_in(api, carol, code="000000" if carol.code(api) != "000000" else "111111")
    assert wrong.status_code == 401 and code(wrong) == "invalid_credentials"
    bad_password = await api.client.post(
        "/admin/api/sessions", json={"name": "carol", "password": "x" * 12, "code": carol.code(api)}
    )
    assert bad_password.status_code == 401
    assert (await kinds(api)).count("staff_login_failed") == 2
    good = await log_in(api, carol)
    assert good.status_code == 201, good.text
    assert good.json()["staff"]["role"] == "support"
    # The same code again (a replay) is refused: each time step is good once.
    replay = await log_in(api, carol)
    assert replay.status_code == 401
    api.clock.advance(30)
    assert (await log_in(api, carol)).status_code == 201


async def test_a_recovery_code_works_once(api: Api) -> None:
    carol = await enrol(api, "carol", "admin")
    first = await log_in(api, carol, code=carol.codes[0])
    assert first.status_code == 201
    again = await log_in(api, carol, code=carol.codes[0])
    assert again.status_code == 401
    assert (await log_in(api, carol, code=carol.codes[1].upper())).status_code == 201


async def test_a_player_is_no_staff_and_a_staff_login_is_no_players(api: Api) -> None:
    token = await api.player("alice")
    assert (await api.client.get("/admin/api/me", headers=api.auth(token, None))).status_code == 401
    carol = await logged_in(api, "carol", "admin")
    assert (await api.client.get("/api/me", headers=carol.headers)).status_code == 401
    assert (await api.client.get("/admin/api/me", headers=carol.headers)).json()["name"] == "carol"


async def test_a_session_ends_after_30_idle_minutes_or_8_hours(api: Api) -> None:
    carol = await logged_in(api, "carol", "viewer")
    start = api.clock.now
    # A request every 29 minutes (never idle 30) until 8 hours have passed.
    while (answer := await api.client.get("/admin/api/me", headers=carol.headers)).is_success:
        api.clock.advance(29 * 60)
    assert answer.status_code == 401
    lived_s = (api.clock.now - start) / 1e6
    assert staff.SESSION_TTL_S <= lived_s < staff.SESSION_TTL_S + 29 * 60
    dave = await logged_in(api, "dave", "viewer")
    api.clock.advance(31 * 60)
    assert (await api.client.get("/admin/api/me", headers=dave.headers)).status_code == 401


async def test_failed_staff_logins_are_throttled_like_players(api: Api) -> None:
    carol = await enrol(api, "carol", "admin")
    statuses = []
    for _ in range(8):
        answer = await api.client.post(
            "/admin/api/sessions", json={"name": "carol", "password": "wrong one!", "code": "1"}
        )
        statuses.append(answer.status_code)
    assert 429 in statuses and statuses[0] == 401
    blocked = await log_in(api, carol)
    assert blocked.status_code == 429 and "Retry-After" in blocked.headers


async def test_the_staff_cookie_needs_the_csrf_header_to_change_anything(api: Api) -> None:
    carol = await enrol(api, "carol", "admin")
    answer = await log_in(api, carol)
    csrf = answer.json()["csrf_token"]
    # The cookies are the back office's own, kept to /admin.
    assert "Path=/admin" in answer.headers.get_list("set-cookie")[0]
    api.client.cookies.set("baccarat_staff", answer.json()["token"])
    assert (await api.client.get("/admin/api/me")).status_code == 200
    refused = await api.client.delete("/admin/api/sessions")
    assert refused.status_code == 403 and code(refused) == "csrf_failed"
    ended = await api.client.delete("/admin/api/sessions", headers={"X-CSRF-Token": csrf})
    assert ended.status_code == 204
    assert (await api.client.get("/admin/api/me")).status_code == 401


# What each role may read: the route and the roles answered 200 (the others 403).
ROLE_ROUTES = {
    "/admin/api/events": {"viewer", "support", "finance", "admin"},
    "/admin/api/audit": {"admin"},
    "/admin/api/staff": {"admin"},
}


async def test_every_route_answers_each_role_by_its_permissions(api: Api) -> None:
    members = {role: await logged_in(api, f"st-{role}", role) for role in staff.ROLES}
    for path, allowed in ROLE_ROUTES.items():
        for role, member in members.items():
            answer = await api.client.get(path, headers=member.headers)
            expected = 200 if role in allowed else 403
            assert answer.status_code == expected, (path, role, answer.text)
            if expected == 403:
                assert code(answer) == "forbidden"
        assert (await api.client.get(path)).status_code == 401


async def test_logins_land_in_the_audit_log_and_failed_player_logins_are_events(
    api: Api,
) -> None:
    await api.player("alice")
    failed = await api.client.post(
        "/api/sessions", json={"nickname": "alice", "password": "not the password"}
    )
    assert failed.status_code == 401
    admin = await logged_in(api, "carol", "admin")
    listed = await api.client.get("/admin/api/events?kind=login_failed", headers=admin.headers)
    (event,) = listed.json()["events"]
    assert event["subject"] == "nickname:alice" and event["actor"] == "client:127.0.0.1"
    audit = (await api.client.get("/admin/api/audit", headers=admin.headers)).json()["audit"]
    assert [(a["staff"], a["action"]) for a in audit] == [("carol", "login")]


@both_backends
async def test_significant_events_and_the_staff_audit_are_append_only(api: Api) -> None:
    await logged_in(api, "carol", "admin")
    await api.casino.db.write(lambda uow: significant.record(uow, "void", "system", "round:r_x"))
    for table in ("significant_events", "staff_audit"):
        for statement in (f"UPDATE {table} SET created_us = 0", f"DELETE FROM {table}"):
            with pytest.raises(Exception, match="append-only"):
                await api.casino.db.write(lambda uow, s=statement: uow.run(s))


def test_staff_create_prints_the_second_factor_and_events_filters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    data = str(tmp_path / "data")
    assert main(["admin", "--data-dir", data, "migrate"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    argv = ["admin", "--data-dir", data, "staff", "create", "carol", "--role", "finance"]
    capsys.readouterr()
    assert main([*argv, "--password-stdin", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["staff"]["role"] == "finance" and len(created["recovery_codes"]) == 10
    assert created["totp_uri"].startswith("otpauth://totp/baccarat:carol?secret=")
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert main([*argv, "--password-stdin"]) == 2  # the name is taken
    assert "exists already" in capsys.readouterr().err
    assert main(["admin", "--data-dir", data, "events", "--kind", "void"]) == 0
    assert capsys.readouterr().out.strip() == "no significant events"
    assert main(["admin", "--data-dir", data, "events", "--since", "yesterday"]) == 2
    assert main(["admin", "--data-dir", data, "staff", "list"]) == 0
    assert "carol" in capsys.readouterr().out
    assert main(["admin", "--data-dir", data, "reports-rebuild"]) == 0
    assert capsys.readouterr().out == "daily aggregates rebuilt from 0 rounds\n"
