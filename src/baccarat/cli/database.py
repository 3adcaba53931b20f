"""The operator commands' database: the URL from the arguments or the environment, checked
to be ours, opened, and one unit of work (shared by ``cli/server.py`` and the commands of
other modules, e.g. ``cli/responsible.py``).

Only ``migrate`` (and ``serve``) create or change a schema: every other command refuses a
database that is not ours at this version's schema, and the commands that only read open
it read-only (``Database(read_only=True)``: SQLite ``mode=ro``, PostgreSQL read-only
transactions). A service refusal is a usage error (exit 2); a database that does not
exist, is not ours (or not yet, or at another version's schema), is not a database at all,
cannot be opened or cannot be reached is ``CannotRun`` (exit 3), one line each."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from baccarat.server.db.database import Database
    from baccarat.server.db.uow import UnitOfWork
    from baccarat.server.errors import ServiceError
    from baccarat.server.settings import DatabaseUrl

T = TypeVar("T")


def database_url(args: argparse.Namespace) -> DatabaseUrl:
    from baccarat.server.settings import DatabaseUrl

    url = args.database or os.environ.get("BACCARAT_DATABASE_URL")
    if url:
        return DatabaseUrl.parse(url)
    data_dir = args.data_dir or os.environ.get("BACCARAT_DATA_DIR") or "data"
    return DatabaseUrl.sqlite_in(Path(data_dir))


def _existing(url: DatabaseUrl) -> None:
    """An operator's command never creates a database (only ``migrate`` does)."""
    from baccarat.cli import CannotRun

    where = url.file
    if where is not None and not where.is_file():
        missing = where.parent if not where.parent.is_dir() else where
        raise CannotRun(f"no database at {where} ({missing} does not exist): check --data-dir "
                        "or --database, or create it with `baccarat admin migrate`")  # fmt: skip


@contextmanager
def cannot_run(url: DatabaseUrl) -> Iterator[None]:
    """A database that cannot be opened, read or reached is one line and exit 3, not a
    traceback."""
    from baccarat.cli import CannotRun
    from baccarat.server.db.url import failure, first_line

    try:
        yield
    except Exception as error:
        found = failure(url, error)
        if found is None:
            raise
        if found == "not_a_database":
            message = f"{url} is not a baccarat database: the file is not an SQLite database"
        elif found == "unreachable":
            message = f"the database {url} cannot be reached: {first_line(error)}"
        else:
            message = f"the database {url} cannot be used: {first_line(error)}"
        raise CannotRun(message) from None


def require_ours(url: DatabaseUrl, *, migrating: bool = False) -> None:
    """Refuse (``CannotRun``) a database that is not ours at this version's schema, read
    in a read-only session. ``migrating``: an empty database, or ours at an older revision,
    is fine (migrating is how they become ours)."""
    from baccarat.cli import CannotRun
    from baccarat.server.db import migrate

    tables, found = migrate.at(url)
    if found == [migrate.HEAD]:
        return
    head, known = migrate.revisions()
    if not found and not (set(tables) - {"alembic_version"}):
        if migrating:
            return
        raise CannotRun(f"{url} is an empty database, not yet a baccarat database: create "
                        "its schema with `baccarat admin migrate`")  # fmt: skip
    if found is None or not found:
        count = f"{len(tables)} table{'' if len(tables) == 1 else 's'}"
        raise CannotRun(f"{url} is not a baccarat database: it has {count} of its own and "
                        "no alembic_version (check --data-dir or --database)")  # fmt: skip
    shown = ", ".join(repr(rev[:40]) for rev in found[:3])
    if not set(found) <= known:
        raise CannotRun(f"{url} is not a baccarat database of this version: its schema "
                        f"revision {shown} is none of this version's migrations (a newer "
                        "baccarat's database, or another program's)")  # fmt: skip
    if found != [head] and not migrating:
        raise CannotRun(f"{url} has the schema of revision {shown}, this version of baccarat "
                        f"needs {head!r}: run `baccarat admin migrate`")  # fmt: skip


def environment_settings() -> Any:
    """The server's settings from the environment, as ``baccarat serve`` reads them; a
    variable they cannot read is the command's usage error."""
    from baccarat.cli import UsageError
    from baccarat.server.settings import Settings

    try:
        return Settings.from_env()
    except ValueError as error:
        raise UsageError(f"settings: {error}") from None


def seed_vault(args: argparse.Namespace) -> Any:
    """The server's key of the seeds at rest: $BACCARAT_SEED_KEY, else the data folder's
    (``--data-dir``, $BACCARAT_DATA_DIR or ./data, as for ``baccarat serve``)."""
    from baccarat.server import keys

    settings = environment_settings()
    if args.data_dir:
        settings = dataclasses.replace(settings, data_dir=Path(args.data_dir))
    return keys.seed_vault(settings)


@contextmanager
def opened(args: argparse.Namespace, *, write: bool) -> Iterator[Database]:
    """The database of these arguments (which must exist and be ours at this version's
    schema), read-write or read-only."""
    from baccarat.server.db.database import Database
    from baccarat.server.settings import system_clock_us

    url = database_url(args)
    _existing(url)
    with cannot_run(url):
        require_ours(url)
        db = Database(url, clock=system_clock_us, threads=1, read_only=not write,
                      vault=seed_vault(args))  # fmt: skip
        try:
            yield db
        finally:
            db.close()


def _cli_error(error: ServiceError) -> Exception:
    from baccarat.cli import CannotRun, UsageError

    if error.code == "service_unavailable":
        return CannotRun(error.message)
    return UsageError(error.message)


def _write(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    """``work`` in a transaction that is committed."""
    return _run(args, lambda db: db.run_write(work), write=True)


def _read(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    """``work`` on the database opened read-only."""
    return _run(args, lambda db: db.run_read(work), write=False)


def _rolled_back(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    """``work`` that writes in order to show (a player's settings as the player's next read
    would make them), in a transaction that is always rolled back: nothing is kept."""
    return _run(args, lambda db: db.run_read(work), write=True)


def _run(args: argparse.Namespace, call: Callable[[Database], T], *, write: bool) -> T:
    """``call`` on the opened database; a service refusal becomes the CLI's error."""
    from baccarat.server.errors import ServiceError

    with opened(args, write=write) as db:
        try:
            return call(db)
        except ServiceError as error:
            raise _cli_error(error) from None
