"""The account-wide login throttle (issue 43, item 8): one account's password, or a staff
member's second factor, guessed from a hundred addresses is slowed down for the account
(429 ``login_throttled``, a wait that doubles up to 15 minutes), and the owner still logs in
from where they last did. The clock is the tests' own: nothing sleeps."""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.server.settings import LoginThrottle

from ..harness import Api, client_at
from .conftest import both_backends
from .office import PASSWORD, enrol, log_in
from .support import error_code

pytestmark = pytest.mark.anyio
POLICY = LoginThrottle()
FREE = POLICY.account_free_failures
ALICE = {"nickname": "alice", "password": "a good password"}
WRONG = ALICE | {"password": "not alices password"}


def addresses(count: int) -> list[str]:
    return [f"10.0.{n // 200}.{n % 200 + 1}" for n in range(count)]


async def guess(api: Api, address: str, path: str, body: dict[str, Any]) -> Any:
    async with client_at(api.app, address) as client:
        return await client.post(path, json=body)


async def from_everywhere(api: Api, path: str, body: dict[str, Any]) -> list[Any]:
    """Three guesses from each of 100 addresses (each address under its own allowance)."""
    return [await guess(api, a, path, body) for _ in range(3) for a in addresses(100)]


def refused(answers: list[Any]) -> list[Any]:
    return [a for a in answers if a.status_code == 429]


@both_backends
async def test_guessing_a_password_from_many_addresses_is_slowed_for_the_account(
    api: Api,
) -> None:
    await api.player("alice")  # logged in once, from 127.0.0.1: the owner's address
    answers = await from_everywhere(api, "/api/sessions", WRONG)
    # The free failures, and one more that starts the wait; the others refused unchecked.
    assert [a.status_code for a in answers[: FREE + 1]] == [401] * (FREE + 1)
    assert len(refused(answers)) == 300 - FREE - 1
    assert {error_code(a) for a in refused(answers)} == {"login_throttled"}
    assert answers[-1].headers["Retry-After"] == "1"
    # The owner, at home, is not held up; nor is the password right elsewhere good now.
    elsewhere = await guess(api, "192.0.2.1", "/api/sessions", ALICE)
    assert (elsewhere.status_code, error_code(elsewhere)) == (429, "login_throttled")
    home = await api.client.post("/api/sessions", json=ALICE)
    assert home.status_code == 201, home.text
    # A success starts the count again.
    assert (await guess(api, "192.0.2.2", "/api/sessions", WRONG)).status_code == 401


@both_backends
async def test_the_wait_doubles_with_each_failure_up_to_a_cap_and_a_quiet_day_forgives(
    api: Api,
) -> None:
    await api.player("alice")
    many = iter(addresses(FREE + 2 * 13))
    for address in [next(many) for _ in range(FREE)]:
        assert (await guess(api, address, "/api/sessions", WRONG)).status_code == 401
    waits = []
    for address, other in zip(many, many, strict=True):
        answer = await guess(api, address, "/api/sessions", WRONG)
        assert answer.status_code == 401, answer.text  # the wait before it was over
        blocked = await guess(api, other, "/api/sessions", WRONG)
        assert error_code(blocked) == "login_throttled"
        waits.append(int(blocked.headers["Retry-After"]))
        api.clock.advance(waits[-1])
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]
    # A day after the last failure, the account's count starts again.
    api.clock.advance(POLICY.account_window_s)
    again = [await guess(api, a, "/api/sessions", WRONG) for a in addresses(FREE + 1)]
    assert [a.status_code for a in again] == [401] * (FREE + 1)


@both_backends
async def test_the_owners_address_is_theirs_for_30_days_after_a_login(api: Api) -> None:
    await api.player("alice")
    api.clock.advance(POLICY.home_days * 86_400)
    await from_everywhere(api, "/api/sessions", WRONG)
    # A month without a login: 127.0.0.1 is an address like the others.
    stale = await api.client.post("/api/sessions", json=ALICE)
    assert (stale.status_code, error_code(stale)) == (429, "login_throttled")


@both_backends
async def test_guessing_a_staff_members_second_factor_from_many_addresses_is_slowed(
    api: Api,
) -> None:
    carol = await enrol(api, "carol", "admin")
    assert (await log_in(api, carol)).status_code == 201  # from 127.0.0.1: carol's address
    api.clock.advance(30)
    right = carol.code(api)
    wrong = {"name": "carol", "password": PASSWORD, "code": "000000" if right != "000000" else "1"}
    answers = await from_everywhere(api, "/admin/api/sessions", wrong)
    assert [a.status_code for a in answers[: FREE + 1]] == [401] * (FREE + 1)
    assert len(refused(answers)) == 300 - FREE - 1
    assert {error_code(a) for a in refused(answers)} == {"login_throttled"}
    # A wrong password counts the same.
    bad = wrong | {"password": "not carols password"}
    assert error_code(await guess(api, "192.0.2.1", "/admin/api/sessions", bad)) == (
        "login_throttled"
    )
    # Carol, at her address, with her password and code.
    assert (await log_in(api, carol)).status_code == 201
