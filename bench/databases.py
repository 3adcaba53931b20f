"""Both databases in one run, on the same load: SQLite with one worker against PostgreSQL
with several, for house rounds (``bench/server.py``: 64 players at table I) and for
player-banked seats (``bench/banked.py``).

The PostgreSQL side is a throwaway cluster this script starts itself from the installed
binaries, durable as in production: fsync, synchronous_commit and full_page_writes on
(the test suite's own cluster turns them off; this one must not). Each database gets a
fresh data folder or a fresh database per run. The runs alternate (SQLite, PostgreSQL,
SQLite, ...) ``--repeat`` times, so that drift on a shared machine touches both alike,
and the figures are printed per run and as ranges, with PostgreSQL's ratio to SQLite.

    .venv/bin/python bench/databases.py [--repeat 3] [--seconds 6] [--workers 2]
        [--only server|banked] [--database postgresql://... (an existing server instead)]

Targets (issue 13): rounds/s on PostgreSQL (2 workers) >= 1.0x SQLite's with p99 <= 100 ms;
player-banked rounds/s on PostgreSQL >= 0.8x SQLite's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
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


def spread(values: list[float], digits: int = 0) -> str:
    low, high = min(values), max(values)
    text, top = f"{low:,.{digits}f}", f"{high:,.{digits}f}"
    return text if top == text else f"{text}-{top}"


Figures = dict[str, float]


def on_both(options: argparse.Namespace, admin: str, database: str,
            measure: Callable[[argparse.Namespace], Figures]) -> dict[str, Figures]:  # fmt: skip
    """``measure(options)`` on SQLite (a fresh folder), then on a new PostgreSQL database."""
    found: dict[str, dict[str, float]] = {}
    for name in ("sqlite", "postgresql"):
        options.database = None
        if name == "postgresql":
            options.database = postgres.create_database(admin, database)
        found[name] = measure(options)
        if name == "postgresql":
            postgres.drop_database(admin, database)
    return found


def house_rounds(args: argparse.Namespace, admin: str, run: int) -> dict[str, dict[str, float]]:
    options = server.parser().parse_args(
        ["--seconds", str(args.seconds), "--concurrency", str(args.concurrency)]
    )
    options.workers = args.workers

    def measure(options: argparse.Namespace) -> dict[str, float]:
        rounds = server.measure(options, ("round",))["round"]
        return {"rate": rounds.rate, "p50": rounds.percentile(50), "p99": rounds.percentile(99)}

    return on_both(options, admin, f"bench_server_{run}", measure)


def banked_rounds(args: argparse.Namespace, admin: str, run: int) -> dict[str, dict[str, float]]:
    options = banked.parser().parse_args(["--seconds", str(args.seconds)])
    options.workers = args.workers
    return on_both(options, admin, f"bench_banked_{run}", banked.measure)


def summary(title: str, runs: list[dict[str, dict[str, float]]], target: float,
            workers: int, p99_max: float | None) -> None:  # fmt: skip
    print(f"\n{title}")
    labels = {"sqlite": "SQLite, 1 worker", "postgresql": f"PostgreSQL, {workers} workers"}
    for i, run in enumerate(runs, 1):
        ratio = run["postgresql"]["rate"] / run["sqlite"]["rate"]
        line = "   ".join(
            f"{labels[name]}: {run[name]['rate']:6.0f}/s p50 {run[name]['p50']:5.1f} ms "
            f"p99 {run[name]['p99']:6.1f} ms"
            for name in ("sqlite", "postgresql")
        )
        print(f"  run {i}: {line}   ratio {ratio:.2f}")
    ratios = [r["postgresql"]["rate"] / r["sqlite"]["rate"] for r in runs]
    for name in ("sqlite", "postgresql"):
        values = [r[name] for r in runs]
        print(
            f"  {labels[name]:<24} {spread([v['rate'] for v in values])} rounds/s, "
            f"p50 {spread([v['p50'] for v in values], 1)} ms, "
            f"p99 {spread([v['p99'] for v in values], 1)} ms"
        )
    print(f"  ratio PostgreSQL / SQLite: {spread(ratios, 2)}")
    met = min(ratios) >= target
    print(f"  {'met' if met else 'NOT met'}: PostgreSQL >= {target}x SQLite's rounds/s")
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
    house: list[dict[str, dict[str, float]]] = []
    seats: list[dict[str, dict[str, float]]] = []
    with durable_postgres(args.database) as admin:
        for run in range(args.repeat):
            if args.only != "banked":
                house.append(house_rounds(args, admin, run))
            if args.only != "server":
                seats.append(banked_rounds(args, admin, run))
    print(f"baccarat: SQLite against PostgreSQL (fsync on, synchronous_commit on), "
          f"{os.cpu_count()} CPUs, {args.repeat} runs of {args.seconds:.0f} s")  # fmt: skip
    if house:
        summary(f"house rounds, table I, {args.concurrency} players (bench/server.py)",
                house, 1.0, args.workers, 100.0)  # fmt: skip
    if seats:
        summary("player-banked seats, 32 seats (bench/banked.py)", seats, 0.8, args.workers, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
