"""Benchmark: what one abusive client costs a logged-in player and an anonymous visitor.

Starts ``baccarat serve`` (a subprocess on 127.0.0.1, a fresh SQLite data folder, the
default limits: 1,000 connections a worker, 100 an address), then, side by side in one run,
measures for ``--seconds`` each phase:

* the player: one logged-in player playing rounds one after another (``POST
  /api/tables/table-i/rounds``) on a keep-alive connection (opened again if the server
  closes it), from 127.0.0.1: rounds answered 201, p50 and p99, and the other answers;
* the visitor: an anonymous visitor asking ``GET /api/tables`` on a new connection ten times
  a second, from 127.0.0.200: how many were answered 200, p50, and how long connecting took
  (p50 and the slowest: a connection the server's listen queue had no room for waits for
  the client to send its SYN again, a second later);

alone, and under each attack (in another process, so that its own work does not slow the
measuring client; it keeps its connections up, opening a new one as the server closes one,
and starts ``--ramp`` seconds before the measures):

* ``connections`` (issue 43, item 5): 11 client addresses (127.0.0.2-12) each holding 100
  connections, just under the per-address limit: a third idle TCP, a third slowloris heads
  (a header line a second), a third anonymous table WebSockets (``/api/tables/speed/ws``);
* ``reads`` (item 7): one address's 50 keep-alive connections asking ``GET /openapi.json``
  and ``GET /api/tables`` in a loop, never waiting for a refusal's Retry-After;
* ``messages`` (item 7): one address's 50 anonymous table WebSockets sending 8 KiB messages
  in a loop.

It prints each phase's figures and what the attack held or got through: the most
connections (and WebSockets) it held open at once, its reads answered and refused.

    .venv/bin/python bench/abuse.py [--seconds 5] [--ramp 3] [--phases connections,reads,messages]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server import HOST, free_port, http_json, read_answer, register, start_server, top_up

PLAYER, VISITOR = "127.0.0.1", "127.0.0.200"
ANSWER_TIMEOUT_S = 5.0
PHASES = ("connections", "reads", "messages")


@dataclass
class Measure:
    """Answers of one client in one phase, and the latencies (seconds) of its successes."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    connects: list[float] = field(default_factory=list)  # how long each connection took

    def count(self, status: int | str, latency: float) -> None:
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1
        if status in (200, 201):
            self.latencies.append(latency)

    def ok(self, status: str) -> int:
        return self.statuses.get(status, 0)

    def percentile(self, p: float, of: list[float] | None = None) -> float:
        chosen = sorted(self.latencies if of is None else of)
        if not chosen:
            return float("nan")
        return chosen[min(len(chosen) - 1, int(p / 100 * len(chosen)))] * 1000


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> int | str:
    """One request's status; "closed" or "timeout" when no answer came."""
    try:
        writer.write(request)
        async with asyncio.timeout(ANSWER_TIMEOUT_S):
            status, _ = await read_answer(reader)
        return status
    except TimeoutError:
        return "timeout"
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
        return "closed"


async def play(port: int, token: str, seconds: float) -> Measure:
    """Rounds one after another on a keep-alive connection, opened again when it fails."""
    measure, body = Measure(), b'{"mode": "fun", "bets": {"banker": 200}}'
    head = (f"POST /api/tables/table-i/rounds HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n")  # fmt: skip
    deadline, connection, n = time.perf_counter() + seconds, None, 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        if connection is None:
            try:
                connection = await asyncio.wait_for(asyncio.open_connection(
                    HOST, port, local_addr=(PLAYER, 0)), ANSWER_TIMEOUT_S)  # fmt: skip
            except (OSError, TimeoutError):
                measure.count("refused", time.perf_counter() - started)
                await asyncio.sleep(0.05)
                continue
        n += 1
        key = f"Idempotency-Key: abuse-{os.getpid()}-{time.monotonic_ns()}-{n}\r\n\r\n"
        status = await exchange(*connection, (head + key).encode() + body)
        measure.count(status, time.perf_counter() - started)
        if status != 201:
            connection[1].close()
            connection = None
            await asyncio.sleep(0.05)
    if connection is not None:
        connection[1].close()
    return measure


async def visit(port: int, seconds: float) -> Measure:
    """``GET /api/tables`` on a new connection ten times a second."""
    measure = Measure()
    request = f"GET /api/tables HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(
                HOST, port, local_addr=(VISITOR, 0)), ANSWER_TIMEOUT_S)  # fmt: skip
        except (OSError, TimeoutError):
            measure.count("refused", time.perf_counter() - started)
        else:
            measure.connects.append(time.perf_counter() - started)
            measure.count(await exchange(reader, writer, request), time.perf_counter() - started)
            writer.close()
        await asyncio.sleep(max(0.0, 0.1 - (time.perf_counter() - started)))
    return measure


# -- the attacks (in their own process) -----------------------------------------------------


class Held:
    """What an attack holds and got: connections open now and at most, answers."""

    def __init__(self) -> None:
        self.open = self.most = self.sockets = self.most_sockets = 0
        self.got: dict[str, int] = {}

    def opened(self, socket: bool = False) -> None:
        self.open += 1
        self.most = max(self.most, self.open)
        if socket:
            self.sockets += 1
            self.most_sockets = max(self.most_sockets, self.sockets)

    def closed(self, socket: bool = False) -> None:
        self.open -= 1
        if socket:
            self.sockets -= 1

    def note(self, what: str) -> None:
        self.got[what] = self.got.get(what, 0) + 1


async def slot(kind: str, port: int, source: str, held: Held) -> None:
    """One connection of the attack, opened again whenever the server closes it."""
    while True:
        try:
            if kind == "idle" or kind == "slowloris":
                reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
                held.opened()
                try:
                    if kind == "slowloris":
                        writer.write(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n".encode())
                        while True:
                            await asyncio.sleep(1)
                            writer.write(b"X-a: b\r\n")
                            await writer.drain()
                    data = await reader.read(65536)
                    held.note("answered" if data else "closed")
                    await reader.read()  # until the server closes it
                finally:
                    held.closed()
                    writer.close()
            elif kind in ("socket", "messages"):
                await websocket(kind == "messages", port, source, held)
            else:
                await reads(port, source, held)
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as error:
            held.note(type(error).__name__)
        except Exception as error:  # the websockets client's refusals and closes
            held.note(type(error).__name__)
        await asyncio.sleep(0.05)


async def websocket(sending: bool, port: int, source: str, held: Held) -> None:
    from websockets.asyncio.client import connect

    url = f"ws://{HOST}:{port}/api/tables/speed/ws"
    async with connect(url, local_addr=(source, 0), open_timeout=10, max_size=None,
                       ping_interval=None, compression=None) as ws:  # fmt: skip
        held.opened(socket=True)
        try:
            if not sending:
                async for _ in ws:
                    pass
                return
            message = json.dumps({"action": "ping", "pad": "x" * (8 * 1024 - 40)})
            reading = asyncio.create_task(_drain(ws))
            try:
                while True:
                    await ws.send(message)
                    held.note("message")
            finally:
                reading.cancel()
        finally:
            held.closed(socket=True)


async def _drain(ws: Any) -> None:
    async for _ in ws:
        pass


async def reads(port: int, source: str, held: Held) -> None:
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
    held.opened()
    try:
        paths = ("/openapi.json", "/api/tables")
        n = 0
        while True:
            n += 1
            request = f"GET {paths[n % 2]} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
            writer.write(request)
            status, _ = await read_answer(reader)
            held.note(str(status))
    finally:
        held.closed()
        writer.close()


def attack(kind: str, port: int, stop: Any, results: Any) -> None:
    """The attack ``kind`` until ``stop`` is set; what it held goes to ``results``."""

    async def run() -> Held:
        held = Held()
        if kind == "connections":
            slots = [(("idle", "slowloris", "socket")[i % 3], f"127.0.0.{a}")
                     for a in range(2, 13) for i in range(100)]  # fmt: skip
        elif kind == "reads":
            slots = [("reads", "127.0.0.30")] * 50
        else:
            slots = [("messages", "127.0.0.31")] * 50
        tasks = [asyncio.create_task(slot(k, port, source, held)) for k, source in slots]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return held

    held = asyncio.run(run())
    results.put({"most": held.most, "most_sockets": held.most_sockets, "got": held.got})


# -- the run --------------------------------------------------------------------------------


def phase(port: int, token: str, kind: str | None, args: argparse.Namespace) -> dict[str, Any]:
    top_up(port, [token])
    stop, results = multiprocessing.Event(), multiprocessing.Queue()
    attacker = None
    if kind is not None:
        attacker = multiprocessing.Process(target=attack, args=(kind, port, stop, results))
        attacker.start()
        time.sleep(args.ramp)

    async def both() -> tuple[Measure, Measure]:
        return await asyncio.gather(play(port, token, args.seconds), visit(port, args.seconds))

    player, visitor = asyncio.run(both())
    held = None
    if attacker is not None:
        stop.set()
        held = results.get(timeout=60)
        attacker.join(timeout=30)
        time.sleep(args.ramp)  # the server closes what the attack left
    return {"kind": kind or "alone", "player": player, "visitor": visitor, "held": held}


def report(result: dict[str, Any]) -> list[str]:
    player, visitor = result["player"], result["visitor"]
    other = {k: v for k, v in player.statuses.items() if k != "201"}
    lines = [
        f"{result['kind']:<12} player: {player.ok('201'):5d} rounds, p50 "
        f"{player.percentile(50):7.1f} ms, p99 {player.percentile(99):7.1f} ms"
        f"{', other answers ' + str(other) if other else ''}",
        f"{'':<12} visitor: {visitor.ok('200')} of {sum(visitor.statuses.values())} "
        f"answered 200 (p50 {visitor.percentile(50):.1f} ms, of which connecting "
        f"{visitor.percentile(50, visitor.connects):.1f} ms; the slowest connection "
        f"{visitor.percentile(100, visitor.connects):.0f} ms) {visitor.statuses}",
    ]
    held = result["held"]
    if held is not None:
        lines.append(
            f"{'':<12} attack: held at most {held['most']} connections "
            f"({held['most_sockets']} WebSockets) at once; got {held['got']}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per phase (5)")
    parser.add_argument("--ramp", type=float, default=3.0, help="attack's head start (3)")
    parser.add_argument("--phases", default=",".join(PHASES), help=",".join(PHASES))
    args = parser.parse_args()
    args.database = None
    kinds = [k for k in args.phases.split(",") if k]
    assert set(kinds) <= set(PHASES), kinds
    data_dir = Path(tempfile.mkdtemp(prefix="baccarat-abuse-"))
    port = free_port()
    server = start_server(args, port, data_dir)
    try:
        token = register(port, 1, f"abuse{os.getpid()}")[0]
        http_json(f"http://{HOST}:{port}/api/health")
        results = [phase(port, token, None, args)]
        for kind in kinds:
            results.append(phase(port, token, kind, args))
        results.append(phase(port, token, None, args))  # alone again: drift
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)
    print(
        f"baccarat abuse benchmark: SQLite, 1 worker, default limits, {os.cpu_count()} CPUs, "
        f"{args.seconds:.0f} s a phase (the attack started {args.ramp:.0f} s before)"
    )
    for result in results:
        print("\n".join(report(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
