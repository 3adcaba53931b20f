"""A database's address, and what the rest of the server may know of it: whether it is a
file (where it lies), whether it has one writer, how its driver's errors read. Which
database it is (``dialect``) is this package's business alone: the domain asks the unit
of work for what it needs (``UnitOfWork.pipelines``, ``locks_rows``, ``for_update``...)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SQLITE_FILE = "baccarat.db"


@dataclass(frozen=True)
class DatabaseUrl:
    """A database address: an SQLite file or a PostgreSQL server."""

    dialect: str  # "sqlite" or "postgresql"
    # SQLite: the file path; PostgreSQL: a libpq connection string (postgresql://...).
    target: str

    @classmethod
    def parse(cls, url: str) -> DatabaseUrl:
        text = url.strip()
        for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
            if text.startswith(prefix):
                return cls("postgresql", "postgresql://" + text[len(prefix) :])
        for prefix in ("sqlite+pysqlite:///", "sqlite:///"):
            if text.startswith(prefix):
                path = text[len(prefix) :]
                if not path:
                    break
                return cls("sqlite", path)
        raise ValueError(
            f"unsupported database URL {url!r}: use sqlite:///FILE or postgresql://..."
        )

    @classmethod
    def sqlite_in(cls, data_dir: Path) -> DatabaseUrl:
        return cls("sqlite", str(data_dir / SQLITE_FILE))

    @property
    def scheme(self) -> str:
        """The scheme of the address (``sqlite``, ``postgresql``): what the status shows."""
        return self.dialect

    @property
    def file(self) -> Path | None:
        """The file the database is (SQLite), or None: a database server, which processes
        on other machines may share."""
        return Path(self.target) if self.dialect == "sqlite" else None

    @property
    def one_writer(self) -> bool:
        """Only one connection writes at a time (an SQLite file): the database is served by
        one worker, whose writer runs every unit of work. Else (PostgreSQL) many workers
        write at once, each unit locking the rows it changes, and hear each other through
        the database."""
        return self.dialect == "sqlite"

    def exists(self) -> bool:
        """False for an SQLite file that is not there (a database server always "is": a
        missing one cannot be reached)."""
        return self.file is None or self.file.is_file()

    @property
    def sqlalchemy_url(self) -> str:
        if self.dialect == "sqlite":
            return f"sqlite+pysqlite:///{self.target}"
        return "postgresql+psycopg://" + self.target[len("postgresql://") :]

    def __str__(self) -> str:
        if self.dialect == "sqlite":
            return f"sqlite:///{self.target}"
        # Never print a password.
        head, sep, tail = self.target.partition("@")
        if sep and ":" in head[len("postgresql://") :]:
            user = head[len("postgresql://") :].split(":", 1)[0]
            return f"postgresql://{user}:***@{tail}"
        return self.target


def failure(url: DatabaseUrl, error: BaseException) -> str | None:
    """What an exception says of the database at ``url`` (its driver's or SQLAlchemy's):
    ``"not_a_database"`` (a file that is not an SQLite database), ``"unreachable"`` (a
    database server that cannot be reached), ``"unusable"`` (any other of the database's
    errors), or None: not the database's."""
    import sqlite3

    import sqlalchemy.exc

    errors: tuple[type[BaseException], ...] = (sqlite3.Error, sqlalchemy.exc.DBAPIError)
    unreachable: tuple[type[BaseException], ...] = (sqlalchemy.exc.OperationalError,)
    if url.dialect == "postgresql":
        import psycopg

        errors += (psycopg.Error,)
        unreachable += (psycopg.OperationalError,)
    if not isinstance(error, errors):
        return None
    if "file is not a database" in first_line(error):
        return "not_a_database"
    if url.dialect == "postgresql" and isinstance(error, unreachable):
        return "unreachable"
    return "unusable"


def first_line(error: BaseException) -> str:
    """The first line of a database error's message (SQLAlchemy's: its driver's)."""
    orig = getattr(error, "orig", None)
    text = str(orig or error).strip()
    return (text.splitlines() or [type(error).__name__])[0][:300]
