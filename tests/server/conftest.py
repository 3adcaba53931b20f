"""Fixtures of the server tests: migrated databases on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl

from . import postgres

BACKENDS = ["sqlite", "postgresql"]
_counter = itertools.count()


class FakeClock:
    """Microseconds since the epoch, moved by hand."""

    def __init__(self, start_us: int = 1_790_000_000_000_000):
        self.now = start_us

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1_000_000)


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


class SwitchableShoes:
    """The deal source of an API test: the fair derivation unless a test stacks the shoe."""

    def __init__(self) -> None:
        from baccarat.server.dealing import FairShoes

        self.current: Any = FairShoes()

    def __call__(self, *args: Any) -> Any:
        return self.current(*args)


class Api:
    """An in-process client of the app, with helpers to register and log in players."""

    def __init__(self, client: Any, casino: Any, clock: FakeClock, shoes: SwitchableShoes,
                 app: Any = None):  # fmt: skip
        self.app = app
        self.client = client
        self.casino = casino
        self.clock = clock
        self.shoes = shoes
        self._keys = itertools.count()

    async def player(self, nickname: str = "alice", password: str = "a good password") -> str:
        """Register and log in; the bearer token."""
        created = await self.client.post(
            "/api/accounts", json={"nickname": nickname, "password": password}
        )
        assert created.status_code == 201, created.text
        session = await self.client.post(
            "/api/sessions", json={"nickname": nickname, "password": password}
        )
        assert session.status_code == 201, session.text
        token: str = session.json()["token"]
        return token

    def auth(self, token: str, key: str | None = "auto") -> dict[str, str]:
        headers = {"Authorization": f"Bearer {token}"}
        if key == "auto":
            key = f"key-{next(self._keys)}"
        if key is not None:
            headers["Idempotency-Key"] = key
        return headers

    async def play(self, token: str, table: str = "table-i", mode: str = "fun",
                   key: str | None = "auto", **bets: int) -> Any:  # fmt: skip
        return await self.client.post(
            f"/api/tables/{table}/rounds",
            json={"mode": mode, "bets": bets},
            headers=self.auth(token, key),
        )


def api_settings(url: DatabaseUrl, tmp_path: Path, clock: FakeClock, shoes: Any) -> Any:
    from baccarat.server.settings import LoginThrottle, PasswordHashing, Settings

    return Settings(
        database=url,
        data_dir=tmp_path,
        seed_key=os.environ.get("BACCARAT_SEED_KEY"),
        passwords=PasswordHashing(time_cost=1, memory_cost=8, parallelism=1),
        # Every test client registers from 127.0.0.1.
        login_throttle=LoginThrottle(registrations_per_hour=10_000),
        shoe_factory=shoes,
        clock=clock,
        migrate_on_start=False,
        db_threads=4,
        web_dir=tmp_path / "no-web",
    )


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def api(database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock) -> AsyncIterator[Api]:
    import httpx

    from baccarat.server.app import create_app

    shoes = SwitchableShoes()
    app = create_app(api_settings(database_url, tmp_path, clock, shoes))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        yield Api(client, app.state.casino, clock, shoes, app)
