"""One client cannot crowd the others out, against the real command (``baccarat serve``)
over raw sockets: a client address holds at most ``Limits.connections_per_address``
connections (HTTP and WebSocket) in a worker, the rest are refused at once, while another
address (127.0.0.2: all of 127.0.0.0/8 is loopback on Linux) is served; the server believes
``X-Forwarded-For`` only from the proxies it is told to trust, and leaves the number of
their connections to them. (Successes and refusals are counted; nothing here measures time.)
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..harness import LiveServer, free_port, live, serve_argv, until
from .raw import (
    connect,
    error_code,
    get,
    read_answer,
    request,
    send,
    ws_receive_text,
    ws_send_text,
)

ATTACKER, OTHER = "127.0.0.1", "127.0.0.2"
PASSWORD = "a good password"
# Long enough that idle connections stay open for the whole test: the server closes a
# connection that sends no head in time (a bound here, not something a test waits for).
HEAD_TIMEOUT = "120"
# How many times a test looks again for the server to have seen a connection close.
ATTEMPTS = 100


@contextlib.contextmanager
def server(tmp_path: Path, env: dict[str, str], *extra: str) -> Iterator[LiveServer]:
    port = free_port()
    argv = [*serve_argv(port, tmp_path / "data"), *extra]
    with live(argv, {"BACCARAT_HEAD_TIMEOUT": HEAD_TIMEOUT} | env, tmp_path / "log", port) as s:
        yield s


@contextlib.contextmanager
def idle(port: int, count: int, source: str = ATTACKER) -> Iterator[list[socket.socket]]:
    """``count`` connections from ``source`` that send nothing."""
    socks = [connect(port, source) for _ in range(count)]
    try:
        yield socks
    finally:
        for sock in socks:
            sock.close()


def served_and_refused(socks: list[socket.socket]) -> tuple[int, int]:
    """A request on each connection: how many were answered 200, and how many refused
    (503 ``too_many_connections`` or ``server_busy``, or closed without an answer)."""
    served = refused = 0
    for sock in socks:
        status, body = read_answer(sock) if send(sock, get("/api/health")) else (0, {})
        if status == 200:
            served += 1
        elif status == 0 or (
            status == 503 and error_code(body) in ("too_many_connections", "server_busy")
        ):
            refused += 1
    return served, refused


def eventually_served(port: int, source: str) -> bool:
    """True once a request from ``source`` is answered 200 (the server has seen the other
    connections close)."""
    until(lambda: request(port, source=source), f"{source} is served", done=lambda s: s == 200,
          timeout=ATTEMPTS * 0.05)  # fmt: skip
    return True


def session(port: int, nickname: str, source: str) -> str:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", transport=transport) as client:
        body = {"nickname": nickname, "password": PASSWORD}
        assert client.post("/api/accounts", json=body).status_code == 201
        token: str = client.post("/api/sessions", json=body).json()["token"]
        return token


def websocket(port: int, token: str, source: str = ATTACKER) -> tuple[socket.socket, int]:
    """A lobby WebSocket opened by hand; the status of the handshake's answer (101 when
    it is open, 0 when the connection was refused without an answer)."""
    sock = connect(port, source)
    key = base64.b64encode(os.urandom(16))
    extra = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
             b"Sec-WebSocket-Key: " + key + b"\r\nAuthorization: Bearer " + token.encode()
             + b"\r\n")  # fmt: skip
    if not send(sock, get("/api/seats/ws", extra=extra)):
        return sock, 0
    return sock, read_answer(sock)[0]


def test_idle_connections_of_one_address_do_not_lock_others_out(tmp_path: Path) -> None:
    # Past the worker's cap by itself: before, every other client was answered 503.
    env = {"BACCARAT_MAX_CONNECTIONS": "40", "BACCARAT_CONNECTIONS_PER_ADDRESS": "8"}
    with server(tmp_path, env) as s:
        with idle(s.port, 45) as held:
            others = [request(s.port, source=OTHER) for _ in range(20)]
            assert others == [200] * 20
            # A new connection of the crowding address is refused at once, with the code.
            with connect(s.port, ATTACKER) as sock:
                status, body = read_answer(sock)
            assert (status, error_code(body)) == (503, "too_many_connections"), body
            assert body["error"]["details"] == {"limit": 8}
            # The address kept its share: 8 of its connections are served, the others were
            # refused.
            assert served_and_refused(held) == (8, 37)
            assert request(s.port, source=OTHER) == 200
        # Once they are closed, the address is served again.
        assert eventually_served(s.port, ATTACKER)


def test_websockets_count_among_an_address_connections(tmp_path: Path) -> None:
    env = {"BACCARAT_CONNECTIONS_PER_ADDRESS": "4"}
    with server(tmp_path, env) as s:
        token = session(s.port, "sockets", OTHER)
        opened = [websocket(s.port, token) for _ in range(4)]
        try:
            assert [status for _, status in opened] == [101] * 4
            for sock, _ in opened:
                # Open and working: the lobby's first message, and a pong for a ping.
                assert json.loads(ws_receive_text(sock))["type"] == "seats"
                ws_send_text(sock, '{"action": "ping"}')
                assert json.loads(ws_receive_text(sock)) == {"type": "pong"}
            assert request(s.port, source=ATTACKER) in (0, 503)
            fifth, status = websocket(s.port, token)
            fifth.close()
            assert status in (0, 503)
            assert request(s.port, source=OTHER) == 200
            # One socket closes: its place is given back.
            opened.pop()[0].close()
            assert eventually_served(s.port, ATTACKER)
        finally:
            for sock, _ in opened:
                sock.close()


def test_x_forwarded_for_is_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    env = {"BACCARAT_REGISTRATIONS_PER_HOUR": "1"}
    spoofed = {"X-Forwarded-For": "203.0.113.7"}
    with server(tmp_path, env) as s, httpx.Client(base_url=s.url) as client:
        assert client.post("/api/accounts", json={"nickname": "first", "password": PASSWORD}
                           ).status_code == 201  # fmt: skip
        # A loopback client that says it speaks for another address is still itself.
        answer = client.post(
            "/api/accounts", json={"nickname": "second", "password": PASSWORD}, headers=spoofed
        )
        assert answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"


def test_a_trusted_proxy_is_believed_and_left_its_connections(tmp_path: Path) -> None:
    env = {"BACCARAT_REGISTRATIONS_PER_HOUR": "1", "BACCARAT_CONNECTIONS_PER_ADDRESS": "2"}
    with server(tmp_path, env, "--forwarded-allow-ips", ATTACKER) as s:
        with httpx.Client(base_url=s.url) as client:
            for i, address in enumerate(("203.0.113.7", "203.0.113.8")):
                answer = client.post(
                    "/api/accounts",
                    json={"nickname": f"proxied{i}", "password": PASSWORD},
                    headers={"X-Forwarded-For": address},
                )
                assert answer.status_code == 201, answer.text
        # The proxy limits its own clients' connections (docs/deploy.md): not capped here.
        with idle(s.port, 6) as held:
            assert served_and_refused(held) == (6, 0)
        # Any other address is capped as before.
        with idle(s.port, 3, OTHER) as held:
            assert served_and_refused(held) == (2, 1)


def test_serve_refuses_a_forwarded_allow_ips_that_is_not_an_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main

    for value in ("proxy", "10.0.0.1,", "10.0.0.300", "*"):
        argv = ["serve", "--data-dir", str(tmp_path), "--forwarded-allow-ips", value]
        assert main(argv) == 2, value
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 4 and all("--forwarded-allow-ips" in line for line in errors)
    assert not (tmp_path / "baccarat.db").exists()


def asked(sock: socket.socket, path: str, token: str | None = None) -> tuple[int, dict[str, Any]]:
    """One request on a kept connection (with the token: a logged-in player's)."""
    extra = b"" if token is None else b"Authorization: Bearer " + token.encode() + b"\r\n"
    if not send(sock, get(path, extra=extra)):
        return 0, {}
    return read_answer(sock)


def test_anonymous_connections_hold_a_share_and_make_room_oldest_first(tmp_path: Path) -> None:
    # 40 connections a worker, 20 of them anonymous; 10 an address. Before, five addresses'
    # 50 idle connections (each address under its limit) got everyone else 503, a player
    # who had logged in too.
    env = {"BACCARAT_MAX_CONNECTIONS": "40", "BACCARAT_CONNECTIONS_PER_ADDRESS": "10"}
    with server(tmp_path, env) as s:
        token = session(s.port, "loggedin", OTHER)
        with connect(s.port, OTHER) as player:
            assert asked(player, "/api/wallet", token)[0] == 200  # now a logged-in connection
            crowd = [f"127.0.0.{n}" for n in range(3, 8)]
            held = [sock for source in crowd for sock in (connect(s.port, source)
                                                          for _ in range(10))]  # fmt: skip
            try:
                assert asked(player, "/api/wallet", token)[0] == 200
                # A newcomer takes the place of an idle anonymous connection.
                assert request(s.port, source="127.0.0.9") == 200
                # The crowd kept the anonymous share, shared out evenly: a newcomer took the
                # place of the address that held the most, or was refused when that would
                # not even the shares out (before, the oldest connections of all were
                # closed: the first three addresses lost all of theirs).
                shares = [served_and_refused(held[n : n + 10]) for n in range(0, 50, 10)]
                assert sorted(shares) == [(3, 7)] + [(4, 6)] * 4, shares
            finally:
                for sock in held:
                    sock.close()


def test_a_worker_holds_no_more_sockets_than_its_connections(tmp_path: Path) -> None:
    # Before, uvicorn's count of connections was never checked for a WebSocket's handshake:
    # 16 sockets of four addresses were held by a worker of 12 connections.
    env = {"BACCARAT_MAX_CONNECTIONS": "12", "BACCARAT_CONNECTIONS_PER_ADDRESS": "4"}
    with server(tmp_path, env) as s:
        tokens = [session(s.port, f"sockets{i}", OTHER) for i in range(2)]
        opened: list[socket.socket] = []
        statuses: list[int] = []
        try:
            for n in range(16):
                sock, status = websocket(s.port, tokens[n % 2], f"127.0.0.{3 + n % 4}")
                opened.append(sock)
                if status == 101:  # logged in once its first message came
                    assert json.loads(ws_receive_text(sock))["type"] == "seats"
                statuses.append(status)
            assert statuses == [101] * 12 + [503] * 4, statuses
            with connect(s.port, "127.0.0.9") as sock:
                status, body = read_answer(sock)
            assert (status, error_code(body)) == (503, "server_busy")
            assert body["error"]["details"] == {"limit": 12}
        finally:
            for sock in opened:
                sock.close()


def test_anonymous_reads_are_paced_per_address_and_logged_in_ones_are_not(
    tmp_path: Path,
) -> None:
    env = {"BACCARAT_ANONYMOUS_READS_PER_S": "0.01", "BACCARAT_ANONYMOUS_READS_BURST": "5"}
    with server(tmp_path, env) as s:
        # (Not 127.0.0.1, whose reads of /api/health waited for the server to start.)
        reader = "127.0.0.5"
        token = session(s.port, "reader", reader)
        with connect(s.port, reader) as player, connect(s.port, reader) as anonymous:
            assert asked(player, "/api/wallet", token)[0] == 200  # one of the address's five
            answers = [asked(anonymous, path) for path in ("/api/tables", "/openapi.json") * 3]
            assert [status for status, _ in answers] == [200] * 4 + [429] * 2
            error = answers[-1][1]["error"]
            assert error["code"] == "rate_limited" and error["details"]["retry_after"] >= 1
            # The connection stays open, refused until the allowance grows again.
            assert asked(anonymous, "/api/health")[0] == 429
            # Another address has its own; the logged-in connection is not paced.
            assert request(s.port, "/api/tables", OTHER) == 200
            assert [asked(player, "/api/tables", token)[0] for _ in range(6)] == [200] * 6
