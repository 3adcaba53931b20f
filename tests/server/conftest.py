"""Fixtures of the server tests: migrated databases on SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl

from ..harness import Api, FakeClock, SwitchableShoes, in_process, migrated_sqlite, server_settings
from . import postgres

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """The URL of a PostgreSQL cluster for this session (skipped if none can be had)."""
    try:
        with postgres.throwaway_cluster() as url:
            yield url
    except (FileNotFoundError, OSError) as error:
        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")


@pytest.fixture(scope="session")
def postgres_template(postgres_admin_url: str) -> str:
    """A migrated database that each test's database is copied from."""
    name = "baccarat_template"
    url = postgres.create_database(postgres_admin_url, name)
    migrate.upgrade(DatabaseUrl.parse(url))
    return name


@pytest.fixture(scope="session")
def sqlite_template() -> Path:
    """A migrated SQLite data folder that each test's is copied from (``migrated_sqlite``'s):
    a copy costs a millisecond, a migration a sixth of a second of CPU and a few dozen
    fsyncs."""
    return migrated_sqlite().parent


@pytest.fixture(scope="session")
def postgres_databases(postgres_admin_url: str, postgres_template: str
                       ) -> Iterator[postgres.Databases]:  # fmt: skip
    """Copies of the template, each made while the test before it runs."""
    databases = postgres.Databases(postgres_admin_url, postgres_template)
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DatabaseUrl]:
    """A freshly migrated, empty database on the backend the test is parametrised with: a
    copy of the session's migrated template."""
    backend = getattr(request, "param", "sqlite")
    if backend == "sqlite":
        folder = tmp_path / "data"
        shutil.copytree(request.getfixturevalue("sqlite_template"), folder, dirs_exist_ok=True)
        yield DatabaseUrl.sqlite_in(folder)
        return
    databases: postgres.Databases = request.getfixturevalue("postgres_databases")
    url = databases.take()
    try:
        yield DatabaseUrl.parse(url)
    finally:
        databases.give_back(url)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db(database_url: DatabaseUrl, clock: FakeClock) -> Iterator[Database]:
    database = Database(database_url, clock=clock, threads=4)
    try:
        yield database
    finally:
        database.close()


@pytest.fixture
def system(db: Database) -> SystemAccounts:
    return db.run_read(SystemAccounts.load)


both_backends = pytest.mark.parametrize("database_url", BACKENDS, indirect=True)


# -- the HTTP API in-process ---------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def api(database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock) -> AsyncIterator[Api]:
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes())
    async with in_process(settings, Api) as api:
        yield api
