"""Fixtures of the server tests: migrated databases on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl

from ..harness import Api, FakeClock, SwitchableShoes, in_process, server_settings
from . import postgres

BACKENDS = ["sqlite", "postgresql"]
_counter = itertools.count()


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


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DatabaseUrl]:
    """A freshly migrated, empty database on the backend the test is parametrised with."""
    backend = getattr(request, "param", "sqlite")
    if backend == "sqlite":
        url = DatabaseUrl.sqlite_in(tmp_path / "data")
        migrate.upgrade(url)
        yield url
        return
    admin = request.getfixturevalue("postgres_admin_url")
    template = request.getfixturevalue("postgres_template")
    name = f"baccarat_test_{next(_counter)}"
    url = DatabaseUrl.parse(postgres.create_database(admin, name, template=template))
    try:
        yield url
    finally:
        postgres.drop_database(admin, name)


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
