"""Benchmark: do other players' rounds stay fast while one large account hammers the
endpoints whose cost grows with an account (revealed seeds, history without a mode, the
history export)?

Starts ``baccarat serve`` (a subprocess on 127.0.0.1, a fresh SQLite data folder), gives one
"heavy" player many rounds (``--heavy-rounds``) spread over many revealed seeds (as many
rotations as the hourly limit allows), then, side by side in one run and interleaved twice:

* "alone": C other players play rounds (``POST /api/tables/table-i/rounds``) for S seconds;
* "heavy caller": the same, while the heavy player runs H loops that each fetch
  ``GET /api/fairness/seeds``, ``GET /api/history`` (no mode, 200 rounds), the roads of
  table I (``GET /api/tables/table-i/roads``) and the whole ``GET /api/history/export``,
  over and over, without ever waiting for a refusal's Retry-After.

It prints the other players' rounds/s, p50 and p99 for both phases and their ratio (target:
throughput with the heavy caller at least 0.7x of without), and what the heavy caller got
through.

    .venv/bin/python bench/heavy.py [--heavy-rounds 10000] [--concurrency 16] [--seconds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from server import HOST, Phase, drive, free_port, http_json, register, report, start_server

ROTATIONS = 30  # the hourly limit on rotations
TARGET = 0.7  # other players' throughput with the heavy caller, against without


async def heavy_caller(port: int, token: str, loops: int, stop: asyncio.Event) -> dict[str, int]:
    """Hammer the account-sized endpoints until ``stop``; how many of each answered."""
    counts = {"seeds": 0, "history": 0, "roads": 0, "export": 0, "export_bytes": 0,
              "refused": 0}  # fmt: skip
    headers = {"Authorization": f"Bearer {token}"}

    async def loop(client: httpx.AsyncClient) -> None:
        while not stop.is_set():
            for name, path in (("seeds", "/api/fairness/seeds?mode=fun"),
                               ("history", "/api/history?limit=200"),
                               ("roads", "/api/tables/table-i/roads?mode=fun")):  # fmt: skip
                answer = await client.get(path, headers=headers)
                counts[name if answer.status_code == 200 else "refused"] += 1
            async with client.stream("GET", "/api/history/export", headers=headers) as answer:
                async for chunk in answer.aiter_bytes():
                    counts["export_bytes"] += len(chunk)
                    if stop.is_set():
                        break
            counts["export" if answer.status_code == 200 else "refused"] += 1

    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=120) as client:
        await asyncio.gather(*(loop(client) for _ in range(loops)))
    return counts


async def with_heavy(
    port: int, tokens: list[str], heavy: str, args: argparse.Namespace
) -> tuple[Phase, dict[str, int]]:
    stop = asyncio.Event()
    caller = asyncio.create_task(heavy_caller(port, heavy, args.heavy_loops, stop))
    await asyncio.sleep(0.5)  # the heavy caller is under way before the players start
    phase = await drive(port, "round", tokens, args.concurrency, args.seconds / 2, 10**6)
    stop.set()
    return phase, await caller


def build_heavy_account(port: int, token: str, rounds: int) -> None:
    """``rounds`` rounds over ROTATIONS revealed seeds (and the current one)."""
    per_seed = max(1, rounds // (ROTATIONS + 1))
    headers = {"Authorization": f"Bearer {token}"}
    for i in range(ROTATIONS + 1):
        asyncio.run(drive(port, "round", [token], 8, 3600, per_seed))
        if i < ROTATIONS:
            http_json(f"http://{HOST}:{port}/api/fairness/rotate", {"mode": "fun"},
                      headers | {"Idempotency-Key": f"rotate-{i}"})  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--heavy-rounds", type=int, default=10_000, help="(10000)")
    parser.add_argument("--heavy-loops", type=int, default=4, help="heavy caller loops (4)")
    parser.add_argument("--concurrency", type=int, default=16, help="other players (16)")
    parser.add_argument("--players", type=int, default=16, help="their accounts (16)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per phase (6)")
    args = parser.parse_args()
    args.database = None
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-heavy-"))
    port = free_port()
    server = start_server(args, port, data_dir)
    try:
        heavy = register(port, 1, f"heavy{os.getpid()}")[0]
        started = time.perf_counter()
        build_heavy_account(port, heavy, args.heavy_rounds)
        built = time.perf_counter() - started
        tokens = register(port, args.players, str(os.getpid()))
        asyncio.run(drive(port, "round", tokens, args.concurrency, 1.0, 10**6))
        alone, loaded, got = [], [], []
        for _ in range(2):  # interleaved, so that drift affects both alike
            quiet_run = drive(port, "round", tokens, args.concurrency, args.seconds / 2, 10**6)
            alone.append(asyncio.run(quiet_run))
            phase, counts = asyncio.run(with_heavy(port, tokens, heavy, args))
            loaded.append(phase)
            got.append(counts)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)
    quiet, busy = Phase.merged("alone", alone), Phase.merged("heavy caller", loaded)
    print(
        f"baccarat heavy-caller benchmark: SQLite, 1 worker, {os.cpu_count()} CPUs; "
        f"the heavy account has {args.heavy_rounds} rounds over {ROTATIONS} revealed seeds "
        f"(built in {built:.0f} s); {args.concurrency} other players, "
        f"{args.seconds:.0f} s per phase"
    )
    print(report(quiet))
    print(report(busy))
    totals = {k: sum(c[k] for c in got) for k in got[0]}
    print(
        f"the heavy caller ({args.heavy_loops} loops) meanwhile: {totals['seeds']} seed lists, "
        f"{totals['history']} history pages, {totals['roads']} roads, {totals['export']} exports "
        f"({totals['export_bytes'] / 1e6:.1f} MB), {totals['refused']} refused"
    )
    ratio = busy.percentile(99) / quiet.percentile(99)
    print(f"other players' p99 with / without the heavy caller: {ratio:.2f}")
    throughput = busy.rate / quiet.rate
    print(f"other players' rounds/s with / without: {throughput:.2f}")
    print(f"  {'met' if throughput >= TARGET else 'NOT met'}: throughput ratio >= {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
