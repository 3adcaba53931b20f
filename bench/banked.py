"""Many player-banked seats at once on loopback: rounds per second, and the time from the
player's DEAL to both players holding the round's result.

Run: .venv/bin/python bench/banked.py [--seats 32] [--seconds 10] [--max-rounds 20000]
     [--database postgresql://... --workers 2] [--url http://127.0.0.1:8000]

Without --url it starts `baccarat serve` on a free loopback port (SQLite in a temporary
folder, or the given --database) with one player-banked table of --seats seats, and stops
it at the end. Every seat has a banker with AUTO-APPROVE on and a player, each on their own
WebSocket; each player deals $5 on PLAYER, waits for the round to reach both sockets, and
deals again, until --seconds or --max-rounds. The latency of a round is measured from the
moment the player's DEAL is sent to the moment the later of the two sockets has the round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from serving import serving

TABLE = """[[table]]
id = "bench-banked"
name = "Bench (player-banked)"
rules = "online-6deck-tie9"
chips = ["1", "5", "25", "100"]
min = "2"
max = "20"
banked = {{ seats = {seats}, min_points = 0, min_balance = "200" }}
"""
PASSWORD = "bench password"


@contextlib.contextmanager
def server(args: argparse.Namespace) -> Iterator[str]:
    if args.url:
        yield args.url.rstrip("/")
        return
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        (data / "tables.toml").write_text(TABLE.format(seats=args.seats))
        env = {"BACCARAT_REGISTRATIONS_PER_HOUR": "100000",
               # seating 32 pairs on a busy machine may take more than a player's 45 s
               "BACCARAT_BANKED_PLAYER_S": "600"}  # fmt: skip
        with serving(data, database=args.database, workers=args.workers, env=env) as url:
            yield url


async def account(http: httpx.AsyncClient, tag: str) -> str:
    body = {"nickname": f"{tag}{uuid.uuid4().hex[:10]}", "password": PASSWORD}
    created = await http.post("/api/accounts", json=body)
    created.raise_for_status()
    session = await http.post("/api/sessions", json=body)
    session.raise_for_status()
    token: str = session.json()["token"]
    return token


async def until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message.get("type") == kind:
            return message


class Seat:
    def __init__(self, url: str, http: httpx.AsyncClient, table: str):
        self.url, self.http, self.table = url, http, table
        self.latencies: list[float] = []
        self.refused = 0

    async def register(self) -> None:
        self.banker_token = await account(self.http, "b")
        self.player_token = await account(self.http, "p")

    async def sit(self) -> None:
        join = await self.http.post(
            "/api/seats",
            json={"table_id": self.table, "role": "banker", "mode": "fun", "auto_approve": True},
            headers={"Authorization": f"Bearer {self.banker_token}"},
        )
        join.raise_for_status()
        self.id = join.json()["seat"]["id"]
        join = await self.http.post(
            "/api/seats",
            json={"table_id": self.table, "role": "player", "mode": "fun", "seat_id": self.id},
            headers={"Authorization": f"Bearer {self.player_token}"},
        )
        join.raise_for_status()
        ws = self.url.replace("http", "ws") + f"/api/seats/{self.id}/ws"
        # The token in a header: a socket never takes it from the URL.
        self.banker, self.player = [
            await connect(ws, max_queue=None, additional_headers={"Authorization": f"Bearer {t}"})
            for t in (self.banker_token, self.player_token)
        ]

    async def play(self, stop_at: float, budget: list[int]) -> None:
        n = 0
        while time.perf_counter() < stop_at and budget[0] > 0:
            budget[0] -= 1
            n += 1
            started = time.perf_counter()
            await self.player.send(json.dumps({"id": n, "action": "deal", "key": f"{self.id}-{n}",
                                               "bets": {"player": 500}}))  # fmt: skip
            # The round's event and the deal's reply reach the player in either order.
            seen: dict[str, dict[str, Any]] = {}
            while "reply" not in seen or ("round" not in seen and seen["reply"]["ok"]):
                message = json.loads(await self.player.recv())
                if message.get("type") in ("reply", "round"):
                    seen[message["type"]] = message
            if not seen["reply"]["ok"]:
                self.refused += 1
                print("refused:", seen["reply"]["error"]["code"], file=sys.stderr)
                await asyncio.sleep(0.05)
                continue
            await until(self.banker, "round")
            self.latencies.append(time.perf_counter() - started)

    async def close(self) -> None:
        for ws in (self.player, self.banker):
            await ws.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(
    url: str, args: argparse.Namespace,
    measured: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
) -> dict[str, float]:  # fmt: skip
    """The play of ``args.seats`` seats; ``measured`` is entered around the play alone
    (after the accounts and seats are made)."""
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        tables = (await http.get("/api/tables")).json()
        table = next(t["id"] for t in tables if t.get("banked"))
        seats = [Seat(url, http, table) for _ in range(args.seats)]
        # Accounts first (password hashing is slow on purpose), so that no player's 45 s
        # run out before the last seat is taken.
        for seat in seats:
            await seat.register()
        for seat in seats:  # one by one: each banker gets the next free seat
            await seat.sit()
        budget = [args.max_rounds]
        with measured():
            started = time.perf_counter()
            await asyncio.gather(*(s.play(started + args.seconds, budget) for s in seats))
            elapsed = time.perf_counter() - started
        for seat in seats:
            await seat.close()
    latencies = [x for s in seats for x in s.latencies]
    return {
        "rounds": len(latencies),
        "elapsed": elapsed,
        "refused": sum(s.refused for s in seats),
        "rate": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": percentile(latencies, 0.99) * 1000,
        "max": max(latencies) * 1000,
    }


def measure(args: argparse.Namespace) -> dict[str, float]:
    with server(args) as url:
        return asyncio.run(run(url, args))


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--max-rounds", type=int, default=20_000)
    parser.add_argument("--url", help="an already running server (with player-banked seats)")
    parser.add_argument("--database", help="postgresql://... (else SQLite in a temp folder)")
    parser.add_argument("--workers", type=int, default=2, help="with --database (default 2)")
    return parser


def main() -> None:
    options = parser()
    args = options.parse_args()
    if not 1 <= args.seats <= 1000 or not 0 < args.seconds <= 600:
        options.error("--seats is 1..1000 and --seconds 0..600")
    found = measure(args)
    print(f"seats: {args.seats} (a banker with auto-approve and a player each, on WebSockets)")
    print(f"rounds: {found['rounds']:.0f} in {found['elapsed']:.2f} s "
          f"({found['refused']:.0f} deals refused)")  # fmt: skip
    print(f"rounds/s: {found['rate']:.0f}")
    print(
        "deal -> both players have the result: "
        f"p50 {found['p50']:.1f} ms, p99 {found['p99']:.1f} ms, max {found['max']:.1f} ms"
    )


if __name__ == "__main__":
    main()
