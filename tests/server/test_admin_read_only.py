"""``baccarat admin`` never changes a database it should not: the commands that only read
open it read-only (SQLite ``mode=ro``, a PostgreSQL session of read-only transactions) and
switch nothing (no journal mode, no migration); no command but ``migrate`` (and ``serve``)
creates or changes a schema; a database that is not ours (no ``alembic_version`` at one of
our revisions), a file that is not a database at all or one that cannot be read is exit 3
with one line on stderr, never a traceback, and is left as it was."""

from __future__ import annotations

import hashlib
import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.server import accounts, responsible
from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.settings import DatabaseUrl, system_clock_us

from . import postgres

ROUND = "r_0123456789abcdef0123"
READS = [
    ["check"], ["check", "--json"], ["replay", ROUND], ["accounts", "list"],
    ["deposits"], ["deposits", "list", "--all"], ["withdrawals", "list"],
    ["responsible", "olga"],
]  # fmt: skip
WRITES = [
    ["deposit", "olga", "10"], ["withdraw", "olga", "10"], ["deposits", "approve", "1"],
    ["withdrawals", "reject", "1"], ["void", ROUND, "--reason", "shoe error"],
    ["accounts", "create", "olga", "--password-stdin"],
]  # fmt: skip


def admin(url: str, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n"))
    return main(["admin", "--database", url, *argv])


def one_line_each(capsys: pytest.CaptureFixture[str], count: int, words: str) -> None:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == count, err
    assert all(line.startswith("baccarat admin: could not run: ") for line in lines), err
    assert all(words in line for line in lines), err
    assert "Traceback" not in err


def files(folder: Path) -> dict[str, str]:
    """Every file of the folder with a digest of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """Another program's SQLite database (rollback journal, a table of its own)."""
    path = tmp_path / "other" / "notes.db"
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute("INSERT INTO notes (text) VALUES ('keep me')")
    conn.commit()
    conn.close()
    return path


def test_every_command_refuses_a_sqlite_database_that_is_not_ours(
    foreign: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(foreign.parent)
    for argv in [*READS, *WRITES, ["migrate"]]:
        assert admin(f"sqlite:///{foreign}", argv, monkeypatch) == 3, argv
    one_line_each(capsys, len(READS) + len(WRITES) + 1, "not a baccarat database")
    # Not a table added, not a byte changed, no journal mode switched (no -wal file).
    assert files(foreign.parent) == before
    conn = sqlite3.connect(foreign)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]
    conn.close()


@pytest.mark.parametrize("content", [b"", b"name,balance\nolga,10\n" * 20, os.urandom(4096)])
def test_a_file_that_is_not_a_database_is_exit_3(
    tmp_path: Path, content: bytes, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path = tmp_path / "baccarat.db"
    path.write_bytes(content)
    for argv in [*READS, *WRITES]:
        assert admin(f"sqlite:///{path}", argv, monkeypatch) == 3, argv
    one_line_each(capsys, len(READS) + len(WRITES), "baccarat database")
    assert path.read_bytes() == content
    assert [p.name for p in tmp_path.iterdir()] == ["baccarat.db"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_database_file_is_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = DatabaseUrl.sqlite_in(tmp_path)
    migrate.upgrade(url)
    Path(url.target).chmod(0)
    for argv in READS:
        assert admin(str(url), argv, monkeypatch) == 3, argv
    one_line_each(capsys, len(READS), str(url.target))


def test_a_database_that_cannot_be_opened_is_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What an unreadable file gives (as root, no file is unreadable: the error is forced).
    url = DatabaseUrl.sqlite_in(tmp_path)
    migrate.upgrade(url)

    def refuse(*args: object, **kwargs: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    for argv in READS:
        assert admin(str(url), argv, monkeypatch) == 3, argv
    one_line_each(capsys, len(READS), "unable to open database file")


@pytest.fixture
def ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DatabaseUrl]:
    """Our database, with one player, switched to a rollback journal (as a copy or a backup
    restored elsewhere may be): a read-only open must switch nothing."""
    url = DatabaseUrl.sqlite_in(tmp_path / "data")
    migrate.upgrade(url)
    assert admin(str(url), ["accounts", "create", "olga", "--password-stdin"], monkeypatch) == 0
    db = Database(url, clock=system_clock_us)
    try:
        # The player's responsible-gaming settings, as their first visit to the page makes
        # them (so that showing them needs no write).
        db.run_write(lambda uow: responsible.overview(uow, accounts.require(uow, "olga").id))
    finally:
        db.close()
    conn = sqlite3.connect(url.target)
    assert conn.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    conn.close()
    yield url


def test_read_only_commands_change_nothing_in_our_database(
    ours: DatabaseUrl, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = Path(ours.target).parent
    before = files(folder)
    for argv in READS:
        assert admin(str(ours), argv, monkeypatch) in (0, 2), argv  # replay: no such round
    out = capsys.readouterr().out
    assert "ledger OK" in out and "olga" in out
    assert files(folder) == before
    conn = sqlite3.connect(ours.target)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    conn.close()


def test_a_schema_behind_this_version_is_exit_3_until_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = DatabaseUrl.sqlite_in(tmp_path)
    migrate.upgrade(url, "0006")
    before = files(tmp_path)
    for argv in (["check"], ["accounts", "list"], ["deposit", "olga", "10"]):
        assert admin(str(url), argv, monkeypatch) == 3, argv
    one_line_each(capsys, 3, "baccarat admin migrate")
    # The file is as it was. (Reading a database in WAL mode makes SQLite create its empty
    # -wal and -shm files beside it, read-only as it is.)
    after = files(tmp_path)
    assert after["baccarat.db"] == before["baccarat.db"]
    assert Path(url.target + "-wal").stat().st_size == 0
    assert admin(str(url), ["migrate"], monkeypatch) == 0
    assert admin(str(url), ["check"], monkeypatch) == 0


def test_a_database_at_the_newest_migration_starts_without_alembic(tmp_path: Path) -> None:
    """``migrate.HEAD`` is Alembic's head: a database at it is recognised by one query, and
    neither ``serve``'s check nor its migration loads Alembic and its scripts."""
    head, _ = migrate.revisions()
    assert head == migrate.HEAD
    url = DatabaseUrl.sqlite_in(tmp_path)
    assert migrate.upgrade(url) == head
    check = (
        "import sys\n"
        "from baccarat.cli.database import require_ours\n"
        "from baccarat.server.db import migrate\n"
        "from baccarat.server.settings import DatabaseUrl\n"
        f"url = DatabaseUrl.parse({str(url)!r})\n"
        "require_ours(url)\n"
        "assert migrate.upgrade(url) == migrate.HEAD\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    ran = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


def test_a_revision_that_is_not_ours_is_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
    conn.execute("INSERT INTO alembic_version VALUES ('ae1027a6acf')")
    conn.commit()
    conn.close()
    for argv in (["check"], ["migrate"], ["deposit", "olga", "10"]):
        assert admin(f"sqlite:///{path}", argv, monkeypatch) == 3, argv
    one_line_each(capsys, 3, "ae1027a6acf")


@pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
def test_responsible_shows_the_due_state_and_writes_nothing(
    database_url: DatabaseUrl, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    url = database_url.target if database_url.dialect == "postgresql" else str(database_url)
    assert admin(url, ["accounts", "create", "olga", "--password-stdin"], monkeypatch) == 0
    db = Database(database_url, clock=system_clock_us)

    def profiles(uow: UnitOfWork) -> int:
        return int(uow.scalar("SELECT COUNT(*) FROM responsible_players"))

    try:
        assert db.run_read(profiles) == 0
        capsys.readouterr()
        # The player has no settings yet: the command shows the defaults as the player's
        # page would, in a transaction that is rolled back.
        assert admin(url, ["responsible", "olga", "--json"], monkeypatch) == 0
        assert '"exclusion": null' in capsys.readouterr().out
        assert db.run_read(profiles) == 0
        assert db.run_read(lambda uow: accounts.require(uow, "olga")).nickname == "olga"
    finally:
        db.close()


@pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
def test_a_read_only_database_refuses_to_write(database_url: DatabaseUrl) -> None:
    db = Database(database_url, clock=system_clock_us, read_only=True)
    try:
        assert db.run_read(lambda uow: uow.scalar("SELECT COUNT(*) FROM players")) == 0
        with pytest.raises(Exception, match=r"read.only|readonly"):
            db.run_read(lambda uow: uow.run("CREATE TABLE intruder (id INTEGER)"))
        with pytest.raises(Exception, match=r"read.only|readonly"):
            db.run_read(lambda uow: uow.run("DELETE FROM players"))
        with pytest.raises(RuntimeError, match="read-only"):
            db.run_write(lambda uow: None)
    finally:
        db.close()


def test_every_command_refuses_a_postgres_database_that_is_not_ours(
    postgres_admin_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import psycopg

    url = postgres.create_database(postgres_admin_url, "baccarat_not_ours")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE notes (id integer PRIMARY KEY, text text)")
        for argv in [*READS, *WRITES, ["migrate"]]:
            assert admin(url, argv, monkeypatch) == 3, argv
        one_line_each(capsys, len(READS) + len(WRITES) + 1, "not a baccarat database")
        with psycopg.connect(url) as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).fetchall()
        assert tables == [("notes",)]
    finally:
        postgres.drop_database(postgres_admin_url, "baccarat_not_ours")


def test_an_empty_postgres_database_is_ours_to_migrate_only(
    postgres_admin_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import psycopg

    url = postgres.create_database(postgres_admin_url, "baccarat_empty")
    try:
        for argv in (["check"], ["accounts", "list"], ["deposit", "olga", "10"]):
            assert admin(url, argv, monkeypatch) == 3, argv
        one_line_each(capsys, 3, "baccarat admin migrate")
        with psycopg.connect(url) as conn:
            count = conn.execute(
                "SELECT COUNT(*) FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).fetchone()
        assert count == (0,)
        assert admin(url, ["migrate"], monkeypatch) == 0
        assert admin(url, ["check"], monkeypatch) == 0
    finally:
        postgres.drop_database(postgres_admin_url, "baccarat_empty")
