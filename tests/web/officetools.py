"""Helpers of the back office's browser tests: a casino with staff and something to show on
every page (rounds of house and player-banked tables, fun and real money, a pending deposit,
a proposed void), and a staff member's page logged in."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main

PASSWORD = "staff password 1"
GOOD = "a good password"


def admin(data: Path, *argv: str, stdin: str = "") -> str:
    """``baccarat admin ARGV`` on the test's database; what it prints."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stdin", io.StringIO(stdin))
        patch.setattr("sys.stdout", out)
        assert main(["admin", "--database", f"sqlite:///{data / 'web.db'}", *argv]) == 0, argv
    return out.getvalue()


def fill_casino(data: Path, url: str) -> dict[str, Any]:
    """An admin, a support agent, a finance member and a viewer; a player who played, with a
    pending deposit and limits; others at many tables; a real-money round whose void is
    proposed. The staff's recovery codes (one a login) by name."""
    import httpx

    staff = {}
    for name, role in (("ada", "admin"), ("sam", "support"), ("fin", "finance"),
                       ("fay", "viewer")):  # fmt: skip
        created = admin(data, "staff", "create", name, "--role", role, "--password-stdin",
                        "--json", stdin=PASSWORD + "\n")  # fmt: skip
        staff[name] = json.loads(created)
    codes = {name: list(member["recovery_codes"]) for name, member in staff.items()}
    with httpx.Client(base_url=url) as client:
        auth = _player(client, "alice")
        for key in range(6):
            played = client.post(
                "/api/tables/table-i/rounds", json={"mode": "fun", "bets": {"banker": 500}},
                headers=auth | {"Idempotency-Key": f"k{key}"},
            )  # fmt: skip
            assert played.status_code == 201, played.text
        deposit = client.post("/api/wallet/deposits", json={"amount": 10_000},
                              headers=auth | {"Idempotency-Key": "d1"})  # fmt: skip
        assert deposit.status_code == 201
        # A yen player's deposit beside it: the desk shows each request in its currency.
        kenji = _player(client, "kenji", "JPY")
        yen = client.post("/api/wallet/deposits", json={"amount": 2_500},
                          headers=kenji | {"Idempotency-Key": "d2"})  # fmt: skip
        assert yen.status_code == 201, yen.text
        yen_round = client.post(
            "/api/tables/table-i/rounds", json={"mode": "fun", "bets": {"banker": 500}},
            headers=kenji | {"Idempotency-Key": "y1"},
        )  # fmt: skip
        assert yen_round.status_code == 201, yen_round.text
        limits = {"loss": {"day": 5_000}, "wager": {"week": 20_000}, "session_minutes": 90}
        assert client.put("/api/responsible/limits", json=limits, headers=auth).is_success
        _play_around(client)
        proposed = _propose_a_void(client, data, codes)
    return {"url": url, "staff": staff, "codes": codes, "proposed": proposed,
            "yen_round": yen_round.json()["id"]}  # fmt: skip


def _player(client: Any, nickname: str, currency: str = "USD") -> dict[str, str]:
    body = {"nickname": nickname, "password": GOOD}
    assert client.post("/api/accounts", json=body | {"currency": currency}).status_code == 201
    return {"Authorization": f"Bearer {client.post('/api/sessions', json=body).json()['token']}"}


def _play_around(client: Any) -> None:
    """Another player's rounds at a table of many side bets and a few others, and two rounds
    at a player-banked table: reports of many rows and of both bankers."""
    tokens = {nickname: _player(client, nickname) for nickname in ("bobby", "carol", "dave")}
    side = {"banker": 500, "big": 500} | dict.fromkeys(
        ("player_pair", "banker_pair", "either_pair", "perfect_pair", "player_dragon",
         "banker_dragon"), 100,
    )  # fmt: skip
    rounds = [
        ("deluxe", side), ("ez", {"player": 500, "dragon7": 100, "panda8": 100}),
        ("no-commission", {"banker": 500, "super6": 100}),
        ("table-ii", {"player": 500, "tie": 500}), ("table-iii", {"banker": 2_500}),
    ]  # fmt: skip
    for key, (table_id, bets) in enumerate(rounds):
        played = client.post(f"/api/tables/{table_id}/rounds", json={"mode": "fun", "bets": bets},
                             headers=tokens["bobby"] | {"Idempotency-Key": f"b{key}"})  # fmt: skip
        assert played.status_code == 201, played.text
    seat = {"table_id": "banked-i", "mode": "fun"}
    joined = client.post("/api/seats", json=seat | {"role": "banker", "auto_approve": True},
                         headers=tokens["carol"])  # fmt: skip
    assert joined.status_code == 201, joined.text
    seat_id = client.post("/api/seats", json=seat | {"role": "player"},
                          headers=tokens["dave"]).json()["seat"]["id"]  # fmt: skip
    for key in range(2):
        dealt = client.post(f"/api/seats/{seat_id}/deal", json={"bets": {"player": 1_000}},
                            headers=tokens["dave"] | {"Idempotency-Key": f"s{key}"})  # fmt: skip
        assert dealt.status_code == 201, dealt.text


def _propose_a_void(client: Any, data: Path, codes: dict[str, list[str]]) -> str:
    """A real-money round of erin's (credited by the operator), its void proposed by the
    support agent: it waits for an admin on the voids page. The round's id."""
    auth = _player(client, "erin")
    admin(data, "deposit", "erin", "100.00")
    bet = {"mode": "real", "bets": {"player": 500}}
    played = client.post("/api/tables/table-i/rounds", json=bet,
                         headers=auth | {"Idempotency-Key": "e1"})  # fmt: skip
    assert played.status_code == 201, played.text
    round_id = played.json()["id"]
    login = {"name": "sam", "password": PASSWORD, "code": codes["sam"].pop()}
    assert client.post("/admin/api/sessions", json=login).status_code == 201
    csrf = {"X-CSRF-Token": client.cookies["baccarat_staff_csrf"]}
    proposed = client.post(f"/admin/api/rounds/{round_id}/void",
                           json={"reason": "misdeal"}, headers=csrf)  # fmt: skip
    assert proposed.json()["status"] == "proposed", proposed.text
    client.delete("/admin/api/sessions", headers=csrf)
    client.cookies.clear()
    return str(round_id)


def open_office(
    new_page: Any,
    office: dict[str, Any],
    name: str,
    size: tuple[int, int],
    locale: str = "en-US",
    *,
    log_in: bool = True,
) -> Any:
    """A staff member's new page (``new_page``, in the browser language ``locale``), logged
    in unless ``log_in`` is false; ``page.problems`` gathers what the console shows."""
    page = new_page(viewport={"width": size[0], "height": size[1]},
                    locale=locale)  # fmt: skip
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.problems = problems
    page.goto(f"{office['url']}/admin/")
    page.wait_for_selector("#office-login:not([hidden])")
    if log_in:
        log_in_as(page, office, name)
    return page


def log_in_as(page: Any, office: dict[str, Any], name: str) -> None:
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    # A recovery code: each login of the test needs a code of its own.
    page.fill("input[name=code]", office["codes"][name].pop())
    page.click("#office-login-form button[type=submit]")
    page.wait_for_selector("#office-nav:not([hidden]) a")
