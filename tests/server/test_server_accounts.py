"""Accounts and sessions: throttles a stranger cannot turn against the owner, bounded
password hashing, password and nickname rules, the session list, log out everywhere and
password change."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.server import accounts
from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl, Limits, LoginThrottle, system_clock_us

from ..harness import Api, client_at
from .support import error_code

pytestmark = pytest.mark.anyio
PASSWORD = "a good password"


def login_body(nickname: str, password: str = PASSWORD) -> dict[str, str]:
    return {"nickname": nickname, "password": password}


async def test_a_stranger_guessing_from_elsewhere_cannot_lock_the_owner_out(api: Api) -> None:
    await api.player("owner")
    async with client_at(api.app, "127.0.0.9") as stranger:
        answers = [
            await stranger.post("/api/sessions", json=login_body("owner", f"guess number {i}"))
            for i in range(12)
        ]
    assert {error_code(a) for a in answers} == {"invalid_credentials", "rate_limited"}
    limited = next(a for a in answers if a.status_code == 429)
    assert int(limited.headers["Retry-After"]) >= 1
    # The owner, from their own address, logs in at once.
    assert (await api.client.post("/api/sessions", json=login_body("owner"))).status_code == 201


async def test_one_address_guessing_many_nicknames_is_throttled(api: Api) -> None:
    for name in ("anna", "bert", "carl"):
        await api.player(name)
    async with client_at(api.app, "127.0.0.10") as guesser:
        codes = []
        for i in range(20):
            name = ("anna", "bert", "carl")[i % 3]
            answer = await guesser.post("/api/sessions", json=login_body(name, f"guess {i:08d}"))
            codes.append(error_code(answer))
    assert codes[:12] == ["invalid_credentials"] * 12  # 4 x the free failures of a nickname
    assert "rate_limited" in codes[12:]


async def test_registrations_are_limited_per_address(api: Api) -> None:
    api.casino.settings = dataclasses.replace(
        api.casino.settings, login_throttle=LoginThrottle(registrations_per_hour=3)
    )
    async with client_at(api.app, "127.0.0.11") as one, client_at(api.app, "127.0.0.12") as two:
        made = [await one.post("/api/accounts", json=login_body(f"new{i}")) for i in range(4)]
        assert [a.status_code for a in made] == [201, 201, 201, 429]
        assert 3500 <= int(made[3].headers["Retry-After"]) <= 3600
        assert (await two.post("/api/accounts", json=login_body("other1"))).status_code == 201
        api.clock.advance(3601)  # the hour is over
        assert (await one.post("/api/accounts", json=login_body("new4"))).status_code == 201


async def test_a_burst_of_registrations_hashes_a_few_at_a_time(api: Api) -> None:
    gate = api.casino.hashing
    answers = await asyncio.gather(
        *(api.client.post("/api/accounts", json=login_body(f"burst{i}")) for i in range(300))
    )
    statuses = {a.status_code for a in answers}
    assert statuses <= {201, 429} and 201 in statuses
    assert 1 <= gate.peak <= Limits.hashes_at_once and gate.active == 0


@pytest.mark.parametrize(
    ("password", "reason"),
    [("short pw", "length"), ("123456789", "length"), ("password123", "common"),
     ("qwertyuiop", "common"), ("1234567890", "common"), ("ILOVEYOU123", "common"),
     ("my name is zelda", "nickname")],
)  # fmt: skip
async def test_short_common_or_nickname_passwords_are_refused(
    api: Api, password: str, reason: str
) -> None:
    answer = await api.client.post("/api/accounts", json=login_body("zelda", password))
    assert (answer.status_code, error_code(answer)) == (422, "invalid_password")
    assert answer.json()["error"]["details"]["reason"] == reason


@pytest.mark.parametrize(
    "nickname",
    ["alice\n", "alice\x00", "al ice", "ａｌｉｃｅ", "alicé", "al", "a" * 25, "al\u200bice"],
)
async def test_nicknames_are_letters_digits_and_separators_only(api: Api, nickname: str) -> None:
    answer = await api.client.post("/api/accounts", json=login_body(nickname))
    assert (answer.status_code, error_code(answer)) == (422, "invalid_nickname")


@pytest.mark.parametrize("lookalike", ["ALICE", "a1ice", "AL1CE", "aIice", "alice_", "alize"])
async def test_look_alike_nicknames_cannot_impersonate(api: Api, lookalike: str) -> None:
    await api.player("alice")
    await api.player("alice-")
    answer = await api.client.post("/api/accounts", json=login_body(lookalike))
    if lookalike == "alize":  # not a look-alike
        assert answer.status_code == 201
        return
    assert (answer.status_code, error_code(answer)) == (409, "nickname_taken")


def test_nickname_norm_maps_look_alikes_together() -> None:
    norm = accounts.nickname_norm
    assert norm("Alice") == norm("a1ice") == norm("AIice") == norm("al1ce")
    assert norm("modern") == norm("rnodern") and norm("wave") == norm("vvave")
    assert norm("b0b_") == norm("bob-") and norm("bob") != norm("rob")


def test_the_migration_keys_existing_players_oldest_first(tmp_path: Path) -> None:
    url = DatabaseUrl.sqlite_in(tmp_path / "data")
    migrate.upgrade(url, "0005")
    db = Database(url, clock=system_clock_us, threads=1)
    try:
        db.run_write(
            lambda uow: [
                uow.run(
                    "INSERT INTO players (nickname, nickname_key, password_hash, created_us) "
                    "VALUES (:n, :k, 'x', 0)",
                    {"n": n, "k": n.casefold()},
                )
                for n in ("a1ice", "alice", "bob")
            ]
        )
    finally:
        db.close()
    migrate.upgrade(url)
    db = Database(url, clock=system_clock_us, threads=1)
    try:
        rows = db.run_read(
            lambda uow: uow.all("SELECT nickname, nickname_norm FROM players ORDER BY id")
        )
    finally:
        db.close()
    assert [tuple(r) for r in rows] == [("a1ice", "allce"), ("alice", None), ("bob", "bob")]


async def login(client: httpx.AsyncClient, nickname: str, password: str = PASSWORD) -> str:
    answer = await client.post("/api/sessions", json=login_body(nickname, password))
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def status_of(api: Api, token: str) -> int:
    return int((await api.client.get("/api/me", headers=bearer(token))).status_code)


async def test_the_session_list_and_log_out_everywhere(api: Api) -> None:
    first = await api.player("sara")
    api.clock.advance(1)
    second = await login(api.client, "sara")
    listed = (await api.client.get("/api/sessions", headers=bearer(second))).json()["sessions"]
    assert [s["current"] for s in listed] == [True, False]
    assert all(len(s["id"]) == 12 and first not in s["id"] for s in listed)
    # End one by its id.
    ended = await api.client.delete(f"/api/sessions/{listed[1]['id']}", headers=bearer(second))
    assert ended.status_code == 204 and await status_of(api, first) == 401
    third = await login(api.client, "sara")
    everywhere = await api.client.delete("/api/sessions/all", headers=bearer(third))
    assert everywhere.status_code == 204
    assert await status_of(api, second) == 401 and await status_of(api, third) == 401
    other = await api.player("otto")
    gone = await api.client.delete(f"/api/sessions/{listed[0]['id']}", headers=bearer(other))
    assert (gone.status_code, error_code(gone)) == (404, "not_found")


async def test_a_password_change_ends_the_other_sessions(api: Api) -> None:
    here = await api.player("paul")
    there = await login(api.client, "paul")
    body: dict[str, Any] = {"current": "not my password", "new": "a brand new secret"}
    wrong = await api.client.put("/api/password", json=body, headers=bearer(here))
    assert (wrong.status_code, error_code(wrong)) == (401, "invalid_credentials")
    weak = await api.client.put(
        "/api/password", json={"current": PASSWORD, "new": "password123"}, headers=bearer(here)
    )
    assert error_code(weak) == "invalid_password"
    assert await status_of(api, there) == 200  # nothing changed yet
    body["current"] = PASSWORD
    changed = await api.client.put("/api/password", json=body, headers=bearer(here))
    assert changed.status_code == 204
    assert await status_of(api, here) == 200 and await status_of(api, there) == 401
    old = await api.client.post("/api/sessions", json=login_body("paul"))
    assert error_code(old) == "invalid_credentials"
    await login(api.client, "paul", "a brand new secret")
