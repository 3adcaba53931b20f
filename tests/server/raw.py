"""Raw sockets against a live server: connections from a chosen loopback address (on Linux
all of 127.0.0.0/8 is loopback, so 127.0.0.2 is another client to the server) and the
status and JSON body of an answer."""

from __future__ import annotations

import json
import os
import socket
import weakref
from typing import Any

# A bound on how long a test waits for the server (not a speed test: only a server that
# does not answer at all runs into it).
WAIT_S = 60


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=WAIT_S, source_address=(source, 0))


# What a read took past the end of an answer: the start of the next one.
_unread: weakref.WeakKeyDictionary[socket.socket, bytes] = weakref.WeakKeyDictionary()


def read_answer(sock: socket.socket) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of the server's next answer; status 0 if the connection
    ended (closed or reset) without one."""
    data = _unread.pop(sock, b"")
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return 0, {}
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in head.split(b"\r\n")
             if line.lower().startswith(b"content-length:")), 0,
        )  # fmt: skip
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    except (ConnectionResetError, BrokenPipeError):
        return 0, {}
    body, _unread[sock] = body[:length], body[length:]
    status = int(head.split(b" ", 2)[1])
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"text": body.decode(errors="replace")}


def send(sock: socket.socket, data: bytes) -> bool:
    """Send all of ``data``; False if the server closed the connection meanwhile."""
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def get(path: str, *, close: bool = False, extra: bytes = b"") -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()
        + (b"Connection: close\r\n" if close else b"")
        + extra
        + b"\r\n"
    )


def request(port: int, path: str = "/api/health", source: str = "127.0.0.1") -> int:
    """The status of one request on a fresh connection (0: refused without an answer)."""
    try:
        sock = connect(port, source)
    except ConnectionError:
        return 0
    with sock:
        if not send(sock, get(path, close=True)):
            return 0
        return read_answer(sock)[0]


def error_code(body: dict[str, Any]) -> str | None:
    error = body.get("error")
    return error.get("code") if isinstance(error, dict) else None


def recv_exact(sock: socket.socket, size: int) -> bytes:
    """``size`` bytes of what follows (after what ``read_answer`` read ahead)."""
    data = _unread.pop(sock, b"")
    while len(data) < size:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    _unread[sock] = data[size:]
    return data[:size]


def ws_send_text(sock: socket.socket, text: str) -> None:
    """One masked text frame (a client's frames are masked), of under 126 bytes."""
    payload = text.encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)


def ws_receive_text(sock: socket.socket) -> str:
    """The next text frame from the server (unmasked, unfragmented)."""
    first, second = recv_exact(sock, 2)
    assert first == 0x81, hex(first)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(recv_exact(sock, 2), "big")
    elif size == 127:
        size = int.from_bytes(recv_exact(sock, 8), "big")
    return recv_exact(sock, size).decode()
