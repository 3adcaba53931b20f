"""A shared table under a crowd: bettors and watchers on loopback, on SQLite then PostgreSQL.

One shared table (8 decks, ``--betting-s`` to bet, ``--result-s`` of result) served by
``baccarat serve``: first on SQLite with one worker, then on a durable throwaway PostgreSQL
cluster (started here, as ``bench/databases.py`` does) with ``--workers`` workers. Every
bettor (an account made in the database beforehand: registering 1,000 players through
argon2 would measure the password hash) holds the table's socket and bets $5 on BANKER in
every window through ``PUT .../coups/{coup}/bets``; every watcher holds the socket without
a session. The sockets are spread over loopback addresses (127.0.0.2 and up, at most
``PER_ADDRESS`` each) so that the per-address limits act as in production; the worker's
connection cap is sized for them. For ``--coups`` coups it measures:

- the bettors and bets per coup (those the server took before the close);
- the time from the close to the last bettor's ``settled`` event (p50 and p99 over the
  coups), and whether every coup reached every socket (``dealt``) and every bettor
  (``settled``) before the next window opened;
- the clock's drift: how far the twentieth close is from the first plus 19 periods;
- the bets settled per second by one coup's settlement (one batch through the round
  function, timed in-process on the same database kind) against ``bench/server.py``'s
  house rounds per second over HTTP on the same machine.

Targets (issue 25): every coup settled and delivered to all before the next window opens;
drift under 0.5 s over 20 coups; bets settled per second at least 3x the house rounds/s.

    .venv/bin/python bench/shared.py [--bettors 1000] [--watchers 2000] [--coups 20]
        [--betting-s 12] [--result-s 6] [--workers 2] [--only sqlite|postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

import server as house
from serving import serving

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.server import postgres  # noqa: E402

TABLE_ID = "bench-shared"
TABLE = """[[table]]
id = "bench-shared"
name = "Bench (shared)"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = {{ betting_s = {betting}, result_s = {result} }}
"""
PER_ADDRESS = 60  # sockets per loopback address (the per-address limit is 100)
CONNECT_AT_ONCE = 64


def accounts(url: str, count: int, tag: str) -> list[str]:
    """``count`` players with sessions, made in the database: their bearer tokens."""
    from baccarat.server import accounts as players
    from baccarat.server import auth
    from baccarat.server.db import migrate
    from baccarat.server.db.database import Database
    from baccarat.server.ledger import SystemAccounts
    from baccarat.server.settings import DatabaseUrl, system_clock_us

    database = DatabaseUrl.parse(url)
    migrate.upgrade(database)
    db = Database(database, clock=system_clock_us, threads=1)

    def make(uow: Any) -> list[str]:
        system = SystemAccounts.load(uow)
        tokens = []
        for i in range(count):
            player = players.register(uow, f"{tag}x{i}", "-", system)
            tokens.append(auth.create_session(uow, player.id, 86_400).token)
        return tokens

    try:
        return db.run_write(make)
    finally:
        db.close()


@contextlib.contextmanager
def table_server(url: str, workers: int, data: Path, args: argparse.Namespace) -> Iterator[str]:
    (data / "tables.toml").write_text(TABLE.format(betting=args.betting_s, result=args.result_s))
    env = {"BACCARAT_WEB_DIR": str(data / "none"),
           "BACCARAT_MAX_CONNECTIONS": str(args.bettors + args.watchers + 500)}  # fmt: skip
    with serving(data, database=url, workers=workers, env=env) as base:
        yield base


def now_us() -> int:
    return time.time_ns() // 1000


class Crowd:
    """The sockets and what reached them, by coup."""

    def __init__(self) -> None:
        self.opens: dict[int, dict[str, Any]] = {}
        self.dealt: dict[int, list[int]] = defaultdict(list)
        self.settled: dict[int, list[int]] = defaultdict(list)
        self.sockets: list[ClientConnection] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.new_coup = asyncio.Event()

    async def follow(self, ws: ClientConnection, bettor: bool) -> None:
        with contextlib.suppress(Exception):
            async for text in ws:
                message = json.loads(text)
                kind, at = message.get("type"), now_us()
                if kind == "open" and message["coup"] not in self.opens:
                    self.opens[message["coup"]] = message
                    self.new_coup.set()
                elif kind == "dealt":
                    self.dealt[message["coup"]].append(at)
                elif kind == "settled" and bettor and message.get("you"):
                    self.settled[message["coup"]].append(at)

    async def join(self, url: str, tokens: list[str], watchers: int) -> None:
        ws_url = url.replace("http", "ws") + f"/api/tables/{TABLE_ID}/ws"
        gate = asyncio.Semaphore(CONNECT_AT_ONCE)
        people = [(token, True) for token in tokens] + [(None, False)] * watchers

        async def one(index: int, token: str | None, bettor: bool) -> None:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            address = f"127.0.0.{2 + index // PER_ADDRESS}"
            async with gate:
                ws = await connect(ws_url, additional_headers=headers, open_timeout=60,
                                   ping_interval=None, max_queue=None,
                                   local_addr=(address, 0))  # fmt: skip
            self.sockets.append(ws)
            self.tasks.append(asyncio.get_running_loop().create_task(self.follow(ws, bettor)))

        await asyncio.gather(*(one(i, t, b) for i, (t, b) in enumerate(people)))

    async def close(self) -> None:
        for ws in self.sockets:
            with contextlib.suppress(Exception):
                await ws.close()
        for task in self.tasks:
            task.cancel()


async def bet_all(url: str, tokens: list[str], coup: int) -> int:
    """Every bettor's $5 on BANKER on the coup; how many the server took."""
    limits = httpx.Limits(max_connections=48, max_keepalive_connections=48)
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.1", limits=limits)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=30) as http:
        gate = asyncio.Semaphore(48)

        async def one(i: int, token: str) -> str:
            async with gate:
                for attempt in range(3):
                    try:
                        answer = await http.put(
                            f"/api/tables/{TABLE_ID}/coups/{coup}/bets",
                            json={"mode": "fun", "bets": {"banker": 500}},
                            headers={"Authorization": f"Bearer {token}",
                                     "Idempotency-Key": f"c{coup}-{i}"},
                        )  # fmt: skip
                        break
                    except httpx.TransportError:
                        # A keep-alive connection the server closed as it was reused: the
                        # same key again (a retry never bets twice).
                        if attempt == 2:
                            return "transport_error"
                if answer.status_code == 200:
                    return "ok"
                with contextlib.suppress(Exception):
                    return str(answer.json()["error"]["code"])
                return str(answer.status_code)

        statuses = await asyncio.gather(*(one(i, t) for i, t in enumerate(tokens)))
        refused = {code: statuses.count(code) for code in set(statuses) if code != "ok"}
        if refused:
            print(f"  coup {coup}: refused {refused}", file=sys.stderr, flush=True)
        return statuses.count("ok")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else float("nan")


async def crowd_run(url: str, tokens: list[str], args: argparse.Namespace) -> dict[str, Any]:
    crowd = Crowd()
    started = time.monotonic()
    await crowd.join(url, tokens, args.watchers)
    joined_s = time.monotonic() - started
    period = (args.betting_s + args.result_s) * 1_000_000
    measured: list[int] = []
    taken: dict[int, int] = {}
    try:
        while len(measured) < args.coups + 1:
            crowd.new_coup.clear()
            fresh = [c for c in crowd.opens if c not in taken and c not in measured]
            if not fresh:
                await asyncio.wait_for(crowd.new_coup.wait(), period / 1e6 + 30)
                continue
            coup = max(fresh)
            opened = crowd.opens[coup]
            if opened["closes_at"] - now_us() < 2_000_000:
                taken[coup] = 0  # too late in this window to bet: the next one
                continue
            taken[coup] = await bet_all(url, tokens, coup)
            measured.append(coup)
        # The last coup measured is only the next window of the one before it.
    finally:
        await crowd.close()
    coups = measured[:-1]
    total = args.bettors + args.watchers
    rows = []
    for coup, following in zip(coups, measured[1:], strict=False):
        closes = crowd.opens[coup]["closes_at"]
        next_open = crowd.opens[following]["closes_at"] - args.betting_s * 1_000_000
        settled, dealt = crowd.settled[coup], crowd.dealt[coup]
        last = max(settled + dealt) if settled or dealt else 0
        rows.append({
            "coup": coup, "bets": taken[coup], "settled_events": len(settled),
            "dealt_events": len(dealt), "close_to_last_settled_s": (max(settled) - closes) / 1e6
            if settled else float("nan"), "before_next_window": last < next_open,
        })  # fmt: skip
    closes = [crowd.opens[c]["closes_at"] for c in coups]
    drift = max(
        abs(at - closes[0] - round((at - closes[0]) / period) * period) for at in closes
    ) / 1e6  # fmt: skip
    span = round((closes[-1] - closes[0]) / period)
    latencies = [r["close_to_last_settled_s"] for r in rows]
    return {
        "sockets": total, "joined_s": joined_s, "rows": rows, "coups": len(rows),
        "span_periods": span, "drift_s": drift,
        "p50_s": statistics.median(latencies), "p99_s": percentile(latencies, 99),
        "all_delivered": all(r["before_next_window"] and r["dealt_events"] == total
                             and r["settled_events"] == r["bets"] for r in rows),
        "bets_per_coup": statistics.mean(r["bets"] for r in rows),
    }  # fmt: skip


def settle_rate(url: str, bettors: int, tag: str) -> float:
    """Bets settled per second by one coup's settlement of ``bettors`` bettors, in-process
    on this database (the deal and settlement transaction, timed alone)."""
    from baccarat.core import Bets
    from baccarat.server.db.database import Database
    from baccarat.server.dealing import FairShoes
    from baccarat.server.kinds import load_tables
    from baccarat.server.kinds.shared import bets, clock
    from baccarat.server.ledger import SystemAccounts
    from baccarat.server.play.round import Dealer
    from baccarat.server.settings import DatabaseUrl
    from baccarat.server.wallets.ledger import LedgerWallet

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tables.toml"
        path.write_text(TABLE.format(betting=8, result=3))
        table = load_tables(path)[TABLE_ID]
    tokens = accounts(url, bettors, tag)  # migrates, makes the players
    assert len(tokens) == bettors
    moment = [time.time_ns() // 1000]
    db = Database(DatabaseUrl.parse(url), clock=lambda: moment[0], threads=1)
    try:
        dealer = Dealer(FairShoes(), LedgerWallet(db.run_read(SystemAccounts.load)))
        listed = "SELECT id FROM players WHERE nickname LIKE :t ORDER BY id"
        ids = db.run_read(lambda uow: [int(r[0]) for r in uow.all(listed, {"t": f"{tag}x%"})])
        db.run_write(lambda uow: clock.ensure(uow, [table]))
        db.run_write(lambda uow: clock.watch(uow, [TABLE_ID]))
        db.run_write(lambda uow: clock.advance(uow, dealer, table))
        coup = db.run_read(lambda uow: clock.clock_of(uow, table)[1])
        assert coup is not None

        def place(uow: Any) -> None:
            for player in ids:
                bets.place(uow, dealer, table, coup.id, player, "fun", Bets(banker=500))

        db.run_write(place)
        moment[0] = coup.closes_us + 1
        started = time.perf_counter()
        done = db.run_write(lambda uow: clock.advance(uow, dealer, table))
        assert done[-1].type == "coup_dealt", done
        return bettors / (time.perf_counter() - started)
    finally:
        db.close()


def house_rate(database: str | None, workers: int) -> float:
    """bench/server.py's settled house rounds per second at table I (64 players, HTTP)."""
    args = house.parser().parse_args(["--seconds", "4"])
    args.database, args.workers = database, workers
    phases = list(house.measure(args).values())
    return float(phases[1].rate)


def run_backend(
    name: str, url: str, batch_url: str, workers: int, args: argparse.Namespace
) -> dict[str, Any]:
    """The crowd on ``url``, one coup's settlement timed on the fresh ``batch_url``, and
    the house rounds (a fresh SQLite folder, or a new database on the same cluster)."""
    tag = f"s{os.getpid() % 1000}{name[0]}{time.monotonic_ns() % 10**5}"
    tokens = accounts(url, args.bettors, tag)
    with (
        tempfile.TemporaryDirectory() as folder,
        table_server(url, workers, Path(folder), args) as base,
    ):
        figures = asyncio.run(crowd_run(base, tokens, args))
    figures["settled_per_s"] = settle_rate(batch_url, args.bettors, tag + "r")
    figures["batch"] = args.bettors
    figures["house_per_s"] = house_rate(None if name == "sqlite" else batch_url, workers)
    return figures


def report(name: str, workers: int, f: dict[str, Any]) -> list[str]:
    ratio = f["settled_per_s"] / f["house_per_s"]
    lines = [
        f"{name}, {workers} worker{'s' if workers > 1 else ''}: {f['sockets']} sockets joined "
        f"in {f['joined_s']:.1f} s; {f['coups']} coups, {f['bets_per_coup']:.0f} bets per coup",
        f"  close to the last bettor's settled event: p50 {f['p50_s']:.3f} s, "
        f"p99 {f['p99_s']:.3f} s",
        f"  every coup dealt to all {f['sockets']} sockets and settled to every bettor before "
        f"the next window: {'yes' if f['all_delivered'] else 'NO'}",
        f"  clock drift over {f['coups']} coups ({f['span_periods']} periods): "
        f"{f['drift_s']:.3f} s",
        f"  bets settled per second (one coup of {f['batch']} bettors, one batch): "
        f"{f['settled_per_s']:,.0f}/s; house rounds/s (bench/server.py): "
        f"{f['house_per_s']:,.0f}/s; ratio {ratio:.1f}",
    ]
    checks = [
        ("delivered before the next window", f["all_delivered"]),
        ("drift < 0.5 s", f["drift_s"] < 0.5),
        ("settled/s >= 3x house", ratio >= 3),
    ]
    lines += [f"  {'met' if ok else 'NOT met'}: {label}" for label, ok in checks]
    for row in f["rows"]:
        if not row["before_next_window"] or row["settled_events"] != row["bets"]:
            lines.append(f"  coup {row['coup']}: {row}")
    return lines


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bettors", type=int, default=1000)
    parser.add_argument("--watchers", type=int, default=2000)
    parser.add_argument("--coups", type=int, default=20)
    parser.add_argument("--betting-s", type=int, default=12, help="the speed table's 12 s")
    parser.add_argument("--result-s", type=int, default=6)
    parser.add_argument("--workers", type=int, default=2, help="PostgreSQL's workers (2)")
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    return parser


def main() -> int:
    args = parser().parse_args()
    # One seed key for the servers and for this script's own writes (players, their seeds).
    from baccarat.server.vault import new_key_text

    os.environ.setdefault("BACCARAT_SEED_KEY", new_key_text().strip())
    print(f"bench/shared.py: {args.bettors} bettors, {args.watchers} watchers, {args.coups} "
          f"coups of {args.betting_s} s + {args.result_s} s, {os.cpu_count()} CPUs")  # fmt: skip
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory() as folder:
            url, batch = f"sqlite:///{folder}/bench.db", f"sqlite:///{folder}/batch.db"
            figures = run_backend("sqlite", url, batch, 1, args)
            print("\n".join(report("SQLite", 1, figures)), flush=True)
    if args.only != "sqlite":
        cluster = postgres.Cluster(durable=True)
        try:
            admin = cluster.start().url
            url = postgres.create_database(admin, "bench_shared")
            batch = postgres.create_database(admin, "bench_batch")
            figures = run_backend("postgresql", url, batch, args.workers, args)
            print("\n".join(report("PostgreSQL", args.workers, figures)), flush=True)
        finally:
            cluster.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
