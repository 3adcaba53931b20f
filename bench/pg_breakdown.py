"""Where a round's CPU goes on PostgreSQL: one phase of ``bench/server.py``'s house rounds
(64 players at table I, 2 workers) or of ``bench/banked.py``'s player-banked seats
(``--phase banked``: 32 seats) on a durable throwaway cluster with
``pg_stat_statements``, and per round: the CPU of the workers (by thread: the event loop,
the writer threads, the readers), of PostgreSQL's processes and of the load client, and
each statement's calls and execution time as PostgreSQL counts them (a statement's time
includes its waits for row locks).

    .venv/bin/python bench/pg_breakdown.py [--phase house|banked] [--seconds 5] [--workers 2]
        [--statements 20]

Then ``pgbench``'s TPC-B-like transaction on the same cluster with as many clients as the
phase had (``bench/databases.py``'s), and the CPU of PostgreSQL's processes and of pgbench
per transaction, sampled in the middle of its run (``--pgbench-seconds``, 0: none): what
PostgreSQL spends on a round against what it spends on a comparable write transaction.

Thread names come from ``py-spy dump`` when it is installed (the threads are "python" to
the kernel); without it the workers are counted as one.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import banked
import databases
import server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server import postgres  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def _stat(path: str) -> list[str]:
    return Path(path).read_text().rsplit(")", 1)[1].split()


def _ticks(path: str) -> int:
    with contextlib.suppress(OSError, IndexError):
        fields = _stat(path)
        return int(fields[11]) + int(fields[12])
    return 0


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: its parent and its name."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                name = Path(f"/proc/{entry}/comm").read_text().strip()
                found[int(entry)] = (int(_stat(f"/proc/{entry}/stat")[1]), name)
    return found


def _descendants(root: int) -> list[int]:
    table, found = _processes(), [root]
    for _ in range(3):
        found += [pid for pid, (parent, _) in table.items() if parent in found and pid not in found]
    return found


def _threads(pids: list[int]) -> dict[tuple[int, str], int]:
    ticks = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                ticks[(pid, tid)] = _ticks(f"/proc/{pid}/task/{tid}/stat")
    return ticks


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
        self.workers = _descendants(self.server_pid)
        self.database = [pid for pid, (_, name) in _processes().items() if name == "postgres"]
        self.before = _threads(self.workers)
        self.pg_before = {pid: _ticks(f"/proc/{pid}/stat") for pid in self.database}
        self.mine, self.started = os.times(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed, mine = time.perf_counter() - self.started, os.times()
        self.client_s = mine.user - self.mine.user + mine.system - self.mine.system
        self.after = _threads(self.workers)
        self.pg_after = {pid: _ticks(f"/proc/{pid}/stat") for pid in self.database}
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


def _house(url: str, admin: str, seconds: float, workers: int) -> tuple[_Sample, int, list[float]]:
    options = server.parser().parse_args([])
    options.database, options.workers = url, workers
    port = server.free_port()
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-breakdown-"))
    serving = server.start_server(options, port, data_dir)
    try:
        tokens = server.register(port, options.players, "breakdown")
        server.top_up(port, tokens)
        asyncio.run(server.drive(port, "round", tokens, options.concurrency, 2.0, 10**9))
        server.top_up(port, tokens)
        _reset_statements(admin)
        with _Sample(serving.pid) as sample:
            phase = asyncio.run(server.drive(port, "round", tokens, options.concurrency,
                                             seconds, 10**9))  # fmt: skip
    finally:
        os.killpg(serving.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            serving.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)
    return sample, phase.ok, [phase.percentile(50), phase.percentile(99)]


def _banked(url: str, admin: str, seconds: float, workers: int) -> tuple[_Sample, int, list[float]]:
    options = banked.parser().parse_args(["--seconds", str(seconds)])
    options.database, options.workers = url, workers
    with banked.server(options) as base:
        samples: list[_Sample] = []

        def measured() -> _Sample:
            _reset_statements(admin)
            samples.append(_Sample(_serving_pid(int(base.rsplit(":", 1)[1]))))
            return samples[-1]

        found = asyncio.run(banked.run(base, options, measured))
    return samples[0], int(found["rounds"]), [found["p50"], found["p99"]]


def _pgbench_cpu(admin: str, clients: int, seconds: float) -> tuple[float, float, float]:
    """pgbench's TPC-B-like transaction on the cluster with ``clients`` clients for
    ``seconds``: its transactions/s and the CPU per transaction of PostgreSQL's processes and
    of pgbench, sampled from its second second to its last but one (once every client is
    connected, before any has left; the rate from pgbench's own progress lines then)."""
    url = databases.pgbench_init(admin)
    run = subprocess.Popen(
        [databases.pgbench_binary(), "-n", "-c", str(clients), "-j", "2", "-P", "1",
         "-T", str(max(4, round(seconds))), url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    window = max(4, round(seconds)) - 3
    time.sleep(2)
    database = [pid for pid, (_, name) in _processes().items() if name == "postgres"]
    before = {pid: _ticks(f"/proc/{pid}/stat") for pid in [*database, run.pid]}
    time.sleep(window)
    after = {pid: _ticks(f"/proc/{pid}/stat") for pid in [*database, run.pid]}
    _, progress = run.communicate(timeout=120)
    found = re.findall(r"progress: (\d+)\.\d s, ([0-9.]+) tps", progress)
    rates = [float(rate) for at, rate in found if 2 < int(at) <= 2 + window]
    if not rates:
        raise SystemExit(f"pgbench said:\n{progress}")
    tps = sum(rates) / len(rates)
    per = 1000 / HZ / (tps * window)  # ms per transaction of one tick
    pg = sum(after[pid] - before[pid] for pid in database) * per
    return tps, pg, (after[run.pid] - before[run.pid]) * per


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
    parser.add_argument("--statements", type=int, default=20, help="statements listed (20)")
    parser.add_argument("--pgbench-seconds", type=float, default=8.0,
                        help="pgbench's run after the phase (8; 0: none)")  # fmt: skip
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    import psycopg

    cluster = postgres.Cluster(durable=True)
    cluster.options += " -c shared_preload_libraries=pg_stat_statements"
    cluster.start()
    try:
        url = postgres.create_database(cluster.url, "breakdown")
        with psycopg.connect(cluster.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        phase = _house if args.phase == "house" else _banked
        sample, rounds, (p50, p99) = phase(url, cluster.url, args.seconds, args.workers)
        per = 1000 / rounds / HZ  # ms per round of one tick
        by_thread: collections.Counter[str] = collections.Counter()
        for (pid, tid), ticks in sample.after.items():
            name = re.sub(r"[-_]?\d+$", "", sample.names.get(tid, "worker"))
            by_thread[name] += ticks - sample.before.get((pid, tid), 0)
        client = sample.client_s * 1000 / rounds
        pg = sum(ticks - sample.pg_before.get(pid, 0)
                 for pid, ticks in sample.pg_after.items()) * per  # fmt: skip
        workers_ms = sum(by_thread.values()) * per
        elapsed = sample.elapsed
        print(f"{args.phase}: {rounds} rounds in {elapsed:.2f} s: {rounds / elapsed:,.0f} "
              f"rounds/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms")  # fmt: skip
        print(f"CPU per round: workers {workers_ms:.3f} ms, PostgreSQL {pg:.3f} ms, client "
              f"{client:.3f} ms; total {workers_ms + pg + client:.3f} ms against "
              f"{os.cpu_count() or 1} cores x wall / rounds = "
              f"{(os.cpu_count() or 1) * elapsed * 1000 / rounds:.3f} ms")  # fmt: skip
        for name, ticks in by_thread.most_common():
            if ticks:
                print(f"  worker thread {name:<24} {ticks * per:.3f} ms")
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
            tps, pg_tx, bench_tx = _pgbench_cpu(cluster.url, clients, args.pgbench_seconds)
            print(f"pgbench (TPC-B-like, {clients} clients): {tps:,.0f} transactions/s; CPU per "
                  f"transaction: PostgreSQL {pg_tx:.3f} ms, pgbench {bench_tx:.3f} ms; a round "
                  f"costs PostgreSQL {pg / pg_tx:.2f} transactions' CPU")  # fmt: skip
    finally:
        cluster.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
