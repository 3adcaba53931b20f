"""A throwaway PostgreSQL cluster for the tests, from the installed server binaries."""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..harness import free_port, until

REQUIRE = os.environ.get("BACCARAT_REQUIRE_POSTGRES") == "1"
EXTERNAL = os.environ.get("BACCARAT_TEST_POSTGRES_URL")


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


def _exists(pid: int) -> bool:
    """A process of this id exists (a zombie too: until it is reaped, a new postmaster takes
    the old one's lock file for a live one's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _attached(shmid: int) -> int:
    """How many processes are attached to this System V shared memory segment."""
    for line in Path("/proc/sysvipc/shm").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1]) == shmid:
            return int(fields[6])
    return 0


class Cluster:
    """A PostgreSQL cluster in a temporary folder on a free loopback port.

    ``durable=False`` (the tests' default) turns fsync and synchronous commits off: fast,
    and nothing there needs to survive the machine. ``durable=True`` keeps PostgreSQL's
    defaults (fsync, synchronous_commit, full_page_writes on): what the benchmark and the
    crash tests of the database itself need.
    """

    def __init__(self, *, durable: bool = False, max_connections: int = 200):
        bin_dir = _binaries()
        if bin_dir is None:
            raise FileNotFoundError("no PostgreSQL server binaries (initdb) are installed")
        self.bin_dir = bin_dir
        self.base = Path(tempfile.mkdtemp(prefix="baccarat-pg-"))
        self.data, self.sockets, self.log = self.base / "data", self.base / "run", self.base / "log"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        options = [f"-p {self.port}", f"-k {self.sockets}", "-c listen_addresses=127.0.0.1",
                   f"-c max_connections={max_connections}"]  # fmt: skip
        if not durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self.options = " ".join(options)
        self.sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
            shutil.chown(self.sockets, "postgres", "postgres")
        subprocess.run(
            _as_postgres([str(bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres",
                          "-A", "trust", "-E", "UTF8", "--no-sync"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip

    def _pg_ctl(self, *argv: str, check: bool = True) -> None:
        subprocess.run(
            _as_postgres([str(self.bin_dir / "pg_ctl"), "-D", str(self.data), *argv]),
            check=check, capture_output=True, timeout=120,
        )  # fmt: skip

    def start(self) -> Cluster:
        self._pg_ctl("-l", str(self.log), "-o", self.options, "-w", "start")
        return self

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def kill(self) -> None:
        """kill -9 the postmaster (its backends end with it; what was committed must stay)."""
        pid = self.postmaster_pid()
        shmid = int((self.data / "postmaster.pid").read_text().splitlines()[6].split()[1])
        os.kill(pid, signal.SIGKILL)
        until(lambda: not _exists(pid), "the postmaster is gone (reaped)")
        # The orphaned backends notice the postmaster's death and exit by themselves; a new
        # postmaster would refuse to start while one is still attached to the shared memory.
        until(lambda: _attached(shmid) == 0, "its backends are gone")

    def stop(self) -> None:
        self._pg_ctl("-m", "immediate", "-w", "stop", check=False)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def cluster_or_skip() -> Cluster:
    """A new cluster (not started) for a test of its own; the test is skipped without
    PostgreSQL's binaries (failed with BACCARAT_REQUIRE_POSTGRES=1)."""
    import pytest

    try:
        return Cluster()
    except (FileNotFoundError, OSError) as error:
        if REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")


@contextlib.contextmanager
def throwaway_cluster(*, durable: bool = False) -> Iterator[str]:
    """Start a cluster in a temporary folder on a free port; yield its URL; remove it."""
    if EXTERNAL:
        yield EXTERNAL
        return
    cluster = Cluster(durable=durable)
    try:
        yield cluster.start().url
    finally:
        cluster.remove()


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


class Databases:
    """Copies of a migrated template database, each made before it is asked for (in a
    thread, while the test before it runs) and dropped after its test the same way: a copy
    costs a checkpoint and a folder of files, which the tests need not wait for."""

    def __init__(self, admin_url: str, template: str):
        from concurrent.futures import ThreadPoolExecutor

        self.admin_url, self.template = admin_url, template
        self._names = itertools.count()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="databases")
        self._next = self._pool.submit(self._create)

    def _create(self) -> str:
        name = f"baccarat_test_{next(self._names)}"
        create_database(self.admin_url, name, template=self.template)
        return name

    def take(self) -> str:
        """A fresh copy's URL (the next one starts now)."""
        name = self._next.result()
        self._next = self._pool.submit(self._create)
        return self.url(name)

    def url(self, name: str) -> str:
        head, _, _ = self.admin_url.rpartition("/")
        return f"{head}/{name}"

    def give_back(self, url: str) -> None:
        """Drop the copy at ``url`` (after what is queued before it)."""
        self._pool.submit(drop_database, self.admin_url, url.rpartition("/")[2])

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.give_back(self.url(self._next.result()))
        self._pool.shutdown(wait=True)
