"""The game's client of operators' wallets against a wallet on loopback that answers as told:
signed answers are read, connections are kept and reused, a connection closed before its
answer is sent again once, and every failure is an ``RS_ERROR_UNKNOWN`` answer."""

from __future__ import annotations

import asyncio
import functools
import json
import shutil
import ssl
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from baccarat.server.wallets.operator.client import WalletClient
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.outbox import Call
from baccarat.server.wallets.operator.signing import headers

from .support import self_signed

pytestmark = pytest.mark.anyio

SECRET = "sixteen-chars-or-more"
CALL = Call(1, "r1", "acme", "bet", {"transaction_uuid": "b-r1", "amount": 100})


class Wallet:
    """A wallet that answers each request by ``reply(n)`` (n counts requests from 1):
    "ok", "close" (the connection closed, no answer), "bad" (a bad signature), "slow"."""

    def __init__(self, reply: Callable[[int], str]) -> None:
        self.reply = reply
        self.requests = 0
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))  # fmt: skip
                await reader.readexactly(length)
                self.requests += 1
                what = self.reply(self.requests)
                if what == "close":
                    break
                if what == "slow":
                    await asyncio.sleep(2)
                body = json.dumps({"status": "RS_OK", "balance": 900, "currency": "USD"}).encode()
                if what == "big":
                    body = b" " * (1 << 20) + body
                signature = headers("acme", SECRET if what != "bad" else "another-secret!!", body)
                extra = "".join(f"{k}: {v}\r\n" for k, v in signature.items())
                if what == "chunked":  # in two chunks
                    half = len(body) // 2
                    chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c)
                                      for c in (body[:half], body[half:]))  # fmt: skip
                    start = f"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n{extra}\r\n"
                    writer.write(start.encode() + chunks + b"0\r\n\r\n")
                elif what == "until-close":  # no length: the body ends with the connection
                    writer.write(f"HTTP/1.0 200 OK\r\n{extra}\r\n".encode() + body)
                    break
                else:
                    last = "Connection: close\r\n" if what == "last" else ""
                    answer = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{last}{extra}\r\n"
                    writer.write(answer.encode() + body)
                    if what == "last":
                        break
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def operator(self, scheme: str = "http") -> Operator:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        url = f"{scheme}://127.0.0.1:{port}/wallet"
        return Operator("acme", SECRET, url, ("USD",), None, 0.5)


SERVERS: list[asyncio.Server] = []


@pytest.fixture
async def client() -> AsyncIterator[WalletClient]:
    client = WalletClient()
    yield client
    await client.close()
    while SERVERS:
        server = SERVERS.pop()
        server.close()
        await server.wait_closed()


async def serving(reply: Callable[[int], str], tls: ssl.SSLContext | None = None) -> Wallet:
    wallet = Wallet(reply)
    wallet.server = await asyncio.start_server(wallet.handle, "127.0.0.1", 0, ssl=tls)
    SERVERS.append(wallet.server)
    return wallet


async def test_calls_are_signed_read_and_share_one_kept_connection(client: WalletClient) -> None:
    wallet = await serving(lambda n: "ok")
    answers = [await client.send(wallet.operator(), CALL) for _ in range(3)]
    assert [(a.status, a.balance, a.http_status) for a in answers] == [("RS_OK", 900, 200)] * 3
    assert (wallet.requests, wallet.connections) == (3, 1)


async def test_a_connection_closed_before_the_answer_is_sent_again_once(
    client: WalletClient,
) -> None:
    wallet = await serving(lambda n: "close" if n == 1 else "ok")
    answer = await client.send(wallet.operator(), CALL)
    assert (answer.status, wallet.requests, wallet.connections) == ("RS_OK", 2, 2)
    always = await serving(lambda n: "close")
    answer = await client.send(always.operator(), CALL)
    assert (answer.status, always.requests) == ("RS_ERROR_UNKNOWN", 2)
    assert answer.error == "no answer: the connection closed"


async def test_a_late_or_badly_signed_answer_is_unknown(client: WalletClient) -> None:
    slow = await serving(lambda n: "slow")
    answer = await client.send(slow.operator(), CALL)
    assert (answer.status, answer.error, slow.requests) == ("RS_ERROR_UNKNOWN", "timeout", 1)
    bad = await serving(lambda n: "bad")
    answer = await client.send(bad.operator(), CALL)
    assert (answer.status, answer.error) == ("RS_ERROR_UNKNOWN", "the answer's signature is bad")
    nobody = Operator("acme", SECRET, "http://127.0.0.1:9/wallet", ("USD",), None, 0.5)
    answer = await client.send(nobody, CALL)
    assert answer.status == "RS_ERROR_UNKNOWN" and answer.error is not None
    assert answer.error.startswith("no answer:")


async def test_answers_chunked_or_ending_with_the_connection_are_read(
    client: WalletClient,
) -> None:
    for reply, connections in (("chunked", 1), ("until-close", 3), ("last", 3)):
        wallet = await serving(functools.partial(lambda kind, n: kind, reply))
        answers = [await client.send(wallet.operator(), CALL) for _ in range(3)]
        assert [(a.status, a.balance) for a in answers] == [("RS_OK", 900)] * 3, reply
        # A connection the wallet closes (or says it will) is not used again.
        assert (wallet.requests, wallet.connections) == (3, connections), reply


async def test_an_answer_past_a_megabyte_is_unknown(client: WalletClient) -> None:
    wallet = await serving(lambda n: "big" if n == 1 else "ok")
    answer = await client.send(wallet.operator(), CALL)
    assert (answer.status, answer.error) == ("RS_ERROR_UNKNOWN", "the answer is too long")
    assert (await client.send(wallet.operator(), CALL)).status == "RS_OK"
    assert wallet.connections == 2  # the connection of the long answer was closed


async def test_an_idle_connection_is_not_kept_past_its_time(
    client: WalletClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from baccarat.server.wallets.operator import client as module

    wallet = await serving(lambda n: "ok")
    assert (await client.send(wallet.operator(), CALL)).status == "RS_OK"
    monkeypatch.setattr(module, "KEEPALIVE_S", 0.0)
    assert (await client.send(wallet.operator(), CALL)).status == "RS_OK"
    assert (wallet.requests, wallet.connections) == (2, 2)


async def test_an_https_wallet_is_called_over_tls_and_its_certificate_checked(
    client: WalletClient, tmp_path: Path
) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = self_signed(tmp_path, "wallet")
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    wallet = await serving(lambda n: "ok", tls=served)
    trusting = WalletClient(tls=ssl.create_default_context(cafile=str(cert)))
    try:
        answers = [await trusting.send(wallet.operator("https"), CALL) for _ in range(2)]
    finally:
        await trusting.close()
    assert [(a.status, a.balance) for a in answers] == [("RS_OK", 900)] * 2
    assert wallet.connections == 1  # kept over TLS too
    # The system's authorities do not know the wallet's certificate: no call goes through.
    refused = await client.send(wallet.operator("https"), CALL)
    assert refused.status == "RS_ERROR_UNKNOWN"
    assert refused.error == "no answer: SSLCertVerificationError"
