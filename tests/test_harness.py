"""The harness's servers end with the test process that started them, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from .harness import ROOT, python_path, until

STARTS_ONE = """
import sys, time
from pathlib import Path
from tests.harness import LiveServer, free_port, serve_argv
port, data = free_port(), Path(sys.argv[1])
server = LiveServer(serve_argv(port, data), port, {}, data / "server.log").start()
print(server.process.pid, flush=True)
time.sleep(600)
"""


def running(pid: int) -> bool:
    """Whether the process runs (a zombie no one has reaped yet has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_a_test_process_killed_with_kill_9_takes_its_servers_with_it(tmp_path: Path) -> None:
    env = os.environ | {"PYTHONPATH": python_path(ROOT)}
    server = 0
    with subprocess.Popen(
        [sys.executable, "-c", STARTS_ONE, str(tmp_path)], cwd=ROOT, env=env,
        stdout=subprocess.PIPE, text=True,
    ) as test_process:  # fmt: skip
        try:
            assert test_process.stdout is not None
            server = int(test_process.stdout.readline())
            assert running(server)
            test_process.send_signal(signal.SIGKILL)
            test_process.wait(timeout=30)
            until(lambda: not running(server), "the server ends with the process that started it")
        finally:
            test_process.kill()
            if server and running(server):
                os.killpg(server, signal.SIGKILL)
