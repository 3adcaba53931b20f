"""The operator commands' database: the URL from the arguments or the environment, opened
and migrated, and one unit of work (shared by ``cli/server.py`` and the commands of other
modules, e.g. ``cli/responsible.py``). A service refusal is a usage error (exit 2); a
database that does not exist (only ``migrate`` creates one) or cannot be reached is
``CannotRun`` (exit 3)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ..server.db.database import Database
    from ..server.db.uow import UnitOfWork
    from ..server.errors import ServiceError
    from ..server.settings import DatabaseUrl

T = TypeVar("T")


def database_url(args: argparse.Namespace) -> DatabaseUrl:
    from ..server.settings import DatabaseUrl

    url = args.database or os.environ.get("BACCARAT_DATABASE_URL")
    if url:
        return DatabaseUrl.parse(url)
    data_dir = args.data_dir or os.environ.get("BACCARAT_DATA_DIR") or "data"
    return DatabaseUrl.sqlite_in(Path(data_dir))


def _existing(url: DatabaseUrl) -> None:
    """An operator's command never creates a database (only ``migrate`` does)."""
    from . import CannotRun

    if url.dialect == "sqlite" and not Path(url.target).is_file():
        where = Path(url.target)
        missing = where.parent if not where.parent.is_dir() else where
        raise CannotRun(f"no database at {where} ({missing} does not exist): check --data-dir "
                        "or --database, or create it with `baccarat admin migrate`")  # fmt: skip


@contextmanager
def unreachable_is_cannot_run(url: DatabaseUrl) -> Iterator[None]:
    """A database that cannot be reached is one line and exit 3, not a traceback."""
    import sqlalchemy.exc

    from . import CannotRun

    try:
        yield
    except sqlalchemy.exc.OperationalError as error:
        reason = str(error.orig or error).strip().splitlines()[0][:300]
        raise CannotRun(f"the database {url} cannot be reached: {reason}") from None


@contextmanager
def opened(args: argparse.Namespace) -> Iterator[Database]:
    """The database of these arguments (which must exist), migrated to the current schema."""
    from ..server.db import migrate
    from ..server.db.database import Database
    from ..server.settings import system_clock_us

    url = database_url(args)
    _existing(url)
    with unreachable_is_cannot_run(url):
        migrate.upgrade(url)
        db = Database(url, clock=system_clock_us, threads=1)
        try:
            yield db
        finally:
            db.close()


def _cli_error(error: ServiceError) -> Exception:
    from . import CannotRun, UsageError

    if error.code == "service_unavailable":
        return CannotRun(error.message)
    return UsageError(error.message)


def _write(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    return _run(args, lambda db: db.run_write(work))


def _read(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    return _run(args, lambda db: db.run_read(work))


def _run(args: argparse.Namespace, call: Callable[[Database], T]) -> T:
    """``call`` on the opened database; a service refusal becomes the CLI's error."""
    from ..server.errors import ServiceError

    with opened(args) as db:
        try:
            return call(db)
        except ServiceError as error:
            raise _cli_error(error) from None
