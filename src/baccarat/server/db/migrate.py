"""Schema migrations (Alembic, shipped in the package), applied at start and by the admin."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from baccarat.server.db.url import DatabaseUrl
from baccarat.server.vault import Vault, default_vault

if TYPE_CHECKING:
    from baccarat.server.db.uow import UnitOfWork

MIGRATIONS = Path(__file__).with_name("migrations")
# The newest shipped migration, the revision a database of this version is at. Known here, a
# start finds its database at it with one query, without loading Alembic and its 28 scripts
# (0.3 s of CPU); test_admin_read_only.py checks it against Alembic's own head.
HEAD = "0028"
# Taken by every process that migrates a PostgreSQL database, so that workers starting
# together do not race; SQLite serialises them with its own write lock.
_PG_LOCK_KEY = 0x0BACCA2A


def _config(connection: object, vault: Vault) -> object:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    # Migration 0009 seals the server seeds stored before it with the server's key.
    config.attributes["seed_vault"] = vault
    return config


def revisions() -> tuple[str, frozenset[str]]:
    """This version's head revision, and every revision it knows (read from the shipped
    scripts; nothing is opened): what a database must be at to be ours."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS))
    head = script.get_current_head()
    assert head is not None
    return head, frozenset(r.revision for r in script.walk_revisions())


def at(url: DatabaseUrl) -> tuple[list[str], list[str] | None]:
    """``found`` of the database at ``url``, read in a read-only session."""
    import time

    from baccarat.server.db.database import Database

    db = Database(url, clock=lambda: time.time_ns() // 1000, threads=1, read_only=True)
    try:
        return db.run_read(found)
    finally:
        db.close()


def found(uow: UnitOfWork) -> tuple[list[str], list[str] | None]:
    """The database's tables, and the revisions in its ``alembic_version`` (None without):
    whether it is ours, and at which revision."""
    if uow.dialect == "sqlite":
        rows = uow.all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    else:
        rows = uow.all(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
    tables = [str(name) for (name,) in rows]
    if "alembic_version" not in tables:
        return tables, None
    return tables, [str(rev) for (rev,) in uow.all("SELECT version_num FROM alembic_version")]


def upgrade(url: DatabaseUrl, revision: str = "head", *, vault: Vault | None = None) -> str | None:
    """Bring the database to ``revision``; returns the revision it is at afterwards. ``vault``
    seals the seeds of an older database (without one: an SQLite file's folder's key)."""
    if revision == "head" and url.exists() and at(url)[1] == [HEAD]:
        return HEAD
    import sqlalchemy as sa
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    if url.dialect == "sqlite":
        Path(url.target).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url.sqlalchemy_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            if url.dialect == "postgresql":
                connection.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": _PG_LOCK_KEY})
                connection.commit()
            else:
                connection.exec_driver_sql("PRAGMA journal_mode=WAL")
            try:
                config = _config(connection, vault or default_vault(url.file))
                command.upgrade(config, revision)  # type: ignore[arg-type]
                connection.commit()
            finally:
                if url.dialect == "postgresql":
                    connection.execute(
                        sa.text("SELECT pg_advisory_unlock(:k)"), {"k": _PG_LOCK_KEY}
                    )
                    connection.commit()
            current: str | None = MigrationContext.configure(connection).get_current_revision()
            return current
    finally:
        engine.dispose()
