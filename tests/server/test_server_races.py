"""Every money-moving route of a player raced against itself on PostgreSQL, two workers.

Two server processes share one database (PostgreSQL at READ COMMITTED, each process its own
connections), and each player sends overlapping requests of the same route to both at once:
bet replacements on a shared coup (alternately a bet and an empty map), house rounds,
withdrawal and deposit requests, fun top-ups, and seats taken and left at a player-banked
table. Whatever interleaving the two processes get, the books must hold: ``baccarat admin
check`` passes (every balance is the sum of its entries, escrow holds what the open bets
and seats hold), no balance is below zero, and each player's real balance is what their
deposit, their withdrawals and their rounds' results make it, to the cent.
"""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from ..harness import LiveServer, free_port, until_async
from .postgres import create_database

PASSWORD = "a good password"
DEPOSIT = 120_000  # $1,200.00 each
TABLES = """
[[table]]
id = "house"
name = "House"
rules = "online-6deck-tie9"
chips = ["1", "5", "25", "100"]
min = "1"
max = "100"

[[table]]
id = "quick"
name = "Quick"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = { betting_s = 4, result_s = 1 }

[[table]]
id = "bank"
name = "Bank"
rules = "online-6deck-tie9"
chips = ["1", "5", "25", "100"]
min = "2"
max = "20"
banked = { seats = 4, min_points = 0, min_balance = "200" }
"""
PLAYERS = 6
RACERS = 8  # overlapping requests of one player on one route, spread over both processes
COUPS = 2
BAKKARAT = str(Path(sys.executable).with_name("baccarat"))
keys = itertools.count()
# Connections kept alive for less than the server keeps them: a request is never sent on
# one the server is closing (which answers nothing: a ReadError that says nothing of money).
FRESH = httpx.Limits(keepalive_expiry=1.0)


def test_a_player_racing_each_money_route_against_itself_keeps_the_books(
    tmp_path: Path, postgres_admin_url: str
) -> None:
    url = create_database(postgres_admin_url, "races")
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLES)
    env = {"BACCARAT_WEB_DIR": str(tmp_path / "none")}
    servers = []
    try:
        for name in ("a", "b"):
            port = free_port()
            argv = [BAKKARAT, "serve", "--port", str(port), "--database", url, "--workers",
                    "1", "--tables", str(tables)]  # fmt: skip
            servers.append(LiveServer(argv, port, env, tmp_path / f"{name}.log").start())
        nicknames = [f"racer{i}" for i in range(PLAYERS)]
        asyncio.run(_register(servers[0].url, nicknames))
        for nickname in nicknames:
            _admin(url, "deposit", nickname, f"{DEPOSIT // 100}.{DEPOSIT % 100:02d}")
        asyncio.run(_race(servers[0].url, servers[1].url, nicknames, url))
    finally:
        for server in servers:
            server.stop()


def _admin(url: str, *argv: str) -> str:
    done = subprocess.run(
        [BAKKARAT, "admin", "--database", url, *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def _register(base: str, nicknames: list[str]) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        for nickname in nicknames:
            body = {"nickname": nickname, "password": PASSWORD}
            assert (await client.post("/api/accounts", json=body)).status_code == 201


class Racer:
    """One player with a session, and a client on each process (separate connections)."""

    def __init__(self, clients: list[httpx.AsyncClient], token: str) -> None:
        self.clients = clients
        self.headers = {"Authorization": f"Bearer {token}"}

    async def send(self, i: int, method: str, path: str, body: Any = None) -> httpx.Response:
        client = self.clients[i % len(self.clients)]
        headers = self.headers | {"Idempotency-Key": f"race-{next(keys)}"}
        return await client.request(method, path, json=body, headers=headers)

    async def race(self, method: str, path: str, bodies: list[Any]) -> list[httpx.Response]:
        """The same route, its bodies sent at once, alternately to each process."""
        return list(
            await asyncio.gather(
                *(self.send(i, method, path, body) for i, body in enumerate(bodies))
            )
        )

    async def real_balance(self) -> int:
        answer = await self.clients[0].get("/api/wallet", headers=self.headers)
        assert answer.status_code == 200, answer.text
        return int(answer.json()["real"])


def _outcomes(answers: list[httpx.Response], *ok: int) -> None:
    """Each answer is a success or a clear refusal (a code, never a 500)."""
    for answer in answers:
        assert answer.status_code < 500, answer.text
        if answer.status_code not in ok:
            assert answer.json()["error"]["code"], answer.text


async def _race(first: str, second: str, nicknames: list[str], url: str) -> None:
    async with (
        httpx.AsyncClient(base_url=first, timeout=30, limits=FRESH) as a,
        httpx.AsyncClient(base_url=second, timeout=30, limits=FRESH) as b,
    ):
        racers = []
        for nickname in nicknames:
            body = {"nickname": nickname, "password": PASSWORD}
            token = (await a.post("/api/sessions", json=body)).json()["token"]
            racers.append(Racer([a, b], token))
        for _ in range(COUPS):
            await _race_coup(a, racers)
        await asyncio.gather(*(_race_the_rest(racer) for racer in racers))
        for racer in racers:  # one table of four seats: one player at a time
            await _race_a_seat(racer)
        await _race_a_pair(banker=racers[0], player=racers[1])
        withdrawn = [await _race_withdrawals(racer) for racer in racers]
    checked = _admin(url, "check")
    assert f"{COUPS} shared rounds" in checked or "shared rounds" in checked, checked
    # Each player's real balance, to the cent: the deposit, less what is held for the
    # withdrawals accepted, plus the net of every settled round (their history).
    async with httpx.AsyncClient(base_url=first, timeout=30) as a:
        # The banker of the pair is left out: what a bank wins is the round's, less the fee.
        for racer, held in list(zip(racers, withdrawn, strict=True))[1:]:
            racer.clients = [a]
            net = await _rounds_net(racer)
            assert await racer.real_balance() == DEPOSIT - held + net


async def _window(client: httpx.AsyncClient) -> int:
    """A fresh betting window of the shared table, with time to race in it: its coup."""

    async def state() -> dict[str, Any]:
        now: dict[str, Any] = (await client.get("/api/tables/quick/state")).json()
        return now

    now = await until_async(
        state, "a fresh window with time to race in it",
        done=lambda now: now["phase"] == "betting"
        and now["closes_at"] - now["server_time"] > 2_500_000,
    )  # fmt: skip
    return int(now["coup"])


async def _race_coup(client: httpx.AsyncClient, racers: list[Racer]) -> None:
    """Every player replaces their bets on one coup, overlapping, each body sent to both
    processes at once: a bet, a bet, none, none, a bet..."""
    coup = await _window(client)
    path = f"/api/tables/quick/coups/{coup}/bets"
    bodies = [
        {"mode": "real", "bets": {"banker": 500} if i // 2 % 2 == 0 else {}} for i in range(RACERS)
    ]
    answers = await asyncio.gather(*(racer.race("PUT", path, bodies) for racer in racers))
    for mine in answers:
        _outcomes(mine, 200)
    await until_async(lambda: client.get(f"/api/tables/quick/coups/{coup}"), "the coup is dealt",
                      done=lambda seen: seen.json()["result"] is not None, every=0.1)  # fmt: skip


async def _race_the_rest(racer: Racer) -> None:
    rounds = await racer.race(
        "POST", "/api/tables/house/rounds", [{"mode": "real", "bets": {"banker": 500}}] * RACERS
    )
    _outcomes(rounds, 201)
    assert any(answer.status_code == 201 for answer in rounds)
    top_ups = await racer.race("POST", "/api/wallet/fun/top-up", [None] * RACERS)
    _outcomes(top_ups, 200, 201)
    deposits = await racer.race("POST", "/api/wallet/deposits", [{"amount": 1_000}] * RACERS)
    _outcomes(deposits, 201)


async def _race_a_seat(racer: Racer) -> None:
    """The player asks for a seat as banker many times at once, then stands up as often."""
    seats = await racer.race(
        "POST", "/api/seats", [{"table_id": "bank", "role": "banker", "mode": "real"}] * RACERS
    )
    _outcomes(seats, 201)
    taken = {answer.json()["seat"]["id"] for answer in seats if answer.status_code == 201}
    assert len(taken) == 1, [answer.text for answer in seats]  # one seat however many asks
    (seat,) = taken
    _outcomes(await racer.race("POST", f"/api/seats/{seat}/leave", [None] * RACERS), 200)
    # One seat per table, whatever the role: as player and as banker at once, in play money.
    both = [{"table_id": "bank", "role": role, "mode": "fun"} for role in ("player", "banker")]
    seats = await racer.race("POST", "/api/seats", both * (RACERS // 2))
    _outcomes(seats, 201)
    taken = {answer.json()["seat"]["id"] for answer in seats if answer.status_code == 201}
    assert len(taken) == 1, [answer.text for answer in seats]
    for seat in taken:
        _outcomes(await racer.race("POST", f"/api/seats/{seat}/leave", [None] * 2), 200)


async def _race_a_pair(banker: Racer, player: Racer) -> None:
    """At a seat of two, the player replaces their bets many times at once (a bet, a bet,
    none, none...), then deals many times at once; both stand up."""
    body = {"table_id": "bank", "role": "banker", "mode": "real", "auto_approve": True}
    sat = await banker.send(0, "POST", "/api/seats", body)
    assert sat.status_code == 201, sat.text
    seat = sat.json()["seat"]["id"]
    body = {"table_id": "bank", "role": "player", "mode": "real", "seat_id": seat}
    joined = await player.send(1, "POST", "/api/seats", body)
    assert joined.status_code == 201, joined.text
    path = f"/api/seats/{seat}"
    bodies = [{"bets": {"banker": 500} if i // 2 % 2 == 0 else {}} for i in range(RACERS)]
    _outcomes(await player.race("PUT", f"{path}/bets", bodies), 200)
    deals = await player.race("POST", f"{path}/deal", [{"bets": {"player": 500}}] * RACERS)
    _outcomes(deals, 201)
    assert any(answer.status_code == 201 for answer in deals), [a.text for a in deals]
    for who in (player, banker):
        _outcomes(await who.race("POST", f"{path}/leave", [None] * 2), 200)


async def _race_withdrawals(racer: Racer) -> int:
    """Withdrawals of 40% of the balance each, at once: at most two can be covered. What
    the accepted ones hold."""
    balance = await racer.real_balance()
    amount = balance * 2 // 5
    answers = await racer.race("POST", "/api/wallet/withdrawals", [{"amount": amount}] * RACERS)
    _outcomes(answers, 201)
    accepted = sum(1 for answer in answers if answer.status_code == 201)
    assert 1 <= accepted <= 2, [answer.text for answer in answers]
    assert await racer.real_balance() == balance - accepted * amount
    return accepted * amount


async def _rounds_net(racer: Racer) -> int:
    """The net of the player's settled real rounds (their win less their stake), from history."""
    net, before = 0, None
    while True:
        params: dict[str, Any] = {"mode": "real", "limit": 100}
        if before is not None:
            params["before"] = before
        page = await racer.clients[0].get("/api/history", params=params, headers=racer.headers)
        assert page.status_code == 200, page.text
        items = page.json()["items"]
        for item in items:
            net += int(item["win"]) - int(item["stake"])
        before = page.json().get("next")
        if not items or before is None:
            return net
