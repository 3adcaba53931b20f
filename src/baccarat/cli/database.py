"""The operator commands' database: the URL from the arguments or the environment, opened
and migrated, and one unit of work with service refusals as usage errors (shared by
``cli/server.py`` and the commands of other modules, e.g. ``cli/responsible.py``)."""

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
    from ..server.settings import DatabaseUrl

T = TypeVar("T")


def database_url(args: argparse.Namespace) -> DatabaseUrl:
    from ..server.settings import DatabaseUrl

    url = args.database or os.environ.get("BACCARAT_DATABASE_URL")
    if url:
        return DatabaseUrl.parse(url)
    data_dir = args.data_dir or os.environ.get("BACCARAT_DATA_DIR") or "data"
    return DatabaseUrl.sqlite_in(Path(data_dir))


@contextmanager
def opened(args: argparse.Namespace) -> Iterator[Database]:
    """The database of these arguments, migrated to the current schema."""
    from ..server.db import migrate
    from ..server.db.database import Database
    from ..server.settings import system_clock_us

    url = database_url(args)
    migrate.upgrade(url)
    db = Database(url, clock=system_clock_us, threads=1)
    try:
        yield db
    finally:
        db.close()


def _write(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    from ..server.errors import ServiceError
    from . import UsageError

    with opened(args) as db:
        try:
            return db.run_write(work)
        except ServiceError as error:
            raise UsageError(error.message) from None


def _read(args: argparse.Namespace, work: Callable[[UnitOfWork], T]) -> T:
    from ..server.errors import ServiceError
    from . import UsageError

    with opened(args) as db:
        try:
            return db.run_read(work)
        except ServiceError as error:
            raise UsageError(error.message) from None
