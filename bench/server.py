"""Benchmark the game server: settled rounds per second and latency under concurrent players.

Starts ``baccarat serve`` (a subprocess on 127.0.0.1, a fresh SQLite data folder unless
--database is given), registers players, then drives C concurrent players (keep-alive
connections from a minimal asyncio HTTP/1.1 client, so the client costs little) for a
bounded time and number of requests against two endpoints, side by side in the same run:

* ``POST /api/tables/table-i/rounds``: a real round (fair shuffle of 6 decks, deal, settle,
  ledger, round record), each with its own Idempotency-Key;
* ``POST /api/tables/deluxe/rounds`` with side bets on every round (Banker, the four pair
  bets, both Dragon Bonus bets and Big: nine bets settled against the cards);
* ``POST /api/bench/commit``: the bare endpoint: the same body, headers, authentication and
  idempotency lookup, and one committed write through the same writer, without the game.

It prints rounds/s, p50 and p99 latency, the bare endpoint's figures, and the ratios.
Targets (issue 5): ratio >= 0.5; >= 1,500 settled rounds/s on SQLite with one worker;
p99 <= 50 ms at 64 concurrent players.

    .venv/bin/python bench/server.py [--concurrency 64] [--seconds 5] [--players 16]
        [--mode fun|real]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"
MAX_REQUESTS = 200_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def http_json(url: str, body: dict | None = None, headers: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json"} | (headers or {})
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"null")


def top_up(port: int, tokens: list[str]) -> None:
    """Bring every bench account's play money back up to 1,000.00."""
    for i, token in enumerate(tokens):
        headers = {
            "Authorization": f"Bearer {token}",
            "Idempotency-Key": f"top-up-{i}-{time.time_ns()}",
        }
        http_json(f"http://{HOST}:{port}/api/wallet/fun/top-up", {}, headers)


@dataclass
class Phase:
    name: str
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    elapsed: float = 0.0

    @property
    def ok(self) -> int:
        return self.statuses.get(201, 0)

    @property
    def rate(self) -> float:
        return self.ok / self.elapsed if self.elapsed else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000

    @classmethod
    def merged(cls, name: str, phases: list[Phase]) -> Phase:
        """One phase of all these runs: their latencies, answers and time together."""
        total = cls(name)
        for phase in phases:
            total.latencies += phase.latencies
            total.elapsed += phase.elapsed
            for status, count in phase.statuses.items():
                total.statuses[status] = total.statuses.get(status, 0) + count
        return total


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("the server closed the connection")
    status = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return status, await reader.readexactly(length)


# The deluxe table's side bets at their minimums, and its minimum Banker bet (cents).
SIDE_BETS = {
    "banker": 500,
    "player_pair": 100,
    "banker_pair": 100,
    "either_pair": 100,
    "perfect_pair": 100,
    "player_dragon": 100,
    "banker_dragon": 100,
    "big": 500,
}
ENDPOINTS = {
    "bare commit": ("/api/bench/commit", {"banker": 200}),
    "round": ("/api/tables/table-i/rounds", {"banker": 200}),
    "side bets": ("/api/tables/deluxe/rounds", SIDE_BETS),
}


async def drive(
    port: int,
    label: str,
    tokens: list[str],
    concurrency: int,
    seconds: float,
    budget: int,
    mode: str = "fun",
) -> Phase:
    path, bets = ENDPOINTS[label]
    body = json.dumps({"mode": mode, "bets": bets}).encode()
    keys = itertools.count()
    phase = Phase(label)
    tag = f"{label.replace(' ', '-')}-{time.monotonic_ns()}"
    remaining = [budget]
    deadline = time.perf_counter() + seconds

    async def player(index: int) -> None:
        token = tokens[index % len(tokens)]
        reader, writer = await asyncio.open_connection(HOST, port)
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        )
        try:
            while time.perf_counter() < deadline and remaining[0] > 0:
                remaining[0] -= 1
                request = f"{head}Idempotency-Key: {tag}-{index}-{next(keys)}\r\n\r\n".encode()
                started = time.perf_counter()
                writer.write(request + body)
                status, answer = await read_answer(reader)
                phase.latencies.append(time.perf_counter() - started)
                phase.statuses[status] = phase.statuses.get(status, 0) + 1
                if status >= 500:
                    raise RuntimeError(f"server error {status}: {answer[:200]!r}")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    started = time.perf_counter()
    await asyncio.gather(*(player(i) for i in range(concurrency)))
    phase.elapsed = time.perf_counter() - started
    return phase


def start_server(args: argparse.Namespace, port: int, data_dir: Path) -> subprocess.Popen[bytes]:
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    argv = [baccarat, "serve", "--host", HOST, "--port", str(port)]
    if args.database:
        argv += ["--database", args.database, "--workers", str(args.workers)]
    else:
        argv += ["--data-dir", str(data_dir)]
    env = os.environ | {
        "BACCARAT_BENCH": "1",
        "BACCARAT_REGISTRATIONS_PER_HOUR": "100000",
        "BACCARAT_WEB_DIR": str(data_dir / "no-web"),
    }
    server = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if http_json(f"http://{HOST}:{port}/api/health")["status"] == "ok":
                return server
        if server.poll() is not None:
            raise SystemExit("the server did not start")
        time.sleep(0.2)
    os.killpg(server.pid, signal.SIGTERM)
    raise SystemExit("the server did not answer within 60 s")


@contextlib.contextmanager
def serving(args: argparse.Namespace, prefix: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A server of ``args`` (``start_server``) on a free port, stopped and its data folder
    removed after the block: the process and its port."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    port = free_port()
    process = start_server(args, port, data_dir)
    try:
        yield process, port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)


def register(port: int, players: int, tag: str) -> list[str]:
    tokens = []
    for i in range(players):
        body = {"nickname": f"bench{tag}{i}", "password": "benchmark password"}
        http_json(f"http://{HOST}:{port}/api/accounts", body)
        tokens.append(http_json(f"http://{HOST}:{port}/api/sessions", body)["token"])
    return tokens


def fund(args: argparse.Namespace, data_dir: Path, players: int, tag: str) -> None:
    """Real mode: an operator deposit for every bench player (``baccarat admin deposit``)."""
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    where = ["--database", args.database] if args.database else ["--data-dir", str(data_dir)]
    for i in range(players):
        subprocess.run(
            [baccarat, "admin", *where, "deposit", f"bench{tag}{i}", "10000000.00"],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip


def report(phase: Phase) -> str:
    other = {k: v for k, v in phase.statuses.items() if k != 201}
    return (
        f"{phase.name:<13} {phase.rate:8.0f}/s   p50 {phase.percentile(50):6.1f} ms   "
        f"p90 {phase.percentile(90):6.1f} ms   p99 {phase.percentile(99):6.1f} ms   "
        f"max {phase.percentile(100):6.1f} ms   ({phase.ok} in {phase.elapsed:.1f} s"
        f"{', other answers ' + str(other) if other else ''})"
    )


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=64, help="concurrent players (64)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per phase (5)")
    parser.add_argument("--players", type=int, default=16, help="accounts they share (16)")
    parser.add_argument("--max-requests", type=int, default=MAX_REQUESTS)
    parser.add_argument("--database", help="postgresql://... instead of a fresh SQLite file")
    parser.add_argument("--workers", type=int, default=2, help="workers with --database (2)")
    parser.add_argument(
        "--mode", choices=("fun", "real"), default="fun",
        help="the rounds' money: fun, or real (deposited first; responsible-gaming checks run)",
    )  # fmt: skip
    return parser


def measure(
    args: argparse.Namespace, endpoints: tuple[str, ...] = tuple(ENDPOINTS)
) -> dict[str, Phase]:
    """Start a server and drive it: each endpoint's phase (measured twice, interleaved)."""
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-bench-"))
    port = free_port()
    server = start_server(args, port, data_dir)
    # Short (nicknames have at most 24 characters) and new in every run on one database.
    tag = f"{os.getpid() % 10_000}x{time.monotonic_ns() % 10**6}"
    try:
        tokens = register(port, args.players, tag)
        if args.mode == "real":
            fund(args, data_dir, args.players, tag)

        def run(label: str, seconds: float) -> Phase:
            if args.mode == "fun":
                # Every phase starts at 1,000.00 of play money: side bets at their minimums
                # stake 14.00 a round, and accounts run dry (409) late in a long run.
                top_up(port, tokens)
            return asyncio.run(
                drive(port, label, tokens, args.concurrency, seconds, args.max_requests, args.mode)
            )

        for label in endpoints:  # warm-up
            run(label, 1.0)
        phases = []
        # Interleaved, twice each, so that drift (disk, CPU) affects all alike.
        for _ in range(2):
            for label in endpoints:
                phases.append(run(label, args.seconds / 2))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)
    return {
        label: Phase.merged(label, [p for p in phases if p.name == label]) for label in endpoints
    }


def main() -> int:
    args = parser().parse_args()
    merged = measure(args)
    backend = (
        "PostgreSQL, " + str(args.workers) + " workers" if args.database else "SQLite, 1 worker"
    )
    print(
        f"baccarat server benchmark: {backend}, {args.concurrency} concurrent players "
        f"on {args.players} accounts, {args.mode} money, {args.seconds:.0f} s per endpoint, "
        f"{os.cpu_count()} CPUs"
    )
    bare, rounds, side = merged.values()
    for phase in merged.values():
        print(report(phase))
    ratio = rounds.rate / bare.rate if bare.rate else float("nan")
    side_ratio = side.rate / bare.rate if bare.rate else float("nan")
    print(f"ratio rounds / bare commits: {ratio:.2f}")
    print(f"ratio rounds with side bets / bare commits: {side_ratio:.2f}")
    checks = [
        ("ratio >= 0.5", ratio >= 0.5),
        ("ratio with side bets >= 0.5", side_ratio >= 0.5),
        ("settled rounds/s >= 1500 (SQLite, 1 worker)", rounds.rate >= 1500),
        (f"p99 <= 50 ms at {args.concurrency} players", rounds.percentile(99) <= 50),
    ]
    for label, met in checks:
        print(f"  {'met' if met else 'NOT met'}: {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
