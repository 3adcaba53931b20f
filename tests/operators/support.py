"""The game server and the demo operator as real processes on 127.0.0.1, and a client of
both that signs as the operator does."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.server.wallets.operator.signing import headers, timestamp

from ..harness import LiveServer, free_port, http, python_path

OPERATOR = "demo"
SECRET = "a-test-secret-of-the-demo-operator"
SECRET_ENV = "TEST_OPERATOR_SECRET"
BACCARAT = str(Path(sys.executable).with_name("baccarat"))
FIRST_TRY = Path(__file__).with_name("first_try")


PROTOCOLS = ("v1", "actions")  # the wallet contracts (wallets.operator.protocols)


def operators_file(folder: Path, wallet_port: int, timeout_s: float,
                   currencies: tuple[str, ...] = ("USD", "EUR", "JPY"),
                   protocol: str = "v1") -> Path:  # fmt: skip
    path = folder / "operators.toml"
    listed = ", ".join(f'"{c}"' for c in currencies)
    path.write_text(
        f'[[operator]]\nid = "{OPERATOR}"\nsecret_env = "{SECRET_ENV}"\n'
        f'wallet_url = "http://127.0.0.1:{wallet_port}/wallet"\ncurrencies = [{listed}]\n'
        f'timeout_s = {timeout_s}\nprotocol = "{protocol}"\n'
    )
    return path


def game_server(folder: Path, port: int, operators: Path, log: Path,
                poll_s: float = 0.2, max_backoff_s: float = 1.0,
                tables: Path | None = None, database: str | None = None,
                first_try_fails: tuple[str, ...] = ()) -> LiveServer:  # fmt: skip
    """``first_try_fails``: the operator's players whose placements' first tries fail once
    they have written, and run again (``first_try/sitecustomize.py``; only PostgreSQL's
    writer runs a unit of work again)."""
    store = ["--database", database] if database else ["--data-dir", str(folder / "game")]
    argv = [BACCARAT, "serve", "--port", str(port), *store, "--operators", str(operators)]
    if tables is not None:
        argv += ["--tables", str(tables)]
    env = {SECRET_ENV: SECRET, "BACCARAT_OPERATOR_POLL_S": str(poll_s),
           "BACCARAT_OPERATOR_MAX_BACKOFF_S": str(max_backoff_s)}  # fmt: skip
    if first_try_fails:
        env["TEST_FIRST_TRY_FAILS"] = ",".join(first_try_fails)
        env["PYTHONPATH"] = python_path(FIRST_TRY)
    return LiveServer(argv, port, env, log)


def demo_operator(folder: Path, port: int, game_port: int, log: Path, *, late: float = 0,
                  fail: float = 0, drop: float = 0, late_s: float = 1.0,
                  protocol: str = "v1") -> LiveServer:  # fmt: skip
    argv = [BACCARAT, "operator-demo", "--port", str(port), "--game-url",
            f"http://127.0.0.1:{game_port}", "--operator-id", OPERATOR, "--secret-env",
            SECRET_ENV, "--data-dir", str(folder / "operator"), "--late", str(late),
            "--fail", str(fail), "--drop", str(drop), "--late-s", str(late_s),
            "--protocol", protocol]  # fmt: skip
    return LiveServer(argv, port, {SECRET_ENV: SECRET}, log)


@dataclass
class Pair:
    game: LiveServer
    operator: LiveServer
    protocol: str = "v1"

    def signed_post(self, url: str, body: dict[str, Any], secret: str = SECRET) -> httpx.Response:
        raw = json.dumps(body).encode()
        return http().post(url, content=raw, timeout=30, headers={
            "Content-Type": "application/json", **headers(OPERATOR, secret, raw)})  # fmt: skip

    def admin(self, action: str, body: dict[str, Any]) -> Any:
        reply = self.signed_post(f"{self.operator.url}/admin/{action}", body)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def faults(self, **shares: float) -> None:
        """The demo operator's faults from now on (``late``, ``fail``, ``drop``)."""
        self.admin("faults", shares)

    def launch(self, player: str, **fields: Any) -> httpx.Response:
        token = fields.pop("token", None) or self.admin("session", {"player": player})["token"]
        body = {"request_uuid": str(uuid.uuid4()), "timestamp": timestamp(), "player": player,
                "token": token, "currency": "USD", "language": "en",
                "lobby_url": "http://lobby.example/", "demo": False} | fields  # fmt: skip
        return self.signed_post(f"{self.game.url}/operator/v1/launch", body)

    def session(self, player: str, **fields: Any) -> str:
        """A game session token for the operator's player (launched and exchanged)."""
        launched = self.launch(player, **fields)
        assert launched.status_code == 201, launched.text
        started = http().post(f"{self.game.url}/api/sessions/launch",
                             json={"code": launched.json()["code"]}, timeout=30)  # fmt: skip
        assert started.status_code == 201, started.text
        token: str = started.json()["token"]
        return token

    def admin_check(self) -> subprocess.CompletedProcess[str]:
        """``baccarat admin check`` of the game's database."""
        argv = self.game.argv
        flag = "--data-dir" if "--data-dir" in argv else "--database"
        return subprocess.run([BACCARAT, "admin", flag, argv[argv.index(flag) + 1], "check"],
                              capture_output=True, text=True)  # fmt: skip

    def report(self, query: str = "") -> list[dict[str, Any]]:
        """Every round of the report, page after page."""
        found: list[dict[str, Any]] = []
        after = ""
        while True:
            path = "/operator/v1/rounds" + (f"?{query}" if query else "")
            if after:
                path += ("&" if "?" in path else "?") + f"after={after}"
            reply = http().get(self.game.url + path, timeout=30,
                              headers=headers(OPERATOR, SECRET, path.encode()))  # fmt: skip
            assert reply.status_code == 200, reply.text
            page = reply.json()
            found += page["rounds"]
            if page["next"] is None:
                return found
            after = page["next"]


@contextlib.contextmanager
def pair(folder: Path, *, timeout_s: float = 2.0, tables: Path | None = None,
         database: str | None = None, first_try_fails: tuple[str, ...] = (),
         protocol: str = "v1", **faults: Any) -> Iterator[Pair]:  # fmt: skip
    """The game server and the demo operator speaking ``protocol``, in ``folder``."""
    game_port, wallet_port = free_port(), free_port()
    operators = operators_file(folder, wallet_port, timeout_s, protocol=protocol)
    operator = demo_operator(folder, wallet_port, game_port, folder / "operator.log",
                             protocol=protocol, **faults)  # fmt: skip
    game = game_server(folder, game_port, operators, folder / "game.log", tables=tables,
                       database=database, first_try_fails=first_try_fails)  # fmt: skip
    operator.start()
    try:
        game.start()
        try:
            yield Pair(game, operator, protocol)
        finally:
            game.stop()
    finally:
        operator.stop()


@contextlib.contextmanager
def database(store: str, name: str) -> Iterator[str | None]:
    """The game's database: None for SQLite (in its data folder), or for "postgresql" the
    address of a new database on a throwaway cluster (the test skips without PostgreSQL,
    or fails with BACCARAT_REQUIRE_POSTGRES=1)."""
    if store == "sqlite":
        yield None
        return
    from ..server import postgres

    try:
        cluster = postgres.throwaway_cluster()
        admin_url = cluster.__enter__()
    except (FileNotFoundError, OSError) as error:
        if postgres.REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: {error}")
        pytest.skip(f"PostgreSQL is unavailable: {error}")
    try:
        yield postgres.create_database(admin_url, name)
    finally:
        cluster.__exit__(None, None, None)


class Pairs:
    """Pairs started when first asked for, one per protocol, in a folder each (a module's
    tests that run for both contracts share them); stopped together (``close``)."""

    def __init__(self, folder: Path, tables: str | None = None, **options: Any) -> None:
        """``tables``: the text of the tables file (each pair has its own copy)."""
        self.folder, self.tables, self.options = folder, tables, options
        self.stack = contextlib.ExitStack()
        self.started: dict[str, Pair] = {}

    def __call__(self, protocol: str) -> Pair:
        if protocol not in self.started:
            folder = self.folder / protocol
            folder.mkdir(exist_ok=True)
            options = dict(self.options)
            if self.tables is not None:
                options["tables"] = folder / "tables.toml"
                options["tables"].write_text(self.tables)
            self.started[protocol] = self.stack.enter_context(
                pair(folder, protocol=protocol, **options)
            )
        return self.started[protocol]

    def __enter__(self) -> Pairs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()


def play(game_url: str, token: str, key: str, bets: dict[str, int] | None = None,
         table: str = "table-i", mode: str = "real") -> httpx.Response:  # fmt: skip
    return http().post(
        f"{game_url}/api/tables/{table}/rounds",
        json={"mode": mode, "bets": bets or {"banker": 1000}},
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key}, timeout=60,
    )  # fmt: skip
