"""``baccarat serve`` for a benchmark: started on a free loopback port, waited for, stopped.

``serving(data, ...)`` runs the server on the data folder ``data`` with the tables of
``data/tables.toml`` (the caller writes it), on SQLite in the folder or on ``database``
with ``workers`` workers, with the extra environment ``env``; it yields the base URL once
``/api/health`` answers, prints the end of the server's log if the benchmark fails, and
stops the server and its workers at the end.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

START_S = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(
    data: Path, *, database: str | None = None, workers: int = 1,
    env: Mapping[str, str] | None = None,
) -> Iterator[str]:  # fmt: skip
    port = free_port()
    command = [sys.executable, "-c", "import sys; from baccarat.cli import main; sys.exit(main())",
               "serve", "--port", str(port), "--data-dir", str(data),
               "--tables", str(data / "tables.toml")]  # fmt: skip
    if database:
        command += ["--database", database, "--workers", str(workers)]
    environment = os.environ | {"BACCARAT_DATA_DIR": str(data)} | dict(env or {})
    log_path = data / "server.log"
    log = log_path.open("wb")
    # A session of its own: the workers stop with it.
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment,
                               start_new_session=True)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            if process.poll() is not None:
                raise SystemExit(log_path.read_text(errors="replace")[-2000:])
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/api/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        try:
            yield base
        except BaseException:
            print(log_path.read_text(errors="replace")[-3000:], file=sys.stderr)
            raise
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        log.close()
