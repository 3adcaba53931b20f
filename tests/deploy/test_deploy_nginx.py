"""The deployment guide followed to the letter: docs/deploy.md's nginx block in front of two
``baccarat serve`` processes of two workers each, on one PostgreSQL database.

The nginx configuration is read out of the guide itself (its one ```nginx block), with only
the ports and the certificate swapped for the test's: a TLS port on 127.0.0.1, a
self-signed certificate, the two processes' ports in the upstream. It goes into the
``http {}`` context of a small main configuration of the test's own (what
/etc/nginx/nginx.conf is on Debian), with the pid file, logs and temporary folders in the
test's folder, and nginx runs as a child process in the foreground. PostgreSQL is a
throwaway cluster, with the role and database the guide creates (a login role that is no
superuser, owning the database); ``baccarat admin migrate`` and the two ``baccarat serve``
commands are the guide's (``--forwarded-allow-ips 127.0.0.1``, ``BACCARAT_COOKIE_SECURE=1``
behind TLS), with ``--access-log``: the processes' logs say which of them served what.

Then, through nginx only, as browsers would (the session cookie, the CSRF header on writes,
and the page's Origin on sockets), players load the page, list the seats and sit down, play
a player-banked round over both seat sockets, and play house rounds that nginx spreads over
both processes; an API client follows the lobby over a socket with a Bearer header. The
process that holds the banker's socket is killed with kill -9 while house rounds go on: the
seat sockets it held drop and reconnect through nginx to the other process, the seat is as
it was and nobody is on the way out of it; the seat plays on, and every house round (one
cut off by the kill is retried with its Idempotency-Key, as the page does) is played once.
At the end ``baccarat admin check`` passes, and no session token (nor the database's
password) appears in any log: nginx's access and error logs, both servers' output and
PostgreSQL's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from baccarat.server.db.database import Database
from baccarat.server.kinds.banked import seats, timing
from baccarat.server.settings import DatabaseUrl, system_clock_us

from ..harness import LiveServer, free_port, until, until_async
from ..server import postgres
from ..server.banked import Participant, seat_of
from ..server.support import self_signed

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "deploy.md"
REQUIRE = os.environ.get("BACCARAT_REQUIRE_NGINX") == "1"
BACCARAT = str(Path(sys.executable).with_name("baccarat"))
WAIT_S = 30.0
PASSWORD = "a good password"
DB_PASSWORD = "db-secret-7f3a"
HOUSE_ROUNDS = 8
# What uvicorn logs when a process accepts a seat socket.
ACCEPTED = '/ws" [accepted]'


# -- the guide's configuration -------------------------------------------------------------


def guide_block(language: str) -> str:
    """The guide's one fenced block in ``language``."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), re.M | re.S)
    assert len(blocks) == 1, f"docs/deploy.md has {len(blocks)} ```{language} blocks, not one"
    return str(blocks[0])


def _swap(text: str, pattern: str, replacement: str) -> str:
    swapped, count = re.subn(pattern, replacement, text)
    assert count == 1, f"docs/deploy.md's nginx block has {count} matches of {pattern!r}"
    return swapped


def nginx_config(tmp: Path, port: int, upstreams: tuple[int, int], cert: Path, key: Path) -> str:
    """The main configuration, with the guide's block (its ports and certificate swapped)
    as the ``http {}`` context's content."""
    block = guide_block("nginx")
    block = _swap(block, r"\blisten\s+443\b", f"listen 127.0.0.1:{port}")
    block = _swap(block, r"(\bssl_certificate\s+)[^;\s]+;", rf"\g<1>{cert};")
    block = _swap(block, r"(\bssl_certificate_key\s+)[^;\s]+;", rf"\g<1>{key};")
    block = _swap(block, r"\bserver\s+127\.0\.0\.1:8001;", f"server 127.0.0.1:{upstreams[0]};")
    block = _swap(block, r"\bserver\s+127\.0\.0\.1:8002;", f"server 127.0.0.1:{upstreams[1]};")
    temp = tmp / "nginx-temp"
    temp.mkdir()
    temp_paths = "\n".join(
        f"    {kind}_temp_path {temp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root, the workers would otherwise run as nobody, who may not write the test's
    # folders; the guide's block is the same either way.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}worker_processes 1;\ndaemon off;\npid {tmp / 'nginx.pid'};\n"
        f"error_log {tmp / 'nginx-error.log'} info;\n"
        "events { worker_connections 512; }\n"
        f"http {{\n    access_log {tmp / 'nginx-access.log'};\n{temp_paths}\n\n{block}}}\n"
    )


def _nginx_binary() -> str:
    found = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None
    )
    if found is None or shutil.which("openssl") is None:
        missing = "nginx" if found is None else "openssl"
        if REQUIRE:
            pytest.fail(f"BACCARAT_REQUIRE_NGINX=1 but {missing} is not installed")
        pytest.skip(f"{missing} is not installed (Debian: apt-get install nginx)")
    return found


@contextlib.contextmanager
def running_nginx(nginx: str, tmp: Path, config: str, site: str, tls: ssl.SSLContext
                  ) -> Iterator[subprocess.Popen[bytes]]:  # fmt: skip
    conf = tmp / "nginx.conf"
    conf.write_text(config)
    argv = [nginx, "-p", str(tmp), "-c", str(conf), "-e", str(tmp / "nginx-error.log")]
    tested = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=60)
    assert tested.returncode == 0, tested.stderr
    with (tmp / "nginx.out").open("ab") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:

        def answers() -> bool:
            assert process.poll() is None, (tmp / "nginx-error.log").read_text()[-2000:]
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(site + "/api/health", verify=tls, timeout=2).status_code == 200
            return False

        until(answers, "nginx answers /api/health", timeout=WAIT_S, every=0.1)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGQUIT)  # a graceful stop: the logs are complete
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)


# -- the database, as the guide makes it -----------------------------------------------------


def create_role_and_database(admin_url: str) -> str:
    """The guide's role and database: a login role, no superuser, owning the database."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE baccarat LOGIN PASSWORD '{DB_PASSWORD}'")
        conn.execute("CREATE DATABASE baccarat OWNER baccarat")
    host = admin_url.split("@", 1)[1].rsplit("/", 1)[0]
    return f"postgresql://baccarat:{DB_PASSWORD}@{host}/baccarat"


# -- browsers ------------------------------------------------------------------------------


@dataclass
class Site:
    """What ``Participant`` calls its server: the site's address and this browser's HTTP
    client (with its own cookie jar)."""

    url: str
    http: httpx.AsyncClient


class Browser(Participant):
    """A player in a browser: the HttpOnly session cookie, the CSRF header (the page reads
    the ``baccarat_csrf`` cookie) and Origin on writes; the seat socket opened with the
    cookies and the page's Origin, over TLS through nginx."""

    def __init__(self, site: Site, nickname: str, token: str, player_id: int,
                 tls: ssl.SSLContext):  # fmt: skip
        super().__init__(site, nickname, token, player_id)  # type: ignore[arg-type]
        self.site, self.tls = site, tls

    @property
    def headers(self) -> dict[str, str]:
        csrf = self.site.http.cookies.get("baccarat_csrf")
        assert csrf is not None
        return {"X-CSRF-Token": csrf, "Origin": self.site.url}

    def ws_url(self, seat_id: str) -> str:
        return f"{self.site.url.replace('https://', 'wss://')}/api/seats/{seat_id}/ws"

    async def connect(self, seat_id: str) -> dict[str, Any]:
        cookies = "; ".join(f"{name}={value}" for name, value in self.site.http.cookies.items())
        self.ws = await connect(
            self.ws_url(seat_id), ssl=self.tls, origin=Origin(self.site.url),
            additional_headers={"Cookie": cookies}, open_timeout=WAIT_S,
        )  # fmt: skip
        self.backlog = []
        first = await self.event("state")
        self.backlog.append(first)
        return first


async def open_browser(url: str, tls: ssl.SSLContext, nickname: str) -> Browser:
    """Register and log in from a new browser; the token is kept for the log check only."""
    site = Site(url, httpx.AsyncClient(base_url=url, verify=tls, timeout=WAIT_S))
    body = {"nickname": nickname, "password": PASSWORD}
    origin = {"Origin": url}
    created = await site.http.post("/api/accounts", json=body, headers=origin)
    assert created.status_code == 201, created.text
    session = await site.http.post("/api/sessions", json=body, headers=origin)
    assert session.status_code == 201, session.text
    assert site.http.cookies.get("baccarat_session") == session.json()["token"]
    return Browser(site, nickname, session.json()["token"], created.json()["id"], tls)


@dataclass
class House:
    """House rounds played by browsers, each under its own Idempotency-Key, retried with
    the same key while the answer is lost (502, 503, 504), as the page does."""

    keys: list[str] = field(default_factory=list)
    played: set[str] = field(default_factory=set)
    lost: int = 0

    async def play(self, browser: Browser) -> None:
        key = f"house-{len(self.keys)}"
        self.keys.append(key)
        for _ in range(50):
            try:
                answer = await browser.call(
                    "POST", "/api/tables/table-i/rounds",
                    {"mode": "fun", "bets": {"banker": 500}}, **{"Idempotency-Key": key},
                )  # fmt: skip
            except httpx.TransportError:  # the page's "network_error": the same retry
                self.lost += 1
                await asyncio.sleep(0.25)
                continue
            if answer.status_code not in (502, 503, 504):
                break
            self.lost += 1
            await asyncio.sleep(0.25)
        assert answer.status_code == 201, answer.text
        self.played.add(answer.json()["id"])

    async def keep_playing(self, browser: Browser, stop: asyncio.Event) -> None:
        """Rounds one after another until ``stop`` (paced well under nginx's 20 a second
        per client address, which every browser of the test shares)."""
        while not stop.is_set():
            await self.play(browser)
            await asyncio.sleep(0.1)


# -- the servers ---------------------------------------------------------------------------


def _serve(port: int, url: str, log: Path) -> LiveServer:
    """The guide's command for a process on the proxy's host, with an access log."""
    argv = [BACCARAT, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2",
            "--forwarded-allow-ips", "127.0.0.1", "--access-log"]  # fmt: skip
    env = {"BACCARAT_DATABASE_URL": url, "BACCARAT_COOKIE_SECURE": "1"}
    return LiveServer(argv, port, env, log)


def _count(log: Path, needle: str) -> int:
    return log.read_text(errors="replace").count(needle)


# -- the test ------------------------------------------------------------------------------


def test_behind_the_guides_nginx_block_two_processes_serve_seats_and_rounds_and_a_kill_is_survived(
    tmp_path: Path,
) -> None:
    nginx = _nginx_binary()
    cert, key = self_signed(tmp_path, "casino")
    tls = ssl.create_default_context(cafile=str(cert))
    cluster = postgres.cluster_or_skip()
    servers: list[LiveServer] = []
    try:
        admin_url = cluster.start().url
        url = create_role_and_database(admin_url)
        migrated = subprocess.run(
            [BACCARAT, "admin", "migrate"], env=os.environ | {"BACCARAT_DATABASE_URL": url},
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        ports = free_port(), free_port()
        logs = tmp_path / "serve-a.log", tmp_path / "serve-b.log"
        servers += [_serve(port, url, log) for port, log in zip(ports, logs, strict=True)]
        with ThreadPoolExecutor(2) as starting:  # both at once: each takes seconds
            list(starting.map(LiveServer.start, servers))
        port = free_port()
        site = f"https://127.0.0.1:{port}"
        config = nginx_config(tmp_path, port, ports, cert, key)
        db = Database(DatabaseUrl.parse(admin_url.rsplit("/", 1)[0] + "/baccarat"),
                      clock=system_clock_us)  # fmt: skip
        try:
            with running_nginx(nginx, tmp_path, config, site, tls):
                tokens = asyncio.run(_scenario(site, tls, servers, logs, db))
        finally:
            db.close()
        for server in servers:
            server.stop()
        checked = subprocess.run(
            [BACCARAT, "admin", "check"], env=os.environ | {"BACCARAT_DATABASE_URL": url},
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        for server in servers:
            server.stop()
        cluster.stop()

    # No session token, nor the database's password, in any log.
    logged = {path.name: path.read_text(errors="replace") for path in
              [*tmp_path.glob("*.log"), tmp_path / "nginx.out", cluster.log]}  # fmt: skip
    assert "/api/seats/banked-i" in logged["nginx-access.log"]
    assert '"POST /api/tables/table-i/rounds HTTP/1.1" 201' in logged["serve-a.log"]
    for secret in [*tokens, DB_PASSWORD]:
        leaks = [name for name, text in logged.items() if secret in text]
        assert not leaks, f"a secret is in {leaks}"
    cluster.remove()


async def _scenario(site: str, tls: ssl.SSLContext, servers: list[LiveServer],
                    logs: tuple[Path, Path], db: Database) -> list[str]:  # fmt: skip
    """The players' evening; the session tokens it used."""
    banker = await open_browser(site, tls, "banker")
    player = await open_browser(site, tls, "player")
    other = await open_browser(site, tls, "other")
    browsers = [banker, player, other]
    lobby: ClientConnection | None = None
    try:
        page = await banker.site.http.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]

        # The lobby: the seats (GET /api/seats) and an API client's socket on the list.
        listed = await banker.call("GET", "/api/seats")
        assert listed.status_code == 200, (listed.status_code, listed.text)
        bearer = {"Authorization": f"Bearer {other.token}"}
        lobby = await connect(site.replace("https://", "wss://") + "/api/seats/ws", ssl=tls,
                              additional_headers=bearer)  # fmt: skip
        assert json.loads(await lobby.recv())["type"] == "seats"

        # Sitting down (POST /api/seats) and the seat sockets, each on the process nginx
        # chose: the processes' logs say which.
        where: dict[str, int] = {}
        for who, role in ((banker, "banker"), (player, "player")):
            before = [_count(log, ACCEPTED) for log in logs]
            seat = await who.sit("banked-i", role)
            where[role] = await _accepted_on(logs, before)
        assert await player.state(lambda m: seat_of(m)["needs"] == [])

        # A player-banked round over the two cookie-authenticated sockets.
        await _banked_round(banker, player)

        # House rounds: nginx spreads them over both processes.
        house = House()
        rounds = '"POST /api/tables/table-i/rounds HTTP/1.1" 201'
        for i in range(HOUSE_ROUNDS):
            await house.play(browsers[i % len(browsers)])
        spread = [_count(log, rounds) for log in logs]
        assert all(count > 0 for count in spread) and sum(spread) == HOUSE_ROUNDS, spread

        # kill -9 of the process that holds the banker's socket (and maybe the player's),
        # with house rounds being played meanwhile: one cut off is retried with its key.
        seen = await banker.call("GET", f"/api/seats/{seat}")
        assert seen.status_code == 200, seen.text
        stop = asyncio.Event()
        playing = asyncio.get_running_loop().create_task(house.keep_playing(other, stop))
        await asyncio.sleep(0.3)
        dead = where["banker"]
        await asyncio.to_thread(servers[dead].kill)
        for who, role in ((banker, "banker"), (player, "player")):
            if where[role] != dead:
                continue
            assert await who.closed_with() is not None  # nginx closed it
            state = seat_of(await who.connect(seat))  # through nginx, to the other process
            assert _kept(state) == _kept(seen.json()["seat"]), (state, seen.text)

        # The live process forgets the dead one's connections: one left per participant,
        # both live, and nobody is on the way out (no reconnect grace running).
        def settled() -> bool:
            row = db.run_read(lambda uow: seats.load(uow, seat, lock=False))
            present = db.run_read(lambda uow: _presence(uow, seat))
            away = [role for role in ("banker", "player") if row.grace_us[role] is not None]
            return present == 2 and not db.run_read(timing.dead_workers) and not away

        await until_async(
            lambda: asyncio.to_thread(settled),
            "the dead process's connections forgotten",
            timeout=WAIT_S,
            every=0.1,
        )
        row = await asyncio.to_thread(db.run_read, lambda uow: seats.load(uow, seat, lock=False))
        assert (row.banker_id, row.player_id) == (banker.id, player.id)

        # The seat plays on; so do the house rounds, each played once.
        await _banked_round(banker, player)
        stop.set()
        await playing
        for i in range(HOUSE_ROUNDS):
            await house.play(browsers[i % len(browsers)])
        assert len(house.played) == len(house.keys)

        def house_rounds(uow: Any) -> int:
            return int(uow.scalar("SELECT COUNT(*) FROM rounds WHERE table_id = 'table-i'"))

        assert await asyncio.to_thread(db.run_read, house_rounds) == len(house.keys)
        return [who.token for who in browsers]
    finally:
        if lobby is not None:
            await lobby.close()
        for who in browsers:
            with contextlib.suppress(Exception):
                await who.disconnect()
            await who.site.http.aclose()


async def _banked_round(banker: Browser, player: Browser) -> None:
    """The banker approves, the player deals: both see the round, then the seat waits for
    the next approval."""
    assert (await banker.send("approve"))["ok"]
    await player.state(lambda m: seat_of(m)["phase"] == "betting")
    dealt = await player.send("deal", bets={"banker": 1_000})
    assert dealt["ok"], dealt
    done = dealt["result"]["id"]
    for who in (player, banker):
        assert (await who.event("round"))["round"]["id"] == done
        await who.state(lambda m: (seat_of(m)["last_round"] or {}).get("id") == done
                        and seat_of(m)["phase"] == "approval")  # fmt: skip


def _kept(seat: dict[str, Any]) -> dict[str, Any]:
    """What a reconnect must find as it was: all of the seat but its running timer."""
    return {key: value for key, value in seat.items() if key != "timer"}


def _presence(uow: Any, seat_id: str) -> int:
    return int(uow.scalar("SELECT COUNT(*) FROM banked_presence WHERE seat_id = :s",
                          {"s": seat_id}))  # fmt: skip


async def _accepted_on(logs: tuple[Path, Path], before: list[int]) -> int:
    """The process (0 or 1) whose log shows a seat socket accepted since ``before``."""

    def grown() -> list[int]:
        return [i for i, log in enumerate(logs) if _count(log, ACCEPTED) > before[i]]

    (process,) = await until_async(
        lambda: asyncio.to_thread(grown),
        "a seat socket accepted by one of the processes",
        timeout=WAIT_S,
        every=0.1,
    )
    return int(process)
