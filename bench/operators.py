"""Benchmark rounds on an operator's seamless wallet against rounds on our own wallet.

Starts ``baccarat operator-demo`` (the reference operator: its own SQLite wallet, no faults)
and ``baccarat serve`` with it in an operators file, on 127.0.0.1; launches a session for
each of the operator's players, registers and funds as many players of our own; then
drives C concurrent players on ``POST /api/tables/table-i/rounds`` (real money) in both
ways, interleaved, in the same run:

* ``own wallet``: our double-entry ledger, one transaction per round;
* ``operator``: the round's state machine (an outbox) and its calls, signed, over HTTP:
  the bet before the answer, the win after it (the answer does not wait for the win).

It prints rounds/s and the p50/p99 latency of each, the ratio (issue 21: >= 0.5), and the
CPU time each round took in the game server and in the demo operator (from /proc: steadier
than the rates on a machine others are using).
(Named ``operators.py``: a script ``bench/operator.py`` would shadow the standard library's
``operator`` module, which asyncio imports.)

    .venv/bin/python bench/operators.py [--concurrency 32] [--seconds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from baccarat.operator_demo.wallet import PLAYERS
from baccarat.server.wallets.operator.signing import headers, timestamp
from server import HOST, Phase, drive, free_port, fund, http_json, register, report, start_server

OPERATOR, SECRET_ENV = "bench", "BENCH_OPERATOR_SECRET"
SECRET = "a-benchmark-secret-of-enough-length"
BACCARAT = str(Path(sys.executable).with_name("baccarat"))
TARGET = 0.5


def signed(url: str, body: dict) -> dict:
    raw = json.dumps(body).encode()
    answer = httpx.post(url, content=raw, timeout=30, headers={
        "Content-Type": "application/json", **headers(OPERATOR, SECRET, raw)})  # fmt: skip
    answer.raise_for_status()
    return answer.json()


def start_operator(port: int, game_port: int, folder: Path) -> subprocess.Popen[bytes]:
    argv = [BACCARAT, "operator-demo", "--port", str(port), "--game-url",
            f"http://{HOST}:{game_port}", "--operator-id", OPERATOR, "--secret-env",
            SECRET_ENV, "--data-dir", str(folder)]  # fmt: skip
    process = subprocess.Popen(argv, env=os.environ | {SECRET_ENV: SECRET},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if http_json(f"http://{HOST}:{port}/api/health")["ok"]:
                return process
        time.sleep(0.2)
    raise SystemExit("the demo operator did not start")


def operator_sessions(game_port: int, wallet_port: int) -> list[str]:
    tokens = []
    for player in PLAYERS:
        wallet = f"http://{HOST}:{wallet_port}/admin"
        signed(f"{wallet}/balance", {"player": player, "balance": 10**12})
        token = signed(f"{wallet}/session", {"player": player})["token"]
        code = signed(f"http://{HOST}:{game_port}/operator/v1/launch", {
            "request_uuid": str(uuid.uuid4()), "timestamp": timestamp(), "player": player,
            "token": token, "currency": "USD", "language": "en", "demo": False,
        })["code"]  # fmt: skip
        tokens.append(http_json(f"http://{HOST}:{game_port}/api/sessions/launch",
                                {"code": code})["token"])  # fmt: skip
    return tokens


def cpu_s(pid: int) -> float:
    """The CPU time (user and system) a process has used so far, in seconds (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent players (32)")
    parser.add_argument("--seconds", type=float, default=6.0, help="seconds per wallet (6)")
    parser.add_argument("--max-requests", type=int, default=200_000)
    args = parser.parse_args()
    args.database, args.workers = None, 1
    folder = Path(tempfile.mkdtemp(prefix="baccarat-bench-operator-"))
    game_port, wallet_port = free_port(), free_port()
    (folder / "operators.toml").write_text(
        f'[[operator]]\nid = "{OPERATOR}"\nsecret_env = "{SECRET_ENV}"\n'
        f'wallet_url = "http://{HOST}:{wallet_port}/wallet"\ncurrencies = ["USD"]\n'
    )
    os.environ.update({SECRET_ENV: SECRET, "BACCARAT_OPERATORS": str(folder / "operators.toml")})
    demo = start_operator(wallet_port, game_port, folder / "operator")
    server = start_server(args, game_port, folder / "game")
    try:
        tag = f"{os.getpid() % 10_000}x{time.monotonic_ns() % 10**6}"
        own = register(game_port, len(PLAYERS), tag)
        fund(args, folder / "game", len(PLAYERS), tag)
        theirs = operator_sessions(game_port, wallet_port)

        cpu: dict[str, list[float]] = {"own wallet": [0.0, 0.0], "operator": [0.0, 0.0]}

        def run(tokens: list[str], seconds: float, name: str) -> Phase:
            before = cpu_s(server.pid), cpu_s(demo.pid)
            phase = asyncio.run(drive(game_port, "round", tokens, args.concurrency, seconds,
                                      args.max_requests, "real"))  # fmt: skip
            phase.name = name
            if name in cpu:
                cpu[name][0] += cpu_s(server.pid) - before[0]
                cpu[name][1] += cpu_s(demo.pid) - before[1]
            return phase

        for tokens in (own, theirs):  # warm-up
            run(tokens, 1.0, "warm-up")
        phases: dict[str, list[Phase]] = {"own wallet": [], "operator": []}
        for _ in range(2):  # interleaved, so that drift affects both alike
            phases["own wallet"].append(run(own, args.seconds / 2, "own wallet"))
            phases["operator"].append(run(theirs, args.seconds / 2, "operator"))
    finally:
        for process in (server, demo):
            os.killpg(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)
    merged = {name: Phase.merged(name, runs) for name, runs in phases.items()}
    print(f"baccarat operator benchmark: SQLite, 1 worker, {args.concurrency} concurrent "
          f"players, real money on table-i, {args.seconds:.0f} s per wallet, "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    for phase in merged.values():
        print(report(phase))
    for name, (game, wallet) in cpu.items():
        rounds = merged[name].ok or 1
        print(
            f"  {name}: CPU per round {game / rounds * 1000:.2f} ms in the game server, "
            f"{wallet / rounds * 1000:.2f} ms in the demo operator"
        )
    ours, seamless = merged["own wallet"], merged["operator"]
    ratio = seamless.rate / ours.rate if ours.rate else float("nan")
    print(f"ratio operator's wallet / own wallet: {ratio:.2f}")
    print(f"  {'met' if ratio >= TARGET else 'NOT met'}: ratio >= {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
