"""The guide's base backup, restored as the guide restores it, is the casino's books.

A throwaway cluster holds a migrated database with a player and a deposit. The base backup
is the guide's own ``pg_basebackup`` command line (read from docs/deploy.md, with the
test's folder for ``-D`` and the cluster's address added): with ``-c fast`` it checkpoints
at once instead of waiting most of ``checkpoint_timeout`` for a spread checkpoint. The
backup is unpacked into a new data directory as the guide's restore does (``base.tar.gz``
into it, ``pg_wal.tar.gz`` into its ``pg_wal``), PostgreSQL is started on it, and
``baccarat admin check`` passes on the restored database, which has the player and the
money.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ..harness import ROOT
from ..server import postgres

BACCARAT = str(Path(sys.executable).with_name("baccarat"))
GUIDE = ROOT / "docs" / "deploy.md"


def guide_basebackup() -> list[str]:
    """The guide's ``pg_basebackup`` command, as words."""
    (line,) = re.findall(r"`(pg_basebackup -D [^`]+)`", GUIDE.read_text())
    # The folder's name is the day's: one shell word (the test puts its own there).
    return shlex.split(line.replace("$(date +%F)", "DAY"))


def _with_folder(argv: list[str], folder: Path) -> list[str]:
    index = argv.index("-D")
    return [*argv[: index + 1], str(folder), *argv[index + 2 :]]


def _as_postgres(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _admin(url: str, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [BACCARAT, "admin", "--database", url, *argv], input=stdin,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_base_backup_taken_and_restored_as_the_guide_says_passes_the_ledger_check(
    tmp_path: Path,
) -> None:
    try:
        cluster = postgres.Cluster()
    except (FileNotFoundError, OSError) as error:
        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")
    restored = Path(tempfile.mkdtemp(prefix="baccarat-restored-"))
    try:
        url = postgres.create_database(cluster.start().url, "baccarat")
        _admin(url, "migrate")
        _admin(url, "accounts", "create", "saved", "--password-stdin", stdin="a good password\n")
        _admin(url, "deposit", "saved", "250.00", "--memo", "before the backup")

        argv = guide_basebackup()
        assert {"-c", "fast"} <= set(argv) or "--checkpoint=fast" in argv
        backup = tmp_path / "base"
        taken = subprocess.run(
            [str(cluster.bin_dir / argv[0]), *_with_folder(argv, backup)[1:], "-d", cluster.url],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert taken.returncode == 0, taken.stderr
        assert {"base.tar.gz", "pg_wal.tar.gz"} <= {p.name for p in backup.iterdir()}

        # The guide's restore, into a new data directory of the postgres user's.
        data = restored / "data"
        data.mkdir(mode=0o700)
        subprocess.run(["tar", "-xzf", str(backup / "base.tar.gz"), "-C", str(data)], check=True)
        subprocess.run(
            ["tar", "-xzf", str(backup / "pg_wal.tar.gz"), "-C", str(data / "pg_wal")], check=True
        )
        sockets = restored / "run"
        sockets.mkdir()
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", "postgres:postgres", str(restored)], check=True)
        port = postgres.free_port()
        options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1"
        subprocess.run(
            _as_postgres([str(cluster.bin_dir / "pg_ctl"), "-D", str(data), "-l",
                          str(restored / "log"), "-o", options, "-w", "start"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        try:
            copy = f"postgresql://postgres@127.0.0.1:{port}/baccarat"
            checked = _admin(copy, "check")
            assert "ledger OK" in checked.stdout
            (player,) = json.loads(_admin(copy, "accounts", "list", "--json").stdout)
            assert player["nickname"] == "saved" and player["real"] == 25_000
        finally:
            subprocess.run(
                _as_postgres([str(cluster.bin_dir / "pg_ctl"), "-D", str(data), "-m",
                              "immediate", "-w", "stop"]),
                capture_output=True, timeout=120, check=False,
            )  # fmt: skip
    finally:
        cluster.remove()
        shutil.rmtree(restored, ignore_errors=True)
