"""Where a round's CPU goes on PostgreSQL: one phase of ``bench/server.py``'s house rounds
(64 players at table I, 2 workers) or of ``bench/banked.py``'s player-banked seats
(``--phase banked``: 32 seats) on a durable throwaway cluster with
``pg_stat_statements``, and per round: the CPU of the workers (by thread: the event loop,
the writer threads, the readers), of PostgreSQL's processes and of the load client, and
each statement's calls and execution time as PostgreSQL counts them (a statement's time
includes its waits for row locks). The house phase samples ``pg_stat_activity`` meanwhile
(every 0.25 s: the sessions in a transaction, by state, wait and statement; one ``idle in
transaction`` is a round's transaction waiting for its worker: its Python, the GIL, a core;
their mean count times the phase's time over its rounds is the time a round's transaction
spends so), and is then run
on SQLite with one worker (``--sqlite-seconds``), for the workers' CPU per round on both.

    .venv/bin/python bench/pg_breakdown.py [--phase house|banked] [--seconds 5] [--workers 2]
        [--players 16] [--statements 20] [--sqlite-seconds 5] [--pgbench-seconds 8]
        [--repeat 1]

On a machine whose load changes (a shared one), the ratio of one pair of phases moves with
it: ``--repeat N`` runs the pair N times, alternately, and gives each ratio and their
median.

Then ``pgbench``'s TPC-B-like transaction on the same cluster with as many clients as the
phase had (``bench/databases.py``'s), and the CPU of PostgreSQL's processes and of pgbench
per transaction, sampled in the middle of its run (``--pgbench-seconds``, 0: none): what
PostgreSQL spends on a round against what it spends on a comparable write transaction.

Thread names come from ``py-spy dump`` when it is installed (the threads are "python" to
the kernel); without it the workers are counted as one. Each thread's CPU is split into user
and system time, with its voluntary context switches per round (each a wait: for the GIL,
a lock, a socket, another thread).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import banked
import sampling
import server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server import postgres  # noqa: E402

HZ = sampling.HZ
# The cluster's postmaster (its processes are PostgreSQL's CPU; other clusters' are not).
POSTMASTER: list[int | None] = [None]


Use = tuple[int, int, int]  # a thread's user ticks, system ticks, voluntary switches


def _threads(pids: list[int]) -> dict[tuple[int, str], Use]:
    found = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                found[(pid, tid)] = sampling.thread_use(pid, tid)
    return found


def _thread_names(pids: list[int]) -> dict[str, str]:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    names: dict[str, str] = {}
    if not Path(spy).exists():
        return names
    for pid in pids:
        dump = subprocess.run([spy, "dump", "-p", str(pid)], capture_output=True, text=True)
        for line in dump.stdout.splitlines():
            if found := re.match(r'Thread (\S+) \(.*\): "([^"]+)"', line):
                names[found.group(1)] = found.group(2)
    return names


class _Sample:
    """The CPU ticks of the workers' threads and of PostgreSQL's processes, and this
    process's own CPU, between entering and leaving."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid

    def __enter__(self) -> _Sample:
        self.workers = sampling.descendants(self.server_pid)
        self.database = sampling.postgres_pids(POSTMASTER[0])
        self.before = _threads(self.workers)
        self.pg_before = {pid: sampling.ticks(f"/proc/{pid}/stat") for pid in self.database}
        self.mine, self.started = os.times(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed, mine = time.perf_counter() - self.started, os.times()
        self.client_s = mine.user - self.mine.user + mine.system - self.mine.system
        self.after = _threads(self.workers)
        self.pg_after = {pid: sampling.ticks(f"/proc/{pid}/stat") for pid in self.database}
        self.names = _thread_names([pid for pid in self.workers if pid != self.server_pid])


def _serving_pid(port: int) -> int:
    """The ``baccarat serve`` process listening on ``port``."""
    wanted = f"\0--port\0{port}\0".encode()
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{entry}/cmdline").read_bytes()
            if entry.isdigit() and b"\0serve\0" in line and wanted in line:
                return int(entry)
    raise SystemExit(f"no server on port {port}")


Measured = tuple[_Sample, int, list[float], "sampling.Activity | None"]


def _house(url: str | None, admin: str, seconds: float, workers: int, players: int,
           tag: str = "breakdown") -> Measured:  # fmt: skip
    """The house phase on PostgreSQL (``url``; ``pg_stat_activity`` sampled meanwhile) or on
    SQLite (None: one worker, a fresh folder), ``players`` accounts shared by the players
    (their nicknames made with ``tag``: new in each phase on one database)."""
    options = server.parser().parse_args([])
    options.database, options.workers, options.players = url, workers, players
    with server.serving(options, "baccarat-breakdown-") as (serving, port):
        tokens = server.register(port, options.players, tag)
        server.top_up(port, tokens)
        asyncio.run(server.drive(port, "round", tokens, options.concurrency, 2.0, 10**9))
        server.top_up(port, tokens)
        activity = None if url is None else sampling.Activity(admin, url.rsplit("/", 1)[1])
        if url is not None:
            _reset_statements(admin)
        with _Sample(serving.pid) as sample, activity or contextlib.nullcontext():
            phase = asyncio.run(server.drive(port, "round", tokens, options.concurrency,
                                             seconds, 10**9))  # fmt: skip
    return sample, phase.ok, [phase.percentile(50), phase.percentile(99)], activity


def _banked(url: str | None, admin: str, seconds: float, workers: int, players: int,
            tag: str = "") -> Measured:  # fmt: skip
    options = banked.parser().parse_args(["--seconds", str(seconds)])
    options.database, options.workers = url, workers
    with banked.server(options) as base:
        samples: list[_Sample] = []

        def measured() -> _Sample:
            _reset_statements(admin)
            samples.append(_Sample(_serving_pid(int(base.rsplit(":", 1)[1]))))
            return samples[-1]

        found = asyncio.run(banked.run(base, options, measured))
    return samples[0], int(found["rounds"]), [found["p50"], found["p99"]], None


def _by_thread(sample: _Sample) -> collections.Counter[str]:
    """The workers' CPU ticks in the sample, by thread name (``worker`` without py-spy)."""
    by_thread: collections.Counter[str] = collections.Counter()
    for name, (user, system, _) in _use_by_thread(sample).items():
        by_thread[name] = user + system
    return by_thread


def _use_by_thread(sample: _Sample) -> dict[str, list[int]]:
    """The workers' user ticks, system ticks and voluntary switches in the sample, by
    thread name."""
    found: dict[str, list[int]] = {}
    for (pid, tid), use in sample.after.items():
        name = re.sub(r"[-_]?\d+$", "", sample.names.get(tid, "worker"))
        was = sample.before.get((pid, tid), (0, 0, 0))
        total = found.setdefault(name, [0, 0, 0])
        for i in range(3):
            total[i] += use[i] - was[i]
    return found


def _report(name: str, sample: _Sample, rounds: int, p50: float, p99: float,
            activity: sampling.Activity | None) -> tuple[float, float]:  # fmt: skip
    """Print a PostgreSQL phase's figures; the workers' and PostgreSQL's CPU per round (ms)."""
    by_thread = _by_thread(sample)
    per = 1000 / rounds / HZ  # ms per round of one tick
    client = sample.client_s * 1000 / rounds
    pg = sum(ticks - sample.pg_before.get(pid, 0)
             for pid, ticks in sample.pg_after.items()) * per  # fmt: skip
    workers_ms = sum(by_thread.values()) * per
    elapsed = sample.elapsed
    print(f"{name}: {rounds} rounds in {elapsed:.2f} s: {rounds / elapsed:,.0f} "
          f"rounds/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms")  # fmt: skip
    print(f"CPU per round: workers {workers_ms:.3f} ms, PostgreSQL {pg:.3f} ms, client "
          f"{client:.3f} ms; total {workers_ms + pg + client:.3f} ms against "
          f"{os.cpu_count() or 1} cores x wall / rounds = "
          f"{(os.cpu_count() or 1) * elapsed * 1000 / rounds:.3f} ms")  # fmt: skip
    use = _use_by_thread(sample)
    for thread, ticks in by_thread.most_common():
        if ticks:
            user, system, waits = use[thread]
            print(f"  worker thread {thread:<24} {ticks * per:.3f} ms (user {user * per:.3f}, "
                  f"system {system * per:.3f}; {waits / rounds:.2f} waits)")  # fmt: skip
    if activity is not None:
        idle = activity.in_state("idle in transaction")
        held = activity.mean_in_state("idle in transaction") * elapsed * 1000 / rounds
        print(f"pg_stat_activity every {activity.every_s} s: 'idle in transaction' in "
              f"{idle} of {sum(activity.seen.values())} busy sessions seen (target: none), "
              f"about {held:.2f} ms per round")  # fmt: skip
        print("\n".join(activity.report()))
    return workers_ms, pg


def _sqlite(admin: str, seconds: float, players: int) -> float:
    """The house phase on SQLite (1 worker), printed; the worker's CPU per round (ms)."""
    lite, rounds, (p50, p99), _ = _house(None, admin, seconds, 1, players)
    lite_ms = sum(_by_thread(lite).values()) * 1000 / rounds / HZ
    print(f"SQLite, 1 worker: {rounds / lite.elapsed:,.0f} rounds/s, p50 {p50:.1f} ms, p99 "
          f"{p99:.1f} ms; the worker's CPU per round {lite_ms:.3f} ms")  # fmt: skip
    return lite_ms


def _reset_statements(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_statements_reset()")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--phase",
        choices=("house", "banked"),
        default="house",
        help="house rounds (bench/server.py) or player-banked (bench/banked.py)",
    )
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--players", type=int, default=16,
                        help="the house phase's accounts, shared by 64 players (16)")  # fmt: skip
    parser.add_argument("--statements", type=int, default=20, help="statements listed (20)")
    parser.add_argument("--sqlite-seconds", type=float, default=5.0,
                        help="the house phase on SQLite (1 worker) after, to compare the "
                        "workers' CPU per round (5; 0: none)")  # fmt: skip
    parser.add_argument("--pgbench-seconds", type=float, default=8.0,
                        help="pgbench's run after the phase (8; 0: none)")  # fmt: skip
    parser.add_argument("--repeat", type=int, default=1,
                        help="the house phase on PostgreSQL then on SQLite, this many times "
                        "alternately: each pair's ratio and their median (1)")  # fmt: skip
    args = parser.parse_args()
    if args.phase == "banked":
        args.repeat = 1
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    import psycopg

    cluster = postgres.Cluster(durable=True)
    cluster.options += " -c shared_preload_libraries=pg_stat_statements"
    cluster.start()
    POSTMASTER[0] = cluster.postmaster_pid()
    try:
        url = postgres.create_database(cluster.url, "breakdown")
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        phase = _house if args.phase == "house" else _banked
        ratios: list[float] = []
        for repeat in range(args.repeat):
            if args.repeat > 1:
                print(f"-- {repeat + 1} of {args.repeat}")
            sample, rounds, (p50, p99), activity = phase(url, cluster.url, args.seconds,
                                                         args.workers, args.players,
                                                         f"breakdown{repeat}x")  # fmt: skip
            workers_ms, pg = _report(args.phase, sample, rounds, p50, p99, activity)
            if args.phase == "house" and args.sqlite_seconds > 0:
                ratios.append(workers_ms / _sqlite(cluster.url, args.sqlite_seconds, args.players))
                print(f"workers' CPU per round, PostgreSQL / SQLite: {ratios[-1]:.2f} (target "
                      f"<= 1.25: {'met' if ratios[-1] <= 1.25 else 'NOT met'})")  # fmt: skip
        if len(ratios) > 1:
            print(f"the {len(ratios)} ratios: {', '.join(f'{r:.2f}' for r in ratios)}; median "
                  f"{statistics.median(ratios):.2f}")  # fmt: skip
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT calls, total_exec_time, mean_exec_time, "
                "left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM pg_stat_statements s "
                "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'breakdown' "
                "ORDER BY total_exec_time DESC LIMIT %s",
                [args.statements],
            ).fetchall()
        print("statements (calls per round, execution ms per round, mean us):")
        for calls, total, mean, query in rows:
            print(f"  {calls / rounds:5.2f} {total / rounds:6.3f} {mean * 1000:8.1f}  {query}")
        if args.pgbench_seconds > 0:
            clients = (server.parser().parse_args([]).concurrency if args.phase == "house"
                       else banked.parser().parse_args([]).seats)  # fmt: skip
            seconds = args.pgbench_seconds
            tps, pg_tx, bench_tx = sampling.pgbench_cpu(cluster.url, clients, seconds,
                                                        POSTMASTER[0])  # fmt: skip
            print(f"pgbench (TPC-B-like, {clients} clients): {tps:,.0f} transactions/s; CPU per "
                  f"transaction: PostgreSQL {pg_tx:.3f} ms, pgbench {bench_tx:.3f} ms; a round "
                  f"costs PostgreSQL {pg / pg_tx:.2f} transactions' CPU")  # fmt: skip
    finally:
        cluster.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
