"""The demo operator's own pages, in process: its lobby shows the player's balance as money
of the wallet's currency."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from baccarat.operator_demo.app import DemoSettings, create_demo

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(("currency", "shown"), [("JPY", "¥100,000"), ("USD", "$1,000.00")])
async def test_the_lobby_shows_the_balance_in_the_wallets_currency(
    tmp_path: Path, currency: str, shown: str
) -> None:
    settings = DemoSettings(tmp_path, "http://127.0.0.1:9", "demo", "a-secret-of-the-demo",
                            currency=currency)  # fmt: skip
    # Its lifespan (the client of its calls to the game) is not needed by its pages.
    transport = httpx.ASGITransport(app=create_demo(settings))
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        await client.post("/login", data={"player": "alice"})
        page = await client.get("/lobby")
    assert page.status_code == 200
    assert f"Balance {shown}." in page.text, page.text
