"""The request head limit (16 KiB: request line and headers) against the real command
(``baccarat serve``) over raw sockets: the bytes of a head are counted as they arrive,
before they are parsed, however the head is cut into packets (in one piece, split, after
another request on the same connection); a head over the limit is answered 431
``request_head_too_large`` and the connection closed; a body is not part of the head."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from baccarat.server.settings import Limits

from ..harness import LiveServer, free_port, live, serve_argv
from .raw import connect, error_code, read_answer, send

LIMIT = Limits.max_head
PREFIX = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
END = b"\r\n\r\n"


def head(size: int, prefix: bytes = PREFIX) -> bytes:
    """A complete GET head of exactly ``size`` bytes."""
    data = prefix + b"p" * (size - len(prefix) - len(END)) + END
    assert len(data) == size
    return data


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("heads")
    port = free_port()
    with live(serve_argv(port, folder / "data"), {}, folder / "server.log", port) as s:
        yield s


def answer(server: LiveServer, *pieces: bytes) -> tuple[int, dict[str, object]]:
    with connect(server.port) as sock:
        for piece in pieces:
            if not send(sock, piece):
                break
        return read_answer(sock)


def refused(status: int, body: dict[str, object]) -> bool:
    return status == 431 and error_code(body) == "request_head_too_large"


@pytest.mark.parametrize("size", [LIMIT - 1, LIMIT])
def test_a_head_up_to_the_limit_is_served(server: LiveServer, size: int) -> None:
    status, body = answer(server, head(size))
    assert status == 200, body


@pytest.mark.parametrize("size", [17_000, 40_000])
def test_a_head_over_the_limit_in_one_piece_is_refused(server: LiveServer, size: int) -> None:
    status, body = answer(server, head(size))
    assert refused(status, body), (status, body)
    assert body["error"]["details"] == {"limit": LIMIT}  # type: ignore[index]


def test_a_head_over_the_limit_in_pieces_is_refused(server: LiveServer) -> None:
    data = head(17_000)
    status, body = answer(server, data[:16_000], data[16_000:])
    assert refused(status, body), (status, body)


def test_a_head_of_many_small_headers_is_refused(server: LiveServer) -> None:
    lines = b"".join(b"X-H-%d: %s\r\n" % (i, b"v" * 30) for i in range(1000))
    data = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines + b"\r\n"
    status, body = answer(server, data)
    assert refused(status, body), (status, body)


def test_a_long_request_line_is_refused(server: LiveServer) -> None:
    data = b"GET /api/health?" + b"q" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    status, body = answer(server, data)
    assert refused(status, body), (status, body)


def test_a_head_over_the_limit_after_another_request_is_refused(server: LiveServer) -> None:
    with connect(server.port) as sock:
        # One send: a small request, then an oversized one on the same connection.
        assert send(sock, head(100) + head(40_000))
        assert read_answer(sock)[0] == 200
        status, body = read_answer(sock)
    assert refused(status, body), (status, body)


def test_the_body_is_not_counted_as_head(server: LiveServer) -> None:
    body = b'{"nickname": "' + b"n" * 50_000 + b'"}'
    data = (
        b"POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    )
    status, answered = answer(server, data + body)
    assert status == 422 and error_code(answered) in ("invalid_nickname", "invalid_body")


def test_a_chunked_body_s_trailers_count_as_a_head(server: LiveServer) -> None:
    # Trailer lines come after the last chunk and are kept whole until each ends, like a
    # head's: 20 MB of one used to be held until the body's deadline. Now the server stops
    # reading past the head limit and closes the connection.
    with connect(server.port) as sock:
        sent = send(
            sock,
            b"POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b"\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-Trailer: ",
        )
        for _ in range(20):
            sent = sent and send(sock, b"t" * (1 << 20))
        assert not sent
        assert read_answer(sock)[0] == 0


def test_small_trailers_and_many_chunks_are_read(server: LiveServer) -> None:
    chunks = b"".join(b"1\r\n%s\r\n" % bytes([c]) for c in b'{"nickname": "x"}')
    data = (
        b"POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + chunks
        + b"0\r\nX-Trailer: "
        + b"t" * 10_000
        + b"\r\n\r\n"
    )
    status, body = answer(server, data)
    assert status == 422 and error_code(body) in ("invalid_nickname", "invalid_body"), body
