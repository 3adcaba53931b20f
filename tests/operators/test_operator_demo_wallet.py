"""The demo operator's wallet in process, for each contract it speaks: what an integrator
learns the hard way, done on the operator's side. A request sent again is answered with the
first answer as it was sent (the same bytes, whatever changed since); a win or a rollback is
taken whatever became of the player's session; a bet is refused for the player's gambling
limit in the operator's words; a message left for a player goes with the next answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.operator_demo.app import DemoSettings, create_demo
from baccarat.server.wallets.operator.contract import Wager
from baccarat.server.wallets.operator.protocols import CONTRACTS

from .support import PROTOCOLS

pytestmark = pytest.mark.anyio
SECRET = "a-secret-of-the-demo"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Demo:
    """The demo operator's app, called as the game calls it (signed in its contract)."""

    def __init__(self, client: httpx.AsyncClient, protocol: str) -> None:
        self.client, self.contract = client, CONTRACTS[protocol]

    async def admin(self, action: str, body: dict[str, Any]) -> Any:
        from baccarat.server.wallets.operator.signing import headers

        raw = json.dumps(body).encode()
        reply = await self.client.post(f"/admin/{action}", content=raw,
                                       headers=headers("demo", SECRET, raw))  # fmt: skip
        assert reply.status_code == 200, reply.text
        return reply.json()

    async def call(self, call: str, body: dict[str, Any]) -> httpx.Response:
        raw = self.contract.encode(body)
        signed = self.contract.headers("demo", SECRET, raw)
        return await self.client.post(self.contract.url("/wallet", call), content=raw,
                                      headers=signed)  # fmt: skip

    def round(self, call: str, player: str, token: str, round_id: str, stake: int = 500,
              win: int = 1000, dealt: bool = True) -> dict[str, Any]:  # fmt: skip
        wager = Wager(round_id, player, token, "USD", "table-i", stake, win, {"banker": stake},
                      dealt=dealt)  # fmt: skip
        return self.contract.round_request(call, wager).body  # type: ignore[arg-type]

    def status(self, reply: httpx.Response) -> str:
        answer = self.contract.read_answer(reply.status_code, reply.content, True)
        return answer.status

    async def balance(self, player: str) -> int:
        players = (await self.admin("ledger", {}))["players"]
        return int(next(b for name, b, *_ in players if name == player))


@pytest.fixture(params=PROTOCOLS)
async def demo(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Demo]:
    settings = DemoSettings(tmp_path, "http://127.0.0.1:9", "demo", SECRET,
                            protocol=request.param)  # fmt: skip
    transport = httpx.ASGITransport(app=create_demo(settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        yield Demo(client, request.param)


async def test_a_request_sent_again_gets_its_first_answer_byte_for_byte(demo: Demo) -> None:
    token = (await demo.admin("session", {"player": "alice"}))["token"]
    await demo.admin("message", {"player": "alice", "text": "Time for a break?"})
    bet = demo.round("bet", "alice", token, "r_a1")
    first = await demo.call("bet", bet)
    assert demo.status(first) in ("RS_OK", "ok")
    assert b"Time for a break?" in first.content  # the message went with it, once
    # Whatever changed since (the balance, here), the same request gets the first answer,
    # as it was sent (its message too), and is not applied again.
    await demo.admin("balance", {"player": "alice", "balance": 123})
    again = await demo.call("bet", bet | {"request_uuid": "another-attempt"}
                            if demo.contract.name == "v1" else bet)  # fmt: skip
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers[demo.contract.signature_header] == (
        first.headers[demo.contract.signature_header])  # fmt: skip
    assert await demo.balance("alice") == 123


async def test_a_win_and_a_rollback_are_taken_with_an_expired_session(demo: Demo) -> None:
    token = (await demo.admin("session", {"player": "bob"}))["token"]
    start = await demo.balance("bob")
    # A shared coup's bet, its session ended before the deal: the win is owed.
    placed = await demo.call("bet", demo.round("bet", "bob", token, "r_b1", dealt=False))
    assert demo.status(placed) in ("RS_OK", "ok")
    await demo.admin("expire", {"player": "bob"})
    won = await demo.call("win", demo.round("win", "bob", token, "r_b1", dealt=False))
    assert demo.status(won) in ("RS_OK", "ok")
    # A new bet with that session is refused for it; the rollback of one is taken.
    refused = await demo.call("bet", demo.round("bet", "bob", token, "r_b2", dealt=False))
    assert demo.status(refused) in ("RS_ERROR_TOKEN_EXPIRED", "session_expired")
    token = (await demo.admin("session", {"player": "bob"}))["token"]
    placed = await demo.call("bet", demo.round("bet", "bob", token, "r_b3", dealt=False))
    await demo.admin("expire", {"player": "bob"})
    undone = await demo.call("rollback", demo.round("rollback", "bob", token, "r_b3",
                                                    dealt=False))  # fmt: skip
    assert demo.status(undone) in ("RS_OK", "ok")
    assert await demo.balance("bob") == start - 500 + 1000


async def test_a_bet_over_the_players_limit_is_refused_in_the_operators_words(
    demo: Demo,
) -> None:
    token = (await demo.admin("session", {"player": "carol"}))["token"]
    reason = "Your weekly loss limit of $50.00 is reached."
    await demo.admin("limit", {"player": "carol", "reason": reason})
    refused = await demo.call("bet", demo.round("bet", "carol", token, "r_c1"))
    answer = demo.contract.read_answer(refused.status_code, refused.content, True)
    assert demo.contract.limited(answer.status) and answer.reason == reason
    # A message left for the player goes with the next answer to them, once.
    await demo.admin("limit", {"player": "carol", "reason": None})
    await demo.admin("message", {"player": "carol", "text": "An hour played.",
                                 "choices": ["continue", "close"]})  # fmt: skip
    told = await demo.call("bet", demo.round("bet", "carol", token, "r_c2"))
    message = demo.contract.read_answer(told.status_code, told.content, True).message
    assert message is not None and (message.text, message.choices) == (
        "An hour played.", ("continue", "close"))  # fmt: skip
    later = await demo.call("bet", demo.round("bet", "carol", token, "r_c3"))
    assert demo.contract.read_answer(later.status_code, later.content, True).message is None
    chosen = await demo.call("message", demo.contract.choice_request(
        "carol", token, "USD", message.id, "close").body)  # fmt: skip
    assert demo.status(chosen) in ("RS_OK", "ok")
    kept = (await demo.admin("ledger", {}))["messages"]
    assert [(m["player"], m["choice"]) for m in kept] == [("carol", "close")]
