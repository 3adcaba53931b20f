"""Both databases in one run, on the same load: SQLite with one worker against PostgreSQL
with several, for house rounds (``bench/server.py``: 64 players at table I) and for
player-banked seats (``bench/banked.py``), and PostgreSQL's own ``pgbench`` beside them.

The PostgreSQL side is a throwaway cluster this script starts itself from the installed
binaries, durable as in production: fsync, synchronous_commit and full_page_writes on
(the test suite's own cluster turns them off; this one must not). Each database gets a
fresh data folder or a fresh database per run. The runs alternate (SQLite, PostgreSQL,
SQLite, ...) ``--repeat`` times, so that drift on a shared machine touches both alike,
and the figures are printed per run and as ranges, with PostgreSQL's ratio to SQLite.

After each phase ``pgbench`` runs its TPC-B-like transaction (three updates, a select and an
insert, one commit) on the same cluster with as many clients as the phase has players
(``pgbench -c N -j 2 -T S``; initialised once, ``pgbench -i -s 10``): what a comparable
write transaction costs on this machine right then. Each phase prints PostgreSQL's rounds/s
as a ratio to SQLite's and to pgbench's transactions/s.

    .venv/bin/python bench/databases.py [--repeat 3] [--seconds 6] [--workers 2]
        [--only server|banked] [--database postgresql://... (an existing server instead)]

Targets: house rounds/s on PostgreSQL (2 workers) >= 1.0x SQLite's and >= 0.5x pgbench's,
with p99 <= 100 ms; player-banked rounds/s on PostgreSQL >= 0.8x SQLite's.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import banked
import server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server import postgres  # noqa: E402


@contextlib.contextmanager
def durable_postgres(existing: str | None) -> Iterator[str]:
    if existing:
        yield existing
        return
    cluster = postgres.Cluster(durable=True)
    try:
        yield cluster.start().url
    finally:
        cluster.remove()


Figures = dict[str, float]
PGBENCH_DATABASE = "bench_pgbench"
PGBENCH_SCALE = 10  # 1,000,000 accounts, 10 branches


def pgbench_binary() -> str:
    found = postgres._binaries()
    return str(found / "pgbench") if found and (found / "pgbench").exists() else "pgbench"


def pgbench_init(admin: str) -> str:
    """A database of pgbench's tables on the cluster (``pgbench -i``); its URL."""
    url = postgres.create_database(admin, PGBENCH_DATABASE)
    subprocess.run([pgbench_binary(), "-i", "-q", "-s", str(PGBENCH_SCALE), url],
                   check=True, capture_output=True, timeout=600)  # fmt: skip
    return url


def pgbench(url: str, clients: int, seconds: float) -> Figures:
    """pgbench's TPC-B-like transaction with ``clients`` clients: tps and mean latency."""
    done = subprocess.run(
        [pgbench_binary(), "-n", "-c", str(clients), "-j", "2", "-T", str(max(1, round(seconds))),
         url],
        check=True, capture_output=True, text=True, timeout=seconds + 120,
    )  # fmt: skip
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", done.stdout)
    latency = re.search(r"latency average = ([0-9.]+) ms", done.stdout)
    if tps is None or latency is None:
        raise SystemExit(f"pgbench said:\n{done.stdout}\n{done.stderr}")
    return {"rate": float(tps.group(1)), "mean": float(latency.group(1))}


def spread(values: list[float], digits: int = 0) -> str:
    low, high = min(values), max(values)
    text, top = f"{low:,.{digits}f}", f"{high:,.{digits}f}"
    return text if top == text else f"{text}-{top}"


def on_both(options: argparse.Namespace, admin: str, database: str,
            measure: Callable[[argparse.Namespace], Figures],
            bench: tuple[str, int, float]) -> dict[str, Figures]:  # fmt: skip
    """``measure(options)`` on SQLite (a fresh folder), then on a new PostgreSQL database,
    then pgbench (``bench``: its database's URL, its clients and seconds) on the cluster."""
    found: dict[str, dict[str, float]] = {}
    for name in ("sqlite", "postgresql"):
        options.database = None
        if name == "postgresql":
            options.database = postgres.create_database(admin, database)
        try:
            found[name] = measure(options)
        except Exception as error:  # a phase that broke down: said, and the run goes on
            print(f"{database} on {name} failed: {error!r}", flush=True)
            found[name] = {"rate": math.nan, "p50": math.nan, "p99": math.nan}
        print(f"{database} on {name}: {found[name]}", flush=True)
        if name == "postgresql":
            postgres.drop_database(admin, database)
    found["pgbench"] = pgbench(*bench)
    print(f"{database} pgbench: {found['pgbench']}", flush=True)
    return found


def house_rounds(args: argparse.Namespace, admin: str, run: int, bench: str) -> dict[str, Figures]:
    options = server.parser().parse_args(
        ["--seconds", str(args.seconds), "--concurrency", str(args.concurrency)]
    )
    options.workers = args.workers

    def measure(options: argparse.Namespace) -> dict[str, float]:
        rounds = server.measure(options, ("round",))["round"]
        return {"rate": rounds.rate, "p50": rounds.percentile(50), "p99": rounds.percentile(99)}

    clients = (bench, args.concurrency, args.seconds)
    return on_both(options, admin, f"bench_server_{run}", measure, clients)


def banked_rounds(args: argparse.Namespace, admin: str, run: int, bench: str) -> dict[str, Figures]:
    options = banked.parser().parse_args(["--seconds", str(args.seconds)])
    options.workers = args.workers
    clients = (bench, options.seats, args.seconds)
    return on_both(options, admin, f"bench_banked_{run}", banked.measure, clients)


def summary(title: str, runs: list[dict[str, Figures]], target: float, workers: int,
            p99_max: float | None, bench_target: float | None) -> None:  # fmt: skip
    print(f"\n{title}")
    labels = {"sqlite": "SQLite, 1 worker", "postgresql": f"PostgreSQL, {workers} workers"}
    for i, run in enumerate(runs, 1):
        line = "   ".join(
            f"{labels[name]}: {run[name]['rate']:6.0f}/s p50 {run[name]['p50']:5.1f} ms "
            f"p99 {run[name]['p99']:6.1f} ms"
            for name in ("sqlite", "postgresql")
        )
        bench = run["pgbench"]
        print(f"  run {i}: {line}   pgbench {bench['rate']:6.0f} tps "
              f"(mean {bench['mean']:.1f} ms)   ratio to SQLite "
              f"{run['postgresql']['rate'] / run['sqlite']['rate']:.2f}, to pgbench "
              f"{run['postgresql']['rate'] / bench['rate']:.2f}")  # fmt: skip
    ratios = [r["postgresql"]["rate"] / r["sqlite"]["rate"] for r in runs]
    to_bench = [r["postgresql"]["rate"] / r["pgbench"]["rate"] for r in runs]
    for name in ("sqlite", "postgresql"):
        values = [r[name] for r in runs]
        print(
            f"  {labels[name]:<24} {spread([v['rate'] for v in values])} rounds/s, "
            f"p50 {spread([v['p50'] for v in values], 1)} ms, "
            f"p99 {spread([v['p99'] for v in values], 1)} ms"
        )
    bench = [r["pgbench"]["rate"] for r in runs]
    print(f"  {'pgbench (TPC-B-like)':<24} {spread(bench)} transactions/s")
    print(f"  ratio PostgreSQL / SQLite: {spread(ratios, 2)}; PostgreSQL / pgbench: "
          f"{spread(to_bench, 2)}")  # fmt: skip
    met = min(ratios) >= target
    print(f"  {'met' if met else 'NOT met'}: PostgreSQL >= {target}x SQLite's rounds/s")
    if bench_target is not None:
        met = min(to_bench) >= bench_target
        print(f"  {'met' if met else 'NOT met'}: PostgreSQL >= {bench_target}x pgbench's tps")
    if p99_max is not None:
        worst = max(r["postgresql"]["p99"] for r in runs)
        print(f"  {'met' if worst <= p99_max else 'NOT met'}: PostgreSQL p99 <= {p99_max:.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (3)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per measure (6)")
    parser.add_argument("--concurrency", type=int, default=64, help="house-table players (64)")
    parser.add_argument("--workers", type=int, default=2, help="PostgreSQL workers (2)")
    parser.add_argument("--only", choices=("server", "banked"))
    parser.add_argument("--database", help="an existing PostgreSQL (admin URL) instead")
    args = parser.parse_args()
    house: list[dict[str, Figures]] = []
    seats: list[dict[str, Figures]] = []
    with durable_postgres(args.database) as admin:
        bench = pgbench_init(admin)
        for run in range(args.repeat):
            if args.only != "banked":
                house.append(house_rounds(args, admin, run, bench))
            if args.only != "server":
                seats.append(banked_rounds(args, admin, run, bench))
        postgres.drop_database(admin, PGBENCH_DATABASE)
    print(f"baccarat: SQLite against PostgreSQL (fsync on, synchronous_commit on), "
          f"{os.cpu_count()} CPUs, {args.repeat} runs of {args.seconds:.0f} s, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    if house:
        summary(f"house rounds, table I, {args.concurrency} players (bench/server.py)",
                house, 1.0, args.workers, 100.0, 0.5)  # fmt: skip
    if seats:
        summary("player-banked seats, 32 seats (bench/banked.py)", seats, 0.8, args.workers,
                None, None)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
