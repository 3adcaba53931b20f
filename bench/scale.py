"""Capacity: house rounds per second as the workers grow, on PostgreSQL against SQLite's one
worker, and pgbench on the same cluster, with what each phase costs in CPU.

Load comes from several client processes (``--clients``; one asyncio loop cannot load a large
machine), each driving its share of the players over keep-alive connections
(``bench/server.py``'s client), one account per player, a Banker bet of play money on table
I (``POST /api/tables/table-i/rounds``). The phases, one after another on the same machine:
SQLite with one worker, then PostgreSQL (a durable throwaway cluster, as
``bench/databases.py``'s: fsync, synchronous_commit and full_page_writes on; or
``--database``, an existing server's admin URL) with each number of workers of
``--workers``, then pgbench's TPC-B-like transaction with as many clients as players. For
each: rounds/s, p50/p90/p99, the CPU it kept busy (cores: server, PostgreSQL) and its CPU
per round (ms: server, PostgreSQL, clients; from ``/proc``), and on PostgreSQL a sample of
``pg_stat_activity``'s busy sessions (state, wait event, statement).

    .venv/bin/python bench/scale.py [--workers 1,2] [--players 64] [--clients 2]
        [--seconds 5] [--pgbench-seconds 6] [--database postgresql://...]

The defaults fit a 2-core machine (about two minutes); on a large one, e.g. 16 cores:
``--workers 1,4,8,12,16 --players 256 --clients 6 --seconds 15``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import databases
import sampling
import server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.harness import CHEAP_HASHING  # noqa: E402
from tests.server import postgres  # noqa: E402

DATABASE = "bench_scale"


@dataclass
class Figures:
    """One phase's figures (rates per second, latencies in ms, CPU in ms per round)."""

    name: str
    rate: float
    p50: float
    p90: float
    p99: float
    busy_server: float
    busy_pg: float
    per_server: float
    per_pg: float
    per_clients: float
    other: dict[int, int]
    activity: list[str]


def _client(port: int, tokens: list[str], concurrency: int, start_at: float, seconds: float,
            out: Any) -> None:  # fmt: skip
    """A client process: from ``start_at`` (wall clock) its players play for ``seconds``;
    it sends back its latencies, answers and own CPU seconds."""
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    time.sleep(max(0.0, start_at - time.time()))
    before = os.times()
    phase = asyncio.run(server.drive(port, "round", tokens, concurrency, seconds, 10**9))
    after = os.times()
    cpu = after.user - before.user + after.system - before.system
    out.send((phase.latencies, phase.statuses, phase.elapsed, cpu))
    out.close()


def drive(port: int, tokens: list[str], clients: int, seconds: float
          ) -> tuple[server.Phase, float, float]:  # fmt: skip
    """Every player at once from ``clients`` processes for ``seconds``: the merged phase,
    the clients' CPU seconds and the wall clock second it started."""
    context = multiprocessing.get_context("fork")
    start_at = time.time() + 0.5 + 0.1 * clients
    pipes, workers = [], []
    for i in range(clients):
        mine = tokens[i::clients]
        reading, writing = context.Pipe(duplex=False)
        arguments = (port, mine, len(mine), start_at, seconds, writing)
        process = context.Process(target=_client, args=arguments)
        process.start()
        writing.close()
        pipes.append(reading)
        workers.append(process)
    results = [pipe.recv() for pipe in pipes]
    for process in workers:
        process.join()
    phase = server.Phase("round")
    cpu = 0.0
    for latencies, statuses, elapsed, used in results:
        phase.latencies += latencies
        for status, count in statuses.items():
            phase.statuses[status] = phase.statuses.get(status, 0) + count
        phase.elapsed = max(phase.elapsed, elapsed)
        cpu += used
    return phase, cpu, start_at


def measure(args: argparse.Namespace, name: str, url: str | None, workers: int,
            admin: str | None, postmaster: int | None = None) -> Figures:  # fmt: skip
    """A server on ``url`` (None: SQLite in a fresh folder) with ``workers``, its players
    registered, warmed up, then driven for ``args.seconds`` while its CPU and PostgreSQL's
    (and ``pg_stat_activity``) are sampled."""
    options = server.parser().parse_args([])
    options.database, options.workers = url, workers
    with server.serving(options, "baccarat-scale-") as (process, port):
        tag = f"{os.getpid() % 1000}s{time.monotonic_ns() % 10**6}"
        tokens = server.register(port, args.players, tag)
        server.top_up(port, tokens)
        drive(port, tokens, args.clients, 1.0)  # warm-up
        server.top_up(port, tokens)
        activity = None if url is None or admin is None else sampling.Activity(admin, DATABASE)
        serving_pids = sampling.descendants(process.pid)
        pg_pids = sampling.postgres_pids(postmaster) if url is not None else []
        before = sampling.total_ticks(serving_pids), sampling.total_ticks(pg_pids)
        with activity or contextlib.nullcontext():
            phase, client_s, _ = drive(port, tokens, args.clients, args.seconds)
        after = sampling.total_ticks(serving_pids), sampling.total_ticks(pg_pids)
    rounds = max(1, phase.ok)
    elapsed = phase.elapsed
    served_s, pg_s = ((a - b) / sampling.HZ for a, b in zip(after, before, strict=True))
    return Figures(
        name, phase.ok / elapsed, phase.percentile(50), phase.percentile(90),
        phase.percentile(99), served_s / elapsed, pg_s / elapsed, served_s * 1000 / rounds,
        pg_s * 1000 / rounds, client_s * 1000 / rounds,
        {k: v for k, v in phase.statuses.items() if k != 201},
        [] if activity is None else activity.report(),
    )  # fmt: skip


@contextlib.contextmanager
def _cluster(existing: str | None) -> Iterator[tuple[str, int | None]]:
    """A durable throwaway cluster (``bench/databases.py``'s) and its postmaster, or an
    existing server (its CPU then counted as every postgres process's of the machine)."""
    if existing:
        yield existing, None
        return
    cluster = postgres.Cluster(durable=True)
    try:
        cluster.start()
        yield cluster.url, cluster.postmaster_pid()
    finally:
        cluster.remove()


def _progress(f: Figures) -> str:
    return (f"{f.name}: {f.rate:,.0f} rounds/s, p50 {f.p50:.1f} ms, p99 {f.p99:.1f} ms, CPU "
            f"per round {f.per_server:.3f} / {f.per_pg:.3f} / {f.per_clients:.3f} ms")  # fmt: skip


def table(found: list[Figures], bench: tuple[int, float, float, float] | None) -> list[str]:
    head = ("| phase | rounds/s | p50 ms | p90 ms | p99 ms | CPU busy: server / PostgreSQL | "
            "CPU per round ms: server / PostgreSQL / clients |")  # fmt: skip
    lines = [head, "|---|---|---|---|---|---|---|"]
    for f in found:
        lines.append(
            f"| {f.name} | {f.rate:,.0f} | {f.p50:.1f} | {f.p90:.1f} | {f.p99:.1f} | "
            f"{f.busy_server:.2f} / {f.busy_pg:.2f} | "
            f"{f.per_server:.3f} / {f.per_pg:.3f} / {f.per_clients:.3f} |"
        )
    if bench is not None:
        clients, tps, pg_tx, bench_tx = bench
        lines.append(f"| pgbench TPC-B-like, {clients} clients | {tps:,.0f} tps | | | | | "
                     f"- / {pg_tx:.3f} / {bench_tx:.3f} (pgbench) |")  # fmt: skip
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cores = os.cpu_count() or 1
    parser.add_argument("--workers", default=",".join(map(str, range(1, cores + 1))),
                        help="the PostgreSQL phases' workers (1 to the cores)")  # fmt: skip
    parser.add_argument("--players", type=int, default=64, help="players, an account each (64)")
    parser.add_argument("--clients", type=int, default=2, help="client processes (2)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per phase (5)")
    parser.add_argument("--pgbench-seconds", type=float, default=6.0,
                        help="pgbench's run (6; 0: none)")  # fmt: skip
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite phase")
    parser.add_argument("--database", help="an existing PostgreSQL (admin URL) instead")
    args = parser.parse_args()
    workers = [int(w) for w in args.workers.split(",") if w.strip()]
    for variable, value in CHEAP_HASHING.items():  # registering players is not measured
        os.environ.setdefault(variable, value)
    load = os.getloadavg()
    found: list[Figures] = []
    bench = None
    with _cluster(args.database) as (admin, postmaster):
        if not args.no_sqlite:
            found.append(measure(args, "SQLite, 1 worker", None, 1, None))
            print(_progress(found[-1]), flush=True)
        for count in workers:
            url = postgres.create_database(admin, DATABASE)
            try:
                found.append(measure(args, f"PostgreSQL, {count} worker{'s' * (count > 1)}",
                                     url, count, admin, postmaster))  # fmt: skip
            finally:
                postgres.drop_database(admin, DATABASE)
            print(_progress(found[-1]), flush=True)
        if args.pgbench_seconds > 0:
            tps, pg_tx, bench_tx = sampling.pgbench_cpu(admin, args.players, args.pgbench_seconds,
                                                        postmaster)  # fmt: skip
            bench = (args.players, tps, pg_tx, bench_tx)
            postgres.drop_database(admin, databases.PGBENCH_DATABASE)
    print(f"\nbaccarat capacity: house rounds (table I, a Banker bet, fun money), {args.players} "
          f"players from {args.clients} client processes, {args.seconds:g} s a phase; "
          f"{os.cpu_count()} CPUs; load average before {load[0]:.1f}, after "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print("\n".join(table(found, bench)))
    for f in found:
        if f.other:
            print(f"{f.name}: other answers {f.other}")
        if f.activity:
            print(f"{f.name}, pg_stat_activity's busy sessions: " + "\n".join(f.activity))
    return 0


if __name__ == "__main__":
    sys.exit(main())
