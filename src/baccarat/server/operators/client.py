"""The calls to operators' wallets over HTTP: signed, with the operator's timeout, never
blocking the event loop (an asynchronous client); every failure is an ``RS_ERROR_UNKNOWN``
answer, never an exception."""

from __future__ import annotations

import json
from typing import Any

import httpx

from . import signing
from .config import Operator
from .outbox import STATUSES, UNKNOWN, Answer, Call


class WalletClient:
    def __init__(self, max_connections: int = 100) -> None:
        self._http = httpx.AsyncClient(
            limits=httpx.Limits(max_connections=max_connections), follow_redirects=False
        )

    async def close(self) -> None:
        await self._http.aclose()

    async def send(self, operator: Operator, call: Call) -> Answer:
        body = json.dumps(call.body, separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json", **operator.headers(body)}
        try:
            response = await self._http.post(
                f"{operator.wallet_url}/{call.call}", content=body, headers=headers,
                timeout=operator.timeout_s,
            )  # fmt: skip
        except httpx.TimeoutException:
            return Answer(UNKNOWN, error="timeout")
        except httpx.HTTPError as error:
            return Answer(UNKNOWN, error=f"no answer: {type(error).__name__}")
        return read_answer(operator, response.status_code, response.content,
                           response.headers.get(signing.SIGNATURE_HEADER))  # fmt: skip


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
