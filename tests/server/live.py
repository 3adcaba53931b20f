"""Real server processes on 127.0.0.1 for the concurrency, crash and fuzz tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from .postgres import free_port

ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 60


def python_path(*first: Path) -> str:
    """A server's PYTHONPATH: ``first``, then the package of this checkout (``src``) before
    any installed one (a worktree's tests start this worktree's server)."""
    return os.pathsep.join(str(p) for p in (*first, ROOT / "src", ROOT))


class LiveServer:
    """A server process; ``url`` once it answers /api/health."""

    def __init__(self, argv: list[str], port: int, env: dict[str, str], log: Path):
        self.argv, self.port, self.log_path = argv, port, log
        self.env = os.environ | {"PYTHONPATH": python_path()} | env
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LiveServer:
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            self.argv, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log_path.read_text()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not start: {self.log_path.read_text()[-2000:]}")

    def kill(self) -> None:
        """kill -9 the server and its workers (its whole process group)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        with contextlib.suppress(Exception):
            self.log.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        with contextlib.suppress(Exception):
            self.log.close()


@contextlib.contextmanager
def live(
    argv: list[str], env: dict[str, str], log: Path, port: int | None = None
) -> Iterator[LiveServer]:
    server = LiveServer(argv, port or free_port(), env, log)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def uvicorn_argv(factory: str, port: int, workers: int = 1) -> list[str]:
    return [sys.executable, "-m", "uvicorn", factory, "--factory", "--host", "127.0.0.1",
            "--port", str(port), "--workers", str(workers), "--no-access-log"]  # fmt: skip


def serve_argv(port: int, data_dir: Path) -> list[str]:
    """The real command a player or operator runs."""
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    return [baccarat, "serve", "--port", str(port), "--data-dir", str(data_dir)]
