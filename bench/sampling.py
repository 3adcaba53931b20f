"""What the benchmarks sample while a phase runs: processes' CPU from ``/proc`` (a process's
ticks, its threads', a process tree's), and PostgreSQL's sessions from ``pg_stat_activity``
(their state, what they wait on, their statement), with pgbench's run and CPU beside them.
Used by ``bench/pg_breakdown.py`` and ``bench/scale.py``."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import databases

HZ = os.sysconf("SC_CLK_TCK")


def _stat(path: str) -> list[str]:
    return Path(path).read_text().rsplit(")", 1)[1].split()


def ticks(path: str) -> int:
    """User and system ticks of a ``/proc/.../stat`` (0 if it is gone)."""
    with contextlib.suppress(OSError, IndexError):
        fields = _stat(path)
        return int(fields[11]) + int(fields[12])
    return 0


def thread_use(pid: int, tid: str) -> tuple[int, int, int]:
    """A thread's user ticks, system ticks and voluntary context switches (each a time it
    waited: for a lock, the GIL, a socket, another thread's work; zeros if it is gone)."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = _stat(f"/proc/{pid}/task/{tid}/stat")
        status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        switches = status.split("voluntary_ctxt_switches:", 1)[1].split()[0]
        return int(fields[11]), int(fields[12]), int(switches)
    return 0, 0, 0


def processes() -> dict[int, tuple[int, str]]:
    """Every process: its parent and its name."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError):
                name = Path(f"/proc/{entry}/comm").read_text().strip()
                found[int(entry)] = (int(_stat(f"/proc/{entry}/stat")[1]), name)
    return found


def descendants(root: int) -> list[int]:
    """``root`` and its children, down three generations."""
    table, found = processes(), [root]
    for _ in range(3):
        found += [pid for pid, (parent, _) in table.items() if parent in found and pid not in found]
    return found


def postgres_pids(postmaster: int | None = None) -> list[int]:
    """The processes of the cluster whose postmaster is ``postmaster`` (its backends are its
    children), or without one every process named postgres (on a machine shared with other
    clusters, their CPU counts too)."""
    if postmaster is not None:
        return descendants(postmaster)
    return [pid for pid, (_, name) in processes().items() if name == "postgres"]


def total_ticks(pids: list[int]) -> int:
    return sum(ticks(f"/proc/{pid}/stat") for pid in pids)


class Activity:
    """``pg_stat_activity`` sampled every ``every_s`` in a thread while in the block: per
    sample, each client session of ``database`` that is not idle (outside a transaction),
    counted by its state, what it waits on and its statement's first words."""

    def __init__(self, admin_url: str, database: str, every_s: float = 0.25) -> None:
        self.admin_url, self.database, self.every_s = admin_url, database, every_s
        self.samples = 0
        self.seen: collections.Counter[tuple[str, str, str]] = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pg-activity", daemon=True)

    def __enter__(self) -> Activity:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self._stop.wait(self.every_s):
                rows = conn.execute(
                    "SELECT state, coalesce(wait_event_type || ':' || wait_event, 'CPU'), "
                    "left(regexp_replace(query, '\\s+', ' ', 'g'), 60) FROM pg_stat_activity "
                    "WHERE datname = %s AND backend_type = 'client backend' "
                    "AND state IS NOT NULL AND state <> 'idle'",
                    [self.database],
                ).fetchall()
                self.samples += 1
                self.seen.update((str(s), str(w), str(q)) for s, w, q in rows)

    def in_state(self, state: str) -> int:
        return sum(n for (s, _, _), n in self.seen.items() if s == state)

    def mean_in_state(self, state: str) -> float:
        """Sessions in ``state`` on average in a sample: times the phase's wall time over its
        transactions, the time each spends in it (Little's law)."""
        return self.in_state(state) / self.samples if self.samples else 0.0

    def report(self, most: int = 6) -> list[str]:
        """The commonest (state, wait, statement) as shares of the sessions seen busy."""
        total = sum(self.seen.values())
        if not total:
            return [f"no busy session in {self.samples} samples"]
        lines = [f"{self.samples} samples, {total / self.samples:.1f} busy sessions a sample:"]
        for (state, wait, query), n in self.seen.most_common(most):
            lines.append(f"  {100 * n / total:4.0f}%  {state:<20} {wait:<22} {query}")
        return lines


def pgbench_cpu(admin: str, clients: int, seconds: float, postmaster: int | None = None
                ) -> tuple[float, float, float]:  # fmt: skip
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
    database = postgres_pids(postmaster)
    before = {pid: ticks(f"/proc/{pid}/stat") for pid in [*database, run.pid]}
    time.sleep(window)
    after = {pid: ticks(f"/proc/{pid}/stat") for pid in [*database, run.pid]}
    _, progress = run.communicate(timeout=120)
    found = re.findall(r"progress: (\d+)\.\d s, ([0-9.]+) tps", progress)
    rates = [float(rate) for at, rate in found if 2 < int(at) <= 2 + window]
    if not rates:
        raise SystemExit(f"pgbench said:\n{progress}")
    tps = sum(rates) / len(rates)
    per = 1000 / HZ / (tps * window)  # ms per transaction of one tick
    pg = sum(after[pid] - before[pid] for pid in database) * per
    return tps, pg, (after[run.pid] - before[run.pid]) * per
