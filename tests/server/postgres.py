"""A throwaway PostgreSQL cluster for the tests, from the installed server binaries."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REQUIRE = os.environ.get("BACCARAT_REQUIRE_POSTGRES") == "1"
EXTERNAL = os.environ.get("BACCARAT_TEST_POSTGRES_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_postgres(argv: list[str]) -> list[str]:
    """initdb refuses to run as root: run the server binaries as the postgres user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return argv


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a cluster in a temporary folder on a free port; yield its URL; remove it."""
    if EXTERNAL:
        yield EXTERNAL
        return
    bin_dir = _binaries()
    if bin_dir is None:
        raise FileNotFoundError("no PostgreSQL server binaries (initdb) are installed")
    base = Path(tempfile.mkdtemp(prefix="baccarat-pg-"))
    data, sockets = base / "data", base / "run"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
        shutil.chown(sockets, "postgres", "postgres")
    port = free_port()
    log = base / "server.log"
    run: dict[str, Any] = {"check": True, "capture_output": True, "timeout": 120}
    try:
        subprocess.run(
            _as_postgres([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                          "-A", "trust", "-E", "UTF8", "--no-sync"]),
            **run,
        )  # fmt: skip
        options = (
            f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        subprocess.run(
            _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log),
                          "-o", options, "-w", "start"]),
            **run,
        )  # fmt: skip
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                              "-w", "stop"]),
                capture_output=True, timeout=60, check=False,
            )  # fmt: skip
    finally:
        shutil.rmtree(base, ignore_errors=True)


def create_database(admin_url: str, name: str, template: str | None = None) -> str:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        suffix = f' TEMPLATE "{template}"' if template else ""
        conn.execute(f'CREATE DATABASE "{name}"{suffix}')
    head, _, _ = admin_url.rpartition("/")
    return f"{head}/{name}"


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
