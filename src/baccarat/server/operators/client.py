"""The calls to operators' wallets over HTTP: signed, with the operator's timeout, never
blocking the event loop; every failure is an ``RS_ERROR_UNKNOWN`` answer, never an
exception.

One pooled client per process (aiohttp: its keep-alive pool holds up under hundreds of
concurrent calls, where httpx's serialises them, encode/httpx#3215). Its idle connections
are closed after ``KEEPALIVE_S``, sooner than most servers close theirs (uvicorn's 5 s), so
that a call rarely meets a connection the operator has just closed; one that does (the
connection was closed before an answer came) is sent again at once on a fresh connection:
by the contract a repeated transaction id gets the first answer, so a repeat is safe.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from ..jsontext import compact
from . import signing
from .config import Operator
from .outbox import STATUSES, UNKNOWN, Answer, Call

KEEPALIVE_S = 4.0
MAX_ANSWER_BYTES = 1 << 20  # an answer is a few dozen bytes; a megabyte is a broken wallet


class WalletClient:
    def __init__(self, max_connections: int = 100) -> None:
        # Made on the event loop (``OperatorDesk.start``): aiohttp binds to the running loop.
        self._http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=max_connections, keepalive_timeout=KEEPALIVE_S),
            skip_auto_headers=("User-Agent",),
        )

    async def close(self) -> None:
        await self._http.close()

    async def send(self, operator: Operator, call: Call) -> Answer:
        body = compact(call.body).encode()
        headers = {"Content-Type": "application/json", **operator.headers(body)}
        timeout = aiohttp.ClientTimeout(total=operator.timeout_s)
        url = f"{operator.wallet_url}/{call.call}"
        for last in (False, True):
            try:
                async with self._http.post(
                    url, data=body, headers=headers, timeout=timeout, allow_redirects=False
                ) as response:
                    content = await _content(response)
                    if content is None:
                        return Answer(UNKNOWN, http_status=response.status,
                                      error="the answer is too long")  # fmt: skip
                    return read_answer(operator, response.status, content,
                                       response.headers.get(signing.SIGNATURE_HEADER))  # fmt: skip
            except TimeoutError:
                return Answer(UNKNOWN, error="timeout")
            except aiohttp.ServerDisconnectedError as error:
                if last:
                    return Answer(UNKNOWN, error=f"no answer: {type(error).__name__}")
            except aiohttp.ClientError as error:
                return Answer(UNKNOWN, error=f"no answer: {type(error).__name__}")
        raise AssertionError("unreachable")


async def _content(response: aiohttp.ClientResponse) -> bytes | None:
    """The answer's body, or None past ``MAX_ANSWER_BYTES``."""
    content = b""
    async for chunk in response.content.iter_any():
        content += chunk
        if len(content) > MAX_ANSWER_BYTES:
            return None
    return content


def read_answer(operator: Operator, http_status: int, content: bytes, signature: str | None
                ) -> Answer:  # fmt: skip
    """An answer as the contract has it, or ``RS_ERROR_UNKNOWN`` saying what was wrong."""
    if http_status != 200:
        return Answer(UNKNOWN, http_status=http_status, error=f"HTTP {http_status}")
    if not operator.signs(content, signature):
        return Answer(UNKNOWN, http_status=http_status, error="the answer's signature is bad")
    try:
        data: Any = json.loads(content)
    except ValueError:
        return Answer(UNKNOWN, http_status=http_status, error="the answer is not JSON")
    status = data.get("status") if isinstance(data, dict) else None
    if status not in STATUSES:
        return Answer(UNKNOWN, http_status=http_status, error=f"unknown status {status!r}"[:200])
    balance = data.get("balance")
    if isinstance(balance, bool) or not isinstance(balance, int):
        balance = None
    return Answer(status, balance, http_status)
