"""Helpers of the back-office tests: staff accounts and their logins through the API, and
the significant events recorded."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyotp

from baccarat.server import significant
from baccarat.server.office import staff

from ..harness import Api

PASSWORD = "staff password 1"


@dataclass
class Member:
    name: str
    secret: str
    codes: tuple[str, ...]
    token: str = ""

    def code(self, api: Api, offset_s: int = 0) -> str:
        return str(pyotp.TOTP(self.secret).at(api.clock.now // 1_000_000 + offset_s))

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def enrol(api: Api, name: str, role: str) -> Member:
    hashed = api.casino.passwords.hash(PASSWORD)
    enrolled = await api.casino.db.write(lambda uow: staff.create(uow, name, role, hashed))
    return Member(name, enrolled.totp_secret, enrolled.recovery_codes)


async def log_in(api: Api, member: Member, code: str | None = None) -> Any:
    return await api.client.post(
        "/admin/api/sessions",
        json={"name": member.name, "password": PASSWORD, "code": code or member.code(api)},
    )


async def logged_in(api: Api, name: str, role: str) -> Member:
    """A staff member of this role with a live session (its bearer token)."""
    member = await enrol(api, name, role)
    answer = await log_in(api, member)
    assert answer.status_code == 201, answer.text
    member.token = answer.json()["token"]
    api.client.cookies.clear()  # the bearer token only (the login also set the cookies)
    return member


async def kinds(api: Api) -> list[str]:
    """The kinds of the significant events recorded so far, newest first."""
    found = await api.casino.db.read(lambda uow: significant.listed(uow))
    return [event.kind for event in found]


async def send(api: Api, member: Member, method: str, path: str, body: Any) -> Any:
    return await api.client.request(method, f"/admin/api/{path}", json=body,
                                    headers=member.headers)  # fmt: skip
