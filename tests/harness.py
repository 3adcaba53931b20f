"""Starting a game server in a test, three ways, and waiting for a condition.

- ``in_process``: the app and its lifespan in the test's event loop, reached through httpx's
  ASGI transport (no socket; a chosen client address). The HTTP API tests (``api``).
- ``in_loop``: uvicorn in the test's event loop on a free loopback port: real HTTP and
  WebSocket connections, with the test's clock and deal source injected, and several
  servers on one database at once. The player-banked and socket tests.
- ``LiveServer`` / ``live``: a real process (``baccarat serve``, uvicorn with a factory of
  ``tests.server.apps``, the demo operator, ...) of this checkout, in its own process group:
  stopped, or killed with ``kill -9``, by the test. The process, crash, deploy, operator and
  browser tests.

The two in-process ways build their settings with ``server_settings``; the processes read
theirs from the environment, which ``cheap_password_hashing`` (run by tests/conftest.py
before any test) sets for every server the suite starts.

``until`` (and ``until_async`` in a coroutine) polls a condition to a deadline: every wait of
the suite for something to happen (the few fixed sleeps left let time itself pass: a window
that must stay open, a grace that must not yet have run out).

This is tests/harness.py, beside tests/conftest.py, rather than under tests/server: the
browser, deploy and operator tests start servers too, and import it as ``tests.harness``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import inspect
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    import httpx

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


# -- waiting ---------------------------------------------------------------------------------

# How long a wait gives a condition unless told otherwise: a bound for a server that never
# gets there, not a speed test.
WAIT_S = 30.0


@overload
def until(found: Callable[[], T | None], what: str, *, timeout: float = ...,
          every: float = ..., pause: Callable[[float], object] = ...) -> T: ...  # fmt: skip
@overload
def until(found: Callable[[], T], what: str, *, done: Callable[[T], object],
          timeout: float = ..., every: float = ...,
          pause: Callable[[float], object] = ...) -> T: ...  # fmt: skip
def until(found: Callable[[], Any], what: str, *, done: Callable[[Any], object] = bool,
          timeout: float = WAIT_S, every: float = 0.05,
          pause: Callable[[float], object] = time.sleep) -> Any:  # fmt: skip
    """``found()`` polled every ``every`` seconds until ``done`` with its value (until it is
    true, by default); that value. Fails, naming ``what`` and the last value, once
    ``timeout`` seconds have passed. ``pause(seconds)`` waits between the polls (a browser
    test's page.wait_for_timeout: Playwright runs the page's events only while it waits)."""
    deadline = time.monotonic() + timeout
    while True:
        value = found()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"never within {timeout} s: {what} (last: {value!r})"
        pause(every)


@overload
async def until_async(found: Callable[[], Awaitable[T]], what: str, *,
                      done: Callable[[T], object], timeout: float = ...,
                      every: float = ...) -> T: ...  # fmt: skip
@overload
async def until_async(found: Callable[[], Awaitable[T | None]], what: str, *,
                      timeout: float = ..., every: float = ...) -> T: ...  # fmt: skip
@overload
async def until_async(found: Callable[[], T | None], what: str, *, timeout: float = ...,
                      every: float = ...) -> T: ...  # fmt: skip
async def until_async(found: Callable[[], Any], what: str, *,
                      done: Callable[[Any], object] = bool, timeout: float = WAIT_S,
                      every: float = 0.05) -> Any:  # fmt: skip
    """``until`` in a coroutine: ``found`` may be a coroutine function (awaited), and the
    event loop (an in-loop server's too) runs between the polls."""
    deadline = time.monotonic() + timeout
    while True:
        value = found()
        if inspect.isawaitable(value):
            value = await value
        if done(value):
            return value
        assert time.monotonic() < deadline, f"never within {timeout} s: {what} (last: {value!r})"
        await asyncio.sleep(every)


@functools.cache
def http() -> httpx.Client:
    """One client for the tests' calls to their own servers over plain HTTP. ``httpx.get()``
    and its kind build a client, and with it an SSL context, on every call: 20 ms of CPU,
    spent about twenty times a second by a poll (a server's start, a table's clock). Like
    those calls it keeps nothing between them: no connection (a server a test kills leaves
    none stale) and no cookie (one server's session is not sent to the next)."""
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    import httpx

    refused = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    return httpx.Client(limits=httpx.Limits(max_keepalive_connections=0), cookies=refused)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# -- cheap password hashing ------------------------------------------------------------------

# Argon2id at its cheapest in every server the suite starts: a hash at the defaults (64 MiB,
# 3 passes, 4 lanes) costs 0.2 s of CPU, and the suite registers and logs in hundreds of
# players (test_server_settings.py checks the defaults and these variables).
CHEAP_HASHING = {
    "BACCARAT_ARGON2_TIME_COST": "1",
    "BACCARAT_ARGON2_MEMORY_KIB": "8",
    "BACCARAT_ARGON2_PARALLELISM": "1",
}


def cheap_password_hashing() -> None:
    """Every server of this process and its children hashes cheaply (a variable set by hand
    before the tests start is kept)."""
    for name, value in CHEAP_HASHING.items():
        os.environ.setdefault(name, value)


def cheap_passwords() -> Any:
    """The settings' ``PasswordHashing`` of ``CHEAP_HASHING`` (an in-process server's)."""
    from baccarat.server.settings import Settings

    return Settings.from_env(CHEAP_HASHING).passwords


# -- in this process: the settings, the clock and the deal source ----------------------------


class FakeClock:
    """Microseconds since the epoch, moved by hand."""

    def __init__(self, start_us: int = 1_790_000_000_000_000):
        self.now = start_us

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1_000_000)


class SwitchableShoes:
    """The deal source of a test: the fair derivation unless a test stacks the shoe."""

    def __init__(self) -> None:
        from baccarat.server.dealing import FairShoes

        self.current: Any = FairShoes()

    def __call__(self, *args: Any) -> Any:
        return self.current(*args)


class SwitchableLightning:
    """The multiplier cards' source of a test: the fair derivation unless a test stacks
    them (``current``: a ``dealing.LightningSource``)."""

    def __init__(self) -> None:
        from baccarat.server.dealing import fair_lightning

        self.current: Any = fair_lightning

    def __call__(
        self, terms: Any, server_seed: str, client_seed: str, nonce: int, position: int
    ) -> Any:
        return self.current(terms, server_seed, client_seed, nonce, position)


def server_settings(url: Any, tmp_path: Path, clock: FakeClock, shoes: Any, **changes: Any
                    ) -> Any:  # fmt: skip
    """The settings of a server in this process: the test's database, clock, deal source
    and multiplier cards' source (``SwitchableLightning``), cheap hashing, open
    registrations; ``changes`` replace fields."""
    from baccarat.server.settings import LoginThrottle, Settings

    settings = Settings(
        database=url,
        data_dir=tmp_path,
        seed_key=os.environ.get("BACCARAT_SEED_KEY"),
        passwords=cheap_passwords(),
        # Every test client registers from 127.0.0.1.
        login_throttle=LoginThrottle(registrations_per_hour=10_000),
        shoe_factory=shoes,
        lightning_source=SwitchableLightning(),
        clock=clock,
        migrate_on_start=False,
        db_threads=4,
        web_dir=tmp_path / "no-web",
    )
    return dataclasses.replace(settings, **changes) if changes else settings


class Running:
    """A server started in this process: its app, the casino behind it, the test's clock and
    deal source, and an HTTP client of it (``url`` is None in process: no socket)."""

    def __init__(self, app: Any, client: Any, url: str | None = None):
        self.app = app
        self.client = client
        self.url = url
        self.casino = app.state.casino
        self.clock: FakeClock = self.casino.settings.clock
        self.shoes: SwitchableShoes = self.casino.settings.shoe_factory
        self.lightning: SwitchableLightning = self.casino.settings.lightning_source

    async def write(self, work: Callable[[Any], Any]) -> Any:
        return await self.casino.db.write(work)

    async def read(self, work: Callable[[Any], Any]) -> Any:
        return await self.casino.db.read(work)


R = TypeVar("R", bound=Running)


class Api(Running):
    """An in-process server with helpers to register and log in players and to play."""

    def __init__(self, app: Any, client: Any, url: str | None = None):
        super().__init__(app, client, url)
        self._keys = itertools.count()

    async def player(self, nickname: str = "alice", password: str = "a good password",
                     currency: str | None = None) -> str:  # fmt: skip
        """Register (in ``currency``: the default if None) and log in; the bearer token."""
        account = {"nickname": nickname, "password": password}
        if currency is not None:
            account["currency"] = currency
        created = await self.client.post("/api/accounts", json=account)
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


@contextlib.asynccontextmanager
async def in_process(settings: Any, kind: type[R], address: str = "127.0.0.1",
                     base_url: str = "http://testserver") -> AsyncIterator[R]:  # fmt: skip
    """The app of ``settings`` started (its lifespan) in this event loop, with a client that
    calls it through the ASGI transport from ``address``; ``kind`` (``Api``, ...) wraps it."""
    from baccarat.server.app import create_app

    app = create_app(settings)
    async with app.router.lifespan_context(app), client_at(app, address, base_url) as client:
        yield kind(app, client)


@contextlib.asynccontextmanager
async def client_at(app: Any, address: str, base_url: str = "http://testserver"
                    ) -> AsyncIterator[Any]:  # fmt: skip
    """An in-process client of ``app`` from this client address (as the server sees it,
    behind a trusted proxy too): another client of an ``in_process`` server. What the app
    raises is raised here, as the server sees it."""
    import httpx

    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url=base_url) as client:
        yield client


@contextlib.asynccontextmanager
async def in_loop(settings: Any, kind: type[R], timeout: float = 10.0) -> AsyncIterator[R]:
    """The app of ``settings`` served by uvicorn in this event loop on a free loopback port,
    with an HTTP client of it (``timeout`` for each request); ``kind`` wraps it."""
    import httpx
    import uvicorn

    from baccarat.server.app import create_app

    class QuietServer(uvicorn.Server):
        """uvicorn without taking over the test process's signal handlers."""

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

    app = create_app(settings)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            lifespan="on", ws_ping_interval=None)  # fmt: skip
    server = QuietServer(config)
    task = asyncio.get_running_loop().create_task(server.serve())
    await until_async(lambda: server.started or task.done(), "uvicorn starts", every=0.01)
    if task.done():
        task.result()
        raise RuntimeError("the server stopped at start")
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=url, timeout=timeout) as client:
            yield kind(app, client, url)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


# -- a real process --------------------------------------------------------------------------

STARTUP_TIMEOUT_S = 120  # a bound on a failure: a loaded machine starts a server slowly


def python_path(*first: Path) -> str:
    """A server's PYTHONPATH: ``first``, then the package of this checkout (``src``) before
    any installed one (a worktree's tests start this worktree's server)."""
    return os.pathsep.join(str(p) for p in (*first, ROOT / "src", ROOT))


_MIGRATED: list[Path] = []


def migrated_sqlite() -> Path:
    """An SQLite database migrated to the head, made once in this process: a server
    started on a data directory without one gets a copy (``LiveServer.start``), and finds
    its schema there instead of running the 28 migrations (0.45 s of CPU a start). The
    migrations themselves run here, and in the migration tests."""
    if not _MIGRATED:
        import shutil
        import tempfile

        from baccarat.server.db import migrate
        from baccarat.server.db.url import DatabaseUrl

        folder = Path(tempfile.mkdtemp(prefix="baccarat-migrated-"))
        url = DatabaseUrl.sqlite_in(folder)
        migrate.upgrade(url)
        assert url.file is not None
        _MIGRATED.append(url.file)
        import atexit

        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return _MIGRATED[0]


def _sqlite_file(argv: list[str], env: dict[str, str], cwd: Path) -> Path | None:
    """The SQLite file a server of ``argv`` and ``env`` opens, as ``baccarat serve`` and
    the app read them (its --database, its BACCARAT_DATABASE_URL, or its data directory's);
    None for another database."""
    from baccarat.server.db.url import DatabaseUrl

    def given(flag: str, variable: str) -> str | None:
        if flag in argv:
            return argv[argv.index(flag) + 1]
        return env.get(variable)

    text = given("--database", "BACCARAT_DATABASE_URL")
    if text:
        url = DatabaseUrl.parse(text)
    else:
        url = DatabaseUrl.sqlite_in(cwd / (given("--data-dir", "BACCARAT_DATA_DIR") or "data"))
    return None if url.file is None else cwd / url.file


def _ending_with_us(argv: list[str]) -> list[str]:
    """``argv`` run so that it is sent SIGTERM when this test process ends, however it ends
    (a run killed half-way left its servers running, each ticking its shared tables: its own
    session keeps it out of the run's process group). The kernel's parent-death signal
    (util-linux's ``setpriv``) follows the thread that started the process: only a server
    started on the main thread, which lasts as long as the process, gets it."""
    import shutil
    import threading

    if threading.current_thread() is not threading.main_thread() or not shutil.which("setpriv"):
        return argv
    return ["setpriv", "--pdeathsig", "TERM", "--", *argv]


class LiveServer:
    """A server process; ``url`` once it answers ``ready`` (200). On SQLite, a database not
    yet made is a copy of ``migrated_sqlite``."""

    def __init__(self, argv: list[str], port: int, env: dict[str, str], log: Path,
                 cwd: Path = ROOT, ready: str = "/api/health") -> None:  # fmt: skip
        self.argv, self.port, self.log_path, self.cwd, self.ready = argv, port, log, cwd, ready
        self.env = os.environ | {"PYTHONPATH": python_path()} | env
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LiveServer:
        database = _sqlite_file(self.argv, self.env, self.cwd)
        if database is not None and not database.exists() and database.parent.is_dir():
            import shutil

            shutil.copyfile(migrated_sqlite(), database)
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            _ending_with_us(self.argv), cwd=self.cwd, env=self.env, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            until(self._answers, f"{self.url} answers", timeout=STARTUP_TIMEOUT_S)
        except AssertionError:
            self.stop()
            raise RuntimeError(f"the server did not start: {self.log_tail()}") from None
        return self

    def _answers(self) -> bool:
        import httpx

        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(
                f"the server exited with {self.process.returncode}: {self.log_tail()}"
            )
        with contextlib.suppress(httpx.HTTPError):
            return http().get(self.url + self.ready, timeout=1).status_code == 200
        return False

    def log_tail(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-2000:]

    def kill(self) -> None:
        """kill -9 the server and its workers (its whole process group)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        with contextlib.suppress(Exception):
            self.log.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        with contextlib.suppress(Exception):
            self.log.close()


@contextlib.contextmanager
def live(argv: list[str], env: dict[str, str], log: Path, port: int | None = None,
         **options: Any) -> Iterator[LiveServer]:  # fmt: skip
    """A ``LiveServer`` started, and stopped at the end (``options``: its ``cwd``, ``ready``)."""
    server = LiveServer(argv, port or free_port(), env, log, **options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def uvicorn_argv(factory: str, port: int, workers: int = 1) -> list[str]:
    """uvicorn serving an app factory (``tests.server.apps:stacked``...)."""
    return [sys.executable, "-m", "uvicorn", factory, "--factory", "--host", "127.0.0.1",
            "--port", str(port), "--workers", str(workers), "--no-access-log"]  # fmt: skip


def serve_argv(port: int, data_dir: Path) -> list[str]:
    """The real command a player or operator runs."""
    baccarat = str(Path(sys.executable).with_name("baccarat"))
    return [baccarat, "serve", "--port", str(port), "--data-dir", str(data_dir)]
