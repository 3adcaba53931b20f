"""The back office's reports on a casino of many rounds: how long the daily aggregates take
to rebuild, what they cost each round, and how fast each report page answers.

Run: .venv/bin/python bench/office.py [--rounds 1000000] [--days 365] [--pages 20]

It makes an SQLite casino in a temporary folder, one player, and --rounds rounds spread over
--days days at the first six tables, written by SQL (not played: a recursive CTE, with one
ledger transaction each; their ledger entries are left out), then:

1. rebuilds ``daily_stats`` from the rounds (``baccarat admin reports-rebuild``);
2. times each report of the back office through the API in-process (median of --pages);
3. plays 2,000 rounds through the API and prints the mean time per round and how much of it
   is spent in ``daily.count`` (the aggregates' upserts inside the round's transaction);
4. reads the heaviest reports (400 days by day, RTP life to date) from 4 clients at once
   while a ticker on the event loop asks to wake every millisecond, twice side by side:
   with the reports read on the event loop (as before) and on the reader threads (as now),
   and prints how late the ticker woke (median, 99th percentile, worst) and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TEMPLATES = [
    ('{"banker":{"stake":1000,"result":"win","returned":1950}}', 1000, 1950, "banker"),
    ('{"banker":{"stake":1000,"result":"lose","returned":0}}', 1000, 0, "player"),
    ('{"player":{"stake":500,"result":"win","returned":1000}}', 500, 1000, "player"),
    ('{"player":{"stake":500,"result":"lose","returned":0}}', 500, 0, "banker"),
    ('{"player":{"stake":2000,"result":"push","returned":2000},'
     '"tie":{"stake":500,"result":"win","returned":4500}}', 2500, 6500, "tie"),
]  # fmt: skip
TABLES = ["table-i", "table-ii", "table-iii", "tie-limits-1-100", "tie-limits-5-500", "mini"]
DAY_US = 86_400 * 1_000_000


def generate(db: Any, rounds: int, days: int, start_us: int) -> None:
    """One player and ``rounds`` rounds over ``days`` days, by SQL."""
    from baccarat.server import accounts
    from baccarat.server.ledger import SystemAccounts

    def work(uow: Any) -> None:
        player = accounts.register(uow, "bench", "not a hash", SystemAccounts.load(uow))
        seed = uow.scalar("SELECT id FROM fairness_seeds WHERE player_id = :p", {"p": player.id})
        values = ", ".join(
            f"({i}, '{b}', {s}, {w}, '{x}')" for i, (b, s, w, x) in enumerate(TEMPLATES)
        )
        uow.run(
            "CREATE TEMP TABLE templates AS SELECT column1 AS k, column2 AS bets, column3 AS "
            f"stake, column4 AS win, column5 AS winner FROM (VALUES {values})"
        )
        tables = ", ".join(f"({i}, '{t}')" for i, t in enumerate(TABLES))
        uow.run(
            "CREATE TEMP TABLE bench_tables AS SELECT column1 AS k, column2 AS id "
            f"FROM (VALUES {tables})"
        )
        base = int(uow.scalar("SELECT COALESCE(MAX(id), 0) FROM ledger_transactions"))
        step = days * DAY_US // rounds
        uow.run(
            "INSERT INTO ledger_transactions (id, kind, mode, created_us, reference) "
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :r) "
            "SELECT :base + x, 'round', 'fun', :start + x * :step, 'bench' FROM n",
            {"r": rounds, "base": base, "start": start_us, "step": step},
        )
        uow.run(
            "INSERT INTO rounds (id, player_id, table_id, mode, created_us, rules, seed_id, "
            "commitment, client_seed, nonce, cut, position, player_cards, banker_cards, winner, "
            "bets, stake, win, balance_before, balance_after, transaction_id) "
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :r) "
            "SELECT printf('r_%020x', x), :p, t.id, 'fun', :start + x * :step, "
            "'online-6deck-tie9', :seed, 'c', 'cs', x, NULL, 0, 'Kh Qd', '9s Kc', m.winner, "
            "m.bets, m.stake, m.win, 1000000, 1000000 - m.stake + m.win, :base + x "
            "FROM n JOIN templates m ON m.k = (x * 7 + x / 13) % 5 "
            "JOIN bench_tables t ON t.k = x % 6",
            {"r": rounds, "p": player.id, "start": start_us, "step": step, "seed": seed,
             "base": base},
        )  # fmt: skip

    db.run_write(work)


async def pages(app: Any, casino: Any, repeat: int) -> dict[str, float]:
    """The median answer time (ms) of each report, through the API in-process."""
    import httpx
    import pyotp

    from baccarat.server.office import staff

    hashed = casino.passwords.hash("bench staff password")
    enrolled = await casino.db.write(lambda uow: staff.create(uow, "boss", "admin", hashed))
    code = pyotp.TOTP(enrolled.totp_secret).now()
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        login = await client.post("/admin/api/sessions", json={
            "name": "boss", "password": "bench staff password", "code": code})  # fmt: skip
        assert login.status_code == 201, login.text
        headers = {"Authorization": f"Bearer {login.json()['token']}"}
        since = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 400 * 86_400))
        times = {}
        for path in (
            "ggr?by=day", "ggr?by=day&from={since}", "ggr?by=table&from={since}",
            "ggr?by=bet&from={since}", "ggr?by=mode&from={since}", "rtp?period=day",
            "rtp?period=month", "rtp?period=life", "rtp?period=life&format=csv", "liability",
            "events/large_win",
        ):  # fmt: skip
            samples = []
            for _ in range(repeat):
                began = time.perf_counter()
                url = f"/admin/api/reports/{path.replace('{since}', since)}"  # 400 days ago
                answer = await client.get(url, headers=headers)
                samples.append(time.perf_counter() - began)
                assert answer.status_code == 200, answer.text
            times[path] = statistics.median(samples) * 1000
        return times


async def loop_stalls(app: Any, casino: Any, reads: int) -> dict[str, list[float]]:
    """How late a 1 ms ticker on the event loop wakes (ms) while 4 clients read the heavy
    reports, with the reads on the loop ("inline") and on the reader threads ("threads")."""
    import httpx
    import pyotp

    from baccarat.server.office import staff

    hashed = casino.passwords.hash("bench staff password")
    enrolled = await casino.db.write(lambda uow: staff.create(uow, "loop", "admin", hashed))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40002))
    since = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 400 * 86_400))
    paths = [f"/admin/api/reports/ggr?by=day&from={since}", "/admin/api/reports/rtp?period=life"]
    original = casino.db.read

    async def inline(work: Any, *, heavy: bool = False) -> Any:
        return await original(work)  # every read on the loop, as before heavy reads

    found: dict[str, list[float]] = {}
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        code = pyotp.TOTP(enrolled.totp_secret).now()
        login = await client.post("/admin/api/sessions", json={
            "name": "loop", "password": "bench staff password", "code": code})  # fmt: skip
        headers = {"Authorization": f"Bearer {login.json()['token']}"}

        async def reader(count: int) -> None:
            for i in range(count):
                answer = await client.get(paths[i % 2], headers=headers)
                assert answer.status_code == 200, answer.text
                await asyncio.sleep(0)  # the next request arrives as a new event, as a server's

        for name in ("inline", "threads", "inline", "threads"):
            casino.db.read = inline if name == "inline" else original
            late: list[float] = []
            readers = asyncio.gather(*(reader(reads // 4) for _ in range(4)))
            while not readers.done():
                began = time.perf_counter()
                await asyncio.sleep(0.001)
                late.append((time.perf_counter() - began - 0.001) * 1000)
            await readers
            found.setdefault(name, []).extend(late)
        casino.db.read = original
    return found


async def rounds_cost(app: Any, count: int) -> tuple[float, float]:
    """Mean ms per API round, and of it the ms spent in ``daily.count`` (the aggregates'
    upserts and the large-win check, timed around the call inside the round)."""
    import httpx

    from baccarat.server import daily

    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40001))
    counted = daily.count
    inside = [0.0]

    def timed(*args: Any) -> None:
        began = time.perf_counter()
        counted(*args)
        inside[0] += time.perf_counter() - began

    daily.count = timed  # type: ignore[assignment]
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            await client.post(
                "/api/accounts", json={"nickname": "roller", "password": "a good one!"}
            )
            login = await client.post(
                "/api/sessions", json={"nickname": "roller", "password": "a good one!"}
            )
            headers = {"Authorization": f"Bearer {login.json()['token']}"}
            began = time.perf_counter()
            for key in range(count):
                answer = await client.post(
                    "/api/tables/table-i/rounds", json={"mode": "fun", "bets": {"player": 200}},
                    headers=headers | {"Idempotency-Key": f"k{key}"},
                )  # fmt: skip
                assert answer.status_code == 201, answer.text
            total = time.perf_counter() - began
    finally:
        daily.count = counted
    return total / count * 1000, inside[0] / count * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--pages", type=int, default=20)
    args = parser.parse_args()

    from baccarat.server import daily
    from baccarat.server.app import create_app
    from baccarat.server.db import migrate
    from baccarat.server.db.database import Database
    from baccarat.server.settings import (
        DatabaseUrl,
        LoginThrottle,
        PasswordHashing,
        Settings,
        system_clock_us,
    )  # fmt: skip

    with tempfile.TemporaryDirectory() as folder:
        url = DatabaseUrl.sqlite_in(Path(folder) / "data")
        migrate.upgrade(url)
        db = Database(url, clock=system_clock_us, threads=1)
        start = (system_clock_us() // DAY_US - args.days) * DAY_US
        began = time.perf_counter()
        generate(db, args.rounds, args.days, start)
        print(f"generated {args.rounds:,} rounds over {args.days} days by SQL in "
              f"{time.perf_counter() - began:.1f} s")  # fmt: skip
        began = time.perf_counter()
        count = db.run_write(daily.rebuild)
        rows = db.run_read(lambda uow: uow.scalar("SELECT COUNT(*) FROM daily_stats"))
        print(f"rebuilt the daily aggregates from {count:,} rounds in "
              f"{time.perf_counter() - began:.1f} s: {rows:,} rows")  # fmt: skip
        db.close()
        settings = dataclasses.replace(
            Settings.from_env(), database=url, data_dir=Path(folder) / "data",
            passwords=PasswordHashing(time_cost=1, memory_cost=8, parallelism=1),
            login_throttle=LoginThrottle(registrations_per_hour=10_000),
        )  # fmt: skip
        app = create_app(settings)

        async def measure() -> None:
            async with app.router.lifespan_context(app):
                casino = app.state.casino
                for path, ms in (await pages(app, casino, args.pages)).items():
                    print(f"  GET /admin/api/reports/{path}: {ms:.2f} ms (median)")
                whole, counting = await rounds_cost(app, 2_000)
                print(f"a round through the API: {whole:.3f} ms, of which daily.count "
                      f"{counting * 1000:.0f} us ({counting / whole * 100:.1f}%)")  # fmt: skip
                stalls = await loop_stalls(app, casino, 4 * args.pages)
                figures = {}
                for name, late in stalls.items():
                    late.sort()
                    figures[name] = (statistics.median(late), late[int(len(late) * 0.99)],
                                     late[-1])  # fmt: skip
                    print(f"event loop lateness, reports read {name:>7}: median "
                          f"{figures[name][0]:.2f} ms, p99 {figures[name][1]:.2f} ms, worst "
                          f"{figures[name][2]:.2f} ms ({len(late)} ticks)")  # fmt: skip
                ratios = [a / max(b, 1e-3) for a, b in zip(*figures.values(), strict=True)]
                print("inline / threads: median {:.1f}x, p99 {:.1f}x, worst {:.1f}x".format(
                    *ratios))  # fmt: skip

        asyncio.run(measure())


if __name__ == "__main__":
    main()
