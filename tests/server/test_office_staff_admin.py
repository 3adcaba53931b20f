"""Staff administration: an admin (or the operator at the command line) disables and
enables accounts, changes roles, resets passwords and second factors, each with a reason,
audited and a significant event; the last active admin stays; every member changes their
own password; the other roles may do none of it."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pyotp
import pytest

from baccarat.cli import main
from baccarat.server import significant
from baccarat.server.db.database import Database
from baccarat.server.office import staff
from baccarat.server.settings import DatabaseUrl

from ..harness import Api
from .conftest import both_backends
from .office import PASSWORD, Member, enrol, log_in, logged_in
from .support import error_code as code

pytestmark = pytest.mark.anyio
WHY = {"reason": "left the company"}


async def call(api: Api, member: Member, method: str, path: str, body: Any = None) -> Any:
    return await api.client.request(method, f"/admin/api/{path}", json=body,
                                    headers=member.headers)  # fmt: skip


async def me(api: Api, member: Member) -> int:
    return int((await call(api, member, "GET", "me")).status_code)


async def changes(api: Api) -> list[tuple[str, str, str]]:
    """The staff_changed events, oldest first: (actor, subject, change)."""
    found = await api.casino.db.read(lambda uow: significant.listed(uow, kind="staff_changed"))
    return [(e.actor, e.subject, e.details["change"]) for e in reversed(found)]


async def test_a_disabled_account_is_out_at_once_and_back_when_enabled(api: Api) -> None:
    ada = await logged_in(api, "ada", "admin")
    sam = await logged_in(api, "sam", "support")
    assert await me(api, sam) == 200
    off = await call(api, ada, "PUT", "staff/SAM/switch", {"enabled": False} | WHY)
    assert off.status_code == 200, off.text
    assert off.json()["disabled"] is True and off.json()["name"] == "sam"
    assert await me(api, sam) == 401  # the session ended with the account
    assert code(await log_in(api, sam)) == "invalid_credentials"
    again = await call(api, ada, "PUT", "staff/sam/switch", {"enabled": False} | WHY)
    assert (again.status_code, code(again)) == (409, "staff_unchanged")
    api.clock.advance(30)
    on = await call(api, ada, "PUT", "staff/sam/switch", {"enabled": True, "reason": "back"})
    assert on.json()["disabled"] is False
    assert await me(api, sam) == 401  # enabling gives no old session back
    assert (await log_in(api, sam)).status_code == 201
    audit = (await call(api, ada, "GET", f"audit?target=staff:{off.json()['id']}")).json()
    assert [(a["staff"], a["action"], a["reason"]) for a in audit["audit"]] == [
        ("sam", "login", None), ("ada", "staff_enabled", "back"),
        ("ada", "staff_disabled", "left the company"), ("sam", "login", None),
    ]  # fmt: skip
    sam_id = f"staff:{off.json()['id']}"
    assert await changes(api) == [("staff:1", sam_id, "disabled"), ("staff:1", sam_id, "enabled")]
    unknown = await call(api, ada, "PUT", "staff/nobody/switch", {"enabled": False} | WHY)
    assert (unknown.status_code, code(unknown)) == (404, "unknown_staff")


async def test_every_change_needs_a_reason(api: Api) -> None:
    ada = await logged_in(api, "ada", "admin")
    await enrol(api, "sam", "support")
    asks: list[tuple[str, str, dict[str, Any]]] = [
        ("PUT", "staff/sam/switch", {"enabled": False}),
        ("PUT", "staff/sam/role", {"role": "finance"}),
        ("POST", "staff/sam/password", {}),
        ("POST", "staff/sam/second-factor", {}),
    ]
    for method, path, body in asks:
        missing = await call(api, ada, method, path, body)
        assert (missing.status_code, code(missing)) == (422, "invalid_body"), path
        blank = await call(api, ada, method, path, body | {"reason": "   "})
        assert (blank.status_code, code(blank)) == (422, "reason_required"), path
    assert await changes(api) == []


@both_backends
async def test_the_last_active_admin_can_be_neither_disabled_nor_demoted(api: Api) -> None:
    ada = await logged_in(api, "ada", "admin")
    for method, path, body in (("PUT", "staff/ada/switch", {"enabled": False}),
                               ("PUT", "staff/ada/role", {"role": "viewer"})):  # fmt: skip
        refused = await call(api, ada, method, path, body | WHY)
        assert (refused.status_code, code(refused)) == (409, "last_admin"), refused.text
    bob = await logged_in(api, "bob", "viewer")
    promoted = await call(api, ada, "PUT", "staff/bob/role", {"role": "admin"} | WHY)
    assert promoted.json()["role"] == "admin"
    # Two admins disabling each other at once: one of them stays.
    both = await asyncio.gather(
        call(api, ada, "PUT", "staff/bob/switch", {"enabled": False} | WHY),
        call(api, bob, "PUT", "staff/ada/switch", {"enabled": False} | WHY),
    )
    assert sorted(a.status_code for a in both) in ([200, 401], [200, 409]), [a.text for a in both]
    listed = await api.casino.db.read(staff.listed)
    assert [s["disabled"] for s in listed if s["role"] == "admin"].count(False) == 1


async def test_a_new_role_applies_from_the_next_request(api: Api) -> None:
    ada = await logged_in(api, "ada", "admin")
    sam = await logged_in(api, "sam", "support")
    assert (await call(api, sam, "GET", "players?q=x")).status_code == 200
    assert (await call(api, sam, "GET", "reports/liability")).status_code == 403
    moved = await call(api, ada, "PUT", "staff/sam/role", {"role": "finance"} | WHY)
    assert moved.status_code == 200 and moved.json()["role"] == "finance"
    assert (await call(api, sam, "GET", "players?q=x")).status_code == 403
    assert (await call(api, sam, "GET", "reports/liability")).status_code == 200
    same = await call(api, ada, "PUT", "staff/sam/role", {"role": "finance"} | WHY)
    assert code(same) == "staff_unchanged"
    bad = await call(api, ada, "PUT", "staff/sam/role", {"role": "root"} | WHY)
    assert bad.status_code == 422
    (event,) = [
        e for e in await api.casino.db.read(significant.listed) if e.kind == "staff_changed"
    ]
    assert event.details == {"change": "role_changed", "reason": "left the company",
                             "role": "finance", "was": "support"}  # fmt: skip


async def test_a_password_reset_gives_a_new_password_once_and_ends_the_sessions(
    api: Api,
) -> None:
    ada = await logged_in(api, "ada", "admin")
    sam = await logged_in(api, "sam", "support")
    reset = await call(api, ada, "POST", "staff/sam/password", {"reason": "forgotten"})
    assert reset.status_code == 200, reset.text
    password = reset.json()["password"]
    assert len(password) == 20 and reset.json()["staff"]["name"] == "sam"
    assert await me(api, sam) == 401
    assert code(await log_in(api, sam)) == "invalid_credentials"  # the old password
    api.clock.advance(30)
    fresh = await api.client.post("/admin/api/sessions", json={
        "name": "sam", "password": password, "code": sam.code(api)})  # fmt: skip
    assert fresh.status_code == 201


async def test_a_second_factor_reset_retires_the_old_secret_and_codes(api: Api) -> None:
    ada = await logged_in(api, "ada", "admin")
    sam = await logged_in(api, "sam", "support")
    reset = await call(api, ada, "POST", "staff/sam/second-factor", {"reason": "lost phone"})
    shown = reset.json()
    assert len(shown["recovery_codes"]) == 10 and shown["totp_secret"] != sam.secret
    assert shown["totp_uri"].startswith("otpauth://totp/baccarat:sam?secret=")
    assert await me(api, sam) == 401
    api.clock.advance(30)
    assert code(await log_in(api, sam)) == "invalid_credentials"  # the old secret's code
    assert code(await log_in(api, sam, code=sam.codes[0])) == "invalid_credentials"
    new_code = pyotp.TOTP(shown["totp_secret"]).at(api.clock.now // 1_000_000)
    assert (await log_in(api, sam, code=new_code)).status_code == 201
    assert (await log_in(api, sam, code=shown["recovery_codes"][0])).status_code == 201


async def test_every_member_changes_their_own_password(api: Api) -> None:
    vic = await logged_in(api, "vic", "viewer")
    api.clock.advance(30)
    other = await logged_in(api, "wen", "viewer")
    second = await log_in(api, vic)  # vic's second session
    api.client.cookies.clear()
    elsewhere = Member(vic.name, vic.secret, vic.codes, second.json()["token"])
    wrong = await call(api, vic, "PUT", "me/password", {"current": "not it at all",
                                                        "new": "a new good password"})  # fmt: skip
    assert (wrong.status_code, code(wrong)) == (401, "invalid_credentials")
    weak = await call(api, vic, "PUT", "me/password", {"current": PASSWORD, "new": "short"})
    assert code(weak) == "invalid_password"
    done = await call(api, vic, "PUT", "me/password", {"current": PASSWORD,
                                                       "new": "a new good password"})  # fmt: skip
    assert done.status_code == 204, done.text
    assert await me(api, vic) == 200 and await me(api, elsewhere) == 401
    assert await me(api, other) == 200  # another member's session is not touched
    api.clock.advance(30)
    relogin = await api.client.post("/admin/api/sessions", json={
        "name": "vic", "password": "a new good password", "code": vic.code(api)})  # fmt: skip
    assert relogin.status_code == 201
    assert [c for _, _, c in await changes(api)] == ["own_password_changed"]


async def test_only_an_admin_administers_staff(api: Api) -> None:
    await logged_in(api, "ada", "admin")
    asks = [("PUT", "staff/ada/switch", {"enabled": False} | WHY),
            ("PUT", "staff/ada/role", {"role": "viewer"} | WHY),
            ("POST", "staff/ada/password", WHY),
            ("POST", "staff/ada/second-factor", WHY)]  # fmt: skip
    for role in ("viewer", "support", "finance"):
        member = await logged_in(api, f"st-{role}", role)
        for method, path, body in asks:
            answer = await call(api, member, method, path, body)
            assert (answer.status_code, code(answer)) == (403, "forbidden"), (role, path)
        assert (await call(api, member, "GET", "staff")).status_code == 403
    assert await changes(api) == []
    for method, path, body in asks:
        anonymous = await api.client.request(method, f"/admin/api/{path}", json=body)
        assert anonymous.status_code == 401


def test_the_command_line_administers_staff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    # The staff's hashes at the environment's argon2 cost (tests/conftest.py: the cheapest).
    admin = ["admin", "--data-dir", str(tmp_path / "data")]
    assert main([*admin, "migrate"]) == 0
    for name, role in (("ada", "admin"), ("sam", "support")):
        monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
        assert main([*admin, "staff", "create", name, "--role", role, "--password-stdin",
                     "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    run = [*admin, "staff"]
    assert main([*run, "disable", "ada", "--reason", "test"]) == 2
    assert "last active admin" in capsys.readouterr().err
    assert main([*run, "role", "ada", "viewer", "--reason", "test"]) == 2
    with pytest.raises(SystemExit, match="2"):
        main([*run, "disable", "sam"])  # --reason is required
    assert main([*run, "disable", "sam", "--reason", " "]) == 2
    assert main([*run, "disable", "nobody", "--reason", "x"]) == 2
    capsys.readouterr()
    assert main([*run, "disable", "sam", "--reason", "on leave"]) == 0
    assert capsys.readouterr().out == "staff sam (id 2) disabled (its sessions ended)\n"
    assert main([*run, "enable", "sam", "--reason", "back", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["disabled"] is False
    assert main([*run, "role", "sam", "finance", "--reason", "moved"]) == 0
    assert capsys.readouterr().out == "staff sam (id 2) now a finance\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("a brand new password\n"))
    assert main([*run, "reset-password", "sam", "--reason", "forgot", "--password-stdin"]) == 0
    capsys.readouterr()
    assert main([*run, "reset-second-factor", "sam", "--reason", "lost", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["recovery_codes"]) == 10
    assert main([*admin, "events", "--kind", "staff_changed", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [e["details"]["change"] for e in reversed(shown)] == [
        "created", "created", "disabled", "enabled", "role_changed", "password_reset",
        "second_factor_reset",
    ]  # fmt: skip
    assert {e["actor"] for e in shown} == {"system"}
    assert all(e["details"]["by"] == "command line" for e in shown)
    db = Database(DatabaseUrl.sqlite_in(tmp_path / "data"), clock=lambda: 0)
    try:
        audit = db.run_read(lambda uow: staff.audit_log(uow, "staff:2"))
    finally:
        db.close()
    assert [(a["staff"], a["action"], a["reason"]) for a in audit][:2] == [
        ("command line", "staff_second_factor_reset", "lost"),
        ("command line", "staff_password_reset", "forgot"),
    ]  # fmt: skip
